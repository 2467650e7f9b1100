/* fp16.c -- IEEE binary16 (half) and bfloat16 conversions to and from f32,
 * with every rounding mode of the ISA (AscRnd), plus the f64 -> f32 and
 * float -> integer roundings vconv needs.
 *
 * Users: exec_vector.c (f16/bf16 arithmetic and vconv), exec_cube.c (mmad
 * inputs, fixpipe outputs), the engine and the Python runtime via libasc.
 *
 * Invariants: widening (f16/bf16 -> f32) is exact, including subnormals,
 * infinities and NaN payloads (NaNs come out quiet).  Narrowing is exact
 * integer arithmetic on the f32 bits, so it does not depend on the host's
 * floating-point rounding mode.  ASC_RND_NONE means RINT (nearest, ties to
 * even) everywhere. */
#include <math.h>
#include <string.h>

#include "exec_internal.h"

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float asc_f16_to_f32(uint16_t h) { return asc_f16_widen(h); }

float asc_bf16_to_f32(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) u |= 0x400000u; /* quiet NaN */
    return bits_f32(u);
}

/* Round an f32 to a narrower binary format with `ebits` exponent bits and
 * `mbits` stored mantissa bits (half: 5/10, bfloat16: 8/7) under `rnd`.
 *
 * The value is M * 2^E with M an integer of at most 24 bits.  The result
 * quantum is 2^q with q = max(floor(log2 |x|), emin) - mbits; the result
 * mantissa R = M * 2^(E-q) is rounded as an integer, looking at the bits
 * shifted out (rem) against half a quantum.  Encoding R * 2^q is then
 * ((q + mbits + bias - 1) << mbits) + R, which also handles subnormals
 * (exponent field 0) and a carry into the next binade. */
static uint16_t round_narrow(float f, unsigned ebits, unsigned mbits, AscRnd rnd)
{
    uint32_t u = f32_bits(f);
    uint32_t sign = u >> 31;
    uint32_t e = (u >> 23) & 0xff, m = u & 0x7fffff;
    uint32_t sbit = sign << (ebits + mbits);
    uint32_t inf = ((1u << ebits) - 1) << mbits;
    if (e == 0xff) {
        if (!m) return (uint16_t)(sbit | inf);
        return (uint16_t)(sbit | inf | (1u << (mbits - 1)) | (m >> (23 - mbits))); /* quiet NaN, payload top bits */
    }
    if (e == 0 && m == 0) return (uint16_t)sbit;
    int bias = (1 << (ebits - 1)) - 1;
    int emin = 1 - bias;
    uint64_t M = e ? (m | 0x800000u) : m;
    int E = e ? (int)e - 127 - 23 : -126 - 23;
    int msb = 63 - __builtin_clzll(M);
    int lg = msb + E;
    int q = (lg > emin ? lg : emin) - (int)mbits;
    int shift = q - E;
    uint64_t R, rem = 0, half = 0;
    if (shift <= 0) {
        R = M << -shift; /* exact (does not happen for f16/bf16) */
    } else if (shift > 40) {
        R = 0;
        rem = 1; /* nonzero, far below half a quantum */
        half = 1ull << 40;
    } else {
        R = M >> shift;
        rem = M & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
    }
    bool inc = false;
    switch (rnd) {
    case ASC_RND_NONE:
    case ASC_RND_RINT: inc = rem > half || (rem == half && rem && (R & 1)); break;
    case ASC_RND_ROUND: inc = rem && rem >= half; break;
    case ASC_RND_FLOOR: inc = sign && rem; break;
    case ASC_RND_CEIL: inc = !sign && rem; break;
    case ASC_RND_TRUNC: break;
    case ASC_RND_ODD:
        if (rem) R |= 1;
        break;
    default: inc = rem > half || (rem == half && rem && (R & 1)); break;
    }
    R += inc;
    if (R >> (mbits + 1)) { /* carried into the next binade */
        R >>= 1;
        q++;
    }
    int be = q + (int)mbits + bias; /* biased exponent when R is normal */
    if (be >= (1 << ebits) - 1) {   /* overflow */
        uint32_t maxf = inf - 1;
        bool to_inf;
        switch (rnd) {
        case ASC_RND_TRUNC:
        case ASC_RND_ODD: to_inf = false; break;
        case ASC_RND_FLOOR: to_inf = sign; break;
        case ASC_RND_CEIL: to_inf = !sign; break;
        default: to_inf = true; break;
        }
        return (uint16_t)(sbit | (to_inf ? inf : maxf));
    }
    return (uint16_t)(sbit | (((uint32_t)(be - 1) << mbits) + (uint32_t)R));
}

/* Nearest-even f32 -> f16.  Fast path (the host profile of a 16M-element
 * vadd spent 28% here): when |f| lies in [2^-14, 65520) the result is a
 * normal f16 or 65504, and rounding is integer arithmetic on the bits:
 * rebias the exponent (127 -> 15), add half an f16 ulp minus one plus the
 * kept lsb (ties to even), drop 13 bits; a mantissa carry moves into the
 * exponent by itself.  Everything else (subnormals, overflow, inf, NaN)
 * goes through round_narrow.  test_fp16 checks both paths agree.  The
 * fast path is asc_f16_narrow (exec_internal.h), inline for the vector lanes. */
uint16_t asc_f32_to_f16(float f) { return asc_f16_narrow(f); }
uint16_t asc_f32_to_f16_rnd(float f, AscRnd rnd) { return round_narrow(f, 5, 10, rnd); }
uint16_t asc_f32_to_bf16(float f) { return round_narrow(f, 8, 7, ASC_RND_RINT); }
uint16_t asc_f32_to_bf16_rnd(float f, AscRnd rnd) { return round_narrow(f, 8, 7, rnd); }

/* f64 -> f32 under `rnd`: the host's conversion (nearest even) gives one
 * neighbour; the other is one f32 ulp away on the far side of d. */
float asc_f64_to_f32_rnd(double d, AscRnd rnd)
{
    float f = (float)d;
    if (isnan(d) || (double)f == d || rnd == ASC_RND_NONE || rnd == ASC_RND_RINT) return f;
    float lo, hi;
    if ((double)f > d) {
        hi = f;
        lo = nextafterf(f, -INFINITY);
    } else {
        lo = f;
        hi = nextafterf(f, INFINITY);
    }
    switch (rnd) {
    case ASC_RND_FLOOR: return lo;
    case ASC_RND_CEIL: return hi;
    case ASC_RND_TRUNC: return d > 0 ? lo : hi;
    case ASC_RND_ROUND: {
        double mid = ((double)lo + (double)hi) / 2; /* exact in f64 */
        if (d == mid) return d > 0 ? hi : lo;
        return f;
    }
    case ASC_RND_ODD: return (f32_bits(lo) & 1) ? lo : hi;
    default: return f;
    }
}

/* Round to an integral value under `rnd` (no range limit). */
static double round_integral(double d, AscRnd rnd);

double asc_round_integral(double d, AscRnd rnd)
{
    if (!isfinite(d)) return d;
    double r = round_integral(d, rnd);
    return r == 0 ? copysign(0.0, d) : r; /* rint(-0.3) is -0 */
}

static double round_integral(double d, AscRnd rnd)
{
    switch (rnd) {
    case ASC_RND_FLOOR: return floor(d);
    case ASC_RND_CEIL: return ceil(d);
    case ASC_RND_ROUND: return round(d); /* half away from zero */
    case ASC_RND_TRUNC: return trunc(d);
    case ASC_RND_ODD: {
        double t = trunc(d);
        if (t != d && fmod(t, 2.0) == 0) t += d > 0 ? 1 : -1;
        return t;
    }
    default: {
        /* nearest, ties to even, independent of the host rounding mode */
        double fl = floor(d), diff = d - fl;
        if (diff > 0.5) return fl + 1;
        if (diff < 0.5) return fl;
        return fmod(fl, 2.0) == 0 ? fl : fl + 1;
    }
    }
}

/* Float -> integer in [lo, hi]: round by rnd, saturate, NaN -> 0. */
int64_t asc_float_to_int_sat(double d, AscRnd rnd, int64_t lo, int64_t hi)
{
    if (isnan(d)) return 0;
    double r = asc_round_integral(d, rnd);
    if (r <= (double)lo) return lo;
    if (r >= (double)hi) return hi;
    return (int64_t)r;
}
