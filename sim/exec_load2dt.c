/* exec_load2dt.c -- load_l1_to_l0_2dt: LoadDataWithTranspose, the 2D load
 * of L1 fractals into L0A or L0B that transposes squares of fractals.
 *
 * Users: the engine's generated dispatch (FAM column LOAD2DT).
 *
 * Sources (read, not copied): cannmirror/asc-devkit
 * impl/basic_api/dav_c220/kernel_operator_mm_impl.h
 * (LoadData2DL12L0ATransposeCal / L0BTransposeCal -> load_cbuf_to_ca_transpose
 * / load_cbuf_to_cb_transpose with startIndex, repeatTimes, srcStride, dstGap,
 * inc, dstFracGap: addrMode is not passed on dav_c220), its documentation page
 * docs/zh/api/SIMD-API/.../LoadDataWithTranspose.md (units, ranges, the
 * 分形转置 section) and its reference model
 * examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/load_data_l12l0/
 * scripts/load_data_with_transpose.py (load_data_with_transpose_b8/_b16/_b32).
 *
 * Semantics.  rd: destination (L0A, or L0B with rs3 bit 63), rs1: source in
 * L1, rs2: dstFracGap (layout L2DTG), rs3: layout L2DT.  A square is Q bytes
 * of L1: 1024 for b8 and b32 (two 512 B fractals), 512 for b16 (one).  For
 * i < repeat, square i is read at rs1 + (start + i*srcstride)*Q and its
 * fractal j (j < Q/512) written at
 *   rd + i*(1+dstgap)*512 + j*(1+dstfracgap)*512
 * (dstfracgap has no effect for b16), element (r, c) of destination
 * fractal j being:
 *   b16: S(c, r), S the 16x16 fractal of 2-byte elements, row-major.
 *   b8:  T(16j + r, c) = S(c, 16j + r), S the 32x32 square of bytes
 *        (the two 16x32 fractals one below the other), 16 rows x 32.
 *   b32: T(r, 8j + c) = S(8j + c, r), S the 16x16 square of 4-byte
 *        elements made of the two 16x8 fractals F0 | F1 side by side
 *        (S(r, c) = F0(r, c) for c < 8, F1(r, c - 8) else), 16 rows x 8.
 * So a b32 square of K x M (or K x N) data in L1 becomes two fractals of
 * its M x K transpose: the ZZ fractals of L0A, or ZN of L0B, when L1 holds
 * the matrix in 16-row blocks of consecutive fractals (the doc's "ZZ / ZN
 * layout in L1").  repeat 0 is a no-op (the documentation's NOP).
 * Squares are applied in order; overlapping destination fractals are the
 * caller's ("开发者需要保证目的操作数转置后的分形没有重叠"): the later wins.
 *
 * Faults (nothing written): esize 3 (b4, load_cbuf_to_cb_transpose_s4, is
 * not modelled), reserved bits, a destination not 512 B aligned or a source
 * not 32 B aligned, and any square or fractal outside its buffer.
 *
 * Cost: F_DMA with latency class L0 and no bursts, like load_l1_to_l0a_2d:
 * setup, then the bytes written (repeat * Q) at the L1 -> L0 rate (sim/core.c
 * start_transfer), so a repeat-n b32 load costs what a load_l1_to_l0a_2d of
 * 2n fractals does.
 *
 * Invariant: every check before any write; no allocation. */
#include <string.h>

#include "exec_internal.h"

#define FRAC 512u

/* b32: destination fractal j of the square s (two 16x8 fractals of 4-byte
 * elements, F0 at s, F1 at s + 512). */
static void t32(uint8_t *d, const uint8_t *s, unsigned j)
{
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 8; c++) {
            unsigned sr = 8 * j + c, sc = r; /* S(sr, sc) */
            const uint8_t *f = sc < 8 ? s : s + FRAC;
            memcpy(d + (r * 8 + c) * 4, f + (sr * 8 + sc % 8) * 4, 4);
        }
}

/* b8: destination fractal j of the 32x32 square of bytes s. */
static void t8(uint8_t *d, const uint8_t *s, unsigned j)
{
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 32; c++) d[r * 32 + c] = s[c * 32 + 16 * j + r];
}

ASC_EXEC_FN(LOAD2DT)
{
    (void)dt0;
    (void)dt1;
    uint64_t cfg = q->rs3, gapw = q->rs2;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_L2DT, cfg)) return false;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_L2DTG, gapw)) return false;
    uint64_t start = cfg & 0xffff, repeat = (cfg >> 16) & 0xff;
    uint64_t srcstride = (cfg >> 24) & 0xffff, dstgap = (cfg >> 40) & 0xffff, fracgap = gapw & 0xffff;
    unsigned esize = (unsigned)((cfg >> 56) & 3);
    AscBuf dbuf = (cfg >> 63) & 1 ? ASC_BUF_L0B : ASC_BUF_L0A;
    st->src_buf = ASC_BUF_L1;
    st->dst_buf = (uint8_t)dbuf;
    if (esize == 3)
        return asc_exec_fault(ctx, "load_l1_to_l0_2dt esize 3 is reserved: 0 b8, 1 b16, 2 b32 (the b4 load "
                                   "load_cbuf_to_cb_transpose_s4 is not modelled)");
    if (repeat == 0) return true; /* documented no-op */
    uint64_t nfrac = esize == 1 ? 1 : 2, sq = nfrac * FRAC;
    uint64_t src = q->rs1, dst = q->rd;
    if (src > UINT64_MAX / 4 || dst > UINT64_MAX / 4)
        return asc_exec_fault(ctx, "load_l1_to_l0_2dt address 0x%llx / 0x%llx is out of range",
                              (unsigned long long)src, (unsigned long long)dst);
    /* start alignment of both operands, then every square and fractal */
    if (!asc_exec_check_local(ctx, ASC_BUF_L1, "src", false, src, src + sq, true)) return false;
    if (!asc_exec_check_local(ctx, dbuf, "dst", true, dst, dst + FRAC, true)) return false;
    for (uint64_t i = 0; i < repeat; i++) {
        uint64_t s = src + (start + i * srcstride) * sq;
        if (!asc_exec_check_local(ctx, ASC_BUF_L1, "src square", false, s, s + sq, false)) return false;
        for (uint64_t j = 0; j < nfrac; j++) {
            uint64_t d = dst + i * (1 + dstgap) * FRAC + j * (1 + fracgap) * FRAC;
            if (!asc_exec_check_local(ctx, dbuf, "dst fractal", true, d, d + FRAC, false)) return false;
        }
    }
    for (uint64_t i = 0; i < repeat; i++) {
        uint64_t so = src + (start + i * srcstride) * sq;
        const uint8_t *s = ctx->mem[ASC_BUF_L1].data + so;
        if (ctx->on_access) ctx->on_access(ctx->access_ud, ASC_BUF_L1, so, so + sq, false);
        uint8_t su[2 * FRAC]; /* initcheck: the square's definedness, moved as the data is */
        if (ctx->def) ctx->def->l1(ctx->access_ud, so, so + sq, su);
        for (unsigned j = 0; j < nfrac; j++) {
            uint64_t dof = dst + i * (1 + dstgap) * FRAC + j * (1 + fracgap) * FRAC;
            uint8_t *d = ctx->mem[dbuf].data + dof;
            if (ctx->on_access) ctx->on_access(ctx->access_ud, dbuf, dof, dof + FRAC, true);
            if (ctx->def) {
                uint8_t du[FRAC];
                if (esize == 1)
                    asc_frac_transpose16(du, su);
                else if (esize == 2)
                    t32(du, su, j);
                else
                    t8(du, su, j);
                ctx->def->put(ctx->access_ud, dbuf, dof, dof + FRAC, du);
            }
            if (esize == 1)
                asc_frac_transpose16(d, s);
            else if (esize == 2)
                t32(d, s, j);
            else
                t8(d, s, j);
        }
    }
    st->bytes = repeat * sq;
    return true;
}
