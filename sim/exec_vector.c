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
 * elements at base + 8*r*size) and GROUP (vcg* / vcpadd dst: `group`
 * contiguous elements at base + r*rep*group*size).
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
#include <stddef.h>
#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif
#include <string.h>

#include "exec_internal.h"

/* Families, from the family table. */
typedef enum VFam {
#define ASC_VFAM(fam, shape, dtypes, flops) VF_##fam,
#include "asc_vfam.def"
#undef ASC_VFAM
    VF_COUNT
} VFam;

/* Operand shapes (the SHAPE column of asc_vfam.def). */
typedef enum VShape { VS_BIN, VS_SEL, VS_CMP, VS_CMPS, VS_SCALAR, VS_AXPY, VS_DUP, VS_UNARY, VS_REDUCE, VS_BRCB, VS_CONV, VS_GROUP, VS_TERN } VShape;

/* Element types a family accepts (the DTYPES column). */
typedef enum VDtypes { VD_F, VD_I, VD_FI, VD_ANY } VDtypes;

typedef enum VKind { VK_LANES, VK_BITS, VK_ELEM, VK_CONTIG8, VK_GROUP } VKind;

enum { OP_DST = 0, OP_SRC0 = 1, OP_SRC1 = 2, OP_MASK = 3, OP_COUNT = 4 };

typedef struct VOperand {
    bool used, write;
    uint8_t kind;      /* VKind */
    const char *name;  /* for fault messages */
    uint64_t base;     /* byte offset into UB */
    uint32_t size;     /* element bytes */
    uint64_t blk_bytes, rep_bytes; /* LANES: blk*32, rep*32; ELEM: rep*size; GROUP: rep*group*size */
    uint32_t group;    /* GROUP: elements per repeat */
    uint8_t half;      /* LANES of 1-byte lanes 16 per block, in bytes 0..15 (1) or 16..31 (2) of each
                          block: the b8 results of vconv.x s16.b8l / s16.b8h; 0 otherwise */
} VOperand;

/* lanes of a LANES operand per 32 B block, and the byte of the block its lane 0 is at */
static inline uint32_t op_epb(const VOperand *o) { return o->half ? 16 : 32 / o->size; }
static inline uint32_t op_boff(const VOperand *o) { return o->half == 2 ? 16 : 0; }

typedef struct VPlan {
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
    float f32[64];
    uint64_t u64[32];
} VBuf;

static bool lane_on(const uint64_t m[2], uint32_t i) { return (m[i >> 6] >> (i & 63)) & 1; }

static uint32_t popcount2(const uint64_t m[2])
{
    return (uint32_t)__builtin_popcountll(m[0]) + (uint32_t)__builtin_popcountll(m[1]);
}

/* ---- element loads and stores -------------------------------------------- */

static inline float load_f(const VBuf *b, AscDtype dt, uint32_t i)
{
    switch (dt) {
    case ASC_DT_F16: return asc_f16_widen(b->u16[i]);
    case ASC_DT_BF16: return asc_bf16_to_f32(b->u16[i]);
    default: {
        float f;
        memcpy(&f, &b->u32[i], 4);
        return f;
    }
    }
}

static inline void store_f(VBuf *b, AscDtype dt, uint32_t i, float f)
{
    switch (dt) {
    case ASC_DT_F16: b->u16[i] = asc_f16_narrow(f); break;
    case ASC_DT_BF16: b->u16[i] = asc_f32_to_bf16(f); break;
    default: memcpy(&b->u32[i], &f, 4); break;
    }
}

static inline int64_t load_i(const VBuf *b, AscDtype dt, uint32_t i)
{
    switch (dt) {
    case ASC_DT_S8: return (int8_t)b->u8[i];
    case ASC_DT_U8: return b->u8[i];
    case ASC_DT_S16: return (int16_t)b->u16[i];
    case ASC_DT_U16: return b->u16[i];
    case ASC_DT_S32: return (int32_t)b->u32[i];
    case ASC_DT_S64:
    case ASC_DT_U64: return (int64_t)b->u64[i];
    default: return b->u32[i];
    }
}

static inline void store_i(VBuf *b, AscDtype dt, uint32_t i, int64_t v)
{
    switch (asc_dtype_size(dt)) {
    case 1: b->u8[i] = (uint8_t)v; break;
    case 2: b->u16[i] = (uint16_t)v; break;
    case 8: b->u64[i] = (uint64_t)v; break;
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
    /* lane i at (i/epb)*blk + (i%epb)*size: per block, its first and last
     * active lane give the block's lowest and highest offset */
    uint32_t epb = op_epb(o), nblk = lanes / epb;
    uint64_t bmask = epb == 64 ? ~0ull : ((1ull << epb) - 1);
    /* every lane of every block active (the usual case): block 0's first lane and the last
     * block's last lane, as the loop below finds them (offsets grow with k) */
    uint32_t n = nblk * epb; /* <= 128 */
    uint64_t m0 = n >= 64 ? ~0ull : n ? (1ull << n) - 1 : 0, m1 = n > 64 ? (n >= 128 ? ~0ull : (1ull << (n - 64)) - 1) : 0;
    if (nblk && (m[0] & m0) == m0 && (m[1] & m1) == m1) {
        *lo = op_boff(o);
        *hi = (uint64_t)(nblk - 1) * o->blk_bytes + op_boff(o) + (uint64_t)epb * o->size;
        return true;
    }
    bool any = false;
    for (uint32_t k = 0; k < nblk; k++) {
        uint32_t f = k * epb;
        uint64_t bits = (m[f >> 6] >> (f & 63)) & bmask;
        if (!bits) continue;
        uint64_t first = (uint64_t)__builtin_ctzll(bits), last = 63 - (uint64_t)__builtin_clzll(bits);
        uint64_t l = k * o->blk_bytes + op_boff(o) + first * o->size;
        uint64_t h = k * o->blk_bytes + op_boff(o) + (last + 1) * o->size;
        if (!any || l < *lo) *lo = l;
        if (!any || h > *hi) *hi = h;
        any = true;
    }
    return any;
}

/* Checks one operand of the whole instruction at once: the union of the
 * active-lane footprints of repeats 0..R-2 (mask `full`) and of repeat R-1
 * (mask `last`, which differs in counter mode).  Strides are unsigned, so
 * repeat 0 has the lowest addresses and the last repeats the highest. */
/* The UB spans an instruction's operand checks passed to asc_exec_check_span, in order. */
typedef struct VSpans {
    uint64_t lo[OP_COUNT], hi[OP_COUNT];
    uint8_t n, wmask;
} VSpans;

static bool check_operand(AscExecCtx *ctx, const VPlan *p, const VOperand *o, VSpans *sp)
{
    uint64_t R = p->repeats, lo = 0, hi = 0;
    bool any = false;
    switch ((VKind)o->kind) {
    case VK_LANES: {
        uint64_t flo = 0, fhi = 0, llo = 0, lhi = 0;
        if (p->last[0] == p->full[0] && p->last[1] == p->full[1]) { /* one mask: the last repeat reaches highest */
            if (lanes_span(o, p->full, p->lanes, &flo, &fhi)) {
                lo = flo;
                hi = (R - 1) * o->rep_bytes + fhi;
                any = true;
            }
            break;
        }
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
    case VK_GROUP: hi = (R - 1) * o->rep_bytes + (uint64_t)o->group * o->size; any = true; break;
    }
    const AscMem *ubm = &ctx->mem[ASC_BUF_UB];
    if (o->base > UINT64_MAX / 2)
        return asc_exec_fault(ctx, "UB %s of %s at 0x%llx is outside UB (0x%x bytes usable)", o->write ? "write" : "read",
                              o->name, (unsigned long long)o->base, (unsigned)ubm->size);
    uint64_t flo = o->base + (any ? lo : 0), fhi = o->base + (any ? hi : 0);
    /* the range of the active lanes, then the start address's alignment
     * (checked even when no lane is active) */
    /* the data pass touches only the active lanes, all inside [flo, fhi): a pending DMA job of
     * the core elsewhere in UB goes on (sim/pool.c) */
    if (!asc_exec_check_span(ctx, ASC_BUF_UB, o->name, o->write, flo, fhi, false)) return false;
    sp->lo[sp->n] = flo, sp->hi[sp->n] = fhi, sp->wmask |= (uint8_t)(o->write << sp->n), sp->n++;
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
    uint32_t epb = op_epb(o), nblk = lanes / epb;
    uint64_t bmask = epb == 64 ? ~0ull : ((1ull << epb) - 1);
    for (uint32_t k = 0; k < nblk; k++) {
        uint32_t first = k * epb;
        uint64_t bits = (m[first >> 6] >> (first & 63)) & bmask;
        if (!bits) continue;
        const uint8_t *src = ub + o->base + r * o->rep_bytes + k * o->blk_bytes + op_boff(o);
        if (bits == bmask) {
            if (!o->half) memcpy(b->u8 + first * o->size, src, 32); /* epb * size = 32: a constant copy, inlined */
            else memcpy(b->u8 + first * o->size, src, (size_t)epb * o->size);
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
    uint32_t epb = op_epb(o), nblk = lanes / epb;
    uint64_t bmask = epb == 64 ? ~0ull : ((1ull << epb) - 1);
    for (uint32_t k = 0; k < nblk; k++) {
        uint32_t first = k * epb;
        uint64_t bits = (m[first >> 6] >> (first & 63)) & bmask;
        if (!bits) continue;
        uint8_t *dst = ub + o->base + r * o->rep_bytes + k * o->blk_bytes + op_boff(o);
        if (bits == bmask) {
            if (!o->half) memcpy(dst, b->u8 + first * o->size, 32); /* epb * size = 32: constant, inlined */
            else memcpy(dst, b->u8 + first * o->size, (size_t)epb * o->size);
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
        uint32_t epb = op_epb(o), nblk = p->lanes / epb;
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
    case VK_GROUP: {
        uint64_t lo = o->base + r * o->rep_bytes;
        bank_add_span(br, o->write, lo, lo + (uint64_t)o->group * o->size);
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

/* ---- the semantics of each family ------------------------------------------ *
 *
 * One function per row of asc_vfam.def, vsem_<FAM>, called once per repeat
 * after the driver gathered the sources.  Sources hold lane i at byte
 * i*size; inactive lanes hold zeros or stale data and may be computed on,
 * since the driver never stores them.  A function fills d: its lanes (a
 * lane destination), packed bits (CMP) or element 0 (REDUCE). */

typedef struct VRepeat {
    AscDtype dt, dto;      /* element type; vconv's destination type */
    uint32_t lanes, size;  /* lanes per repeat; bytes of a dt element */
    const uint64_t *m;     /* active lanes of this repeat */
    const VBuf *a, *b, *c; /* src0 (src), src1, cmpmask bits */
    VBuf *d;
    float sf;              /* the scalar operand as a float element type holds it */
    int64_t si;            /* ... as an integer element type holds it */
    unsigned cond;         /* vcmp's condition */
    AscRnd rnd;            /* vconv's rounding */
    bool exp_fma;          /* vexp.f32 may take exp_lanes_fma (ctx->exp_fma) */
    bool deq;              /* vconv.x s16.b8l/h: dst = sat(rint(src * scale + offset)), si = DEQSCALE */
    const uint64_t *vdeq;  /* vconv.x s16.vb8l/h: the 16 DEQSCALE-layout words of the UB table; NULL otherwise */
} VRepeat;

typedef void VSemFn(const VRepeat *v);

/* Every lane: x = src0[i], y = Y, dst[i] = EXPR, in f32 (rounded to the
 * element type by store_f) or in int64 (wrapped to the element width).
 * FLOAT_LANES runs one loop per float type with dt_ a constant, so the
 * loads and stores have no type switch per lane (Y and EXPR name dt_). */
/* The loops read v's fields once (a_, b_, d_, sf_, si_, n_: the stores go
 * through bytes, which could alias v for the compiler) and the buffers are
 * distinct (vec_data's a, b, d), so the compiler may vectorise them. */
#define LANE_LOCALS(v)                                                          \
    const VBuf *restrict a_ = (v)->a, *restrict b_ = (v)->b;                     \
    VBuf *restrict d_ = (v)->d;                                                 \
    const float sf_ = (v)->sf;                                                  \
    const int64_t si_ = (v)->si;                                                \
    const uint32_t n_ = (v)->lanes;                                             \
    (void)b_, (void)sf_, (void)si_;
#define FLOAT_LOOP(v, Y, EXPR)                                  \
    LANE_LOCALS(v)                                              \
    for (uint32_t i = 0; i < n_; i++) {                         \
        float x = load_f(a_, dt_, i), y = (Y);                  \
        (void)y;                                                \
        store_f(d_, dt_, i, (EXPR));                            \
    }
#define FLOAT_LANES(v, Y, EXPR)                                                 \
    switch ((v)->dt) {                                                          \
    case ASC_DT_F16: {                                                          \
        const AscDtype dt_ = ASC_DT_F16;                                        \
        FLOAT_LOOP(v, Y, EXPR)                                                  \
        break;                                                                  \
    }                                                                           \
    case ASC_DT_BF16: {                                                         \
        const AscDtype dt_ = ASC_DT_BF16;                                       \
        FLOAT_LOOP(v, Y, EXPR)                                                  \
        break;                                                                  \
    }                                                                           \
    default: {                                                                  \
        const AscDtype dt_ = ASC_DT_F32; /* load_f/store_f: 4 raw bytes */      \
        FLOAT_LOOP(v, Y, EXPR)                                                  \
        break;                                                                  \
    }                                                                           \
    }
#define INT_LANES(v, Y, EXPR)                                   \
    {                                                           \
        LANE_LOCALS(v)                                          \
        const AscDtype idt_ = (v)->dt;                          \
        for (uint32_t i = 0; i < n_; i++) {                     \
            int64_t x = load_i(a_, idt_, i), y = (Y);           \
            (void)y;                                            \
            store_i(d_, idt_, i, (EXPR));                       \
        }                                                       \
    }
/* y = src1[i] */
#define BINARY(v, FEXPR, IEXPR)                                                 \
    if (asc_dtype_is_float((v)->dt)) {                                          \
        FLOAT_LANES(v, load_f(b_, dt_, i), FEXPR)                               \
    } else {                                                                    \
        INT_LANES(v, load_i(b_, idt_, i), IEXPR)                                \
    }
/* y = the scalar operand */
#define WITH_SCALAR(v, FEXPR, IEXPR)                                            \
    if (asc_dtype_is_float((v)->dt)) {                                          \
        FLOAT_LANES(v, sf_, FEXPR)                                              \
    } else {                                                                    \
        INT_LANES(v, si_, IEXPR)                                                \
    }
#define WRAP(x, OP, y) ((int64_t)((uint64_t)(x) OP (uint64_t)(y)))

static void vsem_VADD(const VRepeat *v) { BINARY(v, x + y, WRAP(x, +, y)) }
static void vsem_VSUB(const VRepeat *v) { BINARY(v, x - y, WRAP(x, -, y)) }
static void vsem_VMUL(const VRepeat *v) { BINARY(v, x * y, WRAP(x, *, y)) }
static void vsem_VMAX(const VRepeat *v) { BINARY(v, fmax_asc(x, y), x > y ? x : y) }
static void vsem_VMIN(const VRepeat *v) { BINARY(v, fmin_asc(x, y), x < y ? x : y) }
static void vsem_VDIV(const VRepeat *v) { FLOAT_LANES(v, load_f(b_, dt_, i), x / y) }
static void vsem_VAND(const VRepeat *v) { INT_LANES(v, load_i(b_, idt_, i), x & y) }
static void vsem_VOR(const VRepeat *v) { INT_LANES(v, load_i(b_, idt_, i), x | y) }

/* The host's expf, 64 f32 lanes at once, where the host libm is glibc's on a CPU
 * with FMA and AVX2: glibc then runs __expf_fma (sysdeps/ieee754/flt-32/e_expf.c,
 * the ARM optimized-routines algorithm), and this is the same arithmetic -- the
 * same table of 2^(i/32) and polynomial, the same fused multiply-adds, in the same
 * order, read off its machine code -- written as a loop the compiler vectorises.
 * Lanes outside its fast range (|x| >= 88, inf, NaN: top 12 bits >= 0x42b) call
 * expf.  Used only after exp_fma_usable has compared it with expf on the host
 * (ctx->exp_fma); checked over every f32 input when written (bench/README.md). */
#if defined(__GNUC__) && defined(__x86_64__)
#define ASC_EXP_FMA 1
static const uint64_t exp_t32[32] = {
    0x3ff0000000000000ull, 0x3fefd9b0d3158574ull, 0x3fefb5586cf9890full, 0x3fef9301d0125b51ull,
    0x3fef72b83c7d517bull, 0x3fef54873168b9aaull, 0x3fef387a6e756238ull, 0x3fef1e9df51fdee1ull,
    0x3fef06fe0a31b715ull, 0x3feef1a7373aa9cbull, 0x3feedea64c123422ull, 0x3feece086061892dull,
    0x3feebfdad5362a27ull, 0x3feeb42b569d4f82ull, 0x3feeab07dd485429ull, 0x3feea47eb03a5585ull,
    0x3feea09e667f3bcdull, 0x3fee9f75e8ec5f74ull, 0x3feea11473eb0187ull, 0x3feea589994cce13ull,
    0x3feeace5422aa0dbull, 0x3feeb737b0cdc5e5ull, 0x3feec49182a3f090ull, 0x3feed503b23e255dull,
    0x3feee89f995ad3adull, 0x3feeff76f2fb5e47ull, 0x3fef199bdd85529cull, 0x3fef3720dcef9069ull,
    0x3fef5818dcfba487ull, 0x3fef7c97337b9b5full, 0x3fefa4afa2a490daull, 0x3fefd0765b6e4540ull};

static inline double d_of(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

__attribute__((target("avx2,fma"))) static void exp_lanes_fma(const float *restrict in, float *restrict out,
                                                               uint32_t n)
{
    const double inv_ln2_n = d_of(0x40471547652b82feull), shift = d_of(0x4338000000000000ull); /* 32/ln2, 1.5*2^52 */
    const double c0 = d_of(0x3ebc6af84b912394ull), c1 = d_of(0x3f2ebfce50fac4f3ull), c2 = d_of(0x3f962e42ff0c52d6ull);
    uint32_t slow = 0;
    for (uint32_t i = 0; i < n; i++) {
        float x = in[i];
        uint32_t u;
        memcpy(&u, &x, 4);
        slow |= ((u >> 20) & 0x7ff) >= 0x42b;
        double xd = (double)x;
        double z = __builtin_fma(inv_ln2_n, xd, shift); /* k = round(x * 32/ln2) in the low bits */
        uint64_t ki;
        memcpy(&ki, &z, 8);
        double kd = z - shift;
        double r = __builtin_fma(inv_ln2_n, xd, -kd);
        double s = d_of(exp_t32[ki & 31] + (ki << 47)); /* 2^(k/32) */
        double p = __builtin_fma(r, c0, c1), r2 = r * r, q = __builtin_fma(r, c2, 1.0);
        out[i] = (float)(__builtin_fma(p, r2, q) * s);
    }
    if (slow)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, &in[i], 4);
            if (((u >> 20) & 0x7ff) >= 0x42b) out[i] = expf(in[i]);
        }
}

/* exp_lanes_fma may stand for expf: the CPU has FMA and AVX2, and it gives expf's
 * bits on 4096 inputs spread over its fast range and beyond (a host libm that is not
 * glibc's FMA expf fails this, and expf is called lane by lane as before). */
static bool exp_fma_check(void)
{
    if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) return false;
    float in[64], out[64];
    for (uint32_t b = 0; b < 64; b++) {
        for (uint32_t i = 0; i < 64; i++) {
            uint32_t u = (b * 64 + i) * 0x000fffffu * 17u + 0x2f000000u * (i & 1); /* both signs, every exponent */
            memcpy(&in[i], &u, 4);
        }
        exp_lanes_fma(in, out, 64);
        for (uint32_t i = 0; i < 64; i++) {
            float e = expf(in[i]);
            if (memcmp(&e, &out[i], 4)) return false;
        }
    }
    return true;
}
#endif

static bool exp_fma_usable(AscExecCtx *ctx)
{
#ifdef ASC_EXP_FMA
    if (!ctx->exp_fma) ctx->exp_fma = exp_fma_check() ? 1 : -1;
    return ctx->exp_fma > 0;
#else
    (void)ctx;
    return false;
#endif
}

/* f16 lanes through the host's F16C conversions, 8 at a time: vcvtph2ps is exact like
 * asc_f16_widen (NaNs quieted, payload kept), vcvtps2ph with round-to-nearest-even rounds like
 * asc_f16_narrow (NaNs quieted, payload's top bits kept).  Used only after f16c_usable compared
 * both with them on the host (ctx->f16c); test_exec_vector compares every f16 value and the
 * f32 values around every f16 rounding boundary. */
#if defined(__GNUC__) && defined(__x86_64__)
#define ASC_VEC_F16C 1
__attribute__((target("avx,f16c"))) static void f16c_widen(const uint16_t *in, float *out, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(in + i))));
}

__attribute__((target("avx,f16c"))) static void f16c_narrow(const float *in, uint16_t *out, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += 8)
        _mm_storeu_si128((__m128i *)(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
}

/* The CPU has F16C (CPUID.1:ECX bit 29, as exec_cube.c asks) and the conversions agree with
 * the portable ones on every 61st f16 value, the specials, and f32 values at and beside the
 * rounding boundaries of those. */
static bool f16c_check(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_F16C)) return false;
    uint16_t h[64], back[64];
    float f[64];
    for (uint32_t base = 0; base < 65536; base += 64 * 61) {
        for (uint32_t i = 0; i < 64; i++) h[i] = (uint16_t)(base + i * 61 + (i & 1) * 0x7c00u);
        h[0] = 0x7c01, h[1] = 0xfe00, h[2] = 0x7c00, h[3] = 0x0001, h[4] = 0x8000;
        f16c_widen(h, f, 64);
        for (uint32_t i = 0; i < 64; i++) {
            float w = asc_f16_widen(h[i]);
            if (memcmp(&w, &f[i], 4)) return false;
        }
        for (uint32_t k = 0; k < 3; k++) { /* the value, and the f32 half an f16 ulp (+-1) above it */
            for (uint32_t i = 0; i < 64; i++) {
                uint32_t u;
                memcpy(&u, &f[i], 4);
                u += k == 0 ? 0 : k == 1 ? 0x1000u : 0xfffu;
                memcpy(&f[i], &u, 4);
            }
            f16c_narrow(f, back, 64);
            for (uint32_t i = 0; i < 64; i++)
                if (asc_f16_narrow(f[i]) != back[i]) return false;
        }
    }
    return true;
}
#endif

static bool f16c_usable(AscExecCtx *ctx)
{
#ifdef ASC_VEC_F16C
    if (!ctx->f16c) ctx->f16c = f16c_check() ? 1 : -1;
    return ctx->f16c > 0;
#else
    (void)ctx;
    return false;
#endif
}

static void vsem_VEXP(const VRepeat *v)
{
#ifdef ASC_EXP_FMA
    if (v->exp_fma && v->dt == ASC_DT_F32) {
        exp_lanes_fma(v->a->f32, v->d->f32, v->lanes);
        return;
    }
#endif
    FLOAT_LANES(v, 0.0f, expf(x))
}
static void vsem_VLN(const VRepeat *v) { FLOAT_LANES(v, 0.0f, logf(x)) }
static void vsem_VSQRT(const VRepeat *v) { FLOAT_LANES(v, 0.0f, sqrtf(x)) }
static void vsem_VRSQRT(const VRepeat *v) { FLOAT_LANES(v, 0.0f, (float)(1.0 / sqrt((double)x))) }
static void vsem_VREC(const VRepeat *v) { FLOAT_LANES(v, 0.0f, 1.0f / x) }

/* clear the sign bit: exact for every value, NaN payload kept */
static void vsem_VABS(const VRepeat *v)
{
    for (uint32_t i = 0; i < v->lanes; i++) {
        if (v->dt == ASC_DT_F32)
            v->d->u32[i] = v->a->u32[i] & 0x7fffffffu;
        else
            v->d->u16[i] = v->a->u16[i] & 0x7fffu;
    }
}

static void vsem_VRELU(const VRepeat *v)
{
    if (asc_dtype_is_float(v->dt)) {
        FLOAT_LANES(v, 0.0f, x > 0 ? x : 0.0f)
    } else {
        INT_LANES(v, 0, x > 0 ? x : 0)
    }
}

static void vsem_VNOT(const VRepeat *v) { INT_LANES(v, 0, ~x) }

static void vsem_VADDS(const VRepeat *v) { WITH_SCALAR(v, x + y, WRAP(x, +, y)) }
static void vsem_VMULS(const VRepeat *v) { WITH_SCALAR(v, x * y, WRAP(x, *, y)) }
static void vsem_VMAXS(const VRepeat *v) { WITH_SCALAR(v, fmax_asc(x, y), x > y ? x : y) }
static void vsem_VMINS(const VRepeat *v) { WITH_SCALAR(v, fmin_asc(x, y), x < y ? x : y) }
static void vsem_VLRELU(const VRepeat *v) { FLOAT_LANES(v, sf_, x >= 0 ? x : x * y) }
/* dst[i] = src[i] * scalar + dst[i] (b holds dst's lanes): product rounded to
 * f32, then the sum (C11 without FP_CONTRACT: no fused multiply-add) */
static void vsem_VAXPY(const VRepeat *v) { FLOAT_LANES(v, sf_, x * y + load_f(b_, dt_, i)) }

static void vsem_VDUP(const VRepeat *v)
{
    for (uint32_t i = 0; i < v->lanes; i++) {
        if (asc_dtype_is_float(v->dt))
            store_f(v->d, v->dt, i, v->sf);
        else
            store_i(v->d, v->dt, i, v->si);
    }
}

/* bit i (LSB first) = src0[i] <cond> src1[i]; inactive lanes give 0 */
static void vsem_VCMP(const VRepeat *v)
{
    memset(v->d->u8, 0, v->lanes / 8);
    for (uint32_t i = 0; i < v->lanes; i++) {
        if (!lane_on(v->m, i)) continue;
        bool on = asc_dtype_is_float(v->dt) ? cmp_f(load_f(v->a, v->dt, i), load_f(v->b, v->dt, i), v->cond)
                                            : cmp_i(load_i(v->a, v->dt, i), load_i(v->b, v->dt, i), v->cond);
        if (on) v->d->u8[i / 8] |= (uint8_t)(1u << (i % 8));
    }
}

/* bit i (LSB first) = src0[i] <cond> scalar; inactive lanes give 0 */
static void vsem_VCMPS(const VRepeat *v)
{
    memset(v->d->u8, 0, v->lanes / 8);
    for (uint32_t i = 0; i < v->lanes; i++)
        if (lane_on(v->m, i) && cmp_f(load_f(v->a, v->dt, i), v->sf, v->cond))
            v->d->u8[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* dst[i] = cmpmask bit i ? src0[i] : src1[i] */
static void vsem_VSEL(const VRepeat *v)
{
    for (uint32_t i = 0; i < v->lanes; i++) {
        const VBuf *pick = (v->c->u8[i / 8] >> (i % 8)) & 1 ? v->a : v->b;
        memcpy(v->d->u8 + i * v->size, pick->u8 + i * v->size, v->size);
    }
}

/* One value from the active lanes of a repeat: pairwise tree over the
 * active values in lane order (see docs/semantics.md); vcadd rounds to the
 * element type after every add.  No active lane: the identity. */
typedef enum VReduce { VR_ADD, VR_MAX, VR_MIN } VReduce;

/* One tree level: x[j] = op(x[2j], x[2j+1]); an odd last value moves up.
 * One loop per (reduction, type), so the loop has no switch (ADD rounds to
 * the element type after every add, as the hardware's vcadd does). */
#define REDUCE_TREE(OP)                                         \
    while (n > 1) {                                             \
        uint32_t h = n / 2;                                     \
        for (uint32_t j = 0; j < h; j++) {                      \
            float p = x[2 * j], q = x[2 * j + 1];               \
            x[j] = (OP);                                        \
        }                                                       \
        if (n & 1) x[h] = x[n - 1];                             \
        n = n - h;                                              \
    }

/* max (min) of n >= 1 values none of which is a NaN, exactly as the tree of
 * fmax_asc (fmin_asc) gives it: with no NaN those return one of their two
 * operands, the greater (lesser) in the total order of the values with
 * -0 < +0, so any order of the pairs gives the same element.  The order is
 * the integer order of key(bits) = bits ^ ((bits >> 31) & 0x7fffffff) as
 * int32 (sign-magnitude to two's complement; key(-0) = -1 < key(+0) = 0),
 * and key is its own inverse.  One loop without branches (vectorisable). */
static float extreme_no_nan(const float *x, uint32_t n, bool max)
{
    int32_t best = max ? INT32_MIN : INT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        int32_t k = (int32_t)(u ^ ((uint32_t)((int32_t)u >> 31) & 0x7fffffffu));
        if (max)
            best = k > best ? k : best;
        else
            best = k < best ? k : best;
    }
    uint32_t u = (uint32_t)best ^ ((uint32_t)(best >> 31) & 0x7fffffffu);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Some value of x[0..n) is a NaN (one loop without branches). */
static bool any_nan(const float *x, uint32_t n)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        bad |= (u & 0x7fffffffu) > 0x7f800000u;
    }
    return bad != 0;
}

/* The f32 sum tree of 64 values (a full f32 repeat): the levels of
 * REDUCE_TREE(p + q) at n = 64, 32, .., 2 (no odd level), in the same order
 * of the same additions, written with constant trip counts so that each
 * level vectorises. */
static float sum64_f32(float *x)
{
    float y[32];
    for (uint32_t j = 0; j < 32; j++) y[j] = x[2 * j] + x[2 * j + 1];
    for (uint32_t j = 0; j < 16; j++) x[j] = y[2 * j] + y[2 * j + 1];
    for (uint32_t j = 0; j < 8; j++) y[j] = x[2 * j] + x[2 * j + 1];
    for (uint32_t j = 0; j < 4; j++) x[j] = y[2 * j] + y[2 * j + 1];
    y[0] = x[0] + x[1];
    y[1] = x[2] + x[3];
    return y[0] + y[1];
}

static void reduce(const VRepeat *v, VReduce how)
{
    float x[128];
    uint32_t n = 0;
    const VBuf *a = v->a;
    const uint32_t lanes = v->lanes;
    const uint64_t m0 = v->m[0], m1 = v->m[1];
    const uint64_t all0 = lanes >= 64 ? ~0ull : ((1ull << lanes) - 1), all1 = lanes > 64 ? ~0ull : 0;
    if (m0 == all0 && m1 == all1) { /* every lane: no mask test per lane */
        switch (v->dt) {
        case ASC_DT_F16: for (uint32_t i = 0; i < lanes; i++) x[i] = load_f(a, ASC_DT_F16, i); break;
        case ASC_DT_BF16: for (uint32_t i = 0; i < lanes; i++) x[i] = load_f(a, ASC_DT_BF16, i); break;
        default:
            if (lanes == 64) memcpy(x, a->u32, 256); /* a full f32 repeat: a constant copy, inlined */
            else memcpy(x, a->u32, (size_t)lanes * 4);
            break;
        }
        n = lanes;
    } else {
        for (uint32_t i = 0; i < lanes; i++)
            if (lane_on(v->m, i)) x[n++] = load_f(a, v->dt, i);
    }
    if (n == 0) x[0] = how == VR_ADD ? 0.0f : how == VR_MAX ? -INFINITY : INFINITY;
    if (how != VR_ADD && n > 1 && !any_nan(x, n)) {
        x[0] = extreme_no_nan(x, n, how == VR_MAX);
    } else if (how == VR_MAX) {
        REDUCE_TREE(fmax_asc(p, q))
    } else if (how == VR_MIN) {
        REDUCE_TREE(fmin_asc(p, q))
    } else if (v->dt == ASC_DT_F16) {
        REDUCE_TREE(asc_f16_widen(asc_f16_narrow(p + q)))
    } else if (v->dt == ASC_DT_BF16) {
        REDUCE_TREE(asc_bf16_to_f32(asc_f32_to_bf16(p + q)))
    } else if (n == 64) {
        x[0] = sum64_f32(x);
    } else {
        REDUCE_TREE(p + q)
    }
    store_f(v->d, v->dt, 0, x[0]);
}
#undef REDUCE_TREE

static void vsem_VCADD(const VRepeat *v) { reduce(v, VR_ADD); }
static void vsem_VCMAX(const VRepeat *v) { reduce(v, VR_MAX); }
static void vsem_VCMIN(const VRepeat *v) { reduce(v, VR_MIN); }

/* vcgadd / vcgmax / vcgmin: element k of the dst group = the reduction of
 * the active lanes of source block k, by the pairwise tree of reduce()
 * (Ascend C BlockReduceSum documents the binary tree and that an f16 partial
 * sum above 65504 is kept as 65504).  vcpadd: element j = src[2j] + src[2j+1]
 * over the active lanes of the pair.  A block (pair) with no active lane
 * leaves its element as the driver loaded it from dst (PairReduceSum's
 * documented rule on dav_c220; assumed for the block reductions too). */
static float group_add(AscDtype dt, float p, float q)
{
    float r = p + q;
    if (dt == ASC_DT_F16) {
        if (isfinite(p) && isfinite(q) && fabsf(r) > 65504.0f) r = copysignf(65504.0f, r);
        r = asc_f16_to_f32(asc_f32_to_f16(r));
    }
    return r;
}

static void group_reduce(const VRepeat *v, uint32_t width, VReduce how)
{
    for (uint32_t k = 0; k < v->lanes / width; k++) {
        float x[64];
        uint32_t n = 0;
        for (uint32_t i = k * width; i < (k + 1) * width; i++)
            if (lane_on(v->m, i)) x[n++] = load_f(v->a, v->dt, i);
        if (n == 0) continue;
        while (n > 1) {
            uint32_t h = n / 2;
            for (uint32_t j = 0; j < h; j++)
                x[j] = how == VR_ADD ? group_add(v->dt, x[2 * j], x[2 * j + 1])
                       : how == VR_MAX ? fmax_asc(x[2 * j], x[2 * j + 1]) : fmin_asc(x[2 * j], x[2 * j + 1]);
            if (n & 1) x[h] = x[n - 1];
            n = n - h;
        }
        store_f(v->d, v->dt, k, x[0]);
    }
}

static void vsem_VCGADD(const VRepeat *v) { group_reduce(v, 32 / v->size, VR_ADD); }
static void vsem_VCGMAX(const VRepeat *v) { group_reduce(v, 32 / v->size, VR_MAX); }
static void vsem_VCGMIN(const VRepeat *v) { group_reduce(v, 32 / v->size, VR_MIN); }
static void vsem_VCPADD(const VRepeat *v) { group_reduce(v, 2, VR_ADD); }

static void vsem_VCOPY(const VRepeat *v) { memcpy(v->d->u8, v->a->u8, 256); }

/* block j of the dst repeat = 32/size copies of src element j (the driver
 * gathered src[8r .. 8r+8) into a) */
static void vsem_VBRCB(const VRepeat *v)
{
    uint32_t epb = 32 / v->size;
    if (v->size == 4) { /* the same copies, a word at a time */
        for (uint32_t i = 0; i < v->lanes; i++) v->d->u32[i] = v->a->u32[i / 8];
        return;
    }
    if (v->size == 2) {
        for (uint32_t i = 0; i < v->lanes; i++) v->d->u16[i] = v->a->u16[i / 16];
        return;
    }
    for (uint32_t i = 0; i < v->lanes; i++) memcpy(v->d->u8 + i * v->size, v->a->u8 + (i / epb) * v->size, v->size);
}

/* s64 -> double rounded to odd (53 bits: exact up to 2^53, else the dropped bits folded into the
 * last one), so one more rounding to f32 (24 bits) under any mode is the correct rounding of v */
static double s64_to_f64_odd(int64_t v)
{
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (m < (1ull << 53)) return (double)v;
    int shift = 64 - __builtin_clzll(m) - 53;
    uint64_t kept = m >> shift;
    if (m & ((1ull << shift) - 1)) kept |= 1;
    double d = ldexp((double)kept, shift);
    return v < 0 ? -d : d;
}

/* vconv: src type dt, dst type dto, rounded by rnd; float -> integer and integer -> narrower
 * integer saturate (Ascend C precision_conversion.md: "overflow saturates by default"), NaN -> 0 */
static void vsem_VCONV(const VRepeat *v)
{
    AscDtype st = v->dt, dt = v->dto;
    AscRnd rnd = v->rnd;
    const VBuf *a = v->a;
    VBuf *d = v->d;
    if (v->deq) { /* CastDequant s16 -> b8 (DEQSCALE: f32 scale bits 31:0, offset bits 45:37, sign mode 46) */
        for (uint32_t i = 0; i < v->lanes; i++) {
            /* vector dequantisation: lane i is element i % 16 of its 32 B source block, which uses
             * table word i % 16 with its own sign mode; else the register's one word */
            uint64_t w = v->vdeq ? v->vdeq[i % 16] : (uint64_t)v->si;
            bool sgn = v->vdeq ? (w >> 46) & 1 : dt == ASC_DT_S8;
            /* SetDeqScale.md: the hardware takes the f32 scale as a 1-8-10 float (bits 12:0
             * dropped), as the fixpipe's M1 (exec_cube.c fixq_param) */
            uint32_t sb = (uint32_t)w & 0xffffe000u;
            float scale;
            memcpy(&scale, &sb, 4);
            int32_t off = (int32_t)((w >> 37) & 0x1ff);
            if (off & 0x100) off -= 0x200;
            volatile float t = (float)load_i(a, ASC_DT_S16, i) * scale; /* the f32 product, then the sum */
            t = t + (float)off;
            d->u8[i] = (uint8_t)(sgn ? asc_float_to_int_sat(t, ASC_RND_RINT, INT8_MIN, INT8_MAX)
                                     : asc_float_to_int_sat(t, ASC_RND_RINT, 0, UINT8_MAX));
        }
        return;
    }
    for (uint32_t i = 0; i < v->lanes; i++) {
        double x = asc_dtype_is_float(st) ? (double)load_f(a, st, i)
                   : st == ASC_DT_S64     ? s64_to_f64_odd(load_i(a, st, i))
                                          : (double)load_i(a, st, i);
        switch (dt) {
        case ASC_DT_F32: {
            float r;
            if (st == ASC_DT_F32)
                r = (float)asc_round_integral(x, rnd);
            else if (st == ASC_DT_S32 || st == ASC_DT_S64)
                r = asc_f64_to_f32_rnd(x, rnd);
            else
                r = (float)x; /* f16/bf16/s16 -> f32 exact */
            memcpy(&d->u32[i], &r, 4);
            break;
        }
        case ASC_DT_F16: d->u16[i] = asc_f32_to_f16_rnd((float)x, rnd); break; /* (float)x exact here */
        case ASC_DT_BF16: d->u16[i] = asc_f32_to_bf16_rnd((float)x, rnd); break;
        case ASC_DT_S64: d->u64[i] = (uint64_t)asc_float_to_int_sat(x, rnd, INT64_MIN, INT64_MAX); break;
        case ASC_DT_S32: d->u32[i] = (uint32_t)asc_float_to_int_sat(x, rnd, INT32_MIN, INT32_MAX); break;
        case ASC_DT_S16: d->u16[i] = (uint16_t)asc_float_to_int_sat(x, rnd, INT16_MIN, INT16_MAX); break;
        case ASC_DT_S8: d->u8[i] = (uint8_t)asc_float_to_int_sat(x, rnd, INT8_MIN, INT8_MAX); break;
        default: d->u8[i] = (uint8_t)asc_float_to_int_sat(x, rnd, 0, UINT8_MAX); break;
        }
    }
}

/* vconv_deq.s32.f16: dst = the exact product src * scale (s32 x f16 fits f64),
 * rounded once to f16 by rint (via f32 with round-to-odd, which keeps the
 * one rounding exact); scale = the f16 in SPR deqscale bits 15:0, in sf */
/* AddDeqRelu (dav_c220 AddDeqReluCompute, isa/asc_isa.def VADDDEQRELU): every step of the
 * vector sequence, rounded as it rounds; v->sf is float(the half in DEQSCALE bits 15:0). */
static void vsem_VADDDEQ(const VRepeat *v)
{
    for (uint32_t i = 0; i < v->lanes; i++) {
        int32_t s = (int32_t)((uint32_t)load_i(v->a, ASC_DT_S32, i) + (uint32_t)load_i(v->b, ASC_DT_S32, i));
        volatile float f = (float)s; /* volatile: each product is rounded to f32 on its own */
        f = f * 0x1p-17f;
        f = f * v->sf;
        f = f * 0x1p17f;
        uint16_t h = asc_f32_to_f16_rnd(f, ASC_RND_RINT);
        v->d->u16[i] = asc_f32_to_f16_rnd(fmax_asc(0.0f, asc_f16_widen(h)), ASC_RND_RINT);
    }
}

static void vsem_VDEQ(const VRepeat *v)
{
    for (uint32_t i = 0; i < v->lanes; i++) {
        double x = (double)load_i(v->a, ASC_DT_S32, i) * (double)v->sf;
        v->d->u16[i] = asc_f32_to_f16_rnd(asc_f64_to_f32_rnd(x, ASC_RND_ODD), ASC_RND_RINT);
    }
}

/* vshl / vshr: the amount is the scalar as the element type holds it, read
 * unsigned; an amount >= the width shifts every bit out (vshr of a signed
 * type then gives the sign fill). */
static uint32_t shift_amount(const VRepeat *v)
{
    return v->size == 2 ? (uint16_t)v->si : (uint32_t)v->si;
}

static void vsem_VSHL(const VRepeat *v)
{
    uint32_t n = shift_amount(v), w = 8 * v->size;
    INT_LANES(v, 0, n >= w ? 0 : (int64_t)((uint64_t)x << n))
}

static void vsem_VSHR(const VRepeat *v)
{
    uint32_t n = shift_amount(v), w = 8 * v->size;
    bool sgn = v->dt == ASC_DT_S16 || v->dt == ASC_DT_S32;
    INT_LANES(v, 0, sgn ? (x >> (n >= w ? w - 1 : n)) : (n >= w ? 0 : (int64_t)((uint64_t)x >> n)))
}

#include "exec_vfused.inc" /* fused families: vaddrelu, vsubrelu, vmadd, vmaddrelu, vmla */

#undef FLOAT_LANES
#undef FLOAT_LOOP
#undef LANE_LOCALS
#undef INT_LANES
#undef BINARY
#undef WITH_SCALAR
#undef WRAP

/* The family table's columns, per family. */
typedef struct VFamInfo {
    VSemFn *sem;
    uint8_t shape;  /* VShape */
    uint8_t dtypes; /* VDtypes */
    bool flops;
    const char *name;
} VFamInfo;

static const VFamInfo vfam_info[VF_COUNT] = {
#define ASC_VFAM(fam, shape, dtypes, flops) [VF_##fam] = {vsem_##fam, VS_##shape, VD_##dtypes, flops, #fam},
#include "asc_vfam.def"
#undef ASC_VFAM
};

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

static bool dtypes_ok(VDtypes d, AscDtype dt)
{
    switch (d) {
    case VD_F: return asc_dtype_is_float(dt);
    case VD_I: return !asc_dtype_is_float(dt);
    default: return true;
    }
}

/* Instructions of at least this many lanes (repeats x lanes) go to a host
 * worker thread when there is one; shorter ones run inline.  Either way the
 * bits are the same. */
#define VEC_DEFER_LANES 512

/* What the data pass of one instruction needs (copied into AscExecJob.blob). */
typedef struct VJob {
    VPlan p;
    uint8_t fam;   /* VFam */
    uint32_t size; /* bytes of a dt element */
    float sf;
    int64_t si;
    unsigned cond;
    AscRnd rnd;
    bool deq;           /* vconv.x s16.b8l/h and s16.vb8l/h (VRepeat.deq) */
    bool vdeq;          /* vconv.x s16.vb8l/h: tab holds the DEQSCALE table read from UB */
    uint64_t tab[16];
    bool cmpreg;        /* vsel, config bit 49: the mask is the CMPMASK register, in reg */
    bool sels;          /* vsel, config bit 50: src1 is the scalar whose element bits are in sel1 */
    bool exp_fma;       /* vexp: exp_lanes_fma stands for expf on this host */
    bool f16w;          /* f16 lanes widened to f32 with F16C, the family's f32 form, narrowed back */
    uint8_t reg[16];
    uint8_t sel1[4];
} VJob;

static bool mask_is(const uint64_t m[2], const uint64_t want[2]) { return m[0] == want[0] && m[1] == want[1]; }

/* The lanes of one repeat fill 256 B at one address: one copy. */
static bool contiguous(const VOperand *o) { return o->kind == VK_LANES && o->blk_bytes == 32 && !o->half; }

/* Families whose f16 form is exactly their f32 form between a widening and a narrowing:
 * FLOAT_LANES computes every lane in float from asc_f16_widen'ed sources and rounds it once
 * with asc_f16_narrow (store_f); nothing else in them depends on the element type. */
static bool f16_as_f32(VFam fam)
{
    switch (fam) {
    case VF_VADD: case VF_VSUB: case VF_VMUL: case VF_VDIV: case VF_VMAX: case VF_VMIN:
    case VF_VADDS: case VF_VMULS: case VF_VMAXS: case VF_VMINS: case VF_VLRELU: case VF_VAXPY:
    case VF_VEXP: case VF_VLN: case VF_VSQRT: case VF_VRSQRT: case VF_VREC: case VF_VRELU:
        return true;
    default: return false;
    }
}

/* One f16 repeat (128 lanes) of such a family through its f32 form, 64 lanes at a time,
 * the sources widened and the results narrowed with F16C (VJob.f16w). */
static void sem_f16_wide(VSemFn *sem, const VRepeat *v)
{
#ifdef ASC_VEC_F16C
    VBuf a[2], b[2], d[2];
    f16c_widen(v->a->u16, a[0].f32, 64);
    f16c_widen(v->a->u16 + 64, a[1].f32, 64);
    f16c_widen(v->b->u16, b[0].f32, 64);
    f16c_widen(v->b->u16 + 64, b[1].f32, 64);
    for (int h = 0; h < 2; h++) {
        uint64_t m[2] = {v->m[h], 0};
        VRepeat w = *v;
        w.dt = w.dto = ASC_DT_F32;
        w.lanes = 64;
        w.size = 4;
        w.m = m;
        w.a = &a[h];
        w.b = &b[h];
        w.d = &d[h];
        sem(&w);
    }
    f16c_narrow(d[0].f32, v->d->u16, 64);
    f16c_narrow(d[1].f32, v->d->u16 + 64, 64);
#else
    sem(v);
#endif
}

/* Gathers, computes and stores every repeat (the invariants at the top:
 * sources of a repeat are read before its destination is written). */
static void vec_data(uint8_t *ub, const VJob *j)
{
    const VPlan *p = &j->p;
    const VFamInfo *fi = &vfam_info[j->fam];
    const VOperand *dst = &p->op[OP_DST];
    VBuf a, b, c, d;
    VRepeat v = {.dt = p->dt, .dto = p->dto, .lanes = p->lanes, .size = j->size, .a = &a, .b = &b, .c = &c, .d = &d,
                 .sf = j->sf, .si = j->si, .cond = j->cond, .rnd = j->rnd, .exp_fma = j->exp_fma, .deq = j->deq,
                 .vdeq = j->vdeq ? j->tab : NULL};
    uint64_t all[2] = {p->lanes >= 64 ? ~0ull : ((1ull << p->lanes) - 1), p->lanes > 64 ? ~0ull : 0};
    /* sources that are LANES operands with every lane active need no zeroing
     * (every byte of their buffer is gathered) */
    bool lanes_only = true;
    for (int k = OP_SRC0; k < OP_COUNT; k++)
        if (p->op[k].used && p->op[k].kind != VK_LANES) lanes_only = false;
    bool full_full = lanes_only && mask_is(p->full, all), last_full = lanes_only && mask_is(p->last, all);
    VBuf *into[OP_COUNT] = {NULL, &a, &b, &c};
    if (j->cmpreg) { /* vsel by the CMPMASK register: the same 128 bits in every repeat */
        memset(&c, 0, sizeof c);
        memcpy(c.u8, j->reg, sizeof j->reg);
    }
    for (uint32_t r = 0; r < p->repeats; r++) {
        bool last = r + 1 == p->repeats;
        const uint64_t *m = last ? p->last : p->full;
        bool whole = last ? last_full : full_full;
        if (!whole) {
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
        }
        for (int k = OP_SRC0; k < OP_COUNT; k++) {
            const VOperand *o = &p->op[k];
            if (!o->used) continue;
            switch ((VKind)o->kind) {
            case VK_LANES:
                if (whole && contiguous(o) && p->lanes * o->size == 256)
                    memcpy(into[k]->u8, ub + o->base + r * o->rep_bytes, 256); /* a constant copy, inlined */
                else if (whole && contiguous(o))
                    memcpy(into[k]->u8, ub + o->base + r * o->rep_bytes, (size_t)p->lanes * o->size);
                else
                    gather_lanes(ub, o, r, m, p->lanes, into[k]);
                break;
            case VK_BITS: memcpy(into[k]->u8, ub + o->base + (uint64_t)r * (p->lanes / 8), p->lanes / 8); break;
            case VK_CONTIG8: memcpy(into[k]->u8, ub + o->base + (uint64_t)r * 8 * o->size, 8 * o->size); break;
            case VK_ELEM:
            case VK_GROUP: break; /* only destinations */
            }
        }
        if (j->sels) /* vsel tensor-scalar: every lane of src1 is the scalar */
            for (uint32_t i = 0; i < p->lanes; i++) memcpy(b.u8 + i * j->size, j->sel1, j->size);
        v.m = m;
        if (dst->kind == VK_GROUP) /* elements of groups with no active lane stay as they are */
            memcpy(d.u8, ub + dst->base + r * dst->rep_bytes, (size_t)dst->group * dst->size);
        if (j->f16w) sem_f16_wide(fi->sem, &v);
        else fi->sem(&v);
        switch ((VKind)dst->kind) {
        case VK_LANES:
            if (whole && contiguous(dst) && p->lanes * dst->size == 256)
                memcpy(ub + dst->base + r * dst->rep_bytes, d.u8, 256); /* constant: inlined */
            else if (whole && contiguous(dst))
                memcpy(ub + dst->base + r * dst->rep_bytes, d.u8, (size_t)p->lanes * dst->size);
            else
                scatter_lanes(ub, dst, r, m, p->lanes, &d);
            break;
        case VK_BITS: memcpy(ub + dst->base + (uint64_t)r * (p->lanes / 8), d.u8, p->lanes / 8); break;
        case VK_ELEM:
            if (dst->size == 4) memcpy(ub + dst->base + r * dst->rep_bytes, d.u8, 4); /* a reduction's f32 result */
            else memcpy(ub + dst->base + r * dst->rep_bytes, d.u8, dst->size);
            break;
        case VK_GROUP: memcpy(ub + dst->base + r * dst->rep_bytes, d.u8, (size_t)dst->group * dst->size); break;
        case VK_CONTIG8: break; /* only sources */
        }
    }
}

static void vec_job(const AscExecJob *job)
{
    VJob j;
    memcpy(&j, job->blob, sizeof j);
    vec_data(job->out, &j);
}

/* The 32 B blocks of repeat r, every operand (bank_operand). */
static void repeat_blocks(AscBankRepeat *br, const VPlan *p, uint32_t r, const uint64_t *m)
{
    br->nread = br->nwrite = 0;
    for (int k = 0; k < OP_COUNT; k++)
        if (p->op[k].used) bank_operand(br, p, &p->op[k], r, m);
}

/* Bytes read per repeat under mask m (what the gathers move). */
static uint64_t repeat_bytes(const VPlan *p, const uint64_t *m)
{
    uint64_t n = 0, active = popcount2(m);
    for (int k = OP_SRC0; k < OP_COUNT; k++) {
        const VOperand *o = &p->op[k];
        if (!o->used) continue;
        switch ((VKind)o->kind) {
        case VK_LANES: n += active * o->size; break;
        case VK_BITS: n += p->lanes / 8; break;
        case VK_CONTIG8: n += 8 * o->size; break;
        case VK_ELEM:
        case VK_GROUP: break; /* only destinations */
        }
    }
    return n;
}

/* A span operand's bytes in repeat r, [base + r*step, + len) (bank_operand's
 * non-lane shapes); len 0 for a lane-addressed operand. */
static void span_shape(const VPlan *p, const VOperand *o, uint64_t *step, uint64_t *len)
{
    switch ((VKind)o->kind) {
    case VK_BITS: *step = p->lanes / 8, *len = p->lanes / 8; break;
    case VK_ELEM: *step = o->rep_bytes, *len = o->size; break;
    case VK_CONTIG8: *step = 8 * (uint64_t)o->size, *len = 8 * (uint64_t)o->size; break;
    case VK_GROUP: *step = o->rep_bytes, *len = (uint64_t)o->group * o->size; break;
    case VK_LANES: *step = o->rep_bytes, *len = 0; break;
    }
}

/* Every repeat's bank cost (unless --functional), race reports, bytes and
 * element operations.
 *
 * The bank cost of a repeat is reused for another repeat when it cannot
 * differ.  Under mask `full`, operand k's blocks in repeat r are its blocks
 * of repeat 0 moved by t_k(r), a multiple of 2^group_lo: for a lane-addressed
 * operand t_k(r) = r * D_k (D_k its repeat stride, which must be a multiple
 * of 2^group_lo); for a span operand (a reduction's element, a vbrcb
 * source, vcmp bits, a group destination: bytes [base + r*step, + len))
 * t_k(r) is how far its first 32 B row moved, usable when the span covers as
 * many rows as in repeat 0 and the move is a multiple of 2^group_lo
 * (otherwise that repeat is computed block by block).  Two such repeats cost
 * the same when both have the same mask, every operand's blocks lie inside
 * one bank layer in both, the same operands share a layer in both, and for
 * every operand k the rotation of its group indices relative to operand 0,
 * ((t_k(r) - t_0(r)) >> group_lo) mod groups, is the same in both.  Then
 * the two repeats differ by one common rotation of the groups (a bijection)
 * and a renaming of layers that keeps which operands share one, so two
 * blocks share a group (a bank) in one repeat exactly when they do in the
 * other; the per-group counts (R, W) and per-bank read+write counts (RW) are
 * the same multisets, and so is the cost of ubbank.c.  The cache is keyed by
 * which operand pairs share a layer (6 bits for 4 operands) and the relative
 * rotations (log2(groups) bits each), in a small direct-mapped table (a miss
 * recomputes).  With one stride for all operands every relative rotation is
 * 0; a broadcast operand (stride 0 beside 256) alternates between two; a
 * reduction's destination (4 B steps) moves a row every 8 repeats.  Any
 * other repeat is computed block by block. */
static void vec_account(AscExecCtx *ctx, const VPlan *p, bool flops, AscExecStats *st)
{
    uint64_t R = p->repeats;
    uint64_t fb = repeat_bytes(p, p->full), lb = repeat_bytes(p, p->last);
    st->bytes += (R - 1) * fb + lb;
    if (flops) st->flops += (R - 1) * popcount2(p->full) + popcount2(p->last);
    st->repeats = p->repeats;
    if (ctx->no_bank_cost && !ctx->on_access) return;

    const AscConfig *cfg = ctx->cfg;
    uint32_t glo = (uint32_t)cfg->v[ASC_KEY_UB_BANK_GROUP_LO], llo = (uint32_t)cfg->v[ASC_KEY_UB_BANK_LAYER_LO];
    uint32_t groups = (uint32_t)cfg->v[ASC_KEY_UB_BANK_GROUPS], gbits = 0; /* a power of two <= 64 (config.c) */
    while ((1u << gbits) < groups) gbits++;
    bool uniform = !ctx->on_access && !ctx->no_bank_cost && glo + gbits < 64 && llo < 64 && gbits <= 6;
    uint64_t rmask = ((uint64_t)groups << glo) - 1; /* addresses mod groups << group_lo */
    uint64_t gmask = glo < 64 ? (1ull << glo) - 1 : ~0ull;
    /* per used operand: its repeat stride (lanes) or span step; for a span its
     * start and length; repeat 0's block range [lo0, hi0) under mask full */
    uint64_t stride[OP_COUNT], sbase[OP_COUNT], slen[OP_COUNT], lo0[OP_COUNT], hi0[OP_COUNT];
    uint32_t nop = 0;
    for (int k = 0; k < OP_COUNT && uniform; k++) {
        const VOperand *o = &p->op[k];
        if (!o->used) continue;
        uint64_t lo = UINT64_MAX, hi = 0;
        span_shape(p, o, &stride[nop], &slen[nop]);
        sbase[nop] = o->base;
        if (o->kind == VK_LANES) {
            if (o->rep_bytes & gmask) {
                uniform = false;
                break;
            }
            uint32_t epb = op_epb(o), nblk = p->lanes / epb;
            uint64_t bmask = epb == 64 ? ~0ull : ((1ull << epb) - 1);
            for (uint32_t b = 0; b < nblk; b++) {
                uint32_t f = b * epb;
                if (!((p->full[f >> 6] >> (f & 63)) & bmask)) continue;
                uint64_t at = o->base + b * o->blk_bytes;
                if (at < lo) lo = at;
                if (at + 32 > hi) hi = at + 32;
            }
        } else if (slen[nop]) { /* the rows bank_add_span adds */
            lo = o->base & ~31ull;
            hi = ((o->base + slen[nop] - 1) | 31ull) + 1;
        }
        if (lo >= hi) uniform = false; /* no active block: nothing worth caching */
        lo0[nop] = lo;
        hi0[nop] = hi;
        nop++;
    }
    enum { CACHE = 64 };
    uint32_t ckey[CACHE]; /* key + 1 of cost[slot]; 0 = empty */
    memset(ckey, 0, sizeof ckey);
    AscBankCost cost[CACHE];
    AscBankRepeat br;
    const uint64_t *last = mask_is(p->last, p->full) ? p->full : p->last; /* counter mode, whole last repeat */
    for (uint32_t r = 0; r < p->repeats; r++) {
        const uint64_t *m = r + 1 == p->repeats ? last : p->full;
        if (uniform && m == p->full) {
            uint64_t layer[OP_COUNT], t[OP_COUNT];
            bool one = true;
            for (uint32_t k = 0; k < nop; k++) {
                uint64_t lo, hi;
                if (slen[k]) { /* a span: where its rows are in this repeat */
                    uint64_t s = sbase[k] + r * stride[k];
                    lo = s & ~31ull;
                    hi = ((s + slen[k] - 1) | 31ull) + 1;
                    t[k] = lo - lo0[k];
                    if (hi - lo != hi0[k] - lo0[k] || (t[k] & gmask)) {
                        one = false;
                        break;
                    }
                } else {
                    t[k] = r * stride[k];
                    lo = lo0[k] + t[k];
                    hi = hi0[k] + t[k];
                }
                layer[k] = lo >> llo;
                if (layer[k] != (hi - 1) >> llo) {
                    one = false;
                    break;
                }
            }
            if (one) {
                uint32_t key = 0, bit = 0;
                for (uint32_t i = 0; i < nop; i++)
                    for (uint32_t k = i + 1; k < nop; k++, bit++)
                        if (layer[i] == layer[k]) key |= 1u << bit;
                for (uint32_t k = 1; k < nop; k++) /* relative rotations: wrapping differences, mod 2^(glo+gbits) */
                    key |= (uint32_t)(((t[k] - t[0]) & rmask) >> glo) << (6 + (k - 1) * gbits);
                uint32_t slot = (key ^ key >> 6 ^ key >> 12 ^ key >> 18) & (CACHE - 1);
                if (ckey[slot] != key + 1) {
                    repeat_blocks(&br, p, r, m);
                    cost[slot] = asc_ubbank_cost(cfg, &br);
                    ckey[slot] = key + 1;
                }
                asc_ubbank_add(cfg, cost[slot], st);
                continue;
            }
        }
        repeat_blocks(&br, p, r, m);
        if (!ctx->no_bank_cost) asc_ubbank_account(cfg, &br, st);
        if (ctx->on_access) report_blocks(ctx, &br);
    }
}

/* vec_account through the core's memo (ctx->vec_acct): an instruction whose operands,
 * masks, repeat count and bank config equal a recent one's adds the same figures (a
 * kernel's loop repeats the same instructions on the same buffers row after row).  Not
 * with race checks: those report every repeat's blocks. */
static void vec_account_memo(AscExecCtx *ctx, const VPlan *p, bool flops, AscExecStats *st)
{
    if (ctx->on_access || ctx->no_bank_cost) {
        vec_account(ctx, p, flops, st);
        return;
    }
    const AscConfig *cfg = ctx->cfg;
    uint64_t key[ASC_VEC_ACCT_KEY];
    key[0] = 1 | (uint64_t)flops << 1 | (uint64_t)p->lanes << 8 | (uint64_t)p->repeats << 32;
    key[1] = p->full[0];
    key[2] = p->full[1];
    key[3] = p->last[0];
    key[4] = p->last[1];
    key[5] = (uint64_t)cfg->v[ASC_KEY_UB_BANK_GROUP_LO] ^ (uint64_t)cfg->v[ASC_KEY_UB_BANK_LAYER_LO] << 16 ^
             (uint64_t)cfg->v[ASC_KEY_UB_BANK_GROUPS] << 32 ^ (uint64_t)cfg->v[ASC_KEY_VEC_BASE_BEATS] << 48;
    bool exact = cfg->v[ASC_KEY_UB_BANK_GROUP_LO] < 1u << 16 && cfg->v[ASC_KEY_UB_BANK_LAYER_LO] < 1u << 16 &&
                 cfg->v[ASC_KEY_UB_BANK_GROUPS] < 1u << 16 && cfg->v[ASC_KEY_VEC_BASE_BEATS] < 1u << 16;
    for (int k = 0; k < OP_COUNT; k++) {
        const VOperand *o = &p->op[k];
        key[6 + 4 * k] = o->base;
        key[7 + 4 * k] = o->blk_bytes;
        key[8 + 4 * k] = o->rep_bytes;
        key[9 + 4 * k] = (uint64_t)o->used | (uint64_t)o->write << 1 | (uint64_t)o->kind << 2 |
                         (uint64_t)o->size << 8 | (uint64_t)o->group << 32;
    }
    if (!exact) { /* config values too wide for the packed key word: no memo */
        vec_account(ctx, p, flops, st);
        return;
    }
    uint64_t h = 0;
    for (int i = 0; i < ASC_VEC_ACCT_KEY; i++) h = (h ^ key[i]) * 0x9e3779b97f4a7c15ull;
    /* a set of ways (a kernel's double-buffered loop alternates buffers, so one slot per
     * hash collided); a hit or a fill marks the slot used now, a miss replaces the least
     * recently used (or an empty) way.  Which slot holds what changes only the speed. */
    AscVecAcct *set = &ctx->vec_acct[(h >> 32) % (ASC_VEC_ACCT_SLOTS / ASC_VEC_ACCT_WAYS) * ASC_VEC_ACCT_WAYS];
    AscVecAcct *e = &set[0];
    uint64_t now = ++ctx->vec_acct_clock;
    for (int w = 0; w < ASC_VEC_ACCT_WAYS; w++) {
        if (set[w].key[0] == key[0] && !memcmp(set[w].key, key, sizeof key)) {
            e = &set[w];
            break;
        }
        if (set[w].used < e->used) e = &set[w]; /* empty ways have used 0 */
    }
    bool hit = !memcmp(e->key, key, sizeof key);
    e->used = now;
    if (hit) {
        st->bytes += e->bytes;
        st->flops += e->flops;
        st->repeats = e->repeats;
        st->beats += e->beats;
        st->conflict_beats += e->conflict_beats;
        st->rr_conflicts += e->rr;
        st->ww_conflicts += e->ww;
        st->rw_conflicts += e->rw;
        return;
    }
    AscExecStats before = *st;
    vec_account(ctx, p, flops, st);
    memcpy(e->key, key, sizeof key);
    e->bytes = st->bytes - before.bytes;
    e->flops = st->flops - before.flops;
    e->repeats = st->repeats;
    e->beats = st->beats - before.beats;
    e->conflict_beats = st->conflict_beats - before.conflict_beats;
    e->rr = st->rr_conflicts - before.rr_conflicts;
    e->ww = st->ww_conflicts - before.ww_conflicts;
    e->rw = st->rw_conflicts - before.rw_conflicts;
}

/* Every vector family but vtranspose: set up the operands by shape, derive
 * lanes/repeats/masks, check every footprint, then run the repeats in order
 * (gather the sources, the family's semantics, store the destination). */
static bool vec_plan(AscExecCtx *ctx, const AscIssued *q, VFam fam, AscDtype dt0, AscDtype dt1, AscExecStats *st,
                     VJob *jp, VSpans *sp, bool *empty)
{
    const VFamInfo *fi = &vfam_info[fam];
    VShape shape = (VShape)fi->shape;
    bool deq = false, vdeq = false;
    if (fam == VF_VCONV && asc_insn_has_field(q->in.op, ASC_FK_CVP)) { /* vconv.x: the types of its pair */
        dt0 = (AscDtype)asc_cvp_src(q->in.cvp);
        dt1 = (AscDtype)asc_cvp_dst(q->in.cvp);
        vdeq = q->in.cvp == ASC_CVP_S16_VB8L || q->in.cvp == ASC_CVP_S16_VB8H;
        deq = vdeq || q->in.cvp == ASC_CVP_S16_B8L || q->in.cvp == ASC_CVP_S16_B8H;
        if (deq && !vdeq && !((q->deqscale >> 46) & 1)) dt1 = ASC_DT_U8; /* sign mode 0: uint8 results */
    }
    if (!dtypes_ok((VDtypes)fi->dtypes, dt0))
        return asc_exec_fault(ctx, "vector family %s does not take element type %s (sim/asc_vfam.def)", fi->name,
                              asc_dtype_name(dt0) ? asc_dtype_name(dt0) : "?");
    /* the plan is built in place in the job state (VJob.p), which vec_data reads */
    memset(jp, 0, sizeof *jp);
    VPlan *p = &jp->p;
    *empty = true;
    p->dt = dt0;
    p->dto = shape == VS_CONV ? dt1 : dt0;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;

    /* lanes per repeat: 256 B of the widest element type */
    uint32_t size = asc_dtype_size(dt0), big = size;
    if (shape == VS_CONV && asc_dtype_size(dt1) > big) big = asc_dtype_size(dt1);
    p->lanes = 256 / big;

    /* operands and the config register, by shape */
    bool four = shape == VS_BIN || shape == VS_SEL || shape == VS_CMP || shape == VS_CMPS || shape == VS_SCALAR || shape == VS_AXPY ||
                shape == VS_TERN || fam == VF_VADDDEQ;
    uint64_t cfg = four ? q->rs3 : q->rs2;
    VOperand *dst = &p->op[OP_DST], *src0 = &p->op[OP_SRC0];
    switch (shape) {
    case VS_BIN:
    case VS_SEL:
        set_lanes(dst, "dst", true, q->rd, size, cfg, 0);
        set_lanes(src0, "src0", false, q->rs1, size, cfg, 1);
        if (shape != VS_SEL || !((cfg >> 50) & 1)) /* sels: rs2 is a scalar, not an address */
            set_lanes(&p->op[OP_SRC1], "src1", false, q->rs2, size, cfg, 2);
        if (shape == VS_SEL && !((cfg >> 49) & 1))
            set_other(&p->op[OP_MASK], "cmpmask", false, VK_BITS, q->cmpmask, 1, p->lanes / 8);
        break;
    case VS_CMP:
        set_other(dst, "dst", true, VK_BITS, q->rd, 1, p->lanes / 8);
        set_lanes(src0, "src0", false, q->rs1, size, cfg, 1);
        set_lanes(&p->op[OP_SRC1], "src1", false, q->rs2, size, cfg, 2);
        break;
    case VS_CMPS:
        set_other(dst, "dst", true, VK_BITS, q->rd, 1, p->lanes / 8);
        set_lanes(src0, "src0", false, q->rs1, size, cfg, 1);
        break;
    case VS_DUP: set_lanes(dst, "dst", true, q->rd, size, cfg, 0); break;
    case VS_REDUCE:
        set_other(dst, "dst", true, VK_ELEM, q->rd, size, ((cfg >> 24) & 0xff) * size);
        set_lanes(src0, "src", false, q->rs1, size, cfg, 1);
        break;
    case VS_BRCB:
        set_lanes(dst, "dst", true, q->rd, size, cfg, 0);
        set_other(src0, "src", false, VK_CONTIG8, q->rs1, size, 8 * size);
        break;
    case VS_GROUP: {
        uint32_t group = fam == VF_VCPADD ? p->lanes / 2 : 8;
        set_other(dst, "dst", true, VK_GROUP, q->rd, size, ((cfg >> 24) & 0xff) * group * size);
        dst->group = group;
        set_lanes(src0, "src", false, q->rs1, size, cfg, 1);
        break;
    }
    case VS_CONV:
        set_lanes(dst, "dst", true, q->rd, asc_dtype_size(dt1), cfg, 0);
        if (deq) dst->half = q->in.cvp == ASC_CVP_S16_B8H || q->in.cvp == ASC_CVP_S16_VB8H ? 2 : 1;
        set_lanes(src0, fam == VF_VADDDEQ ? "src0" : "src", false, q->rs1, size, cfg, 1);
        if (fam == VF_VADDDEQ) set_lanes(&p->op[OP_SRC1], "src1", false, q->rs2, size, cfg, 2);
        break;
    case VS_SCALAR:
    case VS_UNARY:
        set_lanes(dst, "dst", true, q->rd, size, cfg, 0);
        set_lanes(src0, "src", false, q->rs1, size, cfg, 1);
        break;
    case VS_TERN: /* BIN that also reads dst: its lanes, with dst's strides, are the third source (c) */
        set_lanes(dst, "dst", true, q->rd, size, cfg, 0);
        set_lanes(src0, "src0", false, q->rs1, size, cfg, 1);
        set_lanes(&p->op[OP_SRC1], "src1", false, q->rs2, size, cfg, 2);
        set_lanes(&p->op[OP_MASK], "dst", false, q->rd, size, cfg, 0);
        break;
    case VS_AXPY: /* dst is also read: its lanes, with dst's strides, are src1 */
        set_lanes(dst, "dst", true, q->rd, size, cfg, 0);
        set_lanes(src0, "src", false, q->rs1, size, cfg, 1);
        set_lanes(&p->op[OP_SRC1], "dst", false, q->rd, size, cfg, 0);
        break;
    }
    if (!asc_exec_check_cfg(ctx, ASC_CFG_VEC, cfg)) return false;
    bool whole = (cfg >> 48) & 1;
    if (((cfg >> 49) & 1) && shape != VS_SEL)
        return asc_exec_fault(ctx, "config bit 49 (cmpreg) is for vsel only, not vector family %s", fi->name);
    if (((cfg >> 50) & 1) && shape != VS_SEL)
        return asc_exec_fault(ctx, "config bit 50 (sels) is for vsel only, not vector family %s", fi->name);
    if (((cfg >> 50) & 1) && ((cfg >> 49) & 1))
        return asc_exec_fault(ctx, "vsel config bits 49 (cmpreg) and 50 (sels) exclude each other: "
                                   "the tensor-scalar mode selects by the mask in UB at SPR cmpmask");
    if (whole && shape != VS_CMP && shape != VS_CMPS)
        return asc_exec_fault(ctx, "config bit 48 (whole) is for vcmp/vcmps only, not vector family %s", fi->name);

    /* repeats and masks */
    uint64_t lane_mask[2] = {p->lanes >= 64 ? ~0ull : ((1ull << p->lanes) - 1), p->lanes > 64 ? ~0ull : 0};
    bool counter = (q->ctrl >> ASC_CTRL_COUNTER_BIT) & 1;
    if (whole) {
        /* Ascend C Compare / CompareScalar on dav_c220 (cannmirror/asc-devkit impl/basic_api/
         * dav_c220/kernel_operator_vec_cmp_impl.h): vcmpv / vcmpvs take no mask (VcmpvImpl
         * discards it) and the count form runs count * sizeof / 256 whole repeats (CompareCompute),
         * so a tail shorter than a repeat is not compared and its bits are left as they were. */
        memcpy(p->full, lane_mask, sizeof p->full);
        memcpy(p->last, lane_mask, sizeof p->last);
        if (counter) {
            uint64_t count = q->mask0;
            if (count > UINT32_MAX)
                return asc_exec_fault(ctx, "counter-mode element count %llu (mask0) exceeds 2^32 - 1",
                                      (unsigned long long)count);
            p->repeats = (uint32_t)(count / p->lanes);
            if (count % p->lanes) {
                st->note = ASC_NOTE_CMPCOUNT;
                st->note_a = count;
                st->note_b = (uint64_t)p->repeats * p->lanes;
            }
        } else {
            p->repeats = (uint32_t)(cfg >> 56);
            uint32_t asked = (uint32_t)__builtin_popcountll(q->mask0 & lane_mask[0]) +
                             (uint32_t)__builtin_popcountll(q->mask1 & lane_mask[1]);
            if (asked != p->lanes && p->repeats) {
                st->note = ASC_NOTE_CMPMASK;
                st->note_a = asked;
                st->note_b = p->lanes;
            }
        }
    } else if (shape == VS_BRCB) { /* vbrcb ignores the mask and counter mode */
        p->repeats = (uint32_t)(cfg >> 56);
        memcpy(p->full, lane_mask, sizeof p->full);
        memcpy(p->last, lane_mask, sizeof p->last);
    } else if (counter) {
        uint64_t count = q->mask0;
        if (count > UINT32_MAX)
            return asc_exec_fault(ctx, "counter-mode element count %llu (mask0) exceeds 2^32 - 1",
                                  (unsigned long long)count);
        p->repeats = (uint32_t)((count + p->lanes - 1) / p->lanes);
        memcpy(p->full, lane_mask, sizeof p->full);
        uint64_t tail = count - (count ? (uint64_t)(p->repeats - 1) * p->lanes : 0);
        p->last[0] = tail >= 64 ? ~0ull : ((1ull << tail) - 1);
        p->last[1] = tail >= 128 ? ~0ull : tail > 64 ? ((1ull << (tail - 64)) - 1) : 0;
    } else {
        p->repeats = (uint32_t)(cfg >> 56);
        p->full[0] = q->mask0 & lane_mask[0];
        p->full[1] = q->mask1 & lane_mask[1];
        memcpy(p->last, p->full, sizeof p->last);
    }
    if (shape == VS_SEL && !((cfg >> 49) & 1)) {
        /* Select modes 1 and 2 overwrite CMPMASK: Ascend C on dav_c220 (cannmirror/asc-devkit
         * impl/basic_api/dav_c220/kernel_operator_vec_cmpsel_impl.h VselIntrinsicsImplPre, VselImpl)
         * duplicates a value over a 32 B temporary and set_cmpmask's it before the vsel: mode 1
         * (config bit 50, sels) the scalar src1 of type T, mode 2 the sel mask's UB address as a
         * uint32 (here SPR cmpmask).  The register holds that pattern after the instruction (a
         * later vsel by the register, or get_cmpmask, sees it), repeats or not. */
        VBuf one;
        uint32_t w = 4;
        if ((cfg >> 50) & 1) {
            w = size;
            if (asc_dtype_is_float(p->dt))
                store_f(&one, p->dt, 0, scalar_f(q->rs2, p->dt));
            else
                store_i(&one, p->dt, 0, scalar_i(q->rs2, p->dt));
        } else {
            uint32_t a32 = (uint32_t)q->cmpmask;
            memcpy(one.u8, &a32, 4);
        }
        for (uint32_t k = 0; k < 16; k += w) memcpy(ctx->cmpmask_reg + k, one.u8, w);
    }
    if (p->repeats == 0) return true;
    *empty = false;

    /* jobs of this core whose UB footprint overlaps an operand: the data pass follows them on
     * the workers (sim/pool.c), or waits for them below when it runs here */
    if (ctx->deps_begin) ctx->deps_begin(ctx->pool_ud);
    for (int k = 0; k < OP_COUNT; k++)
        if (p->op[k].used && !check_operand(ctx, p, &p->op[k], sp)) return false;

    jp->fam = (uint8_t)fam;
    jp->size = size;
    jp->cond = q->in.cond;
    jp->rnd = (AscRnd)q->in.rnd;
    if (fam == VF_VEXP) jp->exp_fma = exp_fma_usable(ctx);
    jp->f16w = p->dt == ASC_DT_F16 && f16_as_f32(fam) && f16c_usable(ctx);
    if (deq) {
        jp->deq = true;
        jp->si = (int64_t)q->deqscale;
    }
    if (vdeq) {
        /* Ascend C SetDeqScaleImpl(vdeq, vdeqInfo) on dav_c220 (cannmirror/asc-devkit
         * impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h): set_deqscale(GetPhyAddr() >> 5),
         * DEQSCALE bits 13:0 (SetDeqScale.md: vdeqAddr) the table's UB address in 32 B units; the
         * vector unit reads the 128 B table when it starts the instruction, as it reads its sources */
        uint64_t ta = (q->deqscale & 0x3fff) << 5;
        if (!asc_exec_check_local(ctx, ASC_BUF_UB, "DEQSCALE table (SPR deqscale bits 13:0, 32 B units)", false, ta,
                                  ta + 128, false))
            return false;
        if (ctx->on_access) ctx->on_access(ctx->access_ud, ASC_BUF_UB, ta, ta + 128, false);
        memcpy(jp->tab, ctx->mem[ASC_BUF_UB].data + ta, sizeof jp->tab);
        jp->vdeq = true;
    }
    if (fam == VF_VDEQ || fam == VF_VADDDEQ) jp->sf = asc_f16_widen((uint16_t)q->deqscale);
    if (shape == VS_SEL && ((cfg >> 49) & 1)) {
        jp->cmpreg = true;
        memcpy(jp->reg, ctx->cmpmask_reg, sizeof jp->reg);
    }
    if (shape == VS_SEL && ((cfg >> 50) & 1)) { /* the scalar's element bits, as vadds reads rs2 */
        VBuf one;
        jp->sels = true;
        if (asc_dtype_is_float(p->dt))
            store_f(&one, p->dt, 0, scalar_f(q->rs2, p->dt));
        else
            store_i(&one, p->dt, 0, scalar_i(q->rs2, p->dt));
        memcpy(jp->sel1, one.u8, size);
    }
    if (shape == VS_SCALAR || shape == VS_AXPY || shape == VS_CMPS || shape == VS_DUP) {
        uint64_t s = shape == VS_DUP ? q->rs1 : q->rs2;
        if (asc_dtype_is_float(p->dt))
            jp->sf = scalar_f(s, p->dt);
        else
            jp->si = scalar_i(s, p->dt);
    }

    /* timing and race reports: per repeat, from addresses and masks only */
    vec_account_memo(ctx, &jp->p, fi->flops, st);
    return true;
}

/* The data pass of planned instruction j: on a worker (sim/pool.c) when the pool takes it,
 * else here.  It reads and writes this core's UB only; the next exec function of this core
 * that checks UB orders after it. */
static bool vec_data_pass(AscExecCtx *ctx, const VJob *j)
{
    if (ctx->defer) {
        AscExecJob job;
        memset(&job, 0, offsetof(AscExecJob, blob)); /* every field but the blob, which gets j */
        job.run = vec_job;
        job.bufs = 1u << ASC_BUF_UB;
        job.out = ctx->mem[ASC_BUF_UB].data;
        _Static_assert(sizeof(VJob) <= sizeof job.blob, "VJob fits AscExecJob.blob");
        memcpy(job.blob, j, sizeof *j);
        /* a short instruction costs less inline than a hand-over (a lock and a wake-up); also
         * when it waits for pending jobs: handing such ones over too (they would follow those
         * jobs on a worker) measured slower with 2 threads, softmax 4096x1024 on 8 cores 72 vs
         * 75 ms, layernorm 94 vs 101 ms */
        if ((uint64_t)j->p.repeats * j->p.lanes >= VEC_DEFER_LANES && ctx->defer(ctx->pool_ud, &job)) return true;
    }
    if (ctx->deps_join) ctx->deps_join(ctx->pool_ud);
    vec_data(ctx->mem[ASC_BUF_UB].data, j);
    return true;
}

/* Whether instruction q may use the instruction memo (ctx->vec_plan), and its key: not with race
 * checks (every repeat is reported), not vsel (it reads and writes the CMPMASK register), not a
 * vconv reading a DEQSCALE table from UB, not with CheckLocalMemoryIA ranges on, and only from
 * zeroed stats (the memo keeps what the plan produced). */
static bool vec_plan_key(const AscExecCtx *ctx, const AscIssued *q, VFam fam, AscDtype dt0, AscDtype dt1,
                         const AscExecStats *st, uint64_t key[ASC_VEC_PLAN_KEY])
{
    static const AscExecStats zero;
    const AscConfig *cfg = ctx->cfg;
    if (ctx->on_access || vfam_info[fam].shape == VS_SEL ||
        (fam == VF_VCONV && (q->in.cvp == ASC_CVP_S16_VB8L || q->in.cvp == ASC_CVP_S16_VB8H) &&
         asc_insn_has_field(q->in.op, ASC_FK_CVP)) ||
        ((ctx->data_exp[0] | ctx->data_exp[1] | ctx->data_exp[2] | ctx->data_exp[3]) & 1) ||
        memcmp(st, &zero, sizeof zero))
        return false;
    int64_t glo = cfg->v[ASC_KEY_UB_BANK_GROUP_LO], llo = cfg->v[ASC_KEY_UB_BANK_LAYER_LO];
    int64_t groups = cfg->v[ASC_KEY_UB_BANK_GROUPS], beats = cfg->v[ASC_KEY_VEC_BASE_BEATS];
    if ((uint64_t)glo >> 32 || (uint64_t)llo >> 32 || (uint64_t)groups >> 32 || (uint64_t)beats >> 32) return false;
    const AscMem *ub = &ctx->mem[ASC_BUF_UB];
    key[0] = 1 | (uint64_t)q->pc << 1 | (uint64_t)q->in.op << 40;
    key[1] = (uint64_t)q->in.cond | (uint64_t)q->in.rnd << 8 | (uint64_t)q->in.cvp << 16 | (uint64_t)dt0 << 24 |
             (uint64_t)dt1 << 32 | (uint64_t)fam << 40 | (uint64_t)ctx->no_bank_cost << 56;
    key[2] = q->rd, key[3] = q->rs1, key[4] = q->rs2, key[5] = q->rs3;
    key[6] = q->mask0, key[7] = q->mask1, key[8] = q->ctrl, key[9] = q->deqscale;
    key[10] = (uint64_t)glo | (uint64_t)llo << 32;
    key[11] = (uint64_t)groups | (uint64_t)beats << 32;
    key[12] = (uint64_t)ub->size | (uint64_t)ub->align << 32;
    key[13] = (uint64_t)(uintptr_t)ub->data;
    key[14] = (uint64_t)(uintptr_t)cfg;
    return true;
}

/* Every vector family but vtranspose: plan (or take the memo's plan), then the data pass. */
static bool vec_run(AscExecCtx *ctx, const AscIssued *q, VFam fam, AscDtype dt0, AscDtype dt1, AscExecStats *st)
{
    _Static_assert(sizeof(VJob) <= sizeof ctx->vec_plan[0].job, "VJob fits AscVecPlan.job");
    _Static_assert(sizeof(AscExecStats) <= sizeof ctx->vec_plan[0].st, "AscExecStats fits AscVecPlan.st");
    _Static_assert(OP_COUNT <= 4, "AscVecPlan holds a span per operand");
    uint64_t key[ASC_VEC_PLAN_KEY];
    bool memo = vec_plan_key(ctx, q, fam, dt0, dt1, st, key);
    AscVecPlan *e = NULL;
    VJob j;
    if (memo) {
        /* a set of ways per pc: a double-buffered loop's instruction alternates two buffers */
        AscVecPlan *set = &ctx->vec_plan[(q->pc >> 2) % ASC_VEC_PLAN_SETS * ASC_VEC_PLAN_WAYS];
        e = &set[0];
        for (int w = 0; w < ASC_VEC_PLAN_WAYS; w++) {
            if (set[w].key[0] == key[0] && !memcmp(set[w].key, key, sizeof key)) {
                e = &set[w];
                e->used = ++ctx->vec_acct_clock;
                memcpy(st, e->st, sizeof *st);
                if (e->empty) return true;
                /* the checks passed before; the ordering after this core's pending jobs is redone */
                if (ctx->deps_begin) ctx->deps_begin(ctx->pool_ud);
                for (uint32_t k = 0; ctx->on_buf && k < e->nspan; k++)
                    ctx->on_buf(ctx->pool_ud, ASC_BUF_UB, e->lo[k], e->hi[k], (e->wmask >> k) & 1);
                memcpy(&j, e->job, sizeof j);
                return vec_data_pass(ctx, &j);
            }
            if (set[w].used < e->used) e = &set[w]; /* empty ways have used 0 */
        }
    }
    VSpans sp = {.n = 0};
    bool empty;
    if (!vec_plan(ctx, q, fam, dt0, dt1, st, &j, &sp, &empty)) return false;
    if (memo) {
        memcpy(e->key, key, sizeof key);
        e->used = ++ctx->vec_acct_clock;
        memcpy(e->st, st, sizeof *st);
        e->empty = empty;
        e->nspan = sp.n;
        e->wmask = sp.wmask;
        memcpy(e->lo, sp.lo, sizeof sp.lo);
        memcpy(e->hi, sp.hi, sizeof sp.hi);
        memcpy(e->job, &j, sizeof j);
    }
    if (empty) return true;
    return vec_data_pass(ctx, &j);
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

/* asc_exec_<FAM> of every vector family */
#define ASC_VFAM(fam, shape, dtypes, flops) \
    ASC_EXEC_FN(fam) { return vec_run(ctx, q, VF_##fam, dt0, dt1, st); }
#include "asc_vfam.def"
#undef ASC_VFAM
