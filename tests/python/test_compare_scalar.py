"""asc.compare_scalar (vcmps: bit i of dst = src0[i] <cmp_mode> scalar, packed LSB first as
asc.compare writes it) against numpy, f16 and f32, every CMPMODE, the count form with counts whose
bytes are not multiples of 32 and the mask form with holes (inactive lanes give 0 bits)."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

N = 256          # source elements
NB = 64          # bytes of the bit-mask destination moved back (bits of 512 lanes)
MASK = [0x5555555555555555, 0x0F0F0F0F0F0F0F0F]
NP = {asc.CMPMODE.LT: np.less, asc.CMPMODE.GT: np.greater, asc.CMPMODE.EQ: np.equal,
      asc.CMPMODE.LE: np.less_equal, asc.CMPMODE.GE: np.greater_equal, asc.CMPMODE.NE: np.not_equal}


@asc.jit
def k_cmps(x: asc.GlobalAddress, z: asc.GlobalAddress, mode: asc.ConstExpr[int], form: asc.ConstExpr[str],
           n: asc.ConstExpr[int], scalar: asc.ConstExpr[float]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    c = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 8192, 64)
    asc.data_copy(a, xg, 256)
    asc.data_copy(c, zg, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    lanes = 256 // x.dtype.sizeof()
    if form == "count":
        asc.compare_scalar(c, a, scalar, asc.CMPMODE(mode), n)
    else:
        asc.compare_scalar(c, a, scalar, asc.CMPMODE(mode), [0x5555555555555555, 0x0F0F0F0F0F0F0F0F],
                           256 // lanes, asc.UnaryRepeatParams())
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, 64)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("mode", list(asc.CMPMODE))
@pytest.mark.parametrize("form,n", [("count", 7), ("count", 201), ("mask", N)])
def test_compare_scalar(dtype, mode, form, n):
    rng = np.random.default_rng(11)
    x = (rng.integers(-4, 4, N) / 2).astype(dtype)   # many elements equal the scalar
    x[5] = np.nan
    s = 0.5
    z = np.full(NB, 0xAA, np.uint8)
    k_cmps[1](x, z, int(mode), form, n, s)
    lanes = 256 // np.dtype(dtype).itemsize
    bits = NP[mode](x, dtype(s))
    want = z.copy()
    want[:] = 0xAA
    if form == "count":
        act = np.arange(N) < n
        nrep = -(-n // lanes)                          # whole repeats written; the rest untouched
    else:
        one = np.array([(((MASK[1] << 64) | MASK[0]) >> i) & 1 for i in range(lanes)], bool)
        act = np.tile(one, N // lanes)
        nrep = N // lanes
    nbytes = nrep * lanes // 8
    want[:nbytes] = np.packbits(bits & act, bitorder="little")[:nbytes]
    np.testing.assert_array_equal(z, want)
