"""More element-wise kernels on 1-D data of any length, float16 and float32:
vdiv (z = x / y) and erf.  Same tiling, core split and tail store as elementwise.py (whose
module docstring describes them); kept in their own module so elementwise.py's kernels and
their compiled code stay as they are.

Arithmetic: vdiv is one vector division in the input type (vdiv.f16/vdiv.f32, correctly
rounded, docs/semantics.md §2.4).  erf runs in float32 (float16 widened exactly, rounded once)
with the rational approximation of Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7 on the real
line, plus a few f32 ulps of rounding):
  t = 1 / (1 + p |x|),  erf(|x|) = 1 - (a1 t + a2 t^2 + a3 t^3 + a4 t^4 + a5 t^5) exp(-x^2)
and the sign restored by multiplying with x / (|x| + 1e-30) (erf is odd; at x = 0 this gives 0).
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/elementwise_ext.py
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

TILE = 2048
P = 0.3275911
A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


@asc.jit
def _erf_f32(b: asc.LocalTensor, a: asc.LocalTensor, t: asc.LocalTensor, u: asc.LocalTensor,
             v: asc.LocalTensor, cnt: int):
    """b = erf(a) in float32 over cnt elements; t, u, v scratch."""
    asc.abs(v, a, cnt)                     # v = |x|
    asc.muls(t, v, P, cnt)
    asc.adds(t, t, 1.0, cnt)
    asc.reciprocal(t, t, cnt)              # t = 1 / (1 + p|x|)
    asc.muls(u, t, A[4], cnt)              # Horner: ((((a5 t + a4) t + a3) t + a2) t + a1) t
    asc.adds(u, u, A[3], cnt)
    asc.mul(u, u, t, cnt)
    asc.adds(u, u, A[2], cnt)
    asc.mul(u, u, t, cnt)
    asc.adds(u, u, A[1], cnt)
    asc.mul(u, u, t, cnt)
    asc.adds(u, u, A[0], cnt)
    asc.mul(u, u, t, cnt)
    asc.mul(t, a, a, cnt)
    asc.muls(t, t, -1.0, cnt)
    asc.exp(t, t, cnt)                     # exp(-x^2)
    asc.mul(u, u, t, cnt)
    asc.muls(u, u, -1.0, cnt)
    asc.adds(u, u, 1.0, cnt)               # erf(|x|)
    asc.adds(v, v, 1e-30, cnt)
    asc.div(v, a, v, cnt)                  # sign(x) (0 at 0)
    asc.mul(b, u, v, cnt)


@asc.jit(tune=cm.TUNE_TILE)
def ext_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, ws: asc.GlobalAddress,
               n: int, per_core: int, op: asc.ConstExpr[str], tile: asc.ConstExpr[int]):
    """z[i] = op(x[i], y[i]) for i < n (op "div" or "erf", which ignores y)."""
    c = asc.get_block_idx()
    start = c * per_core
    length = min(per_core, n - start)
    dt = x.dtype
    per_block = 32 // dt.sizeof()
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    zg.set_global_buffer(z + start)
    wg.set_global_buffer(ws + c * per_block)
    slot = tile * 4 + 256
    xl = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, tile)
    yl = asc.LocalTensor(dt, asc.TPosition.VECIN, slot, tile)
    zl = asc.LocalTensor(dt, asc.TPosition.VECOUT, 2 * slot, tile)
    af = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 3 * slot, tile)
    tf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4 * slot, tile)
    uf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 5 * slot, tile)
    vf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 6 * slot, tile)
    bf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 7 * slot, tile)
    tiles = (length + tile - 1) // tile
    for t in range(tiles):
        cnt = min(tile, length - t * tile)
        blocks = (cnt + per_block - 1) // per_block
        asc.data_copy(xl, xg[t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
        if op == "div":
            asc.data_copy(yl, yg[t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if op == "div":
            asc.div(zl, xl, yl, cnt)
        elif dt.sizeof() == 4:
            _erf_f32(zl, xl, tf, uf, vf, cnt)
        else:
            asc.cast(af, xl, asc.RoundMode.CAST_NONE, cnt)
            _erf_f32(bf, af, tf, uf, vf, cnt)
            asc.cast(zl, bf, asc.RoundMode.CAST_RINT, cnt)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        cm.store_tail(zg[t * tile:], zl, cnt, wg, per_block)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def _launch(name, op, x, y=None, target=None, cores=None, out=None, **launch):
    x = np.ascontiguousarray(x)
    cm.check_dtype(name, x)
    if y is not None:
        y = np.ascontiguousarray(y)
        cm.check_same(name, x, y)
    if out is None:
        out = np.zeros_like(x)
    if x.size == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(x.size, cm.epb(x.dtype), cores, tgt)
        ext_kernel[ncores](x.reshape(-1), (x if y is None else y).reshape(-1), out.reshape(-1),
                           cm.workspace(x.dtype, ncores), x.size, per, op, TILE, **launch)
    return out


def vdiv(x, y, **kw):
    """x / y (float16/float32, same shape)."""
    return _launch("vdiv", "div", x, y, **kw)


def erf(x, **kw):
    """The error function (float16/float32)."""
    return _launch("erf", "erf", x, **kw)


def run(n=1003, **kw):
    """vdiv and erf of n float32 (a length with a tail) on 3 cores; returns (a, b, a / b, erf(a),
    the erf LaunchResult)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32) * 2
    b = rng.uniform(0.5, 2, n).astype(np.float32)
    q = vdiv(a, b, cores=3, **kw)
    e = erf(a, cores=3, **kw)
    return a, b, q, e, ext_kernel.last_result


if __name__ == "__main__":
    import math
    a, b, q, e, _ = run()
    assert np.array_equal(q, a / b)
    err = max(abs(float(e[i]) - math.erf(float(a[i]))) for i in range(a.size))
    assert err < 5e-7, err
    print(f"elementwise_ext OK (erf max abs error {err:.1e}):", ext_kernel.last_result)
