"""Kernels for insert_sync (tests/python/test_sync.py): control flow the flag placement must
get right.  Each runs with insert_sync on (LocalTensorAuto, or the option)."""
import asc

T = 64


@asc.jit
def s_nested(x: asc.GlobalAddress, z: asc.GlobalAddress, outer: int, inner: int):
    """Accumulate in a loop nest with run-time bounds (inner may be 0): acc is read and written
    by V across both loops, `a` is reloaded by MTE2 while V may still read it."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensorAuto(x.dtype, T)
    acc = asc.LocalTensorAuto(x.dtype, T)
    asc.duplicate(acc, 0.0, T)
    for i in range(outer):
        for j in range(inner):
            asc.data_copy(a, xg[(i * inner + j) * T:], T)
            asc.add(acc, acc, a, T)
        asc.data_copy(zg[i * T:], acc, T)


@asc.jit
def s_if_in_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """A run-time branch per iteration, each side a different V op into the same buffer."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensorAuto(x.dtype, T)
    c = asc.LocalTensorAuto(x.dtype, T)
    for i in range(n):
        asc.data_copy(a, xg[i * T:], T)
        if i % 2 == 0:
            asc.muls(c, a, 2.0, T)
        else:
            asc.adds(c, a, 1.0, T)
        asc.data_copy(zg[i * T:], c, T)


@asc.jit(insert_sync=True)
def s_dyn_addr(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Static LocalTensors indexed at run time ((i % 2) * T): each access may touch the whole
    buffer, so every cross-pipe pair is ordered."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2 * T)
    u = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 1024, 2 * T)
    for i in range(n):
        off = (i % 2) * T
        asc.data_copy(t[off:], xg[i * T:], T)
        asc.muls(u[off:], t[off:], 3.0, T)
        asc.data_copy(zg[i * T:], u[off:], T)


@asc.jit
def s_while(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """A while loop; the result of the last iteration is copied out after it."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensorAuto(x.dtype, T)
    c = asc.LocalTensorAuto(x.dtype, T)
    asc.duplicate(c, 0.0, T)
    k = 0
    while k < n:
        asc.data_copy(a, xg[k * T:], T)
        asc.add(c, c, a, T)
        k += 1
    asc.data_copy(zg, c, T)


@asc.jit
def s_gm_roundtrip(x: asc.GlobalAddress, w: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """GM written by MTE3 and read back by MTE2 from the same argument (w): GM RAW."""
    xg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    wg.set_global_buffer(w)
    zg.set_global_buffer(z)
    a = asc.LocalTensorAuto(x.dtype, T)
    b = asc.LocalTensorAuto(x.dtype, T)
    for i in range(n):
        asc.data_copy(a, xg[i * T:], T)
        asc.muls(a, a, 2.0, T)
        asc.data_copy(wg[i * T:], a, T)
        asc.data_copy(b, wg[i * T:], T)
        asc.adds(b, b, 1.0, T)
        asc.data_copy(zg[i * T:], b, T)


@asc.jit
def s_event_ids(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Manual flags with ids from TPipe.alloc_event_id / fetch_event_id / release_event_id."""
    pipe = asc.TPipe()
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, T)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 1024, T)
    e_in = pipe.alloc_event_id(asc.HardEvent.MTE2_V)
    e_out = pipe.alloc_event_id(asc.HardEvent.V_MTE3)
    e_back = pipe.alloc_event_id(asc.HardEvent.MTE3_MTE2)
    assert pipe.fetch_event_id(asc.HardEvent.MTE2_V) == e_in + 1
    for i in range(n):
        asc.data_copy(a, xg[i * T:], T)
        asc.set_flag(asc.HardEvent.MTE2_V, e_in)
        asc.wait_flag(asc.HardEvent.MTE2_V, e_in)
        asc.muls(c, a, 2.0, T)
        asc.set_flag(asc.HardEvent.V_MTE3, e_out)
        asc.wait_flag(asc.HardEvent.V_MTE3, e_out)
        asc.data_copy(zg[i * T:], c, T)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, e_back)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, e_back)
    pipe.release_event_id(e_in, asc.HardEvent.MTE2_V)
    assert pipe.fetch_event_id(asc.HardEvent.MTE2_V) == e_in


@asc.jit
def s_event_ids_exhausted(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    for k in asc.static_range(7):
        pipe.alloc_event_id(asc.HardEvent.MTE2_V)
