"""Kernels that break a rule: each test compiles one and matches the message and line."""
import asc

CONST = 4


@asc.jit
def e_break(n: int):
    for i in range(n):
        break


@asc.jit
def e_continue(n: int):
    for i in range(n):
        continue


@asc.jit
def e_global(n: int):
    global CONST
    CONST = 1


@asc.jit
def e_lambda(n: int):
    f = lambda a: a  # noqa: E731
    f(n)


@asc.jit
def e_import(n: int):
    import math  # noqa: F401


@asc.jit
def e_with(n: int):
    with open("x") as f:  # noqa: F841
        pass


@asc.jit
def e_raise(n: int):
    raise ValueError("no")


@asc.jit
def e_try(n: int):
    try:
        n = 1
    except Exception:
        pass


@asc.jit
def e_nested(n: int):
    def inner():
        return 1
    inner()


@asc.jit
def e_yield(n: int):
    yield n


@asc.jit
def e_return_value(n: int):
    return n


@asc.jit
def e_print(n: int):
    print(n)


@asc.jit
def e_tensor_plus_int(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    u = t + 1  # noqa: F841


@asc.jit
def e_add_int(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.add(t, t, 5, 64)


@asc.jit
def e_add_mixed(x: asc.GlobalAddress, y: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    u = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, 1024, 64)
    asc.add(t, t, u, 64)


@asc.jit
def e_capacity(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q, 2, 100 * 1024)


@asc.jit
def e_isa_dtype(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.exp(t, t, 64)


@asc.jit
def e_barrier_s(n: int):
    asc.pipe_barrier(asc.PipeID.PIPE_S)


@asc.jit
def e_event_range(n: int):
    asc.set_flag(asc.HardEvent.MTE2_V, 9)


@asc.jit
def e_runtime_event(n: int):
    asc.set_flag(asc.HardEvent.MTE2_V, n)


@asc.jit
def e_deque_empty(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 1024)
    t = q.deque(x.dtype)  # noqa: F841


@asc.jit
def e_undefined(n: int):
    m = undefined_name + 1  # noqa: F821,F841


@asc.jit
def e_float_runtime(a: float):
    b = a * 2.0  # noqa: F841


@asc.jit
def e_misaligned(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4, 64)  # noqa: F841


@asc.jit
def e_fault(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    asc.data_copy(t, g, 64)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    bad = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 180 * 1024, 4096 // 4)
    asc.data_copy(g, bad[4096 // 4 * 0:], 4096)


@asc.jit
def e_deadlock(x: asc.GlobalAddress):
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.adds(t, t, 1.0, 64)


class Holder:
    @asc.jit
    def e_in_class(self, n: int):
        pass


# ---- values the language must refuse at the call, not turn into internal errors, run-time faults
# or wrong addresses (each one did before)
@asc.jit
def e_return_mid(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    return 5
    xg.set_global_buffer(x)


@asc.jit
def e_count_huge(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, xg, 2**70)


@asc.jit
def e_count_huge_vec(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.add(a, a, a, 2**70)


@asc.jit
def e_count_float(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, xg, 64.0)


@asc.jit
def e_count_float_vec(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.add(a, a, a, 64.5)


@asc.jit
def e_repeat_float(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.add(a, a, a, mask=64, repeat_times=2.5, repeat_params=asc.BinaryRepeatParams())


@asc.jit
def e_burst_too_long(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, xg, 1 << 22)


@asc.jit
def e_neg_local_slice(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a[-64:], xg, 64)


@asc.jit
def e_neg_local_index(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.add(a[-8], a, a, 8)


@asc.jit
def e_neg_gm_slice(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, xg[-64:], 64)


@asc.jit
def e_slice_past_end(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.add(a[128:512], a, a, 8)


@asc.jit
def e_slice_backwards(x: asc.GlobalAddress):
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.add(a[64:32], a, a, 8)
