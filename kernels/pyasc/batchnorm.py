"""Batch normalisation in inference form, per channel of an NCHW tensor:

  y[n, c, h, w] = (x[n, c, h, w] - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c]

x float16 or float32; mean, var, gamma, beta float32 C-vectors (running statistics, as
torch.nn.functional.batch_norm(training=False) takes them); y float16 or float32 (`out_dtype`,
default x's: an f32 convolution result can be normalised straight into f16).

Each vector core first derives the per-channel scale = gamma * rsqrt(var + eps) and shift =
beta - mean * scale for all C channels in UB (vector instructions over C elements; rsqrt is
within 1 ulp, docs/semantics.md §2.4), then walks its contiguous range of the N*C rows (one row =
one H*W plane) in tiles of TILE elements: DMA in whole 32 B blocks, widen f16 to f32 exactly,
muls by the row's scale and adds its shift (scalars read from UB with LocalTensor.get_value),
round to the output type (RNE) and write with `_common.store_tail` (no byte past the row's end).
Computed in float32 throughout.
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/batchnorm.py
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
MAX_C = 4096


@asc.jit
def bn_kernel(x: asc.GlobalAddress, mean: asc.GlobalAddress, var: asc.GlobalAddress, gamma: asc.GlobalAddress,
              beta: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress, rows: int, per_core: int,
              hw: int, nch: int, c: asc.ConstExpr[int], eps: asc.ConstExpr[float], tile: asc.ConstExpr[int]):
    """rows = N*C planes of hw elements; core q does rows [q*per_core, min(rows, (q+1)*per_core)).
    Row r is channel r % nch; mean/var/gamma/beta hold nch elements padded with zeros to c (a
    multiple of 64)."""
    q = asc.get_block_idx()
    r0 = q * per_core
    nr = min(per_core, rows - r0)
    xd = x.dtype
    yd = y.dtype
    pbx = 32 // xd.sizeof()
    pby = 32 // yd.sizeof()
    f32 = asc.float32
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    mg = asc.GlobalTensor()
    vg = asc.GlobalTensor()
    gg = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    wg.set_global_buffer(ws + q * pby)
    mg.set_global_buffer(mean)
    vg.set_global_buffer(var)
    gg.set_global_buffer(gamma)
    bg.set_global_buffer(beta)
    slot = tile * 4 + 256
    cslot = c * 4 + 256
    xl = asc.LocalTensor(xd, asc.TPosition.VECIN, 0, tile)
    yl = asc.LocalTensor(yd, asc.TPosition.VECOUT, slot, tile)
    xf = asc.LocalTensor(f32, asc.TPosition.VECCALC, 2 * slot, tile)
    sc = asc.LocalTensor(f32, asc.TPosition.VECCALC, 3 * slot, c)
    sh = asc.LocalTensor(f32, asc.TPosition.VECCALC, 3 * slot + cslot, c)
    tv = asc.LocalTensor(f32, asc.TPosition.VECCALC, 3 * slot + 2 * cslot, c)
    tm = asc.LocalTensor(f32, asc.TPosition.VECCALC, 3 * slot + 3 * cslot, c)
    cb = c // 8
    asc.data_copy(tv, vg, asc.DataCopyParams(1, cb, 0, 0))
    asc.data_copy(sc, gg, asc.DataCopyParams(1, cb, 0, 0))
    asc.data_copy(tm, mg, asc.DataCopyParams(1, cb, 0, 0))
    asc.data_copy(sh, bg, asc.DataCopyParams(1, cb, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(tv, tv, eps, c)
    asc.rsqrt(tv, tv, c)
    asc.mul(sc, sc, tv, c)            # scale = gamma * rsqrt(var + eps)
    asc.mul(tm, tm, sc, c)
    asc.sub(sh, sh, tm, c)            # shift = beta - mean * scale
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for t in range(nr):
        r = r0 + t
        a = sc.get_value(r % nch)
        b = sh.get_value(r % nch)
        base = r * hw
        tiles = (hw + tile - 1) // tile
        for k in range(tiles):
            cnt = min(tile, hw - k * tile)
            asc.data_copy(xl, xg[base + k * tile:], asc.DataCopyParams(1, (cnt + pbx - 1) // pbx, 0, 0))
            asc.set_flag(asc.HardEvent.MTE2_V, 0)
            asc.wait_flag(asc.HardEvent.MTE2_V, 0)
            if xd.sizeof() == 2:
                asc.cast(xf, xl, asc.RoundMode.CAST_NONE, cnt)
            else:
                asc.copy(xf.reinterpret_cast(asc.uint32), xl.reinterpret_cast(asc.uint32), cnt)
            asc.muls(xf, xf, a, cnt)
            asc.adds(xf, xf, b, cnt)
            if yd.sizeof() == 2:
                asc.cast(yl, xf, asc.RoundMode.CAST_RINT, cnt)
            else:
                asc.copy(yl.reinterpret_cast(asc.uint32), xf.reinterpret_cast(asc.uint32), cnt)
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            cm.store_tail(yg[base + k * tile:], yl, cnt, wg, pby)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def _pad(v, n):
    out = np.zeros(n, np.float32)
    out[:v.size] = v
    return out


def batch_norm(x, mean, var, gamma=None, beta=None, eps=1e-5, out_dtype=None, target=None, cores=None,
               out=None, **launch):
    """Inference batch norm of NCHW (or NC, NCL) x over axis 1; see the module docstring."""
    x = np.ascontiguousarray(x)
    cm.check_dtype("batch_norm", x)
    if x.ndim < 2:
        raise ValueError(f"batch_norm: x needs a channel axis (N, C, ...), got shape {x.shape}")
    c = x.shape[1]
    if c > MAX_C:
        raise ValueError(f"batch_norm: at most {MAX_C} channels, got {c}")
    gamma = np.ones(c, np.float32) if gamma is None else gamma
    beta = np.zeros(c, np.float32) if beta is None else beta
    for v, what in ((mean, "mean"), (var, "var"), (gamma, "gamma"), (beta, "beta")):
        if np.asarray(v).dtype != np.float32 or np.asarray(v).shape != (c,):
            raise ValueError(f"batch_norm: {what} must be a ({c},) float32 vector, got "
                             f"{np.asarray(v).shape} {np.asarray(v).dtype}")
    yd = np.dtype(out_dtype or x.dtype)
    if out is None:
        out = np.zeros(x.shape, yd)
    if out.dtype != yd or out.size != x.size:
        raise ValueError(f"batch_norm: out must be {x.size} x {yd}, got {out.size} x {out.dtype}")
    cm.check_dtype("batch_norm (out)", out)
    if x.size == 0:
        return out
    cp = -(-c // 64) * 64
    rows = x.shape[0] * c
    hw = x.size // rows
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(rows, 1, cores, tgt)
        bn_kernel[ncores](x.reshape(-1), _pad(mean, cp), _pad(var, cp), _pad(gamma, cp), _pad(beta, cp),
                          out.reshape(-1), cm.workspace(yd, ncores), rows, per, hw, c, cp, float(eps), TILE, **launch)
    return out


def reference(x, mean, var, gamma, beta, eps=1e-5):
    sh = (1, -1) + (1,) * (x.ndim - 2)
    x = x.astype(np.float64)
    return ((x - mean.reshape(sh)) / np.sqrt(var.reshape(sh).astype(np.float64) + eps) * gamma.reshape(sh)
            + beta.reshape(sh))


def run(**kw):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 7, 9)).astype(np.float16)
    m, g, b = (rng.standard_normal(5).astype(np.float32) for _ in range(3))
    v = rng.uniform(0.5, 2, 5).astype(np.float32)
    y = batch_norm(x, m, v, g, b, cores=3, **kw)
    return x, (m, v, g, b), y, bn_kernel.last_result


if __name__ == "__main__":
    x, p, y, res = run()
    err = np.abs(y - reference(x, *p)).max()
    assert err < 1e-2, err
    print(f"batch_norm OK (max abs error {err:.2e}):", res)
