"""cast: float32 <-> float16 conversion on the vector unit (vconv), for auto_mixed_precision in numpy
scripts (python/pyasc/script/compile.py) and for any caller; float32 <-> bf16 (uint16 bits) by
cast_bf16 (pyasc.autocast(dtype=bfloat16)).

z[i] = x[i] converted: float32 -> float16 rounds to nearest, ties to even (vconv.f32.f16 with
rnd=rint: numpy's astype(np.float16) rounding, overflow to inf); float16 -> float32 is exact.
The rounding modes are real AscendC's Cast RoundMode (CAST_RINT for f32 -> f16; see
asc-devkit's Cast API docs, "RoundMode"); docs/isa.md gives vconv's semantics.

Cores take contiguous ranges of a multiple of 16 elements (a 32-byte block of float16 and two of
float32), tiles of TILE elements; the tail of each core is written with cm.store_tail, so no GM
byte past the end is written.
"""
from __future__ import annotations

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
UNIT = 16


@asc.jit
def _cast_tiles(x: asc.GlobalAddress, z: asc.GlobalAddress, ws: asc.GlobalAddress, n: int, per_core: int,
                tile: asc.ConstExpr[int], mode: asc.ConstExpr[int]):
    """z[i] = cast(x[i]) for i < n; core c does [c*per_core, min(n, (c+1)*per_core)).  mode 0: float32 <->
    float16 (narrowing rounds to nearest even); 1: float32 -> bf16 bits (RNE); 2: bf16 bits -> float32."""
    c = asc.get_block_idx()
    start = c * per_core
    length = min(per_core, n - start)
    sdt = x.dtype
    ddt = z.dtype
    s_pb = 32 // sdt.sizeof()
    d_pb = 32 // ddt.sizeof()
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    zg.set_global_buffer(z + start)
    wg.set_global_buffer(ws + c * d_pb)
    xs = asc.LocalTensor(sdt, asc.TPosition.VECCALC, 0, tile)
    zs = asc.LocalTensor(ddt, asc.TPosition.VECCALC, tile * 4 + 256, tile)
    tiles = (length + tile - 1) // tile
    for t in range(tiles):
        cnt = min(tile, length - t * tile)
        blocks = (cnt + s_pb - 1) // s_pb
        asc.data_copy(xs, xg[t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if mode == 1:
            asc.cast(zs.reinterpret_cast(asc.bfloat16), xs, asc.RoundMode.CAST_RINT, cnt)
        elif mode == 2:
            asc.cast(zs, xs.reinterpret_cast(asc.bfloat16), asc.RoundMode.CAST_NONE, cnt)
        elif sdt.sizeof() > ddt.sizeof():
            asc.cast(zs, xs, asc.RoundMode.CAST_RINT, cnt)
        else:
            asc.cast(zs, xs, asc.RoundMode.CAST_NONE, cnt)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        cm.store_tail(zg[t * tile:], zs, cnt, wg, d_pb)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


@asc.jit(tune=cm.TUNE_TILE)
def cast_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, ws: asc.GlobalAddress, n: int, per_core: int,
                tile: asc.ConstExpr[int]):
    """z[i] = cast(x[i]) for i < n; core c does [c*per_core, min(n, (c+1)*per_core))."""
    _cast_tiles(x, z, ws, n, per_core, tile, 0)

def cast(x, dtype, target=None, cores=None, tile=TILE, out=None, **launch):
    """x (float32 or float16, any shape) as dtype (float16 or float32), converted on the NPU; into
    `out` (a C-contiguous array of x's shape and `dtype`) when given."""
    x = np.ascontiguousarray(x)
    cm.check_dtype("cast", x)
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float16), np.dtype(np.float32)):
        raise ValueError(f"cast: to {dt.name} is not supported (float16, float32)")
    if out is None:
        out = np.zeros(x.shape, dt)
    elif out.dtype != dt or out.shape != x.shape or not out.flags.c_contiguous:
        raise ValueError(f"cast: out must be a C-contiguous {dt.name} array of shape {x.shape}")
    if dt == x.dtype:
        out[...] = x
        return out
    n = x.size
    if n == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(n, UNIT, cores, tgt)
        ws = cm.workspace(dt, ncores)
        cast_kernel[ncores](x.reshape(-1), out.reshape(-1), ws, n, per, tile, **launch)
    return out


@asc.jit
def cast_bf16_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, ws: asc.GlobalAddress, n: int, per_core: int,
                     tile: asc.ConstExpr[int], to_bf16: asc.ConstExpr[bool]):
    """bf16 <-> float32 for i < n (numpy has no bfloat16: the bf16 side is a uint16 array of bf16
    bits, read in UB as bfloat16 through reinterpret_cast): to_bf16 rounds float32 to nearest,
    ties to even (vconv.f32.bf16, rnd=rint; overflow to inf, NaN stays NaN), else widens exactly
    (vconv.bf16.f32).  Same split and tail handling as cast_kernel."""
    _cast_tiles(x, z, ws, n, per_core, tile, 1 if to_bf16 else 2)

def cast_bf16(x, to_bf16, target=None, cores=None, tile=TILE, out=None, **launch):
    """to_bf16: float32 x -> uint16 array of bf16 bits (RNE); else uint16 bf16 bits x ->
    float32 (exact); on the NPU, into `out` when given (C-contiguous, x's shape)."""
    x = np.ascontiguousarray(x)
    src, dt = (np.float32, np.uint16) if to_bf16 else (np.uint16, np.float32)
    if x.dtype != np.dtype(src):
        raise ValueError(f"cast_bf16: x must be {np.dtype(src).name} "
                         f"({'float32 to round' if to_bf16 else 'bf16 bits'}), got {x.dtype}")
    if out is None:
        out = np.zeros(x.shape, dt)
    elif out.dtype != np.dtype(dt) or out.shape != x.shape or not out.flags.c_contiguous:
        raise ValueError(f"cast_bf16: out must be a C-contiguous {np.dtype(dt).name} array of shape {x.shape}")
    n = x.size
    if n == 0:
        return out
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(n, UNIT, cores, tgt)
        cast_bf16_kernel[ncores](x.reshape(-1).view(src), out.reshape(-1).view(dt), cm.workspace(dt, ncores), n,
                                 per, tile, bool(to_bf16), **launch)
    return out


def run(n=5003, **kw):
    """float32 -> float16 of n values (a tail) on 3 cores; returns (x, z, LaunchResult)."""
    x = (np.random.default_rng(0).standard_normal(n) * 1000).astype(np.float32)
    z = cast(x, np.float16, cores=3, **kw)
    return x, z, cast_kernel.last_result


if __name__ == "__main__":
    a, b, res = run()
    print("ok" if np.array_equal(b, a.astype(np.float16)) else "MISMATCH", res.cycles, "cycles")
