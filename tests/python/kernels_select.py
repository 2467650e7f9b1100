"""Kernels for test_select.py: asc.select with a sel_mask tensor in each sel_mode and form."""
import asc


@asc.jit
def k_select(x: asc.GlobalAddress, y: asc.GlobalAddress, m: asc.GlobalAddress, z: asc.GlobalAddress,
             n: asc.ConstExpr[int], mode: asc.ConstExpr[int], form: asc.ConstExpr[str],
             repeats: asc.ConstExpr[int], mask: asc.ConstExpr[int], scalar: asc.ConstExpr[float]):
    """z <- select(sel = m, src0 = x, src1 = y (or `scalar` in mode 1)) over n elements (count
    form) or `repeats` repeats of `mask` lanes (mask form); z starts as loaded from z."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    mg = asc.GlobalTensor()
    mg.set_global_buffer(m)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    sz = x.dtype.sizeof()
    nb = (n * sz + 255) // 256 * 256
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, nb // sz)
    bb = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nb, nb // sz)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nb, nb // sz)
    sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 3 * nb, 512)
    asc.data_copy(a, xg, nb // sz)
    asc.data_copy(bb, yg, nb // sz)
    asc.data_copy(d, zg, nb // sz)
    asc.data_copy(sel, mg, 512)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    src1 = scalar if mode == 1 else bb
    if form == "count":
        asc.select(d, sel, a, src1, mode, n)
    else:
        asc.select(d, sel, a, src1, mode, mask, repeats, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, nb // sz)


@asc.jit
def k_select_clobber(x: asc.GlobalAddress, y: asc.GlobalAddress, m: asc.GlobalAddress, z: asc.GlobalAddress,
                     r: asc.GlobalAddress, n: asc.ConstExpr[int], mode: asc.ConstExpr[int],
                     scalar: asc.ConstExpr[float], sel_at: asc.ConstExpr[int]):
    """set_cmp_mask(m[:16]); select(z, m at sel_at, x, y or scalar, mode, n); then
    get_cmp_mask -> r[:16] and a select by the register (sel_mode 0, no sel_mask) of one full
    repeat into z[n_pad:]: both see what select mode 1 / 2 left in CMPMASK"""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    mg = asc.GlobalTensor()
    mg.set_global_buffer(m)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    rg = asc.GlobalTensor()
    rg.set_global_buffer(r)
    sz = x.dtype.sizeof()
    nb = (n * sz + 255) // 256 * 256 + 256
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, nb // sz)
    bb = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nb, nb // sz)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nb, nb // sz)
    first = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 3 * nb, 512)
    sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 3 * nb + sel_at, 512)
    back = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 3 * nb + 8192, 32)
    asc.data_copy(a, xg, nb // sz)
    asc.data_copy(bb, yg, nb // sz)
    asc.data_copy(d, zg, nb // sz)
    asc.data_copy(first, mg, 512)
    asc.data_copy(sel, mg, 512)
    asc.data_copy(back, rg, 32)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.set_cmp_mask(first)
    src1 = scalar if mode == 1 else bb
    asc.select(d, sel, a, src1, mode, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.get_cmp_mask(back)
    lanes = 256 // sz
    tail = (n * sz + 255) // 256 * 256 // sz
    asc.select(d[tail:], a[tail:], bb[tail:], 1, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8), 0)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, nb // sz)
    asc.data_copy(rg, back, 32)
