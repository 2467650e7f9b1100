"""Reductions: sum and max over the last axis (`reduce_rows`) or over a whole array
(`reduce_all`), float16/float32 in, the input's dtype out, computed in float32.

One kernel (`reduce_kernel`) reduces segments: segment s is x[s*seg : min(n, (s+1)*seg)], core c
does segments [c*per_core, min(nseg, (c+1)*per_core)).  Each segment is walked in chunks of TILE
elements: a chunk is read with one `data_copy_pad` of exactly its bytes (no GM byte past it is
read: the last row's chunk would otherwise run into the allocation's never-written slack;
UB lanes past the chunk are never used: every vector op gets the exact count), widened to float32 (float16), reduced by `reduce_sum`/`reduce_max`
(counter-mode trees, docs/semantics.md §2.6; their count must be static, so the chunk
is a compile-time `tile` and the lanes of a short chunk are first set to the identity, 0 or -inf)
and folded into a one-element accumulator (add/max,
count 1).  The result (rounded once to float16 for float16 out) is written with
`_common.store_tail` (one element: through the per-core 32 B workspace and a scalar store, so no
neighbouring byte of the output changes).

Double-buffered: chunk g+1 of the core (across segment boundaries) loads while chunk g is
reduced (two input buffers, event ids 0 and 1).

reduce_rows: one segment per row (seg = W).  reduce_all: two launches: one segment per core
(seg = the core's range, float32 partials), then one core reduces the partials to the result.
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/reduce.py"""
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


def _tile(length):
    """The compile-time chunk: a power of two from 64 up to TILE covering `length` (few kernels)."""
    t = 64
    while t < min(length, TILE):
        t *= 2
    return t
OPS = ("sum", "max")


@asc.jit
def _rd_load(xg: asc.GlobalTensor, xl: asc.LocalTensor, g: int, s0: int, cps: int, n: int, seg: int,
             tile: asc.ConstExpr[int], ev: asc.ConstExpr[int]):
    """MTE2: chunk g of this core (segment s0 + g // cps, chunk g % cps) into buffer ev, once V
    has widened the chunk that buffer held (V_MTE2 ev)."""
    dt = xl.dtype
    first = (s0 + g // cps) * seg
    t = g % cps
    cnt = min(tile, min(seg, n - first) - t * tile)
    asc.wait_flag(asc.HardEvent.V_MTE2, ev)
    asc.data_copy_pad(xl, xg[first + t * tile:], asc.DataCopyExtParams(1, cnt * dt.sizeof(), 0, 0, 0),
                      asc.DataCopyPadExtParams(dt, False, 0, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, ev)


@asc.jit
def _rd_step(yg: asc.GlobalTensor, wg: asc.GlobalTensor, xl: asc.LocalTensor, xf: asc.LocalTensor,
             work: asc.LocalTensor, red: asc.LocalTensor, acc: asc.LocalTensor, yl: asc.LocalTensor, g: int,
             s0: int, cps: int, n: int, seg: int, op: asc.ConstExpr[str], tile: asc.ConstExpr[int],
             ev: asc.ConstExpr[int]):
    """V: chunk g from buffer ev folded into the accumulator; after a segment's last chunk its
    result goes out (MTE3)."""
    dt = xl.dtype
    ot = yg.dtype
    opb = 32 // ot.sizeof()
    s = g // cps
    first = (s0 + s) * seg
    t = g % cps
    length = min(seg, n - first)
    cnt = min(tile, length - t * tile)
    asc.wait_flag(asc.HardEvent.MTE2_V, ev)
    if cnt < tile:         # lanes past the data hold the identity: the tree is static
        if op == "sum":
            asc.duplicate(xf, 0.0, tile)
        else:
            asc.duplicate(xf, float("-inf"), tile)
    if dt.sizeof() == 2:
        asc.cast(xf, xl, asc.RoundMode.CAST_NONE, cnt)
    else:
        asc.copy(xf.reinterpret_cast(asc.uint32), xl.reinterpret_cast(asc.uint32), cnt)
    asc.set_flag(asc.HardEvent.V_MTE2, ev)      # the buffer is free for the chunk two on
    if op == "sum":
        asc.reduce_sum(red, xf, work, tile)
    else:
        asc.reduce_max(red, xf, work, tile)
    if t == 0:
        asc.copy(acc.reinterpret_cast(asc.uint32), red.reinterpret_cast(asc.uint32), 1)
    elif op == "sum":
        asc.add(acc, acc, red, 1)
    else:
        asc.max(acc, acc, red, 1)
    if (t + 1) * tile >= length:       # the segment's last chunk
        if ot.sizeof() == 2:
            asc.cast(yl, acc, asc.RoundMode.CAST_RINT, 1)
        else:
            asc.copy(yl.reinterpret_cast(asc.uint32), acc.reinterpret_cast(asc.uint32), 1)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        cm.store_tail(yg[s:], yl, 1, wg, opb)
        asc.set_flag(asc.HardEvent.MTE3_V, 0)
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)


@asc.jit
def reduce_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, n: int, seg: int,
                  nseg: int, per_core: int, yoff: int, op: asc.ConstExpr[str], tile: asc.ConstExpr[int]):
    """y[yoff + s] = op(x[s*seg : min(n, (s+1)*seg)]) for the segments of this core.
    Double-buffered: the core's chunks (over all its segments) go through two input buffers
    (event ids 0 and 1), chunk g+1 loading while chunk g is reduced; two chunks an iteration
    (event ids are compile-time constants).  Only the array's last segment can be shorter than
    seg, so chunk g is chunk g % cps of segment g // cps (cps = chunks of a whole segment)."""
    c = asc.get_block_idx()
    s0 = c * per_core
    ns = min(per_core, nseg - s0)
    dt = x.dtype
    ot = y.dtype
    opb = 32 // ot.sizeof()
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y + yoff + s0)
    wg.set_global_buffer(ws + c * opb)
    f32 = asc.float32
    slot = tile * 4 + 256
    islot = tile * dt.sizeof() + 256
    xl0 = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, tile)
    xl1 = asc.LocalTensor(dt, asc.TPosition.VECIN, islot, tile)
    xf = asc.LocalTensor(f32, asc.TPosition.VECCALC, 2 * islot, tile)
    work = asc.LocalTensor(f32, asc.TPosition.VECCALC, 2 * islot + slot, tile)
    red = asc.LocalTensor(f32, asc.TPosition.VECCALC, 2 * islot + 2 * slot, 64)
    acc = asc.LocalTensor(f32, asc.TPosition.VECCALC, 2 * islot + 2 * slot + 256, 64)
    yl = asc.LocalTensor(ot, asc.TPosition.VECOUT, 2 * islot + 2 * slot + 512, 64)
    cps = (seg + tile - 1) // tile
    nch = 0
    if ns > 0:
        last = (s0 + ns - 1) * seg
        nch = (ns - 1) * cps + (min(seg, n - last) + tile - 1) // tile
    for e in asc.static_range(2):                    # both buffers start free
        asc.set_flag(asc.HardEvent.V_MTE2, e)
    if nch > 0:
        _rd_load(xg, xl0, 0, s0, cps, n, seg, tile, 0)
    for g in range(0, nch, 2):
        if g + 1 < nch:
            _rd_load(xg, xl1, g + 1, s0, cps, n, seg, tile, 1)
        _rd_step(yg, wg, xl0, xf, work, red, acc, yl, g, s0, cps, n, seg, op, tile, 0)
        if g + 1 < nch:
            if g + 2 < nch:
                _rd_load(xg, xl0, g + 2, s0, cps, n, seg, tile, 0)
            _rd_step(yg, wg, xl1, xf, work, red, acc, yl, g + 1, s0, cps, n, seg, op, tile, 1)
    for e in asc.static_range(2):
        asc.wait_flag(asc.HardEvent.V_MTE2, e)


def _check(name, x, op):
    cm.check_dtype(name, x)
    if op not in OPS:
        raise ValueError(f"{name}: op must be one of {', '.join(OPS)}, got {op!r}")


def reduce_rows(x, op="sum", target=None, cores=None, out=None, out_offset=0, **launch):
    """op ("sum" or "max") over the last axis of x (rows of any length >= 1); returns an array of
    x.shape[:-1] in x's dtype (or writes the flat array `out` from element out_offset)."""
    x = np.ascontiguousarray(x)
    _check("reduce_rows", x, op)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError("reduce_rows: needs a last axis of at least one element")
    w = x.shape[-1]
    rows = x.size // w
    if out is None:
        out, out_offset = np.zeros(x.shape[:-1], x.dtype), 0
    if rows == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(rows, 1, cores, tgt)
        reduce_kernel[ncores](x.reshape(-1), out.reshape(-1), cm.workspace(out.dtype, ncores), x.size, w, rows,
                              per, out_offset, op, _tile(w), **launch)
    return out


def reduce_all(x, op="sum", target=None, cores=None, **launch):
    """op over every element of x (at least one); returns a 0-d array of x's dtype.  Two launches:
    per-core float32 partials, then one core reduces them."""
    x = np.ascontiguousarray(x).reshape(-1)
    _check("reduce_all", x, op)
    if x.size == 0:
        raise ValueError("reduce_all: needs at least one element")
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(x.size, cm.epb(x.dtype), cores, tgt)
        part = np.zeros(ncores, np.float32)
        reduce_kernel[ncores](x, part, cm.workspace(np.float32, ncores), x.size, per, ncores, 1, 0, op, _tile(per),
                              **launch)
        out = np.zeros(1, x.dtype)
        reduce_kernel[1](part, out, cm.workspace(x.dtype, 1), ncores, ncores, 1, 1, 0, op, _tile(ncores), **launch)
    return out.reshape(())


def reference(x, op, axis=None):
    x = x.astype(np.float64)
    return x.sum(axis=axis) if op == "sum" else x.max(axis=axis)


def run(rows=5, w=1001, **kw):
    """Row sums of a 5 x 1001 float32 matrix on 3 cores."""
    x = np.random.default_rng(0).standard_normal((rows, w)).astype(np.float32)
    y = reduce_rows(x, "sum", cores=3, **kw)
    return x, y, reduce_kernel.last_result


if __name__ == "__main__":
    x, y, res = run()
    err = np.abs(y - reference(x, "sum", 1)).max()
    assert err < 1e-3, err
    print(f"reduce OK (max abs error {err:.2e}):", res)
