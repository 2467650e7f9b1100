/* test_exec_vsort.c -- vbitsort and vmrgsort4 (sim/exec_vsort.c) against the
 * naive references of exec_ref.h: random scores with many ties (f16 and f32,
 * NaN and -0 included), several repeats; merges of 2, 3 and 4 lists of
 * different lengths (0 included), with and without exhausted suspension,
 * VMS4_SR; the repeat form; and every fault leaving UB untouched. */
#include <check.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "ub_env.h"
#include "check_main.h"
#include "exec_ref.h"

typedef UbEnv Env;

static uint32_t rndn(Env *e, uint32_t n) { return ub_env_rndn(e, n); }

static void env_init(Env *e) { ub_env_init(e, 7); }

static void env_free(Env *e) { ub_env_free(e); }

/* a score from a small set so ties are common; f16 bits or f32 bits */
static void put_score(Env *e, uint8_t *p, bool f16)
{
    static const float vals[] = {1.5f, -2.0f, 0.0f, -0.0f, 7.25f, 1.5f, -1e3f, 3.0f};
    uint32_t k = rndn(e, 9);
    if (f16) {
        uint16_t h = k == 8 ? 0x7e00 : asc_f32_to_f16(vals[k]);
        memcpy(p, &h, 2);
    } else {
        float f = k == 8 ? NAN : vals[k];
        memcpy(p, &f, 4);
    }
}

START_TEST(sort32_random)
{
    Env e;
    env_init(&e);
    for (int t = 0; t < 40; t++) {
        bool f16 = t & 1;
        unsigned size = f16 ? 2 : 4, R = 1 + rndn(&e, 6);
        uint64_t sc = 0x1000, ix = 0x3000, dst = 0x8000 + 32 * rndn(&e, 8);
        for (unsigned i = 0; i < 32 * R; i++) put_score(&e, e.ub + sc + i * size, f16);
        memcpy(e.ref, e.ub, e.n);
        ref_sort32(e.ref, dst, sc, ix, R, f16);
        AscIssued q;
        memset(&q, 0, sizeof q);
        q.rd = dst, q.rs1 = sc, q.rs2 = ix, q.rs3 = R;
        AscExecStats st;
        memset(&st, 0, sizeof st);
        ck_assert_msg(asc_exec_VBITSORT(&e.ctx, &q, f16 ? ASC_DT_F16 : ASC_DT_F32, ASC_DT_NONE, &st), "%s", e.ctx.fault);
        ck_assert_msg(memcmp(e.ub, e.ref, e.n) == 0, "trial %d differs from the reference", t);
        ck_assert_uint_eq(st.repeats, R);
    }
    env_free(&e);
}
END_TEST

/* a descending list of n elements at a (scores with ties, indices = tag*1000 + i) */
static void put_list(Env *e, uint64_t a, unsigned n, bool f16, unsigned tag)
{
    static const float vals[] = {9.0f, 7.5f, 7.5f, 3.0f, 1.0f, 0.0f, -2.0f, -2.0f, -8.0f};
    float v = 10.0f;
    for (unsigned i = 0; i < n; i++) {
        unsigned k = rndn(e, 9);
        if (vals[k] < v) v = vals[k];
        if (rndn(e, 3) == 0) v -= 0.5f;
        memset(e->ub + a + 8 * i, 0, 8);
        if (f16) {
            uint16_t h = asc_f32_to_f16(v);
            memcpy(e->ub + a + 8 * i, &h, 2);
        } else {
            memcpy(e->ub + a + 8 * i, &v, 4);
        }
        uint32_t idx = tag * 1000 + i;
        memcpy(e->ub + a + 8 * i + 4, &idx, 4);
    }
}

START_TEST(mrgsort_random)
{
    Env e;
    env_init(&e);
    for (int t = 0; t < 60; t++) {
        bool f16 = t & 1, stop = (t >> 1) & 1;
        unsigned valid = (unsigned[]){3, 7, 15}[t % 3], nl = valid == 3 ? 2 : valid == 7 ? 3 : 4;
        uint64_t a[4];
        unsigned n[4] = {0, 0, 0, 0};
        for (unsigned k = 0; k < 4; k++) {
            a[k] = 0x800 + 0x1000 * k + 8 * rndn(&e, 16);
            if (k < nl) n[k] = rndn(&e, 5) == 0 ? 0 : 1 + rndn(&e, 300);
            put_list(&e, a[k], n[k], f16, k + 1);
        }
        uint64_t dst = 0x10000;
        memcpy(e.ref, e.ub, e.n);
        unsigned used[4];
        uint64_t w = ref_mrgsort(e.ref, dst, a, n, nl, stop, f16, used);
        AscIssued q;
        memset(&q, 0, sizeof q);
        q.rd = dst;
        for (unsigned k = 0; k < 4; k++) {
            q.rs1 |= (a[k] / 8) << (16 * k);
            q.rs2 |= (uint64_t)n[k] << (16 * k);
        }
        q.rs3 = 1 | (uint64_t)valid << 8 | (uint64_t)stop << 12;
        AscExecStats st;
        memset(&st, 0, sizeof st);
        ck_assert_msg(asc_exec_VMRGSORT4(&e.ctx, &q, f16 ? ASC_DT_F16 : ASC_DT_F32, ASC_DT_NONE, &st), "%s",
                      e.ctx.fault);
        ck_assert_msg(memcmp(e.ub, e.ref, e.n) == 0, "trial %d differs from the reference", t);
        for (unsigned k = 0; k < 4; k++) ck_assert_uint_eq((e.ctx.vms4_sr >> (16 * k)) & 0xffff, used[k]);
        ck_assert_uint_eq(st.bytes, 8 * w);
        if (!stop) ck_assert_uint_eq(w, n[0] + n[1] + n[2] + n[3]);
    }
    env_free(&e);
}
END_TEST

START_TEST(mrgsort_repeat)
{
    Env e;
    env_init(&e);
    unsigned L = 32, R = 3;
    uint64_t a0 = 0x2000, dst = 0x10000;
    for (unsigned r = 0; r < R; r++)
        for (unsigned k = 0; k < 4; k++) put_list(&e, a0 + 8 * L * (4 * r + k), L, false, 4 * r + k);
    memcpy(e.ref, e.ub, e.n);
    for (unsigned r = 0; r < R; r++) {
        uint64_t a[4];
        unsigned n[4] = {L, L, L, L}, used[4];
        for (unsigned k = 0; k < 4; k++) a[k] = a0 + 8 * L * (4 * r + k);
        ref_mrgsort(e.ref, dst + 8 * 4 * L * r, a, n, 4, false, false, used);
    }
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.rd = dst;
    for (unsigned k = 0; k < 4; k++) {
        q.rs1 |= ((a0 + 8 * L * k) / 8) << (16 * k);
        q.rs2 |= (uint64_t)L << (16 * k);
    }
    q.rs3 = R | 15u << 8;
    AscExecStats st;
    memset(&st, 0, sizeof st);
    ck_assert_msg(asc_exec_VMRGSORT4(&e.ctx, &q, ASC_DT_F32, ASC_DT_NONE, &st), "%s", e.ctx.fault);
    ck_assert_msg(memcmp(e.ub, e.ref, e.n) == 0, "repeat form differs from the reference");
    ck_assert_uint_eq(st.repeats, R * 4 * L * 8 / 256);
    env_free(&e);
}
END_TEST

static void expect_fault(Env *e, bool merge, const AscIssued *q, const char *want)
{
    memcpy(e->ref, e->ub, e->n);
    AscExecStats st;
    memset(&st, 0, sizeof st);
    bool ok = merge ? asc_exec_VMRGSORT4(&e->ctx, q, ASC_DT_F32, ASC_DT_NONE, &st)
                    : asc_exec_VBITSORT(&e->ctx, q, ASC_DT_F32, ASC_DT_NONE, &st);
    ck_assert(!ok);
    ck_assert_msg(strstr(e->ctx.fault, want) != NULL, "fault '%s' lacks '%s'", e->ctx.fault, want);
    ck_assert_msg(memcmp(e->ub, e->ref, e->n) == 0, "a faulting sort wrote UB");
}

START_TEST(sort_faults)
{
    Env e;
    env_init(&e);
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.rd = 0x100, q.rs1 = 0x1000, q.rs2 = 0x2000, q.rs3 = 1 | 1u << 8;
    expect_fault(&e, false, &q, "vmrgsort4 only");
    q.rs3 = 2, q.rd = e.n - 256;
    expect_fault(&e, false, &q, "outside UB");
    q.rd = 0x104, q.rs3 = 1;
    expect_fault(&e, false, &q, "misaligned");
    memset(&q, 0, sizeof q);
    q.rd = 0x4000, q.rs1 = (0x1000 / 8) | (uint64_t)(0x1100 / 8) << 16, q.rs2 = 4 | 4ull << 16;
    q.rs3 = 1 | 5u << 8;
    expect_fault(&e, true, &q, "must be 3, 7 or 15");
    q.rs3 = 2 | 3u << 8;
    expect_fault(&e, true, &q, "repeatTimes rule");
    q.rs3 = 1 | 3u << 8, q.rd = 0x1100;
    expect_fault(&e, true, &q, "overlaps source list");
    q.rd = 0x4000, q.rs2 = 4096;
    expect_fault(&e, true, &q, "exceeds 4095");
    env_free(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_vsort");
    TCase *tc = tcase_create("exec_vsort");
    tcase_add_test(tc, sort32_random);
    tcase_add_test(tc, mrgsort_random);
    tcase_add_test(tc, mrgsort_repeat);
    tcase_add_test(tc, sort_faults);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
