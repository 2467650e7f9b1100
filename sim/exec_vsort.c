/* exec_vsort.c -- the sorts: vbitsort (Ascend C Sort32) and vmrgsort4
 * (Ascend C MrgSort) in the dav_c220 (score, index) layout.
 *
 * Users: the engine's generated dispatch (asc_exec_VBITSORT, asc_exec_VMRGSORT4).
 * Semantics from cannmirror/asc-devkit impl/basic_api/dav_c220/
 * kernel_operator_proposal_impl.h (VbitsortCal -> vbitsort(dst, src0, src1,
 * repeat); MrgSortCal -> vmrgsort4(dst, addr[4], lengths, config) with config
 * bits 7:0 repeat, 11:8 validBit, 12 ifExhaustedSuspension; GetMrgSortResult
 * reads VMS4_SR, 16 bits per list) and the Sort32 / MrgSort documentation
 * (docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/Sort32.md, MrgSort.md).
 *
 * Element: 8 B.  f32: score bits in bytes 0-3, u32 index in 4-7.  f16: score
 * in bytes 0-1, bytes 2-3 reserved (vbitsort writes 0), index in 4-7.
 *
 * vbitsort (dt0 f16/f32): repeat r sorts the 32 scores at rs1 + 32r*size with
 * the 32 indices at rs2 + 128r into dst rd + 256r, descending by score; equal
 * scores keep their input order ("score[i] == score[j], i > j: j first").
 * NaN is not ordered by the documentation; here a NaN sorts above +inf, NaNs
 * in input order (an assumption, docs/semantics.md).
 *
 * vmrgsort4: list k (bit k of valid) starts at UB byte 8*((rs1 >> 16k) & 0xffff)
 * with (rs2 >> 16k) & 0xffff elements.  Each step writes the head with the
 * largest score (ties: the lower list) to dst; with exhausted = 1 the merge
 * stops as soon as a valid list is empty.  valid must be 3, 7 or 15; repeat > 1
 * needs what the documentation lists (valid 15, exhausted 0, equal lengths,
 * lists contiguous): repeat r then adds r * 4 * len * 8 B to every address.
 * VMS4_SR (ctx->vms4_sr) receives, of the last repeat, the elements consumed
 * from each list (16 bits each).  dst must not overlap a list.
 *
 * Cost: one UB bank repeat per 256 B of dst written (reads: the source blocks
 * consumed for it), as the gathers (exec_vgather.c).
 * Invariants: every check before any write; no allocation. */
#include <math.h>
#include <string.h>

#include "exec_internal.h"

static float score_of(const uint8_t *e, AscDtype dt)
{
    if (dt == ASC_DT_F16) {
        uint16_t h;
        memcpy(&h, e, 2);
        return asc_f16_widen(h);
    }
    float f;
    memcpy(&f, e, 4);
    return f;
}

/* a sorts strictly before b: larger score; NaN above everything */
static bool before(float a, float b)
{
    if (isnan(a)) return !isnan(b);
    if (isnan(b)) return false;
    return a > b;
}

static bool check_sort_cfg(AscExecCtx *ctx, uint64_t cfg, bool merge)
{
    if (!asc_exec_check_cfg(ctx, ASC_CFG_SORT, cfg)) return false;
    if (!merge && (cfg >> 8))
        return asc_exec_fault(ctx, "vbitsort config 0x%llx sets valid/exhausted bits (vmrgsort4 only)",
                              (unsigned long long)cfg);
    return true;
}

ASC_EXEC_FN(VBITSORT)
{
    (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    if (!check_sort_cfg(ctx, q->rs3, false)) return false;
    uint32_t repeats = (uint32_t)(q->rs3 & 0xff), size = asc_dtype_size(dt0);
    if (repeats == 0) return true; /* a no-op on A2/A3 (Sort32.md) */
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst", true, q->rd, q->rd + 256ull * repeats, true) ||
        !asc_exec_check_local(ctx, ASC_BUF_UB, "src0 (scores)", false, q->rs1, q->rs1 + 32ull * size * repeats, true) ||
        !asc_exec_check_local(ctx, ASC_BUF_UB, "src1 (indices)", false, q->rs2, q->rs2 + 128ull * repeats, true))
        return false;
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    for (uint32_t r = 0; r < repeats; r++) {
        const uint8_t *sc = ub + q->rs1 + 32ull * size * r, *ix = ub + q->rs2 + 128ull * r;
        float key[32];
        uint8_t order[32], out[256];
        for (uint32_t i = 0; i < 32; i++) {
            key[i] = score_of(sc + i * size, dt0);
            order[i] = (uint8_t)i;
        }
        for (uint32_t i = 1; i < 32; i++) { /* stable insertion sort */
            uint8_t v = order[i];
            uint32_t j = i;
            while (j > 0 && before(key[v], key[order[j - 1]])) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = v;
        }
        memset(out, 0, sizeof out);
        for (uint32_t k = 0; k < 32; k++) {
            memcpy(out + 8 * k, sc + order[k] * size, size);
            memcpy(out + 8 * k + 4, ix + 4 * order[k], 4);
        }
        AscBankRepeat br;
        br.nread = br.nwrite = 0;
        for (uint32_t b = 0; b < size; b++) asc_ubbank_block(&br, false, q->rs1 + 32ull * size * r + 32ull * b);
        for (uint32_t b = 0; b < 4; b++) asc_ubbank_block(&br, false, q->rs2 + 128ull * r + 32ull * b);
        for (uint32_t b = 0; b < 8; b++) asc_ubbank_block(&br, true, q->rd + 256ull * r + 32ull * b);
        memcpy(ub + q->rd + 256ull * r, out, 256);
        asc_ubbank_flush(ctx, &br, st);
        st->bytes += 32ull * (size + 4);
    }
    st->flops += 32ull * 5 * repeats;
    return true;
}

ASC_EXEC_FN(VMRGSORT4)
{
    (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    uint64_t cfg = q->rs3;
    if (!check_sort_cfg(ctx, cfg, true)) return false;
    uint32_t repeats = (uint32_t)(cfg & 0xff), valid = (uint32_t)((cfg >> 8) & 0xf);
    bool exhausted = (cfg >> 12) & 1;
    if (valid != 3 && valid != 7 && valid != 15)
        return asc_exec_fault(ctx, "vmrgsort4 valid lists 0x%x: must be 3, 7 or 15 (MrgSort validBit)", valid);
    uint64_t base[4], len[4];
    uint32_t nl = valid == 3 ? 2 : valid == 7 ? 3 : 4;
    for (uint32_t k = 0; k < 4; k++) {
        base[k] = 8 * ((q->rs1 >> (16 * k)) & 0xffff);
        len[k] = k < nl ? (q->rs2 >> (16 * k)) & 0xffff : 0;
        if (len[k] > 4095)
            return asc_exec_fault(ctx, "vmrgsort4 list %u length %llu exceeds 4095 (MrgSort4Info.elementLengths)", k,
                                  (unsigned long long)len[k]);
    }
    if (repeats == 0) return true;
    if (repeats > 1) {
        bool ok = valid == 15 && !exhausted;
        for (uint32_t k = 1; k < 4 && ok; k++) ok = len[k] == len[0] && base[k] == base[k - 1] + 8 * len[0];
        if (!ok)
            return asc_exec_fault(ctx, "vmrgsort4 repeat %u > 1 needs 4 valid lists of equal length stored one after "
                                  "the other and no exhausted suspension (MrgSort repeatTimes rule)", repeats);
    }
    uint64_t total = len[0] + len[1] + len[2] + len[3];
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst", true, q->rd, q->rd + 8 * total * repeats, true)) return false;
    if (q->rd % 32)
        return asc_exec_fault(ctx, "vmrgsort4 dst 0x%llx is not 32 B aligned", (unsigned long long)q->rd);
    for (uint32_t k = 0; k < nl; k++) {
        uint64_t lo = base[k], hi = base[k] + 8 * len[k] + 8 * total * (repeats - 1);
        if (!asc_exec_check_local(ctx, ASC_BUF_UB, "source list", false, lo, hi, false)) return false;
        if (len[k] && lo < q->rd + 8 * total * repeats && q->rd < hi)
            return asc_exec_fault(ctx, "vmrgsort4 dst [0x%llx, 0x%llx) overlaps source list %u [0x%llx, 0x%llx) "
                                  "(MrgSort: no overlap of source and destination)", (unsigned long long)q->rd,
                                  (unsigned long long)(q->rd + 8 * total * repeats), k, (unsigned long long)lo,
                                  (unsigned long long)hi);
    }
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    uint64_t used[4] = {0, 0, 0, 0};
    AscBankRepeat br;
    br.nread = br.nwrite = 0;
    uint64_t w = q->rd;
    for (uint32_t r = 0; r < repeats; r++) {
        uint64_t off = 8 * total * r;
        memset(used, 0, sizeof used);
        for (;;) {
            int best = -1;
            float bs = 0;
            bool stop = false;
            for (uint32_t k = 0; k < nl; k++) {
                if (used[k] == len[k]) {
                    if (exhausted) stop = true;
                    continue;
                }
                float s = score_of(ub + base[k] + off + 8 * used[k], dt0);
                if (best < 0 || before(s, bs)) best = (int)k, bs = s;
            }
            if (stop || best < 0) break;
            uint64_t src = base[best] + off + 8 * used[best];
            memcpy(ub + w, ub + src, 8);
            asc_ubbank_block(&br, false, src);
            asc_ubbank_block(&br, true, w);
            used[best]++;
            w += 8;
            st->bytes += 8;
            if ((w - q->rd) % 256 == 0) asc_ubbank_flush(ctx, &br, st);
        }
    }
    asc_ubbank_flush(ctx, &br, st);
    ctx->vms4_sr = used[0] | used[1] << 16 | used[2] << 32 | used[3] << 48;
    st->flops += (w - q->rd) / 8 * nl;
    return true;
}
