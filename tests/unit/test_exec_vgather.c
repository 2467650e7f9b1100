/* test_exec_vgather.c -- vgather.b16/.b32 and vgatherb (sim/exec_vgather.c)
 * against a naive reference written from the ISA table's description: random
 * offsets (repeated, any order), normal masks with holes, counter mode with a
 * partial last repeat, block strides (vgatherb's 0 taken as 1), the bank cost
 * of a repeat, and every fault (misaligned or out-of-UB source, bad offset
 * block) leaving UB untouched. */
#include <check.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "ub_env.h"
#include "check_main.h"

typedef UbEnv Env;

static uint32_t rndn(Env *e, uint32_t n) { return ub_env_rndn(e, n); }

static void env_init(Env *e) { ub_env_init(e, 99); }

static uint64_t vcfg(unsigned repeat, unsigned dblk, unsigned drep)
{
    return ((uint64_t)repeat << 56) | ((uint64_t)drep << 24) | dblk;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* the reference: lane i of repeat r is active per mask bits or count */
static void ref_gather(Env *e, const AscIssued *q, unsigned size, bool counter)
{
    unsigned lanes = 256 / size, epb = 32 / size, R = (unsigned)(q->rs3 >> 56);
    uint64_t blk = (q->rs3 & 0xff) * 32, rep = ((q->rs3 >> 24) & 0xff) * 32;
    if (counter) R = (unsigned)((q->mask0 + lanes - 1) / lanes);
    for (unsigned r = 0; r < R; r++)
        for (unsigned i = 0; i < lanes; i++) {
            bool on = counter ? (uint64_t)r * lanes + i < q->mask0
                              : ((i < 64 ? q->mask0 >> i : q->mask1 >> (i - 64)) & 1);
            if (!on) continue;
            uint32_t off;
            memcpy(&off, e->ref + q->rs1 + 4 * (r * lanes + i), 4);
            memcpy(e->ref + q->rd + r * rep + (i / epb) * blk + (i % epb) * size, e->ref + q->rs2 + off, size);
        }
}

static void fill_offsets(Env *e, uint64_t at, unsigned n, unsigned size, unsigned span, unsigned unit)
{
    for (unsigned k = 0; k < n; k++) {
        uint32_t v = rndn(e, span / unit) * unit;
        (void)size;
        put32(e->ub + at + 4 * k, v);
        put32(e->ref + at + 4 * k, v);
    }
}

START_TEST(gather_random)
{
    Env e;
    env_init(&e);
    for (int t = 0; t < 200; t++) {
        bool b32 = rndn(&e, 2), counter = rndn(&e, 2);
        unsigned size = b32 ? 4 : 2, lanes = 256 / size;
        AscIssued q;
        memset(&q, 0, sizeof q);
        q.in.op = b32 ? ASC_OP_VGATHER_B32 : ASC_OP_VGATHER_B16;
        unsigned R = 1 + rndn(&e, 4);
        q.rs1 = 0x10000;                      /* offsets */
        q.rs2 = 0x100 + size * rndn(&e, 64);  /* source base, element aligned */
        q.rd = 0x20000;
        q.rs3 = vcfg(R, 1 + rndn(&e, 2), 8 + 8 * rndn(&e, 3));
        if (counter) {
            q.ctrl = 1ull << ASC_CTRL_COUNTER_BIT;
            q.mask0 = 1 + rndn(&e, R * lanes);
        } else {
            q.mask0 = ((uint64_t)rndn(&e, 1u << 31) << 33) ^ rndn(&e, 1u << 31);
            q.mask1 = b32 ? 0 : ((uint64_t)rndn(&e, 1u << 31) << 17) ^ rndn(&e, 1u << 31);
        }
        fill_offsets(&e, q.rs1, R * lanes, size, 0x8000, size);
        AscExecStats st;
        memset(&st, 0, sizeof st);
        ck_assert_msg(asc_exec_VGATHER(&e.ctx, &q, b32 ? ASC_DT_U32 : ASC_DT_U16, ASC_DT_NONE, &st), "%s", e.ctx.fault);
        ref_gather(&e, &q, size, counter);
        ck_assert_msg(memcmp(e.ub, e.ref, e.n) == 0, "trial %d differs from the reference", t);
        unsigned want_rep = counter ? (unsigned)((q.mask0 + lanes - 1) / lanes) : R;
        ck_assert_uint_eq(st.repeats, want_rep);
        ck_assert(st.beats >= st.repeats * (uint32_t)e.cfg.v[ASC_KEY_VEC_BASE_BEATS]);
    }
    free(e.ub);
    free(e.ref);
}
END_TEST

START_TEST(gatherb_strides)
{
    Env e;
    env_init(&e);
    for (int t = 0; t < 50; t++) {
        unsigned R = 1 + rndn(&e, 6), blk = rndn(&e, 3), rep = 8 + rndn(&e, 20);
        AscIssued q;
        memset(&q, 0, sizeof q);
        q.in.op = ASC_OP_VGATHERB;
        q.rd = 0x20000, q.rs1 = 0x10000, q.rs2 = 0x400;
        q.rs3 = vcfg(R, blk, rep);
        fill_offsets(&e, q.rs1, 8 * R, 4, 0x4000, 32);
        AscExecStats st;
        memset(&st, 0, sizeof st);
        ck_assert_msg(asc_exec_VGATHERB(&e.ctx, &q, ASC_DT_U32, ASC_DT_NONE, &st), "%s", e.ctx.fault);
        for (unsigned r = 0; r < R; r++)
            for (unsigned j = 0; j < 8; j++) {
                uint32_t off;
                memcpy(&off, e.ref + q.rs1 + 4 * (8 * r + j), 4);
                memcpy(e.ref + q.rd + 32 * (r * rep + j * (blk ? blk : 1)), e.ref + q.rs2 + off, 32);
            }
        ck_assert_msg(memcmp(e.ub, e.ref, e.n) == 0, "trial %d differs", t);
        ck_assert_uint_eq(st.repeats, R);
    }
    free(e.ub);
    free(e.ref);
}
END_TEST

static void expect_fault(Env *e, const AscIssued *q, const char *want)
{
    AscExecStats st;
    memset(&st, 0, sizeof st);
    bool ok = q->in.op == ASC_OP_VGATHERB ? asc_exec_VGATHERB(&e->ctx, q, ASC_DT_U32, ASC_DT_NONE, &st)
                                          : asc_exec_VGATHER(&e->ctx, q, ASC_DT_U32, ASC_DT_NONE, &st);
    ck_assert(!ok);
    ck_assert_msg(strstr(e->ctx.fault, want) != NULL, "fault '%s' lacks '%s'", e->ctx.fault, want);
    ck_assert_msg(memcmp(e->ub, e->ref, e->n) == 0, "a faulting gather wrote UB");
}

START_TEST(gather_faults)
{
    Env e;
    env_init(&e);
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VGATHER_B32;
    q.rd = 0x20000, q.rs1 = 0x10000, q.rs2 = 0;
    q.rs3 = vcfg(1, 1, 8);
    q.mask0 = ~0ull;
    for (unsigned k = 0; k < 64; k++) put32(e.ub + q.rs1 + 4 * k, 4 * k), put32(e.ref + q.rs1 + 4 * k, 4 * k);
    put32(e.ub + q.rs1 + 4 * 9, 6), put32(e.ref + q.rs1 + 4 * 9, 6);
    expect_fault(&e, &q, "vgather lane 9 of repeat 0: source 0x6");
    put32(e.ub + q.rs1 + 4 * 9, 0xfffffff0u), put32(e.ref + q.rs1 + 4 * 9, 0xfffffff0u);
    expect_fault(&e, &q, "UB read of src [0xfffffff0, 0xfffffff4) is outside UB");
    q.mask0 = ~0ull & ~(1ull << 9); /* the bad lane inactive: it is neither read nor checked */
    AscExecStats st;
    memset(&st, 0, sizeof st);
    ck_assert_msg(asc_exec_VGATHER(&e.ctx, &q, ASC_DT_U32, ASC_DT_NONE, &st), "%s", e.ctx.fault);
    memcpy(e.ref, e.ub, e.n);
    q.in.op = ASC_OP_VGATHERB;
    for (unsigned k = 0; k < 8; k++) put32(e.ub + q.rs1 + 4 * k, 32 * k), put32(e.ref + q.rs1 + 4 * k, 32 * k);
    put32(e.ub + q.rs1 + 4 * 3, 48), put32(e.ref + q.rs1 + 4 * 3, 48);
    expect_fault(&e, &q, "vgatherb block 3 of repeat 0: offset 48 is not a multiple of 32 B");
    free(e.ub);
    free(e.ref);
}
END_TEST

/* Repeats run in order, so a dst block that holds an offset of a later repeat
 * would change that offset after it was checked: the gathered values here
 * (0xffffffe0) would send repeat 1 far outside UB.  It faults up front, and
 * a dst just past the offsets (the usual layout) runs. */
START_TEST(gather_dst_over_later_offsets)
{
    Env e;
    env_init(&e);
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VGATHER_B32;
    q.rs1 = 0x10000, q.rs2 = 0x20000, q.rd = 0x10100; /* dst of repeat 0 = offsets of repeat 1 */
    q.rs3 = vcfg(2, 1, 8);
    q.mask0 = ~0ull;
    for (unsigned k = 0; k < 128; k++) put32(e.ub + q.rs1 + 4 * k, 0), put32(e.ref + q.rs1 + 4 * k, 0);
    put32(e.ub + q.rs2, 0xffffffe0u), put32(e.ref + q.rs2, 0xffffffe0u);
    expect_fault(&e, &q, "vgather: dst block 0 of repeat 0 [0x10100, 0x10120) overlaps the offsets of later repeat 1");
    q.rd = 0x10200;
    AscExecStats st;
    memset(&st, 0, sizeof st);
    ck_assert_msg(asc_exec_VGATHER(&e.ctx, &q, ASC_DT_U32, ASC_DT_NONE, &st), "%s", e.ctx.fault);
    ck_assert_uint_eq(st.repeats, 2);
    memcpy(e.ref, e.ub, e.n);

    q.in.op = ASC_OP_VGATHERB;
    q.rd = 0x10020; /* dst block 0 of repeat 0 = the 8 offsets of repeat 1 */
    for (unsigned k = 0; k < 16; k++) put32(e.ub + q.rs1 + 4 * k, 0), put32(e.ref + q.rs1 + 4 * k, 0);
    expect_fault(&e, &q, "vgatherb: dst block 0 of repeat 0 [0x10020, 0x10040) overlaps the offsets of later repeat 1");
    free(e.ub);
    free(e.ref);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_vgather");
    TCase *tc = tcase_create("exec_vgather");
    tcase_add_test(tc, gather_random);
    tcase_add_test(tc, gatherb_strides);
    tcase_add_test(tc, gather_faults);
    tcase_add_test(tc, gather_dst_over_later_offsets);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
