"""bench/fidelity/fidelity_kernels.py -- double-buffered counterparts of published hardware kernels.

The published streaming kernels that bench/fidelity/published.csv quotes are double-buffered
(the compiler-team-ru/pyasc swiglu sample: `BUFFER_NUM = 2`; the ops-transformer mhc_post
kernel: "Double buffering: BUFFER_NUM=2"; torch_npu's own vector kernels).  The library's
fused.py chain is hand-synchronised with one buffer set (its flags are written out, so the -O2
double-buffering pass, which promotes one-buffer TQues, does not touch it); comparing it with
those kernels would measure the missing overlap, not the model.  These kernels are written as
the samples are: TPipe/TQue with two buffers per queue (the pyasc tutorial pattern,
kernels/pyasc/vadd_tque.py), the compiler deriving every flag.

Work split: `plan(n, dtype, cores, tile)` gives every core the same number of equal tiles (a
multiple of 32 bytes each); the host pads the operands to cores x per_core elements and drops
the padding from the result, so no tile has a tail (the padding is under one 32-byte block per
tile per core).  Host functions: swiglu(gate, up), scale(x, s).
"""
import numpy as np

import asc

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels", "pyasc"))
import _common as cm  # noqa: E402  (kernels/pyasc)

BUFFER_NUM = 2
TILE_BYTES = 16384          # per buffer: 3 queues x 2 buffers x 16 KB = 96 KB of the 192 KB UB


@asc.jit
def swiglu_kernel(g: asc.GlobalAddress, u: asc.GlobalAddress, z: asc.GlobalAddress, per_core: int,
                  tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    """z = up * gate / (1 + exp(-gate)) over this core's per_core elements, in tiles of `tile`."""
    start = asc.get_block_idx() * per_core
    gg = asc.GlobalTensor()
    ug = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    gg.set_global_buffer(g + start)
    ug.set_global_buffer(u + start)
    zg.set_global_buffer(z + start)
    pipe = asc.TPipe()
    qg = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qu = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(qg, BUFFER_NUM, tile * g.dtype.sizeof())
    pipe.init_buffer(qu, BUFFER_NUM, tile * u.dtype.sizeof())
    pipe.init_buffer(qz, BUFFER_NUM, tile * z.dtype.sizeof())
    for i in range(tiles):
        gl = qg.alloc_tensor(gg.dtype)
        ul = qu.alloc_tensor(ug.dtype)
        asc.data_copy(gl, gg[i * tile:], tile)
        asc.data_copy(ul, ug[i * tile:], tile)
        qg.enque(gl)
        qu.enque(ul)
        ga = qg.deque(gg.dtype)
        ua = qu.deque(ug.dtype)
        zl = qz.alloc_tensor(zg.dtype)
        asc.muls(zl, ga, -1.0, tile)
        asc.exp(zl, zl, tile)
        asc.adds(zl, zl, 1.0, tile)
        asc.div(zl, ga, zl, tile)
        asc.mul(zl, zl, ua, tile)
        qz.enque(zl)
        qg.free_tensor(ga)
        qu.free_tensor(ua)
        zo = qz.deque(zg.dtype)
        asc.data_copy(zg[i * tile:], zo, tile)
        qz.free_tensor(zo)


@asc.jit
def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, per_core: int, s: asc.ConstExpr[float],
                 tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    """z = x * s over this core's per_core elements, in tiles of `tile`."""
    start = asc.get_block_idx() * per_core
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    zg.set_global_buffer(z + start)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(qx, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(qz, BUFFER_NUM, tile * z.dtype.sizeof())
    for i in range(tiles):
        xl = qx.alloc_tensor(xg.dtype)
        asc.data_copy(xl, xg[i * tile:], tile)
        qx.enque(xl)
        xa = qx.deque(xg.dtype)
        zl = qz.alloc_tensor(zg.dtype)
        asc.muls(zl, xa, s, tile)
        qz.enque(zl)
        qx.free_tensor(xa)
        zo = qz.deque(zg.dtype)
        asc.data_copy(zg[i * tile:], zo, tile)
        qz.free_tensor(zo)


def plan(n, dtype, cores, tile_bytes=TILE_BYTES):
    """(cores, per_core, tile, tiles): every core gets `tiles` tiles of `tile` elements (a multiple
    of 32 bytes, at most tile_bytes), per_core = tiles * tile >= its share of n."""
    if n < 1:
        raise ValueError(f"fidelity kernels: n={n}: need at least one element")
    if cores < 1:
        raise ValueError(f"fidelity kernels: cores={cores}: need at least one core")
    unit = cm.epb(dtype)
    units = -(-n // unit)
    cores = min(cores, units)
    share = -(-units // cores)                       # 32-byte blocks per core
    maxu = max(1, tile_bytes // 32)
    tiles = -(-share // maxu)
    tile_units = -(-share // tiles)
    return cores, tiles * tile_units * unit, tile_units * unit, tiles


def _padded(xs, total):
    return [np.concatenate([x.reshape(-1), np.zeros(total - x.size, x.dtype)]) for x in xs]


def swiglu(gate, up, target=None, cores=None):
    """up * gate / (1 + exp(-gate)) (float16/float32, same shape); returns (z, LaunchResult)."""
    gate = np.ascontiguousarray(gate)
    up = np.ascontiguousarray(up)
    cm.check_dtype("swiglu", gate)
    cm.check_same("swiglu", gate, up)
    with cm.on_target(target) as tgt:
        nc, per, tile, tiles = plan(gate.size, gate.dtype, cores or cm.max_cores(tgt, "aiv"))
        g, u = _padded([gate, up], nc * per)
        z = np.zeros_like(g)
        swiglu_kernel[nc](g, u, z, per, tile, tiles)
        res = swiglu_kernel.last_result
    return z[:gate.size].reshape(gate.shape), res


def scale(x, s, target=None, cores=None):
    """x * s (float16/float32, s a Python float); returns (z, LaunchResult)."""
    x = np.ascontiguousarray(x)
    cm.check_dtype("scale", x)
    with cm.on_target(target) as tgt:
        nc, per, tile, tiles = plan(x.size, x.dtype, cores or cm.max_cores(tgt, "aiv"))
        (xp,) = _padded([x], nc * per)
        z = np.zeros_like(xp)
        scale_kernel[nc](xp, z, per, float(s), tile, tiles)
        res = scale_kernel.last_result
    return z[:x.size].reshape(x.shape), res
