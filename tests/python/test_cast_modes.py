"""asc.cast with every rounding mode dav_c220 takes, against numpy models of each rounding written
from the IEEE definitions (not from the simulator code), and the modes it does not take rejected.

The legal (source, destination, RoundMode) table is Ascend C Cast on dav_c220
(cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h CastIntrinsicsImpl:
the cases that issue vconv_<pair><r|f|c|a|z|o>, or the unsuffixed vconv_<pair> for CAST_NONE; the
others are ASCENDC_DEBUG_ASSERT and convert nothing).  It is transcribed here by hand and checked
against the ISA table (isa.json "rnds", from the F_RND* flags of isa/asc_isa.def), which pyasc uses.
CAST_NONE rounds as CAST_RINT where the conversion is inexact (Ascend C Cast docs: "CAST_NONE ...
CAST_RINT when precision is lost"); float -> integer conversions saturate, NaN -> 0."""
import numpy as np
import pytest

import asc
from kernels_cast_modes import k_cast_deq_b8, k_cast_mode, k_cast_strided, k_cast_vdeq_b8
from pyasc.compiler import isa

NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD = (asc.RoundMode.CAST_NONE, asc.RoundMode.CAST_RINT,
                                              asc.RoundMode.CAST_FLOOR, asc.RoundMode.CAST_CEIL,
                                              asc.RoundMode.CAST_ROUND, asc.RoundMode.CAST_TRUNC,
                                              asc.RoundMode.CAST_ODD)
DIR = (RINT, FLOOR, CEIL, ROUND, TRUNC)
ALL = (NONE,) + DIR + (ODD,)

# (src, dst) -> modes, dav_c220 kernel_operator_vec_vconv_impl.h (see the module docstring)
DAV_C220 = {
    ("f16", "f32"): (NONE,), ("f32", "f16"): ALL, ("f16", "s32"): DIR, ("f32", "s32"): DIR,
    ("s32", "f32"): (NONE,) + DIR, ("f16", "s8"): (NONE,) + DIR, ("f16", "u8"): (NONE,) + DIR,
    ("s8", "f16"): (NONE,), ("u8", "f16"): (NONE,), ("bf16", "f32"): (NONE,), ("f32", "bf16"): DIR,
    ("f16", "s16"): DIR, ("s16", "f16"): (NONE,) + DIR, ("f32", "f32"): DIR,
    # the pairs of vconv.x (one row, a pair operand)
    ("bf16", "s32"): DIR, ("f32", "s16"): DIR, ("f32", "s64"): DIR, ("s16", "f32"): (NONE,),
    ("s32", "s16"): (NONE,), ("s32", "s64"): (NONE,), ("s64", "f32"): DIR, ("s64", "s32"): (NONE,),
}

NP = {"f16": np.float16, "f32": np.float32, "s32": np.int32, "s16": np.int16, "s8": np.int8, "u8": np.uint8,
      "bf16": np.uint16, "s64": np.int64}
SIZES = (1, 37, 1001)


def test_isa_table_is_dav_c220s():
    from pyasc.language.enums import RND_ISA
    by_name = {v: k for k, v in RND_ISA.items()}
    have = {tuple(m.split(".")): tuple(sorted(by_name[r] for r in isa.rnds(f"vconv.{m}")))
            for m in isa.variants("vconv") if m != "x"}
    have.update({tuple(k.split(".")): tuple(sorted(by_name[r] for r in v["rnds"])) for k, v in isa.cvps().items()
                 if v["op"] == "vconv.x" and k not in ("s16.b8l", "s16.b8h", "s16.vb8l", "s16.vb8h")})   # CastDequant
    assert set(have) == set(DAV_C220)          # no pair the card lacks, none of its pairs missing
    for pair, modes in DAV_C220.items():
        assert have.get(pair) == tuple(sorted(modes)), pair


# ---- numpy models --------------------------------------------------------------------------

def _bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _round_integral(x, mode):
    """x (float64) to an integral value: rint = nearest even, round = nearest, ties away from 0."""
    if mode in (NONE, RINT):
        return np.rint(x)
    if mode == FLOOR:
        return np.floor(x)
    if mode == CEIL:
        return np.ceil(x)
    if mode == TRUNC:
        return np.trunc(x)
    assert mode == ROUND
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def _to_int(x, mode, dt):
    """float -> integer: rounded by mode, saturated to dt's range, NaN -> 0 (integer sources:
    saturated, exactly)."""
    info = np.iinfo(dt)
    if x.dtype.kind in "iu":
        return np.clip(x.astype(np.int64), info.min, info.max).astype(dt)
    with np.errstate(invalid="ignore"):
        r = _round_integral(x.astype(np.float64), mode)
        big = r >= float(info.max)                  # float(2^63 - 1) is 2^63: compare before converting
        small = r <= float(info.min)
        r = np.where(np.isnan(r) | big | small, 0, r).astype(dt)
    return np.where(big, info.max, np.where(small, info.min, r)).astype(dt)


def _int_to_f32(v, mode):
    """int64 -> float32, exactly rounded (Python integers: float64 cannot hold every int64)."""
    out = np.empty(len(v), np.float32)
    for i, x in enumerate(int(t) for t in v):
        m = abs(x)
        e = max(m.bit_length() - 24, 0)
        step = 1 << e
        lo = (m >> e) << e
        rem = m - lo
        if rem == 0:
            mag = lo
        elif mode in (NONE, RINT):
            mag = lo + step if 2 * rem > step or (2 * rem == step and (lo >> e) & 1) else lo
        elif mode == ROUND:
            mag = lo + step if 2 * rem >= step else lo
        elif mode == TRUNC:
            mag = lo
        elif mode == FLOOR:
            mag = lo if x > 0 else lo + step
        else:
            mag = lo + step if x > 0 else lo
        out[i] = np.float32(float(-mag if x < 0 else mag))
    return out


def _bits(a):
    return a.view({2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def _to_float(x, mode, dt):
    """x (exact in float64) rounded to the float type dt (float16 / float32) by mode.  rint is the
    host's conversion; the directed modes pick the neighbour of it on the right side of x
    (np.nextafter), so overflow gives the largest finite value where IEEE does (floor of a
    large positive x, trunc, ...)."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(dt)
        if mode in (NONE, RINT):
            return r
        r64 = r.astype(np.float64)
        lo = np.where(r64 > x, np.nextafter(r, dt(-np.inf)), r)
        hi = np.where(r64 < x, np.nextafter(r, dt(np.inf)), r)
        if mode == FLOOR:
            return lo
        if mode == CEIL:
            return hi
        if mode == TRUNC:
            return np.where(x >= 0, lo, hi)
        if mode == ROUND:        # = rint but at exact ties; past the largest finite value the next
            big = {np.float16: 2.0 ** 16, np.float32: 2.0 ** 128}[dt]     # step is 2^emax+1, not inf
            lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
            lo64 = np.where(np.isinf(lo64) & ~np.isinf(x), -big, lo64)
            hi64 = np.where(np.isinf(hi64) & ~np.isinf(x), big, hi64)
            tie = (lo != hi) & (x - lo64 == hi64 - x)
            return np.where(tie, np.where(x >= 0, hi, lo), r)
        assert mode == ODD
        odd = np.where(_bits(lo) & 1, lo, hi)
        return np.where(lo == hi, r, odd)


def _to_bf16(x, mode):
    """float32 -> bfloat16 bits: the top 16 bits of the f32, rounded on the 16 bits dropped."""
    b = x.view(np.uint32)
    top, rem = (b >> 16).astype(np.uint32), b & 0xffff
    neg = (b >> 31).astype(bool)
    if mode == RINT:
        up = (rem > 0x8000) | ((rem == 0x8000) & (top & 1).astype(bool))
    elif mode == ROUND:
        up = rem >= 0x8000
    elif mode == FLOOR:
        up = neg & (rem != 0)
    elif mode == CEIL:
        up = ~neg & (rem != 0)
    else:
        up = np.zeros(b.shape, bool)
    out = (top + up).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7fc0), out).astype(np.uint16)


def model(x, s, d, mode):
    if s == "bf16":
        x = _bf16_to_f32(x)
    if d == "bf16":
        return _to_bf16(x, mode)
    if d in ("s64", "s32", "s16", "s8", "u8"):
        return _to_int(x, mode, NP[d])
    if s == "s64":
        return _int_to_f32(x, mode)
    if s == d == "f32":
        with np.errstate(invalid="ignore"):
            return _round_integral(x.astype(np.float64), mode).astype(np.float32)
    return _to_float(x.astype(np.float64), mode, NP[d])


# ---- inputs ----------------------------------------------------------------------------------

def _inputs(s, d, n):
    """Specials first (halfway cases both signs, saturation, NaN, inf, -0, subnormals, the f16
    overflow edge), then random values spread over the destination's range with fractions."""
    rng = np.random.default_rng(hash((s, d, n)) & 0xffff)
    if s in ("s8", "u8", "s16", "s32", "s64"):
        info = np.iinfo(NP[s])
        sp = [0, 1, -1, int(info.max), int(info.min), 2049, 2051, -2049, -2051, 4097, 4099, 32767, -32768, 32768,
              -32769]
        if s in ("s32", "s64"):
            sp += [2 ** 24 + 1, 2 ** 24 + 3, -(2 ** 24 + 1), -(2 ** 24 + 3), 2 ** 31 - 1, -2 ** 31, 2 ** 25 + 2]
        if s == "s64":
            sp += [2 ** 31, -2 ** 31 - 1, 2 ** 40 + 2 ** 16, 2 ** 40 + 3 * 2 ** 16, -(2 ** 40 + 2 ** 16),
                   2 ** 60 + 2 ** 36, 2 ** 60 + 2 ** 36 + 1, -(2 ** 60 + 2 ** 36 + 1), 2 ** 53 + 1, 2 ** 62 + 2 ** 38]
        sp = [v for v in sp if info.min <= v <= info.max]
        rnd = rng.integers(info.min, info.max, n, dtype=np.int64, endpoint=True)
        if s == "s64":                              # every magnitude, not only ~2^63
            rnd = rnd >> rng.integers(0, 63, n)
        return np.concatenate([np.array(sp, np.int64), rnd])[:n].astype(NP[s])
    half = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 0.25, 0.75, -0.75, 1.25, -1.25, 0.0, -0.0,
            np.nan, np.inf, -np.inf, 7.0, -7.0]
    if d in ("s64", "s32", "s16", "s8", "u8"):
        info = np.iinfo(NP[d])
        big = [info.max + 0.5, info.min - 0.5, info.max * 4.0, info.min * 4.0 - 8, 126.5, 127.5, 128.5,
               -128.5, -129.5, 254.5, 255.5, 256.5, 65504.0, -65504.0, 3e9, -3e9, 2.0 ** 31, -2.0 ** 31]
        if d == "s64":
            big += [2.0 ** 63, -2.0 ** 63, 2.0 ** 62 * 3, -1e19, 1e19, 2.0 ** 53 + 2, 9.2e18]
        lim = float(min(info.max, 60000)) * 1.25
        rnd = np.round(rng.uniform(-lim, lim, n) * 4) / 4
    else:
        big = [65504.0, 65519.0, 65520.0, 70000.0, -65520.0, -70000.0, 1 + 2 ** -11, 1 + 3 * 2 ** -11,
               -(1 + 2 ** -11), -(1 + 3 * 2 ** -11), 2.0 ** -25, -(2.0 ** -25), 3 * 2.0 ** -25, 1e-9, -1e-9,
               2.0 ** -14 + 2 ** -25, 1e38, -1e38, 3.4e38, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -9,
               2 ** 23 + 0.5, -(2 ** 23 + 0.5), 1.5e-45]
        rnd = rng.standard_normal(n) * np.exp2(rng.integers(-20, 16, n))
    v = np.concatenate([np.array(half + big, np.float64), rnd])[:n]
    if s == "bf16":
        with np.errstate(over="ignore"):
            f = v.astype(np.float32)
        return (f.view(np.uint32) >> 16).astype(np.uint16)     # exactly representable bf16 values
    with np.errstate(over="ignore", invalid="ignore"):
        return v.astype(NP[s])


SENTINEL = {"bf16": 0x40e0}    # 7.0 as bf16 bits; 7 in every other type


def _pad(n, dt):
    per = 32 // np.dtype(dt).itemsize
    return -(-n // per) * per


def _run(s, d, mode, n):
    x = _inputs(s, d, n)
    ns, nd = _pad(n, NP[s]), _pad(n, NP[d])
    xp = np.zeros(ns, NP[s])
    xp[:n] = x
    z = np.full(nd, SENTINEL.get(d, 7), NP[d])
    k_cast_mode[1](xp, z, n, ns, nd, int(mode), s == "bf16", d == "bf16")
    return x, z


def _same(got, want):
    if got.dtype.kind == "f":
        nan = np.isnan(got) & np.isnan(want)
        return np.array_equal(np.where(nan, 0, _bits(got)), np.where(nan, 0, _bits(want)))
    if got.dtype == np.uint16 and want.dtype == np.uint16:       # bf16 bits: any NaN is a NaN
        gn = ((got & 0x7f80) == 0x7f80) & ((got & 0x7f) != 0)
        wn = ((want & 0x7f80) == 0x7f80) & ((want & 0x7f) != 0)
        return np.array_equal(gn, wn) and np.array_equal(np.where(gn, 0, got), np.where(wn, 0, want))
    return np.array_equal(got, want)


CASES = [(s, d, m) for (s, d), modes in DAV_C220.items() for m in modes]


@pytest.mark.libasc
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("s,d,mode", CASES, ids=[f"{s}-{d}-{m.name}" for s, d, m in CASES])
def test_cast_mode_matches_numpy(s, d, mode, n):
    x, z = _run(s, d, mode, n)
    want = model(x, s, d, mode)
    got = z[:n]
    if not _same(got, want):
        bad = np.flatnonzero(~((got == want) | (np.isnan(got.astype(np.float64)) if got.dtype.kind == "f"
                                                 else False)))[:5]
        raise AssertionError(f"{s}->{d} {mode.name}: first differences at {bad}: x={x[bad]} got={got[bad]} "
                             f"want={want[bad]}")
    assert np.array_equal(z[n:], np.full(len(z) - n, SENTINEL.get(d, 7), NP[d]))   # lanes past n untouched


ILLEGAL = [(s, d, m) for (s, d), modes in DAV_C220.items() for m in ALL if m not in modes]


@pytest.mark.parametrize("s,d,mode", ILLEGAL, ids=[f"{s}-{d}-{m.name}" for s, d, m in ILLEGAL])
def test_cast_mode_rejected(s, d, mode):
    names = {"f16": "float16", "f32": "float32", "s32": "int32", "s16": "int16", "s8": "int8", "u8": "uint8",
             "bf16": "bfloat16", "s64": "int64"}
    allowed = ", ".join(m.name for m in ALL if m in DAV_C220[(s, d)])
    with pytest.raises(asc.CompileError) as e:
        _run(s, d, mode, 37)
    msg = str(e.value)
    assert f"from {names[s]} to {names[d]} does not take {mode.name} on dav_c220: it takes {allowed}" in msg
    assert "kernel_operator_vec_vconv_impl.h" in msg and "kernels_cast_modes.py" in msg


def test_round_mode_must_be_a_round_mode():
    with pytest.raises(asc.CompileError, match="round_mode must be an asc.RoundMode"):
        _run("f32", "f16", 9, 1)


STRIDED = [("f32", "s64", FLOOR), ("s64", "f32", ROUND), ("s32", "s16", NONE), ("s16", "f32", NONE),
           ("bf16", "s32", TRUNC), ("f32", "f16", ODD), ("f16", "s8", CEIL)]


@pytest.mark.libasc
@pytest.mark.parametrize("s,d,mode", STRIDED, ids=[f"{s}-{d}-{m.name}" for s, d, m in STRIDED])
@pytest.mark.parametrize("rt,dblk,sblk,drep,srep", [(3, 1, 2, 9, 17), (2, 2, 1, 17, 10), (1, 1, 1, 8, 8)])
def test_cast_mask_repeat_form(s, d, mode, rt, dblk, sblk, drep, srep):
    """lanes per repeat = 256 / the wider size; lane i of repeat r at base + r*rep*32 + (i / per
    block)*blk*32 + (i % per block)*size for each operand (docs/isa.md); masked-off lanes and
    every byte no lane addresses keep their old value"""
    ss, ds = np.dtype(NP[s]).itemsize, np.dtype(NP[d]).itemsize
    lanes = 256 // max(ss, ds)
    rng = np.random.default_rng(rt * 7 + dblk)
    m = [int(v) for v in rng.integers(0, 2 ** 63, 2)]
    m[0] |= 1                                   # lane 0 always on
    if lanes <= 64:
        m[1] = 0

    def span(size, blk, rep):
        per = 32 // size
        return ((rt - 1) * rep * 32 + ((lanes - 1) // per) * blk * 32 + 32) // size

    ns, nd = _pad(span(ss, sblk, srep), NP[s]), _pad(span(ds, dblk, drep), NP[d])
    x = _inputs(s, d, ns)
    z = np.full(nd, SENTINEL.get(d, 7), NP[d])
    want = z.copy()
    k_cast_strided[1](x, z, ns, nd, int(mode), m[0], m[1], rt, dblk, sblk, drep, srep, s == "bf16")
    src_i, dst_i = [], []
    for r in range(rt):
        for i in range(lanes):
            if (m[i // 64] >> (i % 64)) & 1:
                src_i.append((r * srep * 32 + (i // (32 // ss)) * sblk * 32) // ss + i % (32 // ss))
                dst_i.append((r * drep * 32 + (i // (32 // ds)) * dblk * 32) // ds + i % (32 // ds))
    want[dst_i] = model(x[src_i], s, d, mode)
    assert _same(z, want), f"{s}->{d} {mode.name}: {np.flatnonzero(z != want)[:8]}"


@pytest.mark.libasc
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("scale,offset,sign,half", [(1.0, 0, True, True), (0.37, -5, True, False),
                                                   (2.5, 100, False, True), (-0.75, 255, False, False),
                                                   (0.5, -256, True, True)])
def test_cast_deq_s16_b8(n, scale, offset, sign, half):
    """CastDequant s16 -> b8 without vector dequantisation (Ascend C CastDeqIntrinsicsImpl:
    vconv_deqs162b8h / l; CastDequant.md: dst = Cast(src * scale + offset), saturating; int8 when
    sign_mode, else uint8): the f32 product plus the offset, rounded to nearest even (Cast's
    CAST_NONE), saturated; results of source block j in the upper (half_block) or lower 16 bytes
    of destination block j, the other half and every byte past n untouched"""
    rng = np.random.default_rng(n)
    nx = _pad(n, np.int16)
    x = rng.integers(-32768, 32768, nx).astype(np.int16)
    x[:12] = [0, 1, -1, 3, -3, 5, 127, -128, 255, 256, 32767, -32768][:min(12, nx)]
    dt = np.int8 if sign else np.uint8
    z = np.full(2 * nx, 7, dt)
    k_cast_deq_b8[1](x, z, n, nx, scale, offset, sign, half)
    info = np.iinfo(dt)
    t = (x[:n].astype(np.float32) * m1(scale)).astype(np.float32) + np.float32(offset)
    val = np.clip(np.rint(t.astype(np.float64)), info.min, info.max).astype(dt)
    want = np.full(2 * nx, 7, dt)
    i = np.arange(n)
    want[(i // 16) * 32 + (16 if half else 0) + i % 16] = val
    assert np.array_equal(z, want), np.flatnonzero(z != want)[:8]


def m1(scale):
    """the scale as the hardware takes it: the f32 as a 1-8-10 float, bits 12:0 dropped
    (SetDeqScale.md, CastDequant s162b8 table row; as the fixpipe's M1)"""
    return (np.asarray(scale, np.float32).view(np.uint32) & np.uint32(0xffffe000)).view(np.float32)


# 16 parameter sets differing per position: scales (some not exact in f32, negative, large),
# offsets over the 9-bit range, sign modes mixed (a uint8 tensor with int8 lanes and vice versa)
VDEQ_SCALES = (1.0, 0.37, -0.75, 2.5, 0.5, 3.0, -1.25, 0.01, 1e-3, -2.0, 7.5, 0.125, 1.5, -0.3, 0.9, 4.0)
VDEQ_OFFSETS = (0, -5, 100, 255, -256, 7, -1, 1, 30, -30, 0, 12, -100, 200, -200, 3)
VDEQ_SIGNS = (True, False, True, False, False, True, True, False, True, False, True, True, False, False, True,
              False)


def vdeq_model(x, scales, offsets, signs, half, nx, fill, dt, exact=False):
    """numpy model of the vector CastDequant (CastDequant.md: dst_i = Cast(src_i * scale_j +
    offset_j), j the element's position in its 32 B block of 16 int16; each set's sign mode picks
    int8 or uint8 saturation): results of source block k in the upper (half) or lower 16 bytes of
    destination block k, the other half and every byte past n untouched"""
    n = x.size
    j = np.arange(n) % 16
    sc = (np.array(scales, np.float32) if exact else m1(np.array(scales, np.float32)))[j]
    off = np.array(offsets, np.float32)[j]
    sg = np.array(signs, bool)[j]
    t = (x.astype(np.float32) * sc).astype(np.float32) + off
    r = np.rint(t.astype(np.float64))
    val = np.where(sg, np.clip(r, -128, 127), np.clip(r, 0, 255)).astype(np.int64)
    want = np.full(2 * nx, fill, dt)
    i = np.arange(n)
    want[(i // 16) * 32 + (16 if half else 0) + i % 16] = (val & 0xff).astype(np.uint8).view(dt)
    return want


def _vdeq_run(n, dt, half, form, scales=VDEQ_SCALES, offsets=VDEQ_OFFSETS, signs=VDEQ_SIGNS):
    rng = np.random.default_rng(1000 + n)
    nx = _pad(n, np.int16)
    x = rng.integers(-32768, 32768, nx).astype(np.int16)
    x[:12] = [0, 1, -1, 3, -3, 5, 127, -128, 255, 256, 32767, -32768][:min(12, nx)]
    if nx >= 48:                         # small values: offsets and scales are not swamped by saturation
        x[16:48] = rng.integers(-300, 300, 32)
    z = np.full(2 * nx, 7, dt)
    k_cast_vdeq_b8[1](x, z, n, nx, tuple(scales), tuple(offsets), tuple(signs), half, form)
    return x, z, nx


@pytest.mark.libasc
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dt", [np.int8, np.uint8])
@pytest.mark.parametrize("half", [True, False])
def test_cast_deq_vec_s16_b8(n, dt, half):
    """CastDequant s16 -> b8 with vector dequantisation, is_vec_deq=True (real pyasc's default;
    Ascend C CastVDeqIntrinsicsImpl: vconv_vdeqs162b8h / l; SetDeqScaleImpl(vdeq, vdeqInfo) writes
    the 16 MakeDeqScaleConfig words to UB and DEQSCALE = their address >> 5), against numpy; the
    broken models (one set for every lane, the set of the element index not of its block position,
    the tensor's dtype for saturation instead of each set's sign mode) must not match"""
    x, z, nx = _vdeq_run(n, dt, half, "count")
    want = vdeq_model(x[:n], VDEQ_SCALES, VDEQ_OFFSETS, VDEQ_SIGNS, half, nx, 7, dt)
    assert np.array_equal(z, want), np.flatnonzero(z != want)[:8]
    if n < 16:
        return
    one = vdeq_model(x[:n], (VDEQ_SCALES[0],) * 16, (VDEQ_OFFSETS[0],) * 16, (VDEQ_SIGNS[0],) * 16, half, nx, 7, dt)
    assert not np.array_equal(z, one)
    rot = vdeq_model(x[:n], VDEQ_SCALES[1:] + VDEQ_SCALES[:1], VDEQ_OFFSETS[1:] + VDEQ_OFFSETS[:1],
                     VDEQ_SIGNS[1:] + VDEQ_SIGNS[:1], half, nx, 7, dt)
    assert not np.array_equal(z, rot)
    same_sign = vdeq_model(x[:n], VDEQ_SCALES, VDEQ_OFFSETS, (dt == np.int8,) * 16, half, nx, 7, dt)
    assert not np.array_equal(z, same_sign)
    full = vdeq_model(x[:n], VDEQ_SCALES, VDEQ_OFFSETS, VDEQ_SIGNS, half, nx, 7, dt, exact=True)
    if n > 100:                                       # the whole f32 scale is not what the card uses
        assert not np.array_equal(z, full)
    other_half = vdeq_model(x[:n], VDEQ_SCALES, VDEQ_OFFSETS, VDEQ_SIGNS, not half, nx, 7, dt)
    assert not np.array_equal(z, other_half)


@pytest.mark.libasc
@pytest.mark.parametrize("half", [True, False])
def test_cast_deq_vec_mask_form(half):
    """the repeat form (mask 128, 2 repeats, strides 1/1/8/8) maps lane i to set i % 16 too"""
    n = 256
    x, z, nx = _vdeq_run(n, np.uint8, half, "mask")
    want = vdeq_model(x[:n], VDEQ_SCALES, VDEQ_OFFSETS, VDEQ_SIGNS, half, nx, 7, np.uint8)
    assert np.array_equal(z, want), np.flatnonzero(z != want)[:8]


@pytest.mark.libasc
@pytest.mark.parametrize("n", (37, 1001))
def test_cast_deq_vec_table_in_tbuf(n):
    """the table in a TBuf (an address placed at link time): DEQSCALE gets that address / 32"""
    x, z, nx = _vdeq_run(n, np.int8, True, "tbuf")
    want = vdeq_model(x[:n], VDEQ_SCALES, VDEQ_OFFSETS, VDEQ_SIGNS, True, nx, 7, np.int8)
    assert np.array_equal(z, want), np.flatnonzero(z != want)[:8]
