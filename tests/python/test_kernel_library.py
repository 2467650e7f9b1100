"""The kernel library of kernels/pyasc/ against numpy: explicit tail shapes and a fixed-seed
random shape sweep, float16 and float32, profiles ascend910b and teach, one and several cores.

Every result is written into a larger array filled with a sentinel at an odd element offset,
and the test checks that no sentinel moved: a kernel must not write one byte past its output.

Tolerances (err = |device - float64 reference of the same inputs|):
* vadd, vmul, relu, axpy: exact against numpy in the same dtype (each vector instruction is
  correctly rounded, docs/semantics.md §2.4; axpy is muls then add, both rounded, and numpy's
  float16 arithmetic rounds the same way).
* sigmoid, tanh, gelu, softmax in float32: the ops are correctly rounded except exp (within 1 ulp,
  §2.4); the largest term is exp's argument rounding, |arg| * 2^-24 relative, so
  sigmoid 8 ulp (|x| <= ~15: exp(-x) of an exact argument), gelu rtol 2e-5 (arg up to ~90 for
  |x| <= 10), tanh atol 4e-7 (cancellation in e - 1 near 0; arg 2x <= 18), softmax rtol 4e-6
  (|x - max| <= ~30 plus a log2(W)-deep sum tree).
* float16 results of the float32-computed ops: one f16 ulp, rtol 2^-10, atol 2^-24 (the
  smallest subnormal), covering the final RNE rounding of a float32 value that is itself
  within the float32 bound above.
"""
import importlib.util
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))

import asc  # noqa: E402
import elementwise as ew  # noqa: E402
import norm as nm  # noqa: E402
import softmax as sm  # noqa: E402

PROFILES = ("ascend910b", "teach")
F16_RTOL, F16_ATOL = 2.0 ** -10, 2.0 ** -24
SENT = 7.0


def _guarded(n, dtype, off=5):
    return np.full(n + off + 37, SENT, dtype), off


def _check_guard(g, off, n):
    assert np.all(g[:off] == SENT), "kernel wrote before its output"
    assert np.all(g[off + n:] == SENT), "kernel wrote past the end of its output"


def _close(got, ref, rtol, atol, what):
    err = np.abs(got.astype(np.float64) - ref)
    bad = err > atol + rtol * np.abs(ref)
    assert not bad.any(), (f"{what}: {bad.sum()} mismatches, first at {np.argwhere(bad)[0]}: "
                           f"got {got.flat[np.argmax(bad)]}, ref {ref.flat[np.argmax(bad)]}, max err {err.max():.3g}")
    return err.max()


UNARY_REF = {
    "relu": lambda a: np.maximum(a, 0),
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
    "tanh": np.tanh,
    "gelu": lambda a: a / (1 + np.exp(-1.5957691216057308 * (a + 0.044715 * a ** 3))),
}
F32_TOL = {"sigmoid": (8 * 2.0 ** -24, 0), "tanh": (8 * 2.0 ** -24, 4e-7), "gelu": (2e-5, 1e-30)}


def _run_ew(op, n, dtype, target, cores, rng):
    a = (rng.standard_normal(n) * 3).astype(dtype)
    b = (rng.standard_normal(n) * 3).astype(dtype)
    g, off = _guarded(n, dtype)
    if op in ("vadd", "vmul"):
        getattr(ew, op)(a, b, target=target, cores=cores, out=g, out_offset=off)
        ref = a + b if op == "vadd" else a * b
    elif op == "axpy":
        ew.axpy(-1.25, a, b, target=target, cores=cores, out=g, out_offset=off)
        ref = (a * dtype(-1.25)).astype(dtype) + b
    else:
        getattr(ew, op)(a, target=target, cores=cores, out=g, out_offset=off)
        ref = UNARY_REF[op](a.astype(np.float64))
    got = g[off:off + n]
    _check_guard(g, off, n)
    if op in ("vadd", "vmul", "axpy", "relu"):
        assert np.array_equal(got, ref.astype(dtype)), f"{op} {n} {dtype.__name__} {target}"
        return 0.0
    rtol, atol = F32_TOL[op] if dtype == np.float32 else (F16_RTOL, F16_ATOL)
    return _close(got, ref, rtol, atol, f"{op} n={n} {dtype.__name__} {target} cores={cores}")


# sizes that divide neither the 2048-element tile, the 32 B block nor the core count
TAILS = (1, 2, 7, 8, 9, 15, 17, 33, 63, 65, 129, 1000, 2047, 2049, 4099)
EW_OPS = ("vadd", "vmul", "axpy", "relu", "sigmoid", "tanh", "gelu")


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_vadd_tails(target, dtype):
    rng = np.random.default_rng(1)
    for n in TAILS:
        for cores in (1, 3):
            _run_ew("vadd", n, dtype, target, cores, rng)


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("op", EW_OPS)
def test_elementwise_sweep(op, target):
    """Fixed-seed random lengths (plus a few tails), both dtypes, one and several cores."""
    rng = np.random.default_rng(2)
    sizes = [1, 13, 2049] + [int(v) for v in rng.integers(1, 6000, 4)]
    for dtype in (np.float32, np.float16):
        for i, n in enumerate(sizes):
            _run_ew(op, n, dtype, target, 1 if i % 2 else 4, rng)


def _run_softmax(rows, w, dtype, target, cores, rng):
    x = (rng.standard_normal((rows, w)) * 3).astype(dtype)
    g, off = _guarded(rows * w, dtype)
    sm.softmax(x, target=target, cores=cores, out=g, out_offset=off)
    _check_guard(g, off, rows * w)
    got = g[off:off + rows * w].reshape(rows, w)
    rtol, atol = (4e-6, 1e-30) if dtype == np.float32 else (F16_RTOL, F16_ATOL)
    return _close(got, sm.reference(x), rtol, atol, f"softmax {rows}x{w} {dtype.__name__} {target}")


SOFTMAX_SHAPES = ((8, 1000), (2, 512), (5, 1), (3, 13), (7, 65), (4, 129), (3, 3001), (1, 8), (6, 7))


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_softmax_shapes(target, dtype):
    rng = np.random.default_rng(3)
    for i, (rows, w) in enumerate(SOFTMAX_SHAPES):
        _run_softmax(rows, w, dtype, target, 1 if i % 2 else 3, rng)


@pytest.mark.parametrize("target", PROFILES)
def test_softmax_sweep(target):
    rng = np.random.default_rng(4)
    for i in range(6):
        rows, w = int(rng.integers(1, 9)), int(rng.integers(1, 2500))
        _run_softmax(rows, w, np.float32 if i % 2 else np.float16, target, int(rng.integers(1, 5)), rng)


def test_softmax_rows_1000_teaching_kernel():
    """The teaching kernel with N = 1000 (the issue's max error 515): now within 1e-5."""
    sm.N = 1000
    try:
        sm.softmax_rows._mem.clear()
        x, y, _ = sm.run(rows=4, cores=4)
    finally:
        sm.N = 1024
        sm.softmax_rows._mem.clear()
    assert np.abs(y - sm.reference(x)).max() < 1e-5


def test_unsupported_is_value_error():
    with pytest.raises(ValueError, match="dtype"):
        ew.vadd(np.zeros(4, np.int32), np.zeros(4, np.int32))
    with pytest.raises(ValueError, match="same shape"):
        ew.vadd(np.zeros(4, np.float32), np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="rows of"):
        sm.softmax(np.zeros((2, sm.MAX_W + 1), np.float32))
    with pytest.raises(ValueError, match="target"):
        ew.relu(np.zeros(4, np.float32), target="nosuch")


def test_data_copy_len0_is_noop():
    # A static DataCopyParams with block_len 0 is an ISA no-op (docs/semantics.md §4); it used to be
    # emitted without its config operand, and the assembler rejected the generated code.
    import asc.runtime.config as config

    config.set_platform(config.Backend.Model)
    x = np.ones(8, np.float32)
    z = np.zeros(8, np.float32)
    _len0_kernel[1](x, z)
    np.testing.assert_array_equal(z, np.full(8, 5.0, np.float32))


@asc.jit(insert_sync=True)     # the tensors are placed by hand: the compiler orders the pipes
def _len0_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    asc.duplicate(t, 5.0, 8)
    asc.data_copy(t, xg, asc.DataCopyParams(1, 0, 0, 0))
    asc.data_copy(zg, t, 8)


# ---- layernorm / rmsnorm ---------------------------------------------------------------------
# Bound per element, s = |gamma * xhat| + |gamma| + |beta| (layernorm; rmsnorm s = |ref|):
# an error d in the mean moves every output by |gamma| d / std, hence the |gamma| term;
# float32 1e-5 * s (mean and sum of squares are f32 trees of depth log2(W) <= 12, rsqrt 1 ulp,
# then the centring x - mean loses up to |mean|/std digits: inputs here have mean 1, std 3);
# float16 adds one f16 ulp of the result (2^-10 |ref| + 2^-24) for the final rounding.
NORM_SHAPES = ((8, 1000), (5, 1), (3, 13), (7, 65), (2, 3000), (4, 8), (3, 129))


def _run_norm(kind, rows, w, dtype, target, cores, rng):
    x = (rng.standard_normal((rows, w)) * 3 + 1).astype(dtype)
    ga = rng.standard_normal(w).astype(dtype)
    be = rng.standard_normal(w).astype(dtype)
    g, off = _guarded(rows * w, dtype)
    if kind == "layer":
        nm.layernorm(x, ga, be, target=target, cores=cores, out=g, out_offset=off)
        ref = nm.reference_layernorm(x, ga, be)
        s = np.abs(ref - be.astype(np.float64)) + np.abs(ga.astype(np.float64)) + np.abs(be.astype(np.float64))
    else:
        nm.rmsnorm(x, ga, target=target, cores=cores, out=g, out_offset=off)
        ref = nm.reference_rmsnorm(x, ga)
        s = np.abs(ref)
    _check_guard(g, off, rows * w)
    got = g[off:off + rows * w].reshape(rows, w).astype(np.float64)
    err = np.abs(got - ref)
    bound = 1e-5 * s + (0 if dtype == np.float32 else F16_RTOL * np.abs(ref) + F16_ATOL)
    assert (err <= bound).all(), f"{kind}norm {rows}x{w} {dtype.__name__} {target}: max err {err.max():.3g}"
    return err.max()


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("kind", ["layer", "rms"])
def test_norm_shapes(kind, target):
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float16):
        for i, (rows, w) in enumerate(NORM_SHAPES):
            _run_norm(kind, rows, w, dtype, target, 1 if i % 2 else 3, rng)
        for i in range(3):      # fixed-seed sweep
            _run_norm(kind, int(rng.integers(1, 7)), int(rng.integers(1, 2000)), dtype, target,
                      int(rng.integers(1, 5)), rng)


def test_norm_value_errors():
    x = np.zeros((2, 8), np.float32)
    with pytest.raises(ValueError, match="gamma"):
        nm.rmsnorm(x, np.zeros(7, np.float32))
    with pytest.raises(ValueError, match="rows of"):
        nm.layernorm(np.zeros((1, nm.MAX_W + 1), np.float32), np.zeros(nm.MAX_W + 1, np.float32),
                     np.zeros(nm.MAX_W + 1, np.float32))
