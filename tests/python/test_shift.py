"""asc.shift_left / asc.shift_right (vshl / vshr) against numpy: 16- and 32-bit, signed and unsigned,
count forms whose bytes are not multiples of 32, the mask form with holes, amounts 0 .. width,
and the compile-time range check."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

N = 256


@asc.jit
def k_shift(x: asc.GlobalAddress, z: asc.GlobalAddress, left: asc.ConstExpr[bool], form: asc.ConstExpr[str],
            n: asc.ConstExpr[int], s: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, 256)
    asc.data_copy(a, xg, 256)
    asc.data_copy(c, zg, 256)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    lanes = 256 // x.dtype.sizeof()
    if form == "count":
        if left:
            asc.shift_left(c, a, s, n)
        else:
            asc.shift_right(c, a, s, n)
    else:
        if left:
            asc.shift_left(c, a, s, [0x5555555555555555, 0x0F0F0F0F0F0F0F0F], 256 // lanes, asc.UnaryRepeatParams())
        else:
            asc.shift_right(c, a, s, [0x5555555555555555, 0x0F0F0F0F0F0F0F0F], 256 // lanes, asc.UnaryRepeatParams())
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, 256)


def _ref(x, s, left):
    w = 8 * x.dtype.itemsize
    if left:
        return np.zeros_like(x) if s >= w else (x.astype(np.int64) << s).astype(x.dtype) if s < w else x
    if s >= w:
        return np.where(x < 0, -1, 0).astype(x.dtype)
    return (x >> s).astype(x.dtype)          # numpy: arithmetic for signed, logical for unsigned


@pytest.mark.parametrize("dtype", [np.uint16, np.int16, np.uint32, np.int32])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("form,n", [("count", 1), ("count", 13), ("count", 201), ("mask", N)])
@pytest.mark.parametrize("frac", [0, 0.3, 1])     # amount 0, a middle one, the width
def test_shift(dtype, left, form, n, frac):
    rng = np.random.default_rng(4)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, N, endpoint=True).astype(dtype)
    z0 = rng.integers(info.min, info.max, N, endpoint=True).astype(dtype)
    z = z0.copy()
    w = 8 * np.dtype(dtype).itemsize
    s = int(round(frac * w))
    k_shift[1](x, z, left, form, n, s)
    act = np.zeros(N, bool)
    if form == "count":
        act[:n] = True
    else:
        lanes = 256 // np.dtype(dtype).itemsize
        bits = (0x0F0F0F0F0F0F0F0F << 64) | 0x5555555555555555
        act = np.tile(np.array([(bits >> i) & 1 for i in range(lanes)], bool), N // lanes)
    np.testing.assert_array_equal(z, np.where(act, _ref(x, s, left), z0))


def test_shift_amount_out_of_range():
    with pytest.raises(asc.CompileError, match=r"shift amount must be in \[0, 16\] for int16, got 17"):
        k_shift[1](np.zeros(N, np.int16), np.zeros(N, np.int16), True, "count", 8, 17)
