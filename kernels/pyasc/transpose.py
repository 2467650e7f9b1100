"""2-D transpose of any R x C matrix, float16/float32: y = x.T (a new C x R array).

The ISA's vtranspose is 16x16 of 16-bit elements only, so this kernel builds the transpose from
vbrcb and a masked vcopy, for both element sizes (E = 32 B / element size = 8 or 16 per block):

* the matrix is cut into tiles of RT input rows x G input columns (compile-time, multiples of
  16); a core does a contiguous range of tiles (column-group major);
* a tile's rows come in with one `data_copy_pad` (GM -> UB, nburst = rows, exactly cols*size
  bytes each, the GM gap skipping the rest of each input row; so no GM byte outside the matrix
  is read), UB rows G elements apart;
* for input row r = E*rb + j: `brcb` turns its G elements into G blocks (block c = E copies of
  x[r, c]); a `copy` masked to lane j of every block (mask bits E*b + j) writes lane j of the
  block of output row c at row block rb (dst block stride RT/E): inactive lanes are never
  written (docs/semantics.md §2), so after E rows every output block is complete; only the
  tile's rc rows and the ceil(gc/8) repeats covering its gc columns are moved, so no UB byte the
  load did not write is read (the 32 B block of each row past its gc columns aside);
* the G x RT output tile is written row by row with `_common.store_tail` (whole blocks by DMA,
  the < 32 B rest by scalar stores through the per-core workspace), so no byte outside the
  tile's part of each output row is written.
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/transpose.py"""
import numpy as np

import asc

try:
    from . import _common as cm
except ImportError:            # run as a script or loaded by path
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm

TILE = 64          # largest tile edge (rows and columns)


def _lane_mask(e, j):
    """[mask0, mask1]: lane j of each of the 8 blocks of one repeat (e lanes per block)."""
    bits = 0
    for b in range(8):
        bits |= 1 << (e * b + j)
    return [bits & (2 ** 64 - 1), bits >> 64]


MASKS = {e: [_lane_mask(e, j) for j in range(e)] for e in (8, 16)}


@asc.jit
def transpose_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, rows: int, cols: int,
                     per_core: int, yoff: int, rt: asc.ConstExpr[int], g: asc.ConstExpr[int]):
    """y[yoff + c*rows + r] = x[r*cols + c]; core k does tiles [k*per_core, ...) of the
    ceil(cols/g) x ceil(rows/rt) tiles (column group major)."""
    k = asc.get_block_idx()
    nrt = (rows + rt - 1) // rt
    ntiles = (cols + g - 1) // g * nrt
    t0 = k * per_core
    nt = min(per_core, ntiles - t0)
    dt = x.dtype
    size = dt.sizeof()
    e = 32 // size
    ut = asc.uint32 if size == 4 else asc.uint16
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y + yoff)
    wg.set_global_buffer(ws + k * e)
    xl = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, rt * g)
    tmp = asc.LocalTensor(ut, asc.TPosition.VECCALC, rt * g * size + 256, g * e)
    ol = asc.LocalTensor(dt, asc.TPosition.VECOUT, rt * g * size + g * 32 + 512, g * rt)
    olu = ol.reinterpret_cast(ut)
    cp = asc.CopyRepeatParams(rt // e, 1, 8 * (rt // e), 8)
    for t in range(nt):
        ti = t0 + t
        c0 = ti // nrt * g
        r0 = ti % nrt * rt
        gc = min(g, cols - c0)
        rc = min(rt, rows - r0)
        foot = (gc * size + 31) // 32
        asc.data_copy_pad(xl, xg[r0 * cols + c0:],
                          asc.DataCopyExtParams(rc, gc * size, (cols - gc) * size, g * size // 32 - foot, 0),
                          asc.DataCopyPadExtParams(dt, False, 0, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        reps = (gc + 7) // 8      # repeats of 8 columns covering the tile's gc columns
        for rb in range((rc + e - 1) // e):
            for j in asc.static_range(e):
                if rb * e + j < rc:   # rows past the tile were never loaded
                    asc.brcb(tmp, xl[(rb * e + j) * g:].reinterpret_cast(ut), reps, asc.BrcbRepeatParams(1, 8))
                    asc.copy(olu[rb * e:], tmp, MASKS[e][j], reps, cp)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        for c in range(gc):
            cm.store_tail(yg[(c0 + c) * rows + r0:], ol[c * rt:], rc, wg, e)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.set_flag(asc.HardEvent.MTE3_V, 0)
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)


def _edge(n):
    return min(TILE, max(16, -(-n // 16) * 16))


def transpose(x, target=None, cores=None, out=None, out_offset=0, **launch):
    """x.T of a 2-D float16/float32 array (any shape); returns a new C x R array (or writes the
    flat array `out` from element out_offset)."""
    x = np.ascontiguousarray(x)
    cm.check_dtype("transpose", x)
    if x.ndim != 2:
        raise ValueError(f"transpose: needs a 2-D array, got {x.ndim}-D")
    rows, cols = x.shape
    if out is None:
        out, out_offset = np.zeros((cols, rows), x.dtype), 0
    if x.size == 0:
        return out
    rt, g = _edge(rows), _edge(cols)
    ntiles = -(-rows // rt) * -(-cols // g)
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(ntiles, 1, cores, tgt)
        transpose_kernel[ncores](x.reshape(-1), out.reshape(-1), cm.workspace(x.dtype, ncores), rows, cols, per,
                                 out_offset, rt, g, **launch)
    return out


def run(rows=37, cols=70, **kw):
    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    y = transpose(x, cores=3, **kw)
    return x, y, transpose_kernel.last_result


if __name__ == "__main__":
    x, y, res = run()
    assert np.array_equal(y, x.T)
    print("transpose OK:", res)
