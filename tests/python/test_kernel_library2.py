"""The second part of the kernel library against numpy (reduce, transpose, matmul, ...), with
the sentinel guards and tolerances of test_kernel_library.py.

Tolerances (err = |device - float64 reference of the same inputs|):
* reduce max: exact (float16 widens exactly, max rounds nothing).
* reduce sum, float32: the sum is a float32 tree of depth ceil(log2(tile)) per chunk, then one
  serial float32 add per further chunk (and, for reduce_all, a tree over the per-core partials);
  each level rounds by at most 2^-24 of a partial sum bounded by sum|x|, hence
  (levels + 2) * 2^-24 * sum|x|.  float16 out adds one RNE rounding (2^-11 |ref|; we allow one
  f16 ulp, 2^-10 |ref| + 2^-24).
"""
import math
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as cm  # noqa: E402
import reduce as rd  # noqa: E402
from test_kernel_library import F16_ATOL, F16_RTOL, PROFILES, _check_guard, _guarded  # noqa: E402


def test_max_cores_from_profile():
    """The core counts come from the profile through libasc (pyasc.compiler.targets)."""
    from pyasc.compiler import targets

    for name in targets.names():
        t = targets.load(name)
        assert cm.max_cores(name, "aic") == t["ai_cores"]
        assert cm.max_cores(name) == t["ai_cores"] * (t["aiv_per_core"] if t["split"] else 1)
    assert (cm.max_cores("ascend910b"), cm.max_cores("ascend910b", "aic"), cm.max_cores("teach")) == (48, 24, 2)


def _sum_bound(x, ref, length, tile, extra_levels=0):
    levels = math.ceil(math.log2(max(tile, 2))) + -(-length // tile) + 2 + extra_levels
    return levels * 2.0 ** -24 * np.abs(x.astype(np.float64)).sum(axis=-1) + 1e-30


def _run_rows(op, rows, w, dtype, target, cores, rng):
    x = (rng.standard_normal((rows, w)) * 3 + 0.5).astype(dtype)
    g, off = _guarded(rows, dtype)
    rd.reduce_rows(x, op, target=target, cores=cores, out=g, out_offset=off)
    _check_guard(g, off, rows)
    got = g[off:off + rows].astype(np.float64)
    ref = rd.reference(x, op, axis=1)
    what = f"reduce_rows {op} {rows}x{w} {np.dtype(dtype).name} {target} cores={cores}"
    if op == "max":
        assert np.array_equal(got, ref), what
        return 0.0
    bound = _sum_bound(x, ref, w, rd._tile(w))
    if dtype == np.float16:
        bound = bound + F16_RTOL * np.abs(ref) + F16_ATOL
    err = np.abs(got - ref)
    assert (err <= bound).all(), f"{what}: max err {err.max():.3g}"
    return err.max()


REDUCE_ROWS = ((8, 1000), (5, 1), (3, 13), (7, 65), (2, 4097), (4, 8), (1, 9000), (9, 3))


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("op", rd.OPS)
def test_reduce_rows(op, target):
    rng = np.random.default_rng(11)
    for dtype in (np.float32, np.float16):
        for i, (rows, w) in enumerate(REDUCE_ROWS):
            _run_rows(op, rows, w, dtype, target, 1 if i % 2 else 3, rng)


@pytest.mark.parametrize("target", PROFILES)
def test_reduce_rows_sweep(target):
    """Fixed-seed random row counts and lengths, both ops and dtypes, one and several cores."""
    rng = np.random.default_rng(12)
    for i in range(6):
        rows, w = int(rng.integers(1, 12)), int(rng.integers(1, 6000))
        _run_rows(rd.OPS[i % 2], rows, w, (np.float32, np.float16)[(i // 2) % 2], target,
                  int(rng.integers(1, 6)), rng)


def _run_all(op, n, dtype, target, cores, rng):
    x = (rng.standard_normal(n) * 3 + 0.5).astype(dtype)
    got = float(rd.reduce_all(x, op, target=target, cores=cores))
    ref = float(rd.reference(x, op))
    what = f"reduce_all {op} n={n} {np.dtype(dtype).name} {target} cores={cores}"
    if op == "max":
        assert got == ref, what
        return 0.0
    nc, per = cm.core_split(n, cm.epb(dtype), cores, target)
    bound = float(_sum_bound(x, ref, per, rd._tile(per), extra_levels=math.ceil(math.log2(max(nc, 2)))))
    if dtype == np.float16:
        bound += F16_RTOL * abs(ref) + F16_ATOL
    assert abs(got - ref) <= bound, f"{what}: err {abs(got - ref):.3g} > {bound:.3g}"
    return abs(got - ref)


@pytest.mark.parametrize("target", PROFILES)
def test_reduce_all(target):
    rng = np.random.default_rng(12)
    sizes = [1, 7, 33, 1000, 4099, 20001] + [int(v) for v in rng.integers(1, 30000, 3)]
    for op in rd.OPS:
        for dtype in (np.float32, np.float16):
            for i, n in enumerate(sizes):
                _run_all(op, n, dtype, target, (1, 5, None)[i % 3], rng)


def test_reduce_special_values():
    x = np.array([[-np.inf, -np.inf, -np.inf], [1.0, np.inf, 2.0]], np.float32)
    assert np.array_equal(rd.reduce_rows(x, "max", target="teach"), [-np.inf, np.inf])
    with pytest.raises(ValueError, match="op must be"):
        rd.reduce_rows(x, "min")
    with pytest.raises(ValueError, match="dtype"):
        rd.reduce_all(np.zeros(3, np.int32))


# ---- transpose: exact (moves bits) ------------------------------------------------------------
import transpose as tp  # noqa: E402

TRANSPOSE_SHAPES = ((1, 1), (1, 17), (17, 1), (37, 70), (64, 64), (65, 130), (3, 200), (200, 3), (16, 9))


def _run_transpose(r, c, dtype, target, cores, rng):
    x = (rng.standard_normal((r, c)) * 3).astype(dtype)
    g, off = _guarded(r * c, dtype)
    tp.transpose(x, target=target, cores=cores, out=g, out_offset=off)
    _check_guard(g, off, r * c)
    assert np.array_equal(g[off:off + r * c].reshape(c, r), x.T), f"transpose {r}x{c} {dtype} {target}"


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_transpose_shapes(dtype, target):
    rng = np.random.default_rng(13)
    for i, (r, c) in enumerate(TRANSPOSE_SHAPES):
        _run_transpose(r, c, dtype, target, 1 if i % 2 else 4, rng)
    for i in range(3):        # fixed-seed sweep
        _run_transpose(int(rng.integers(1, 150)), int(rng.integers(1, 150)), dtype, target, int(rng.integers(1, 6)), rng)


# ---- matmul (cube) -----------------------------------------------------------------------------
# The cube sums each output's K-chunk exactly (f64, docs/semantics.md §5.2) and rounds to f32 once
# per chunk of BK = min(128, K rounded up to 16) (the accumulation re-reads the f32 value), so
# err <= (chunks + 1) * 2^-24 * (|A| @ |B|).  relu is applied in the fixpipe (exact).
import matmul as mm  # noqa: E402

MATMUL_SHAPES = ((1, 1, 1), (1, 17, 1), (17, 1, 33), (100, 70, 45), (128, 128, 128), (129, 130, 257),
                 (33, 200, 7), (5, 31, 300), (16, 16, 16))


def _mm_inputs(m, n, k, bf16, rng):
    a = rng.standard_normal((m, k))
    b = rng.standard_normal((k, n))
    if bf16:
        return mm.to_bf16(a.astype(np.float32)), mm.to_bf16(b.astype(np.float32))
    return a.astype(np.float16), b.astype(np.float16)


def _run_matmul(m, n, k, bf16, target, cores, rng, relu=False):
    a, b = _mm_inputs(m, n, k, bf16, rng)
    g, off = _guarded(m * n, np.float32)
    mm.matmul(a, b, target=target, cores=cores, relu=relu, out=g, out_offset=off)
    _check_guard(g, off, m * n)
    got = g[off:off + m * n].reshape(m, n).astype(np.float64)
    ref = mm.reference(a, b, bf16)
    fa = mm.from_bf16(a) if bf16 else a
    fb = mm.from_bf16(b) if bf16 else b
    mag = np.abs(fa.astype(np.float64)) @ np.abs(fb.astype(np.float64))
    if relu:
        ref = np.maximum(ref, 0)
    bound = (-(-k // mm._edge(k)) + 1) * 2.0 ** -24 * mag + 1e-30
    err = np.abs(got - ref)
    assert (err <= bound).all(), f"matmul {m}x{n}x{k} bf16={bf16} {target} cores={cores}: max err {err.max():.3g}"
    return err.max()


CUBE_PROFILES = PROFILES    # split: fixpipe to GM; coupled (teach): L0C -> UB -> data_copy_pad to GM


@pytest.mark.parametrize("target", CUBE_PROFILES)
@pytest.mark.parametrize("bf16", [False, True])
def test_matmul_shapes(bf16, target):
    rng = np.random.default_rng(14)
    for i, (m, n, k) in enumerate(MATMUL_SHAPES):
        _run_matmul(m, n, k, bf16, target, 1 if i % 2 else 5, rng)


@pytest.mark.parametrize("target", CUBE_PROFILES)
def test_matmul_sweep(target):
    rng = np.random.default_rng(15)
    for i in range(4):
        m, n, k = (int(v) for v in rng.integers(1, 200, 3))
        _run_matmul(m, n, k, bool(i % 2), target, int(rng.integers(1, 6)), rng, relu=(i == 2))


def test_matmul_value_errors():
    with pytest.raises(ValueError, match="inner dimensions"):
        mm.matmul(np.zeros((2, 3), np.float16), np.zeros((4, 2), np.float16))
    with pytest.raises(ValueError, match="float16"):
        mm.matmul(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))


def test_fixpipe_on_coupled_is_error_at_its_line():
    # asc.fixpipe on a coupled profile (teach) used to emit fix_l0c_to_out and end in an internal
    # compiler error when the assembler rejected it; libasc's legality rule is now checked when
    # the instruction is traced, for the core kinds the profile has.
    with cm.on_target("teach"), pytest.raises(asc.CompileError) as e:
        _fix_kernel[1](np.zeros(256, np.float32))
    msg = str(e.value)
    assert "internal compiler error" not in msg
    assert "not available on coupled cores" in msg and "fix_l0c_to_out" in msg
    assert "asc.fixpipe(cg, c1" in msg       # the error points at the fixpipe line


def test_fixpipe_to_ub_on_split_is_error_at_its_line():
    # the L0C -> UB readout (mov_l0c_to_ub) exists on coupled cores only
    with cm.on_target("ascend910b"), pytest.raises(asc.CompileError) as e:
        _fix_ub_kernel[1](np.zeros(256, np.float32))
    msg = str(e.value)
    assert "split cores" in msg and "asc.fixpipe(u, c1" in msg


def test_matmul_coupled_ascend910():
    """The other coupled profile (ascend910) takes the L0C -> UB path too."""
    _run_matmul(70, 45, 130, False, "ascend910", 3, np.random.default_rng(16), relu=True)


import asc  # noqa: E402


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def _fix_kernel(c: asc.GlobalAddress):
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(16, 16, 0, 16))


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def _fix_ub_kernel(c: asc.GlobalAddress):
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 256)
    asc.fixpipe(u, c1, asc.FixpipeParamsV220(16, 16, 0, 16))


# ---- linear: act(A x B + bias), cube launch then vector launch ----------------------------------
# err <= 1.2 * (matmul bound + 2^-24 |z|) (the bias add rounds once; every activation here has
# |act'| <= 1.13) + the activation's own float32 bound of test_kernel_library.F32_TOL.
import linear as ln  # noqa: E402
from test_kernel_library import F32_TOL  # noqa: E402

LINEAR_SHAPES = ((1, 1, 1), (50, 37, 70), (7, 130, 19), (33, 8, 200))


def _linear_sweep_shapes():
    rng = np.random.default_rng(17)
    return [tuple(int(v) for v in rng.integers(1, 150, 3)) for _ in range(3)]


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("act", ln.ACTS)
def test_linear(act, target):
    """The tail shapes, then a fixed-seed random shape sweep."""
    rng = np.random.default_rng(16)
    for i, (m, n, k) in enumerate(LINEAR_SHAPES + tuple(_linear_sweep_shapes())):
        bf16 = bool(i % 2)
        a, b = _mm_inputs(m, n, k, bf16, rng)
        bias = rng.standard_normal(n).astype(np.float32)
        g, off = _guarded(m * n, np.float32)
        ln.linear(a, b, bias, act, target=target, cores=(1, 4)[i % 2], out=g, out_offset=off)
        _check_guard(g, off, m * n)
        got = g[off:off + m * n].reshape(m, n).astype(np.float64)
        ref = ln.reference(a, b, bias, act, bf16)
        z = ln.reference(a, b, bias, "none", bf16)
        fa, fb = (mm.from_bf16(a), mm.from_bf16(b)) if bf16 else (a, b)
        mag = np.abs(fa.astype(np.float64)) @ np.abs(fb.astype(np.float64))
        bound = 1.2 * ((-(-k // mm._edge(k)) + 1) * 2.0 ** -24 * mag + 2.0 ** -24 * np.abs(z))
        rtol, atol = F32_TOL.get(act, (0, 0))
        bound = bound + rtol * np.abs(ref) + atol + 1e-30
        err = np.abs(got - ref)
        assert (err <= bound).all(), f"linear {act} {m}x{n}x{k} bf16={bf16}: max err {err.max():.3g}"
