"""kernels/pyasc/matmul_batch.py (asc.adv.Matmul.iterate_batch over several AI cores) and
kernels/pyasc/softmax_adv.py (asc.adv.softmax with SoftmaxTiling and SoftMaxShapeInfo) against
numpy: batch counts and row counts that do not split evenly over the cores, matrices and rows of
lengths that are not multiples of 16 or of 32 bytes, 1-element cases, float16 and float32, race
checks on; the bytes around each output stay as they were."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))

import matmul_batch  # noqa: E402
import softmax_adv  # noqa: E402

pytestmark = pytest.mark.libasc


@pytest.mark.parametrize("g,m,n,k,cores", [(1, 1, 1, 1, 1), (7, 37, 45, 29, 3), (5, 33, 47, 65, 2),
                                           (6, 100, 72, 40, 4), (3, 128, 128, 128, 8), (4, 17, 9, 300, 4)])
def test_matmul_batch(g, m, n, k, cores):
    a, b, c, res = matmul_batch.run(g, m, n, k, cores, seed=g + m, check_races=True)
    ref = matmul_batch.reference(a, b)
    # f32 accumulation of exact f16 products: K * 2^-24 * sum |a||b| bounds the error
    bound = k * 2.0 ** -24 * np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))) + 1e-30
    assert (np.abs(c - ref) <= bound).all()
    assert res.cycles > 0


def test_matmul_batch_split():
    assert matmul_batch.split(7, 3) == (3, 3, 1)
    assert matmul_batch.split(6, 4) == (3, 2, 2)
    assert matmul_batch.split(2, 8) == (2, 1, 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("rows,cols,cores", [(1, 1, 1), (5, 77, 3), (37, 1000, 4), (2, 33, 4), (130, 9, 8),
                                             (3, 4096, 2), (9, 8000, 2)])
def test_softmax_adv(dtype, rows, cols, cores):
    x, y, res = softmax_adv.run(rows, cols, cores, dtype=dtype, seed=rows * cols, check_races=True)
    ref = softmax_adv.reference(x)
    tol = 1e-6 if dtype == np.float32 else 2.0 ** -10
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=4 * tol, atol=tol / 4)
    np.testing.assert_allclose(y.astype(np.float64).sum(axis=1), 1.0, rtol=cols * tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_softmax_adv_keeps_neighbours(dtype):
    """Rows of 13 elements (26 or 52 bytes): the output lies inside a larger array whose other
    elements must not change."""
    rows, cols, cores = 11, 13, 3
    rng = np.random.default_rng(3)
    x = rng.standard_normal((rows, cols)).astype(dtype)
    big = np.full(rows * cols + 40, 7.0, dtype)
    y = big[8:8 + rows * cols]
    per = -(-rows // cores)
    used = -(-rows // per)
    softmax_adv.softmax_adv_kernel[used](x, y, rows, per, cols, softmax_adv.tile_rows(cols, dtype),
                                         check_races=True)
    assert (big[:8] == dtype(7.0)).all() and (big[8 + rows * cols:] == dtype(7.0)).all()
    tol = 1e-6 if dtype == np.float32 else 2.0 ** -10
    np.testing.assert_allclose(y.reshape(rows, cols).astype(np.float64), softmax_adv.reference(x),
                               rtol=4 * tol, atol=tol / 4)
