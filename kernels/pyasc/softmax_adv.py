"""Row softmax through asc.adv.softmax (real pyasc's adv softmax with asc.adv.SoftmaxTiling and
asc.adv.SoftMaxShapeInfo; Ascend C SoftMax in impl/adv_api/detail/activation/softmax).

y[r, :] = softmax(x[r, :]) for `rows` rows of `cols` elements (1 <= cols, float16 or float32),
on any number of cores: core c takes rows [c * per_core, min(rows, (c + 1) * per_core)) in tiles
of `tm` rows.  DataCopyPad moves each row GM -> UB padded to k elements (cols rounded up to 32
bytes), asc.adv.softmax works on the tm x k tile with the row's real length as ori_src_k (the
padding is not part of any sum or max), and DataCopyPad writes exactly cols elements of each row
back, so rows whose byte length is not a multiple of 32 never touch their neighbours.  A tile of
fewer than tm rows (the last of a core) moves only its rows; the rows of UB past them hold the
previous tile's values (zeros at first) and are computed and dropped.

Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/softmax_adv.py [rows cols [cores]]
"""
import sys

import numpy as np

import asc
import asc.runtime.config as config

UB_TILE_BYTES = 48 * 1024      # the x and y tiles each get at most this much UB


@asc.jit
def softmax_adv_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, rows: int, per_core: int,
                       cols: asc.ConstExpr[int], tm: asc.ConstExpr[int]):
    c = asc.get_block_idx()
    r0 = c * per_core
    nr = min(per_core, rows - r0)
    dt = x.dtype
    es = dt.sizeof()
    k = (cols * es + 31) // 32 * 32 // es           # a row padded to whole 32-byte blocks
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + r0 * cols)
    yg.set_global_buffer(y + r0 * cols)
    pipe = asc.TPipe()
    bx = asc.TBuf(asc.TPosition.VECCALC)
    by = asc.TBuf(asc.TPosition.VECCALC)
    bs = asc.TBuf(asc.TPosition.VECCALC)
    bm = asc.TBuf(asc.TPosition.VECCALC)
    bt = asc.TBuf(asc.TPosition.VECCALC)
    kp = (k + 63) // 64 * 64                        # the temporary: two float32 slices of kp + 192
    pipe.init_buffer(bx, tm * k * es)
    pipe.init_buffer(by, tm * k * es)
    pipe.init_buffer(bs, tm * 32)
    pipe.init_buffer(bm, tm * 32)
    pipe.init_buffer(bt, 2 * 4 * (kp + 192))
    xl = bx.get(dt)
    yl = by.get(dt)
    sl = bs.get(dt)
    ml = bm.get(dt)
    tmp = bt.get(asc.float32)
    asc.duplicate(xl, 0.0, tm * k)                  # rows past a short last tile: zeros, not garbage
    asc.set_flag(asc.HardEvent.V_MTE2, 0)
    asc.set_flag(asc.HardEvent.MTE3_V, 0)
    tiling = asc.adv.SoftmaxTiling(src_m=tm, src_k=k)
    for t in range(0, nr, tm):
        m = min(tm, nr - t)
        asc.wait_flag(asc.HardEvent.V_MTE2, 0)
        asc.data_copy_pad(xl, xg[t * cols:], asc.DataCopyExtParams(m, cols * es, 0, 0, 0),
                          asc.DataCopyPadExtParams(False, 0, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)
        asc.adv.softmax(yl, sl, ml, xl, tiling, temp_buffer=tmp, shape_info=asc.adv.SoftMaxShapeInfo(tm, k, tm, cols))
        asc.set_flag(asc.HardEvent.V_MTE2, 0)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy_pad(yg[t * cols:], yl, asc.DataCopyExtParams(m, cols * es, 0, 0, 0))
        asc.set_flag(asc.HardEvent.MTE3_V, 0)
    asc.wait_flag(asc.HardEvent.V_MTE2, 0)
    asc.wait_flag(asc.HardEvent.MTE3_V, 0)


def tile_rows(cols, dtype):
    """Rows per UB tile: as many padded rows as fit UB_TILE_BYTES (at least 1, at most 64)."""
    es = np.dtype(dtype).itemsize
    k = (cols * es + 31) // 32 * 32 // es
    return max(1, min(64, UB_TILE_BYTES // (k * es)))


def softmax(x, cores=8, **launch):
    """Softmax over the last axis of a 2-D float16/float32 array; returns a new array."""
    x = np.ascontiguousarray(x)
    if x.ndim != 2 or x.dtype not in (np.float16, np.float32):
        raise ValueError(f"softmax_adv: needs a 2-D float16 or float32 array, got {x.dtype} {x.shape}")
    rows, cols = x.shape
    y = np.zeros_like(x)
    if rows == 0 or cols == 0:
        return y, None
    cores = max(1, min(cores, rows))
    per = -(-rows // cores)
    cores = -(-rows // per)
    res = softmax_adv_kernel[cores](x, y, rows, per, cols, tile_rows(cols, x.dtype), **launch)
    return y, res


def reference(x):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def run(rows=64, cols=1000, cores=8, dtype=np.float32, seed=0, **kw):
    config.set_platform(config.Backend.Model)
    x = (np.random.default_rng(seed).standard_normal((rows, cols)) * 3).astype(dtype)
    y, res = softmax(x, cores, **kw)
    return x, y, res


if __name__ == "__main__":
    args = [int(v) for v in sys.argv[1:]]
    rows, cols, cores = (args + [64, 1000, 8][len(args):])[:3]
    x, y, res = run(rows, cols, cores)
    err = np.abs(y - reference(x)).max()
    assert err < 1e-5, err
    print(f"softmax_adv {rows}x{cols} on {cores} cores OK (max abs error {err:.2e}):", res)
