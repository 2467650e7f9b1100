/* exec_vreducev2.c -- vreducev2 (Ascend C GatherMask on dav_c220): keep the
 * src0 elements whose gather-mask bit is 1, packed at dst.
 *
 * Users: the engine's generated dispatch (asc_exec_VREDUCEV2).
 * Semantics from cannmirror/asc-devkit impl/basic_api/dav_c220/
 * kernel_operator_vec_gather_mask_impl.h (GatherMaskImpl: SetMaskCount or
 * SetMaskNorm, set_vector_mask(0, mask), vreducev2(dst, src0, src1, repeat,
 * src0BlockStride, patternMode, src0RepeatStride, src1RepeatStride), rsvdCnt
 * = get_rsvd_cnt()) and docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/
 * GatherMask.md:
 * - normal mode: every repeat covers 256 B (lanes elements); the mask is ignored;
 * - counter mode (CTRL bit 56): every repeat covers mask0 elements ("config
 *   method 1", the one the page lists for Atlas A2), mask0 >= 1;
 * - element j of repeat r is at src0 + 32*(r*src0rep + (j / epb)*src0blk) +
 *   (j % epb)*size (epb = 32 / size);
 * - its mask bit: pattern 0 = bit j % 8 of byte j / 8 at rs2 + 32*r*src1rep
 *   (the user pattern, consumed contiguously within a repeat); pattern 1..7 =
 *   the built-in patterns (1 even j, 2 odd j, 3..6 j % 4 == 0..3, 7 all);
 * - the kept elements of all repeats are written one after the other from dst;
 *   their number goes to SPR rsvd_cnt (ctx->rsvd_cnt).
 * dst may be src0 (GatherMask.md's own example): elements are read and written
 * in order and the k-th kept element never lies after the k-th read one.
 *
 * Cost: one UB bank repeat per 8 source blocks read (with the pattern and dst
 * blocks touched meanwhile), as the gathers (exec_vgather.c).
 * Invariants: every check before any write; no allocation. */
#include <string.h>

#include "exec_internal.h"

static bool kept(const uint8_t *ub, uint64_t pat, uint32_t mode, uint64_t j)
{
    switch (mode) {
    case 0: return (ub[pat + j / 8] >> (j % 8)) & 1;
    case 1: return j % 2 == 0;
    case 2: return j % 2 == 1;
    case 7: return true;
    default: return j % 4 == mode - 3;
    }
}

ASC_EXEC_FN(VREDUCEV2)
{
    (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    uint64_t cfg = q->rs3;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_GMASK, cfg)) return false;
    uint32_t repeats = (uint32_t)(cfg & 0xffff), blk = (uint32_t)((cfg >> 16) & 0xff);
    uint64_t rep = (cfg >> 24) & 0xffff, rep1 = (cfg >> 40) & 0xff;
    uint32_t mode = (uint32_t)((cfg >> 48) & 7), size = asc_dtype_size(dt0), epb = 32 / size;
    bool counter = (q->ctrl >> ASC_CTRL_COUNTER_BIT) & 1;
    uint64_t n = counter ? q->mask0 : 256 / size;
    ctx->rsvd_cnt = 0;
    if (counter && (n == 0 || n > 0xffffffffull))
        return asc_exec_fault(ctx, "vreducev2 in counter mode needs mask0 (elements per repeat) in [1, 2^32-1], got "
                                   "%llu (GatherMask mask)", (unsigned long long)n);
    if (repeats == 0) return true;
    uint64_t nblk = (n + epb - 1) / epb;
    /* the last element read: repeat repeats-1, element n-1 */
    uint64_t last = q->rs1 + 32 * ((repeats - 1) * rep + (nblk - 1) * blk) + ((n - 1) % epb + 1) * size;
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "src0", false, q->rs1, last, true)) return false;
    if (mode == 0) {
        uint64_t plast = q->rs2 + 32 * rep1 * (repeats - 1) + (n + 7) / 8;
        if (!asc_exec_check_local(ctx, ASC_BUF_UB, "src1 (pattern)", false, q->rs2, plast, true)) return false;
    }
    const uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    uint64_t total = 0;
    for (uint32_t r = 0; r < repeats; r++)
        for (uint64_t j = 0; j < n; j++) total += kept(ub, q->rs2 + 32 * rep1 * r, mode, j);
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst", true, q->rd, q->rd + (total ? total : 1) * size, true))
        return false;
    if (mode == 0 && total) {
        uint64_t plast = q->rs2 + 32 * rep1 * (repeats - 1) + (n + 7) / 8;
        if (q->rd < plast && q->rs2 < q->rd + total * size)
            return asc_exec_fault(ctx, "vreducev2 dst [0x%llx, 0x%llx) overlaps the pattern [0x%llx, 0x%llx) (GatherMask: "
                                       "src1Pattern and dst must not overlap)", (unsigned long long)q->rd,
                                  (unsigned long long)(q->rd + total * size), (unsigned long long)q->rs2,
                                  (unsigned long long)plast);
    }
    uint8_t *w = ctx->mem[ASC_BUF_UB].data;
    AscBankRepeat br;
    br.nread = br.nwrite = 0;
    uint64_t k = 0;
    for (uint32_t r = 0; r < repeats; r++) {
        uint64_t pat = q->rs2 + 32 * rep1 * r;
        for (uint64_t j = 0; j < n; j++) {
            uint64_t src = q->rs1 + 32 * (r * rep + (j / epb) * blk) + (j % epb) * size;
            if (j % epb == 0) {
                asc_ubbank_block(&br, false, src);
                if (mode == 0 && j % 256 == 0) asc_ubbank_block(&br, false, pat + j / 8);
            }
            if (kept(w, pat, mode, j)) {
                uint64_t d = q->rd + k * size;
                memmove(w + d, w + src, size);
                asc_ubbank_block(&br, true, d);
                k++;
            }
            if (j % (8ull * epb) == 8ull * epb - 1) asc_ubbank_flush(ctx, &br, st);
        }
        asc_ubbank_flush(ctx, &br, st);
        st->bytes += n * size;
    }
    ctx->rsvd_cnt = k;
    st->flops += n * repeats;
    return true;
}
