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
past the end of the output (or of a core's range) is ever written.  Two buffer sets (double
buffering, flags with event ids 0/1): tile t+1 loads while tile t computes and t-1 stores.  The output must not alias
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
def _ew_load(xg: asc.GlobalTensor, yg: asc.GlobalTensor, xl: asc.LocalTensor, yl: asc.LocalTensor, t: int,
             length: int, binary: asc.ConstExpr[bool], tile: asc.ConstExpr[int], ev: asc.ConstExpr[int]):
    """MTE2: tile t into buffer set ev, once V has finished with that set (flag V_MTE2 ev)."""
    per_block = 32 // xl.dtype.sizeof()
    cnt = min(tile, length - t * tile)
    blocks = (cnt + per_block - 1) // per_block
    asc.wait_flag(asc.HardEvent.V_MTE2, ev)
    asc.data_copy(xl, xg[t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
    if binary:
        asc.data_copy(yl, yg[t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, ev)


@asc.jit
def _ew_step(zg: asc.GlobalTensor, wg: asc.GlobalTensor, xl: asc.LocalTensor, yl: asc.LocalTensor,
             zl: asc.LocalTensor, af: asc.LocalTensor, tf: asc.LocalTensor, uf: asc.LocalTensor,
             bf: asc.LocalTensor, t: int, length: int, alpha: float, op: asc.ConstExpr[str],
             tile: asc.ConstExpr[int], ev: asc.ConstExpr[int]):
    """V: tile t of buffer set ev (once its load landed and MTE3 has written the set's previous
    output), then MTE3: its store; the flags free the set for the load two tiles on."""
    dt = xl.dtype
    per_block = 32 // dt.sizeof()
    cnt = min(tile, length - t * tile)
    asc.wait_flag(asc.HardEvent.MTE2_V, ev)
    asc.wait_flag(asc.HardEvent.MTE3_V, ev)
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
    asc.set_flag(asc.HardEvent.V_MTE2, ev)
    asc.set_flag(asc.HardEvent.V_MTE3, ev)
    asc.wait_flag(asc.HardEvent.V_MTE3, ev)
    cm.store_tail(zg[t * tile:], zl, cnt, wg, per_block)
    asc.set_flag(asc.HardEvent.MTE3_V, ev)


@asc.jit(tune=cm.TUNE_TILE)
def ew_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, ws: asc.GlobalAddress,
              n: int, per_core: int, alpha: float, zoff: int, op: asc.ConstExpr[str],
              tile: asc.ConstExpr[int]):
    """z[zoff + i] = op(x[i], y[i]) for i < n; core c does [c*per_core, min(n, (c+1)*per_core)).
    zoff (elements) lets the tests place the result inside a larger, guarded array.
    Double-buffered: two sets of input/output buffers (event ids 0 and 1); the load of tile
    t+1 is issued before tile t is computed, so MTE2, V and MTE3 overlap.  The loop runs two
    tiles an iteration because event ids are compile-time constants."""
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
    xl0 = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, tile)
    yl0 = asc.LocalTensor(dt, asc.TPosition.VECIN, slot, tile)
    zl0 = asc.LocalTensor(dt, asc.TPosition.VECOUT, 2 * slot, tile)
    xl1 = asc.LocalTensor(dt, asc.TPosition.VECIN, 3 * slot, tile)
    yl1 = asc.LocalTensor(dt, asc.TPosition.VECIN, 4 * slot, tile)
    zl1 = asc.LocalTensor(dt, asc.TPosition.VECOUT, 5 * slot, tile)
    af = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 6 * slot, tile)
    tf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 7 * slot, tile)
    uf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8 * slot, tile)
    bf = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 9 * slot, tile)
    binary = op in BINARY
    tiles = (length + tile - 1) // tile
    for e in asc.static_range(2):                 # both buffer sets start free
        asc.set_flag(asc.HardEvent.V_MTE2, e)
        asc.set_flag(asc.HardEvent.MTE3_V, e)
    if tiles > 0:
        _ew_load(xg, yg, xl0, yl0, 0, length, binary, tile, 0)
    for t in range(0, tiles, 2):
        if t + 1 < tiles:
            _ew_load(xg, yg, xl1, yl1, t + 1, length, binary, tile, 1)
        _ew_step(zg, wg, xl0, yl0, zl0, af, tf, uf, bf, t, length, alpha, op, tile, 0)
        if t + 1 < tiles:
            if t + 2 < tiles:
                _ew_load(xg, yg, xl0, yl0, t + 2, length, binary, tile, 0)
            _ew_step(zg, wg, xl1, yl1, zl1, af, tf, uf, bf, t + 1, length, alpha, op, tile, 1)
    for e in asc.static_range(2):                 # consume the last sets of both flags
        asc.wait_flag(asc.HardEvent.V_MTE2, e)
        asc.wait_flag(asc.HardEvent.MTE3_V, e)


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
