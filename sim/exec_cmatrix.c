/* exec_cmatrix.c -- create_cbuf_matrix / create_l0_matrix: Ascend C
 * InitConstValue (Fill) of an L1, L0A or L0B tensor with one value.
 *
 * Users: the engine's generated dispatch (asc_exec_CMATRIX).
 * Semantics from cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_mm_impl.h
 * (InitL1BufferCal / InitL0ANzMatrixCal / InitL0BNzMatrixCal: create_cbuf_matrix,
 * create_ca_matrix, create_cb_matrix(dst, repeatTimes | blockNum << 16 | dstGap << 32,
 * value)) and real pyasc's asc.language.basic.init_const_value page: repeat r
 * writes blockNum blocks (32 B in L1, 512 B in L0A/L0B) starting dstGap blocks
 * after the end of repeat r-1; every element is the 16- or 32-bit value.
 * Cost: a local transfer of the bytes written (F_DMA: setup, then bytes at the
 * local or L1 -> L0 rate), one burst per repeat.
 * Invariants: every check before any write; no allocation. */
#include <string.h>

#include "exec_internal.h"

ASC_EXEC_FN(CMATRIX)
{
    (void)dt0, (void)dt1;
    uint64_t cfg = q->rs2;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_CMAT, cfg)) return false;
    bool l1 = q->in.op == ASC_OP_CREATE_CBUF_MATRIX, b32 = (cfg >> 48) & 1, l0b = (cfg >> 49) & 1;
    if (l1 && l0b)
        return asc_exec_fault(ctx, "create_cbuf_matrix config 0x%llx sets l0b (create_l0_matrix only)",
                              (unsigned long long)cfg);
    AscBuf buf = l1 ? ASC_BUF_L1 : l0b ? ASC_BUF_L0B : ASC_BUF_L0A;
    uint64_t unit = l1 ? 32 : 512, repeats = cfg & 0x7fff, bn = (cfg >> 16) & 0x7fff, gap = (cfg >> 32) & 0x7fff;
    st->src_buf = (uint8_t)buf;
    st->dst_buf = (uint8_t)buf;
    if (repeats == 0 || bn == 0) return true;
    uint64_t hi = q->rd + unit * ((repeats - 1) * (bn + gap) + bn);
    if (!asc_exec_check_local(ctx, buf, "dst", true, q->rd, hi, true)) return false;
    uint8_t pat[4];
    uint32_t w = b32 ? 4 : 2;
    for (uint32_t i = 0; i < w; i++) pat[i] = (uint8_t)(q->rs1 >> (8 * i)); /* little-endian in the buffer */
    uint8_t *m = ctx->mem[buf].data;
    for (uint64_t r = 0; r < repeats; r++) {
        uint64_t lo = q->rd + unit * r * (bn + gap);
        for (uint64_t i = 0; i < unit * bn; i += w) memcpy(m + lo + i, pat, w);
        if (ctx->on_access) ctx->on_access(ctx->access_ud, buf, lo, lo + unit * bn, true);
    }
    st->bytes = repeats * bn * unit;
    st->bursts = (uint32_t)repeats;
    return true;
}
