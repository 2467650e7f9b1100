"""asc.trans_data_to_5hd (Ascend C TransDataTo5HD = setva/vldva + vnchwconv.b8/.b16/.b32,
sim/exec_vnchwconv.c) against numpy: 16 x 16 block transposes for b16, b32 and both b8 halves, the
three call forms (TensorList, AddrList, uint64 address tensors), NCHW -> NC1HWC0 with repeats, and the
repeat_times == 1 stride rule of the Ascend C page."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

NB = 2048       # bytes of data staged in UB


@asc.jit
def k_5hd(x: asc.GlobalAddress, z: asc.GlobalAddress, form: asc.ConstExpr[str], sstep: asc.ConstExpr[int],
          dstep: asc.ConstExpr[int], rt: asc.ConstExpr[int], srep: asc.ConstExpr[int], drep: asc.ConstExpr[int],
          dh: asc.ConstExpr[bool], sh: asc.ConstExpr[bool]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    n = 8192 // x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 16384, n)
    asc.data_copy(a, xg, n)
    asc.data_copy(c, zg, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    p = asc.TransDataTo5HDParams(dh, sh, rt, drep, srep)
    epb = 32 // x.dtype.sizeof()
    dl = []
    sl = []
    for i in asc.static_range(16):
        if form == "tensors":
            dl.append(c[dstep * epb * i:])
            sl.append(a[sstep * epb * i:])
        else:
            dl.append(c[dstep * epb * i].get_phy_addr())
            sl.append(a[sstep * epb * i].get_phy_addr())
    if form == "tensors":
        asc.trans_data_to_5hd(dl, sl, p)
    elif form == "addrs":
        asc.trans_data_to_5hd(dl, sl, p, dtype=x.dtype)
    elif form == "addrs-inferred":
        asc.trans_data_to_5hd(dl, sl, p)      # the dtype of the get_phy_addr calls
    else:
        da = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 40960, 16)
        sa = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 41984, 16)
        for i in asc.static_range(16):
            da.set_value(i, dl[i])
            sa.set_value(i, sl[i])
        asc.set_flag(asc.HardEvent.S_V, 0)
        asc.wait_flag(asc.HardEvent.S_V, 0)
        asc.trans_data_to_5hd(da, sa, p)      # as real pyasc's test_trans_5hd_addr_tensor: no dtype
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, n)


def _ref(x, z0, sstep, dstep, rt, srep, drep, dh, sh):
    size = x.dtype.itemsize
    xb = x.view(np.uint8)
    zb = z0.copy().view(np.uint8)
    for r in range(rt):
        k = 1 if rt == 1 else r
        src = [xb[32 * (sstep * i + k * srep):][:32].copy() for i in range(16)]
        for j in range(16):
            d = 32 * (dstep * j + k * drep)
            if size == 2:
                zb[d:d + 32] = np.concatenate([src[i][2 * j:2 * j + 2] for i in range(16)])
            elif size == 4:
                zb[d:d + 32] = np.concatenate([src[8 * (j % 2) + i][4 * (j // 2):4 * (j // 2) + 4] for i in range(8)])
            else:
                zb[d + 16 * dh:d + 16 * dh + 16] = [src[i][16 * sh + j] for i in range(16)]
    return zb.view(z0.dtype)


def _run(dtype, form, sstep=1, dstep=1, rt=1, srep=0, drep=0, dh=False, sh=False, seed=0):
    rng = np.random.default_rng(seed)
    n = 8192 // np.dtype(dtype).itemsize
    x = rng.integers(0, 100, n).astype(dtype)
    z0 = rng.integers(0, 100, n).astype(dtype)
    z = z0.copy()
    k_5hd[1](x, z, form, sstep, dstep, rt, srep, drep, dh, sh)
    np.testing.assert_array_equal(z, _ref(x, z0, sstep, dstep, rt, srep, drep, dh, sh))
    return x, z


@pytest.mark.parametrize("dtype", [np.float16, np.int16, np.uint16, np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("form", ["tensors", "addrs", "addrs-inferred", "tensor"])
def test_block_transpose(dtype, form):
    x, z = _run(dtype, form, seed=1)
    if np.dtype(dtype).itemsize == 2:   # b16: a plain 16 x 16 transpose of 16 contiguous blocks
        np.testing.assert_array_equal(z[:256].reshape(16, 16), x[:256].reshape(16, 16).T)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("dh,sh", [(False, False), (False, True), (True, False), (True, True)])
def test_b8_halves(dtype, dh, sh):
    _run(dtype, "tensors", dh=dh, sh=sh, seed=2)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8])
@pytest.mark.parametrize("rt,srep,drep", [(1, 0, 0), (1, 2, 3), (3, 1, 16), (5, 2, 1)])
def test_repeats_and_the_repeat1_stride_rule(dtype, rt, srep, drep):
    _run(dtype, "addrs", sstep=4, dstep=2, rt=rt, srep=srep, drep=drep, seed=rt)


def test_nchw_to_nc1hwc0():
    # the Ascend C page's recipe: C = 16 channels of H*W = 64 f16 each; src list = the 16 HW planes,
    # dst list = 16 contiguous blocks, repeat H*W/16 times with src stride 1 and dst stride 16
    c, hw = 16, 64
    x = np.zeros(8192 // 2, np.float16)
    x[:c * hw] = np.arange(c * hw) % 2000
    z = np.zeros_like(x)
    k_5hd[1](x, z, "tensors", hw // 16, 1, hw // 16, 1, 16, False, False)
    want = x[:c * hw].reshape(c, hw).T.reshape(-1)      # NC1HWC0 with C1 = 1: HW x C0
    np.testing.assert_array_equal(z[:c * hw], want)


@asc.jit
def k_5hd_bad(x: asc.GlobalAddress, what: asc.ConstExpr[str]):
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
    p = asc.TransDataTo5HDParams()
    if what == "count":
        asc.trans_data_to_5hd([a] * 15, [a] * 16, p)
    elif what == "dtype":
        asc.trans_data_to_5hd([0] * 16, [32] * 16, p)
    elif what == "align":
        asc.trans_data_to_5hd([16] * 16, [0] * 16, p, dtype=asc.float16)
    else:
        asc.trans_data_to_5hd([a] * 16, [a] * 16, asc.TransDataTo5HDParams(True, False, 1, 0, 0))


@pytest.mark.parametrize("what,msg", [("count", "must be 16 LocalTensors or 16 UB addresses"),
                                      ("dtype", "needs dtype=.*seen: none"),
                                      ("align", "address 16 is not a 32 B aligned UB address"),
                                      ("half", "for int8/uint8 only")])
def test_errors(what, msg):
    with pytest.raises(asc.CompileError, match=msg):
        k_5hd_bad[1](np.zeros(512, np.float16), what)
