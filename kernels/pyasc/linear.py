"""Matmul + bias + activation: y = act(A x B + bias), A (M x K), B (K x N) float16 or bf16
(uint16 bits), bias a float32 N-vector, y float32 M x N; act one of none, relu, sigmoid, tanh,
gelu (tanh approximation, as elementwise.py).

Two launches, not one fused mix kernel (pyasc does not compile cube + vector kernels yet): the
cube kernel `matmul.matmul_kernel` writes C = A x B (float32) to GM, then the vector kernel
`bias_act_kernel` (rows over the vector cores) reads each row, adds the bias (loaded once per
core), applies the activation in float32 (`elementwise._f32_compute`) and writes the row back
with `_common.store_tail` (no byte past the row).  relu alone could ride in the fixpipe
(`matmul(..., relu=True)`), but the bias must be added before it.
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/linear.py"""
import numpy as np

import asc

try:
    from . import _common as cm
    from . import elementwise as ew
    from . import matmul as mm
except ImportError:            # run as a script or loaded by path
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm
    import elementwise as ew
    import matmul as mm

ACTS = ("none", "relu", "sigmoid", "tanh", "gelu")
MAX_N = 8192


@asc.jit
def bias_act_kernel(y: asc.GlobalAddress, bias: asc.GlobalAddress, ws: asc.GlobalAddress, rows: int,
                    per_core: int, yoff: int, w: asc.ConstExpr[int], act: asc.ConstExpr[str]):
    """y[yoff + r*w + j] = act(y[...] + bias[j]) (float32, in place; y an int32 view, so a
    row's tail can be read by scalar loads); core c does rows [c*per_core, min(rows, (c+1)*per_core))."""
    c = asc.get_block_idx()
    r0 = c * per_core
    nr = min(per_core, rows - r0)
    yg = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    yg.set_global_buffer(y + yoff + r0 * w)
    bg.set_global_buffer(bias)
    wg.set_global_buffer(ws + c * 8)
    f32 = asc.float32
    wp = (w + 63) // 64 * 64
    slot = wp * 4 + 256
    row = asc.LocalTensor(f32, asc.TPosition.VECIN, 0, wp)
    bl = asc.LocalTensor(f32, asc.TPosition.VECCALC, slot, wp)
    t = asc.LocalTensor(f32, asc.TPosition.VECCALC, 2 * slot, wp)
    u = asc.LocalTensor(f32, asc.TPosition.VECCALC, 3 * slot, wp)
    o = asc.LocalTensor(f32, asc.TPosition.VECOUT, 4 * slot, wp)
    blocks = (w + 7) // 8
    asc.data_copy(bl, bg, asc.DataCopyParams(1, blocks, 0, 0))
    full = w // 8
    for r in range(nr):
        # whole 32 B blocks only inside the row: the next row may be another core's, which it
        # writes meanwhile (racecheck on GM); the tail through this core's workspace
        if full > 0:
            asc.data_copy(row.reinterpret_cast(asc.int32), yg[r * w:], asc.DataCopyParams(1, full, 0, 0))
        if w > full * 8:
            for i in range(w - full * 8):
                wg.set_value(i, yg.get_value(r * w + full * 8 + i))
            asc.set_flag(asc.HardEvent.S_MTE2, 0)     # the scalar stores before the DMA reads ws
            asc.wait_flag(asc.HardEvent.S_MTE2, 0)
            asc.data_copy(row.reinterpret_cast(asc.int32)[full * 8:], wg, asc.DataCopyParams(1, 1, 0, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if act == "none":
            asc.add(o, row, bl, w)
        elif act == "relu":
            asc.add(row, row, bl, w)
            asc.relu(o, row, w)
        else:
            asc.add(row, row, bl, w)
            ew._f32_compute(act, o, row, t, u, w)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        cm.store_tail(yg[r * w:], o.reinterpret_cast(asc.int32), w, wg, 8)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.set_flag(asc.HardEvent.MTE3_V, 0)
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)


def linear(a, b, bias, act="none", target=None, cores=None, out=None, out_offset=0, **launch):
    """act(a @ b + bias) as float32 M x N (two launches: cube matmul, then vector bias+act)."""
    if act not in ACTS:
        raise ValueError(f"linear: act must be one of {', '.join(ACTS)}, got {act!r}")
    n = np.shape(b)[1] if np.ndim(b) == 2 else None
    bias = np.ascontiguousarray(bias)
    if bias.dtype != np.float32 or bias.shape != (n,):
        raise ValueError(f"linear: bias must be a ({n},) float32 vector, got {bias.shape} {bias.dtype}")
    if not 1 <= n <= MAX_N:
        raise ValueError(f"linear: N = {n} is not supported (1..{MAX_N})")
    m = np.shape(a)[0]
    if out is None:
        out, out_offset = np.zeros((m, n), np.float32), 0
    mm.matmul(a, b, target=target, cores=cores, out=out, out_offset=out_offset, **launch)
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(m, 1, cores, tgt)
        bias_act_kernel[ncores](out.reshape(-1).view(np.int32), bias, cm.workspace(np.float32, ncores), m, per, out_offset, n, act,
                                **launch)
    return out


def reference(a, b, bias, act, bf16=False):
    z = mm.reference(a, b, bf16) + bias.astype(np.float64)
    if act == "relu":
        return np.maximum(z, 0)
    if act in ("sigmoid", "gelu"):
        with np.errstate(over="ignore"):     # exp(large) = inf gives the right limit 0
            return 1 / (1 + np.exp(-z)) if act == "sigmoid" else \
                z / (1 + np.exp(-1.5957691216057308 * (z + 0.044715 * z ** 3)))
    if act == "tanh":
        return np.tanh(z)
    return z


def run(m=50, n=37, k=70, act="gelu", **kw):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = (rng.standard_normal((k, n)) * 0.1).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    y = linear(a, b, bias, act, cores=3, **kw)
    return a, b, bias, y, bias_act_kernel.last_result


if __name__ == "__main__":
    a, b, bias, y, res = run()
    err = np.abs(y - reference(a, b, bias, "gelu")).max()
    assert err < 1e-4, err
    print(f"linear OK (max abs error {err:.2e}):", res)
