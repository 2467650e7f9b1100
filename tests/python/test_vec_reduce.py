"""asc.block_reduce_sum/max/min, asc.pair_reduce_sum and asc.repeat_reduce_sum (vcgadd/vcgmax/vcgmin,
vcpadd, vcadd) against a numpy reference of Ascend C's rules (python/pyasc/language/vec_reduce.py):
f16 and f32, continuous and bit masks with holes, several repeats with destination strides, source
lengths that are not whole repeats, groups with no active lane left unchanged."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

NSRC = 1000      # source elements moved in (2000 / 4000 bytes: not a whole number of repeats)
NDST = 512


@asc.jit
def k_red(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], rep: asc.ConstExpr[int],
          mask: asc.ConstExpr[object], drs: asc.ConstExpr[int], sbs: asc.ConstExpr[int], srs: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 4096)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 65536, NDST)
    asc.data_copy_pad(a, xg, asc.DataCopyExtParams(1, NSRC * x.dtype.sizeof(), 0, 0, 0),
                      asc.DataCopyPadExtParams(False, 0, 0, 0))
    asc.data_copy(c, zg, NDST)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if op == "sum":
        asc.block_reduce_sum(c, a, rep, mask, drs, sbs, srs)
    elif op == "max":
        asc.block_reduce_max(c, a, repeat=rep, mask=mask, dst_rep_stride=drs, src_blk_stride=sbs, src_rep_stride=srs)
    elif op == "min":
        asc.block_reduce_min(c, a, rep, mask, drs, sbs, srs)
    elif op == "pair":
        asc.pair_reduce_sum(c, a, rep, mask, drs, sbs, srs)
    else:
        asc.repeat_reduce_sum(c, a, rep, mask, 0, sbs, drs, srs)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, NDST)


def _active(mask, lanes):
    if isinstance(mask, int):
        return np.arange(lanes) < mask
    bits = (mask[1] << 64) | mask[0]
    return np.array([(bits >> i) & 1 for i in range(lanes)], bool)


def _tree(vals, how, dtype):
    v = [np.float64(x) for x in vals]
    while len(v) > 1:
        nxt = []
        for j in range(0, len(v) - 1, 2):
            p, q = v[j], v[j + 1]
            if how == "max":
                t = max(p, q)
            elif how == "min":
                t = min(p, q)
            else:
                t = p + q
                if dtype == np.float16 and abs(t) > 65504:
                    t = np.copysign(65504.0, t)
                t = np.float64(dtype(t))
            nxt.append(t)
        if len(v) % 2:
            nxt.append(v[-1])
        v = nxt
    return dtype(v[0])


def reference(x, z, op, rep, mask, drs, sbs, srs):
    dtype = x.dtype.type
    size = x.itemsize
    lanes, epb = 256 // size, 32 // size
    act = _active(mask, lanes)
    out = z.copy()
    for r in range(rep):
        idx = np.array([r * srs * epb + (i // epb) * sbs * epb + i % epb for i in range(lanes)])
        src = x[idx] if idx.max() < len(x) else None
        assert src is not None
        if op == "rsum":
            if act.any():
                out[r * drs] = _tree(src[act], "sum", dtype)
            continue
        width = 2 if op == "pair" else epb
        ngroup = lanes // width
        for g in range(ngroup):
            sel = act[g * width:(g + 1) * width]
            if sel.any():
                out[r * drs * ngroup + g] = _tree(src[g * width:(g + 1) * width][sel],
                                                  {"pair": "sum"}.get(op, op), dtype)
    return out


CASES = [("sum", 3, "full", 1, 1, 8), ("sum", 2, "holes", 2, 1, 8), ("max", 3, 37, 1, 2, 16),
         ("min", 2, "holes", 1, 1, 8), ("sum", 1, "sat", 1, 1, 8), ("pair", 3, "full", 1, 1, 8),
         ("pair", 2, 61, 2, 1, 9), ("pair", 2, "holes", 1, 1, 8), ("rsum", 4, 50, 3, 1, 8), ("rsum", 3, 7, 1, 2, 8)]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("op,rep,mask,drs,sbs,srs", CASES)
def test_vec_reduce(dtype, op, rep, mask, drs, sbs, srs):
    rng = np.random.default_rng(5)
    lanes = 256 // np.dtype(dtype).itemsize
    x = (rng.integers(-64, 64, 4096) / 8).astype(dtype)
    if mask == "sat":   # Ascend C BlockReduceSum's example: 60000 + 60000 is kept as 65504
        x[:4] = [60000, 60000, -30000, 100]
        mask = 4 if dtype == np.float16 else lanes
    if mask == "full":
        mask = lanes
    if mask == "holes":
        mask = (0x00FF00F0F0F00F0F, 0x0000FFFF00000003)
    x[NSRC:] = 0   # only NSRC elements are copied in; the rest of the source tile is zero
    ub = np.zeros(4096, dtype)
    ub[:NSRC] = x[:NSRC]
    z = (rng.integers(-8, 8, NDST)).astype(dtype)
    want = reference(ub, z, op, rep, list(mask) if isinstance(mask, tuple) else mask, drs, sbs, srs)
    k_red[1](x[:NSRC].copy(), z, op, rep, mask, drs, sbs, srs)
    np.testing.assert_array_equal(z, want)
