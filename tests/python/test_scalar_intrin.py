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
    zg.set_value(4, asc.scalar_cast(f, asc.int32, asc.RoundMode.CAST_TRUNC))


def cast_ref(f):
    f = float(np.float32(f))
    if math.isnan(f):
        return [0] * 5
    r = [float(np.rint(f)), math.floor(f), math.ceil(f), math.copysign(math.floor(abs(f) + 0.5), f), math.trunc(f)]
    return [int(max(-2**31, min(2**31 - 1, x))) for x in r]


@pytest.mark.parametrize("f", [0.0, 2.5, -2.5, 3.5, -0.4, 1e10, -1e10, 7.75, -7.25, float("nan")])
def test_scalar_cast_f32_to_s32(f):
    z = np.zeros(5, np.int32)
    k_cast[1](z, f)
    assert z.tolist() == cast_ref(f)


@asc.jit
def k_pc(z: asc.GlobalAddress):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.get_program_counter()
    b = asc.get_program_counter()
    zg.set_value(0, a)
    zg.set_value(1, b)


def test_get_program_counter_is_the_instruction_address():
    z = np.zeros(2, np.int64)
    k_pc[1](z)
    assert z[0] % 4 == 0 and z[1] % 4 == 0 and z[1] > z[0]


def test_count_value_must_be_constant_0_or_1():
    with pytest.raises(Exception, match="count_value"):
        k_bad[1](np.zeros(1, np.int64), 3)


@asc.jit
def k_bad(z: asc.GlobalAddress, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, asc.scalar_get_sff_value(v, 2))
