"""Register-controlled modes against numpy models written from the documented rules, not from
the simulator code:
- set_pad_value: the MTE pad value register DataCopyPad GM -> UB pads with when is_pad is False
  (Ascend C SetPadValue / DataCopyPad docs, cannmirror/asc-devkit docs/zh/api; an is_pad=True
  copy sets the same register first, dav_c220 DataCopyPadGm2UBImpl: set_mov_pad_val);
- set_hf32_mode / set_hf32_trans_mode: f32 mmad inputs rounded to HF32 (1 sign, 8 exponent, 10
  mantissa bits) to nearest even, or toward zero with the trans mode (real pyasc
  docs/python-api/language/generated/asc.language.basic.set_hf32_*.md)."""
import numpy as np
import pytest

import asc
from kernels_regmodes import k_cast_deq, k_cmpmask, k_mm_f32, k_pad_reg

DT = {np.float32: asc.float32, np.float16: asc.float16, np.int32: asc.int32, np.int16: asc.int16}


def _burst(x, off, blen, lpad, rpad, fill):
    """UB image of one padded burst: [lpad][blen data][rpad][to 32 B], pads = fill."""
    sz = x.dtype.itemsize
    foot = -(-(lpad + blen + rpad) * sz // 32) * 32 // sz
    b = np.full(foot, fill, x.dtype)
    b[lpad:lpad + blen] = x[off:off + blen]
    return b


@pytest.mark.libasc
@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32, np.int16])
@pytest.mark.parametrize("blen,lpad,rpad", [(1, 0, 0), (5, 1, 2), (13, 2, 0), (8, 0, 3)])
@pytest.mark.parametrize("how", ["set", "ispad", "between"])
def test_pad_value_register(dt, blen, lpad, rpad, how):
    if lpad + rpad == 0 and blen * np.dtype(dt).itemsize % 32 == 0:
        pytest.skip("no pad bytes")
    x = (np.arange(1, 64) * 5 % 31 + 1).astype(dt)
    z = np.zeros(6144 // x.itemsize, dt)
    value = -3.0
    k_pad_reg[1](x, z, blen, lpad, rpad, how, value)
    sz = x.itemsize
    first = _burst(x, 0, blen, lpad, rpad, value if how != "between" else x[0])
    second = _burst(x, 1, blen, lpad, rpad, value)
    np.testing.assert_array_equal(z[:len(first)], first)
    np.testing.assert_array_equal(z[2048 // sz:2048 // sz + len(second)], second)
    if how == "ispad":
        np.testing.assert_array_equal(z[4096 // sz:4096 // sz + len(first)], first)


@pytest.mark.libasc
def test_pad_value_default_types():
    """Real pyasc types an int value int32 and a float float32; the register holds that bit
    pattern and a copy of n-byte elements pads with its low n bytes."""
    x = np.arange(1, 64, dtype=np.int32)
    z = np.zeros(1536, np.int32)
    k_pad_reg[1](x, z, 3, 0, 0, "default", 7)
    np.testing.assert_array_equal(z[:8], [1, 2, 3, 7, 7, 7, 7, 7])
    x = np.arange(1, 64, dtype=np.float32)
    z = np.zeros(1536, np.float32)
    k_pad_reg[1](x, z, 3, 0, 0, "default", 2.5)
    np.testing.assert_array_equal(z[512:520], [2, 3, 4, 2.5, 2.5, 2.5, 2.5, 2.5])
    x = np.arange(1, 64, dtype=np.float16)     # f32 2.5 = 0x40200000: an f16 copy pads with 0x0000
    z = np.zeros(3072, np.float16)
    k_pad_reg[1](x, z, 3, 0, 0, "default", 2.5)
    np.testing.assert_array_equal(z[:16], [1, 2, 3] + [0] * 13)


@pytest.mark.libasc
def test_pad_value_errors():
    with pytest.raises(asc.CompileError, match="non-integral value 2.5 for integer dtype int32"):
        k_pad_reg[1](np.zeros(64, np.int32), np.zeros(1536, np.int32), 3, 0, 0, "set", 2.5)


def hf32(x, to_zero):
    """numpy model of f32 -> HF32: keep sign, exponent and the top 10 mantissa bits."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    if not to_zero:
        low = u & 0x1FFF
        keep = u >> 13
        up = (low > 0x1000) | ((low == 0x1000) & (keep & 1 == 1))
        u = (keep + up) << 13
    else:
        u = (u >> 13) << 13
    return (u & 0xFFFFFFFF).astype(np.uint32).view(np.float32)


def _mm(a, bt, hf, trans, rt=0):
    m, k = a.shape
    n = bt.shape[0]
    c = np.zeros(m * n, np.float32)
    k_mm_f32[1](a.ravel(), bt.ravel(), c, m, n, k, hf, trans, rt)
    return c.reshape(m, n)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (16, 16, 8), (19, 33, 13), (5, 7, 29)])
def test_hf32_mmad(m, n, k):
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    # values with low mantissa bits that HF32 drops, plus exact ties of the 13-bit rounding
    a = (rng.standard_normal((m, k)) * 3).astype(np.float32)
    bt = (rng.standard_normal((n, k)) * 3).astype(np.float32)
    a.ravel()[::3] = np.float32(1 + 2 ** -10 + 2 ** -11)      # a tie: RNE rounds up to 1 + 2^-9
    bt.ravel()[::4] = np.float32(-(1 + 2 ** -11))              # a tie: RNE rounds to even, -1
    f64 = np.float64
    exact = (a.astype(f64) @ bt.T.astype(f64)).astype(np.float32)
    rne = (hf32(a, False).astype(f64) @ hf32(bt, False).T.astype(f64)).astype(np.float32)
    rz = (hf32(a, True).astype(f64) @ hf32(bt, True).T.astype(f64)).astype(np.float32)
    assert not np.array_equal(exact, rne) and not np.array_equal(rne, rz)
    np.testing.assert_array_equal(_mm(a, bt, -1, -1), exact)      # default: plain f32
    np.testing.assert_array_equal(_mm(a, bt, 0, 1), exact)        # trans mode alone changes nothing
    np.testing.assert_array_equal(_mm(a, bt, 1, -1), rne)         # HF32, default trans: nearest even
    np.testing.assert_array_equal(_mm(a, bt, 1, 0), rne)
    np.testing.assert_array_equal(_mm(a, bt, 1, 1), rz)           # toward zero
    np.testing.assert_array_equal(_mm(a, bt, 2, -1, rt=1), rne)   # mode from a run-time scalar
    np.testing.assert_array_equal(_mm(a, bt, 2, -1, rt=0), exact)


def test_hf32_model_special_values():
    """The numpy model itself on edge cases: inf stays inf, the largest f32 rounds to inf (RNE)."""
    v = np.array([np.inf, -np.inf, np.finfo(np.float32).max, 1.0, 0.0], np.float32)
    np.testing.assert_array_equal(hf32(v, False)[[0, 1, 2, 3, 4]], [np.inf, -np.inf, np.inf, 1.0, 0.0])
    assert hf32(v, True)[2] < np.inf


@pytest.mark.libasc
@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("repeats,mask", [(1, 1), (2, None), (3, 37), (1, 64)])
def test_cmp_mask_register(dt, repeats, mask):
    """Ascend C SetCmpMask copies 128 bits into CMPMASK (a later write of the UB source does not
    change it); Select mode 0 uses the same bits in every repeat; GetCmpMask stores them."""
    lanes = 256 // np.dtype(dt).itemsize
    if mask is None:
        mask = lanes
    n = repeats * lanes
    rng = np.random.default_rng(repeats * 7 + mask)
    x = rng.standard_normal(n).astype(dt)
    y = rng.standard_normal(n).astype(dt)
    z = np.full(n, 5, dt)
    m0 = rng.integers(0, 256, 32).astype(np.uint8)
    m1 = (~m0).astype(np.uint8)
    got = np.zeros(32, np.uint8)
    k_cmpmask[1](x, y, m0, m1, z, got, repeats, mask)
    bits = np.unpackbits(m0[:16], bitorder="little")[:lanes].astype(bool)
    want = np.full(n, 5, dt)
    for r in range(repeats):
        s = slice(r * lanes, r * lanes + mask)
        want[s] = np.where(bits[:mask], x[s], y[s])
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(got[:16], m0[:16])      # the register, not the overwritten UB
    np.testing.assert_array_equal(got[16:], m1[16:])      # get_cmp_mask writes 16 bytes only


def f16_rint_of_exact(v):
    """numpy model of Cast(src * scale) to f16 with one rounding: the exact product (f64 holds
    it) rounded to nearest even f16; numpy's float64 -> float16 cast rounds once, to nearest even."""
    with np.errstate(over="ignore"):            # past 65520: inf, as IEEE rounding gives
        return np.asarray(v, np.float64).astype(np.float16)


@pytest.mark.libasc
@pytest.mark.parametrize("n,form", [(1, "count"), (63, "count"), (1000, "count"), (128, "mask"), (192, "mask")])
@pytest.mark.parametrize("scale", [1.0, 0.0625, 0.333])
def test_cast_deq_s32_f16(n, form, scale):
    rng = np.random.default_rng(n)
    np_ = -(-n // 64) * 64
    x = rng.integers(-70000, 70000, np_).astype(np.int32)
    x[:4] = [2049, 2051, -4097, 65519]          # f16 ties and the rounding edge near 65504
    z = np.full(np_, 7, np.float16)
    k_cast_deq[1](x, z, n, scale, form)
    s16 = np.float64(np.float16(scale))          # the register holds scale as f16
    want = np.full(np_, 7, np.float16)
    want[:n] = f16_rint_of_exact(x[:n].astype(np.float64) * s16)
    np.testing.assert_array_equal(z.view(np.uint16), want.view(np.uint16))
