/* exec_ref.h -- an independent, deliberately simple reference of the
 * documented semantics (docs/semantics.md) for the exec unit tests.
 *
 * Written from the documentation, NOT from sim/exec_*.c: values are carried
 * in double, rounding to half/bfloat16/f32 goes through ref_round() built on
 * frexp/ldexp, addresses come straight from the one-line formula, and every
 * loop is the naive one.  Only the ISA table (asc_insn_info) is shared.
 * Header-only: every function is static. */
#ifndef ASC_EXEC_REF_H
#define ASC_EXEC_REF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "asc/isa.h"

/* ---- rounding to a binary format ----------------------------------------
 * p = significand bits including the implicit one (half 11, bf16 8, f32 24),
 * emin = exponent of the smallest normal, emax = of the largest finite.
 * Modes as AscRnd: 0 none (= nearest even), 1 rint, 2 floor, 3 ceil,
 * 4 round (half away), 5 trunc, 6 odd. */
static inline double ref_round_int(double s, int mode)
{
    double f = floor(s), frac = s - f;
    switch (mode) {
    case 2: return f;
    case 3: return ceil(s);
    case 4: return s >= 0 ? floor(s + 0.5) : -floor(-s + 0.5);
    case 5: return s >= 0 ? floor(s) : -floor(-s);
    case 6: {
        double t = s >= 0 ? floor(s) : -floor(-s);
        if (t != s && fmod(fabs(t), 2.0) == 0.0) t += s > 0 ? 1 : -1;
        return t;
    }
    default:
        if (frac > 0.5) return f + 1;
        if (frac < 0.5) return f;
        return fmod(fabs(f), 2.0) == 0.0 ? f : f + 1;
    }
}

static inline double ref_round(double x, int p, int emin, int emax, int mode)
{
    if (x == 0 || isnan(x) || isinf(x)) return x;
    int e;
    frexp(x, &e); /* |x| = f * 2^e, f in [0.5, 1): leading bit weight 2^(e-1) */
    int lead = e - 1 < emin ? emin : e - 1;
    int qe = lead - (p - 1);
    double r = ldexp(ref_round_int(ldexp(x, -qe), mode), qe);
    double maxf = ldexp(2.0 - ldexp(1.0, 1 - p), emax);
    if (fabs(r) > maxf) {
        bool neg = x < 0, inf;
        switch (mode) {
        case 2: inf = neg; break;
        case 3: inf = !neg; break;
        case 5: case 6: inf = false; break;
        default: inf = true; break;
        }
        r = inf ? (neg ? -INFINITY : INFINITY) : (neg ? -maxf : maxf);
    }
    if (r == 0) r = copysign(0.0, x);
    return r;
}

/* Encode a value exactly representable in (p, emin, ebits) as bits. */
static inline uint32_t ref_encode(double v, int p, int emin, int ebits)
{
    uint32_t sign = signbit(v) ? 1u : 0u, mbits = (uint32_t)p - 1;
    uint32_t out = sign << (ebits + mbits);
    if (isnan(v)) return out | (((1u << ebits) - 1) << mbits) | (1u << (mbits - 1));
    if (isinf(v)) return out | (((1u << ebits) - 1) << mbits);
    v = fabs(v);
    if (v == 0) return out;
    int e;
    frexp(v, &e);
    if (e - 1 < emin) return out | (uint32_t)ldexp(v, -(emin - (int)mbits)); /* subnormal */
    uint32_t be = (uint32_t)(e - 1 - emin + 1);
    uint32_t m = (uint32_t)(ldexp(v, -(e - 1)) * ldexp(1.0, (int)mbits)) - (1u << mbits);
    return out | (be << mbits) | m;
}

static inline double ref_decode(uint32_t bits, int p, int emin, int ebits)
{
    uint32_t mbits = (uint32_t)p - 1;
    bool neg = (bits >> (ebits + mbits)) & 1;
    uint32_t be = (bits >> mbits) & ((1u << ebits) - 1), m = bits & ((1u << mbits) - 1);
    double v;
    if (be == (1u << ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (be == 0)
        v = ldexp((double)m, emin - (int)mbits);
    else /* biased exponent 1 is emin */
        v = ldexp(1.0 + ldexp((double)m, -(int)mbits), (int)be - 1 + emin);
    return neg ? -v : v;
}

static inline uint16_t ref_to_half(double x, int mode) { return (uint16_t)ref_encode(ref_round(x, 11, -14, 15, mode), 11, -14, 5); }
static inline double ref_from_half(uint16_t h) { return ref_decode(h, 11, -14, 5); }
static inline uint16_t ref_to_bf16(double x, int mode) { return (uint16_t)ref_encode(ref_round(x, 8, -126, 127, mode), 8, -126, 8); }
static inline double ref_from_bf16(uint16_t h) { return ref_decode(h, 8, -126, 8); }
static inline float ref_to_f32(double x, int mode) { return (float)ref_round(x, 24, -126, 127, mode); }

/* ---- elements as doubles ----------------------------------------------- */
static inline double ref_load(const uint8_t *p, unsigned dt)
{
    uint16_t h;
    uint32_t w;
    float f;
    switch (dt) {
    case ASC_DT_F16: memcpy(&h, p, 2); return ref_from_half(h);
    case ASC_DT_BF16: memcpy(&h, p, 2); return ref_from_bf16(h);
    case ASC_DT_F32: memcpy(&f, p, 4); return f;
    case ASC_DT_S8: return (int8_t)p[0];
    case ASC_DT_U8: return p[0];
    case ASC_DT_S16: memcpy(&h, p, 2); return (int16_t)h;
    case ASC_DT_U16: memcpy(&h, p, 2); return h;
    case ASC_DT_S32: memcpy(&w, p, 4); return (int32_t)w;
    default: memcpy(&w, p, 4); return w;
    }
}

/* Store a double already rounded/integral as the element type; integers
 * wrap modulo 2^bits. */
static inline void ref_store(uint8_t *p, unsigned dt, double v)
{
    uint16_t h;
    uint32_t w;
    float f;
    switch (dt) {
    case ASC_DT_F16: h = ref_to_half(v, 1); memcpy(p, &h, 2); break;
    case ASC_DT_BF16: h = ref_to_bf16(v, 1); memcpy(p, &h, 2); break;
    case ASC_DT_F32: f = ref_to_f32(v, 1); memcpy(p, &f, 4); break;
    default: {
        int64_t i = (int64_t)v; /* callers pass integral values within int64 */
        unsigned sz = asc_dtype_size(dt);
        w = (uint32_t)(uint64_t)i;
        memcpy(p, &w, sz); /* little-endian low bytes */
        break;
    }
    }
}

/* ---- addressing and masks ---------------------------------------------- */
static inline uint64_t ref_addr(uint64_t base, unsigned r, unsigned i, unsigned size, unsigned blk, unsigned rep)
{
    unsigned per_block = 32 / size;
    return base + (uint64_t)r * rep * 32 + (uint64_t)(i / per_block) * blk * 32 + (uint64_t)(i % per_block) * size;
}

/* Repeats to run and whether lane i of repeat r is active. */
typedef struct RefMask {
    bool counter;
    uint64_t m0, m1, count;
    unsigned lanes, repeats;
} RefMask;

static inline RefMask ref_mask(const AscIssued *q, unsigned lanes, unsigned repeat_field)
{
    RefMask m;
    m.counter = (q->ctrl >> 56) & 1;
    m.m0 = q->mask0;
    m.m1 = q->mask1;
    m.lanes = lanes;
    m.count = q->mask0;
    m.repeats = m.counter ? (unsigned)((q->mask0 + lanes - 1) / lanes) : repeat_field;
    return m;
}

static inline bool ref_active(const RefMask *m, unsigned r, unsigned i)
{
    if (m->counter) return (uint64_t)r * m->lanes + i < m->count;
    if (i < 64) return (m->m0 >> i) & 1;
    return m->lanes > 64 && ((m->m1 >> (i - 64)) & 1);
}

/* ---- one log entry per destination lane written (for tolerant compare) - */
typedef struct RefLog {
    unsigned n;
    struct { uint64_t addr; unsigned dt; } e[40000];
} RefLog;

static inline void ref_log(RefLog *rl, uint64_t addr, unsigned dt)
{
    if (rl && rl->n < 40000) {
        rl->e[rl->n].addr = addr;
        rl->e[rl->n].dt = dt;
        rl->n++;
    }
}

static inline double ref_max(double a, double b)
{
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline double ref_min(double a, double b)
{
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* Round a double to the element type and return it as a double again
 * (to model "rounded after every add"). */
static inline double ref_fit(double v, unsigned dt)
{
    if (dt == ASC_DT_F16) return ref_from_half(ref_to_half(v, 1));
    if (dt == ASC_DT_BF16) return ref_from_bf16(ref_to_bf16(v, 1));
    if (dt == ASC_DT_F32) return ref_to_f32(v, 1);
    return v;
}

static inline double ref_scalar(uint64_t reg, unsigned dt)
{
    if (asc_dtype_is_float(dt)) {
        float f;
        uint32_t u = (uint32_t)reg;
        memcpy(&f, &u, 4);
        return ref_fit(f, dt);
    }
    if (dt == ASC_DT_S16) return (int16_t)reg;
    return (int32_t)reg;
}

static inline bool ref_cmp(double a, double b, unsigned cond)
{
    switch (cond) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a > b;
    case 4: return a >= b;
    default: return a <= b;
    }
}

static inline double ref_wrap(double v, unsigned dt)
{
    /* two's complement wrap of an exact integer to the element width */
    int64_t i = (int64_t)v;
    switch (dt) {
    case ASC_DT_S16: return (int16_t)(uint16_t)(uint64_t)i;
    case ASC_DT_U16: return (uint16_t)(uint64_t)i;
    case ASC_DT_S32: return (int32_t)(uint32_t)(uint64_t)i;
    default: return (double)i;
    }
}

/* Conversion of one value per vconv's rules. */
static inline void ref_conv_store(uint8_t *p, unsigned sdt, unsigned ddt, int rnd, double v)
{
    if (!asc_dtype_is_float(ddt)) {
        double lo, hi;
        switch (ddt) {
        case ASC_DT_S32: lo = -2147483648.0; hi = 2147483647.0; break;
        case ASC_DT_S16: lo = -32768; hi = 32767; break;
        case ASC_DT_S8: lo = -128; hi = 127; break;
        default: lo = 0; hi = 255; break;
        }
        double r = isnan(v) ? 0 : isinf(v) ? (v > 0 ? hi : lo) : ref_round_int(v, rnd);
        if (r < lo) r = lo;
        if (r > hi) r = hi;
        ref_store(p, ddt, r);
        return;
    }
    uint16_t h;
    float f;
    switch (ddt) {
    case ASC_DT_F16: h = ref_to_half(v, rnd); memcpy(p, &h, 2); break;
    case ASC_DT_BF16: h = ref_to_bf16(v, rnd); memcpy(p, &h, 2); break;
    default:
        if (sdt == ASC_DT_F32)
            f = isnan(v) || isinf(v) ? (float)v : (float)copysign(ref_round_int(v, rnd), v);
        else
            f = ref_to_f32(v, rnd);
        memcpy(p, &f, 4);
        break;
    }
}

/* ---- the reference vector instruction --------------------------------- */
static inline void ref_vec(uint8_t *ub, const AscIssued *q, RefLog *rlog)
{
    const AscInsnInfo *ii = &asc_insn_info[q->in.op];
    const char *fam = ii->fam;
    unsigned dt = ii->dt0, size = asc_dtype_size(dt);
    if (!strcmp(fam, "VTRANSPOSE")) {
        uint8_t t[512];
        memcpy(t, ub + q->rs1, 512);
        for (unsigned r = 0; r < 16; r++)
            for (unsigned c = 0; c < 16; c++) memcpy(ub + q->rd + (c * 16 + r) * 2, t + (r * 16 + c) * 2, 2);
        return;
    }
    bool binary = !strcmp(fam, "VADD") || !strcmp(fam, "VSUB") || !strcmp(fam, "VMUL") || !strcmp(fam, "VMAX") ||
                  !strcmp(fam, "VMIN") || !strcmp(fam, "VDIV") || !strcmp(fam, "VAND") || !strcmp(fam, "VOR") ||
                  !strcmp(fam, "VCMP") || !strcmp(fam, "VSEL") || !strcmp(fam, "VADDRELU") ||
                  !strcmp(fam, "VSUBRELU") || !strcmp(fam, "VMADD") || !strcmp(fam, "VMADDRELU") || !strcmp(fam, "VMLA");
    bool reads_dst = !strcmp(fam, "VAXPY") || !strcmp(fam, "VMADD") || !strcmp(fam, "VMADDRELU") || !strcmp(fam, "VMLA");
    bool with_scalar = !strcmp(fam, "VADDS") || !strcmp(fam, "VMULS") || !strcmp(fam, "VMAXS") ||
                       !strcmp(fam, "VMINS") || !strcmp(fam, "VLRELU") || !strcmp(fam, "VAXPY") ||
                       !strcmp(fam, "VCMPS") || !strcmp(fam, "VSHL") || !strcmp(fam, "VSHR");
    uint64_t cfg = binary || with_scalar ? q->rs3 : q->rs2;
    unsigned blk[3], rep[3];
    for (int k = 0; k < 3; k++) {
        blk[k] = (cfg >> (8 * k)) & 0xff;
        rep[k] = (cfg >> (24 + 8 * k)) & 0xff;
    }
    unsigned repeat = (unsigned)(cfg >> 56);
    unsigned ddt = !strcmp(fam, "VCONV") ? ii->dt1 : dt, dsize = asc_dtype_size(ddt);
    unsigned lanes = 256 / (size > dsize ? size : dsize);

    if (!strcmp(fam, "VBRCB")) {
        for (unsigned r = 0; r < repeat; r++)
            for (unsigned j = 0; j < 8; j++)
                for (unsigned e = 0; e < 32 / size; e++) {
                    uint64_t d = q->rd + (uint64_t)r * rep[0] * 32 + (uint64_t)j * blk[0] * 32 + e * size;
                    memmove(ub + d, ub + q->rs1 + (8 * r + j) * size, size);
                }
        return;
    }
    RefMask m = ref_mask(q, lanes, repeat);
    if ((cfg >> 48) & 1) { /* vcmp/vcmps `whole`: Ascend C Compare on dav_c220 -- no mask, whole repeats */
        if (m.counter) {
            m.repeats = (unsigned)(q->mask0 / lanes);
            m.count = (uint64_t)m.repeats * lanes;
        } else {
            m.m0 = m.m1 = ~0ull;
        }
    }
    for (unsigned r = 0; r < m.repeats; r++) {
        double a[128], b[128], out[128], acc[128];
        uint8_t raw_a[128][4], raw_b[128][4];
        bool act[128];
        /* read every active source lane first */
        for (unsigned i = 0; i < lanes; i++) {
            act[i] = ref_active(&m, r, i);
            if (!act[i] || !strcmp(fam, "VDUP")) continue; /* vdup reads no vector */
            uint64_t sa = ref_addr(q->rs1, r, i, size, blk[1], rep[1]);
            a[i] = ref_load(ub + sa, dt);
            memcpy(raw_a[i], ub + sa, size);
            if (reads_dst) acc[i] = ref_load(ub + ref_addr(q->rd, r, i, size, blk[0], rep[0]), dt);
            if (binary) {
                uint64_t sb = ref_addr(q->rs2, r, i, size, blk[2], rep[2]);
                b[i] = ref_load(ub + sb, dt);
                memcpy(raw_b[i], ub + sb, size);
            }
        }
        if (!strcmp(fam, "VCADD") || !strcmp(fam, "VCMAX") || !strcmp(fam, "VCMIN")) {
            double v[128];
            unsigned n = 0;
            for (unsigned i = 0; i < lanes; i++)
                if (act[i]) v[n++] = a[i];
            double res;
            if (n == 0) {
                res = !strcmp(fam, "VCADD") ? 0.0 : !strcmp(fam, "VCMAX") ? -INFINITY : INFINITY;
            } else {
                while (n > 1) { /* pairs (0,1), (2,3), ...; an odd last one carries */
                    unsigned k = 0;
                    for (unsigned j = 0; j + 1 < n; j += 2)
                        v[k++] = !strcmp(fam, "VCADD") ? ref_fit(v[j] + v[j + 1], dt)
                                 : !strcmp(fam, "VCMAX") ? ref_max(v[j], v[j + 1])
                                                         : ref_min(v[j], v[j + 1]);
                    if (n % 2) v[k++] = v[n - 1];
                    n = k;
                }
                res = v[0];
            }
            uint64_t d = q->rd + (uint64_t)r * rep[0] * size;
            ref_store(ub + d, dt, res);
            ref_log(rlog, d, dt);
            continue;
        }
        if (!strcmp(fam, "VCGADD") || !strcmp(fam, "VCGMAX") || !strcmp(fam, "VCGMIN") || !strcmp(fam, "VCPADD")) {
            /* one output per 32 B block (vcg*) or per lane pair (vcpadd), a pairwise tree over the
             * active lanes of the group; a group with nothing active is not written; f16 sums
             * above 65504 in magnitude are kept at 65504 (Ascend C BlockReduceSum's rule) */
            bool pair = !strcmp(fam, "VCPADD");
            unsigned width = pair ? 2 : 32 / size, ngroup = lanes / width;
            for (unsigned g = 0; g < ngroup; g++) {
                double v[64];
                unsigned n = 0;
                for (unsigned i = g * width; i < (g + 1) * width; i++)
                    if (act[i]) v[n++] = a[i];
                if (n == 0) continue;
                while (n > 1) {
                    unsigned k = 0;
                    for (unsigned j = 0; j + 1 < n; j += 2) {
                        double x = v[j], y = v[j + 1], t;
                        if (!strcmp(fam, "VCGMAX")) t = ref_max(x, y);
                        else if (!strcmp(fam, "VCGMIN")) t = ref_min(x, y);
                        else {
                            t = x + y;
                            if (dt == ASC_DT_F16 && isfinite(x) && isfinite(y) && fabs(t) > 65504.0)
                                t = t > 0 ? 65504.0 : -65504.0;
                            t = ref_fit(t, dt);
                        }
                        v[k++] = t;
                    }
                    if (n % 2) v[k++] = v[n - 1];
                    n = k;
                }
                uint64_t d = q->rd + (uint64_t)r * rep[0] * ngroup * size + (uint64_t)g * size;
                ref_store(ub + d, dt, v[0]);
                ref_log(rlog, d, dt);
            }
            continue;
        }
        if (!strcmp(fam, "VCMP") || !strcmp(fam, "VCMPS")) {
            uint8_t bytes[16] = {0};
            for (unsigned i = 0; i < lanes; i++)
                if (act[i] && ref_cmp(a[i], !strcmp(fam, "VCMPS") ? ref_scalar(q->rs2, dt) : b[i], q->in.cond)) bytes[i / 8] |= (uint8_t)(1u << (i % 8));
            memcpy(ub + q->rd + (uint64_t)r * (lanes / 8), bytes, lanes / 8);
            continue;
        }
        for (unsigned i = 0; i < lanes; i++) {
            if (!act[i]) continue;
            uint64_t d = ref_addr(q->rd, r, i, dsize, blk[0], rep[0]);
            double x = a[i], y = binary ? b[i] : 0;
            if (with_scalar) y = ref_scalar(q->rs2, dt);
            bool isf = asc_dtype_is_float(dt);
            if (!strcmp(fam, "VSEL")) {
                uint8_t bit = (ub[q->cmpmask + (uint64_t)r * (lanes / 8) + i / 8] >> (i % 8)) & 1;
                /* deferred: select raw bytes after all reads (sources already captured) */
                out[i] = bit;
                continue;
            }
            if (!strcmp(fam, "VCONV")) {
                out[i] = x;
                continue;
            }
            (void)d;
            double v;
            if (!strcmp(fam, "VADD") || !strcmp(fam, "VADDS")) v = x + y;
            else if (!strcmp(fam, "VSUB")) v = x - y;
            else if (!strcmp(fam, "VMUL") || !strcmp(fam, "VMULS"))
                v = isf ? x * y : (double)(int32_t)(uint32_t)((uint64_t)(int64_t)x * (uint64_t)(int64_t)y);
            else if (!strcmp(fam, "VDIV")) v = x / y;
            else if (!strcmp(fam, "VMAX") || !strcmp(fam, "VMAXS")) v = isf ? ref_max(x, y) : (x > y ? x : y);
            else if (!strcmp(fam, "VMIN") || !strcmp(fam, "VMINS")) v = isf ? ref_min(x, y) : (x < y ? x : y);
            else if (!strcmp(fam, "VAND")) v = (double)((uint32_t)x & (uint32_t)y);
            else if (!strcmp(fam, "VOR")) v = (double)((uint32_t)x | (uint32_t)y);
            else if (!strcmp(fam, "VNOT")) v = (double)(~(uint32_t)x & 0xffffu);
            else if (!strcmp(fam, "VEXP")) v = exp(x);
            else if (!strcmp(fam, "VLN")) v = log(x);
            else if (!strcmp(fam, "VABS")) v = fabs(x);
            else if (!strcmp(fam, "VSQRT")) v = sqrt(x);
            else if (!strcmp(fam, "VRSQRT")) v = 1.0 / sqrt(x);
            else if (!strcmp(fam, "VREC")) v = 1.0 / x;
            else if (!strcmp(fam, "VRELU")) v = x > 0 ? x : 0.0;
            else if (!strcmp(fam, "VLRELU")) v = x >= 0 ? x : ref_fit(x * y, dt);
            else if (!strcmp(fam, "VAXPY")) v = ref_to_f32(ref_to_f32(x * y, 1) + acc[i], 1); /* then dt */
            else if (!strcmp(fam, "VADDRELU") || !strcmp(fam, "VSUBRELU")) { /* fused: relu after the wrap */
                v = !strcmp(fam, "VADDRELU") ? x + y : x - y;
                if (!isf) v = ref_wrap(v, dt);
                v = v > 0 ? v : 0.0;
            }
            else if (!strcmp(fam, "VMADD") || !strcmp(fam, "VMADDRELU")) { /* src0 * dst + src1, in f32 */
                v = ref_to_f32(ref_to_f32(x * acc[i], 1) + y, 1);
                if (!strcmp(fam, "VMADDRELU")) v = v > 0 ? v : 0.0;
            }
            else if (!strcmp(fam, "VMLA")) v = ref_to_f32(ref_to_f32(x * y, 1) + acc[i], 1); /* src0 * src1 + dst */
            else if (!strcmp(fam, "VDUP")) v = ref_scalar(q->rs1, dt);
            else if (!strcmp(fam, "VSHL") || !strcmp(fam, "VSHR")) {
                /* the amount: the scalar's low element-width bits, unsigned; >= width: all bits out */
                unsigned w = 8 * size, n = (unsigned)(size == 2 ? (q->rs2 & 0xffff) : (q->rs2 & 0xffffffffu));
                double p2 = ldexp(1.0, (int)(n < w ? n : w));
                if (!strcmp(fam, "VSHL")) v = n >= w ? 0 : fmod(x * p2, ldexp(1.0, (int)w)); /* wrapped below */
                else v = floor(x / p2); /* signed: arithmetic (floor); unsigned x >= 0: logical */
                if (!strcmp(fam, "VSHR") && n >= w) v = x < 0 ? -1 : 0;
            }
            else v = x; /* VCOPY */
            if (isnan(v) && isf) v = NAN;
            out[i] = isf ? v : ref_wrap(v, dt);
        }
        /* then write */
        for (unsigned i = 0; i < lanes; i++) {
            if (!act[i]) continue;
            uint64_t d = ref_addr(q->rd, r, i, dsize, blk[0], rep[0]);
            if (!strcmp(fam, "VSEL")) {
                memcpy(ub + d, out[i] != 0 ? raw_a[i] : raw_b[i], size);
            } else if (!strcmp(fam, "VCONV")) {
                ref_conv_store(ub + d, dt, ddt, q->in.rnd, out[i]);
            } else if (!strcmp(fam, "VCOPY") || !strcmp(fam, "VABS")) {
                if (!strcmp(fam, "VABS")) {
                    raw_a[i][size - 1] &= 0x7f; /* sign bit: exact, NaN kept */
                }
                memcpy(ub + d, raw_a[i], size);
            } else {
                ref_store(ub + d, ddt, out[i]);
            }
            ref_log(rlog, d, ddt);
        }
    }
}

/* ---- sorts (docs/semantics.md "sort"): naive selection, written from the
 * Sort32 / MrgSort documentation.  A score as double (f16 through ref_f16,
 * NaN above everything); an element is 8 B, score low, u32 index at +4. */
static inline double ref_sort_score(const uint8_t *p, bool f16)
{
    if (f16) {
        uint16_t h;
        memcpy(&h, p, 2);
        unsigned e = (h >> 10) & 31, m = h & 1023;
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, (int)e - 25);
        return (h >> 15) ? -v : v;
    }
    float f;
    memcpy(&f, p, 4);
    return f;
}
/* a > b in sort order */
static inline bool ref_sort_gt(double a, double b)
{
    if (isnan(a)) return !isnan(b);
    return !isnan(b) && a > b;
}
/* Sort32: repeat r, 32 scores (size 2/4) and 32 u32 indices -> 256 B */
static inline void ref_sort32(uint8_t *ub, uint64_t dst, uint64_t sc, uint64_t ix, unsigned repeats, bool f16)
{
    unsigned size = f16 ? 2 : 4;
    for (unsigned r = 0; r < repeats; r++) {
        bool taken[32] = {false};
        uint8_t out[256];
        memset(out, 0, sizeof out);
        for (unsigned k = 0; k < 32; k++) {
            int best = -1;
            for (unsigned i = 0; i < 32; i++) { /* first (lowest i) of the largest */
                if (taken[i]) continue;
                if (best < 0 || ref_sort_gt(ref_sort_score(ub + sc + 32 * size * r + i * size, f16),
                                            ref_sort_score(ub + sc + 32 * size * r + (unsigned)best * size, f16)))
                    best = (int)i;
            }
            taken[best] = true;
            memcpy(out + 8 * k, ub + sc + 32 * size * r + (unsigned)best * size, size);
            memcpy(out + 8 * k + 4, ub + ix + 128 * r + 4 * (unsigned)best, 4);
        }
        memcpy(ub + dst + 256 * r, out, 256);
    }
}
/* MrgSort of lists at byte addresses a[k] with n[k] elements, k < nl; stops at the first
 * exhausted list when `stop`; consumed counts in used[] */
static inline uint64_t ref_mrgsort(uint8_t *ub, uint64_t dst, const uint64_t a[4], const unsigned n[4], unsigned nl,
                                   bool stop, bool f16, unsigned used[4])
{
    uint64_t w = 0;
    for (unsigned k = 0; k < 4; k++) used[k] = 0;
    for (;;) {
        int best = -1;
        bool done = false;
        for (unsigned k = 0; k < nl; k++) {
            if (used[k] == n[k]) {
                done = done || stop;
                continue;
            }
            if (best < 0 || ref_sort_gt(ref_sort_score(ub + a[k] + 8 * used[k], f16),
                                        ref_sort_score(ub + a[best] + 8 * used[best], f16)))
                best = (int)k;
        }
        if (done || best < 0) return w;
        memcpy(ub + dst + 8 * w, ub + a[best] + 8 * used[best], 8);
        used[best]++;
        w++;
    }
}

#endif
