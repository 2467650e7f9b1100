/* exec_dmapad.c -- byte-granular DataCopyPad bursts between GM and UB
 * (asc_exec_DMAPAD: mov_out_to_ub.pad, mov_ub_to_out.pad).
 *
 * Users: the engine's generated dispatch (FAM column DMAPAD).
 *
 * Semantics follow Ascend C's DataCopyPad / DataCopy on dav_c220
 * (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_data_copy_impl.h,
 * DataCopyPadGm2UBImpl / DataCopyPadUB2GMImpl, and the DataCopyPad pages of
 * docs/zh/api): blockLen is in bytes, the GM-side gap in bytes, the UB-side
 * gap in 32-byte blocks, and every burst occupies a whole number of 32-byte
 * blocks in UB.
 *
 * Config (layout DMAP): nburst, len (bytes), gmgap (bytes), ubgap (32 B),
 * trunc.  UB burst k starts at ub + k*(B + ubgap*32), B = the burst's UB
 * footprint rounded up to 32 bytes; GM burst k starts at gm + k*(len + gmgap).
 *
 *   GM -> UB (rs2 = pad word: bits 0-31 pad value, 32-37 left pad bytes,
 *   40-45 right pad bytes, bit 48 use the pad value, bits 52-55 element
 *   size): the UB burst is [lpad][len data][rpad][dummy to 32 B].  With the
 *   pad value, pads and dummy hold it; without, the dummy repeats the
 *   burst's first element (the documented hardware rule for zero pads; with
 *   non-zero pads the hardware leaves them undefined, we write the same).
 *   Without the word's value bit, a copy made after the special register
 *   pad_val was written (bit 63; Ascend C SetPadValue, or the
 *   set_mov_pad_val DataCopyPad issues for isPad = true) pads with the
 *   register's value instead, as the hardware does (docs/zh/api DataCopyPad:
 *   "isPad false: the value set by SetPadValue, if it was called, else
 *   dummy data").  The register is captured when the copy issues.
 *   UB -> GM: exactly len bytes of each burst reach GM.
 *   trunc (DataCopy with a count, DataCopy's blockLen = count*size / 32):
 *   each burst moves len rounded down to 32 bytes, and nothing is padded.
 *
 * Whenever bytes are dropped (trunc with len % 32) or dummy bytes are
 * written (a padded burst), the instruction raises a note for the engine's
 * note list (asc_sim_note_get), so the silent hardware behaviour is visible.
 * Every access is checked before any byte moves. */
#include <string.h>

#include "exec_internal.h"

static bool side_ok(AscExecCtx *ctx, AscBuf buf, bool write, uint64_t lo, uint64_t hi)
{
    const char *what = write ? "dst" : "src";
    if (hi < lo) return asc_exec_fault(ctx, "%s address 0x%llx overflows 64 bits", what, (unsigned long long)lo);
    if (buf == ASC_BUF_GM) return asc_exec_check_gm(ctx, what, write, lo, hi, 1);
    return asc_exec_check_span(ctx, buf, what, write, lo, hi, true); /* touches only [lo, hi) of UB */
}

/* A copy of at least this many data bytes goes to a host worker (sim/pool.c; as exec_dma.c). */
#define PAD_DEFER_BYTES 4096u

/* One checked, accounted, plain DataCopyPad copy: what a host worker needs. */
typedef struct PadCopy {
    AscGm *gm;
    uint8_t *ub;                  /* UB of the core (its byte 0) */
    uint64_t ubaddr, gmaddr, nburst, ubstep, gmstep, data, lpad, foot, fs;
    uint8_t fill[8];              /* the pad value (use_val), else taken from each burst */
    bool to_ub, use_val;
} PadCopy;

/* Burst k of c: GM -> UB with its pads and dummy bytes, or UB -> GM (the _nosync copies: the
 * pages exist and no other job touches the ranges). */
static void pad_burst(const PadCopy *c, uint64_t k)
{
    uint8_t *p = c->ub + c->ubaddr + k * c->ubstep;
    uint64_t g = c->gmaddr + k * c->gmstep;
    if (!c->to_ub) {
        (void)asc_gm_write_nosync(c->gm, g, p, c->data);
        return;
    }
    (void)asc_gm_read_nosync(c->gm, g, p + c->lpad, c->data);
    uint8_t fill[8] = {0};
    if (c->use_val) memcpy(fill, c->fill, sizeof fill);
    else memcpy(fill, p + c->lpad, c->fs <= c->data ? c->fs : 1);
    for (uint64_t i = 0; i < c->lpad; i++) p[i] = fill[i % c->fs];
    for (uint64_t i = c->lpad + c->data; i < c->foot; i++) p[i] = fill[(i - c->lpad - c->data) % c->fs];
}

static void pad_job(const AscExecJob *job)
{
    PadCopy c;
    memcpy(&c, job->blob, sizeof c);
    for (uint64_t k = 0; k < c.nburst; k++) pad_burst(&c, k);
}

ASC_EXEC_FN(DMAPAD)
{
    (void)dt0;
    (void)dt1;
    bool to_ub = q->in.op == ASC_OP_MOV_OUT_TO_UB_PAD;
    if (!to_ub && q->in.op != ASC_OP_MOV_UB_TO_OUT_PAD)
        return asc_exec_fault(ctx, "instruction %u is not a DataCopyPad copy", (unsigned)q->in.op);
    uint64_t cfg = to_ub ? q->rs3 : q->rs2, pad = to_ub ? q->rs2 : 0;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_DMAP, cfg)) return false;
    uint64_t nburst = cfg & 0xfff, len = (cfg >> 12) & 0x1fffff;
    uint64_t gmgap = (cfg >> 33) & 0xffff, ubgap = (cfg >> 49) & 0xff;
    bool trunc = (cfg >> 57) & 1;
    uint64_t lpad = (pad >> 32) & 0x3f, rpad = (pad >> 40) & 0x3f, esize = (pad >> 52) & 0xf;
    bool use_val = (pad >> 48) & 1;
    uint32_t val = (uint32_t)pad;
    if (to_ub && !use_val && (q->pad_val >> 63)) { /* the pad value register (SetPadValue) */
        if ((q->pad_val >> 32) & 0x7fffffffu)
            return asc_exec_fault(ctx, "special register pad_val 0x%llx sets reserved bits 62:32",
                                  (unsigned long long)q->pad_val);
        use_val = true;
        val = (uint32_t)q->pad_val;
    }
    st->src_buf = (uint8_t)(to_ub ? ASC_BUF_GM : ASC_BUF_UB);
    st->dst_buf = (uint8_t)(to_ub ? ASC_BUF_UB : ASC_BUF_GM);
    if (trunc) lpad = rpad = 0;
    if (lpad > 32 || rpad > 32) return asc_exec_fault(ctx, "pad of %llu / %llu bytes: at most 32 each",
                                                      (unsigned long long)lpad, (unsigned long long)rpad);
    if (to_ub && (lpad || rpad || use_val) && esize != 1 && esize != 2 && esize != 4 && esize != 8)
        return asc_exec_fault(ctx, "pad word element size %llu is not 1, 2, 4 or 8", (unsigned long long)esize);
    if (nburst == 0 || len == 0) return true; /* DataCopyPad: zero count or length is a no-op */

    uint64_t data = trunc ? len & ~(uint64_t)31 : len;  /* bytes of each burst that move */
    if (trunc && data != len) {
        st->note = ASC_NOTE_TRUNC;
        st->note_a = len;
        st->note_b = data;
    }
    if (data == 0) return true;
    uint64_t foot = (lpad + data + rpad + 31) & ~(uint64_t)31; /* UB bytes of one burst */
    if (to_ub && foot != lpad + data + rpad && !st->note) {
        st->note = ASC_NOTE_PAD;
        st->note_a = lpad + data + rpad;
        st->note_b = foot;
    }
    uint64_t ubstep = foot + ubgap * 32, gmstep = len + gmgap;
    uint64_t ub = to_ub ? q->rd : q->rs1, gm = to_ub ? q->rs1 : q->rd;
    uint64_t ub_hi = ub + (nburst - 1) * ubstep + (to_ub ? foot : data);
    uint64_t gm_hi = gm + (nburst - 1) * gmstep + data;
    if (ctx->deps_begin) ctx->deps_begin(ctx->pool_ud); /* as exec_dma.c: follow or wait below */
    if (!side_ok(ctx, ASC_BUF_UB, to_ub, ub, ub_hi)) return false;
    if (!side_ok(ctx, ASC_BUF_GM, !to_ub, gm, gm_hi)) return false;

    uint64_t fast = (uint64_t)ctx->cfg->v[ASC_KEY_GM_ALIGN_FAST];
    /* a host worker's: a plain copy whose GM pages exist (read) or could be had (write) */
    bool job_ok = ctx->defer && nburst * data >= PAD_DEFER_BYTES && (to_ub || !q->st_atomic);
    if (job_ok && to_ub) job_ok = asc_gm_backed(ctx->gm, gm, gm_hi - gm);
    for (uint64_t k = 0; job_ok && !to_ub && k < nburst; k++)
        job_ok = asc_gm_reserve(ctx->gm, gm + k * gmstep, data);
    if (job_ok) {
        PadCopy c = {.gm = ctx->gm, .ub = ctx->mem[ASC_BUF_UB].data, .ubaddr = ub, .gmaddr = gm, .nburst = nburst,
                     .ubstep = ubstep, .gmstep = gmstep, .data = data, .lpad = lpad, .foot = foot,
                     .fs = esize ? esize : 1, .to_ub = to_ub, .use_val = use_val};
        uint64_t v64 = val;
        memcpy(c.fill, &v64, sizeof c.fill);
        for (uint64_t k = 0; k < nburst; k++) {
            uint64_t u = ub + k * ubstep, g = gm + k * gmstep;
            if (g % fast) st->gm_unaligned = true;
            if (ctx->on_access) {
                ctx->on_access(ctx->access_ud, ASC_BUF_GM, g, g + data, !to_ub);
                ctx->on_access(ctx->access_ud, ASC_BUF_UB, u, u + (to_ub ? foot : data), to_ub);
            }
        }
        asc_gm_sync(ctx->gm, gm, gm_hi, !to_ub); /* earlier overlapping jobs of any core land first */
        AscExecJob job = {.run = pad_job, .lbuf = ASC_BUF_UB, .lwrite = to_ub, .llo = ub, .lhi = ub_hi, .gm = true,
                          .gwrite = !to_ub, .glo = gm, .ghi = gm_hi};
        _Static_assert(sizeof(PadCopy) <= sizeof job.blob, "PadCopy fits AscExecJob.blob");
        memcpy(job.blob, &c, sizeof c);
        if (!ctx->defer(ctx->pool_ud, &job)) {
            ctx->deps_join(ctx->pool_ud); /* not taken: wait for its predecessors, copy here */
            pad_job(&job);
        }
        st->bursts = (uint32_t)nburst;
        st->bytes = nburst * data;
        return true;
    }
    if (ctx->deps_join) ctx->deps_join(ctx->pool_ud);
    for (uint64_t k = 0; k < nburst; k++) {
        uint64_t u = ub + k * ubstep, g = gm + k * gmstep;
        if (g % fast) st->gm_unaligned = true;
        if (ctx->on_access) {
            ctx->on_access(ctx->access_ud, ASC_BUF_GM, g, g + data, !to_ub);
            ctx->on_access(ctx->access_ud, ASC_BUF_UB, u, u + (to_ub ? foot : data), to_ub);
        }
        uint8_t *p = ctx->mem[ASC_BUF_UB].data + u;
        if (!to_ub) {
            if (!asc_exec_gm_store(ctx, q->st_atomic, g, p, data)) return false;
            continue;
        }
        if (!asc_exec_gm_read(ctx, g, p + lpad, data)) return false;
        /* the fill element: the pad value, or the burst's first element */
        uint8_t fill[8] = {0}; /* a burst shorter than an element fills from its one byte, then zeros */
        uint64_t fs = esize ? esize : 1;
        if (use_val) {
            uint64_t v64 = val;
            memcpy(fill, &v64, sizeof fill);
        } else {
            memcpy(fill, p + lpad, fs <= data ? fs : 1);
        }
        for (uint64_t i = 0; i < lpad; i++) p[i] = fill[i % fs];
        for (uint64_t i = lpad + data; i < foot; i++) p[i] = fill[(i - lpad - data) % fs];
    }
    st->bursts = (uint32_t)nburst;
    st->bytes = nburst * data;
    return true;
}
