/* exec_dma.c -- data movement: DataCopy-style burst copies between GM and
 * the local buffers (asc_exec_DMA) and the L1 -> L0A/L0B fractal loads
 * (asc_exec_LOAD2D).
 *
 * Users: the engine's generated dispatch (FAM column DMA, LOAD2D).
 *
 * DMA (config layout DMA): burst k < nburst copies len*32 bytes from
 *   src + k*(len+srcgap)*32 to dst + k*(len+dstgap)*32
 * (a gap runs from the END of one burst to the START of the next).  nburst
 * 0 or len 0 is a no-op.  Local start addresses must be aligned to their
 * buffer's alignment; GM addresses are byte-granular (the DMA has no
 * element type) and only the timing cares whether a burst start is a
 * multiple of dma.gm_align_fast.  Bursts are applied in order; a UB -> UB
 * copy moves each burst as if read completely before written (memmove).
 *
 * LOAD2D (layout L2D): fractal i < repeat (1..255) of 512 B moves from
 *   L1 rs1 + (start + i*srcstride)*512  to  L0A/L0B rd + i*(1+dstgap)*512,
 * optionally transposed as a 16x16 matrix of 2-byte elements.  Every source
 * fractal must lie completely inside L1 and every destination fractal
 * inside L0A/L0B.
 *
 * Invariant: every access is checked before any byte moves, so a faulting
 * instruction changes nothing. */
#include <string.h>

#include "exec_internal.h"

typedef struct DmaRoute {
    AscBuf src, dst;
} DmaRoute;

static bool dma_route(AscOp op, DmaRoute *r)
{
    switch (op) {
    case ASC_OP_MOV_OUT_TO_UB: *r = (DmaRoute){ASC_BUF_GM, ASC_BUF_UB}; return true;
    case ASC_OP_MOV_UB_TO_OUT: *r = (DmaRoute){ASC_BUF_UB, ASC_BUF_GM}; return true;
    case ASC_OP_MOV_OUT_TO_L1: *r = (DmaRoute){ASC_BUF_GM, ASC_BUF_L1}; return true;
    case ASC_OP_MOV_L1_TO_UB: *r = (DmaRoute){ASC_BUF_L1, ASC_BUF_UB}; return true;
    case ASC_OP_MOV_UB_TO_UB: *r = (DmaRoute){ASC_BUF_UB, ASC_BUF_UB}; return true;
    case ASC_OP_MOV_UB_TO_L1: *r = (DmaRoute){ASC_BUF_UB, ASC_BUF_L1}; return true;
    default: return false;
    }
}

/* Checks the whole footprint [base, base + span) of one side (the copy touches nothing of
 * the local buffer outside it, so only a host job overlapping it is joined). */
static bool dma_check_side(AscExecCtx *ctx, AscBuf buf, bool write, uint64_t base, uint64_t span_bytes)
{
    const char *what = write ? "dst" : "src";
    if (base > UINT64_MAX - span_bytes)
        return asc_exec_fault(ctx, "%s address 0x%llx + 0x%llx bytes overflows 64 bits", what,
                              (unsigned long long)base, (unsigned long long)span_bytes);
    if (buf == ASC_BUF_GM) return asc_exec_check_gm(ctx, what, write, base, base + span_bytes, 1);
    return asc_exec_check_span(ctx, buf, what, write, base, base + span_bytes, true);
}

/* A GM <-> local copy of at least this many bytes goes to a host worker (sim/pool.c): below
 * it, the hand-over (a lock, maybe a wake-up) costs about what the copy does. */
#define DMA_DEFER_BYTES 4096u

/* The data of one plain (not atomic) GM <-> local copy, checked and accounted already. */
typedef struct DmaCopy {
    AscGm *gm;
    uint8_t *local;       /* the local side's first burst */
    uint64_t gaddr;       /* the GM side's first burst */
    uint64_t nburst, burst_bytes, lstep, gstep; /* bytes from one burst start to the next */
    bool to_gm;
} DmaCopy;

/* On a host worker or inline: the pages exist (reserved or backed) and no other job touches
 * the ranges (sim/pool.c joined every conflicting one), so the _nosync copies cannot fail. */
static void dma_copy_job(const AscExecJob *job)
{
    DmaCopy c;
    memcpy(&c, job->blob, sizeof c);
    for (uint64_t k = 0; k < c.nburst; k++) {
        uint8_t *l = c.local + k * c.lstep;
        uint64_t g = c.gaddr + k * c.gstep;
        if (c.to_gm) (void)asc_gm_write_nosync(c.gm, g, l, c.burst_bytes);
        else (void)asc_gm_read_nosync(c.gm, g, l, c.burst_bytes);
    }
}

/* Whether a GM <-> UB copy goes to a host worker: there is a pool, it is long enough, it is
 * a plain copy (atomic stores read-modify-write GM, with their own checks), a read reads only
 * pages that exist and the pages a write writes could be allocated (as the copy would
 * allocate them).  Afterwards no earlier job of any core touches its GM range in a
 * conflicting way.  Fills *c. */
static bool dma_can_defer(AscExecCtx *ctx, const AscIssued *q, const DmaRoute *rt, uint64_t src, uint64_t dst,
                          uint64_t nburst, uint64_t len, uint64_t srcgap, uint64_t dstgap, uint64_t src_span,
                          uint64_t dst_span, DmaCopy *c, AscExecJob *job)
{
    bool to_gm = rt->dst == ASC_BUF_GM;
    if (!ctx->defer || (rt->src == ASC_BUF_GM) == to_gm || nburst * len * 32 < DMA_DEFER_BYTES) return false;
    if (to_gm && q->st_atomic) return false;
    /* UB only: L1's readers (LOAD2D, LOAD3D) run on this thread soon after the copy, while the
     * workers are busy with mmads; a copy to L1 handed over then costs a wait (measured on
     * matmul 2048^3 on 24 cores with 2 threads: 0.64 s with L1 copies inline, 0.69 s handed over) */
    if ((to_gm ? rt->src : rt->dst) != ASC_BUF_UB) return false;
    *c = (DmaCopy){.gm = ctx->gm, .nburst = nburst, .burst_bytes = len * 32, .to_gm = to_gm};
    AscBuf lb = to_gm ? rt->src : rt->dst;
    uint64_t laddr = to_gm ? src : dst, lspan = to_gm ? src_span : dst_span;
    uint64_t gaddr = to_gm ? dst : src, gspan = to_gm ? dst_span : src_span;
    c->local = ctx->mem[lb].data + laddr;
    c->gaddr = gaddr;
    c->lstep = (len + (to_gm ? srcgap : dstgap)) * 32;
    c->gstep = (len + (to_gm ? dstgap : srcgap)) * 32;
    if (!to_gm && !asc_gm_backed(ctx->gm, gaddr, gspan)) return false; /* reads zeros: inline */
    for (uint64_t k = 0; to_gm && k < nburst; k++)
        if (!asc_gm_reserve(ctx->gm, gaddr + k * c->gstep, c->burst_bytes)) return false;
    asc_gm_sync(ctx->gm, gaddr, gaddr + gspan, to_gm); /* earlier overlapping jobs land first */
    *job = (AscExecJob){.run = dma_copy_job, .lbuf = (uint8_t)lb, .lwrite = !to_gm, .llo = laddr,
                        .lhi = laddr + lspan, .gm = true, .gwrite = to_gm, .glo = gaddr, .ghi = gaddr + gspan};
    return true;
}

ASC_EXEC_FN(DMA)
{
    (void)dt0;
    (void)dt1;
    DmaRoute rt;
    if (!dma_route((AscOp)q->in.op, &rt))
        return asc_exec_fault(ctx, "instruction %u is not a DMA copy", (unsigned)q->in.op);
    uint64_t cfg = q->rs2;
    if ((cfg >> 15) & 1) { /* the ND2NZ layout (asc_cfg.def): GM -> L1 only, as on the card */
        if (q->in.op == ASC_OP_MOV_OUT_TO_L1) return asc_exec_nd2nz(ctx, q, st);
        return asc_exec_fault(ctx, "config bit 15 (nd2nz) is set on %s: the ND2NZ conversion exists only on "
                                   "mov_out_to_l1 (GM -> L1)", asc_insn_info[q->in.op].mnemonic);
    }
    if (!asc_exec_check_cfg(ctx, ASC_CFG_DMA, cfg)) return false;
    uint64_t nburst = cfg & 0xfff, len = (cfg >> 16) & 0xffff;
    uint64_t srcgap = (cfg >> 32) & 0xffff, dstgap = (cfg >> 48) & 0xffff;
    uint64_t src = q->rs1, dst = q->rd;
    st->src_buf = (uint8_t)rt.src;
    st->dst_buf = (uint8_t)rt.dst;
    if ((cfg >> 12) & 1) { /* rdown: the count's last 1..31 bytes are not moved, as on the card */
        st->note = ASC_NOTE_RDOWN;
        st->note_a = st->note_b = nburst * len * 32;
    }
    if (nburst == 0 || len == 0) return true; /* DataCopy: zero count or length is a no-op */

    uint64_t burst_bytes = len * 32;
    /* jobs on an overlapping range: a copy handed to a worker follows them there (sim/pool.c),
     * an inline one waits for them (deps_join below) */
    if (ctx->deps_begin) ctx->deps_begin(ctx->pool_ud);
    uint64_t src_span = ((nburst - 1) * (len + srcgap) + len) * 32;
    uint64_t dst_span = ((nburst - 1) * (len + dstgap) + len) * 32;
    if (!dma_check_side(ctx, rt.src, false, src, src_span)) return false;
    if (!dma_check_side(ctx, rt.dst, true, dst, dst_span)) return false;

    uint64_t fast = (uint64_t)ctx->cfg->v[ASC_KEY_GM_ALIGN_FAST];
    DmaCopy copy;
    AscExecJob job;
    if (dma_can_defer(ctx, q, &rt, src, dst, nburst, len, srcgap, dstgap, src_span, dst_span, &copy, &job)) {
        /* the accounting here, the bytes on a host worker */
        for (uint64_t k = 0; k < nburst; k++) {
            uint64_t s = src + k * (len + srcgap) * 32, d = dst + k * (len + dstgap) * 32;
            if (ctx->on_access) {
                ctx->on_access(ctx->access_ud, rt.src, s, s + burst_bytes, false);
                ctx->on_access(ctx->access_ud, rt.dst, d, d + burst_bytes, true);
            }
            if ((rt.src == ASC_BUF_GM ? s : d) % fast) st->gm_unaligned = true;
        }
        _Static_assert(sizeof(DmaCopy) <= sizeof job.blob, "DmaCopy fits AscExecJob.blob");
        memcpy(job.blob, &copy, sizeof copy);
        if (!ctx->defer(ctx->pool_ud, &job)) {
            ctx->deps_join(ctx->pool_ud); /* not taken: wait for its predecessors, copy here */
            dma_copy_job(&job);
        }
        st->bursts = (uint32_t)nburst;
        st->bytes = nburst * burst_bytes;
        return true;
    }
    if (ctx->deps_join) ctx->deps_join(ctx->pool_ud);
    for (uint64_t k = 0; k < nburst; k++) {
        uint64_t s = src + k * (len + srcgap) * 32, d = dst + k * (len + dstgap) * 32;
        if (ctx->on_access) {
            ctx->on_access(ctx->access_ud, rt.src, s, s + burst_bytes, false);
            ctx->on_access(ctx->access_ud, rt.dst, d, d + burst_bytes, true);
        }
        if (rt.src == ASC_BUF_GM) {
            if (s % fast) st->gm_unaligned = true;
            if (!asc_exec_gm_read(ctx, s, ctx->mem[rt.dst].data + d, burst_bytes)) return false;
        } else if (rt.dst == ASC_BUF_GM) {
            if (d % fast) st->gm_unaligned = true;
            if (!asc_exec_gm_store(ctx, q->st_atomic, d, ctx->mem[rt.src].data + s, burst_bytes)) return false;
        } else {
            memmove(ctx->mem[rt.dst].data + d, ctx->mem[rt.src].data + s, burst_bytes);
        }
    }
    st->bursts = (uint32_t)nburst;
    st->bytes = nburst * burst_bytes;
    return true;
}

#define FRACTAL_BYTES 512u

/* One fractal transposed as a 16x16 matrix of 2-byte elements: d(c, r) = s(r, c) (LOAD2D here,
 * mmad's f16 B unpack in exec_cube.c); d and s do not overlap.  With SSE2
 * (every x86-64) as four 8x8 blocks, each through three rounds of unpacks (16-, 32-, then
 * 64-bit interleaves): block (R, C) of s becomes block (C, R) of d.  Elsewhere element by
 * element.  Both move the same bytes. */
#if defined(__SSE2__)
#include <emmintrin.h>
void asc_frac_transpose16(uint8_t *d, const uint8_t *s)
{
    for (unsigned br = 0; br < 16; br += 8)
        for (unsigned bc = 0; bc < 16; bc += 8) {
            __m128i a[8], t[8], u[8];
            for (unsigned i = 0; i < 8; i++) a[i] = _mm_loadu_si128((const __m128i *)(s + ((br + i) * 16 + bc) * 2));
            for (unsigned i = 0; i < 8; i += 2) {
                t[i] = _mm_unpacklo_epi16(a[i], a[i + 1]);
                t[i + 1] = _mm_unpackhi_epi16(a[i], a[i + 1]);
            }
            for (unsigned i = 0; i < 8; i += 4) {
                u[i] = _mm_unpacklo_epi32(t[i], t[i + 2]);
                u[i + 1] = _mm_unpackhi_epi32(t[i], t[i + 2]);
                u[i + 2] = _mm_unpacklo_epi32(t[i + 1], t[i + 3]);
                u[i + 3] = _mm_unpackhi_epi32(t[i + 1], t[i + 3]);
            }
            /* u[0..3] hold columns (0,1), (2,3), (4,5), (6,7) of rows 0..3; u[4..7] of rows 4..7 */
            for (unsigned i = 0; i < 4; i++) {
                _mm_storeu_si128((__m128i *)(d + ((bc + 2 * i) * 16 + br) * 2), _mm_unpacklo_epi64(u[i], u[i + 4]));
                _mm_storeu_si128((__m128i *)(d + ((bc + 2 * i + 1) * 16 + br) * 2), _mm_unpackhi_epi64(u[i], u[i + 4]));
            }
        }
}
#else
void asc_frac_transpose16(uint8_t *d, const uint8_t *s)
{
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++) memcpy(d + (c * 16 + r) * 2, s + (r * 16 + c) * 2, 2);
}
#endif

ASC_EXEC_FN(LOAD2D)
{
    (void)dt0;
    (void)dt1;
    AscBuf dbuf;
    if (q->in.op == ASC_OP_LOAD_L1_TO_L0A_2D)
        dbuf = ASC_BUF_L0A;
    else if (q->in.op == ASC_OP_LOAD_L1_TO_L0B_2D)
        dbuf = ASC_BUF_L0B;
    else
        return asc_exec_fault(ctx, "instruction %u is not a 2D load", (unsigned)q->in.op);
    uint64_t cfg = q->rs2;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_L2D, cfg)) return false;
    uint64_t start = cfg & 0xffff, repeat = (cfg >> 16) & 0xff;
    uint64_t srcstride = (cfg >> 24) & 0xffff, dstgap = (cfg >> 40) & 0xffff;
    bool transpose = (cfg >> 56) & 1;
    st->src_buf = ASC_BUF_L1;
    st->dst_buf = (uint8_t)dbuf;
    if (repeat == 0) return asc_exec_fault(ctx, "load2d repeat is 0: it must be in [1, 255]");

    uint64_t src = q->rs1, dst = q->rd;
    if (src > UINT64_MAX / 2 || dst > UINT64_MAX / 2)
        return asc_exec_fault(ctx, "load2d address 0x%llx / 0x%llx is out of range", (unsigned long long)src,
                              (unsigned long long)dst);
    /* start alignment of both operands, then every fractal (srcstride may be
     * 0, so the last fractal is not always the highest). */
    if (!asc_exec_check_local(ctx, ASC_BUF_L1, "src", false, src, src + FRACTAL_BYTES, true)) return false;
    if (!asc_exec_check_local(ctx, dbuf, "dst", true, dst, dst + FRACTAL_BYTES, true)) return false;
    for (uint64_t i = 0; i < repeat; i++) {
        uint64_t s = src + (start + i * srcstride) * FRACTAL_BYTES;
        uint64_t d = dst + i * (1 + dstgap) * FRACTAL_BYTES;
        if (!asc_exec_check_local(ctx, ASC_BUF_L1, "src fractal", false, s, s + FRACTAL_BYTES, false)) return false;
        if (!asc_exec_check_local(ctx, dbuf, "dst fractal", true, d, d + FRACTAL_BYTES, false)) return false;
    }
    for (uint64_t i = 0; i < repeat; i++) {
        const uint8_t *s = ctx->mem[ASC_BUF_L1].data + src + (start + i * srcstride) * FRACTAL_BYTES;
        uint8_t *d = ctx->mem[dbuf].data + dst + i * (1 + dstgap) * FRACTAL_BYTES;
        if (ctx->on_access) {
            uint64_t so = src + (start + i * srcstride) * FRACTAL_BYTES, dof = dst + i * (1 + dstgap) * FRACTAL_BYTES;
            ctx->on_access(ctx->access_ud, ASC_BUF_L1, so, so + FRACTAL_BYTES, false);
            ctx->on_access(ctx->access_ud, dbuf, dof, dof + FRACTAL_BYTES, true);
            if (ctx->def) { /* initcheck: the definedness of the bytes, moved as the data is */
                uint8_t su[FRACTAL_BYTES], du[FRACTAL_BYTES];
                ctx->def->l1(ctx->access_ud, so, so + FRACTAL_BYTES, su);
                if (transpose) asc_frac_transpose16(du, su);
                else memcpy(du, su, sizeof du);
                ctx->def->put(ctx->access_ud, dbuf, dof, dof + FRACTAL_BYTES, du);
            }
        }
        if (!transpose) {
            /* 64-byte pieces: a fixed-size copy the compiler keeps in vector registers (one
             * 512-byte memcpy became `rep movsq`, slow on lines another host core holds) */
            for (unsigned o = 0; o < FRACTAL_BYTES; o += 64) memcpy(d + o, s + o, 64);
            continue;
        }
        asc_frac_transpose16(d, s); /* 16x16 two-byte elements: d(c, r) = s(r, c) */
    }
    st->bytes = repeat * FRACTAL_BYTES;
    return true;
}
