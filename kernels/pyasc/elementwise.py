"""Element-wise kernels on 1-D data of any length: vadd, vmul, axpy (z = alpha*x + y), relu,
gelu (tanh approximation), sigmoid, tanh.  float16 and float32.

Host functions (`vadd(x, y)`, `axpy(alpha, x, y)`, `relu(x)`, ...) take numpy arrays of any
shape (flattened, same shape and dtype), pick the cores and launch, and return a new array;
`target` selects the profile (ascend910b, teach), `cores` caps the core count.

Tiling: the n elements are split into contiguous per-core ranges whose starts are whole 32-byte
blocks (`_common.core_split`); each core walks its range in tiles of TILE elements.  A tile is
read as whole 32 B blocks (the blocks past the end only fill UB lanes no result uses), computed
in counter mode with the exact element count, and written by `_common.store_tail`: whole blocks
by DMA, the last < 32 bytes by scalar GM stores through a 32 B per-core workspace, so no byte
past the end of the output (or of a core's range) is ever written.  The output must not alias
an input (the host functions always allocate it).

Arithmetic: vadd/vmul/axpy/relu run in the input type (each vector instruction is correctly
rounded, docs/semantics.md §2.4; axpy rounds alpha*x, then the sum).  gelu/sigmoid/tanh run in
float32 (float16 inputs are widened exactly and the result rounded once, RNE):
  sigmoid(x) = 1 / (1 + exp(-x))
  tanh(x)    = (e - 1) / (e + 1), e = exp(2 * clamp(x, -9, 9))  (tanh(9) rounds to 1 within 1 ulp)
  gelu(x)    = x * sigmoid(1.5957691 * (x + 0.044715 x^3))      (= torch gelu(approximate='tanh'))
exp is within 1 ulp of f32 (docs/semantics.md §2.4), so these are within a few f32 ulps
relative, except tanh near 0 (cancellation in e - 1: absolute error about 1e-7).
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
BINARY = ("add", "mul", "axpy")
UNARY = ("relu", "sigmoid", "tanh", "gelu")
_F32_OPS = ("sigmoid", "tanh", "gelu")


@asc.jit
def _f32_compute(op: asc.ConstExpr[str], b: asc.LocalTensor, a: asc.LocalTensor, t: asc.LocalTensor,
                 u: asc.LocalTensor, cnt: int):
    """b = op(a) in float32 over cnt elements; t, u are scratch (a may be t's input only)."""
    if op == "sigmoid":
        asc.muls(t, a, -1.0, cnt)
        asc.exp(t, t, cnt)
        asc.adds(t, t, 1.0, cnt)
        asc.reciprocal(b, t, cnt)
    elif op == "tanh":
        asc.mins(t, a, 9.0, cnt)
        asc.maxs(t, t, -9.0, cnt)
        asc.muls(t, t, 2.0, cnt)
        asc.exp(t, t, cnt)
        asc.adds(u, t, -1.0, cnt)
        asc.adds(t, t, 1.0, cnt)
        asc.div(b, u, t, cnt)
    else:   # gelu
        asc.mul(t, a, a, cnt)
        asc.mul(t, t, a, cnt)
        asc.muls(t, t, 0.044715, cnt)
        asc.add(t, t, a, cnt)
        asc.muls(t, t, -1.5957691216057308, cnt)
        asc.exp(t, t, cnt)
        asc.adds(t, t, 1.0, cnt)
        asc.reciprocal(t, t, cnt)
        asc.mul(b, a, t, cnt)


@asc.jit
def ew_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, ws: asc.GlobalAddress,
              n: int, per_core: int, alpha: float, zoff: int, op: asc.ConstExpr[str],
              tile: asc.ConstExpr[int]):
    """z[zoff + i] = op(x[i], y[i]) for i < n; core c does [c*per_core, min(n, (c+1)*per_core)).
    zoff (elements) lets the tests place the result inside a larger, guarded array."""
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
    zg.set_global_buffer(z + zoff + start)
    wg.set_global_buffer(ws + c * per_block)
    slot = tile * 4 + 256                         # every buffer has room for f32; 256 B bank skew
    xl = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, tile)
    yl = asc.LocalTensor(dt, asc.TPosition.VECIN, slot, tile)
    zl = asc.LocalTensor(dt, asc.TPosition.VECOUT, 2 * slot, tile)
    af = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 3 * slot, tile)
    tf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4 * slot, tile)
    uf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 5 * slot, tile)
    bf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 6 * slot, tile)
    tiles = (length + tile - 1) // tile
    for t in range(tiles):
        cnt = min(tile, length - t * tile)
        blocks = (cnt + per_block - 1) // per_block
        asc.data_copy(xl, xg[t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
        if op in BINARY:
            asc.data_copy(yl, yg[t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if op == "add":
            asc.add(zl, xl, yl, cnt)
        elif op == "mul":
            asc.mul(zl, xl, yl, cnt)
        elif op == "axpy":
            asc.muls(zl, xl, alpha, cnt)
            asc.add(zl, zl, yl, cnt)
        elif op == "relu":
            asc.relu(zl, xl, cnt)
        elif dt.sizeof() == 4:
            _f32_compute(op, zl, xl, tf, uf, cnt)
        else:
            asc.cast(af, xl, asc.RoundMode.CAST_NONE, cnt)
            _f32_compute(op, bf, af, tf, uf, cnt)
            asc.cast(zl, bf, asc.RoundMode.CAST_RINT, cnt)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        cm.store_tail(zg[t * tile:], zl, cnt, wg, per_block)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def _launch(name, op, x, y=None, alpha=0.0, target=None, cores=None, out=None, out_offset=0, **launch):
    """launch: keyword options of the kernel launch (check_races, trace); the LaunchResult is
    ew_kernel.last_result."""
    x = np.ascontiguousarray(x)
    cm.check_dtype(name, x)
    if y is not None:
        y = np.ascontiguousarray(y)
        cm.check_same(name, x, y)
    n = x.size
    if out is None:
        out, out_offset = np.zeros_like(x), 0
    if n == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(n, cm.epb(x.dtype), cores, tgt)
        ws = cm.workspace(x.dtype, ncores)
        ew_kernel[ncores](x.reshape(-1), (x if y is None else y).reshape(-1), out.reshape(-1), ws, n, per,
                          float(alpha), out_offset, op, TILE, **launch)
    return out


def vadd(x, y, **kw):
    """x + y (float16/float32, same shape)."""
    return _launch("vadd", "add", x, y, **kw)


def vmul(x, y, **kw):
    """x * y (float16/float32, same shape)."""
    return _launch("vmul", "mul", x, y, **kw)


def axpy(alpha, x, y, **kw):
    """alpha * x + y; alpha is rounded to the element type, the product is rounded, then the sum."""
    return _launch("axpy", "axpy", x, y, alpha=alpha, **kw)


def relu(x, **kw):
    """max(x, 0) (-0 and NaN give +0, docs/semantics.md §2.4)."""
    return _launch("relu", "relu", x, **kw)


def sigmoid(x, **kw):
    return _launch("sigmoid", "sigmoid", x, **kw)


def tanh(x, **kw):
    return _launch("tanh", "tanh", x, **kw)


def gelu(x, **kw):
    """GELU, tanh approximation (torch gelu(approximate='tanh'))."""
    return _launch("gelu", "gelu", x, **kw)


def run(n=1003, **kw):
    """vadd of n float32 (a length with a tail) on 3 cores; returns (x, y, z, LaunchResult)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    z = vadd(a, b, cores=3, **kw)
    return a, b, z, ew_kernel.last_result


if __name__ == "__main__":
    a, b, z, res = run()
    assert np.array_equal(z, a + b)
    print("elementwise OK:", res)
