"""kernels/pyasc/conv2d.py (device img2col + the library's cube matmul + a bias kernel) against a
float64 numpy conv (conv2d.reference: einsum over the windows of the zero-padded input), with the
output inside a sentinel-filled array (test_kernel_library._guarded).

Tolerance (err = |device - float64 reference of the same f16 inputs|): img2col copies the f16
bits exactly (padding exact 0), so y = W @ col is the matmul of test_kernel_library2: per K chunk
of BK = matmul._edge(K) the cube sums exactly and rounds to f32 once per chunk, hence
(chunks + 1) * 2^-24 * (|W| @ |col|), and |W| @ |col| is the reference conv of |x| and |w|.  The
bias add rounds once more (2^-24 |y|); like the linear test we allow 1.2 times the sum.
Both profiles: ascend910b (split cores) and teach (coupled cores, whose matmul result goes
L0C -> UB -> GM), one and several cores."""
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import conv2d as cv  # noqa: E402
import matmul as mm  # noqa: E402
from test_kernel_library import _check_guard, _guarded  # noqa: E402

# (N, C, H, W, O, KH, KW, stride, padding): 1x1 kernels, 3x3 with padding 1, stride 2, odd H/W,
# C not a multiple of 16 (and C = 17, 20 > 16), N = 2, non-square kernels, kernel = input.
SHAPES = ((1, 1, 1, 1, 1, 1, 1, 1, 0), (2, 5, 7, 9, 3, 1, 1, 1, 0), (2, 3, 9, 7, 4, 3, 3, 1, 1),
          (1, 17, 6, 5, 8, 3, 3, 2, 1), (2, 20, 11, 13, 6, 3, 3, 2, 0), (1, 3, 5, 5, 2, 5, 5, 1, 2),
          (1, 2, 8, 8, 33, 2, 3, 2, 1), (2, 7, 5, 3, 17, 1, 1, 2, 0), (1, 4, 3, 3, 5, 3, 3, 1, 0))


PROFILES = ("ascend910b", "teach")


def _run(shape, with_bias, cores, rng, target="ascend910b"):
    n, c, h, wd, o, kh, kw, s, p = shape
    x = rng.standard_normal((n, c, h, wd)).astype(np.float16)
    w = rng.standard_normal((o, c, kh, kw)).astype(np.float16)
    bias = rng.standard_normal(o).astype(np.float32) if with_bias else None
    oshape = cv.out_shape(x.shape, w.shape, s, p)
    size = int(np.prod(oshape))
    g, off = _guarded(size, np.float32)
    cv.conv2d(x, w, s, p, bias, target=target, cores=cores, out=g, out_offset=off)
    _check_guard(g, off, size)
    got = g[off:off + size].reshape(oshape).astype(np.float64)
    ref = cv.reference(x, w, s, p, bias)
    mag = cv.reference(np.abs(x.astype(np.float64)), np.abs(w.astype(np.float64)), s, p)
    k = c * kh * kw
    bound = 1.2 * ((-(-k // mm._edge(k)) + 1) * 2.0 ** -24 * mag + 2.0 ** -24 * np.abs(ref)) + 1e-30
    err = np.abs(got - ref)
    assert (err <= bound).all(), f"conv2d {shape} bias={with_bias} {target} cores={cores}: max err {err.max():.3g}"
    return err.max()


@pytest.mark.parametrize("target", PROFILES)
def test_conv2d_shapes(target):
    rng = np.random.default_rng(21)
    for i, shape in enumerate(SHAPES):
        _run(shape, bool(i % 2), (1, 5)[i % 2], rng, target)


@pytest.mark.parametrize("target", PROFILES)
def test_conv2d_sweep(target):
    rng = np.random.default_rng(22)
    for i in range(5):
        n, c, o = int(rng.integers(1, 3)), int(rng.integers(1, 24)), int(rng.integers(1, 20))
        kh, kw = (int(v) for v in rng.integers(1, 4, 2))
        s, p = int(rng.integers(1, 3)), int(rng.integers(0, 2))
        h, wd = int(rng.integers(max(1, kh - 2 * p), 12)), int(rng.integers(max(1, kw - 2 * p), 12))
        _run((n, c, h, wd, o, kh, kw, s, p), bool(i % 2), int(rng.integers(1, 6)), rng, target)


@pytest.mark.parametrize("shape", [(1, 1, 1, 1, 1, 1, 1, 1, 0), (1, 3, 3, 5, 2, 3, 3, 2, 1),
                                   (2, 17, 4, 4, 3, 1, 1, 1, 0)])
@pytest.mark.parametrize("target", PROFILES)
def test_conv2d_sanitize_exact_output(shape, target):
    """An exactly sized output (no guard around it), with bias: the bias kernel's last row
    would read past y with a whole-block DMA (rows of 1, 6 and 16 elements: no full block, a
    partial one, whole blocks); sanitize="all" reports any GM read outside an argument or of a
    byte never written, and the result must still match."""
    n, c, h, wd, o, kh, kw, s, p = shape
    rng = np.random.default_rng(24)
    x = rng.standard_normal((n, c, h, wd)).astype(np.float16)
    w = rng.standard_normal((o, c, kh, kw)).astype(np.float16)
    bias = rng.standard_normal(o).astype(np.float32)
    y = cv.conv2d(x, w, s, p, bias, target=target, cores=2, sanitize="all")
    ref = cv.reference(x, w, s, p, bias)
    assert y.shape == ref.shape
    assert np.abs(y - ref).max() <= 1e-5 * (1 + np.abs(ref).max())


def test_reference_matches_direct_loop():
    """The einsum reference against the textbook six-deep loop (one small case with stride and
    padding), so the reference itself is checked."""
    rng = np.random.default_rng(23)
    x = rng.standard_normal((2, 3, 5, 6))
    w = rng.standard_normal((4, 3, 3, 2))
    s, p = 2, 1
    _, o, oh, ow = cv.out_shape(x.shape, w.shape, s, p)
    ref = np.zeros((2, o, oh, ow))
    for b in range(2):
        for oc in range(o):
            for i in range(oh):
                for j in range(ow):
                    for ci in range(3):
                        for a in range(3):
                            for e in range(2):
                                ih, iw = i * s - p + a, j * s - p + e
                                if 0 <= ih < 5 and 0 <= iw < 6:
                                    ref[b, oc, i, j] += x[b, ci, ih, iw] * w[oc, ci, a, e]
    assert np.allclose(cv.reference(x, w, s, p), ref, rtol=1e-12, atol=1e-12)


def test_conv2d_value_errors():
    x = np.zeros((1, 3, 4, 4), np.float16)
    with pytest.raises(ValueError, match="input channels"):
        cv.conv2d(x, np.zeros((2, 4, 1, 1), np.float16))
    with pytest.raises(ValueError, match="float16"):
        cv.conv2d(x.astype(np.float32), np.zeros((2, 3, 1, 1), np.float16))
    with pytest.raises(ValueError, match="larger than the padded input"):
        cv.conv2d(x, np.zeros((2, 3, 5, 5), np.float16))
    with pytest.raises(ValueError, match="bias"):
        cv.conv2d(x, np.zeros((2, 3, 1, 1), np.float16), bias=np.zeros(3, np.float32))


@pytest.mark.parametrize("target", PROFILES)
def test_img2col_gather_equals_scalar(target):
    """The DMA + vector-gather img2col writes the same column matrix, bit for bit, as the scalar
    element-by-element one (kept for shapes whose padded plane does not fit in UB)."""
    from pyasc.compiler import targets
    import _common as cm

    rng = np.random.default_rng(25)
    for (n, c, h, wd, o, kh, kw, s, p) in SHAPES[:6] + ((1, 2, 9, 17, 1, 3, 2, 3, 2),):
        x = rng.standard_normal((n, c, h, wd)).astype(np.float16)
        _, _, oh, ow = cv.out_shape(x.shape, (o, c, kh, kw), s, p)
        npix, k = oh * ow, c * kh * kw
        cols = []
        with cm.on_target(target) as tgt:
            wq, npl, tab, pq, ncol = cv._gather_plan(h, wd, kh, kw, oh, ow, s, p, targets.load(tgt)["ub_bytes"])
            col = np.full(n * k * npix, 0x7E00, np.int16)         # NaN bits: every element must be written
            nc_, per = cm.core_split(n * c, 1, 3, tgt)
            cv.img2col_gather_kernel[nc_](x.reshape(-1), col.view(np.float16), tab, n * c, per, h, wd, kh, kw,
                                          npix, p, wq, npl, tab.size, pq, ncol)
            cols.append(col)
            col = np.full(n * k * npix, 0x7E00, np.int16)
            nc_, per = cm.core_split(n * k, 1, 3, tgt)
            cv.img2col_kernel[nc_](x.reshape(-1).view(np.int16), col, n * k, per, c, h, wd, kh, kw, oh, ow, s, p)
            cols.append(col)
        assert not (cols[0] == 0x7E00).any(), "an element of col was not written"
        assert np.array_equal(cols[0], cols[1]), (n, c, h, wd, kh, kw, s, p)
