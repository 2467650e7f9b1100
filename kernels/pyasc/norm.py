"""Row normalisations over the last axis, rows of any length W (1..MAX_W), float16/float32:

  layernorm(x, gamma, beta, eps): (x - mean) / sqrt(var + eps) * gamma + beta   (biased var)
  rmsnorm(x, gamma, eps):         x / sqrt(mean(x^2) + eps) * gamma

gamma/beta are W-vectors of x's dtype, loaded once per core.  Computed in float32 (float16 is
widened exactly, rounded once at the end).  Rows are read as whole 32 B blocks from their
byte-granular GM start, every vector op gets the exact count W (reductions: counter-mode tree,
docs/semantics.md §2.6; broadcasts: `_common.row_bcast` with its masked tail repeat) and rows are
written by `_common.store_tail` (no byte past a row's end is written by DMA; the < 32 B rest by
scalar stores).  1/W and eps are compile-time constants (muls/adds); rsqrt is within 1 ulp.
Double-buffered (two row buffers): row r+1 loads while row r is computed.
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

MAX_W = 4096
LANES = cm.LANES


@asc.jit
def _nm_step(yg: asc.GlobalTensor, wg: asc.GlobalTensor, xl: asc.LocalTensor, rowf: asc.LocalTensor,
             sq: asc.LocalTensor, work: asc.LocalTensor, gf: asc.LocalTensor, bf: asc.LocalTensor,
             red: asc.LocalTensor, bcast: asc.LocalTensor, r: int, w: asc.ConstExpr[int],
             eps: asc.ConstExpr[float], kind: asc.ConstExpr[str], ev: asc.ConstExpr[int]):
    """V: the normalisation of the row in buffer ev (float32: in place; float16: in rowf,
    rounded back into the buffer), then MTE3: its store from the buffer."""
    dt = xl.dtype
    asc.wait_flag(asc.HardEvent.MTE2_V, ev)
    if dt.sizeof() == 2:
        row = rowf
        asc.cast(row, xl, asc.RoundMode.CAST_NONE, w)
    else:
        row = xl
    if kind == "layer":
        asc.reduce_sum(red, row, work, w)
        asc.muls(red, red, 1.0 / w, 1)
        asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
        cm.row_bcast("sub", row, bcast, w)
    asc.mul(sq, row, row, w)
    asc.reduce_sum(red, sq, work, w)
    asc.muls(red, red, 1.0 / w, 1)
    asc.adds(red, red, eps, 1)
    asc.rsqrt(red, red, 1)
    asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
    cm.row_bcast("mul", row, bcast, w)
    asc.mul(row, row, gf, w)
    if kind == "layer":
        asc.add(row, row, bf, w)
    cm.store_row_db(yg, wg, xl, row, r, w, ev)


@asc.jit
def norm_kernel(x: asc.GlobalAddress, g: asc.GlobalAddress, bt: asc.GlobalAddress, y: asc.GlobalAddress,
                ws: asc.GlobalAddress, rows: int, per_core: int, yoff: int, w: asc.ConstExpr[int],
                eps: asc.ConstExpr[float], kind: asc.ConstExpr[str]):
    """kind 'layer' or 'rms'; core c does rows [c*per_core, min(rows, (c+1)*per_core)).
    Double-buffered: two row buffers (event ids 0 and 1), row r+1 loads while row r is
    computed; two rows an iteration (event ids are compile-time constants)."""
    c = asc.get_block_idx()
    r0 = c * per_core
    nr = min(per_core, rows - r0)
    dt = x.dtype
    pb = 32 // dt.sizeof()
    xg = asc.GlobalTensor()
    gg = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x + r0 * w)
    gg.set_global_buffer(g)
    bg.set_global_buffer(bt)
    yg.set_global_buffer(y + yoff + r0 * w)
    wg.set_global_buffer(ws + c * pb)
    f32 = asc.float32
    wp = (w + LANES - 1) // LANES * LANES
    islot = wp * dt.sizeof() + 256
    slot = wp * 4 + 256
    xl0 = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, wp)
    xl1 = asc.LocalTensor(dt, asc.TPosition.VECIN, islot, wp)
    base = 2 * islot
    if dt.sizeof() == 2:
        rowf = asc.LocalTensor(f32, asc.TPosition.VECCALC, base, wp)
        base = base + slot
    else:
        rowf = xl0                                   # (unused: float32 rows are computed in place)
    sq = asc.LocalTensor(f32, asc.TPosition.VECCALC, base, wp)
    gf = asc.LocalTensor(f32, asc.TPosition.VECCALC, base + slot, wp)
    bf = asc.LocalTensor(f32, asc.TPosition.VECCALC, base + 2 * slot, wp)
    wk = (wp // LANES + LANES - 1) // LANES * LANES  # the reductions' second stage: one value per repeat
    work = asc.LocalTensor(f32, asc.TPosition.VECCALC, base + 3 * slot, wk)
    red = asc.LocalTensor(f32, asc.TPosition.VECCALC, base + 3 * slot + wk * 4, 64)
    bcast = asc.LocalTensor(f32, asc.TPosition.VECCALC, base + 3 * slot + wk * 4 + 256, 64)
    blocks = (w + pb - 1) // pb
    # gamma (and beta) once per core, widened to f32 through xl0
    asc.data_copy(xl0, gg, asc.DataCopyParams(1, blocks, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if dt.sizeof() == 2:
        asc.cast(gf, xl0, asc.RoundMode.CAST_NONE, w)
    else:
        asc.copy(gf.reinterpret_cast(asc.uint32), xl0.reinterpret_cast(asc.uint32), w)
    if kind == "layer":
        asc.set_flag(asc.HardEvent.V_MTE2, 0)
        asc.wait_flag(asc.HardEvent.V_MTE2, 0)
        asc.data_copy(xl0, bg, asc.DataCopyParams(1, blocks, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if dt.sizeof() == 2:
            asc.cast(bf, xl0, asc.RoundMode.CAST_NONE, w)
        else:
            asc.copy(bf.reinterpret_cast(asc.uint32), xl0.reinterpret_cast(asc.uint32), w)
    asc.set_flag(asc.HardEvent.V_MTE2, 0)
    asc.wait_flag(asc.HardEvent.V_MTE2, 0)
    for e in asc.static_range(2):                    # both buffers start free
        asc.set_flag(asc.HardEvent.MTE3_MTE2, e)
    if nr > 0:
        cm.load_row_db(xg, xl0, 0, w, 0)
    for r in range(0, nr, 2):
        if r + 1 < nr:
            cm.load_row_db(xg, xl1, r + 1, w, 1)
        _nm_step(yg, wg, xl0, rowf, sq, work, gf, bf, red, bcast, r, w, eps, kind, 0)
        if r + 1 < nr:
            if r + 2 < nr:
                cm.load_row_db(xg, xl0, r + 2, w, 0)
            _nm_step(yg, wg, xl1, rowf, sq, work, gf, bf, red, bcast, r + 1, w, eps, kind, 1)
    for e in asc.static_range(2):
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, e)


def _launch(name, kind, x, gamma, beta, eps, target, cores, out, out_offset, launch):
    x = np.ascontiguousarray(x)
    cm.check_dtype(name, x)
    if x.ndim == 0:
        raise ValueError(f"{name}: needs at least one axis")
    w = x.shape[-1]
    if not 1 <= w <= MAX_W:
        raise ValueError(f"{name}: rows of {w} elements are not supported (1..{MAX_W})")
    for v, what in ((gamma, "gamma"), (beta, "beta")):
        if v.shape != (w,) or v.dtype != x.dtype:
            raise ValueError(f"{name}: {what} must be a ({w},) {x.dtype} vector, got {v.shape} {v.dtype}")
    rows = x.size // w
    if out is None:
        out, out_offset = np.zeros_like(x), 0
    if rows == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(rows, 1, cores, tgt)
        norm_kernel[ncores](x.reshape(-1), np.ascontiguousarray(gamma), np.ascontiguousarray(beta),
                            out.reshape(-1), cm.workspace(x.dtype, ncores), rows, per, out_offset, w,
                            float(eps), kind, **launch)
    return out


def layernorm(x, gamma, beta, eps=1e-5, target=None, cores=None, out=None, out_offset=0, **launch):
    """launch: keyword options of the kernel launch (check_races, trace)."""
    return _launch("layernorm", "layer", x, gamma, beta, eps, target, cores, out, out_offset, launch)


def rmsnorm(x, gamma, eps=1e-6, target=None, cores=None, out=None, out_offset=0, **launch):
    return _launch("rmsnorm", "rms", x, gamma, gamma, eps, target, cores, out, out_offset, launch)


def reference_layernorm(x, gamma, beta, eps=1e-5):
    x = x.astype(np.float64)
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * gamma.astype(np.float64) + beta.astype(np.float64)


def reference_rmsnorm(x, gamma, eps=1e-6):
    x = x.astype(np.float64)
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * gamma.astype(np.float64)


def run(rows=5, w=77, **kw):
    """layernorm of rows x w float32 (w with a tail) on 2 cores; returns (x, y, LaunchResult)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, w)).astype(np.float32)
    ga = rng.standard_normal(w).astype(np.float32)
    be = rng.standard_normal(w).astype(np.float32)
    y = layernorm(x, ga, be, cores=2, **kw)
    assert np.abs(y - reference_layernorm(x, ga, be)).max() < 1e-4
    return x, y, norm_kernel.last_result


if __name__ == "__main__":
    print("norm OK:", run()[-1])
