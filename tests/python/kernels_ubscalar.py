"""Kernels of test_ubscalar.py: LocalTensor.get_value/set_value, scalar loads and stores of UB."""
import asc

CAP = 4096


@asc.jit
def k_scale_elems(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, k: int):
    """z[i] = x[i] * k + i, element by element on the scalar unit (integers); n run-time."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    size = x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, CAP)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, CAP * size, CAP)
    p = asc.DataCopyExtParams(1, n * size, 0, 0, 0)
    asc.data_copy_pad(a, xg, p, asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_S, 0)
    asc.wait_flag(asc.HardEvent.MTE2_S, 0)
    for i in range(n):
        c.set_value(i, a.get_value(i) * k + i)
    asc.set_flag(asc.HardEvent.S_MTE3, 0)
    asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    asc.data_copy_pad(zg, c, p)


@asc.jit
def k_reverse_f32(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """z = (x + 1)[::-1]: the vector unit adds, the scalar unit reverses (f32 bits move
    unchanged), with the V -> S and S -> MTE3 flags Ascend C needs."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, CAP)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, CAP * 4, CAP)
    p = asc.DataCopyExtParams(1, n * 4, 0, 0, 0)
    asc.data_copy_pad(a, xg, p, asc.DataCopyPadExtParams(asc.float32, False, 0, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(a, a, 1.0, n)
    asc.set_flag(asc.HardEvent.V_S, 0)
    asc.wait_flag(asc.HardEvent.V_S, 0)
    for i in range(n):
        c.set_value(n - 1 - i, a.get_value(i))
    asc.set_flag(asc.HardEvent.S_MTE3, 0)
    asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    asc.data_copy_pad(zg, c, p)


@asc.jit
def k_set_consts(z: asc.GlobalAddress, z16: asc.GlobalAddress):
    """set_value of compile-time floats into float32 and float16 tensors, then scalar add of a
    broadcast duplicate: z[i] = 0.1 * i (rounded), z16[i] = (i - 2.5) in f16, 5 elements each."""
    zg = asc.GlobalTensor()
    hg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    hg.set_global_buffer(z16)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 256, 64)
    for i in asc.static_range(5):
        c.set_value(i, 0.1 * i)
        h.set_value(i, i - 2.5)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy_pad(zg, c, asc.DataCopyExtParams(1, 20, 0, 0, 0))
    asc.data_copy_pad(hg, h, asc.DataCopyExtParams(1, 10, 0, 0, 0))


@asc.jit
def k_get_f16(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)
    a.get_value(0)


@asc.jit
def k_get_out_of_ub(z: asc.GlobalAddress, i: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
    zg.set_value(0, a.get_value(i))
