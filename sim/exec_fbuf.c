/* exec_fbuf.c -- mov_l1_to_fb: L1 -> fixpipe buffer (FB, Ascend C TPosition
 * C2PIPE2GM), the copy that places the per-column quantisation vectors
 * fix_l0c_to_out.q reads (exec_cube.c).
 *
 * Users: the engine's generated dispatch (asc_exec_FBCOPY).
 * Semantics from cannmirror/asc-devkit impl/basic_api/dav_c220/
 * kernel_operator_data_copy_impl.h (DataCopyL12FBImpl: copy_cbuf_to_fbuf(dst,
 * src, blockCount, blockLen, srcGap, dstGap) on PIPE_FIX) and docs
 * .../矩阵数据搬入至L0-Buffer/L1ToFixpipe-Buffer数据搬运（DataCopy）.md:
 * burst i (i < blockCount) moves blockLen * 128 B from L1[src + 32 * srcGap * i]
 * to FB[dst + 128 * dstGap * i]; both gaps run from the start of one burst to
 * the start of the next (srcGap 0 re-reads the first burst, dstGap 0
 * overwrites it); dst 128 B aligned, src 32 B aligned; blockCount or
 * blockLen 0 is a no-op; an FB destination past its end faults (the doc:
 * "如果Fixpipe Buffer中的目标dst地址溢出，将引发异常").  The doc's other rule,
 * an L1 source past its end wrapping with a warning, is a fault here, as for
 * every other local access.  Bursts apply in order, so with overlapping
 * destinations the last one wins.
 * Cost: a local transfer (F_DMA, latency class LOCAL: dma.setup_cycles, one
 * burst each, then the bytes at dma.local_bytes_per_cycle; no published
 * L1 -> FB rate exists, docs/timing.md).
 * Invariants: every check before any write; no allocation. */
#include <string.h>

#include "exec_internal.h"

ASC_EXEC_FN(FBCOPY)
{
    (void)dt0, (void)dt1;
    uint64_t cfg = q->rs2;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_FBC, cfg)) return false;
    uint64_t nburst = cfg & 0xfff, len = (cfg >> 16) & 0xffff, sgap = (cfg >> 32) & 0xffff,
             dgap = (cfg >> 48) & 0xffff;
    st->src_buf = ASC_BUF_L1;
    st->dst_buf = ASC_BUF_FB;
    if (nburst == 0 || len == 0) return true;
    uint64_t src = q->rs1, dst = q->rd, blen = len * 128;
    if (src > UINT32_MAX || dst > UINT32_MAX)
        return asc_exec_fault(ctx, "mov_l1_to_fb address out of range (L1 0x%llx, FB 0x%llx)", (unsigned long long)src,
                              (unsigned long long)dst);
    /* the highest burst of each side bounds the whole copy (bursts are equally spaced) */
    uint64_t s_hi = src + 32 * sgap * (nburst - 1) + blen, d_hi = dst + 128 * dgap * (nburst - 1) + blen;
    if (!asc_exec_check_local(ctx, ASC_BUF_L1, "src", false, src, s_hi, true)) return false;
    if (!asc_exec_check_local(ctx, ASC_BUF_FB, "dst", true, dst, d_hi, true)) return false;
    uint8_t *fb = ctx->mem[ASC_BUF_FB].data;
    const uint8_t *l1 = ctx->mem[ASC_BUF_L1].data;
    for (uint64_t i = 0; i < nburst; i++) {
        uint64_t s = src + 32 * sgap * i, d = dst + 128 * dgap * i;
        memmove(fb + d, l1 + s, blen);
        if (ctx->on_access) {
            ctx->on_access(ctx->access_ud, ASC_BUF_L1, s, s + blen, false);
            ctx->on_access(ctx->access_ud, ASC_BUF_FB, d, d + blen, true);
        }
    }
    st->bytes = nburst * blen;
    st->bursts = (uint32_t)nburst;
    return true;
}
