/* exec_vector.c -- data semantics of every vector instruction (V pipe,
 * F_VEC rows of isa/asc_isa.def): element addressing with repeats, block
 * and repeat strides, normal and counter mask modes, the arithmetic of each
 * family, and the UB bank-conflict cost of each repeat.
 *
 * Users: the engine's generated dispatch (asc_exec_<FAM>); docs/semantics.md
 * is the user-facing description of exactly what this file does.
 *
 * Addressing (LANES operands), element size `size`, epb = 32/size elements
 * per 32 B block, lane i of repeat r:
 *   addr = base + r*rep*32 + (i/epb)*blk*32 + (i%epb)*size
 * Other operand shapes: BITS (vcmp dst, vsel cmpmask: lanes/8 bytes per
 * repeat at base + r*lanes/8), ELEM (reduction dst: one element at
 * base + r*rep*size, rep counted in elements) and CONTIG8 (vbrcb src: 8
 * elements at base + 8*r*size).
 *
 * Invariants:
 *  - All checks (reserved config bits, operand start alignment, the whole
 *    footprint of the active lanes of every operand) run before any write,
 *    so a faulting instruction changes nothing.
 *  - Within one repeat every source lane is read before any destination
 *    lane is written; repeats run in order.  Inactive destination lanes are
 *    never written and inactive source lanes never read (nor checked).
 *  - No allocation: a repeat's lanes live in fixed 256 B buffers. */
#include <math.h>
#include <string.h>

#include "exec_internal.h"

typedef enum VFam {
    VF_ADD, VF_SUB, VF_MUL, VF_MAX, VF_MIN, VF_DIV, VF_AND, VF_OR,
    VF_EXP, VF_LN, VF_ABS, VF_SQRT, VF_RSQRT, VF_REC, VF_RELU, VF_NOT,
    VF_ADDS, VF_MULS, VF_MAXS, VF_MINS, VF_LRELU, VF_DUP,
    VF_CMP, VF_SEL, VF_CADD, VF_CMAX, VF_CMIN, VF_COPY, VF_BRCB, VF_CONV
} VFam;

typedef enum VKind { VK_LANES, VK_BITS, VK_ELEM, VK_CONTIG8 } VKind;

enum { OP_DST = 0, OP_SRC0 = 1, OP_SRC1 = 2, OP_MASK = 3, OP_COUNT = 4 };

typedef struct VOperand {
    bool used, write;
    uint8_t kind;      /* VKind */
    const char *name;  /* for fault messages */
    uint64_t base;     /* byte offset into UB */
    uint32_t size;     /* element bytes */
    uint64_t blk_bytes, rep_bytes; /* LANES: blk*32, rep*32; ELEM: rep*size */
} VOperand;

typedef struct VPlan {
    VFam fam;
    AscDtype dt, dto;  /* element type, and destination type of vconv */
    uint32_t lanes;
    uint32_t repeats;
    uint64_t full[2], last[2]; /* active lanes of repeats 0..R-2 and of R-1 */
    VOperand op[OP_COUNT];
} VPlan;

/* A repeat's lanes: lane i of an operand at byte i*size. */
typedef union VBuf {
    uint8_t u8[256];
    uint16_t u16[128];
    uint32_t u32[64];
} VBuf;

static bool lane_on(const uint64_t m[2], uint32_t i) { return (m[i >> 6] >> (i & 63)) & 1; }

static uint32_t popcount2(const uint64_t m[2])
{
    return (uint32_t)__builtin_popcountll(m[0]) + (uint32_t)__builtin_popcountll(m[1]);
}

/* ---- element loads and stores -------------------------------------------- */

static float load_f(const VBuf *b, AscDtype dt, uint32_t i)
{
    switch (dt) {
    case ASC_DT_F16: return asc_f16_to_f32(b->u16[i]);
    case ASC_DT_BF16: return asc_bf16_to_f32(b->u16[i]);
    default: {
        float f;
        memcpy(&f, &b->u32[i], 4);
        return f;
    }
    }
}

static void store_f(VBuf *b, AscDtype dt, uint32_t i, float f)
{
    switch (dt) {
    case ASC_DT_F16: b->u16[i] = asc_f32_to_f16(f); break;
    case ASC_DT_BF16: b->u16[i] = asc_f32_to_bf16(f); break;
    default: memcpy(&b->u32[i], &f, 4); break;
    }
}

static int64_t load_i(const VBuf *b, AscDtype dt, uint32_t i)
{
    switch (dt) {
    case ASC_DT_S8: return (int8_t)b->u8[i];
    case ASC_DT_U8: return b->u8[i];
    case ASC_DT_S16: return (int16_t)b->u16[i];
    case ASC_DT_U16: return b->u16[i];
    case ASC_DT_S32: return (int32_t)b->u32[i];
    default: return b->u32[i];
    }
}

static void store_i(VBuf *b, AscDtype dt, uint32_t i, int64_t v)
{
    switch (asc_dtype_size(dt)) {
    case 1: b->u8[i] = (uint8_t)v; break;
    case 2: b->u16[i] = (uint16_t)v; break;
    default: b->u32[i] = (uint32_t)v; break;
    }
}

/* IEEE fmax/fmin with a fixed answer for signed zeros: a NaN operand is
 * ignored (NaN only when both are NaN); max(-0, +0) = +0, min = -0. */
static float fmax_asc(float a, float b)
{
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static float fmin_asc(float a, float b)
{
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* ---- footprint checks ---------------------------------------------------- */

/* Offsets within a repeat of the first and one-past-last active byte. */
static bool lanes_span(const VOperand *o, const uint64_t m[2], uint32_t lanes, uint64_t *lo, uint64_t *hi)
{
    uint32_t epb = 32 / o->size;
    bool any = false;
    for (uint32_t i = 0; i < lanes; i++) {
        if (!lane_on(m, i)) continue;
        uint64_t off = (i / epb) * o->blk_bytes + (i % epb) * o->size;
        if (!any || off < *lo) *lo = off;
        if (!any || off + o->size > *hi) *hi = off + o->size;
        any = true;
    }
    return any;
}

/* Checks one operand of the whole instruction at once: the union of the
 * active-lane footprints of repeats 0..R-2 (mask `full`) and of repeat R-1
 * (mask `last`, which differs in counter mode).  Strides are unsigned, so
 * repeat 0 has the lowest addresses and the last repeats the highest. */
static bool check_operand(AscExecCtx *ctx, const VPlan *p, const VOperand *o)
{
    uint64_t R = p->repeats, lo = 0, hi = 0;
    bool any = false;
    switch ((VKind)o->kind) {
    case VK_LANES: {
        uint64_t flo = 0, fhi = 0, llo = 0, lhi = 0;
        if (R > 1 && lanes_span(o, p->full, p->lanes, &flo, &fhi)) {
            lo = flo;
            hi = (R - 2) * o->rep_bytes + fhi;
            any = true;
        }
        if (lanes_span(o, p->last, p->lanes, &llo, &lhi)) {
            if (!any || llo < lo) lo = llo;
            if (!any || (R - 1) * o->rep_bytes + lhi > hi) hi = (R - 1) * o->rep_bytes + lhi;
            any = true;
        }
        break;
    }
    case VK_BITS: hi = R * (p->lanes / 8); any = true; break;
    case VK_ELEM: hi = (R - 1) * o->rep_bytes + o->size; any = true; break;
    case VK_CONTIG8: hi = R * 8 * o->size; any = true; break;
    }
    const AscMem *ubm = &ctx->mem[ASC_BUF_UB];
    if (o->base > UINT64_MAX / 2)
        return asc_exec_fault(ctx, "UB %s of %s at 0x%llx is outside UB (0x%x bytes usable)", o->write ? "write" : "read",
                              o->name, (unsigned long long)o->base, (unsigned)ubm->size);
    uint64_t flo = o->base + (any ? lo : 0), fhi = o->base + (any ? hi : 0);
    /* the range of the active lanes, then the start address's alignment
     * (checked even when no lane is active) */
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, o->name, o->write, flo, fhi, false)) return false;
    if (ubm->align > 1 && o->base % ubm->align)
        return asc_exec_fault(ctx, "UB %s of %s [0x%llx, 0x%llx) is misaligned: start address 0x%llx is not a multiple of %u B",
                              o->write ? "write" : "read", o->name, (unsigned long long)flo, (unsigned long long)fhi,
                              (unsigned long long)o->base, (unsigned)ubm->align);
    return true;
}

/* ---- gather / scatter of one repeat, and its bank blocks --------------- */

/* Copies the active lanes of repeat r into b (lane i at byte i*size).  A
 * block whose lanes are all active moves with one 32 B copy: the common
 * case, and what keeps a full-mask vadd at memcpy speed. */
static void gather_lanes(const uint8_t *ub, const VOperand *o, uint32_t r, const uint64_t m[2], uint32_t lanes,
                         VBuf *b)
{
    uint32_t epb = 32 / o->size, nblk = lanes / epb;
    uint64_t bmask = epb == 64 ? ~0ull : ((1ull << epb) - 1);
    for (uint32_t k = 0; k < nblk; k++) {
        uint32_t first = k * epb;
        uint64_t bits = (m[first >> 6] >> (first & 63)) & bmask;
        if (!bits) continue;
        const uint8_t *src = ub + o->base + r * o->rep_bytes + k * o->blk_bytes;
        if (bits == bmask) {
            memcpy(b->u8 + first * o->size, src, 32);
            continue;
        }
        for (uint32_t j = 0; j < epb; j++)
            if ((bits >> j) & 1) memcpy(b->u8 + (first + j) * o->size, src + j * o->size, o->size);
    }
}

/* The inverse of gather_lanes: writes only the active lanes of b. */
static void scatter_lanes(uint8_t *ub, const VOperand *o, uint32_t r, const uint64_t m[2], uint32_t lanes,
                          const VBuf *b)
{
    uint32_t epb = 32 / o->size, nblk = lanes / epb;
    uint64_t bmask = epb == 64 ? ~0ull : ((1ull << epb) - 1);
    for (uint32_t k = 0; k < nblk; k++) {
        uint32_t first = k * epb;
        uint64_t bits = (m[first >> 6] >> (first & 63)) & bmask;
        if (!bits) continue;
        uint8_t *dst = ub + o->base + r * o->rep_bytes + k * o->blk_bytes;
        if (bits == bmask) {
            memcpy(dst, b->u8 + first * o->size, 32);
            continue;
        }
        for (uint32_t j = 0; j < epb; j++)
            if ((bits >> j) & 1) memcpy(dst + j * o->size, b->u8 + (first + j) * o->size, o->size);
    }
}

/* Records one block access; more than ASC_BANK_MAX_BLOCKS per repeat cannot
 * happen (at most 8 blocks x 3 lane operands + 2 rows of bits). */
static void bank_add(AscBankRepeat *br, bool write, uint64_t addr)
{
    if (write) {
        if (br->nwrite < ASC_BANK_MAX_BLOCKS) br->write[br->nwrite++] = addr;
    } else if (br->nread < ASC_BANK_MAX_BLOCKS) {
        br->read[br->nread++] = addr;
    }
}

/* The 32 B rows [lo, hi) touches, each added once. */
static void bank_add_span(AscBankRepeat *br, bool write, uint64_t lo, uint64_t hi)
{
    for (uint64_t row = lo & ~31ull; row < hi; row += 32) bank_add(br, write, row);
}

/* Blocks of one operand in repeat r (LANES: blocks with an active lane). */
static void bank_operand(AscBankRepeat *br, const VPlan *p, const VOperand *o, uint32_t r, const uint64_t m[2])
{
    switch ((VKind)o->kind) {
    case VK_LANES: {
        uint32_t epb = 32 / o->size, nblk = p->lanes / epb;
        uint64_t bmask = epb == 64 ? ~0ull : ((1ull << epb) - 1);
        for (uint32_t k = 0; k < nblk; k++) {
            uint32_t first = k * epb;
            if ((m[first >> 6] >> (first & 63)) & bmask)
                bank_add(br, o->write, o->base + r * o->rep_bytes + k * o->blk_bytes);
        }
        break;
    }
    case VK_BITS: {
        uint64_t lo = o->base + (uint64_t)r * (p->lanes / 8);
        bank_add_span(br, o->write, lo, lo + p->lanes / 8);
        break;
    }
    case VK_ELEM: {
        uint64_t lo = o->base + r * o->rep_bytes;
        bank_add_span(br, o->write, lo, lo + o->size);
        break;
    }
    case VK_CONTIG8: {
        uint64_t lo = o->base + (uint64_t)r * 8 * o->size;
        bank_add_span(br, o->write, lo, lo + 8 * o->size);
        break;
    }
    }
}

/* Race checking: every 32 B block of the repeat, one access each. */
static void report_blocks(AscExecCtx *ctx, const AscBankRepeat *br)
{
    for (uint32_t i = 0; i < br->nread; i++)
        ctx->on_access(ctx->access_ud, ASC_BUF_UB, br->read[i], br->read[i] + 32, false);
    for (uint32_t i = 0; i < br->nwrite; i++)
        ctx->on_access(ctx->access_ud, ASC_BUF_UB, br->write[i], br->write[i] + 32, true);
}

/* ---- per-repeat computation ----------------------------------------------- */

/* The scalar operand of vadds & co and vdup, as the element type would hold
 * it: float types take IEEE f32 bits from the low 32 bits, rounded RNE to
 * f16/bf16; integer types truncate. */
static float scalar_f(uint64_t v, AscDtype dt)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    if (dt == ASC_DT_F16) return asc_f16_to_f32(asc_f32_to_f16(f));
    if (dt == ASC_DT_BF16) return asc_bf16_to_f32(asc_f32_to_bf16(f));
    return f;
}

static int64_t scalar_i(uint64_t v, AscDtype dt)
{
    switch (dt) {
    case ASC_DT_S16: return (int16_t)v;
    case ASC_DT_U16: return (uint16_t)v;
    case ASC_DT_S32: return (int32_t)v;
    default: return (uint32_t)v;
    }
}

/* Does comparison `cond` hold, given the outcome as three facts (a < b,
 * a == b, a > b)?  One table for floats and integers: with a NaN operand
 * all three are false, so only NE holds, as IEEE 754 wants. */
static bool cond_holds(bool lt, bool eq, bool gt, unsigned cond)
{
    switch (cond) {
    case ASC_COND_EQ: return eq;
    case ASC_COND_NE: return !eq;
    case ASC_COND_LT: return lt;
    case ASC_COND_GT: return gt;
    case ASC_COND_GE: return gt || eq;
    default: return lt || eq; /* LE */
    }
}

static bool cmp_f(float a, float b, unsigned cond) { return cond_holds(a < b, a == b, a > b, cond); }
static bool cmp_i(int64_t a, int64_t b, unsigned cond) { return cond_holds(a < b, a == b, a > b, cond); }

/* Elementwise families on all lanes (inactive lanes compute garbage that
 * is never stored). */
static void compute_elementwise(const VPlan *p, const AscIssued *q, const VBuf *a, const VBuf *b, VBuf *d)
{
    AscDtype dt = p->dt;
    uint32_t n = p->lanes;
    bool isf = asc_dtype_is_float(dt);
    VFam f = p->fam;
    if (f == VF_COPY) {
        memcpy(d->u8, a->u8, 256);
        return;
    }
    if (f == VF_ABS) { /* clear the sign bit: exact for every value, NaN payload kept */
        for (uint32_t i = 0; i < n; i++) {
            if (dt == ASC_DT_F32)
                d->u32[i] = a->u32[i] & 0x7fffffffu;
            else
                d->u16[i] = a->u16[i] & 0x7fffu;
        }
        return;
    }
    if (isf) {
        float s = 0;
        if (f == VF_ADDS || f == VF_MULS || f == VF_MAXS || f == VF_MINS || f == VF_LRELU) s = scalar_f(q->rs2, dt);
        if (f == VF_DUP) s = scalar_f(q->rs1, dt);
        for (uint32_t i = 0; i < n; i++) {
            float x = f == VF_DUP ? 0 : load_f(a, dt, i);
            float y = (f == VF_ADD || f == VF_SUB || f == VF_MUL || f == VF_MAX || f == VF_MIN || f == VF_DIV)
                          ? load_f(b, dt, i)
                          : s;
            float r;
            switch (f) {
            case VF_ADD: case VF_ADDS: r = x + y; break;
            case VF_SUB: r = x - y; break;
            case VF_MUL: case VF_MULS: r = x * y; break;
            case VF_DIV: r = x / y; break;
            case VF_MAX: case VF_MAXS: r = fmax_asc(x, y); break;
            case VF_MIN: case VF_MINS: r = fmin_asc(x, y); break;
            case VF_EXP: r = expf(x); break;
            case VF_LN: r = logf(x); break;
            case VF_SQRT: r = sqrtf(x); break;
            case VF_RSQRT: r = (float)(1.0 / sqrt((double)x)); break;
            case VF_REC: r = 1.0f / x; break;
            case VF_RELU: r = x > 0 ? x : 0.0f; break;
            case VF_LRELU: r = x >= 0 ? x : x * y; break;
            case VF_DUP: r = s; break;
            default: r = x; break;
            }
            store_f(d, dt, i, r);
        }
        return;
    }
    int64_t s = 0;
    if (f == VF_ADDS || f == VF_MULS || f == VF_MAXS || f == VF_MINS) s = scalar_i(q->rs2, dt);
    if (f == VF_DUP) s = scalar_i(q->rs1, dt);
    for (uint32_t i = 0; i < n; i++) {
        int64_t x = f == VF_DUP ? 0 : load_i(a, dt, i);
        int64_t y = (f == VF_ADD || f == VF_SUB || f == VF_MUL || f == VF_MAX || f == VF_MIN || f == VF_AND ||
                     f == VF_OR)
                        ? load_i(b, dt, i)
                        : s;
        int64_t r;
        switch (f) {
        case VF_ADD: case VF_ADDS: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
        case VF_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
        case VF_MUL: case VF_MULS: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
        case VF_MAX: case VF_MAXS: r = x > y ? x : y; break;
        case VF_MIN: case VF_MINS: r = x < y ? x : y; break;
        case VF_AND: r = x & y; break;
        case VF_OR: r = x | y; break;
        case VF_NOT: r = ~x; break;
        case VF_RELU: r = x > 0 ? x : 0; break;
        case VF_DUP: r = s; break;
        default: r = x; break;
        }
        store_i(d, dt, i, r); /* wraps to the element width */
    }
}

/* vconv of all lanes: src type p->dt, dst type p->dto. */
static void compute_conv(const VPlan *p, AscRnd rnd, const VBuf *a, VBuf *d)
{
    AscDtype st = p->dt, dt = p->dto;
    for (uint32_t i = 0; i < p->lanes; i++) {
        double v = asc_dtype_is_float(st) ? (double)load_f(a, st, i) : (double)load_i(a, st, i);
        switch (dt) {
        case ASC_DT_F32: {
            float r;
            if (st == ASC_DT_F32)
                r = (float)asc_round_integral(v, rnd);
            else if (st == ASC_DT_S32)
                r = asc_f64_to_f32_rnd(v, rnd);
            else
                r = (float)v; /* f16/bf16 -> f32 exact */
            memcpy(&d->u32[i], &r, 4);
            break;
        }
        case ASC_DT_F16: d->u16[i] = asc_f32_to_f16_rnd((float)v, rnd); break; /* (float)v exact here */
        case ASC_DT_BF16: d->u16[i] = asc_f32_to_bf16_rnd((float)v, rnd); break;
        case ASC_DT_S32: d->u32[i] = (uint32_t)asc_float_to_int_sat(v, rnd, INT32_MIN, INT32_MAX); break;
        case ASC_DT_S16: d->u16[i] = (uint16_t)asc_float_to_int_sat(v, rnd, INT16_MIN, INT16_MAX); break;
        case ASC_DT_S8: d->u8[i] = (uint8_t)asc_float_to_int_sat(v, rnd, INT8_MIN, INT8_MAX); break;
        default: d->u8[i] = (uint8_t)asc_float_to_int_sat(v, rnd, 0, UINT8_MAX); break;
        }
    }
}

/* One value from the active lanes of a repeat: pairwise tree over the
 * active values in lane order (see docs/semantics.md). */
static float reduce_repeat(const VPlan *p, const VBuf *a, const uint64_t m[2])
{
    float v[128];
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->lanes; i++)
        if (lane_on(m, i)) v[n++] = load_f(a, p->dt, i);
    if (n == 0) return p->fam == VF_CADD ? 0.0f : p->fam == VF_CMAX ? -INFINITY : INFINITY;
    while (n > 1) {
        uint32_t h = n / 2;
        for (uint32_t j = 0; j < h; j++) {
            float x = v[2 * j], y = v[2 * j + 1], r;
            if (p->fam == VF_CADD) {
                r = x + y;
                if (p->dt == ASC_DT_F16) r = asc_f16_to_f32(asc_f32_to_f16(r)); /* round after every add */
                if (p->dt == ASC_DT_BF16) r = asc_bf16_to_f32(asc_f32_to_bf16(r));
            } else {
                r = p->fam == VF_CMAX ? fmax_asc(x, y) : fmin_asc(x, y);
            }
            v[j] = r;
        }
        if (n & 1) v[h] = v[n - 1];
        n = n - h;
    }
    return v[0];
}

/* ---- the driver ----------------------------------------------------------- */

/* A lane-addressed operand: strides from slot `slot` (0 dst, 1 src0, 2 src1)
 * of the VEC config register, converted to bytes. */
static void set_lanes(VOperand *o, const char *name, bool write, uint64_t base, uint32_t size, uint64_t cfg, int slot)
{
    o->used = true;
    o->write = write;
    o->kind = VK_LANES;
    o->name = name;
    o->base = base;
    o->size = size;
    o->blk_bytes = ((cfg >> (8 * slot)) & 0xff) * 32;
    o->rep_bytes = ((cfg >> (24 + 8 * slot)) & 0xff) * 32;
}

static void set_other(VOperand *o, const char *name, bool write, VKind kind, uint64_t base, uint32_t size,
                      uint64_t rep_bytes)
{
    o->used = true;
    o->write = write;
    o->kind = (uint8_t)kind;
    o->name = name;
    o->base = base;
    o->size = size;
    o->blk_bytes = 0;
    o->rep_bytes = rep_bytes;
}

/* Every vector family but vtranspose: decode operands and the config by
 * format, derive lanes/repeats/masks, check every footprint, then run the
 * repeats in order (gather sources, compute, scatter destination). */
static bool vec_run(AscExecCtx *ctx, const AscIssued *q, VFam fam, AscDtype dt0, AscDtype dt1, AscExecStats *st)
{
    VPlan p;
    memset(&p, 0, sizeof p);
    p.fam = fam;
    p.dt = dt0;
    p.dto = fam == VF_CONV ? dt1 : dt0;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;

    /* operands and the config register, by instruction format */
    uint32_t size = asc_dtype_size(dt0);
    uint64_t cfg;
    switch (fam) {
    case VF_ADD: case VF_SUB: case VF_MUL: case VF_MAX: case VF_MIN: case VF_DIV: case VF_AND: case VF_OR:
    case VF_SEL:
        cfg = q->rs3;
        set_lanes(&p.op[OP_DST], "dst", true, q->rd, size, cfg, 0);
        set_lanes(&p.op[OP_SRC0], "src0", false, q->rs1, size, cfg, 1);
        set_lanes(&p.op[OP_SRC1], "src1", false, q->rs2, size, cfg, 2);
        break;
    case VF_CMP:
        cfg = q->rs3;
        set_lanes(&p.op[OP_SRC0], "src0", false, q->rs1, size, cfg, 1);
        set_lanes(&p.op[OP_SRC1], "src1", false, q->rs2, size, cfg, 2);
        break;
    case VF_ADDS: case VF_MULS: case VF_MAXS: case VF_MINS: case VF_LRELU:
        cfg = q->rs3;
        set_lanes(&p.op[OP_DST], "dst", true, q->rd, size, cfg, 0);
        set_lanes(&p.op[OP_SRC0], "src", false, q->rs1, size, cfg, 1);
        break;
    case VF_DUP:
        cfg = q->rs2;
        set_lanes(&p.op[OP_DST], "dst", true, q->rd, size, cfg, 0);
        break;
    case VF_CADD: case VF_CMAX: case VF_CMIN:
        cfg = q->rs2;
        set_lanes(&p.op[OP_SRC0], "src", false, q->rs1, size, cfg, 1);
        set_other(&p.op[OP_DST], "dst", true, VK_ELEM, q->rd, size, ((cfg >> 24) & 0xff) * size);
        break;
    case VF_BRCB:
        cfg = q->rs2;
        set_lanes(&p.op[OP_DST], "dst", true, q->rd, size, cfg, 0);
        set_other(&p.op[OP_SRC0], "src", false, VK_CONTIG8, q->rs1, size, 8 * size);
        break;
    case VF_CONV:
        cfg = q->rs2;
        set_lanes(&p.op[OP_DST], "dst", true, q->rd, asc_dtype_size(dt1), cfg, 0);
        set_lanes(&p.op[OP_SRC0], "src", false, q->rs1, size, cfg, 1);
        break;
    default: /* unary */
        cfg = q->rs2;
        set_lanes(&p.op[OP_DST], "dst", true, q->rd, size, cfg, 0);
        set_lanes(&p.op[OP_SRC0], "src", false, q->rs1, size, cfg, 1);
        break;
    }
    if (!asc_exec_check_cfg(ctx, ASC_CFG_VEC, cfg)) return false;

    /* lanes, repeats, masks */
    uint32_t big = size;
    if (fam == VF_CONV && asc_dtype_size(dt1) > big) big = asc_dtype_size(dt1);
    p.lanes = 256 / big;
    uint64_t lane_mask[2] = {p.lanes >= 64 ? ~0ull : ((1ull << p.lanes) - 1), p.lanes > 64 ? ~0ull : 0};
    bool counter = (q->ctrl >> ASC_CTRL_COUNTER_BIT) & 1;
    if (fam == VF_BRCB) { /* vbrcb ignores the mask and counter mode */
        p.repeats = (uint32_t)(cfg >> 56);
        memcpy(p.full, lane_mask, sizeof p.full);
        memcpy(p.last, lane_mask, sizeof p.last);
    } else if (counter) {
        uint64_t count = q->mask0;
        if (count > UINT32_MAX)
            return asc_exec_fault(ctx, "counter-mode element count %llu (mask0) exceeds 2^32 - 1",
                                  (unsigned long long)count);
        p.repeats = (uint32_t)((count + p.lanes - 1) / p.lanes);
        memcpy(p.full, lane_mask, sizeof p.full);
        uint64_t tail = count - (count ? (uint64_t)(p.repeats - 1) * p.lanes : 0);
        p.last[0] = tail >= 64 ? ~0ull : ((1ull << tail) - 1);
        p.last[1] = tail >= 128 ? ~0ull : tail > 64 ? ((1ull << (tail - 64)) - 1) : 0;
    } else {
        p.repeats = (uint32_t)(cfg >> 56);
        p.full[0] = q->mask0 & lane_mask[0];
        p.full[1] = q->mask1 & lane_mask[1];
        memcpy(p.last, p.full, sizeof p.last);
    }
    if (p.repeats == 0) return true;
    if (fam == VF_CMP) set_other(&p.op[OP_DST], "dst", true, VK_BITS, q->rd, 1, p.lanes / 8);
    if (fam == VF_SEL) set_other(&p.op[OP_MASK], "cmpmask", false, VK_BITS, q->cmpmask, 1, p.lanes / 8);

    for (int k = 0; k < OP_COUNT; k++)
        if (p.op[k].used && !check_operand(ctx, &p, &p.op[k])) return false;

    /* execute: per repeat, the bank cost first (it depends only on
     * addresses and the mask), then the data */
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    bool movement = fam == VF_COPY || fam == VF_BRCB || fam == VF_DUP;
    for (uint32_t r = 0; r < p.repeats; r++) {
        const uint64_t *m = r + 1 == p.repeats ? p.last : p.full;
        uint32_t active = popcount2(m);
        VBuf a, b, d, bits;
        AscBankRepeat br;
        br.nread = br.nwrite = 0;
        if (!ctx->no_bank_cost || ctx->on_access) {
            for (int k = 0; k < OP_COUNT; k++)
                if (p.op[k].used) bank_operand(&br, &p, &p.op[k], r, m);
            if (!ctx->no_bank_cost) asc_ubbank_account(ctx->cfg, &br, st);
            if (ctx->on_access) report_blocks(ctx, &br);
        }

        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        if (fam == VF_BRCB) {
            /* block j of the dst repeat = 32/size copies of src[8r + j] */
            const uint8_t *src = ub + p.op[OP_SRC0].base + (uint64_t)r * 8 * size;
            uint32_t epb = 32 / size;
            for (uint32_t i = 0; i < p.lanes; i++) memcpy(d.u8 + i * size, src + (i / epb) * size, size);
            st->bytes += 8 * size;
            scatter_lanes(ub, &p.op[OP_DST], r, m, p.lanes, &d);
            continue;
        }
        const VOperand *s0 = &p.op[OP_SRC0], *s1 = &p.op[OP_SRC1];
        if (s0->used) gather_lanes(ub, s0, r, m, p.lanes, &a);
        if (s1->used) gather_lanes(ub, s1, r, m, p.lanes, &b);
        st->bytes += (uint64_t)active * ((s0->used ? s0->size : 0) + (s1->used ? s1->size : 0));
        if (!movement) st->flops += active;

        switch (fam) {
        case VF_CMP: {
            memset(&bits, 0, sizeof bits);
            for (uint32_t i = 0; i < p.lanes; i++) {
                if (!lane_on(m, i)) continue;
                bool on = asc_dtype_is_float(p.dt) ? cmp_f(load_f(&a, p.dt, i), load_f(&b, p.dt, i), q->in.cond)
                                                   : cmp_i(load_i(&a, p.dt, i), load_i(&b, p.dt, i), q->in.cond);
                if (on) bits.u8[i / 8] |= (uint8_t)(1u << (i % 8));
            }
            memcpy(ub + p.op[OP_DST].base + (uint64_t)r * (p.lanes / 8), bits.u8, p.lanes / 8);
            break;
        }
        case VF_SEL: {
            const uint8_t *mb = ub + p.op[OP_MASK].base + (uint64_t)r * (p.lanes / 8);
            st->bytes += p.lanes / 8;
            for (uint32_t i = 0; i < p.lanes; i++) {
                const VBuf *pick = (mb[i / 8] >> (i % 8)) & 1 ? &a : &b;
                memcpy(d.u8 + i * size, pick->u8 + i * size, size);
            }
            scatter_lanes(ub, &p.op[OP_DST], r, m, p.lanes, &d);
            break;
        }
        case VF_CADD: case VF_CMAX: case VF_CMIN: {
            float v = reduce_repeat(&p, &a, m);
            VBuf one;
            store_f(&one, p.dt, 0, v);
            memcpy(ub + p.op[OP_DST].base + r * p.op[OP_DST].rep_bytes, one.u8, size);
            break;
        }
        case VF_CONV:
            compute_conv(&p, (AscRnd)q->in.rnd, &a, &d);
            scatter_lanes(ub, &p.op[OP_DST], r, m, p.lanes, &d);
            break;
        default:
            compute_elementwise(&p, q, &a, &b, &d);
            scatter_lanes(ub, &p.op[OP_DST], r, m, p.lanes, &d);
            break;
        }
    }
    st->repeats = p.repeats;
    return true;
}

/* vtranspose.b16: dst (16x16 u16, 512 B) = transpose of src; no mask, no
 * config.  Costed as two repeats (rows 0-7 and 8-15 of each operand). */
ASC_EXEC_FN(VTRANSPOSE)
{
    (void)dt0;
    (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    uint64_t src = q->rs1, dst = q->rd;
    if (src > UINT64_MAX / 2 || dst > UINT64_MAX / 2) return asc_exec_fault(ctx, "vtranspose address out of range");
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "src", false, src, src + 512, true)) return false;
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst", true, dst, dst + 512, true)) return false;
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    uint8_t tmp[512];
    if (ctx->on_access) {
        ctx->on_access(ctx->access_ud, ASC_BUF_UB, src, src + 512, false);
        ctx->on_access(ctx->access_ud, ASC_BUF_UB, dst, dst + 512, true);
    }
    memcpy(tmp, ub + src, 512); /* all reads before any write: in-place works */
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++) memcpy(ub + dst + (c * 16 + r) * 2, tmp + (r * 16 + c) * 2, 2);
    for (unsigned h = 0; h < 2; h++) {
        AscBankRepeat br;
        br.nread = br.nwrite = 0;
        for (unsigned k = 0; k < 8; k++) {
            bank_add(&br, false, src + (h * 8 + k) * 32);
            bank_add(&br, true, dst + (h * 8 + k) * 32);
        }
        asc_ubbank_account(ctx->cfg, &br, st);
    }
    st->repeats = 2;
    st->bytes = 512;
    return true;
}

#define VEC_FN(fam, vf) \
    ASC_EXEC_FN(fam) { return vec_run(ctx, q, vf, dt0, dt1, st); }
VEC_FN(VADD, VF_ADD)
VEC_FN(VSUB, VF_SUB)
VEC_FN(VMUL, VF_MUL)
VEC_FN(VMAX, VF_MAX)
VEC_FN(VMIN, VF_MIN)
VEC_FN(VDIV, VF_DIV)
VEC_FN(VAND, VF_AND)
VEC_FN(VOR, VF_OR)
VEC_FN(VEXP, VF_EXP)
VEC_FN(VLN, VF_LN)
VEC_FN(VABS, VF_ABS)
VEC_FN(VSQRT, VF_SQRT)
VEC_FN(VRSQRT, VF_RSQRT)
VEC_FN(VREC, VF_REC)
VEC_FN(VRELU, VF_RELU)
VEC_FN(VNOT, VF_NOT)
VEC_FN(VADDS, VF_ADDS)
VEC_FN(VMULS, VF_MULS)
VEC_FN(VMAXS, VF_MAXS)
VEC_FN(VMINS, VF_MINS)
VEC_FN(VLRELU, VF_LRELU)
VEC_FN(VDUP, VF_DUP)
VEC_FN(VCMP, VF_CMP)
VEC_FN(VSEL, VF_SEL)
VEC_FN(VCADD, VF_CADD)
VEC_FN(VCMAX, VF_CMAX)
VEC_FN(VCMIN, VF_CMIN)
VEC_FN(VCOPY, VF_COPY)
VEC_FN(VBRCB, VF_BRCB)
VEC_FN(VCONV, VF_CONV)
