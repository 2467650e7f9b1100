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
 * With CTRL bit 46 (HF32 mode) an f32 mmad first rounds A and B to HF32
 * (hf32_round below; bit 47 picks toward zero instead of nearest even).
 *
 * FIXPIPE: out(r, c) = conv(relu ? ReLU(C(r, c)) : C(r, c)) for r < m,
 * c < n, C(r, c) read as f32 at rs1 + (((c/16)*S + r)*16 + c%16)*4 with
 * S = srcstride (0 = Mf*16), written in ND at rd + (r*D + c)*outsize with
 * D = dststride (0 = n).  ReLU(x) = x > 0 ? x : +0 (NaN -> +0).  conv is
 * exact for f32 and RNE for f16/bf16.
 *
 * fix_l0c_to_out.q (config FIX, the mode in its field quant, bits 14:12): the dav_c220 fixpipe
 * quantisation (QuantMode_t; cannmirror/asc-devkit docs .../矩阵计算的搬出/
 * 关键特性说明/随路量化.md and 随路量化与随路ReLU场景组合.md, whose reference
 * Python is examples/.../fixpipe_l0c2gm/scripts/gen_data_*.py).  A parameter
 * p (SPR quant_pre, or for the per-column modes the u64 at FB[128 * fpc[15:8] + 8c],
 * the fixpipe buffer mov_l1_to_fb fills, exec_fbuf.c; at most 256 columns per
 * instruction: "deqTensor/reluTensor in FB valid num is 256", GenFixpipeTiling
 * in impl/basic_api/dav_c220/kernel_operator_fixpipe_impl.h):
 * scale M1 = the f32 p[31:0] with bits 12:0 cleared (the 1-8-10 float; inf,
 * NaN or subnormal faults), offset p[44:37] (REQ8 / QF322B8_PRE), b8 signed
 * when p[46].  Negative inputs use M2 = M1, or 0 with ReLU (then +0).
 *   mode 0: s32 -> s32 copy.
 *   DEQF16 (1, 2): s32 -> f16: f16(clamp(f32(x) * M, +-65504)), RNE.
 *   QF322B8_PRE (3, 4): f32 -> b8; REQ8 (5, 6): s32 -> b8 (x -> f32 first):
 *     y = rint(clamp(f32(x) * M, -256, 255)) + offset, saturated to the
 *     s8 / u8 range; NaN -> 0.
 * Products are f32 (rounded to nearest even).  Not modelled (fault): MCB
 * p[36] (the shift to s16 first: the reference and the table disagree on
 * N), a negative (9-bit) offset, mode 7.
 *
 * Invariant: every access is checked before anything is written. */
#include <stdlib.h>
#include <string.h>

#include "exec_internal.h"

static bool fixq_param(AscExecCtx *ctx, uint64_t p, float *scale, int32_t *offset, bool *sgn)
{
    uint32_t bits = (uint32_t)p & 0xffffe000u;
    uint32_t e = (bits >> 23) & 0xff;
    if (e == 0xff || (e == 0 && (bits & 0x7fffff)))
        return asc_exec_fault(ctx, "fixpipe quantisation scale 0x%08x is inf, NaN or subnormal (the hardware takes neither)", (unsigned)bits);
    if ((p >> 36) & 1)
        return asc_exec_fault(ctx, "fixpipe quantisation parameter 0x%016llx sets MCB (bit 36: shift to s16 first): not modelled", (unsigned long long)p);
    if ((p >> 45) & 1)
        return asc_exec_fault(ctx, "fixpipe quantisation parameter 0x%016llx has a negative 9-bit offset (bit 45): not modelled", (unsigned long long)p);
    memcpy(scale, &bits, 4);
    *offset = (int32_t)((p >> 37) & 0xff);
    *sgn = (p >> 46) & 1;
    return true;
}

static int32_t fixq_b8(float y, int32_t offset, bool sgn)
{
    if (y != y) y = 0.0f;
    if (y < -256.0f) y = -256.0f;
    if (y > 255.0f) y = 255.0f;
    float a = y < 0 ? -y : y; /* round half to even: |y| <= 256, so a - i is exact */
    int32_t i = (int32_t)a;
    float f = a - (float)i;
    if (f > 0.5f || (f == 0.5f && (i & 1))) i++;
    int32_t v = (y < 0 ? -i : i) + offset;
    int32_t lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
    return v < lo ? lo : v > hi ? hi : v;
}

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

/* ---- mmad arithmetic ------------------------------------------------------
 * Each operand is unpacked once per mmad from its fractals into host scratch
 * (f64 for f16/bf16/f32, s32 for s8): A row-major, m rows padded with one
 * zero row to a multiple of MM_R; B as Nf panels of k x 16, padding columns
 * zero.  The product runs on tiles of MM_R rows x 16 columns (one C
 * fractal's width) with one accumulator per output, read from L0C (or 0 with
 * init) and summed in k order, so every output is exactly the serial f64 sum
 * of a plain triple loop (a product of two f16/bf16/f32 values is exact in
 * f64, so even a fused multiply-add would round the same as mul + add).  A
 * tile is written back to L0C rounded once to f32, only its m x n elements.
 * The inner loops have fixed trip counts and no division or dtype switch;
 * on x86-64 GCC also builds an AVX2 clone of them, picked at load time by
 * the CPU (the same operations in the same order: the same bits).
 *
 * Parts (AscExecCtx.mm_parts, set by sim/pool.c when a run has fewer cube
 * cores than host threads): the C column panels are split into P ranges,
 * one AscExecJob part each, which host threads may run at the same time;
 * the calling thread unpacks A once before handing the job over, each part
 * unpacks its panels of B and writes only its panels of C, so each output's
 * sum and rounding are exactly as above, whatever P is and whichever thread
 * runs a part. */
#define MM_R 2

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define MM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MM_CLONES
#endif

/* Four doubles (GCC/Clang vector extension; two SSE2 halves on a baseline
 * x86-64), loaded and stored through memcpy: no alignment needed. */
typedef double mm_v4 __attribute__((vector_size(32)));
#define MM_LD(v, p) memcpy(&(v), (p), sizeof(mm_v4))
#define MM_ST(p, v) memcpy((p), &(v), sizeof(mm_v4))

/* The L0C rows r0, r0 + 1 of panel j hold 16 f32 each, 64 B apart; rows
 * beyond m and columns beyond n are neither used nor written. */
static void mm_c_load(const uint8_t *cp, bool init, double c[MM_R * 16])
{
    float f[MM_R * 16];
    if (init) memset(f, 0, sizeof f);
    else memcpy(f, cp, sizeof f); /* inside the checked C footprint: Mf*16 rows per panel */
    for (unsigned i = 0; i < MM_R * 16; i++) c[i] = f[i];
}

static void mm_c_store(uint8_t *cp, const double c[MM_R * 16], uint32_t rows, uint32_t cols)
{
    float f[MM_R * 16];
    for (unsigned i = 0; i < MM_R * 16; i++) f[i] = (float)c[i];
    if (rows == MM_R && cols == 16) {
        memcpy(cp, f, sizeof f);
        return;
    }
    for (uint32_t i = 0; i < rows; i++) memcpy(cp + i * 64, f + i * 16, cols * 4);
}

MM_CLONES
static void mm_f64(const double *A, const double *B, uint8_t *pc, uint64_t mf, uint32_t m, uint32_t n, uint32_t k,
                   bool init, uint32_t j0, uint32_t j1)
{
    for (uint32_t j = j0; j < j1; j++) {
        const double *bp = B + (size_t)j * k * 16;
        uint32_t cols = n - j * 16 < 16 ? n - j * 16 : 16;
        for (uint32_t r0 = 0; r0 < m; r0 += MM_R) {
            uint8_t *cp = pc + ((uint64_t)j * mf * 16 + r0) * 64;
            double c[MM_R * 16];
            mm_c_load(cp, init, c);
            mm_v4 c00, c01, c02, c03, c10, c11, c12, c13;
            MM_LD(c00, c);
            MM_LD(c01, c + 4);
            MM_LD(c02, c + 8);
            MM_LD(c03, c + 12);
            MM_LD(c10, c + 16);
            MM_LD(c11, c + 20);
            MM_LD(c12, c + 24);
            MM_LD(c13, c + 28);
            const double *a0 = A + (size_t)r0 * k, *a1 = a0 + k;
            for (uint32_t kk = 0; kk < k; kk++) {
                const double *b = bp + (size_t)kk * 16;
                mm_v4 b0, b1, b2, b3;
                MM_LD(b0, b);
                MM_LD(b1, b + 4);
                MM_LD(b2, b + 8);
                MM_LD(b3, b + 12);
                double x = a0[kk], y = a1[kk];
                c00 += x * b0;
                c01 += x * b1;
                c02 += x * b2;
                c03 += x * b3;
                c10 += y * b0;
                c11 += y * b1;
                c12 += y * b2;
                c13 += y * b3;
            }
            MM_ST(c, c00);
            MM_ST(c + 4, c01);
            MM_ST(c + 8, c02);
            MM_ST(c + 12, c03);
            MM_ST(c + 16, c10);
            MM_ST(c + 20, c11);
            MM_ST(c + 24, c12);
            MM_ST(c + 28, c13);
            mm_c_store(cp, c, m - r0 < MM_R ? m - r0 : MM_R, cols);
        }
    }
}

/* The same product with AVX-512F on a host that has it (checked at run time,
 * __builtin_cpu_supports; mm_f64 above otherwise): tiles of MM_R8 = 8 rows x
 * 16 columns, 16 accumulators of 8 doubles, one fused multiply-add per
 * element and k step.  A product of two f16/bf16/f32 values is exact in f64,
 * so fma(x, b, c) rounds exactly as c + x * b does: every output is the same
 * serial f64 sum in k order, bit for bit (tests/unit/test_exec_cube_dma.c
 * compares both paths).  A is padded to a multiple of MM_R8 rows; the rows
 * r0..r0+7 of a C panel are 512 contiguous bytes inside the checked C
 * footprint (Mf*16 rows per panel). */
#define MM_R8 8
/* AscExecJob.u[11]: the host paths this mmad may take (mm_host below) */
enum { MM_CHECKED = 1, MM_F16C = 2, MM_FMA = 4, MM_AVX512 = 8, MM_UNPACKED = 16 };
#if defined(__GNUC__) && defined(__x86_64__)
#define MM_X86 1
#include <cpuid.h>
#include <immintrin.h>

/* F16C (CPUID.1:ECX bit 29) from cpuid itself: clang 14's __builtin_cpu_supports does not
 * know "f16c" (the fuzz build, CC=clang, failed on it). */
static bool mm_has_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}

__attribute__((target("avx512f"))) static void mm_f64_avx512(const double *A, const double *B, uint8_t *pc,
                                                             uint64_t mf, uint32_t m, uint32_t n, uint32_t k,
                                                             bool init, uint32_t j0, uint32_t j1)
{
    for (uint32_t j = j0; j < j1; j++) {
        const double *bp = B + (size_t)j * k * 16;
        uint32_t cols = n - j * 16 < 16 ? n - j * 16 : 16;
        for (uint32_t r0 = 0; r0 < m; r0 += MM_R8) {
            uint8_t *cp = pc + ((uint64_t)j * mf * 16 + r0) * 64;
            __m512d c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15;
            if (init) {
                c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = _mm512_setzero_pd();
                c8 = c9 = c10 = c11 = c12 = c13 = c14 = c15 = _mm512_setzero_pd();
            } else {
#define MM_CL(r, v) v = _mm512_cvtps_pd(_mm256_loadu_ps((const float *)(cp + (r) * 32)))
                MM_CL(0, c0); MM_CL(1, c1); MM_CL(2, c2); MM_CL(3, c3);
                MM_CL(4, c4); MM_CL(5, c5); MM_CL(6, c6); MM_CL(7, c7);
                MM_CL(8, c8); MM_CL(9, c9); MM_CL(10, c10); MM_CL(11, c11);
                MM_CL(12, c12); MM_CL(13, c13); MM_CL(14, c14); MM_CL(15, c15);
#undef MM_CL
            }
            const double *a = A + (size_t)r0 * k;
            for (uint32_t kk = 0; kk < k; kk++) {
                const double *b = bp + (size_t)kk * 16;
                __m512d b0 = _mm512_loadu_pd(b), b1 = _mm512_loadu_pd(b + 8), x;
#define MM_FR(i, lo, hi)                                                                                         \
    x = _mm512_set1_pd(a[(size_t)(i) * k + kk]);                                                                 \
    lo = _mm512_fmadd_pd(x, b0, lo);                                                                             \
    hi = _mm512_fmadd_pd(x, b1, hi)
                MM_FR(0, c0, c1); MM_FR(1, c2, c3); MM_FR(2, c4, c5); MM_FR(3, c6, c7);
                MM_FR(4, c8, c9); MM_FR(5, c10, c11); MM_FR(6, c12, c13); MM_FR(7, c14, c15);
#undef MM_FR
            }
            float f[MM_R8 * 16];
#define MM_CS(r, v) _mm256_storeu_ps(f + (r) * 8, _mm512_cvtpd_ps(v))
            MM_CS(0, c0); MM_CS(1, c1); MM_CS(2, c2); MM_CS(3, c3);
            MM_CS(4, c4); MM_CS(5, c5); MM_CS(6, c6); MM_CS(7, c7);
            MM_CS(8, c8); MM_CS(9, c9); MM_CS(10, c10); MM_CS(11, c11);
            MM_CS(12, c12); MM_CS(13, c13); MM_CS(14, c14); MM_CS(15, c15);
#undef MM_CS
            uint32_t rows = m - r0 < MM_R8 ? m - r0 : MM_R8;
            if (rows == MM_R8 && cols == 16) memcpy(cp, f, sizeof f);
            else
                for (uint32_t i = 0; i < rows; i++) memcpy(cp + i * 64, f + i * 16, cols * 4);
        }
    }
}

/* The same product with AVX2 + FMA (x86-64-v3 hosts without AVX-512F): tiles
 * of 6 rows x 8 columns (half a C panel), 12 accumulators of 4 doubles, per k
 * step two loads of B, six broadcasts of A and twelve fused multiply-adds,
 * for the rows below m / 12 * 12; the rest in tiles of MM_R4 = 4 rows (8
 * accumulators).  (With 4-row tiles only, matmul 2048^3 on one core spent
 * 0.62 s of user time, 0.57-0.61 s with the 6-row tiles.)  As above, fma(x, b, c) rounds as c + x * b (the product is
 * exact in f64): each output is the same serial f64 sum in k order, the same
 * bits as mm_f64 and mm_f64_avx512 (test_exec_cube_dma.c compares them).  A
 * has a multiple of MM_R8 rows, so of MM_R4; the rows r0..r0+3 of a C panel
 * lie inside the checked C footprint (Mf*16 rows per panel). */
#define MM_R4 4
__attribute__((target("avx2,fma"))) static void mm_f64_fma(const double *A, const double *B, uint8_t *pc,
                                                          uint64_t mf, uint32_t m, uint32_t n, uint32_t k,
                                                          bool init, uint32_t j0, uint32_t j1)
{
    /* rows [0, m6): tiles of 6 rows (12 accumulators, where two FMA pipes of latency 4-5 need
     * about 10 independent chains), the rest in 4-row tiles; m6 is a multiple of 12 (of 6 and 4)
     * at most m, so the 6-row tiles write only rows below m and the 4-row tiles read A rows only
     * below m rounded up to 4, inside the padded rows */
    uint32_t m6 = m / 12 * 12;
    for (uint32_t j = j0; j < j1; j++) {
        const double *bp = B + (size_t)j * k * 16;
        uint32_t cols = n - j * 16 < 16 ? n - j * 16 : 16;
        for (uint32_t r0 = 0; r0 < m6; r0 += 6) {
            uint8_t *cp = pc + ((uint64_t)j * mf * 16 + r0) * 64;
            const double *a0 = A + (size_t)r0 * k, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k, *a4 = a3 + k,
                         *a5 = a4 + k;
            for (uint32_t h = 0; h < 16 && h < cols; h += 8) {
                __m256d c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11;
                if (init) {
                    c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = c8 = c9 = c10 = c11 = _mm256_setzero_pd();
                } else {
#define MM_CL(r, lo, hi)                                                                                         \
    lo = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(cp + (r) * 64 + h * 4)));                                 \
    hi = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(cp + (r) * 64 + h * 4 + 16)))
                    MM_CL(0, c0, c1); MM_CL(1, c2, c3); MM_CL(2, c4, c5); MM_CL(3, c6, c7);
                    MM_CL(4, c8, c9); MM_CL(5, c10, c11);
#undef MM_CL
                }
                const double *b = bp + h;
                for (uint32_t kk = 0; kk < k; kk++, b += 16) {
                    __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4), x;
#define MM_FR(ap, lo, hi)                                                                                        \
    x = _mm256_broadcast_sd(ap + kk);                                                                            \
    lo = _mm256_fmadd_pd(x, b0, lo);                                                                             \
    hi = _mm256_fmadd_pd(x, b1, hi)
                    MM_FR(a0, c0, c1); MM_FR(a1, c2, c3); MM_FR(a2, c4, c5); MM_FR(a3, c6, c7);
                    MM_FR(a4, c8, c9); MM_FR(a5, c10, c11);
#undef MM_FR
                }
                float f[6 * 8];
#define MM_CS(r, lo, hi)                                                                                         \
    _mm_storeu_ps(f + (r) * 8, _mm256_cvtpd_ps(lo));                                                             \
    _mm_storeu_ps(f + (r) * 8 + 4, _mm256_cvtpd_ps(hi))
                MM_CS(0, c0, c1); MM_CS(1, c2, c3); MM_CS(2, c4, c5); MM_CS(3, c6, c7);
                MM_CS(4, c8, c9); MM_CS(5, c10, c11);
#undef MM_CS
                uint32_t cn = cols - h < 8 ? cols - h : 8;
                for (uint32_t i = 0; i < 6; i++) memcpy(cp + i * 64 + h * 4, f + i * 8, cn * 4);
            }
        }
        for (uint32_t r0 = m6; r0 < m; r0 += MM_R4) {
            uint8_t *cp = pc + ((uint64_t)j * mf * 16 + r0) * 64;
            uint32_t rows = m - r0 < MM_R4 ? m - r0 : MM_R4;
            const double *a0 = A + (size_t)r0 * k, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
            for (uint32_t h = 0; h < 16 && h < cols; h += 8) {
                __m256d c0, c1, c2, c3, c4, c5, c6, c7;
                if (init) {
                    c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = _mm256_setzero_pd();
                } else {
#define MM_CL(r, lo, hi)                                                                                         \
    lo = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(cp + (r) * 64 + h * 4)));                                 \
    hi = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(cp + (r) * 64 + h * 4 + 16)))
                    MM_CL(0, c0, c1); MM_CL(1, c2, c3); MM_CL(2, c4, c5); MM_CL(3, c6, c7);
#undef MM_CL
                }
                const double *b = bp + h;
                for (uint32_t kk = 0; kk < k; kk++, b += 16) {
                    __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4), x;
#define MM_FR(ap, lo, hi)                                                                                        \
    x = _mm256_broadcast_sd(ap + kk);                                                                            \
    lo = _mm256_fmadd_pd(x, b0, lo);                                                                             \
    hi = _mm256_fmadd_pd(x, b1, hi)
                    MM_FR(a0, c0, c1); MM_FR(a1, c2, c3); MM_FR(a2, c4, c5); MM_FR(a3, c6, c7);
#undef MM_FR
                }
                float f[MM_R4 * 8];
#define MM_CS(r, lo, hi)                                                                                         \
    _mm_storeu_ps(f + (r) * 8, _mm256_cvtpd_ps(lo));                                                             \
    _mm_storeu_ps(f + (r) * 8 + 4, _mm256_cvtpd_ps(hi))
                MM_CS(0, c0, c1); MM_CS(1, c2, c3); MM_CS(2, c4, c5); MM_CS(3, c6, c7);
#undef MM_CS
                uint32_t cn = cols - h < 8 ? cols - h : 8;
                for (uint32_t i = 0; i < rows; i++) memcpy(cp + i * 64 + h * 4, f + i * 8, cn * 4);
            }
        }
    }
}

#endif

/* s8 x s8: the same tiles in s32, wrapping (unsigned arithmetic). */
MM_CLONES
static void mm_s32(const int32_t *A, const int32_t *B, uint8_t *pc, uint64_t mf, uint32_t m, uint32_t n, uint32_t k,
                   bool init, uint32_t j0, uint32_t j1)
{
    for (uint32_t j = j0; j < j1; j++) {
        const int32_t *bp = B + (size_t)j * k * 16;
        uint32_t cols = n - j * 16 < 16 ? n - j * 16 : 16;
        for (uint32_t r0 = 0; r0 < m; r0 += MM_R) {
            uint8_t *cp = pc + ((uint64_t)j * mf * 16 + r0) * 64;
            uint32_t rows = m - r0 < MM_R ? m - r0 : MM_R;
            uint32_t acc[MM_R * 16];
            if (init) memset(acc, 0, sizeof acc);
            else memcpy(acc, cp, sizeof acc);
            for (uint32_t kk = 0; kk < k; kk++) {
                const int32_t *b = bp + (size_t)kk * 16;
                for (uint32_t i = 0; i < MM_R; i++) {
                    uint32_t av = (uint32_t)A[(size_t)(r0 + i) * k + kk];
                    for (uint32_t t = 0; t < 16; t++) acc[i * 16 + t] += av * (uint32_t)b[t];
                }
            }
            for (uint32_t i = 0; i < rows; i++) memcpy(cp + i * 64, acc + i * 16, cols * 4);
        }
    }
}

/* Unpack the m x k elements of A (ZZ fractals) into A[r*k + kk] and the
 * k x n elements of B (ZN fractals) of the column panels j0..j1-1 into
 * B[(j*k + kk)*16 + c%16], j = c/16, as f64 (or s32 for s8).  Padding (A rows
 * m..mp-1, B columns n..16*Nf-1) is zeroed here; padding of the fractals
 * themselves is never read.  The panels of B are disjoint, so parts of one
 * mmad (mm_part) may unpack theirs at the same time into one B. */
#define MM_UNPACK(NAME, T, CONV)                                                                                 \
    static void NAME##_a(const uint8_t *pa, T *A, uint32_t m, uint32_t mp, uint32_t k, uint32_t k0,              \
                         uint32_t esize, uint64_t kf)                                                            \
    {                                                                                                            \
        if (mp > m) memset(A + (size_t)m * k, 0, (size_t)(mp - m) * k * sizeof(T));                             \
        for (uint32_t r0 = 0; r0 < m; r0 += 16)                                                                  \
            for (uint32_t c0 = 0; c0 < k; c0 += k0) {                                                            \
                const uint8_t *f = pa + ((r0 / 16) * kf + c0 / k0) * 512;                                        \
                uint32_t rn = m - r0 < 16 ? m - r0 : 16, cn = k - c0 < k0 ? k - c0 : k0;                         \
                for (uint32_t i = 0; i < rn; i++) {                                                              \
                    T *dst = A + (size_t)(r0 + i) * k + c0;                                                      \
                    for (uint32_t t = 0; t < cn; t++) {                                                          \
                        const uint8_t *p = f + (i * k0 + t) * esize;                                             \
                        dst[t] = CONV;                                                                           \
                    }                                                                                            \
                }                                                                                                \
            }                                                                                                    \
    }                                                                                                            \
    static void NAME##_b(const uint8_t *pb, T *B, uint32_t k, uint32_t n, uint32_t k0, uint32_t esize,           \
                         uint64_t nf, uint32_t j0, uint32_t j1)                                                  \
    {                                                                                                            \
        if (n % 16 && j1 * 16 > n) memset(B + (size_t)(n / 16) * k * 16, 0, (size_t)k * 16 * sizeof(T));         \
        uint32_t c1 = j1 * 16 < n ? j1 * 16 : n;                                                                 \
        for (uint32_t k1 = 0; k1 < k; k1 += k0)                                                                  \
            for (uint32_t c0 = j0 * 16; c0 < c1; c0 += 16) {                                                     \
                const uint8_t *f = pb + ((k1 / k0) * nf + c0 / 16) * 512;                                        \
                uint32_t kn = k - k1 < k0 ? k - k1 : k0, cn = n - c0 < 16 ? n - c0 : 16;                         \
                T *dst = B + ((size_t)(c0 / 16) * k + k1) * 16;                                                  \
                for (uint32_t t = 0; t < cn; t++)                                                                \
                    for (uint32_t i = 0; i < kn; i++) {                                                          \
                        const uint8_t *p = f + (t * k0 + i) * esize;                                             \
                        dst[(size_t)i * 16 + t] = CONV;                                                          \
                    }                                                                                            \
            }                                                                                                    \
    }

/* f16 without F16C: a 512-byte fractal widened whole with asc_f16_widen, then placed as above;
 * the fractal's padding is converted but never placed. */
static void mm_f16_frac(const uint8_t *f, double *out)
{
    for (unsigned i = 0; i < 256; i++) out[i] = (double)asc_f16_widen(rd_u16(f + i * 2));
}

/* 16 f16 values (one fractal row) to f64: F16C where the host has it, else asc_f16_widen (the
 * same values) */
#ifdef MM_X86
__attribute__((target("avx,f16c"))) static void mm_f16_row_f16c(const uint8_t *f, double *out)
{
    for (unsigned i = 0; i < 16; i += 8) {
        __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(f + i * 2)));
        _mm256_storeu_pd(out + i, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        _mm256_storeu_pd(out + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
}
#endif

static void mm_f16_row(const uint8_t *f, double *out, bool f16c)
{
#ifdef MM_X86
    if (f16c) {
        mm_f16_row_f16c(f, out);
        return;
    }
#endif
    (void)f16c;
    for (unsigned i = 0; i < 16; i++) out[i] = (double)asc_f16_widen(rd_u16(f + i * 2));
}

/* A: each fractal row straight into its A row (a partial last fractal of a row through a
 * 16-value buffer: only its k % 16 values are placed) */
static void mm_unpack_f16_a(const uint8_t *pa, double *A, uint32_t m, uint32_t mp, uint32_t k, bool f16c, uint64_t kf)
{
    if (mp > m) memset(A + (size_t)m * k, 0, (size_t)(mp - m) * k * sizeof(double));
    for (uint32_t r0 = 0; r0 < m; r0 += 16)
        for (uint32_t c0 = 0; c0 < k; c0 += 16) {
            const uint8_t *f = pa + ((r0 / 16) * kf + c0 / 16) * 512;
            uint32_t rn = m - r0 < 16 ? m - r0 : 16, cn = k - c0 < 16 ? k - c0 : 16;
            for (uint32_t i = 0; i < rn; i++) {
                double *dst = A + (size_t)(r0 + i) * k + c0;
                if (cn == 16) {
                    mm_f16_row(f + i * 32, dst, f16c);
                } else {
                    double t[16];
                    mm_f16_row(f + i * 32, t, f16c);
                    memcpy(dst, t, cn * sizeof(double));
                }
            }
        }
}

/* B: with F16C each ZN fractal is first transposed as 16-bit elements (asc_frac_transpose16:
 * row i then holds B(k1 + i, c0 .. c0 + 15)), then widened row by row straight into the panel
 * (a partial panel through a 16-value buffer: only its n % 16 columns are placed); without it
 * widened whole and placed element by element.  The same values either way. */
static void mm_unpack_f16_b(const uint8_t *pb, double *B, uint32_t k, uint32_t n, bool f16c, uint64_t nf, uint32_t j0,
                            uint32_t j1)
{
    double t16[256];
    if (n % 16 && j1 * 16 > n) memset(B + (size_t)(n / 16) * k * 16, 0, (size_t)k * 16 * sizeof(double));
    uint32_t c1 = j1 * 16 < n ? j1 * 16 : n;
    if (f16c) {
        uint8_t tr[512];
        for (uint32_t k1 = 0; k1 < k; k1 += 16)
            for (uint32_t c0 = j0 * 16; c0 < c1; c0 += 16) {
                asc_frac_transpose16(tr, pb + ((k1 / 16) * nf + c0 / 16) * 512);
                uint32_t kn = k - k1 < 16 ? k - k1 : 16, cn = n - c0 < 16 ? n - c0 : 16;
                double *dst = B + ((size_t)(c0 / 16) * k + k1) * 16;
                for (uint32_t i = 0; i < kn; i++) {
                    if (cn == 16) {
                        mm_f16_row(tr + i * 32, dst + (size_t)i * 16, true);
                    } else {
                        mm_f16_row(tr + i * 32, t16, true);
                        memcpy(dst + (size_t)i * 16, t16, cn * sizeof(double));
                    }
                }
            }
        return;
    }
    for (uint32_t k1 = 0; k1 < k; k1 += 16)
        for (uint32_t c0 = j0 * 16; c0 < c1; c0 += 16) {
            mm_f16_frac(pb + ((k1 / 16) * nf + c0 / 16) * 512, t16);
            uint32_t kn = k - k1 < 16 ? k - k1 : 16, cn = n - c0 < 16 ? n - c0 : 16;
            double *dst = B + ((size_t)(c0 / 16) * k + k1) * 16;
            for (uint32_t i = 0; i < kn; i++)
                for (uint32_t t = 0; t < cn; t++) dst[(size_t)i * 16 + t] = t16[t * 16 + i];
        }
}
MM_UNPACK(mm_unpack_bf16, double, (double)asc_bf16_to_f32(rd_u16(p)))
MM_UNPACK(mm_unpack_f32, double, (double)rd_f32(p))
MM_UNPACK(mm_unpack_s8, int32_t, (int32_t)(int8_t)p[0])

/* HF32 mode (CTRL bit 46, Ascend C SetHF32Mode; bit 47 SetHF32TransMode):
 * each f32 input of L0A/L0B is rounded to HF32 before the multiply, 1 sign,
 * 8 exponent and 10 mantissa bits (the low 13 mantissa bits become 0),
 * to nearest even (bit 47 = 0) or toward zero (bit 47 = 1).  Sources:
 * cannmirror/asc-devkit impl/basic_api/kernel_macros.h HF32_MODE_BIT,
 * HF32_TRANS_MODE_BIT; kernel_operator_mm_intf_impl.h SetHF32Mode,
 * SetHF32TransMode.  Inf stays Inf, a NaN stays a NaN (quiet), a finite
 * value that rounds past the largest HF32 becomes Inf (RNE) as in IEEE. */
static float hf32_round(float x, bool to_zero)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) == 0x7f800000u) {
        if (u & 0x007fffffu) u |= 0x00400000u; /* NaN: keep it a NaN after truncation */
    } else if (!to_zero) {
        u += 0x0fffu + ((u >> 13) & 1u);
    }
    u &= ~0x1fffu;
    memcpy(&x, &u, 4);
    return x;
}
MM_UNPACK(mm_unpack_hf32_rne, double, (double)hf32_round(rd_f32(p), false))
MM_UNPACK(mm_unpack_hf32_rz, double, (double)hf32_round(rd_f32(p), true))

/* One part of one mmad's arithmetic (an AscExecJob): part p of P takes the
 * column panels [p*Nf/P, (p+1)*Nf/P) of C.  It unpacks all of A into its own
 * A scratch (part p's A follows B and the A of parts 0..p-1) and its panels
 * of B, then multiplies them.  Parts write disjoint outputs, and every output
 * is the same serial sum in k order whatever P is: the bits do not depend on
 * how many parts there are or which thread runs which (test_threads.sh,
 * test_exec_cube_dma.c mmad_parts). */
/* Unpack A (all of it, when A is not NULL) and the panels [j0, j1) of B (when B is not NULL),
 * f64, or s32 for s8. */
static void mm_unpack(const AscExecJob *j, void *A, void *B, uint32_t j0, uint32_t j1)
{
    uint32_t m = j->u[0], mp = j->u[1], k = j->u[2], n = j->u[3], k0 = j->u[4], esize = j->u[5];
    uint64_t kf = j->u[6], nf = j->u[7];
    AscDtype dt0 = (AscDtype)j->u[9];
    bool f16c = j->u[11] & MM_F16C;
    if (dt0 == ASC_DT_S8) {
        if (A) mm_unpack_s8_a(j->in0, A, m, mp, k, k0, esize, kf);
        if (B) mm_unpack_s8_b(j->in1, B, k, n, k0, esize, nf, j0, j1);
    } else if (dt0 == ASC_DT_F16) {
        if (A) mm_unpack_f16_a(j->in0, A, m, mp, k, f16c, kf);
        if (B) mm_unpack_f16_b(j->in1, B, k, n, f16c, nf, j0, j1);
    } else if (dt0 == ASC_DT_BF16) {
        if (A) mm_unpack_bf16_a(j->in0, A, m, mp, k, k0, esize, kf);
        if (B) mm_unpack_bf16_b(j->in1, B, k, n, k0, esize, nf, j0, j1);
    } else if (j->u[10] == 1) {
        if (A) mm_unpack_hf32_rne_a(j->in0, A, m, mp, k, k0, esize, kf);
        if (B) mm_unpack_hf32_rne_b(j->in1, B, k, n, k0, esize, nf, j0, j1);
    } else if (j->u[10] == 3) {
        if (A) mm_unpack_hf32_rz_a(j->in0, A, m, mp, k, k0, esize, kf);
        if (B) mm_unpack_hf32_rz_b(j->in1, B, k, n, k0, esize, nf, j0, j1);
    } else {
        if (A) mm_unpack_f32_a(j->in0, A, m, mp, k, k0, esize, kf);
        if (B) mm_unpack_f32_b(j->in1, B, k, n, k0, esize, nf, j0, j1);
    }
}

/* C panels [j0, j1) from the unpacked A and B. */
static void mm_mul(const AscExecJob *j, const void *A, const void *B, uint32_t j0, uint32_t j1)
{
    uint32_t m = j->u[0], k = j->u[2], n = j->u[3];
    uint64_t mf = j->u[8];
    if ((AscDtype)j->u[9] == ASC_DT_S8) {
        mm_s32(A, B, j->out, mf, m, n, k, j->flag, j0, j1);
        return;
    }
#ifdef MM_X86
    if (j->u[11] & MM_AVX512) {
        mm_f64_avx512(A, B, j->out, mf, m, n, k, j->flag, j0, j1);
        return;
    }
    if (j->u[11] & MM_FMA) {
        mm_f64_fma(A, B, j->out, mf, m, n, k, j->flag, j0, j1);
        return;
    }
#endif
    mm_f64(A, B, j->out, mf, m, n, k, j->flag, j0, j1);
}

/* Part p of P: the C panels [p*Nf/P, (p+1)*Nf/P).  With MM_UNPACKED the calling thread
 * unpacked both operands before the job was handed over (one A, right after B in the
 * scratch); else the part unpacks all of A into its own copy (after B and the A of parts
 * 0..p-1) and its panels of B. */
static void mm_part(const AscExecJob *j, uint32_t p)
{
    uint32_t mp = j->u[1], k = j->u[2];
    uint64_t nf = j->u[7];
    uint32_t parts = j->parts ? j->parts : 1;
    uint32_t j0 = (uint32_t)(nf * p / parts), j1 = (uint32_t)(nf * (p + 1) / parts);
    size_t na = (size_t)mp * k, nb = (size_t)nf * k * 16, el = (AscDtype)j->u[9] == ASC_DT_S8 ? 4 : 8;
    uint8_t *B = j->scratch, *A = B + (nb + (j->u[11] & MM_UNPACKED ? 0 : na * p)) * el;
    mm_unpack(j, j->u[11] & MM_UNPACKED ? NULL : A, B, j0, j1);
    mm_mul(j, A, B, j0, j1);
}

/* The host paths mmad may take (AscExecCtx.mm_host: MM_CHECKED once the CPU was asked, on
 * the core's first mmad; never again for that context), or none with ctx->mm_portable. */
static uint32_t mm_host(AscExecCtx *ctx)
{
    if (!(ctx->mm_host & MM_CHECKED)) {
        uint32_t h = MM_CHECKED;
#ifdef MM_X86
        if (mm_has_f16c()) h |= MM_F16C;
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) h |= MM_FMA;
        if (__builtin_cpu_supports("avx512f")) h |= MM_AVX512;
#endif
        ctx->mm_host = h;
    }
    return ctx->mm_portable ? 0 : ctx->mm_host;
}

/* The whole mmad on one thread: its parts in order. */
static void mm_job(const AscExecJob *j)
{
    uint32_t parts = j->parts ? j->parts : 1;
    for (uint32_t p = 0; p < parts; p++) mm_part(j, p);
}

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
        if (ctx->def) ctx->def->mmad(ctx->access_ud, a, b, c, m, k, n, esize, init); /* initcheck */
    }
    /* scratch: A (mp x k) and B (nf x k x 16), f64 or s32 */
    uint32_t mp = (m + MM_R8 - 1) / MM_R8 * MM_R8; /* a multiple of MM_R too */
    size_t el = dt0 == ASC_DT_S8 ? 4 : 8;
    size_t na = (size_t)mp * k, nb = (size_t)nf * k * 16;
    if ((na + nb) * el > ctx->mm_scratch_bytes) /* cannot happen: the operands lie in L0A / L0B */
        return asc_exec_fault(ctx, "internal: mmad operands (%zu bytes) exceed the scratch (%zu)", (na + nb) * el,
                              ctx->mm_scratch_bytes);
    void *scratch = ctx->mm_scratch;
    /* parts: two per host thread (ctx->mm_parts, set by sim/pool.c, is the thread count), at most
     * one per column panel; the count changes no bit of the result.  Two per thread because the
     * calling thread runs only the parts no worker has started when it has to wait for the job:
     * with halves it ran a whole half after its own DMA and scalar work (2048^3 on one core,
     * --threads 2: 0.58 s -> 0.50 s with quarters) */
    size_t parts = ctx->mm_parts > 1 ? (size_t)ctx->mm_parts * 2 : 1;
    if (parts > nf) parts = (size_t)nf;
    /* the arithmetic reads L0A and L0B and writes L0C only: it may run on
     * host worker threads (sim/pool.c) while the engine goes on */
    AscExecJob job = {
        .run = mm_job, .run_part = mm_part, .parts = (uint32_t)parts,
        .bufs = 1u << ASC_BUF_L0A | 1u << ASC_BUF_L0B | 1u << ASC_BUF_L0C, .scratch = scratch,
        .in0 = pa, .in1 = pb, .out = pc, .flag = init,
        .u = {m, mp, k, n, k0, esize, (uint32_t)kf, (uint32_t)nf, (uint32_t)mf, (uint32_t)dt0,
              dt0 == ASC_DT_F32 ? (uint32_t)((q->ctrl >> ASC_CTRL_HF32_BIT) & 3) : 0, mm_host(ctx)},
    };
    if (parts > 1) {
        /* this thread unpacks A once for every part (each part unpacks its own panels of B),
         * so the job no longer reads L0A */
        job.u[11] |= MM_UNPACKED;
        job.bufs = 1u << ASC_BUF_L0B | 1u << ASC_BUF_L0C;
        mm_unpack(&job, (uint8_t *)scratch + nb * el, NULL, 0, 0);
    }
    if (!ctx->defer || !ctx->defer(ctx->pool_ud, &job)) mm_job(&job);
    st->cube_steps = ceil_div(m, (uint64_t)ctx->cfg->v[ASC_KEY_CUBE_M0]) *
                     ceil_div(n, (uint64_t)ctx->cfg->v[ASC_KEY_CUBE_N0]) * ceil_div(k, (uint64_t)cube_k0);
    st->flops = 2ull * m * n * k;
    st->bytes = a_bytes + b_bytes + c_bytes;
    return true;
}

/* fix_l0c_to_out.q (see the file comment): modes 0..6 of config field quant. */
static bool fixq(AscExecCtx *ctx, const AscIssued *q, AscExecStats *st)
{
    uint64_t cfg = q->rs2;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_FIX, cfg)) return false;
    uint64_t n = cfg & 0xfff, m = (cfg >> 16) & 0xffff;
    unsigned mode = (unsigned)((cfg >> 12) & 7);
    bool relu = (cfg >> 15) & 1;
    uint64_t S = (cfg >> 32) & 0xffff, D = (cfg >> 48) & 0xffff;
    st->src_buf = ASC_BUF_L0C;
    st->dst_buf = ASC_BUF_GM;
    if (mode == 7) return asc_exec_fault(ctx, "fix_l0c_to_out.q mode 7 does not exist (0..6)");
    if (m == 0 || n == 0) return true;
    if (S == 0) S = ceil_div(m, 16) * 16;
    if (D == 0) D = n;
    if (S < m) return asc_exec_fault(ctx, "fixpipe srcstride %llu is below m = %llu: it must be 0 or >= m", (unsigned long long)S, (unsigned long long)m);
    if (D < n) return asc_exec_fault(ctx, "fixpipe dststride %llu is below n = %llu: it must be 0 or >= n", (unsigned long long)D, (unsigned long long)n);
    uint32_t osize = mode == 0 ? 4 : mode <= 2 ? 2 : 1;
    bool vec = mode >= 2 && mode % 2 == 0, s32in = mode <= 2 || mode >= 5;
    uint64_t src = q->rs1, dst = q->rd;
    if (src > UINT64_MAX / 2 || dst > UINT64_MAX / 2) return asc_exec_fault(ctx, "fixpipe address out of range");
    uint64_t src_hi = src + ((((n - 1) / 16) * S + (m - 1)) * 16 + (n - 1) % 16 + 1) * 4;
    uint64_t dst_hi = dst + ((m - 1) * D + n) * osize;
    if (!asc_exec_check_local(ctx, ASC_BUF_L0C, "src", false, src, src_hi, true)) return false;
    if (!asc_exec_check_gm(ctx, "dst", true, dst, dst_hi, osize)) return false;
    if (dst % (uint64_t)ctx->cfg->v[ASC_KEY_GM_ALIGN_FAST]) st->gm_unaligned = true;
    uint64_t qa = ((q->fpc >> 8) & 0xff) * 128; /* FPC[15:8]: the vector's FB address in 128 B units */
    if (vec) {
        if (!(q->fpc >> 63))
            return asc_exec_fault(ctx, "fix_l0c_to_out.q mode %u quantises per column: SPR fpc (FB address of the vector in bits 15:8) was not written", mode);
        if (q->fpc & 0x7fffffffffff00ffull)
            return asc_exec_fault(ctx, "SPR fpc 0x%016llx: only bits 15:8 (the quantisation vector's FB address / 128) and 63 may be set (bits 7:0, the ReLU-pre vector, are not modelled)", (unsigned long long)q->fpc);
        if (n > 256)
            return asc_exec_fault(ctx, "fix_l0c_to_out.q mode %u reads n = %llu quantisation parameters: the fixpipe takes at most 256 per instruction (dav_c220; Ascend C splits N, GenFixpipeTiling)", mode, (unsigned long long)n);
        if (!asc_exec_check_local(ctx, ASC_BUF_FB, "quantisation vector", false, qa, qa + n * 8, false)) return false;
    }
    float scale = 0.0f;
    int32_t offset = 0;
    bool sgn = false;
    if (mode != 0 && !vec && !fixq_param(ctx, q->quant_pre, &scale, &offset, &sgn)) return false;
    /* the per-column parameters, decoded (and checked) before anything is written */
    float cs[4095];
    int32_t co[4095];
    bool cg[4095];
    if (vec) {
        for (uint64_t c = 0; c < n; c++) {
            uint64_t p;
            memcpy(&p, ctx->mem[ASC_BUF_FB].data + qa + c * 8, 8);
            if (!fixq_param(ctx, p, &cs[c], &co[c], &cg[c])) return false;
        }
    }
    const uint8_t *pc = ctx->mem[ASC_BUF_L0C].data + src;
    if (ctx->on_access) {
        for (uint64_t j = 0; j * 16 < n; j++) {
            uint64_t lo = src + j * S * 16 * 4;
            ctx->on_access(ctx->access_ud, ASC_BUF_L0C, lo, lo + m * 16 * 4, false);
            /* initcheck: exactly the n columns of each row read (padding columns are not) */
            uint64_t cols = n - j * 16 < 16 ? n - j * 16 : 16;
            for (uint64_t r = 0; ctx->def && r < m; r++)
                ctx->def->read(ctx->access_ud, ASC_BUF_L0C, lo + r * 64, lo + r * 64 + cols * 4);
        }
        if (vec) ctx->on_access(ctx->access_ud, ASC_BUF_FB, qa, qa + n * 8, false);
        for (uint64_t r = 0; r < m; r++)
            ctx->on_access(ctx->access_ud, ASC_BUF_GM, dst + r * D * osize, dst + r * D * osize + n * osize, true);
    }
    for (uint64_t r = 0; r < m; r++) {
        uint8_t row[4095 * 4];
        for (uint64_t c = 0; c < n; c++) {
            const uint8_t *e = pc + (((c / 16) * S + r) * 16 + c % 16) * 4;
            if (mode == 0) {
                int32_t v;
                memcpy(&v, e, 4);
                if (relu && v < 0) v = 0;
                memcpy(row + c * 4, &v, 4);
                continue;
            }
            float x;
            if (s32in) {
                int32_t v;
                memcpy(&v, e, 4);
                x = (float)v;
            } else {
                x = rd_f32(e);
            }
            float sc = vec ? cs[c] : scale;
            int32_t off = vec ? co[c] : offset;
            bool sg = vec ? cg[c] : sgn;
            float y = (relu && !(x >= 0)) ? 0.0f : x * sc;
            if (mode <= 2) {
                if (y > 65504.0f) y = 65504.0f;
                if (y < -65504.0f) y = -65504.0f;
                uint16_t h = asc_f32_to_f16(y);
                memcpy(row + c * 2, &h, 2);
            } else {
                int32_t v = fixq_b8(y, off, sg);
                row[c] = (uint8_t)(sg ? (uint8_t)(int8_t)v : (uint8_t)v);
            }
        }
        if (!asc_exec_gm_store(ctx, q->st_atomic, dst + r * D * osize, row, n * osize)) return false;
    }
    st->bytes = m * n * osize;
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
    case ASC_OP_FIX_L0C_TO_OUT_Q: return fixq(ctx, q, st);
    default: return asc_exec_fault(ctx, "instruction %u is not an L0C readout", (unsigned)q->in.op);
    }
    uint64_t cfg = q->rs2;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_FIX, cfg)) return false;
    if ((cfg >> 12) & 7)
        return asc_exec_fault(ctx, "fixpipe config field quant is %u: quantisation is fix_l0c_to_out.q's (0 here)", (unsigned)((cfg >> 12) & 7));
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
            /* initcheck: exactly the n columns of each row read (padding columns are not) */
            uint64_t cols = n - j * 16 < 16 ? n - j * 16 : 16;
            for (uint64_t r = 0; ctx->def && r < m; r++)
                ctx->def->read(ctx->access_ud, ASC_BUF_L0C, lo + r * 64, lo + r * 64 + cols * 4);
        }
        for (uint64_t r = 0; r < m; r++)
            ctx->on_access(ctx->access_ud, dbuf, dst + r * D * osize, dst + r * D * osize + n * osize, true);
    }
    for (uint64_t r = 0; r < m; r++) {
        uint8_t row[4095 * 4]; /* one ND row, written with one copy */
        if (dt1 == ASC_DT_F32) {
            /* row r of each fractal column: 16 contiguous f32 (64 B), copied whole */
            for (uint64_t c0 = 0; c0 < n; c0 += 16)
                memcpy(row + c0 * 4, pc + ((c0 / 16) * S + r) * 64, (n - c0 < 16 ? n - c0 : 16) * 4);
            if (relu)
                for (uint64_t c = 0; c < n; c++) {
                    float x = rd_f32(row + c * 4);
                    if (!(x > 0)) x = 0.0f;
                    memcpy(row + c * 4, &x, 4);
                }
        } else {
            for (uint64_t c = 0; c < n; c++) {
                float x = rd_f32(pc + (((c / 16) * S + r) * 16 + c % 16) * 4);
                if (relu && !(x > 0)) x = 0.0f;
                uint16_t h = dt1 == ASC_DT_F16 ? asc_f32_to_f16(x) : asc_f32_to_bf16(x);
                memcpy(row + c * 2, &h, 2);
            }
        }
        uint64_t at = dst + r * D * osize;
        if (dbuf == ASC_BUF_GM) {
            if (!asc_exec_gm_store(ctx, q->st_atomic, at, row, n * osize)) return false;
        } else {
            memcpy(ctx->mem[ASC_BUF_UB].data + at, row, n * osize);
        }
    }
    st->bytes = m * n * osize;
    return true;
}
