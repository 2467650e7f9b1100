"""reduce_sum/max/min in real pyasc's mask form (dst, src, shared_tmp_buffer, mask,
repeat_time, src_rep_stride): vcadd/vcmax/vcmin per repeat, then the count form."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc


@asc.jit
def r_mask(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], mask: asc.ConstExpr,
           reps: asc.ConstExpr[int], rep_stride: asc.ConstExpr[int], n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    work = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 65536, 1024)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 98304, 256 // x.dtype.sizeof())
    asc.data_copy(src, xg, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.duplicate(dst, 0.0, 256 // x.dtype.sizeof())
    if op == "sum":
        asc.reduce_sum(dst, src, work, mask, reps, rep_stride)
    elif op == "max":
        asc.reduce_max(dst, src, work, mask=mask, repeat_time=reps, src_rep_stride=rep_stride, cal_index=False)
    else:
        asc.reduce_min(dst, src, work, mask, reps, rep_stride, False)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, dst, 256 // x.dtype.sizeof())


@asc.jit
def r_cal_index(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.reduce_max(t, t, t, 64, 1, 8, True)


def _active(x, lanes, mask, reps, stride):
    """The elements the mask form reduces: per repeat r, lanes of the 256 B block at r*stride*32 B."""
    per = 32 // x.dtype.itemsize
    rows = []
    for r in range(reps):
        base = r * stride * per
        if isinstance(mask, list):
            bits = mask[0] | (mask[1] << 64)
            idx = [i for i in range(lanes) if bits >> i & 1]
        else:
            idx = list(range(mask))
        rows.append(x[base + np.array(idx)])
    return np.concatenate(rows)


@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("dtype,mask,reps,stride", [
    (np.float32, 64, 8, 8), (np.float32, 40, 100, 8), (np.float32, 64, 3, 16),
    (np.float16, 128, 6, 8), (np.float32, [0x00FF00FF00FF00FF, 0], 5, 8),
    (np.float32, 64, 1, 8)])
def test_reduce_mask_form(op, dtype, mask, reps, stride):
    lanes = 256 // np.dtype(dtype).itemsize
    n = max(reps * stride * 32 // np.dtype(dtype).itemsize, lanes)
    x = (np.random.default_rng(reps).random(n) * 2 - 1).astype(dtype)
    z = np.zeros(lanes, dtype)
    r_mask[1](x, z, op, mask, reps, stride, n)
    act = _active(x, lanes, mask, reps, stride).astype(np.float64)
    want = {"sum": act.sum(), "max": act.max(), "min": act.min()}[op]
    tol = 1e-5 if dtype == np.float32 else 2e-2
    assert abs(float(z[0]) - want) <= tol * max(1.0, abs(want)), (z[0], want)


def test_reduce_cal_index_rejected():
    with pytest.raises(asc.CompileError, match="cal_index=True"):
        r_cal_index.compile(np.zeros(64, np.float32))
