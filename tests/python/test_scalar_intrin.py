"""Scalar-unit intrinsics (clz, bcnt, sflbits, sff, scalar_cast, get_program_counter) against a
Python reference, on run-time values (ISA rows clz/popc/cls/sff1/cvt.f32.s32) and folded constants."""
import math

import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

M64 = (1 << 64) - 1


def ref(v):
    u = v & M64
    clz = 64 - u.bit_length()
    ones = bin(u).count("1")
    sff1 = (u & -u).bit_length() - 1 if u else -1
    nu = ~u & M64
    sff0 = (nu & -nu).bit_length() - 1 if nu else -1
    s = -1 if u >> 63 else 0
    cls = 0
    for i in range(62, -1, -1):
        if ((u >> i) & 1) != (u >> 63):
            break
        cls += 1
    del s
    return [clz, ones, 64 - ones, sff1, sff0, cls]


@asc.jit
def k_bits(z: asc.GlobalAddress, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, asc.scalar_count_leading_zero(v))
    zg.set_value(1, asc.scalar_get_count_of_value(v, 1))
    zg.set_value(2, asc.scalar_get_count_of_value(v, 0))
    zg.set_value(3, asc.scalar_get_sff_value(v, 1))
    zg.set_value(4, asc.scalar_get_sff_value(v, 0))
    zg.set_value(5, asc.count_bits_cnt_same_as_sign_bit(v))


@asc.jit
def k_bits_const(z: asc.GlobalAddress, v: asc.ConstExpr[int]):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, asc.scalar_count_leading_zero(v))
    zg.set_value(1, asc.scalar_get_count_of_value(v, 1))
    zg.set_value(2, asc.scalar_get_count_of_value(v, 0))
    zg.set_value(3, asc.scalar_get_sff_value(v, 1))
    zg.set_value(4, asc.scalar_get_sff_value(v, 0))
    zg.set_value(5, asc.count_bits_cnt_same_as_sign_bit(v))


VALUES = [0, 1, -1, 2, 0x80, 0x0F00000000000000, -(1 << 63), (1 << 63) - 1, -12345678, 0x123456789ABCDEF0]


@pytest.mark.parametrize("v", VALUES)
def test_bit_counts_runtime_and_folded(v):
    z = np.zeros(6, np.int64)
    k_bits[1](z, v)
    assert z.tolist() == ref(v)
    z2 = np.zeros(6, np.int64)
    k_bits_const[1](z2, v)
    assert z2.tolist() == ref(v)


@asc.jit
def k_cast(z: asc.GlobalAddress, f: float):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, asc.scalar_cast(f, asc.int32, asc.RoundMode.CAST_RINT))
    zg.set_value(1, asc.scalar_cast(f, asc.int32, asc.RoundMode.CAST_FLOOR))
    zg.set_value(2, asc.scalar_cast(f, asc.int32, asc.RoundMode.CAST_CEIL))
    zg.set_value(3, asc.scalar_cast(f, asc.int32, asc.RoundMode.CAST_ROUND))


def cast_ref(f):
    f = float(np.float32(f))
    if math.isnan(f):
        return [0] * 4
    if math.isinf(f):
        return [2**31 - 1 if f > 0 else -2**31] * 4
    r = [float(np.rint(f)), math.floor(f), math.ceil(f), math.copysign(math.floor(abs(f) + 0.5), f)]
    return [int(max(-2**31, min(2**31 - 1, x))) for x in r]


@pytest.mark.parametrize("f", [0.0, 2.5, -2.5, 3.5, -0.4, 0.5, -0.5, 1.5, -3.5, 2147483520.0, 2147483648.0,
                               -2147483904.0, 1e10, -1e10, 7.75, -7.25, float("inf"), float("-inf"), float("nan")])
def test_scalar_cast_f32_to_s32(f):
    """every mode ScalarCast<float, int32_t> takes (kernel_scalar.h CastF322S32Impl: RINT, FLOOR, CEIL,
    ROUND), halfway cases of both signs, saturation, inf and NaN"""
    z = np.zeros(4, np.int32)
    k_cast[1](z, f)
    assert z.tolist() == cast_ref(f)


@asc.jit
def k_cast_f16(z: asc.GlobalAddress, f: float):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, asc.scalar_cast(f, asc.float16, asc.RoundMode.CAST_ODD))
    zg.set_value(1, asc.scalar_cast(1 + 2 ** -11, asc.half, asc.RoundMode.CAST_ODD))   # a compile-time value


F16_CASES = [0.0, -0.0, 1.0, 1 + 2 ** -11, 1 + 3 * 2 ** -11, -(1 + 2 ** -11), 1 + 2 ** -12, 2049.0, 2051.0, 65504.0,
             65519.0, 65520.0, 70000.0, -1e9, 3.4e38, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26, -(2.0 ** -26), 1e-40,
             2.0 ** -14 + 2.0 ** -30, 0.1, -0.3, float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("f", F16_CASES)
def test_scalar_cast_f32_to_f16_odd(f):
    """ScalarCast<float, half, CAST_ODD> (conv_f322f16o): the f32 rounded to f16 by round-to-odd
    (numpy model of test_cast_modes.py, IEEE), overflow to 65504; the result is an f32 scalar holding
    the f16 value exactly"""
    from test_cast_modes import ODD, _to_float
    z = np.zeros(2, np.float32)
    k_cast_f16[1](z, f)
    want = _to_float(np.array([np.float32(f)], np.float64), ODD, np.float16).astype(np.float32)[0]
    assert (np.isnan(z[0]) and np.isnan(want)) or z[0].tobytes() == want.tobytes()
    assert z[1] == np.float32(1 + 2 ** -10)      # the tie 1 + 2^-11 goes to the odd neighbour


@asc.jit
def k_cast_mode(z: asc.GlobalAddress, f: float, dtype: asc.ConstExpr[str], mode: asc.ConstExpr[int]):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, asc.scalar_cast(f, asc.float16 if dtype == "float16" else asc.int32, mode))


@pytest.mark.parametrize("dtype,mode,allowed", [
    ("int32", "CAST_TRUNC", "CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND"),
    ("int32", "CAST_NONE", "CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND"),
    ("int32", "CAST_ODD", "CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND"),
    ("float16", "CAST_RINT", "CAST_ODD"), ("float16", "CAST_NONE", "CAST_ODD"), ("float16", "CAST_FLOOR", "CAST_ODD"),
    ("float16", "CAST_CEIL", "CAST_ODD"), ("float16", "CAST_ROUND", "CAST_ODD"), ("float16", "CAST_TRUNC", "CAST_ODD")])
def test_scalar_cast_modes_rejected(dtype, mode, allowed):
    """the modes ScalarCast does not take are a compile error at the call, naming pair, mode and source"""
    with pytest.raises(asc.CompileError) as e:
        k_cast_mode[1](np.zeros(1, np.float32), 1.5, dtype, int(getattr(asc.RoundMode, mode)))
    msg = str(e.value)
    assert f"asc.scalar_cast from float32 to {dtype} does not take {mode} on dav_c220: it takes {allowed}" in msg
    assert "kernel_scalar.h" in msg and "test_scalar_intrin.py" in msg
