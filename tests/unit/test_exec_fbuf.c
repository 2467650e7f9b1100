/* test_exec_fbuf.c -- the fixpipe buffer: mov_l1_to_fb (exec_fbuf.c) and the
 * per-column quantisation of fix_l0c_to_out.q reading its vector from FB
 * (exec_cube.c).
 *
 * References are written here from the Ascend C documentation the exec files
 * cite (L1ToFixpipe-Buffer DataCopy: bursts of 128 B blocks, start-to-start
 * gaps; VDEQF16: f16(clamp(f32(x) * M)), M the 1-8-10 float of p[31:13]),
 * with exec_ref.h's rounding, never with the simulator's helpers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "exec_ref.h"
#include "check_main.h"

typedef struct Env {
    AscConfig cfg;
    AscExecCtx ctx;
    uint8_t *buf[ASC_BUF_COUNT];
} Env;

static void env_init(Env *e)
{
    memset(e, 0, sizeof *e);
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_config_builtin(&e->cfg, "ascend910b", &d));
    asc_diags_free(&d);
    const AscConfig *c = &e->cfg;
    struct { AscBuf b; int64_t size, align; } t[] = {
        {ASC_BUF_L1, c->v[ASC_KEY_L1_BYTES], c->v[ASC_KEY_L1_ALIGN]},
        {ASC_BUF_L0C, c->v[ASC_KEY_L0C_BYTES], c->v[ASC_KEY_L0C_ALIGN]},
        {ASC_BUF_FB, c->v[ASC_KEY_FB_BYTES], c->v[ASC_KEY_FB_ALIGN]},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        e->buf[t[i].b] = calloc((size_t)t[i].size, 1);
        e->ctx.mem[t[i].b] = (AscMem){e->buf[t[i].b], (uint32_t)t[i].size, (uint32_t)t[i].align};
    }
    e->ctx.cfg = &e->cfg;
    e->ctx.gm = asc_gm_new(NULL, (uint64_t)c->v[ASC_KEY_GM_BYTES]);
    ck_assert(e->ctx.gm != NULL);
}

static void env_free(Env *e)
{
    for (int i = 0; i < ASC_BUF_COUNT; i++) free(e->buf[i]);
    asc_gm_free(e->ctx.gm);
}

static AscIssued issue(AscOp op, uint64_t rd, uint64_t rs1, uint64_t rs2)
{
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = (uint16_t)op;
    q.rd = rd;
    q.rs1 = rs1;
    q.rs2 = rs2;
    return q;
}

static bool run(Env *e, const AscIssued *q, AscExecStats *st)
{
    const AscInsnInfo *ii = &asc_insn_info[q->in.op];
    memset(st, 0, sizeof *st);
    e->ctx.fault[0] = 0;
    AscDtype d0 = (AscDtype)ii->dt0, d1 = (AscDtype)ii->dt1;
    if (!strcmp(ii->fam, "FBCOPY")) return asc_exec_FBCOPY(&e->ctx, q, d0, d1, st);
    if (!strcmp(ii->fam, "FIXPIPE")) return asc_exec_FIXPIPE(&e->ctx, q, d0, d1, st);
    ck_abort_msg("not an FB op: %s", ii->mnemonic);
    return false;
}

static void expect_fault(Env *e, const AscIssued *q, const char *needle)
{
    AscExecStats st;
    ck_assert_msg(!run(e, q, &st), "expected a fault containing '%s'", needle);
    ck_assert_msg(strstr(e->ctx.fault, needle) != NULL, "fault '%s' lacks '%s'", e->ctx.fault, needle);
}

static uint64_t fbc(uint64_t nburst, uint64_t len, uint64_t sgap, uint64_t dgap)
{
    return nburst | len << 16 | sgap << 32 | dgap << 48;
}

START_TEST(fb_copy)
{
    Env e;
    env_init(&e);
    uint8_t *l1 = e.buf[ASC_BUF_L1], *fb = e.buf[ASC_BUF_FB];
    for (unsigned i = 0; i < 8192; i++) l1[i] = (uint8_t)(i * 13 + 5);
    memset(fb, 0xcc, e.ctx.mem[ASC_BUF_FB].size);
    /* 3 bursts of 1 block (128 B): L1 start-to-start 5 x 32 B, FB start-to-start 2 x 128 B */
    AscIssued q = issue(ASC_OP_MOV_L1_TO_FB, 128, 64, fbc(3, 1, 5, 2));
    AscExecStats st;
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert_uint_eq(st.bytes, 3 * 128);
    ck_assert_uint_eq(st.bursts, 3);
    ck_assert_uint_eq(st.src_buf, ASC_BUF_L1);
    ck_assert_uint_eq(st.dst_buf, ASC_BUF_FB);
    for (unsigned k = 0; k < 3; k++) {
        ck_assert(memcmp(fb + 128 + k * 256, l1 + 64 + k * 160, 128) == 0);
        ck_assert_uint_eq(fb[128 + k * 256 + 128], 0xcc); /* the gap block is untouched */
    }
    ck_assert_uint_eq(fb[127], 0xcc);
    /* srcGap 0 re-reads the first burst; dstGap 0 overwrites the first (the last burst wins) */
    memset(fb, 0, 1024);
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 0, fbc(2, 2, 0, 4));
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert(memcmp(fb, l1, 256) == 0 && memcmp(fb + 512, l1, 256) == 0);
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 0, fbc(2, 1, 8, 0));
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert(memcmp(fb, l1 + 256, 128) == 0);
    /* the whole FB in one burst: 7168 B = 56 blocks */
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 1024, fbc(1, 56, 0, 0));
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert(memcmp(fb, l1 + 1024, 7168) == 0);
    /* blockCount or blockLen 0: a no-op */
    memset(fb, 0x5a, 256);
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 0, fbc(0, 1, 0, 0));
    ck_assert(run(&e, &q, &st) && st.bytes == 0 && fb[0] == 0x5a);
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 0, fbc(1, 0, 0, 0));
    ck_assert(run(&e, &q, &st) && st.bytes == 0 && fb[0] == 0x5a);
    env_free(&e);
}
END_TEST

START_TEST(fb_copy_faults)
{
    Env e;
    env_init(&e);
    memset(e.buf[ASC_BUF_FB], 0x77, 7168);
    AscIssued q = issue(ASC_OP_MOV_L1_TO_FB, 7168 - 128, 0, fbc(1, 2, 0, 0)); /* one block past the end */
    expect_fault(&e, &q, "outside FB");
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 0, fbc(3, 1, 0, 28)); /* burst 2 at 7168 */
    expect_fault(&e, &q, "outside FB");
    q = issue(ASC_OP_MOV_L1_TO_FB, 64, 0, fbc(1, 1, 0, 0));
    expect_fault(&e, &q, "multiples of 128 B");
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 16, fbc(1, 1, 0, 0));
    expect_fault(&e, &q, "multiples of 32 B");
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 524288 - 64, fbc(1, 1, 0, 0));
    expect_fault(&e, &q, "outside L1");
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 0, fbc(1, 1, 0, 0) | 1ull << 12); /* reserved bit */
    expect_fault(&e, &q, "FBC");
    for (unsigned i = 0; i < 7168; i++) ck_assert_uint_eq(e.buf[ASC_BUF_FB][i], 0x77); /* nothing written */
    /* a core without FB (an AIV) */
    e.ctx.mem[ASC_BUF_FB].size = 0;
    q = issue(ASC_OP_MOV_L1_TO_FB, 0, 0, fbc(1, 1, 0, 0));
    expect_fault(&e, &q, "this core has no FB");
    e.ctx.mem[ASC_BUF_FB].size = 7168;
    env_free(&e);
}
END_TEST

/* fix_l0c_to_out.q config: n, quant mode, m (srcstride, dststride 0) */
static uint64_t fixq_cfg(uint64_t m, uint64_t n, unsigned mode) { return n | (uint64_t)mode << 12 | m << 16; }

/* C(r, c) of an s32 L0C in NZ with Mf = ceil(m/16) */
static int32_t *l0c_at(Env *e, unsigned m, unsigned r, unsigned c)
{
    unsigned mf = (m + 15) / 16;
    return (int32_t *)(e->buf[ASC_BUF_L0C] + (((c / 16) * mf * 16 + r) * 16 + c % 16) * 4);
}

/* VDEQF16 (mode 2) from FB at every width 1..256 class, the vector at a non-zero FB address */
START_TEST(fixq_reads_fb)
{
    static const unsigned ns[] = {1, 17, 255, 256};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        Env e;
        env_init(&e);
        unsigned m = 3, n = ns[t];
        for (unsigned r = 0; r < m; r++)
            for (unsigned c = 0; c < n; c++) *l0c_at(&e, m, r, c) = (int32_t)(r * 1000 + c * 7) - 900;
        /* scale of column c: 2^(c % 5 - 2) * (1 + (c % 3) / 4), exact in the 1-8-10 float */
        uint64_t fbaddr = 1024;
        double sc[256];
        for (unsigned c = 0; c < n; c++) {
            sc[c] = ldexp(1.0 + (c % 3) / 4.0, (int)(c % 5) - 2);
            float f = (float)sc[c];
            uint32_t bits;
            memcpy(&bits, &f, 4);
            uint64_t p = bits;
            memcpy(e.buf[ASC_BUF_L1] + 2048 + c * 8, &p, 8);
        }
        /* L1 -> FB: ceil(8 n / 128) blocks, as Ascend C's CopyDeqTensorToFbuf */
        AscIssued cp = issue(ASC_OP_MOV_L1_TO_FB, fbaddr, 2048, fbc(1, (8 * n + 127) / 128, 0, 0));
        AscExecStats st;
        ck_assert_msg(run(&e, &cp, &st), "%s", e.ctx.fault);
        /* a different vector left in L1 must not be read any more */
        memset(e.buf[ASC_BUF_L1] + 2048, 0, 8 * n);
        uint64_t dst = 0x100000;
        AscIssued q = issue(ASC_OP_FIX_L0C_TO_OUT_Q, dst, 0, fixq_cfg(m, n, 2));
        q.fpc = (fbaddr / 128) << 8 | 1ull << 63;
        ck_assert_msg(run(&e, &q, &st), "n=%u: %s", n, e.ctx.fault);
        ck_assert_uint_eq(st.bytes, (uint64_t)m * n * 2);
        uint16_t out[3 * 256];
        ck_assert(asc_gm_read(e.ctx.gm, dst, out, (size_t)m * n * 2));
        for (unsigned r = 0; r < m; r++)
            for (unsigned c = 0; c < n; c++) {
                double x = (double)*l0c_at(&e, m, r, c) * sc[c]; /* exact: small int times a short scale */
                ck_assert_msg(out[r * n + c] == ref_to_half(x, 0), "n=%u (%u, %u): 0x%04x != 0x%04x", n, r, c,
                              out[r * n + c], ref_to_half(x, 0));
            }
        env_free(&e);
    }
}
END_TEST

START_TEST(fixq_fb_faults)
{
    Env e;
    env_init(&e);
    float one = 1.0f;
    uint32_t bits;
    memcpy(&bits, &one, 4);
    for (unsigned c = 0; c < 300; c++) memcpy(e.buf[ASC_BUF_FB] + c * 8, &(uint64_t){bits}, 8);
    AscIssued q = issue(ASC_OP_FIX_L0C_TO_OUT_Q, 0x100000, 0, fixq_cfg(16, 16, 4));
    expect_fault(&e, &q, "SPR fpc (FB address of the vector in bits 15:8) was not written");
    q.fpc = 1ull << 63 | 0x40; /* bits 7:0, the ReLU-pre address */
    expect_fault(&e, &q, "only bits 15:8");
    q.fpc = 1ull << 63 | 1ull << 20;
    expect_fault(&e, &q, "only bits 15:8");
    q.fpc = 1ull << 63 | (7168 / 128 - 1) << 8; /* the last FB block: 16 columns need 128 B: fits */
    AscExecStats st;
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    q.rs2 = fixq_cfg(16, 17, 4); /* 17 columns: 8 B past the end */
    expect_fault(&e, &q, "outside FB");
    q.fpc = 1ull << 63;
    q.rs2 = fixq_cfg(16, 257, 6);
    expect_fault(&e, &q, "at most 256 per instruction");
    q.rs2 = fixq_cfg(16, 256, 6);
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    env_free(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_fbuf");
    TCase *tc = tcase_create("exec_fbuf");
    tcase_add_test(tc, fb_copy);
    tcase_add_test(tc, fb_copy_faults);
    tcase_add_test(tc, fixq_reads_fb);
    tcase_add_test(tc, fixq_fb_faults);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
