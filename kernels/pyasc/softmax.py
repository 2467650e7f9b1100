"""Row softmax.

`softmax_rows`: the teaching kernel, N-element float32 rows (N a module constant, N*4 a multiple
of 32 B), rows_per_core rows per core: reduce_max, brcb broadcast, sub with a zero source
stride, exp, reduce_sum, div.

`softmax(x)`: the library version, rows of any length W >= 1 (up to MAX_W), float16 or float32,
any number of rows on any number of cores (`softmax_kernel`): each row is read as whole 32 B
blocks from its (byte-granular) GM start, computed in float32 with the exact count W, and
written by `_common.store_tail` (whole blocks by DMA, the last < 32 bytes by scalar stores), so
rows whose byte length is not a multiple of 32 never clobber their neighbours.  Double-buffered
(two row buffers): row r+1 loads while row r is computed.

Why rows of 1000 used to give a max error of 515 while 512 was fine: the broadcast `sub` and
`div` use the mask form (64 lanes, src1 re-reading one 32 B block), and ran `N // 64` repeats:
15 repeats = 960 elements for N = 1000, so elements 960..999 were never shifted by the max
(exp of the raw value, up to e^9 ~ 8100) nor divided by the sum, while reduce_max, exp and
reduce_sum (counter mode) did cover them.  512 = 8 * 64 has no tail.  Both kernels now run
one extra masked repeat of N % 64 lanes for the tail (`_common.row_bcast`).

Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/softmax.py"""
import numpy as np

import asc
import asc.runtime.config as config

try:
    from . import _common as cm
except ImportError:            # run as a script or loaded by path
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm

N = 1024
MAX_W = 8192
LANES = cm.LANES


@asc.jit
def softmax_rows(x: asc.GlobalAddress, y: asc.GlobalAddress, rows_per_core: int):
    first = asc.get_block_idx() * rows_per_core
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + first * N)
    yg.set_global_buffer(y + first * N)
    f32 = asc.float32
    row = asc.LocalTensor(f32, asc.TPosition.VECCALC, 0, N)
    work = asc.LocalTensor(f32, asc.TPosition.VECCALC, 4096, 64)
    red = asc.LocalTensor(f32, asc.TPosition.VECCALC, 4352, 64)
    bcast = asc.LocalTensor(f32, asc.TPosition.VECCALC, 4608, 64)
    for r in range(rows_per_core):
        asc.data_copy(row, xg[r * N:], N)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.reduce_max(red, row, work, N)
        asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
        cm.row_bcast("sub", row, bcast, N)
        asc.exp(row, row, N)
        asc.reduce_sum(red, row, work, N)
        asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
        cm.row_bcast("div", row, bcast, N)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(yg[r * N:], row, N)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


@asc.jit
def _sm_step(yg: asc.GlobalTensor, wg: asc.GlobalTensor, xl: asc.LocalTensor, rowf: asc.LocalTensor,
             work: asc.LocalTensor, red: asc.LocalTensor, bcast: asc.LocalTensor, r: int,
             w: asc.ConstExpr[int], ev: asc.ConstExpr[int]):
    """V: softmax of the row in buffer ev (float32: in place; float16: in rowf, rounded back
    into the buffer), then MTE3: its store from the buffer."""
    dt = xl.dtype
    asc.wait_flag(asc.HardEvent.MTE2_V, ev)
    if dt.sizeof() == 2:
        row = rowf
        asc.cast(row, xl, asc.RoundMode.CAST_NONE, w)
    else:
        row = xl
    asc.reduce_max(red, row, work, w)
    asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
    cm.row_bcast("sub", row, bcast, w)
    asc.exp(row, row, w)
    asc.reduce_sum(red, row, work, w)
    asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
    cm.row_bcast("div", row, bcast, w)
    cm.store_row_db(yg, wg, xl, row, r, w, ev)


@asc.jit
def softmax_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, rows: int,
                   per_core: int, w: asc.ConstExpr[int]):
    """y[r, :] = softmax(x[r, :]) for rows of w elements; core c does rows
    [c*per_core, min(rows, (c+1)*per_core)).  Double-buffered: two row buffers (event ids 0
    and 1), the load of row r+1 issued before row r is computed; two rows an iteration (event
    ids are compile-time constants)."""
    c = asc.get_block_idx()
    r0 = c * per_core
    nr = min(per_core, rows - r0)
    dt = x.dtype
    pb = 32 // dt.sizeof()
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x + r0 * w)
    yg.set_global_buffer(y + r0 * w)
    wg.set_global_buffer(ws + c * pb)
    f32 = asc.float32
    wp = (w + LANES - 1) // LANES * LANES            # padded row, float32 lanes
    islot = wp * dt.sizeof() + 256
    xl0 = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, wp)
    xl1 = asc.LocalTensor(dt, asc.TPosition.VECIN, islot, wp)
    base = 2 * islot
    if dt.sizeof() == 2:
        rowf = asc.LocalTensor(f32, asc.TPosition.VECCALC, base, wp)
        base = base + wp * 4 + 256
    else:
        rowf = xl0                                   # (unused: float32 rows are computed in place)
    wk = (wp // LANES + LANES - 1) // LANES * LANES  # the reductions' second stage: one value per repeat
    work = asc.LocalTensor(f32, asc.TPosition.VECCALC, base, wk)
    red = asc.LocalTensor(f32, asc.TPosition.VECCALC, base + wk * 4, 64)
    bcast = asc.LocalTensor(f32, asc.TPosition.VECCALC, base + wk * 4 + 256, 64)
    for e in asc.static_range(2):                    # both buffers start free
        asc.set_flag(asc.HardEvent.MTE3_MTE2, e)
    if nr > 0:
        cm.load_row_db(xg, xl0, 0, w, 0)
    for r in range(0, nr, 2):
        if r + 1 < nr:
            cm.load_row_db(xg, xl1, r + 1, w, 1)
        _sm_step(yg, wg, xl0, rowf, work, red, bcast, r, w, 0)
        if r + 1 < nr:
            if r + 2 < nr:
                cm.load_row_db(xg, xl0, r + 2, w, 0)
            _sm_step(yg, wg, xl1, rowf, work, red, bcast, r + 1, w, 1)
    for e in asc.static_range(2):
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, e)


def softmax(x, target=None, cores=None, out=None, out_offset=0, **launch):
    """Softmax over the last axis of x (float16/float32, last axis 1..MAX_W); returns a new
    array (or writes `out`, a flat array, from element out_offset).  float16 is computed in
    float32 and rounded once.  launch: keyword options of the launch (check_races, trace)."""
    x = np.ascontiguousarray(x)
    cm.check_dtype("softmax", x)
    if x.ndim == 0:
        raise ValueError("softmax: needs at least one axis")
    w = x.shape[-1]
    if not 1 <= w <= MAX_W:
        raise ValueError(f"softmax: rows of {w} elements are not supported (1..{MAX_W})")
    rows = x.size // w
    if out is None:
        out, out_offset = np.zeros_like(x), 0
    if rows == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(rows, 1, cores, tgt)
        ws = cm.workspace(x.dtype, ncores)
        dst = out.reshape(-1)
        softmax_kernel_off[ncores](x.reshape(-1), dst, ws, rows, per, out_offset, w, **launch)
    return out


@asc.jit
def softmax_kernel_off(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, rows: int,
                       per_core: int, yoff: int, w: asc.ConstExpr[int]):
    """softmax_kernel writing to y + yoff (the tests guard the bytes around the output)."""
    softmax_kernel(x, y + yoff, ws, rows, per_core, w)


def reference(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def run(rows=8, cores=8, **kw):
    config.set_platform(config.Backend.Model)
    x = (np.random.randn(rows, N) * 3).astype(np.float32)
    y = np.zeros_like(x)
    res = softmax_rows[cores](x, y, rows // cores, **kw)
    return x, y, res


if __name__ == "__main__":
    x, y, res = run()
    err = np.abs(y - reference(x)).max()
    assert err < 1e-5, err
    print(f"softmax OK (max abs error {err:.2e}):", res)
