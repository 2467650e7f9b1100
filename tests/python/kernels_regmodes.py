"""Kernels of test_regmodes.py: register-controlled modes (pad value register, HF32 mode)."""
import asc


@asc.jit
def k_pad_reg(x: asc.GlobalAddress, z: asc.GlobalAddress, blen: asc.ConstExpr[int], lpad: asc.ConstExpr[int],
              rpad: asc.ConstExpr[int], how: asc.ConstExpr[str], value: asc.ConstExpr[float]):
    """Two GM -> UB pad copies of blen elements with is_pad=False, the first at UB 0, the second
    at UB 2048 B; the pad value register is set by `how` before them:
    "set" set_pad_value(value) typed like x, "default" set_pad_value(value) with real pyasc's
    default type, "ispad" an is_pad=True copy of value (to UB 4096 B), "between" set_pad_value
    after the first copy only.  The UB is copied back whole."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    size = x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 6144 // size)
    prm = asc.DataCopyExtParams(1, blen * size, 0, 0, 0)
    nopad = asc.DataCopyPadExtParams(x.dtype, False, lpad, rpad, 0)
    if how == "set":
        asc.set_pad_value(value, dtype=x.dtype)
    if how == "default":
        asc.set_pad_value(value, asc.TPosition.VECIN)
    if how == "ispad":
        asc.data_copy_pad(a[4096 // size:], xg, prm, asc.DataCopyPadExtParams(x.dtype, True, lpad, rpad, value))
    asc.data_copy_pad(a, xg, prm, nopad)
    if how == "between":
        asc.set_pad_value(value, dtype=x.dtype)
    asc.data_copy_pad(a[2048 // size:], xg[1:], prm, nopad)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, a, 6144 // size)


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_mm_f32(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
             n: asc.ConstExpr[int], k: asc.ConstExpr[int], hf32: asc.ConstExpr[int], trans: asc.ConstExpr[int],
             rt_mode: int):
    """c = a @ bt.T in f32 on the cube (a m x k, bt n x k, both ND; f32 fractals are 16 x 8).
    hf32: -1 leaves the HF32 mode alone, 0/1 sets it; trans: -1 / 0 / 1 likewise the trans mode;
    hf32 = 2 sets the mode from the run-time scalar rt_mode."""
    K0 = 8
    mp = (m + 15) // 16 * 16
    kp = (k + K0 - 1) // K0 * K0
    np_ = (n + 15) // 16 * 16
    ag = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg = asc.GlobalTensor()
    bg.set_global_buffer(bt)
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, mp * kp)
    b1 = asc.LocalTensor(asc.float32, asc.TPosition.B1, mp * kp * 4, np_ * kp)
    a2 = asc.LocalTensor(asc.float32, asc.TPosition.A2, 0, mp * kp)
    b2 = asc.LocalTensor(asc.float32, asc.TPosition.B2, 0, np_ * kp)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, mp * np_)
    asc.data_copy(a1, ag, asc.Nd2NzParams(1, m, k, 0, k, mp, 1, 0))
    asc.data_copy(b1, bg, asc.Nd2NzParams(1, n, k, 0, k, np_, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(mp // 16):
        asc.load_data(a2[i * (kp // K0) * 128:], a1, asc.LoadData2DParams(i, kp // K0, mp // 16, 0, 0, False))
    for j in range(kp // K0):
        asc.load_data(b2[j * (np_ // 16) * 128:], b1,
                      asc.LoadData2DParams(j * (np_ // 16), np_ // 16, 1, 0, 0, False))
    if hf32 == 2:
        asc.set_hf32_mode(rt_mode)
    if hf32 == 0 or hf32 == 1:
        asc.set_hf32_mode(hf32 == 1)
    if trans == 0 or trans == 1:
        asc.set_hf32_trans_mode(trans == 1)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, 0, 0, 0, True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(n, m, 0, n, 0, False))


@asc.jit
def k_cmpmask(x: asc.GlobalAddress, y: asc.GlobalAddress, m0: asc.GlobalAddress, m1: asc.GlobalAddress,
              z: asc.GlobalAddress, got: asc.GlobalAddress, repeats: asc.ConstExpr[int], mask: asc.ConstExpr[int]):
    """set_cmp_mask from the 32 bytes m0, then overwrite that UB with m1; select by the register
    over `repeats` repeats of mask `mask` lanes; get_cmp_mask into UB that first held m1."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    m0g = asc.GlobalTensor()
    m0g.set_global_buffer(m0)
    m1g = asc.GlobalTensor()
    m1g.set_global_buffer(m1)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    gg = asc.GlobalTensor()
    gg.set_global_buffer(got)
    lanes = 256 // x.dtype.sizeof()
    n = repeats * lanes
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    bb = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, n * 256 // lanes, n)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * n * 256 // lanes, n)
    sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 3 * n * 256 // lanes, 32)
    back = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 3 * n * 256 // lanes + 32, 32)
    asc.data_copy(a, xg, n)
    asc.data_copy(bb, yg, n)
    asc.data_copy(d, zg, n)
    asc.data_copy(sel, m0g, 32)
    asc.data_copy(back, m1g, 32)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.set_cmp_mask(sel)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(sel, m1g, 32)             # the register keeps m0's bits
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.select(d, a, bb, repeats, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8), asc.SELMODE.VSEL_CMPMASK_SPR,
               mask=mask)
    asc.get_cmp_mask(back)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, n)
    asc.data_copy(gg, back, 32)


@asc.jit
def k_cast_deq(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], scale: asc.ConstExpr[float],
               form: asc.ConstExpr[str]):
    """z (f16) = cast_deq(x (s32)) after set_deq_scale(scale); form "count" (n elements) or
    "mask" (n // 64 repeats of 64 lanes)."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    np_ = (n + 63) // 64 * 64
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, np_)
    d = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, np_ * 4, np_)
    asc.data_copy(a, xg, np_)
    asc.data_copy(d, zg, np_)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.set_deq_scale(scale)
    if form == "count":
        asc.cast_deq(d, a, count=n, is_vec_deq=False, half_block=False)
    else:
        asc.cast_deq(d, a, 64, n // 64, asc.UnaryRepeatParams(1, 1, 4, 8))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, np_)
