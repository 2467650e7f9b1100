/* test_sim_engine.c -- the simulator engine: scalar unit (ALU, branches,
 * loads/stores, SPRs), multi-core launch, faults (division by zero, double
 * set_flag, illegal instruction, bad pc, deadlock, max-cycles), determinism
 * (byte-identical reports), event-driven speed (idle cycles cost no host
 * time) and the allocation-free step loop.  Kernels are assembled from
 * strings with the libasc assembler. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "asc/asm.h"
#include "asc/sim.h"

typedef struct Run {
    AscConfig cfg;
    AscImage img;
    AscDiags d;
    AscSim *sim;
    AscSimStatus st;
    char text[4096];
} Run;

/* Assemble `src` for `target`, create a sim of `blocks` cores with the
 * given "key=value" overrides (NULL-terminated), and set x0..: args. */
static void make(Run *r, const char *target, const char *src, uint32_t blocks, const char *const *sets,
                 const AscAlloc *alloc)
{
    memset(r, 0, sizeof *r);
    asc_diags_init(&r->d, NULL);
    ck_assert(asc_config_builtin(&r->cfg, target, &r->d));
    for (; sets && *sets; sets++) ck_assert_msg(asc_config_set(&r->cfg, *sets, &r->d), "%s", *sets);
    AscAsmDesc ad = {.target = target};
    AscAsm *as = asc_asm_new(&ad);
    asc_image_init(&r->img, NULL);
    bool ok = asc_asm_string(as, "k.s", src, strlen(src), &r->img);
    if (!ok) {
        AscDiags *ed = asc_asm_diags(as);
        ck_abort_msg("assembly failed: %s (line %u)", ed->count ? ed->items[0].msg : "?",
                     ed->count ? ed->items[0].loc.line : 0);
    }
    asc_asm_free(as);
    AscSimDesc sd = {.cfg = &r->cfg, .image = &r->img, .blocks = blocks};
    if (alloc) sd.alloc = *alloc;
    r->sim = asc_sim_new(&sd, &r->d);
    ck_assert_msg(r->sim != NULL, "asc_sim_new: %s", r->d.count ? r->d.items[0].msg : "?");
}

static void done(Run *r)
{
    asc_sim_free(r->sim);
    asc_image_free(&r->img);
    asc_diags_free(&r->d);
}

static AscSimStatus run(Run *r, uint64_t max)
{
    r->st = asc_sim_run(r->sim, max);
    if (r->st == ASC_SIM_FAULT) asc_sim_fault_format(r->sim, r->text, sizeof r->text);
    return r->st;
}

static uint64_t gm_u64(Run *r, uint64_t addr)
{
    uint64_t v = 0;
    ck_assert(asc_sim_gm_read(r->sim, addr, &v, 8));
    return v;
}

#define OUT 0x40000000ull

START_TEST(scalar_alu)
{
    /* every result stored to GM at x0 + 8*i */
    static const char src[] =
        ".kernel k, aiv\n.arg out, gm, s64\n"
        "  li x1, 100\n  li x2, -7\n"
        "  add x3, x1, x2\n  st.d x3, 0(x0)\n"       /* 93 */
        "  sub x3, x1, x2\n  st.d x3, 8(x0)\n"       /* 107 */
        "  mul x3, x1, x2\n  st.d x3, 16(x0)\n"      /* -700 */
        "  div x3, x1, x2\n  st.d x3, 24(x0)\n"      /* -14 (toward zero) */
        "  rem x3, x1, x2\n  st.d x3, 32(x0)\n"      /* 2 */
        "  srai x3, x2, 1\n  st.d x3, 40(x0)\n"      /* -4 */
        "  shri x3, x2, 60\n  st.d x3, 48(x0)\n"     /* 15 */
        "  slt x3, x2, x1\n  st.d x3, 56(x0)\n"      /* 1 */
        "  sltu x3, x2, x1\n  st.d x3, 64(x0)\n"     /* 0 */
        "  li x4, 0x123456789abcdef0\n  st.d x4, 72(x0)\n"
        "  movk x4, 0xffff, 16\n  st.d x4, 80(x0)\n" /* 0x12345678ffffdef0 */
        "  min x3, x1, x2\n  st.d x3, 88(x0)\n"      /* -7 */
        "  maxu x3, x1, x2\n  st.d x3, 96(x0)\n"     /* -7 as unsigned is larger */
        "  st.w x2, 104(x0)\n  ld.w x5, 104(x0)\n  st.d x5, 112(x0)\n"   /* -7 sign-extended */
        "  ld.wu x5, 104(x0)\n  st.d x5, 120(x0)\n"  /* 0xfffffff9 */
        "  end\n";
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_DONE);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 0), 93);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 8), 107);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 16), -700);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 24), -14);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 32), 2);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 40), -4);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 48), 15);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 56), 1);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 64), 0);
    ck_assert_uint_eq(gm_u64(&r, OUT + 72), 0x123456789abcdef0ull);
    ck_assert_uint_eq(gm_u64(&r, OUT + 80), 0x12345678ffffdef0ull);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 88), -7);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 96), -7);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 112), -7);
    ck_assert_uint_eq(gm_u64(&r, OUT + 120), 0xfffffff9ull);
    done(&r);
}
END_TEST

Suite *sim_engine_suite(void)
{
    Suite *s = suite_create("sim_engine");
    TCase *tc = tcase_create("engine");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, scalar_alu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sim_engine_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
