"""asc.compare and asc.compare_scalar (vcmp / vcmps: bit i of dst = src0[i] <cmp_mode> src1[i] or
scalar, packed LSB first) against numpy, f16 and f32, every CMPMODE, as Ascend C runs them on
dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h): the count
form compares count * sizeof / 256 whole repeats and leaves the tail's bits as they were; the mask
form ignores the mask and compares every lane.  Each difference is a warning at the call's line."""
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
def k_cmps(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, mode: asc.ConstExpr[int],
           form: asc.ConstExpr[str], n: asc.ConstExpr[int], scalar: asc.ConstExpr[float],
           vec: asc.ConstExpr[bool], mask: asc.ConstExpr[object]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, 256)
    c = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 8192, 64)
    asc.data_copy(a, xg, 256)
    asc.data_copy(b, yg, 256)
    asc.data_copy(c, zg, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    lanes = 256 // x.dtype.sizeof()
    if vec:
        if form == "count":
            asc.compare(c, a, b, asc.CMPMODE(mode), n)
        else:
            asc.compare(c, a, b, asc.CMPMODE(mode), mask, 256 // lanes, asc.BinaryRepeatParams())
    else:
        if form == "count":
            asc.compare_scalar(c, a, scalar, asc.CMPMODE(mode), n)
        else:
            asc.compare_scalar(c, a, scalar, asc.CMPMODE(mode), mask, 256 // lanes, asc.UnaryRepeatParams())
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, 64)


@pytest.mark.parametrize("vec", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("mode", list(asc.CMPMODE))
@pytest.mark.parametrize("form,n,mask", [("count", 7, 0), ("count", 201, 0), ("count", 128, 0),
                                         ("mask", N, MASK), ("mask", N, 64), ("mask", N, "full")])
def test_compare(vec, dtype, mode, form, n, mask):
    rng = np.random.default_rng(11)
    x = (rng.integers(-4, 4, N) / 2).astype(dtype)   # many elements equal the scalar / the other side
    y = (rng.integers(-4, 4, N) / 2).astype(dtype)
    x[5] = np.nan
    s = 0.5
    z = np.full(NB, 0xAA, np.uint8)
    lanes = 256 // np.dtype(dtype).itemsize
    if mask == "full":
        mask = lanes
    r = k_cmps[1](x, y, z, int(mode), form, n, s, vec, mask)
    bits = NP[mode](x, y if vec else dtype(s))
    want = np.full(NB, 0xAA, np.uint8)
    if form == "count":
        nrep = n * np.dtype(dtype).itemsize // 256     # whole repeats only (CompareCompute)
        warned = nrep * lanes != n
        text = f"compared {nrep * lanes} of {n} elements"
    else:
        nrep = N // lanes                              # every lane of each repeat (mask discarded)
        asked = bin(MASK[0]).count("1") + (bin(MASK[1]).count("1") if lanes == 128 else 0) \
            if isinstance(mask, list) else mask
        warned = asked != lanes
        text = f"ignored a mask of {asked} of {lanes} lanes"
    nbytes = nrep * lanes // 8
    want[:nbytes] = np.packbits(bits, bitorder="little")[:nbytes]
    np.testing.assert_array_equal(z, want)
    assert bool(r.warnings) == warned, r.warnings
    if warned:
        assert len(r.warnings) == 1 and text in r.warnings[0], r.warnings
        assert "test_compare_scalar.py:" in r.warnings[0]
        assert "compare" in r.report.split("warnings:")[1]
