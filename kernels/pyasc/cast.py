"""Element type conversion of 1-D data of any length: float32 -> float16 (round to nearest
even, CAST_RINT; out of range gives inf) and float16 -> float32 (exact, CAST_NONE), the vconv
instructions (docs/semantics.md §2.4).  Tiling and the tail store as in elementwise.py.
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/cast.py
"""
import numpy as np

import asc

try:
    from . import _common as cm
except ImportError:            # run as a script or loaded by path
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm

TILE = 4096


@asc.jit
def cast_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, n: int, per_core: int,
                tile: asc.ConstExpr[int]):
    """y[i] = convert(x[i]) for i < n; core c does [c*per_core, min(n, (c+1)*per_core))."""
    c = asc.get_block_idx()
    start = c * per_core
    length = min(per_core, n - start)
    xd = x.dtype
    yd = y.dtype
    pbx = 32 // xd.sizeof()
    pby = 32 // yd.sizeof()
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    wg.set_global_buffer(ws + c * pby)
    xl = asc.LocalTensor(xd, asc.TPosition.VECIN, 0, tile)
    yl = asc.LocalTensor(yd, asc.TPosition.VECOUT, tile * 4 + 256, tile)
    tiles = (length + tile - 1) // tile
    for t in range(tiles):
        cnt = min(tile, length - t * tile)
        asc.data_copy(xl, xg[t * tile:], asc.DataCopyParams(1, (cnt + pbx - 1) // pbx, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if yd.sizeof() == 2:
            asc.cast(yl, xl, asc.RoundMode.CAST_RINT, cnt)
        else:
            asc.cast(yl, xl, asc.RoundMode.CAST_NONE, cnt)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        cm.store_tail(yg[t * tile:], yl, cnt, wg, pby)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def cast(x, dtype, target=None, cores=None, out=None, **launch):
    """x (float16 or float32) converted to `dtype` (the other one)."""
    x = np.ascontiguousarray(x)
    cm.check_dtype("cast", x)
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float16), np.dtype(np.float32)) or dt == x.dtype:
        raise ValueError(f"cast: converts float16 <-> float32; got {x.dtype} -> {dt}")
    if out is None:
        out = np.zeros(x.shape, dt)
    if x.size == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(x.size, cm.epb(np.float16), cores, tgt)
        cast_kernel[ncores](x.reshape(-1), out.reshape(-1), cm.workspace(dt, ncores), x.size, per, TILE, **launch)
    return out


def run(n=1003, **kw):
    """f32 -> f16 of n values (a length with a tail) on 3 cores; returns (x, y, LaunchResult)."""
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32) * 1000
    y = cast(x, np.float16, cores=3, **kw)
    return x, y, cast_kernel.last_result


if __name__ == "__main__":
    x, y, res = run()
    assert np.array_equal(y, x.astype(np.float16))
    assert np.array_equal(cast(y, np.float32), y.astype(np.float32))
    print("cast OK:", res)
