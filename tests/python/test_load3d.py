"""asc.load_data with LoadData3DParamsV2 (LoadData3D v2, im2col L1 -> L0A / L0B: the load3dv2
instruction, sim/exec_load3d.c) checked as a conv2d: the NC1HWC0 feature map goes GM -> L1, load3d
forms the im2col matrix in L0A, the weights (K x Cout, K = C1*FH*FW*16 in load3d's column order)
go GM -> L1 (ND -> NZ) -> L0B, mmad (f16 in, f32 out) and fixpipe write out[Hout*Wout][Cout]; the
reference is numpy's direct convolution in float64.  Also: set_load_data_padding_value / repeat /
boundary and the compile-time errors."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

F = 16


def _out_hw(h, w, fh, fw, pads, s, d=1):
    pl, pr, pt, pb = pads
    return (h + pt + pb - ((fh - 1) * d + 1)) // s + 1, (w + pl + pr - ((fw - 1) * d + 1)) // s + 1


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_conv(x: asc.GlobalAddress, wt: asc.GlobalAddress, out: asc.GlobalAddress, c1n: asc.ConstExpr[int],
           h: asc.ConstExpr[int], w: asc.ConstExpr[int], fh: asc.ConstExpr[int], fw: asc.ConstExpr[int],
           pads: asc.ConstExpr[tuple], s: asc.ConstExpr[int], d: asc.ConstExpr[int], npad: asc.ConstExpr[int],
           tm: asc.ConstExpr[int], padv: asc.ConstExpr[float]):
    hp, wp = h + pads[2] + pads[3], w + pads[0] + pads[1]
    hout, wout = (hp - ((fh - 1) * d + 1)) // s + 1, (wp - ((fw - 1) * d + 1)) // s + 1
    m, k = hout * wout, c1n * fh * fw * F
    img = asc.get_block_idx()                    # one image per core
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + img * (c1n * h * w * F))
    wg = asc.GlobalTensor()
    wg.set_global_buffer(wt)
    og = asc.GlobalTensor()
    og.set_global_buffer(out + img * (m * npad))
    hf = asc.float16
    a1 = asc.LocalTensor(hf, asc.TPosition.A1, 0, c1n * h * w * F)
    b1 = asc.LocalTensor(hf, asc.TPosition.B1, 262144, k * npad)
    a2 = asc.LocalTensor(hf, asc.TPosition.A2, 0, 32768)
    b2 = asc.LocalTensor(hf, asc.TPosition.B2, 0, k * npad)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32768)
    asc.data_copy(a1, xg, c1n * h * w * F)
    asc.data_copy(b1, wg, asc.Nd2NzParams(1, k, npad, 0, npad, k, 1, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for j in asc.static_range(k // F):
        asc.load_data(b2[j * (npad // F) * 256:], b1, asc.LoadData2DParams(j, npad // F, k // F, 0, 0, True))
    for t in asc.static_range((m + tm - 1) // tm):
        m0 = t * tm
        rows = min(tm, m - m0)
        asc.load_data(a2, a1, asc.LoadData3DParamsV2(list(pads), h, w, c1n * F, k, rows, 0, m0, s, s, fw, fh, d, d,
                                                     False, padv))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.mmad(c1, a2, b2, asc.MmadParams(rows, npad, k, 0, 0, 0, True))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.fixpipe(og[m0 * npad:], c1, asc.FixpipeParamsV220(npad, rows, 0, npad, 0, False))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def _conv_case(rng, n, c, h, w, cout, fh, fw, pads, s, d=1, tm=None, padv=0.0, **kw):
    c1n = -(-c // F)
    npad = -(-cout // F) * F
    x = rng.integers(-3, 4, (n, c, h, w)).astype(np.float16) * np.float16(0.5)
    wts = rng.integers(-3, 4, (cout, c, fh, fw)).astype(np.float16) * np.float16(0.25)
    # NC1HWC0 with the channels past C zero
    x5 = np.zeros((n, c1n * F, h, w), np.float16)
    x5[:, :c] = x
    x5 = x5.reshape(n, c1n, F, h, w).transpose(0, 1, 3, 4, 2).copy()
    # B[k][co], k = ((c1*FH + i)*FW + j)*16 + c0 (load3d's column order), padded with zeros
    wb = np.zeros((c1n, fh, fw, F, npad), np.float16)
    wpad = np.zeros((npad, c1n * F, fh, fw), np.float16)
    wpad[:cout, :c] = wts
    wb[:] = wpad.reshape(npad, c1n, F, fh, fw).transpose(1, 3, 4, 2, 0)
    hout, wout = _out_hw(h, w, fh, fw, pads, s, d)
    out = np.zeros((n, hout * wout, npad), np.float32)
    tm = tm or -(-hout * wout // F) * F
    k_conv[n](x5, wb.reshape(-1, npad), out, c1n, h, w, fh, fw, tuple(pads), s, d, npad, tm, padv, **kw)
    # reference: direct convolution of the padded input (float64), padding value padv
    pl, pr, pt, pb = pads
    xp = np.full((n, c, h + pt + pb, w + pl + pr), padv, np.float64)
    xp[:, :, pt:pt + h, pl:pl + w] = x
    ref = np.zeros((n, hout, wout, cout))
    for i in range(fh):
        for j in range(fw):
            win = xp[:, :, i * d:i * d + (hout - 1) * s + 1:s, j * d:j * d + (wout - 1) * s + 1:s]
            ref += np.einsum("nchw,oc->nhwo", win, wts[:, :, i, j].astype(np.float64))
    np.testing.assert_allclose(out[:, :, :cout].reshape(n, hout, wout, cout), ref.astype(np.float32), rtol=1e-6,
                               atol=0)
    return out


@pytest.mark.parametrize("c,h,w,cout,s", [(5, 7, 9, 8, 1), (5, 7, 9, 8, 2), (20, 7, 9, 17, 1), (20, 7, 9, 17, 2),
                                          (16, 5, 3, 16, 1), (3, 1, 1, 4, 1)])
def test_conv2d_im2col_pad1(c, h, w, cout, s):
    rng = np.random.default_rng(c * 100 + h * 10 + s)
    _conv_case(rng, 1, c, h, w, cout, 3, 3, (1, 1, 1, 1), s)


def test_conv2d_im2col_clean_under_every_check():
    """the last partial row of fractals: initcheck follows load3d's bytes (san.c) and finds nothing"""
    _conv_case(np.random.default_rng(5), 1, 5, 7, 9, 8, 3, 3, (1, 1, 1, 1), 2, sanitize="all")


def test_conv2d_tiles_cores_dilation_padvalue():
    """two images on two cores, M in tiles of 16 rows (m_start_pt 0, 16, 32, ...; the last partial),
    dilation 2, asymmetric pads and a non-zero padding value"""
    rng = np.random.default_rng(7)
    _conv_case(rng, 2, 20, 7, 9, 8, 3, 2, (2, 0, 1, 3), 1, d=2, tm=16, padv=1.5)
    _conv_case(rng, 3, 5, 7, 9, 5, 3, 3, (1, 1, 1, 1), 2, tm=16)


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_bad(x: asc.GlobalAddress, what: asc.ConstExpr[str]):
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 4096)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 4096)
    f1 = asc.LocalTensor(asc.float32, asc.TPosition.B1, 16384, 4096)
    f2 = asc.LocalTensor(asc.float32, asc.TPosition.B2, 0, 4096)
    ch = 20 if what == "channel" else 16
    mst = 16 if what == "window" else 0
    kst = 8 if what == "kstart" else 0
    ctrl = what == "ctrl"
    p = asc.LoadData3DParamsV2([1, 1, 1, 1], 4, 4, ch, 144, 16, kst, mst, 1, 1, 3, 3, 1, 1, False, 0, False, False,
                               ctrl)
    if what == "l0b32":
        asc.load_data(f2, f1, p)
    elif what == "repeat":
        asc.set_load_data_repeat(asc.LoadDataRepeatParam(4, 8, 0))
    elif what == "boundary":
        asc.set_load_data_boundary(512)
    elif what == "ub":
        u = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 4096)
        asc.load_data(a2, u, p)
    else:
        asc.load_data(a2, a1, p)


@pytest.mark.parametrize("what,msg", [
    ("channel", r"channel_size 20 is not a multiple of 16 \(float16\): the hardware's small-channel modes"),
    ("window", r"the window rows \[16, 32\) x columns \[0, 144\) leaves the im2col matrix of 16 x 144"),
    ("ctrl", r"f_matrix_ctrl=True .* is not modelled"),
    ("kstart", r"k_start_pt 8 must be a multiple of 16"),
    ("l0b32", r"of float32 into B2 \(L0B\): only 16-bit types are modelled there"),
    ("repeat", r"repeat_time 4: load3d repeats .* are not modelled"),
    ("boundary", r"boundary 512 must be 0 \(none\) or a multiple of 32 bytes in \[1024, 2\^32\)"),
    ("ub", r"moves an A1/B1 \(L1\) tensor into A2 \(L0A\) or B2 \(L0B\)"),
])
def test_errors(what, msg):
    with pytest.raises(asc.CompileError, match=msg):
        k_bad[1](np.zeros(16, np.float16), what)


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_regs(x: asc.GlobalAddress, out: asc.GlobalAddress, bnd: asc.ConstExpr[int], padv: asc.ConstExpr[float],
           soc: asc.ConstExpr[bool]):
    """a 4x4 map, 1x1 filter, pad 1 on the left only: im2col rows = the padded map's pixels; the
    window (16 rows x 16 channels) goes L0A -> mmad with the identity -> GM"""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    e = asc.GlobalTensor()
    e.set_global_buffer(x + 4096)
    hf = asc.float16
    a1 = asc.LocalTensor(hf, asc.TPosition.A1, 0, 4096)
    b1 = asc.LocalTensor(hf, asc.TPosition.B1, 65536, 256)
    a2 = asc.LocalTensor(hf, asc.TPosition.A2, 0, 1024)
    b2 = asc.LocalTensor(hf, asc.TPosition.B2, 0, 256)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 1024)
    asc.data_copy(a1, xg, 4096)
    asc.data_copy(b1, e, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 1, 0, 0, True))
    asc.set_load_data_repeat(asc.LoadDataRepeatParam(1, 0, 0))
    asc.set_load_data_boundary(bnd)
    if soc:
        asc.init_soc_state()               # InitSocState on the cube core: l1_3d_size and padding back to 0
    asc.set_load_data_padding_value(2.0)   # overwritten by load_data's own pad_value (isSetPadding)
    # map of 4 x 4 pixels from L1 byte 1792 (pixel 56): with a 2048 B boundary pixels 64.. wrap to 0..
    asc.load_data(a2, a1[896:], asc.LoadData3DParamsV2([1, 0, 0, 0], 4, 4, 16, 16, 20, 0, 0, 1, 1, 1, 1, 1, 1,
                                                       False, padv))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(20, 16, 16, 0, 0, 0, True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(og, c1, asc.FixpipeParamsV220(16, 20, 0, 16, 0, False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("bnd,padv,soc", [(0, -1.0, False), (2048, 0.5, False), (2048, 0.5, True)])
def test_registers_boundary_and_padding(bnd, padv, soc):
    l1 = (np.arange(4096) % 2048 - 1024).astype(np.float16)   # 256 pixels of 16 channels, pixel 64 != pixel 0
    x = np.concatenate([l1, np.eye(16, dtype=np.float16).ravel()])
    out = np.zeros((20, 16), np.float32)
    k_regs[1](x, out, bnd, padv, soc)
    pix = l1.reshape(256, 16)
    want = np.zeros((20, 16), np.float32)
    for m in range(20):
        ho, wo = divmod(m, 5)          # Wout = 4 + 1 (left pad) - 1 + 1 = 5
        if wo == 0:
            want[m] = padv
        else:
            p = 56 + ho * 4 + (wo - 1)
            if bnd and not soc:
                p = (p * 32 % bnd) // 32
            want[m] = pix[p]
    np.testing.assert_array_equal(out, want)


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_l0b(g: asc.GlobalAddress, x: asc.GlobalAddress, out: asc.GlobalAddress, s: asc.ConstExpr[int],
          mext: asc.ConstExpr[int]):
    """out = G (16 x mext) @ im2col rows [0, mext): the im2col goes to B2 (L0B, ZN: its rows are
    the mmad's K) as in a filter-gradient step (Ascend C conv3d backprop filter loads it so)"""
    gg = asc.GlobalTensor()
    gg.set_global_buffer(g)
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    hf = asc.float16
    a1 = asc.LocalTensor(hf, asc.TPosition.A1, 0, 16 * 32)
    b1 = asc.LocalTensor(hf, asc.TPosition.B1, 65536, 2 * 4 * 8 * F)
    a2 = asc.LocalTensor(hf, asc.TPosition.A2, 0, 16 * 32)
    b2 = asc.LocalTensor(hf, asc.TPosition.B2, 0, 32768)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 16 * 288)
    asc.data_copy(a1, gg, asc.Nd2NzParams(1, 16, mext, 0, mext, 16, 1, 0))
    asc.data_copy(b1, xg, 2 * 4 * 8 * F)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.load_data(a2, a1, asc.LoadData2DParams(0, -(-mext // F), 1, 0, 0, False))
    asc.load_data(b2, b1, asc.LoadData3DParamsV2([1, 1, 1, 1], 4, 8, 2 * F, 288, mext, 0, 0, s, s, 3, 3, 1, 1,
                                                 True, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(16, 288, mext, 0, 0, 0, True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(og, c1, asc.FixpipeParamsV220(288, 16, 0, 288, 0, False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("s,mext,kw", [(1, 32, {}), (1, 16, {}), (2, 8, {}), (2, 8, {"sanitize": "all"})])
def test_im2col_into_l0b(s, mext, kw):
    """en_transpose=True is ignored for B2 (LoadData_3D.md): L0B always gets the transposed fractals"""
    rng = np.random.default_rng(s)
    g = rng.integers(-2, 3, (16, mext)).astype(np.float16)
    x = rng.integers(-3, 4, (2, 4, 8, F)).astype(np.float16)        # C1 = 2 planes of 4 x 8 pixels
    out = np.zeros((16, 288), np.float32)
    k_l0b[1](g, x, out, s, mext, **kw)
    xp = np.zeros((2, 6, 10, F))
    xp[:, 1:5, 1:9] = x
    wout = (10 - 3) // s + 1
    cols = np.zeros((mext, 288))
    for m in range(mext):
        ho, wo = divmod(m, wout)
        for c in range(2):
            for i in range(3):
                for j in range(3):
                    k0 = ((c * 3 + i) * 3 + j) * F
                    cols[m, k0:k0 + F] = xp[c, ho * s + i, wo * s + j]
    np.testing.assert_array_equal(out, (g.astype(np.float64) @ cols).astype(np.float32))
