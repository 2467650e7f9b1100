/* test_exec_load2dt.c -- load_l1_to_l0_2dt (LoadDataWithTranspose, L1 -> L0A / L0B).
 *
 * Two references, neither using the simulator's helpers:
 *  - the Ascend C reference model, transcribed loop for loop
 *    (cannmirror/asc-devkit examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/
 *    load_data_l12l0/scripts/load_data_with_transpose.py: load_data_with_transpose_b8 /
 *    _b16 / _b32 work on element indices, `src[a : a + n][::step]`); its b16 function adds
 *    srcStride in elements where the documentation's table says square units (16*16*2
 *    bytes): the table is followed here;
 *  - for b32, the matrix meaning: a K x M f32 matrix in L1 as 16-row blocks of
 *    consecutive 16 x 8 fractals, loaded with Ascend C Matmul's parameters, must give the
 *    ZZ fractals of its M x K transpose (sim/exec_cube.c header: element (m, k) at
 *    ((m/16)*Kf + k/8)*512 + ((m%16)*8 + k%8)*4), and a K x N one the ZN fractals of L0B. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "check_main.h"
#include "exec_env.h"

typedef struct P {
    unsigned esize; /* 0 b8, 1 b16, 2 b32 */
    bool l0b;
    uint64_t start, repeat, srcstride, dstgap, fracgap, src, dst;
} P;

static AscIssued issue(const P *p)
{
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_LOAD_L1_TO_L0_2DT;
    q.rd = p->dst;
    q.rs1 = p->src;
    q.rs2 = p->fracgap;
    q.rs3 = p->start | p->repeat << 16 | p->srcstride << 24 | p->dstgap << 40 | (uint64_t)p->esize << 56 |
            (uint64_t)p->l0b << 63;
    return q;
}

static bool run(Env *e, const AscIssued *q, AscExecStats *st)
{
    memset(st, 0, sizeof *st);
    e->ctx.fault[0] = 0;
    return asc_exec_LOAD2DT(&e->ctx, q, ASC_DT_NONE, ASC_DT_NONE, st);
}

/* dst[d : d + n] = src[s : s + span][::step] of es-byte elements (python slicing) */
static void slice(uint8_t *dst, uint64_t d, const uint8_t *src, uint64_t s, uint64_t n, uint64_t step, unsigned es)
{
    for (uint64_t i = 0; i < n; i++) memcpy(dst + (d + i) * es, src + (s + i * step) * es, es);
}

/* The reference model's loops; src and dst are the buffers from the operand addresses,
 * indices in elements. */
static void reference(const P *p, const uint8_t *src, uint8_t *dst)
{
    if (p->esize == 2) { /* load_data_with_transpose_b32: fractal 16 x 8, square 256, offset 8 * 8 */
        uint64_t fs = 128, sqs = 256, off = 64, src_addr = p->start * sqs;
        for (uint64_t i = 0; i < p->repeat; i++) {
            uint64_t ssq = src_addr + p->srcstride * i * sqs, dsq = (p->dstgap + 1) * i * fs;
            for (uint64_t k = 0; k < 8; k++) slice(dst, dsq + 8 * k, src, ssq + k, 8, 8, 4);
            for (uint64_t k = 0; k < 8; k++) slice(dst, dsq + (p->fracgap + 1) * fs + 8 * k, src, ssq + k + off, 8, 8, 4);
            for (uint64_t k = 0; k < 8; k++) slice(dst, dsq + 8 * k + off, src, ssq + fs + k, 8, 8, 4);
            for (uint64_t k = 0; k < 8; k++)
                slice(dst, dsq + (p->fracgap + 1) * fs + 8 * k + off, src, ssq + fs + k + off, 8, 8, 4);
        }
        return;
    }
    /* b8: 2 fractals 16 x 32, square 32 x 32; b16: 1 fractal 16 x 16, square 16 x 16 */
    unsigned es = p->esize == 0 ? 1 : 2;
    uint64_t nf = p->esize == 0 ? 2 : 1, f0 = 16, f1 = p->esize == 0 ? 32 : 16, sq0 = f1;
    uint64_t fs = f0 * f1, sqs = fs * nf, src_addr = p->start * sqs;
    for (uint64_t i = 0; i < p->repeat; i++) {
        uint64_t ssq = src_addr + p->srcstride * i * sqs, dsq = (p->dstgap + 1) * i * fs;
        for (uint64_t j = 0; j < nf; j++) {
            uint64_t dfr = dsq + fs * (p->fracgap + 1) * j;
            for (uint64_t k = 0; k < f0; k++) slice(dst, dfr + k * f1, src, ssq + j * f0 + k, f1, sq0, es);
        }
    }
}

static void check_case(Env *e, const P *p)
{
    AscBuf db = p->l0b ? ASC_BUF_L0B : ASC_BUF_L0A;
    uint32_t l1n = e->ctx.mem[ASC_BUF_L1].size, dn = e->ctx.mem[db].size;
    for (uint32_t i = 0; i < l1n; i++) e->buf[ASC_BUF_L1][i] = (uint8_t)rnd(e);
    for (uint32_t i = 0; i < dn; i++) e->buf[db][i] = (uint8_t)(i * 7 + 3);
    uint8_t *want = malloc(dn);
    memcpy(want, e->buf[db], dn);
    reference(p, e->buf[ASC_BUF_L1] + p->src, want + p->dst);
    AscIssued q = issue(p);
    AscExecStats st;
    ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    ck_assert_uint_eq(st.bytes, p->repeat * (p->esize == 1 ? 512 : 1024));
    ck_assert_uint_eq(st.dst_buf, db);
    for (uint32_t i = 0; i < dn; i++)
        ck_assert_msg(e->buf[db][i] == want[i], "esize %u l0b %d start %llu repeat %llu: byte %u got 0x%02x want 0x%02x",
                      p->esize, p->l0b, (unsigned long long)p->start, (unsigned long long)p->repeat, i, e->buf[db][i],
                      want[i]);
    free(want);
}

START_TEST(reference_model_all_sizes)
{
    Env e;
    env_init(&e);
    /* the documentation's figures (repeat 3, srcStride 1, dstGap 1 / 0, dstFracGap 0 / 2),
     * a start index, strides of 0 and 2, and random ones */
    P fixed[] = {
        {2, false, 0, 3, 1, 1, 0, 0, 0},     {2, false, 0, 3, 1, 0, 2, 0, 0},   {0, false, 0, 3, 1, 1, 0, 0, 0},
        {0, true, 0, 3, 1, 0, 2, 0, 0},      {1, false, 0, 3, 1, 0, 0, 0, 0},   {2, true, 1, 2, 0, 3, 5, 96, 1024},
        {0, false, 2, 2, 2, 2, 1, 32, 512},  {1, true, 3, 4, 2, 1, 7, 64, 2048}, {2, false, 0, 1, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_case(&e, &fixed[i]);
    for (int t = 0; t < 60; t++) {
        P p = {(unsigned)(rnd(&e) % 3), rnd(&e) & 1, rnd(&e) % 9, 1 + rnd(&e) % 12, rnd(&e) % 4, rnd(&e) % 4,
               rnd(&e) % 5, (rnd(&e) % 64) * 32, (rnd(&e) % 8) * 512};
        check_case(&e, &p);
    }
    env_free(&e);
}
END_TEST

static float fval(unsigned a, unsigned b)
{
    return (float)(a * 1000 + b) + 0.25f;
}

/* The matrix meaning: K x M (resp. K x N) f32 in L1 as 16-row blocks of consecutive 16 x 8
 * fractals (block kb, fractal cb at (kb * C/8 + cb) * 512), C padded to 16. */
START_TEST(b32_matrix_transposes)
{
    Env e;
    env_init(&e);
    const unsigned K = 48, C = 32, Kb = K / 16, Cf = C / 8; /* C columns (M of A, N of B) */
    float *l1 = (float *)e.buf[ASC_BUF_L1];
    for (unsigned k = 0; k < K; k++)
        for (unsigned c = 0; c < C; c++) l1[((k / 16) * Cf + c / 8) * 128 + (k % 16) * 8 + c % 8] = fval(k, c);
    AscExecStats st;
    /* A stored K x M -> L0A ZZ of M x K: per 16-row block of M, repeat over K squares
     * (Kf = K/8 fractals per ZZ row: dstGap 1, dstFracGap 0, srcStride M/16 squares) */
    for (unsigned mb = 0; mb < C / 16; mb++) {
        P p = {2, false, 0, Kb, C / 16, 1, 0, mb * 1024, mb * (K / 8) * 512};
        AscIssued q = issue(&p);
        ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    }
    const float *l0a = (const float *)e.buf[ASC_BUF_L0A];
    for (unsigned m = 0; m < C; m++)
        for (unsigned k = 0; k < K; k++)
            ck_assert_msg(l0a[((m / 16) * (K / 8) + k / 8) * 128 + (m % 16) * 8 + k % 8] == fval(k, m),
                          "L0A A(%u, %u)", m, k);
    /* B stored K x N -> L0B ZN (fractal (k/8, n/16), element (n%16)*8 + k%8): per 16-row K
     * block, repeat over N squares (srcStride 1, dstGap 0, dstFracGap Nf - 1) */
    unsigned nf = C / 16;
    for (unsigned kb = 0; kb < Kb; kb++) {
        P p = {2, true, kb * nf, nf, 1, 0, nf - 1, 0, kb * 2 * nf * 512};
        AscIssued q = issue(&p);
        ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    }
    const float *l0b = (const float *)e.buf[ASC_BUF_L0B];
    for (unsigned k = 0; k < K; k++)
        for (unsigned n = 0; n < C; n++)
            ck_assert_msg(l0b[((k / 8) * nf + n / 16) * 128 + (n % 16) * 8 + k % 8] == fval(k, n), "L0B B(%u, %u)",
                          k, n);
    env_free(&e);
}
END_TEST

static void expect_fault(Env *e, const AscIssued *q, const char *needle)
{
    AscExecStats st;
    ck_assert_msg(!run(e, q, &st), "expected a fault containing '%s'", needle);
    ck_assert_msg(strstr(e->ctx.fault, needle) != NULL, "fault '%s' lacks '%s'", e->ctx.fault, needle);
}

START_TEST(faults_and_noop)
{
    Env e;
    env_init(&e);
    memset(e.buf[ASC_BUF_L0A], 0x5a, 4096);
    P ok = {2, false, 0, 2, 1, 0, 0, 0, 0};
    AscIssued q = issue(&ok);
    q.rs3 |= 3ull << 56;
    expect_fault(&e, &q, "esize 3 is reserved");
    q = issue(&ok);
    q.rs3 |= 1ull << 60;
    expect_fault(&e, &q, "reserved");
    q = issue(&ok);
    q.rs2 |= 1ull << 20;
    expect_fault(&e, &q, "reserved");
    q = issue(&ok);
    q.rd = 256; /* L0A needs 512 B */
    expect_fault(&e, &q, "align");
    q = issue(&ok);
    q.rs1 = 16; /* L1 needs 32 B */
    expect_fault(&e, &q, "align");
    P far = {2, false, 0, 2, 1, 0, 0, e.ctx.mem[ASC_BUF_L1].size - 1024, 0};
    q = issue(&far);
    expect_fault(&e, &q, "outside L1");
    P wide = {2, true, 0, 2, 0, 0, 200, 0, e.ctx.mem[ASC_BUF_L0B].size - 1024};
    q = issue(&wide);
    expect_fault(&e, &q, "outside L0B");
    for (int i = 0; i < 4096; i++) ck_assert_uint_eq(e.buf[ASC_BUF_L0A][i], 0x5a);
    P none = {2, false, 0, 0, 1, 0, 0, 0, 0}; /* repeatTimes 0: NOP */
    q = issue(&none);
    AscExecStats st;
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert_uint_eq(e.buf[ASC_BUF_L0A][0], 0x5a);
    env_free(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_load2dt");
    TCase *tc = tcase_create("exec_load2dt");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, reference_model_all_sizes);
    tcase_add_test(tc, b32_matrix_transposes);
    tcase_add_test(tc, faults_and_noop);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
