"""add_relu_cast / sub_relu_cast / mul_cast against numpy (Ascend C AddReluCast, SubReluCast, MulCast:
cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h and
kernel_operator_vec_mulcast_impl.h; the lowering: pyasc/language/fused_cast.py).  The reference is
the op in the source type, then Ascend C's CAST_NONE conversion: round to nearest even, saturate."""
import numpy as np
import pytest

import asc
from kernels_fused_cast import k_cast_op, k_cast_op_l0

PAIRS = {0: [(np.float16, np.int8), (np.float32, np.float16), (np.int16, np.int8)],
         1: [(np.float16, np.int8), (np.float32, np.float16), (np.int16, np.int8)],
         2: [(np.float16, np.int8), (np.float16, np.uint8)]}
CASES = [(op, s, d) for op, ps in PAIRS.items() for s, d in ps]


def _inputs(n, s, seed):
    rng = np.random.default_rng(seed)
    if s is np.int16:
        x = rng.integers(-300, 300, n).astype(s)
        y = rng.integers(-300, 300, n).astype(s)
    else:
        # halves (ties of the rounding), values past the int8 range (saturation), negatives (relu)
        x = (rng.integers(-400, 400, n) / 2).astype(s)
        y = (rng.standard_normal(n) * 30).astype(s)
    return x, y


def _ref(op, x, y, d):
    r = (x + y if op == 0 else x - y if op == 1 else x * y).astype(x.dtype)   # the op, in the source type
    if op < 2:
        r = np.maximum(r, 0).astype(x.dtype)
    if np.issubdtype(d, np.integer):
        lo, hi = np.iinfo(d).min, np.iinfo(d).max
        return np.clip(np.rint(r.astype(np.float64)), lo, hi).astype(d)
    return r.astype(d)      # f32 -> f16: numpy rounds to nearest even, overflow to inf as vconv


@pytest.mark.parametrize("op,s,d", CASES)
@pytest.mark.parametrize("n", [1, 37, 129, 1001])
def test_count_form(op, s, d, n):
    x, y = _inputs(n, s, n * 10 + op)
    z = np.zeros(n, d)
    k_cast_op[1](x, y, z, n, op, 1024)
    np.testing.assert_array_equal(z, _ref(op, x, y, d))


@pytest.mark.parametrize("op,s,d", CASES)
@pytest.mark.parametrize("mask,rep", [(None, 3), (37, 2)])
def test_level0_form(op, s, d, mask, rep):
    lanes = 256 // np.dtype(s).itemsize
    mask = lanes if mask is None else mask
    n = lanes * rep
    x, y = _inputs(n, s, rep + op)
    z = np.full(n, 7, d)
    k_cast_op_l0[1](x, y, z, op, mask, rep)
    want = np.full(n, 7, d)
    for r in range(rep):
        sl = slice(r * lanes, r * lanes + mask)
        want[sl] = _ref(op, x[sl], y[sl], d)
    np.testing.assert_array_equal(z, want)


@asc.jit
def k_bad_pair(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    d = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 1024, 64)
    asc.mul_cast(d, a, a, 64)


def test_bad_pair():
    with pytest.raises(asc.CompileError, match="mul_cast from float32 to int8 is not supported"):
        k_bad_pair[1](np.zeros(64, np.float32))
