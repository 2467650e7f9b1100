/* exec_nd2nz.c -- DataCopy GM -> L1 with Nd2NzParams: one MTE2 instruction
 * that turns row-major (ND) matrices into the fractal NZ layout the cube's
 * 2D loads read.  Ascend C issues it as copy_gm_to_cbuf_multi_nd2nz_b8/b16/
 * b32s (cannmirror/asc-devkit impl/basic_api/dav_c220/
 * kernel_operator_data_copy_impl.h, DataCopyGM2L1ND2NZImplBase); the field
 * meanings and ranges are those of its documentation (docs/zh/api/.../
 * GMToL1随路转换-ND2NZ搬运（DataCopy）.md, asc_copy_gm2l1_nd2nz_arch_2201.md).
 *
 * Users: asc_exec_DMA (exec_dma.c) when mov_out_to_l1's config register has
 * bit 15 set (layout ND2NZ); the rest of the parameters come from the
 * special register nd2nz_para captured at issue (layout ND2NZM).
 *
 * Semantics, e = element size, C0 = 32 / e elements:
 *   for ND matrix i < ndNum, row r < nValue, column c < ceil(dValue/C0)*C0:
 *     L1[dst + i*dstNzMatrixStride*e + r*dstNzNStride*32
 *            + (c / C0)*dstNzC0Stride*32 + (c % C0)*e]
 *       = c < dValue ? GM[src + (i*srcNdMatrixStride + r*srcDValue + c)*e] : 0
 * ndNum, nValue or dValue 0 is a no-op.  dst must be 32 B aligned, src
 * aligned to e.  Rows are applied in order (the card does not order
 * overlapping writes; the docs call that undefined).
 *
 * Timing (docs/timing.md §ND2NZ): the DMA reads each row of each matrix as
 * one GM burst (its dValue*e bytes are contiguous), so bursts = ndNum*nValue
 * and bytes = the GM bytes read; setup, per-burst cost, HBM sharing and the
 * 512 B alignment rate are those of every other GM copy.
 *
 * Invariant: every access is checked before any byte moves. */
#include <string.h>

#include "exec_internal.h"

bool asc_exec_nd2nz(AscExecCtx *ctx, const AscIssued *q, AscExecStats *st)
{
    uint64_t cfg = q->rs2, para = q->nd2nz_para;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_ND2NZ, cfg)) return false;
    if (!(para >> 63))
        return asc_exec_fault(ctx, "ND2NZ copy with special register nd2nz_para unset (bit 63 'valid' is 0): "
                                   "mtspr nd2nz_para with the ND2NZM layout before the copy");
    if (!asc_exec_check_cfg(ctx, ASC_CFG_ND2NZM, para)) return false;
    uint64_t nvalue = cfg & 0x7fff, dvalue = (cfg >> 16) & 0xffff;
    uint64_t srcd = (cfg >> 32) & 0xffff, c0s = (cfg >> 48) & 0x7fff;
    uint64_t ndnum = para & 0xfff, elog = (para >> 12) & 3;
    uint64_t sms = (para >> 16) & 0xffff, dms = (para >> 32) & 0x7fff, ns = (para >> 47) & 0x7fff;
    st->src_buf = ASC_BUF_GM;
    st->dst_buf = ASC_BUF_L1;
    if (elog > 2) return asc_exec_fault(ctx, "ND2NZ element size field esize is 3: it must be 0 (b8), 1 (b16) or 2 (b32)");
    if (nvalue > 16384) return asc_exec_fault(ctx, "ND2NZ nValue %llu is out of range [0, 16384]", (unsigned long long)nvalue);
    if (c0s < 1 || c0s > 16384)
        return asc_exec_fault(ctx, "ND2NZ dstNzC0Stride %llu is out of range [1, 16384]", (unsigned long long)c0s);
    if (ns < 1 || ns > 16384)
        return asc_exec_fault(ctx, "ND2NZ dstNzNStride %llu is out of range [1, 16384]", (unsigned long long)ns);
    if (dms > 16384)
        return asc_exec_fault(ctx, "ND2NZ dstNzMatrixStride %llu is out of range [0, 16384]", (unsigned long long)dms);
    if (srcd < 1) return asc_exec_fault(ctx, "ND2NZ srcDValue is 0: it must be in [1, 65535]");
    if (ndnum == 0 || nvalue == 0 || dvalue == 0) return true; /* documented no-op */

    uint64_t e = 1ull << elog, c0 = 32 / e, nblk = (dvalue + c0 - 1) / c0;
    uint64_t src = q->rs1, dst = q->rd;
    if (src % e)
        return asc_exec_fault(ctx, "ND2NZ src GM address 0x%llx is not a multiple of the element size %llu",
                              (unsigned long long)src, (unsigned long long)e);
    /* the highest element read and the highest 32 B block written (every stride is >= 0) */
    uint64_t src_hi = ((ndnum - 1) * sms + (nvalue - 1) * srcd + dvalue) * e;
    uint64_t dst_hi = (ndnum - 1) * dms * e + ((nvalue - 1) * ns + (nblk - 1) * c0s + 1) * 32;
    if (src > UINT64_MAX - src_hi || dst > UINT64_MAX - dst_hi)
        return asc_exec_fault(ctx, "ND2NZ address range overflows 64 bits");
    if (!asc_exec_check_gm(ctx, "src", false, src, src + src_hi, 1)) return false;
    if (!asc_exec_check_local(ctx, ASC_BUF_L1, "dst", true, dst, dst + dst_hi, true)) return false;
    if ((dms * e) % 32)
        return asc_exec_fault(ctx, "ND2NZ dstNzMatrixStride %llu elements is not a multiple of 32 B: every NZ matrix "
                                   "must start 32 B aligned in L1", (unsigned long long)dms);

    uint64_t fast = (uint64_t)ctx->cfg->v[ASC_KEY_GM_ALIGN_FAST];
    uint8_t *l1 = ctx->mem[ASC_BUF_L1].data;
    for (uint64_t i = 0; i < ndnum; i++) {
        for (uint64_t r = 0; r < nvalue; r++) {
            uint64_t s = src + (i * sms + r * srcd) * e;
            uint64_t d = dst + i * dms * e + r * ns * 32;
            if (s % fast) st->gm_unaligned = true;
            if (ctx->on_access) ctx->on_access(ctx->access_ud, ASC_BUF_GM, s, s + dvalue * e, false);
            for (uint64_t j = 0; j < nblk; j++) {
                uint64_t db = d + j * c0s * 32, n = (dvalue - j * c0 < c0 ? dvalue - j * c0 : c0) * e;
                if (ctx->on_access) ctx->on_access(ctx->access_ud, ASC_BUF_L1, db, db + 32, true);
                if (!asc_exec_gm_read(ctx, s + j * c0 * e, l1 + db, n)) return false;
                if (n < 32) memset(l1 + db + n, 0, 32 - n);
            }
        }
    }
    st->bursts = (uint32_t)(ndnum * nvalue);
    st->bytes = ndnum * nvalue * dvalue * e;
    return true;
}
