"""Kernels of test_cast_modes.py: one asc.cast of n elements (count mode) with a given RoundMode."""
import asc


@asc.jit
def k_cast_mode(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], ns: asc.ConstExpr[int],
                nd: asc.ConstExpr[int], mode: asc.ConstExpr[int], sbf: asc.ConstExpr[bool],
                dbf: asc.ConstExpr[bool]):
    """z[:n] = cast(x[:n], mode); x holds ns, z nd elements (a multiple of 32 bytes each); z's UB
    copy is loaded from z first, so the lanes past n must come back as they were.  sbf / dbf: the
    uint16 GM buffer holds bfloat16 bits."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, ns)
    d = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, nd)
    asc.data_copy(a, xg, ns)
    asc.data_copy(d, zg, nd)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    if sbf:
        asc.cast(d, a.reinterpret_cast(asc.bfloat16), mode, n)
    elif dbf:
        asc.cast(d.reinterpret_cast(asc.bfloat16), a, mode, n)
    else:
        asc.cast(d, a, mode, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, nd)


@asc.jit
def k_cast_strided(x: asc.GlobalAddress, z: asc.GlobalAddress, ns: asc.ConstExpr[int], nd: asc.ConstExpr[int],
                   mode: asc.ConstExpr[int], m0: asc.ConstExpr[int], m1: asc.ConstExpr[int],
                   rt: asc.ConstExpr[int], dblk: asc.ConstExpr[int], sblk: asc.ConstExpr[int],
                   drep: asc.ConstExpr[int], srep: asc.ConstExpr[int], sbf: asc.ConstExpr[bool]):
    """the mask / repeat_times / UnaryRepeatParams form of asc.cast: z's UB image (loaded from z) gets
    the converted lanes the mask selects, at the strided addresses (sbf: x holds bfloat16 bits)"""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, ns)
    d = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, nd)
    asc.data_copy(a, xg, ns)
    asc.data_copy(d, zg, nd)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    p = asc.UnaryRepeatParams(dblk, sblk, drep, srep)
    if sbf:
        asc.cast(d, a.reinterpret_cast(asc.bfloat16), mode, [m0, m1], rt, p)
    else:
        asc.cast(d, a, mode, [m0, m1], rt, p)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, nd)


@asc.jit
def k_cast_deq_b8(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], nx: asc.ConstExpr[int],
                  scale: asc.ConstExpr[float], offset: asc.ConstExpr[int], sign: asc.ConstExpr[bool],
                  half: asc.ConstExpr[bool]):
    """z (int8 / uint8, loaded first) = cast_deq of n int16 elements of x after
    set_deq_scale(scale, offset, sign), is_vec_deq=False"""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, nx)
    d = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, 2 * nx)
    asc.data_copy(a, xg, nx)
    asc.data_copy(d, zg, 2 * nx)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.set_deq_scale(scale, offset, sign)
    asc.cast_deq(d, a, n, is_vec_deq=False, half_block=half)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, 2 * nx)


@asc.jit
def k_cast_vdeq_b8(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], nx: asc.ConstExpr[int],
                   scales: asc.ConstExpr[tuple], offsets: asc.ConstExpr[tuple], signs: asc.ConstExpr[tuple],
                   half: asc.ConstExpr[bool], form: asc.ConstExpr[str]):
    """z (int8 / uint8, loaded first) = cast_deq of n int16 elements of x with vector
    dequantisation: set_deq_scale(vdeq, VdeqInfo(scales, offsets, signs)), is_vec_deq=True (real
    pyasc's default).  form "count": cast_deq(d, a, n) ("tbuf": the table in a TBuf); "mask": n // 128 repeats of a full
    128-lane mask with dst repeat stride 8 blocks (n a multiple of 128)"""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, nx)
    d = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 65536, 2 * nx)
    if form == "tbuf":                   # a placed buffer: its address resolves at link time
        pipe = asc.TPipe()
        tb = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tb, 128)
        vdeq = tb.get(asc.uint64)
    else:
        vdeq = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 131072 + 96, 16)
    asc.data_copy(a, xg, nx)
    asc.data_copy(d, zg, 2 * nx)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.set_deq_scale(vdeq, asc.VdeqInfo(list(scales), list(offsets), list(signs)))
    if form != "mask":
        asc.cast_deq(d, a, n, half_block=half)
    else:
        asc.cast_deq(d, a, 128, n // 128, asc.UnaryRepeatParams(1, 1, 8, 8), True, True, half)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, 2 * nx)
