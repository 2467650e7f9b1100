/* exec_cube.c -- the cube unit (asc_exec_MMAD) and the L0C readout
 * (asc_exec_FIXPIPE: fix_l0c_to_out.*, mov_l0c_to_ub.*).
 *
 * Users: the engine's generated dispatch (FAM column MMAD, FIXPIPE).
 *
 * Fractal layouts (K0 = 32 B / input element size: 16 for f16/bf16, 32 for
 * s8, 8 for f32; Mf = ceil(m/16), Kf = ceil(k/K0), Nf = ceil(n/16)):
 *   L0A, ZZ: A(r, c) in fractal (r/16, c/K0) at byte ((r/16)*Kf + c/K0)*512,
 *            row-major inside: element (r%16)*K0 + c%K0.
 *   L0B, ZN: B(r, c) in fractal (r/K0, c/16) at byte ((r/K0)*Nf + c/16)*512,
 *            column-major inside: element (c%16)*K0 + r%K0.
 *   L0C, NZ: C(r, c) (4-byte f32/s32) in fractal (r/16, c/16) at byte
 *            ((c/16)*Mf + r/16)*1024, row-major inside: (r%16)*16 + c%16;
 *            equivalently element ((c/16)*Mf*16 + r)*16 + c%16.
 * MMAD: C = A x B (init = 1) or C += A x B (init = 0).  Each output is
 * accumulated in f64 (products of f16/bf16/f32 inputs are exact in f64) and
 * rounded once to f32; with init = 0 the old C value is the first addend.
 * s8 x s8 accumulates exactly in s32 (wrapping on overflow).  Only the m x n
 * elements of C are written: padding rows/columns of partial C fractals are
 * left untouched, and padding of A and B fractals is never read.
 *
 * FIXPIPE: out(r, c) = conv(relu ? ReLU(C(r, c)) : C(r, c)) for r < m,
 * c < n, C(r, c) read as f32 at rs1 + (((c/16)*S + r)*16 + c%16)*4 with
 * S = srcstride (0 = Mf*16), written in ND at rd + (r*D + c)*outsize with
 * D = dststride (0 = n).  ReLU(x) = x > 0 ? x : +0 (NaN -> +0).  conv is
 * exact for f32 and RNE for f16/bf16.
 *
 * Invariant: every access is checked before anything is written. */
#include <string.h>

#include "exec_internal.h"

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static float rd_f32(const uint8_t *p)
{
    float f;
    memcpy(&f, p, 4);
    return f;
}

static uint16_t rd_u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Input element (as double) of a 512 B fractal-packed operand. */
static double in_elem(const uint8_t *p, AscDtype dt)
{
    switch (dt) {
    case ASC_DT_F16: return asc_f16_to_f32(rd_u16(p));
    case ASC_DT_BF16: return asc_bf16_to_f32(rd_u16(p));
    case ASC_DT_F32: return rd_f32(p);
    default: return (int8_t)p[0];
    }
}

#define MAX_K 4096

ASC_EXEC_FN(MMAD)
{
    (void)dt1;
    uint64_t cfg = q->rs3;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_MMAD, cfg)) return false;
    uint32_t m = cfg & 0xfff, k = (cfg >> 12) & 0xfff, n = (cfg >> 24) & 0xfff;
    bool init = (cfg >> 63) & 1;
    st->src_buf = ASC_BUF_L0A;
    st->dst_buf = ASC_BUF_L0C;
    if (m == 0 || k == 0 || n == 0) return true;

    uint32_t esize = asc_dtype_size(dt0);
    uint32_t k0 = 32 / esize;
    int64_t cube_k0 = dt0 == ASC_DT_S8 ? ctx->cfg->v[ASC_KEY_CUBE_K0_B8]
                      : dt0 == ASC_DT_F32 ? ctx->cfg->v[ASC_KEY_CUBE_K0_B32]
                                          : ctx->cfg->v[ASC_KEY_CUBE_K0_B16];
    uint64_t mf = ceil_div(m, 16), kf = ceil_div(k, k0), nf = ceil_div(n, 16);
    uint64_t a = q->rs1, b = q->rs2, c = q->rd;
    uint64_t a_bytes = mf * kf * 512, b_bytes = kf * nf * 512, c_bytes = mf * nf * 1024;
    if (a > UINT64_MAX / 2 || b > UINT64_MAX / 2 || c > UINT64_MAX / 2)
        return asc_exec_fault(ctx, "mmad address out of range");
    if (!asc_exec_check_local(ctx, ASC_BUF_L0A, "A", false, a, a + a_bytes, true)) return false;
    if (!asc_exec_check_local(ctx, ASC_BUF_L0B, "B", false, b, b + b_bytes, true)) return false;
    if (!asc_exec_check_local(ctx, ASC_BUF_L0C, "C", true, c, c + c_bytes, true)) return false;

    const uint8_t *pa = ctx->mem[ASC_BUF_L0A].data + a;
    const uint8_t *pb = ctx->mem[ASC_BUF_L0B].data + b;
    uint8_t *pc = ctx->mem[ASC_BUF_L0C].data + c;
    if (ctx->on_access) {
        /* whole fractals: padding of partial fractals is counted too */
        ctx->on_access(ctx->access_ud, ASC_BUF_L0A, a, a + a_bytes, false);
        ctx->on_access(ctx->access_ud, ASC_BUF_L0B, b, b + b_bytes, false);
        if (!init) ctx->on_access(ctx->access_ud, ASC_BUF_L0C, c, c + c_bytes, false);
        ctx->on_access(ctx->access_ud, ASC_BUF_L0C, c, c + c_bytes, true);
    }
    for (uint32_t r = 0; r < m; r++) {
        /* row r of A, unpacked once (k <= 4095) */
        double arow[MAX_K];
        int32_t irow[MAX_K];
        for (uint32_t kk = 0; kk < k; kk++) {
            const uint8_t *p = pa + ((r / 16) * kf + kk / k0) * 512 + ((r % 16) * k0 + kk % k0) * esize;
            if (dt0 == ASC_DT_S8)
                irow[kk] = (int8_t)p[0];
            else
                arow[kk] = in_elem(p, dt0);
        }
        for (uint32_t col = 0; col < n; col++) {
            uint8_t *out = pc + (((uint64_t)(col / 16) * mf * 16 + r) * 16 + col % 16) * 4;
            if (dt0 == ASC_DT_S8) {
                uint32_t acc = 0;
                if (!init) memcpy(&acc, out, 4);
                for (uint32_t kk = 0; kk < k; kk++) {
                    const uint8_t *p = pb + ((kk / k0) * nf + col / 16) * 512 + ((col % 16) * k0 + kk % k0);
                    acc += (uint32_t)(irow[kk] * (int8_t)p[0]);
                }
                memcpy(out, &acc, 4);
            } else {
                double acc = init ? 0.0 : rd_f32(out);
                for (uint32_t kk = 0; kk < k; kk++) {
                    const uint8_t *p = pb + ((kk / k0) * nf + col / 16) * 512 + ((col % 16) * k0 + kk % k0) * esize;
                    acc += arow[kk] * in_elem(p, dt0);
                }
                float f = (float)acc;
                memcpy(out, &f, 4);
            }
        }
    }
    st->cube_steps = ceil_div(m, (uint64_t)ctx->cfg->v[ASC_KEY_CUBE_M0]) *
                     ceil_div(n, (uint64_t)ctx->cfg->v[ASC_KEY_CUBE_N0]) * ceil_div(k, (uint64_t)cube_k0);
    st->flops = 2ull * m * n * k;
    st->bytes = a_bytes + b_bytes + c_bytes;
    return true;
}

ASC_EXEC_FN(FIXPIPE)
{
    (void)dt0;
    AscBuf dbuf;
    switch (q->in.op) {
    case ASC_OP_FIX_L0C_TO_OUT_F32:
    case ASC_OP_FIX_L0C_TO_OUT_F16:
    case ASC_OP_FIX_L0C_TO_OUT_BF16: dbuf = ASC_BUF_GM; break;
    case ASC_OP_MOV_L0C_TO_UB_F32:
    case ASC_OP_MOV_L0C_TO_UB_F16: dbuf = ASC_BUF_UB; break;
    default: return asc_exec_fault(ctx, "instruction %u is not an L0C readout", (unsigned)q->in.op);
    }
    uint64_t cfg = q->rs2;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_FIX, cfg)) return false;
    uint64_t n = cfg & 0xfff, m = (cfg >> 16) & 0xffff;
    bool relu = (cfg >> 15) & 1;
    uint64_t S = (cfg >> 32) & 0xffff, D = (cfg >> 48) & 0xffff;
    st->src_buf = ASC_BUF_L0C;
    st->dst_buf = (uint8_t)dbuf;
    if (m == 0 || n == 0) return true;
    if (S == 0) S = ceil_div(m, 16) * 16;
    if (D == 0) D = n;
    if (S < m) return asc_exec_fault(ctx, "fixpipe srcstride %llu is below m = %llu: it must be 0 or >= m", (unsigned long long)S, (unsigned long long)m);
    if (D < n) return asc_exec_fault(ctx, "fixpipe dststride %llu is below n = %llu: it must be 0 or >= n", (unsigned long long)D, (unsigned long long)n);
    uint32_t osize = asc_dtype_size(dt1);
    uint64_t src = q->rs1, dst = q->rd;
    if (src > UINT64_MAX / 2 || dst > UINT64_MAX / 2) return asc_exec_fault(ctx, "fixpipe address out of range");
    uint64_t src_hi = src + ((((n - 1) / 16) * S + (m - 1)) * 16 + (n - 1) % 16 + 1) * 4;
    uint64_t dst_hi = dst + ((m - 1) * D + n) * osize;
    if (!asc_exec_check_local(ctx, ASC_BUF_L0C, "src", false, src, src_hi, true)) return false;
    if (dbuf == ASC_BUF_GM) {
        if (!asc_exec_check_gm(ctx, "dst", true, dst, dst_hi, osize)) return false;
        if (dst % (uint64_t)ctx->cfg->v[ASC_KEY_GM_ALIGN_FAST]) st->gm_unaligned = true;
    } else if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst", true, dst, dst_hi, true)) {
        return false;
    }

    const uint8_t *pc = ctx->mem[ASC_BUF_L0C].data + src;
    if (ctx->on_access) {
        /* L0C: rows 0..m-1 of each column of fractals; out: one ND row each */
        for (uint64_t j = 0; j * 16 < n; j++) {
            uint64_t lo = src + j * S * 16 * 4;
            ctx->on_access(ctx->access_ud, ASC_BUF_L0C, lo, lo + m * 16 * 4, false);
        }
        for (uint64_t r = 0; r < m; r++)
            ctx->on_access(ctx->access_ud, dbuf, dst + r * D * osize, dst + r * D * osize + n * osize, true);
    }
    for (uint64_t r = 0; r < m; r++) {
        uint8_t row[4095 * 4]; /* one ND row, written with one copy */
        for (uint64_t c = 0; c < n; c++) {
            float x = rd_f32(pc + (((c / 16) * S + r) * 16 + c % 16) * 4);
            if (relu && !(x > 0)) x = 0.0f;
            if (dt1 == ASC_DT_F16) {
                uint16_t h = asc_f32_to_f16(x);
                memcpy(row + c * 2, &h, 2);
            } else if (dt1 == ASC_DT_BF16) {
                uint16_t h = asc_f32_to_bf16(x);
                memcpy(row + c * 2, &h, 2);
            } else {
                memcpy(row + c * 4, &x, 4);
            }
        }
        uint64_t at = dst + r * D * osize;
        if (dbuf == ASC_BUF_GM) {
            if (!asc_exec_gm_write(ctx, at, row, n * osize)) return false;
        } else {
            memcpy(ctx->mem[ASC_BUF_UB].data + at, row, n * osize);
        }
    }
    st->bytes = m * n * osize;
    return true;
}
