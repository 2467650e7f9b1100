"""asc.gather / asc.gatherb (vgather.b16/.b32, vgatherb: sim/exec_vgather.c) against numpy: several
dtypes, counts whose bytes are not multiples of 32, the mask form with holes and a dst repeat
stride, gatherb with block strides; bad offsets fault naming the lane; scatter is rejected (it has
no dav_c220 implementation)."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

N = 256


@asc.jit
def k_gather(x: asc.GlobalAddress, off: asc.GlobalAddress, z: asc.GlobalAddress, form: asc.ConstExpr[str],
             n: asc.ConstExpr[int], base: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(off)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    o = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 4096, 256)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 512)
    asc.data_copy(a, xg, 256)
    asc.data_copy(o, og, 256)
    asc.data_copy(c, zg, 512)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    lanes = 256 // x.dtype.sizeof()
    if form == "count":
        asc.gather(c, a, o, base, n)
    else:
        asc.gather(c, a, o, base, [0x5555555555555555, 0x0F0F0F0F0F0F0F0F], 256 // lanes, 16)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, 512)


def _mask_lanes(lanes):
    bits = (0x0F0F0F0F0F0F0F0F << 64) | 0x5555555555555555
    return np.array([(bits >> i) & 1 for i in range(lanes)], bool)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int16, np.int32, np.uint16])
@pytest.mark.parametrize("form,n,base", [("count", 1, 0), ("count", 7, 2), ("count", 100, 4), ("count", 201, 0),
                                         ("count", 256, 8), ("mask", 0, 4)])
def test_gather(dtype, form, n, base):
    rng = np.random.default_rng(3)
    size = np.dtype(dtype).itemsize
    x = rng.integers(-1000, 1000, N).astype(dtype)
    base = base * size // 2 * 2 if size == 2 else base * 4 // 4 * 4   # a multiple of the element size
    idx = rng.integers(0, N - base // size, N)            # repeats allowed, any order
    off = (idx * size).astype(np.uint32)
    z0 = rng.integers(-1000, 1000, 2 * N).astype(dtype)
    z = z0.copy()
    k_gather[1](x, off, z, form, n, base)
    g = x[base // size + idx]
    want = z0.copy()
    lanes = 256 // size
    if form == "count":
        want[:n] = g[:n]
    else:
        m = _mask_lanes(lanes)
        for r in range(256 // lanes):           # repeat r: offsets [r*lanes, ...), dst at r*16 blocks
            d0 = r * 16 * 32 // size
            for i in range(lanes):
                if m[i] and r * lanes + i < N:
                    want[d0 + i] = g[r * lanes + i]
    np.testing.assert_array_equal(z, want)


@asc.jit
def k_gatherb(x: asc.GlobalAddress, off: asc.GlobalAddress, z: asc.GlobalAddress, rt: asc.ConstExpr[int],
              blk: asc.ConstExpr[int], rep: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(off)
    zg.set_global_buffer(z)
    nx = 2048 // x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, nx)
    o = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 4096, 64)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 4 * nx)
    asc.data_copy(a, xg, nx)
    asc.data_copy(o, og, 64)
    asc.data_copy(c, zg, 4 * nx)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.gatherb(c, a, o, rt, asc.GatherRepeatParams(blk, rep))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, 4 * nx)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32])
@pytest.mark.parametrize("rt,blk,rep", [(1, 1, 8), (3, 2, 17), (5, 0, 8)])
def test_gatherb(dtype, rt, blk, rep):
    rng = np.random.default_rng(5)
    size = np.dtype(dtype).itemsize
    nx = 2048 // size
    x = rng.integers(0, 60000, nx).astype(dtype)
    blocks = rng.integers(0, 64, 64)                       # source block of each dst block
    off = (blocks * 32).astype(np.uint32)
    z0 = rng.integers(0, 60000, 4 * nx).astype(dtype)
    z = z0.copy()
    k_gatherb[1](x, off, z, rt, blk, rep)
    epb = 32 // size
    want = z0.copy()
    for r in range(rt):
        for j in range(8):
            d = (r * rep + j * (blk or 1)) * epb            # dst_blk_stride 0 is taken as 1
            s = blocks[8 * r + j] * epb
            want[d:d + epb] = x[s:s + epb]
    np.testing.assert_array_equal(z, want)


def test_gather_bad_offset_faults():
    x = np.zeros(N, np.float32)
    off = np.zeros(N, np.uint32)
    off[5] = 2                                           # not a multiple of 4 B
    with pytest.raises(asc.KernelFault, match="vgather lane 5 of repeat 0"):
        k_gather[1](x, off, np.zeros(2 * N, np.float32), "count", 64, 0)


@asc.jit
def k_scatter(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    o = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 4096, 64)
    asc.scatter(a, a, o, 0, 64)


def test_scatter_rejected():
    with pytest.raises(asc.CompileError, match="Scatter has no dav_c220 implementation"):
        k_scatter[1](np.zeros(64, np.float32))
