"""asc.adv math library: acos ... xor, axpy (real pyasc python/asc/language/adv/math.py; Ascend C
adv_api Math), lowered to the vector ISA through the ordinary kernel-language functions.

Each function is an `intrinsic` that emits plain vector ops (vadds, vmul, vexp, vconv, ...) in
counter mode, so their cost comes from the model like any other vector code.  As in Ascend C
(cannmirror/asc-devkit impl/adv_api/detail/math/<name>/<name>_common_impl.h), the work is done
in float32 on a temporary buffer split into `k` float32 slices of `ch` elements each (`ch`, the
"calSize", a multiple of 64); the data is processed in chunks of `ch` elements, the last chunk
with the remaining count.  float16 inputs are widened into a float32 slice first (vconv, exact)
and the result is rounded back once (vconv rint), as Ascend C does for its half variants.

Temporary space: `temp_buffer` (any LocalTensor in UB, usually uint8 from a TBuf/TQue; its
byte length decides `ch`), or, when it is omitted, a UB buffer the compiler places for this
call (like LocalTensorAuto; Ascend C takes it from the framework's stack space) of
k * min(2048, count rounded up to 64) float32s.  A kernel that places its own tensors at fixed
UB addresses should pass temp_buffer: placed buffers start at UB byte 0.

Accuracy: see docs/pyasc.md "asc.adv math: algorithms and accuracy".
"""
from __future__ import annotations

import builtins as _bi
import struct as _struct

from ..compiler.builder import RVal, is_static
from ..language import dtype as dt
from ..language import ops as _o
from ..language.enums import RoundMode
from ..language.ops import intrinsic
from ..language.tensor import BufferReq, LocalTensor, tensor_type_name
from ..compiler import ir

__all__ = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "digamma", "erf", "erfc",
           "exp", "floor", "frac", "lgamma", "log", "round", "sign", "sin", "sinh", "tan", "tanh", "trunc",
           "power", "xor", "axpy"]

F32 = dt.float32
LANES = 64                  # float32 lanes of one vector repeat
MAX_CH = 2048               # chunk of the compiler-placed temporary
BIG = 4611686018427387904.0  # 2^62 (Ascend C ATAN_FP32_MAX / FP32_MAX in asin_common_impl.h)
PI = 3.14159265358979323846
HALF_PI = 1.5707963267948966


class _V:
    """The vector ops of one chunk: n elements, every operand a float32 LocalTensor."""

    def __init__(self, b, n):
        self.b, self.n = b, n

    def _k(self):
        return {"_b": self.b}

    def add(self, d, a, c): _o.add(d, a, c, self.n, _b=self.b)
    def sub(self, d, a, c): _o.sub(d, a, c, self.n, _b=self.b)
    def mul(self, d, a, c): _o.mul(d, a, c, self.n, _b=self.b)
    def div(self, d, a, c): _o.div(d, a, c, self.n, _b=self.b)
    def max(self, d, a, c): _o.max(d, a, c, self.n, _b=self.b)
    def min(self, d, a, c): _o.min(d, a, c, self.n, _b=self.b)
    def adds(self, d, a, s): _o.adds(d, a, float(s), self.n, _b=self.b)
    def muls(self, d, a, s): _o.muls(d, a, float(s), self.n, _b=self.b)
    def maxs(self, d, a, s): _o.maxs(d, a, float(s), self.n, _b=self.b)
    def mins(self, d, a, s): _o.mins(d, a, float(s), self.n, _b=self.b)
    def abs(self, d, a): _o.abs(d, a, self.n, _b=self.b)
    def exp(self, d, a): _o.exp(d, a, self.n, _b=self.b)
    def ln(self, d, a): _o.ln(d, a, self.n, _b=self.b)
    def sqrt(self, d, a): _o.sqrt(d, a, self.n, _b=self.b)
    def dup(self, d, s): _o.duplicate(d, float(s), self.n, _b=self.b)

    def rnd(self, d, a, mode):
        """d = a rounded to an integral float32 (vconv.f32.f32)."""
        _o.cast(d, a, mode, self.n, _b=self.b)

    def clamp(self, d, a, lo, hi):
        self.maxs(d, a, lo)
        self.mins(d, d, hi)

    def sign(self, d, a):
        """d = -1, 0 or +1: a * 2^62 clamped to [-1, 1], three times, so every nonzero float32
        (denormals too: 2^-149 * 2^186 >= 1) reaches +-1 and infinities clamp.  Ascend C divides
        x * 2^62 by |x * 2^62| + 2^-62 (atan_common_impl.h Sign), which is NaN past 2^66."""
        self.muls(d, a, BIG)
        self.clamp(d, d, -1.0, 1.0)
        for _ in range(2):
            self.muls(d, d, BIG)
            self.clamp(d, d, -1.0, 1.0)

    def horner(self, d, x, coefs, t):
        """d = c0 * x^m + c1 * x^(m-1) + ... + cm (coefs highest first); t is scratch."""
        self.muls(d, x, coefs[0])
        self.adds(d, d, coefs[1])
        for c in coefs[2:]:
            self.mul(t, d, x)
            self.adds(d, t, c)

    def blend(self, d, a, c, sel, t):
        """d = a + sel * (c - a): c where sel is 1, a where it is 0."""
        self.sub(t, c, a)
        self.mul(t, t, sel)
        self.add(d, a, t)


# ---- the chunk driver ------------------------------------------------------------------------
def _need_ub(b, name, t, what):
    if not isinstance(t, LocalTensor):
        raise b.error(f"asc.adv.{name}: {what} must be a LocalTensor, got {tensor_type_name(t)}")
    if t.buf != "UB":
        raise b.error(f"asc.adv.{name}: {what} must be in UB (VECIN/VECOUT/VECCALC), got a {t.pos.name} tensor")


def _count_of(b, name, count, dst):
    if count is None:
        count = dst.size
    if isinstance(count, bool) or not (isinstance(count, int) or isinstance(count, RVal)):
        raise b.error(f"asc.adv.{name}: count must be an integer, got {tensor_type_name(count)}")
    if isinstance(count, RVal):
        if count.ty != "i64":
            raise b.error(f"asc.adv.{name}: count must be an integer, got a run-time float")
        return count
    if count <= 0:
        raise b.error(f"asc.adv.{name}: count must be positive, got {count}")
    for t in (dst,):
        if is_static(t.size) and t.size and count > t.size:
            raise b.error(f"asc.adv.{name}: count {count} is more than the {t.size} elements of the destination")
    return count


def _temp(b, name, temp_buffer, k, count, size_hint):
    """(float32 slices of the temporary, ch): k slices of ch elements (none when k is 0: one
    chunk of the whole count)."""
    if k == 0:
        return [], (count if is_static(count) else size_hint)
    if temp_buffer is not None:
        _need_ub(b, name, temp_buffer, "temp_buffer")
        nbytes = temp_buffer.size * temp_buffer.dtype.sizeof() if is_static(temp_buffer.size) else None
        if nbytes is None:
            raise b.error(f"asc.adv.{name}: temp_buffer needs a compile-time size")
        ch = nbytes // (4 * k) // LANES * LANES
        if ch < LANES:
            raise b.error(f"asc.adv.{name}: temp_buffer of {nbytes} bytes is too small: this function needs "
                          f"{k} float32 slices of at least {LANES} elements ({k * LANES * 4} bytes)")
        base = temp_buffer.reinterpret_cast(F32)
    else:
        want = count if is_static(count) else size_hint
        if not is_static(want) or not want:
            raise b.error(f"asc.adv.{name}: a run-time count needs a destination of compile-time size or a "
                          f"temp_buffer")
        ch = _bi.min(MAX_CH, -(-int(want) // LANES) * LANES)
        key = f"q{len(b.fn.buffers)}"
        req = BufferReq(key, "UB", 1, k * ch * 4, b.loc, f"{key}:asc.adv.{name} temporary")
        b.fn.buffers.append(req)
        base = LocalTensor._make(b, F32, temp_buffer_pos(), ir.Sym("buf", (key, 0)), k * ch, (key, 0))
    return [base[i * ch:(i + 1) * ch] for i in range(k)], ch


def temp_buffer_pos():
    from ..language.enums import TPosition
    return TPosition.VECCALC


def _chunks(b, count, ch):
    """(offset, n) of each chunk: whole chunks of ch, then the rest (a run-time count is one
    chunk: the destination's size bounds it, checked against ch by the caller)."""
    if not is_static(count):
        return [(0, count)]
    out, off = [], 0
    while off < count:
        n = _bi.min(ch, count - off)
        out.append((off, n))
        off += n
    return out


def _float_types(b, name, *ts):
    for t in ts:
        if t.dtype.isa not in ("f16", "f32"):
            raise b.error(f"asc.adv.{name} supports float16 and float32 tensors, got {t.dtype.name}")
    for t in ts[1:]:
        if t.dtype != ts[0].dtype:
            raise b.error(f"asc.adv.{name}: operands must have the same dtype, got {ts[0].dtype.name} and "
                          f"{t.dtype.name}")


def _run(name, b, dst, srcs, count, temp_buffer, k, body):
    """Drive body(v, out, xs, T) over the chunks: xs the float32 inputs, out where the float32
    result goes, T the k float32 scratch slices (the float16 widening slices come after them)."""
    for i, t in enumerate([dst] + list(srcs)):
        _need_ub(b, name, t, "dst" if i == 0 else "src")
    _float_types(b, name, dst, *srcs)
    count = _count_of(b, name, count, dst)
    half = dst.dtype.isa == "f16"
    extra = (len(srcs) + 1) if half else 0
    T, ch = _temp(b, name, temp_buffer, k + extra, count, dst.size)
    if not is_static(count) and is_static(dst.size) and dst.size > ch:
        raise b.error(f"asc.adv.{name}: a run-time count over a destination of {dst.size} elements needs a "
                      f"temp_buffer of {(k + extra) * 4 * dst.size} bytes ({k + extra} float32 slices)")
    scratch, wide = T[:k], T[k:]
    for off, n in _chunks(b, count, ch):
        v = _V(b, n)
        xs = []
        for j, s in enumerate(srcs):
            if half:
                _o.cast(wide[j], s[off:], RoundMode.CAST_NONE, n, _b=b)
                xs.append(wide[j])
            else:
                xs.append(s[off:])
        out = wide[-1] if half else dst[off:]
        body(v, out, xs, scratch)
        if half:
            _o.cast(dst[off:], out, RoundMode.CAST_RINT, n, _b=b)


def _unary_api(name, k, body, doc):
    @intrinsic
    def fn(dst, src, count=None, temp_buffer=None, is_reuse_source=False, *, _b):
        _run(name, _b, dst, [src], count, temp_buffer, k, lambda v, out, xs, T: body(v, out, xs[0], T))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


# ---- algorithms (float32, out may alias nothing it reads except where noted) -----------------
def _sign(v, out, x, T):
    v.sign(out, x)


def _rounding(mode):
    def body(v, out, x, T):
        v.rnd(out, x, mode)
    return body


def _frac(v, out, x, T):
    # Ascend C frac_common_impl.h: x - trunc(x)
    v.rnd(T[0], x, RoundMode.CAST_TRUNC)
    v.sub(out, x, T[0])


def _log(v, out, x, T):
    v.ln(out, x)


# sin / cos: Cody-Waite reduction by k*pi with pi split in five parts and a degree-9 odd
# polynomial on [-pi/2, pi/2], sign (-1)^k (cannmirror/asc-devkit impl/adv_api/detail/math/cos/
# cos_common_impl.h; sin_common_impl.h uses the same reduction without the pi/2 shift).
_PI_PARTS = (3.140625, 0.0009670257568359375, 6.2771141529083251953125e-7, 1.21644916362129151821136474609375e-10,
             -1.0290623200529979163359041220560e-13)
_SIN_POLY = (2.604926501e-6, -0.0001980894471, 0.008333049340, -0.1666665792)


def _reduce_pi(v, r, k, x, T, shift):
    """k = rint(x/pi + shift), r = x - k*pi (+ pi/2 when shift, split as in cos_common_impl.h)."""
    t = T[0]
    v.muls(k, x, 0.3183098733425140380859375)
    if shift:
        v.adds(k, k, 0.5)
    v.rnd(k, k, RoundMode.CAST_RINT)
    v.muls(t, k, _PI_PARTS[0])
    v.sub(r, x, t)
    v.muls(t, k, _PI_PARTS[1])
    v.sub(r, r, t)
    if shift:
        v.adds(r, r, 1.57079637050628662109375)
    for p in _PI_PARTS[2:]:
        v.muls(t, k, p)
        v.sub(r, r, t)
    if shift:
        v.adds(r, r, -0.00000004371139000189375)


def _sin_poly(v, out, r, k, T):
    """out = (-1)^k * (r + r^3 * P(r^2)); T[0], T[1] scratch; k destroyed."""
    r2, t = T[0], T[1]
    v.mul(r2, r, r)
    v.horner(out, r2, _SIN_POLY, t)
    v.mul(out, out, r2)
    v.mul(out, out, r)
    v.add(out, out, r)
    # (-1)^k = 1 - 2 * (k - 2 * floor(k / 2))
    v.muls(t, k, 0.5)
    v.rnd(t, t, RoundMode.CAST_FLOOR)
    v.muls(t, t, -2.0)
    v.add(t, t, k)
    v.muls(t, t, -2.0)
    v.adds(t, t, 1.0)
    v.mul(out, out, t)


def _sin(v, out, x, T):
    _reduce_pi(v, T[2], T[3], x, T, False)
    _sin_poly(v, out, T[2], T[3], T)


def _cos(v, out, x, T):
    _reduce_pi(v, T[2], T[3], x, T, True)
    _sin_poly(v, out, T[2], T[3], T)


def _tan(v, out, x, T):
    # sin / cos of the same argument (the reductions above); Ascend C tan_common_impl.h reduces
    # by pi/2 with its own rational polynomial.
    _sin(v, T[4], x, T)
    _cos(v, out, x, T)
    v.div(out, T[4], out)


# asin: Taylor series of 8 terms (kCOEF of impl/adv_api/detail/math/math_constant_util.h) on
# |x| <= sqrt(2)/2, pi/2 - asin(sqrt(1 - x^2)) above; branch choice -floor(min(|x|, B) - B)
# (asin_common_impl.h).
_ASIN_COEF = (1.0, 0.16666666666666666666666666666667, 0.075, 0.04464285714285714285714285714286,
              0.03038194444444444444444444444444, 0.02237215909090909090909090909091,
              0.01735276442307692307692307692308, 0.01396484375)
_BOUNDARY = 0.70710678118654752440084436210485


def _asin_taylor(v, d, y, T):
    """d = asin(y) by the series, y in [0, B]; T[0], T[1] scratch."""
    y2, t = T[0], T[1]
    v.mul(y2, y, y)
    v.horner(d, y2, _ASIN_COEF[::-1], t)
    v.mul(d, d, y)


def _asin(v, out, x, T):
    a, r1, r2, c = T[2], T[3], T[4], T[5]
    v.abs(a, x)
    _asin_taylor(v, r1, a, T)
    v.mul(c, a, a)                       # sqrt(1 - x^2)
    v.muls(c, c, -1.0)
    v.adds(c, c, 1.0)
    v.maxs(c, c, 0.0)
    v.sqrt(c, c)
    _asin_taylor(v, r2, c, T)
    v.muls(r2, r2, -1.0)
    v.adds(r2, r2, HALF_PI)
    v.mins(c, a, _BOUNDARY)              # choice: 1 below the boundary, 0 above
    v.adds(c, c, -_BOUNDARY)
    v.rnd(c, c, RoundMode.CAST_FLOOR)
    v.muls(c, c, -1.0)
    v.blend(r2, r2, r1, c, T[0])
    v.sign(c, x)
    v.mul(out, r2, c)


def _acos(v, out, x, T):
    # acos_common_impl.h: pi/2 - asin(x)
    _asin(v, T[6], x, T)
    v.muls(out, T[6], -1.0)
    v.adds(out, out, HALF_PI)


# atan: Taylor series about 0, pi/8 and pi/4 on reduced arguments, the minimum of the
# candidates (atan_common_impl.h AtanFormulaImpl), input clipped to [-10000, 10000].
_ATAN_F = (1.0, -0.3333333333333333, 0.2, -0.14285714285714285, 0.1111111111111111, -0.09090909090909091,
           0.07692307692307693)
_TAN_PI_8 = 0.4142135623730950


def _atan_taylor(v, d, y, sq, level):
    v.mul(sq, y, y)
    v.muls(d, sq, _ATAN_F[level])
    for i in range(level - 1, 0, -1):
        v.adds(d, d, _ATAN_F[i])
        v.mul(d, d, sq)
    v.adds(d, d, _ATAN_F[0])
    v.mul(d, d, y)


def _atan_transform(v, d, y, t):
    """d = |(y - tan(pi/8)) / (1 + y * tan(pi/8))|."""
    v.muls(d, y, _TAN_PI_8)
    v.adds(d, d, 1.0)
    v.adds(t, y, -_TAN_PI_8)
    v.div(d, t, d)
    v.abs(d, d)


def _atan(v, out, x, T):
    t1, clip, a, t2, sq = T[0], T[1], T[2], T[3], T[4]
    v.clamp(clip, x, -10000.0, 10000.0)
    v.abs(a, clip)
    _atan_taylor(v, out, a, sq, 4)
    _atan_transform(v, t1, a, t2)
    _atan_taylor(v, t2, t1, sq, 4)
    v.adds(t2, t2, PI / 8)
    v.min(out, out, t2)
    v.adds(t2, a, 1.0)
    v.adds(t1, a, -1.0)
    v.div(t1, t1, t2)
    v.abs(t1, t1)
    _atan_taylor(v, t2, t1, sq, 4)
    v.adds(t2, t2, PI / 4)
    v.min(out, out, t2)
    _atan_transform(v, t2, t1, sq)
    _atan_taylor(v, t1, t2, sq, 6)
    v.adds(t1, t1, PI / 8)
    v.adds(t1, t1, PI / 4)
    v.min(out, out, t1)
    v.sign(t1, clip)
    v.mul(out, out, t1)


# hyperbolic functions from exp / ln / sqrt (sinh_common_impl.h, cosh_common_impl.h,
# tanh_common_impl.h: x clipped to [-8.8, 8.8], (e^2x - 1) / (e^2x + 1); asinh/acosh/atanh
# *_common_impl.h: the logarithmic forms).
def _sinh(v, out, x, T):
    v.exp(T[0], x)
    v.muls(T[1], x, -1.0)
    v.exp(T[1], T[1])
    v.sub(out, T[0], T[1])
    v.muls(out, out, 0.5)


def _cosh(v, out, x, T):
    v.exp(T[0], x)
    v.muls(T[1], x, -1.0)
    v.exp(T[1], T[1])
    v.add(out, T[0], T[1])
    v.muls(out, out, 0.5)


def _tanh(v, out, x, T):
    v.clamp(T[0], x, -8.8, 8.8)
    v.muls(T[0], T[0], 2.0)
    v.exp(T[0], T[0])
    v.adds(out, T[0], -1.0)
    v.adds(T[0], T[0], 1.0)
    v.div(out, out, T[0])


def _asinh(v, out, x, T):
    a, t = T[0], T[1]
    v.abs(a, x)
    v.mul(t, a, a)
    v.adds(t, t, 1.0)
    v.sqrt(t, t)
    v.add(t, t, a)
    v.ln(t, t)
    v.sign(a, x)
    v.mul(out, t, a)


def _acosh(v, out, x, T):
    t = T[0]
    v.mul(t, x, x)
    v.adds(t, t, -1.0)
    v.sqrt(t, t)
    v.add(t, t, x)
    v.ln(out, t)


def _atanh(v, out, x, T):
    v.adds(T[0], x, 1.0)
    v.muls(T[1], x, -1.0)
    v.adds(T[1], T[1], 1.0)
    v.div(T[0], T[0], T[1])
    v.ln(out, T[0])
    v.muls(out, out, 0.5)


# erf: x clipped to [-3.92, 3.92], x * P(x^2) / Q(x^2) (erf_common_impl.h ErfComputeP/Q).
_ERF_P = (0.053443748819, 0.75517016694e1, 0.10162808918e3, 0.13938061484e4, 0.50637915060e4, 0.29639384698e5)
_ERF_Q = (1.0, 0.31212858877e2, 0.39856963806e3, 0.30231248150e4, 0.13243365831e5, 0.26267224157e5)


def _erf(v, out, x, T):
    c, x2, p, t = T[0], T[1], T[2], T[3]
    v.clamp(c, x, -3.92, 3.92)
    v.mul(x2, c, c)
    v.horner(p, x2, _ERF_P, t)
    v.mul(p, p, c)
    v.horner(out, x2, _ERF_Q, t)
    v.div(out, p, out)


# erfc: z = |x| clipped to 10, q = exp(-z^2) * R(z) / S(z), erfc = (1 - s) + s * q with
# s = sign(x) (erfc_common_impl.h ErfcComputeR/S/PostCompute).
_ERFC_R = (0.1735313680e-7, -0.9856738394e-6, 0.2517003236e-4, -0.3848015171e-3, 0.5681528564e0, 0.5245623129e1,
           0.2107740710e2, 0.4212761755e2, 0.4380524149e2)
_ERFC_S = (1.0, 0.9349684299e1, 0.3756930664e2, 0.8058268949e2, 0.9155653738e2, 0.4380524152e2)


def _erfc(v, out, x, T):
    z, r, s, t = T[0], T[1], T[2], T[3]
    v.clamp(z, x, -10.0, 10.0)
    v.abs(z, z)
    v.horner(r, z, _ERFC_R, t)
    v.horner(s, z, _ERFC_S, t)
    v.div(r, r, s)
    v.mul(z, z, z)
    v.muls(z, z, -1.0)
    v.exp(z, z)
    v.mul(r, r, z)                    # q
    v.sign(s, x)
    v.mul(r, r, s)                    # s * q
    v.muls(s, s, -1.0)
    v.adds(s, s, 1.0)                 # 1 - s
    v.add(out, r, s)


# lgamma / digamma: shift by 7 (recurrence), Stirling / asymptotic series at z + 7 >= 7, and the
# reflection formula for x < 0.  This is NOT Ascend C's algorithm (lgamma_common_impl.h and
# digamma_common_impl.h use piecewise polynomials per interval); see docs/pyasc.md.
_SHIFT = 7
_LN_SQRT_2PI = 0.91893853320467274178


def _lgamma_pos(v, d, z, T):
    """d = lgamma(z), z > 0 (T[0..2] scratch)."""
    w, acc, t = T[0], T[1], T[2]
    v.ln(acc, z)
    for i in range(1, _SHIFT):
        v.adds(w, z, float(i))
        v.ln(w, w)
        v.add(acc, acc, w)
    v.adds(w, z, float(_SHIFT))
    # (w - 0.5) ln w - w + ln sqrt(2 pi) + 1/(12 w) - 1/(360 w^3) + 1/(1260 w^5)
    v.ln(d, w)
    v.adds(t, w, -0.5)
    v.mul(d, d, t)
    v.sub(d, d, w)
    v.adds(d, d, _LN_SQRT_2PI)
    v.sub(d, d, acc)
    v.dup(t, 1.0)
    v.div(w, t, w)                    # 1/w
    v.mul(t, w, w)                    # 1/w^2
    v.horner(acc, t, (1.0 / 1260, -1.0 / 360, 1.0 / 12), T[3])
    v.mul(acc, acc, w)
    v.add(d, d, acc)


def _digamma_pos(v, d, z, T):
    """d = digamma(z), z > 0 (T[0..3] scratch)."""
    w, acc, t = T[0], T[1], T[2]
    v.dup(t, 1.0)
    v.div(acc, t, z)
    for i in range(1, _SHIFT):
        v.adds(w, z, float(i))
        v.div(w, t, w)
        v.add(acc, acc, w)
    v.adds(w, z, float(_SHIFT))
    v.ln(d, w)
    v.sub(d, d, acc)
    v.div(w, t, w)                    # 1/w
    v.muls(acc, w, -0.5)
    v.add(d, d, acc)
    v.mul(t, w, w)                    # 1/w^2
    # - 1/(12 w^2) + 1/(120 w^4) - 1/(252 w^6)
    v.horner(acc, t, (-1.0 / 252, 1.0 / 120, -1.0 / 12), T[3])
    v.mul(acc, acc, t)
    v.add(d, d, acc)


def _reflect_parts(v, neg, xa, xb, x, T):
    t = T[0]
    v.sign(neg, x)
    v.muls(neg, neg, -1.0)
    v.maxs(neg, neg, 0.0)
    # xa = x + neg * (1 - x)
    v.muls(t, x, -1.0)
    v.adds(t, t, 1.0)
    v.mul(t, t, neg)
    v.add(xa, x, t)
    # xb = -0.5 + neg * (x + 0.5)
    v.adds(t, x, 0.5)
    v.mul(t, t, neg)
    v.adds(xb, t, -0.5)


def _lgamma(v, out, x, T):
    neg, xa, xb, ra, sn = T[4], T[5], T[6], T[7], T[8]
    _reflect_parts(v, neg, xa, xb, x, T)
    _lgamma_pos(v, ra, xa, T)
    # x < 0: ln(pi) - ln|sin(pi x)| - lgamma(1 - x)
    v.muls(sn, xb, PI)
    _sin(v, out, sn, T)
    v.abs(out, out)
    v.ln(out, out)
    v.muls(sn, xb, -1.0)
    v.adds(sn, sn, 1.0)
    v.muls(xa, out, -1.0)             # xa is free now: -ln|sin|
    _lgamma_pos(v, out, sn, T)
    v.sub(xa, xa, out)
    v.adds(xa, xa, 1.1447298858494002)   # ln(pi)
    v.blend(out, ra, xa, neg, T[0])


def _digamma(v, out, x, T):
    neg, xa, xb, ra, sn = T[4], T[5], T[6], T[7], T[8]
    _reflect_parts(v, neg, xa, xb, x, T)
    _digamma_pos(v, ra, xa, T)
    # x < 0: digamma(1 - x) - pi * cos(pi x) / sin(pi x)
    v.muls(sn, xb, PI)
    _cos(v, out, sn, T)
    v.muls(xa, out, PI)               # xa is free now
    _sin(v, out, sn, T)
    v.div(xa, xa, out)
    v.muls(sn, xb, -1.0)
    v.adds(sn, sn, 1.0)
    _digamma_pos(v, out, sn, T)
    v.sub(xa, out, xa)
    v.blend(out, ra, xa, neg, T[0])


def _doc(what, src):
    return (f"asc.adv: {what} element-wise (dst, src, count=None, temp_buffer=None, is_reuse_source=False); "
            f"float16/float32, computed in float32 (cannmirror/asc-devkit impl/adv_api/detail/math/{src}).")


_K = {}  # name -> (k, body, what, impl)
for _name, _k, _body, _what, _src in (
        ("sign", 0, _sign, "sign (-1, 0, 1)", "sign/sign_common_impl.h"),
        ("floor", 0, _rounding(RoundMode.CAST_FLOOR), "round toward -inf", "floor/floor_v220_impl.h"),
        ("ceil", 0, _rounding(RoundMode.CAST_CEIL), "round toward +inf", "ceil/ceil_v220_impl.h"),
        ("trunc", 0, _rounding(RoundMode.CAST_TRUNC), "round toward 0", "trunc/trunc_common_impl.h"),
        ("round", 0, _rounding(RoundMode.CAST_RINT), "round to nearest, ties to even", "round/round_v220_impl.h"),
        ("frac", 1, _frac, "x - trunc(x)", "frac/frac_common_impl.h"),
        ("log", 0, _log, "natural logarithm", "log/log_common_impl.h"),
        ("sin", 4, _sin, "sine", "sin/sin_common_impl.h"),
        ("cos", 4, _cos, "cosine", "cos/cos_common_impl.h"),
        ("tan", 5, _tan, "tangent", "tan/tan_common_impl.h"),
        ("asin", 6, _asin, "arc sine", "asin/asin_common_impl.h"),
        ("acos", 7, _acos, "arc cosine", "acos/acos_common_impl.h"),
        ("atan", 5, _atan, "arc tangent", "atan/atan_common_impl.h"),
        ("sinh", 2, _sinh, "hyperbolic sine", "sinh/sinh_common_impl.h"),
        ("cosh", 2, _cosh, "hyperbolic cosine", "cosh/cosh_v220_impl.h"),
        ("tanh", 1, _tanh, "hyperbolic tangent", "tanh/tanh_common_impl.h"),
        ("asinh", 2, _asinh, "inverse hyperbolic sine", "asinh/asinh_common_impl.h"),
        ("acosh", 1, _acosh, "inverse hyperbolic cosine", "acosh/acosh_common_impl.h"),
        ("atanh", 2, _atanh, "inverse hyperbolic tangent", "atanh/atanh_common_impl.h"),
        ("erf", 4, _erf, "error function", "erf/erf_common_impl.h"),
        ("erfc", 4, _erfc, "complementary error function", "erfc/erfc_common_impl.h"),
        ("lgamma", 9, _lgamma, "log |Gamma(x)|", "lgamma/lgamma_common_impl.h"),
        ("digamma", 9, _digamma, "digamma (psi)", "digamma/digamma_common_impl.h")):
    globals()[_name] = _unary_api(_name, _k, _body, _doc(_what, _src))


@intrinsic
def exp(dst, src, count=None, taylor_expand_level=0, temp_buffer=None, is_reuse_source=False, *, _b):
    """asc.adv.exp: e^x; taylor_expand_level 0 is the vexp instruction, n > 0 splits x into
    floor(x) (vexp) and the fraction f in [0, 1) (Taylor series of n + 1 terms), as Ascend C
    Exp<T, taylorExpandLevel> (impl/adv_api/detail/math/exp/exp_common_impl.h)."""
    b = _b
    if not is_static(taylor_expand_level) or isinstance(taylor_expand_level, bool) \
            or not isinstance(taylor_expand_level, int) or not 0 <= taylor_expand_level <= 255:
        raise b.error("asc.adv.exp: taylor_expand_level must be a compile-time integer in [0, 255]")
    lvl = taylor_expand_level

    def body(v, out, xs, T):
        x = xs[0]
        if lvl == 0:
            v.exp(out, x)
            return
        n, f, t = T[0], T[1], T[2]
        v.rnd(n, x, RoundMode.CAST_FLOOR)
        v.sub(f, x, n)
        # sum_{i<=lvl} f^i / i!  =  1 + f (1 + f/2 (1 + f/3 (...)))
        v.muls(out, f, 1.0 / lvl)
        v.adds(out, out, 1.0)
        for i in range(lvl - 1, 0, -1):
            v.mul(t, out, f)
            v.muls(t, t, 1.0 / i)
            v.adds(out, t, 1.0)
        v.exp(n, n)
        v.mul(out, out, n)
    _run("exp", b, dst, [src], count, temp_buffer, 3, body)


@intrinsic
def power(dst, src0, src1, count=None, temp_buffer=None, is_reuse_source=False, *, _b):
    """asc.adv.power: src0 ** src1 for float16/float32: exp(src1 * ln|src0|), negated where
    src0 < 0 and src1 is an odd integer (Ascend C Power, impl/adv_api/detail/math/power/
    power_common_impl.h, float path).  src0 < 0 with a non-integer src1 is not NaN here (numpy's
    answer): the result is |src0| ** src1; 0 ** 0 is NaN (0 * ln 0)."""
    def body(v, out, xs, T):
        x, y = xs
        a, s, t = T[0], T[1], T[2]
        v.abs(a, x)
        v.ln(a, a)
        v.mul(a, a, y)
        v.exp(a, a)
        # odd(y) = y - 2 floor(y/2) (1 for odd integers); neg(x) = max(-sign(x), 0)
        v.muls(t, y, 0.5)
        v.rnd(t, t, RoundMode.CAST_FLOOR)
        v.muls(t, t, -2.0)
        v.add(t, t, y)
        v.sign(s, x)
        v.muls(s, s, -1.0)
        v.maxs(s, s, 0.0)
        v.mul(t, t, s)                # 1 where x < 0 and y odd
        v.muls(t, t, -2.0)
        v.adds(t, t, 1.0)
        v.mul(out, a, t)
    _run("power", _b, dst, [src0, src1], count, temp_buffer, 3, body)


@intrinsic
def xor(dst, src0, src1, count=None, temp_buffer=None, is_reuse_source=False, *, _b):
    """asc.adv.xor for int16/uint16: (a | b) & ~(a & b) with vor, vand, vnot on the 16-bit
    lanes, through a temporary (Ascend C Xor, impl/adv_api/detail/math/xor/xor_membase_impl.h)."""
    b = _b
    name = "xor"
    for i, t in enumerate((dst, src0, src1)):
        _need_ub(b, name, t, "dst" if i == 0 else "src")
        if t.dtype.isa not in ("s16", "u16"):
            raise b.error(f"asc.adv.xor supports int16 and uint16 tensors, got {t.dtype.name}")
    count = _count_of(b, name, count, dst)
    T, ch = _temp(b, name, temp_buffer, 1, count, dst.size)
    if not is_static(count) and is_static(dst.size) and dst.size > 2 * ch:
        raise b.error(f"asc.adv.xor: a run-time count needs a temp_buffer of {2 * dst.size} bytes")
    u16 = dt.uint16
    tmp = T[0].reinterpret_cast(u16)
    d, a, c = (t.reinterpret_cast(u16) for t in (dst, src0, src1))
    for off, n in _chunks(b, count, 2 * ch):
        _o.bitwise_and(tmp, a[off:], c[off:], n, _b=b)
        _o.bitwise_not(tmp, tmp, n, _b=b)
        _o.bitwise_or(d[off:], a[off:], c[off:], n, _b=b)
        _o.bitwise_and(d[off:], d[off:], tmp, n, _b=b)


@intrinsic
def axpy(dst, src, scalar, count=None, temp_buffer=None, is_reuse_source=False, *, _b):
    """asc.adv.axpy: dst += src * scalar by Muls then Add (more exact than the vaxpy instruction),
    half/half, float/float and half src into a float dst (impl/adv_api/detail/math/axpy/
    axpy_common_impl.h)."""
    b = _b
    name = "axpy"
    _need_ub(b, name, dst, "dst")
    _need_ub(b, name, src, "src")
    pair = (src.dtype.isa, dst.dtype.isa)
    if pair not in (("f16", "f16"), ("f32", "f32"), ("f16", "f32")):
        raise b.error(f"asc.adv.axpy supports (src, dst) float16/float16, float32/float32 and float16/float32, "
                      f"got {src.dtype.name}/{dst.dtype.name}")
    if isinstance(scalar, LocalTensor) or not (is_static(scalar) or isinstance(scalar, RVal)):
        raise b.error(f"asc.adv.axpy: scalar must be a number, got {tensor_type_name(scalar)}")
    count = _count_of(b, name, count, dst)
    if pair == ("f16", "f16"):
        # half: Muls and Add in half (PAR 128), as Ascend C's half combination
        T, ch = _temp(b, name, temp_buffer, 1, count, dst.size)
        th = T[0].reinterpret_cast(dt.float16)
        for off, n in _chunks(b, count, 2 * ch):
            _o.muls(th, src[off:], scalar, n, _b=b)
            _o.add(dst[off:], dst[off:], th, n, _b=b)
        return
    if pair == ("f16", "f32") and is_static(scalar):
        scalar = _struct.unpack("<e", _struct.pack("<e", float(scalar)))[0]   # the scalar is a half (U)
    T, ch = _temp(b, name, temp_buffer, 1, count, dst.size)
    for off, n in _chunks(b, count, ch):
        if pair == ("f16", "f32"):
            _o.cast(T[0], src[off:], RoundMode.CAST_NONE, n, _b=b)
            _o.muls(T[0], T[0], scalar, n, _b=b)
        else:
            _o.muls(T[0], src[off:], scalar, n, _b=b)
        _o.add(dst[off:], dst[off:], T[0], n, _b=b)
