"""The kernel library's cast, vdiv/erf (elementwise_ext) and batch_norm kernels on both profiles
(ascend910b and the coupled teach), one and several cores, over lengths with tails (1 element,
less than a 32-byte block, not a multiple of the tile or of the cores), in float16 and float32,
against numpy: the other modules' tests are test_kernel_library.py / test_kernel_library2.py.

Tolerances: cast is bit-exact (RNE, numpy's astype); vdiv float32 is bit-exact (vdiv is
correctly rounded, as numpy's division), float16 within one f16 ulp of the float64 quotient's
float16 rounding; erf float32 within 5e-7 (docs/pyasc.md: 4.2e-7 measured), float16 within
1e-3; batch_norm float32 within 1e-5 * (1 + |ref|) (a few float32 roundings), float16 output
within one f16 ulp (2^-10 |ref|) plus the float32 error."""
import math
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))

import batchnorm as bn  # noqa: E402
import cast as ck  # noqa: E402
import elementwise_ext as ext  # noqa: E402

PROFILES = ("ascend910b", "teach")
SIZES = [(1, 1), (7, None), (4097, 2), (20011, None)]


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("n,cores", SIZES)
def test_cast_both_ways(target, n, cores):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 3000).astype(np.float32)
    z = ck.cast(x, np.float16, target=target, cores=cores)
    with np.errstate(over="ignore"):
        assert np.array_equal(z.view(np.uint16), x.astype(np.float16).view(np.uint16))
    w = ck.cast(z, np.float32, target=target, cores=cores)
    assert np.array_equal(w, z.astype(np.float32))


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n,cores", SIZES)
def test_vdiv_and_erf(target, dtype, n, cores):
    rng = np.random.default_rng(n + 1)
    a = (rng.standard_normal(n) * 2).astype(dtype)
    b = rng.uniform(0.5, 2, n).astype(dtype)
    q = ext.vdiv(a, b, target=target, cores=cores)
    e = ext.erf(a, target=target, cores=cores)
    assert q.dtype == dtype and e.dtype == dtype
    ref_e = np.array([math.erf(v) for v in a.astype(np.float64)])
    if dtype == np.float32:
        assert np.array_equal(q, a / b)
        assert np.abs(e - ref_e).max() < 5e-7
    else:
        exact = (a.astype(np.float64) / b.astype(np.float64)).astype(np.float16).astype(np.float64)
        assert (np.abs(q.astype(np.float64) - exact) <= np.abs(exact) * 2.0 ** -10 + 2.0 ** -24).all()
        assert np.abs(e.astype(np.float64) - ref_e).max() < 1e-3


@pytest.mark.parametrize("target", PROFILES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape,cores", [((1, 1), 1), ((2, 5, 7, 9), None), ((3, 17, 1001), 2), ((1, 70, 3), None)])
def test_batch_norm(target, dtype, shape, cores):
    rng = np.random.default_rng(sum(shape))
    c = shape[1]
    x = rng.standard_normal(shape).astype(dtype)
    m, g, b = (rng.standard_normal(c).astype(np.float32) for _ in range(3))
    v = rng.uniform(0.5, 2, c).astype(np.float32)
    y = bn.batch_norm(x, m, v, g, b, target=target, cores=cores)
    ref = bn.reference(x, m, v, g, b)
    assert y.dtype == dtype and y.shape == x.shape
    tol = 1e-5 * (1 + np.abs(ref))
    if dtype == np.float16:
        tol = tol + np.abs(ref) * 2.0 ** -10 + 2.0 ** -24
    assert (np.abs(y.astype(np.float64) - ref) <= tol).all()
