"""asc.add_deq_relu against a numpy model of Ascend C AddDeqRelu on dav_c220 (cannmirror/asc-devkit
impl/basic_api/dav_c220/kernel_operator_vec_binary_impl.h AddDeqReluCompute): the int32 sum
(wrapping), to f32, times 2^-17, times the half scale of set_deq_scale, times 2^17 (each an f32
product rounded to nearest even), to f16 (nearest even), max with 0."""
import numpy as np
import pytest

import asc


@asc.jit
def k_adr(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
          scale: asc.ConstExpr[float], form: asc.ConstExpr[str], repeats: asc.ConstExpr[int],
          mask: asc.ConstExpr[int], dst_rep: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 2048)
    bb = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 8192, 2048)
    d = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 16384, 2048)
    asc.data_copy(a, xg, 2048)
    asc.data_copy(bb, yg, 2048)
    asc.data_copy(d, zg, 2048)
    asc.set_deq_scale(scale)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    if form == "count":
        asc.add_deq_relu(d, a, bb, n)
    else:
        asc.add_deq_relu(d, a, bb, mask, repeats, asc.BinaryRepeatParams(1, 1, 1, dst_rep, 8, 8))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, 2048)


def _model(x, y, scale):
    s = ((x.astype(np.int64) + y.astype(np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)
    f = s.astype(np.float32) * np.float32(2.0**-17)
    f = f * np.float32(np.float16(scale))
    f = f * np.float32(2.0**17)
    with np.errstate(over="ignore"):     # sums near 2^31 overflow f16 to inf, as on the card
        return np.maximum(f.astype(np.float16), np.float16(0))


def _inputs(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-40000, 40000, 2048).astype(np.int32)
    y = rng.integers(-40000, 40000, 2048).astype(np.int32)
    x[:4] = [2**31 - 1, -2**31, 2**30, 16777217]       # wrap-around sums, f32 rounding of the sum
    y[:4] = [1, -1, 2**30, 2]
    return x, y


@pytest.mark.libasc
@pytest.mark.parametrize("scale", [0.1, 1.5, 3.0e-3, 1.0])
@pytest.mark.parametrize("n", [1000, 64, 37, 2048])
def test_count_form(scale, n):
    x, y = _inputs(n)
    z = np.full(2048, 7, np.float16)
    k_adr[1](x, y, z, n, scale, "count", 0, 0, 0)
    want = np.full(2048, 7, np.float16)
    want[:n] = _model(x[:n], y[:n], scale)
    np.testing.assert_array_equal(z, want)


@pytest.mark.libasc
@pytest.mark.parametrize("repeats,mask,dst_rep", [(3, 64, 4), (4, 37, 4), (2, 64, 8), (1, 1, 4)])
def test_mask_form(repeats, mask, dst_rep):
    """repeat r: 64 int32 lanes of each source at r * 256 bytes; 64 f16 lanes of dst at
    r * dst_rep * 32 bytes (vmax's dstRepStride, in 32-byte blocks)."""
    x, y = _inputs(repeats * 100 + mask)
    z = np.full(2048, 7, np.float16)
    k_adr[1](x, y, z, 0, 0.1, "mask", repeats, mask, dst_rep)
    want = np.full(2048, 7, np.float16)
    for r in range(repeats):
        o = r * dst_rep * 16
        want[o:o + mask] = _model(x[r * 64:r * 64 + mask], y[r * 64:r * 64 + mask], 0.1)
    np.testing.assert_array_equal(z, want)
