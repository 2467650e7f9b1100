"""Fused element-wise chains: the kernel the numpy-script compiler (python/pyasc/script) generates
for a chain of element-wise operators, one program per chain, given as a compile-time tuple.

`prog` is a tuple of steps (op, dst, a, b): registers are UB tiles r0..r{nreg-1}; r0..r{nin-1}
are loaded from the GM inputs x0..x2 (same dtype), the last step's dst is stored to z.  b is a
register number, a Python float (the scalar ops adds/muls/maxs/mins) or None (unary ops).
Each step is the same single vector instruction (or, for sigmoid/tanh/gelu in float32, the same
sequence: elementwise._f32_compute) that the kernel library runs for that operator alone, so a
fused chain gives bit-for-bit the results of the unfused one; only the GM traffic of the
intermediate results and the launches disappear.
Tiling, tails and stores as elementwise.ew_kernel (contiguous per-core ranges in 32 B blocks,
store_tail for the last partial block).  Host function: `run_chain(prog, inputs, ...)`.
"""
import numpy as np

import asc

try:
    from . import _common as cm
    from . import elementwise as ew
except ImportError:            # run as a script or loaded by path
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm
    import elementwise as ew

TILE = 2048
MAX_REGS = 6
MAX_INPUTS = 3
BINARY = ("add", "sub", "mul", "div", "max", "min")
SCALAR = ("adds", "muls", "maxs", "mins")
UNARY = ("exp", "abs", "sqrt", "relu", "ln")
F32_ONLY = ("sigmoid", "tanh", "gelu")
OPS = BINARY + SCALAR + UNARY + F32_ONLY


@asc.jit
def _step(op: asc.ConstExpr[str], d: asc.LocalTensor, a: asc.LocalTensor, b: asc.LocalTensor, s: asc.ConstExpr[float],
          t: asc.LocalTensor, u: asc.LocalTensor, cnt: int):
    if op == "add":
        asc.add(d, a, b, cnt)
    elif op == "sub":
        asc.sub(d, a, b, cnt)
    elif op == "mul":
        asc.mul(d, a, b, cnt)
    elif op == "div":
        asc.div(d, a, b, cnt)
    elif op == "max":
        asc.max(d, a, b, cnt)
    elif op == "min":
        asc.min(d, a, b, cnt)
    elif op == "adds":
        asc.adds(d, a, s, cnt)
    elif op == "muls":
        asc.muls(d, a, s, cnt)
    elif op == "maxs":
        asc.maxs(d, a, s, cnt)
    elif op == "mins":
        asc.mins(d, a, s, cnt)
    elif op == "exp":
        asc.exp(d, a, cnt)
    elif op == "abs":
        asc.abs(d, a, cnt)
    elif op == "sqrt":
        asc.sqrt(d, a, cnt)
    elif op == "ln":
        asc.ln(d, a, cnt)
    elif op == "relu":
        asc.relu(d, a, cnt)
    else:
        ew._f32_compute(op, d, a, t, u, cnt)


@asc.jit(tune=cm.TUNE_TILE)
def fused_kernel(x0: asc.GlobalAddress, x1: asc.GlobalAddress, x2: asc.GlobalAddress, z: asc.GlobalAddress,
                 ws: asc.GlobalAddress, n: int, per_core: int, prog: asc.ConstExpr[tuple],
                 nin: asc.ConstExpr[int], tile: asc.ConstExpr[int]):
    """z[i] = prog(x0[i], x1[i], x2[i]) for i < n; core c does [c*per_core, min(n, (c+1)*per_core))."""
    c = asc.get_block_idx()
    start = c * per_core
    length = min(per_core, n - start)
    dt = x0.dtype
    per_block = 32 // dt.sizeof()
    g0 = asc.GlobalTensor()
    g1 = asc.GlobalTensor()
    g2 = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    g0.set_global_buffer(x0 + start)
    g1.set_global_buffer(x1 + start)
    g2.set_global_buffer(x2 + start)
    zg.set_global_buffer(z + start)
    wg.set_global_buffer(ws + c * per_block)
    slot = tile * dt.sizeof() + 256             # 256 B bank skew between registers
    r0 = asc.LocalTensor(dt, asc.TPosition.VECCALC, 0, tile)
    r1 = asc.LocalTensor(dt, asc.TPosition.VECCALC, slot, tile)
    r2 = asc.LocalTensor(dt, asc.TPosition.VECCALC, 2 * slot, tile)
    r3 = asc.LocalTensor(dt, asc.TPosition.VECCALC, 3 * slot, tile)
    r4 = asc.LocalTensor(dt, asc.TPosition.VECCALC, 4 * slot, tile)
    r5 = asc.LocalTensor(dt, asc.TPosition.VECCALC, 5 * slot, tile)
    tf = asc.LocalTensor(dt, asc.TPosition.VECCALC, 6 * slot, tile)
    uf = asc.LocalTensor(dt, asc.TPosition.VECCALC, 7 * slot, tile)
    regs = (r0, r1, r2, r3, r4, r5)
    gs = (g0, g1, g2)
    last = prog[len(prog) - 1][1]
    tiles = (length + tile - 1) // tile
    for t in range(tiles):
        cnt = min(tile, length - t * tile)
        blocks = (cnt + per_block - 1) // per_block
        for i in asc.static_range(nin):
            asc.data_copy(regs[i], gs[i][t * tile:], asc.DataCopyParams(1, blocks, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        for k in asc.static_range(len(prog)):
            st = prog[k]
            bb = regs[st[3]] if isinstance(st[3], int) else tf
            sv = st[3] if isinstance(st[3], float) else 0.0
            _step(st[0], regs[st[1]], regs[st[2]], bb, sv, tf, uf, cnt)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        cm.store_tail(zg[t * tile:], regs[last], cnt, wg, per_block)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def check_prog(prog, nin, dtype):
    """ValueError naming the step when prog is not a program fused_kernel runs."""
    if not 1 <= nin <= MAX_INPUTS:
        raise ValueError(f"fused: {nin} inputs (1..{MAX_INPUTS})")
    if not prog:
        raise ValueError("fused: empty program")
    for i, st in enumerate(prog):
        op, d, a, b = st
        if op not in OPS:
            raise ValueError(f"fused: step {i}: unknown op {op!r}")
        if op in F32_ONLY and np.dtype(dtype) != np.float32:
            raise ValueError(f"fused: step {i}: {op} runs in float32 only")
        for r in (d, a) + ((b,) if op in BINARY else ()):
            if not isinstance(r, int) or not 0 <= r < MAX_REGS:
                raise ValueError(f"fused: step {i}: register {r!r} (0..{MAX_REGS - 1})")
        if op in SCALAR and not isinstance(b, float):
            raise ValueError(f"fused: step {i}: {op} needs a float scalar")


def run_chain(prog, inputs, target=None, cores=None, tile=TILE, **launch):
    """Run the program over the inputs (numpy arrays of one shape and dtype); returns z."""
    xs = [np.ascontiguousarray(x) for x in inputs]
    for x in xs:
        cm.check_dtype("fused", x)
    cm.check_same("fused", *xs)
    check_prog(prog, len(xs), xs[0].dtype)
    n = xs[0].size
    out = np.zeros_like(xs[0])
    if n == 0:
        return out
    flat = [x.reshape(-1) for x in xs]
    while len(flat) < MAX_INPUTS:
        flat.append(flat[0])
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(n, cm.epb(xs[0].dtype), cores, tgt)
        ws = cm.workspace(xs[0].dtype, ncores)
        fused_kernel[ncores](flat[0], flat[1], flat[2], out.reshape(-1), ws, n, per, tuple(prog), len(xs),
                             tile, **launch)
    return out


def run(n=5003, **kw):
    """relu((x + y) * 0.5) - y as one fused chain of float32 (a length with a tail) on 3 cores;
    returns (x, y, z, LaunchResult)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    prog = (("add", 2, 0, 1), ("muls", 2, 2, 0.5), ("relu", 2, 2, None), ("sub", 2, 2, 1))
    z = run_chain(prog, [x, y], cores=3, **kw)
    return x, y, z, fused_kernel.last_result


if __name__ == "__main__":
    a, b, z, res = run()
    assert np.array_equal(z, np.maximum((a + b) * np.float32(0.5), 0) - b)
    print("fused OK:", res)
