/* exec_vnchwconv.c -- the address registers VA0..VA3 (setva, vldva) and
 * vnchwconv.b8/.b16/.b32 (Ascend C TransDataTo5HD on dav_c220).
 *
 * Users: the engine's generated dispatch (asc_exec_SETVA, asc_exec_VNCHWCONV).
 * Semantics from cannmirror/asc-devkit impl/basic_api/dav_c220/
 * kernel_operator_vec_transpose_impl.h (SetVaReg: set_va_reg_sb(VA0..VA3, 8
 * addresses each), VldVaReg: vld_va_reg(VA0/VA1, dst, L128/H128) and
 * (VA2/VA3, src, ...) from UB, then scatter_vnchwconv_b8/b16/b32(VA0, VA2,
 * repeat, dstRepStride, srcRepStride[, dstHighHalf, srcHighHalf])) and
 * docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据排布变换/TransDataTo5HD.md:
 * - the dst list is VA0, VA1 (addresses d0..d15), the src list VA2, VA3 (s0..s15),
 *   32 B aligned UB byte addresses; here ctx->va[0..15] and ctx->va[16..31];
 * - repeat r reads the 32 B blocks at s_i + 32*k*srcrep and writes those at
 *   d_j + 32*k*dstrep, k = r, except that with repeat 1 k = 1 (the page: "when
 *   repeatTimes is 1 the effective start is the list start plus the stride");
 * - b16: dst block j = element j of src blocks 0..15 (a 16 x 16 transpose);
 * - b32: dst block 2j (2j+1) = element j of src blocks 0..7 (8..15), j < 8;
 * - b8: the 16 bytes of dst block j's low (dsthigh 0) or high half = byte
 *   j + 16*srchigh of src blocks 0..15; the other half is left as it was.
 * All src blocks of a repeat are read before any of its dst blocks is written
 * (dst may be src).  The VA registers live in the V pipe's state: setva and
 * vldva execute on the V pipe, in order with the vnchwconv that reads them.
 *
 * Cost: one UB bank repeat per vnchwconv repeat (16 blocks read, 16 written);
 * setva / vldva occupy V for one repeat's latency.
 * Invariants: every check before any write; no allocation. */
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"

ASC_EXEC_FN(SETVA)
{
    (void)dt0, (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    if (q->in.op == ASC_OP_SETVA) {
        uint32_t k = (uint32_t)(q->rd & 3);
        for (uint32_t i = 0; i < 8; i++) ctx->va[8 * k + i] = 32 * (((i < 4 ? q->rs1 : q->rs2) >> (16 * (i % 4))) & 0xffff);
        return true;
    }
    /* vldva: the two lists of 16 u64 UB byte addresses */
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst address list", false, q->rd, q->rd + 128, true) ||
        !asc_exec_check_local(ctx, ASC_BUF_UB, "src address list", false, q->rs1, q->rs1 + 128, true))
        return false;
    const uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    AscBankRepeat br;
    br.nread = br.nwrite = 0;
    for (uint32_t i = 0; i < 16; i++) {
        memcpy(&ctx->va[i], ub + q->rd + 8 * i, 8);
        memcpy(&ctx->va[16 + i], ub + q->rs1 + 8 * i, 8);
        if (i % 4 == 0) asc_ubbank_block(&br, false, q->rd + 8 * i), asc_ubbank_block(&br, false, q->rs1 + 8 * i);
    }
    asc_ubbank_flush(ctx, &br, st);
    st->bytes += 256;
    return true;
}

ASC_EXEC_FN(VNCHWCONV)
{
    (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    uint64_t cfg = q->rs1;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_NCHW, cfg)) return false;
    uint32_t repeats = (uint32_t)(cfg & 0xff), size = asc_dtype_size(dt0);
    uint64_t drep = (cfg >> 8) & 0xffff, srep = (cfg >> 24) & 0xffff;
    uint32_t dhigh = (uint32_t)((cfg >> 40) & 1), shigh = (uint32_t)((cfg >> 41) & 1);
    if (size != 1 && (dhigh || shigh))
        return asc_exec_fault(ctx, "vnchwconv.b%u config 0x%llx sets dsthigh/srchigh (b8 only: dstHighHalf/srcHighHalf)",
                              8 * size, (unsigned long long)cfg);
    if (repeats == 0) return true;
    uint64_t kmax = repeats == 1 ? 1 : repeats - 1;
    for (uint32_t i = 0; i < 32; i++) {
        uint64_t a = ctx->va[i], step = i < 16 ? drep : srep;
        char what[48];
        snprintf(what, sizeof what, "vnchwconv %s list entry %u", i < 16 ? "dst" : "src", i % 16);
        if (!asc_exec_check_local(ctx, ASC_BUF_UB, what, i < 16, a, a + 32 * step * kmax + 32, true)) return false;
    }
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    for (uint32_t r = 0; r < repeats; r++) {
        uint64_t k = repeats == 1 ? 1 : r;
        uint8_t in[16][32];
        AscBankRepeat br;
        br.nread = br.nwrite = 0;
        for (uint32_t i = 0; i < 16; i++) {
            uint64_t s = ctx->va[16 + i] + 32 * k * srep;
            memcpy(in[i], ub + s, 32);
            asc_ubbank_block(&br, false, s);
        }
        for (uint32_t j = 0; j < 16; j++) {
            uint8_t *d = ub + ctx->va[j] + 32 * k * drep;
            asc_ubbank_block(&br, true, ctx->va[j] + 32 * k * drep);
            if (size == 2) {
                for (uint32_t i = 0; i < 16; i++) memcpy(d + 2 * i, in[i] + 2 * j, 2);
            } else if (size == 4) {
                for (uint32_t i = 0; i < 8; i++) memcpy(d + 4 * i, in[8 * (j % 2) + i] + 4 * (j / 2), 4);
            } else {
                for (uint32_t i = 0; i < 16; i++) d[16 * dhigh + i] = in[i][16 * shigh + j];
            }
        }
        asc_ubbank_flush(ctx, &br, st);
        st->bytes += 512;
    }
    return true;
}
