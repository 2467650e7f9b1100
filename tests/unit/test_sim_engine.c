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
#include "asc/run.h"
#include "check_main.h"
#include "sim_fixture.h"

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
    asc_test_profile(&r->cfg, &r->d, target, sets);
    asc_test_assemble(&r->img, target, "k.s", src);
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


START_TEST(branches_and_loops)
{
    /* sum 1..10 with a bne loop; each branch kind taken / not taken */
    static const char src[] =
        ".kernel k, aiv\n.arg out, gm, s64\n"
        "  li x1, 10\n  li x2, 0\n"
        "loop:\n  add x2, x2, x1\n  addi x1, x1, -1\n  bnez x1, loop\n"
        "  st.d x2, 0(x0)\n"
        "  li x3, -1\n  li x4, 1\n  li x5, 0\n"
        "  blt x3, x4, l1\n  li x5, 99\nl1:\n"      /* signed -1 < 1: taken */
        "  bltu x3, x4, l2\n  addi x5, x5, 1\nl2:\n" /* unsigned: not taken -> +1 */
        "  bge x4, x3, l3\n  addi x5, x5, 100\nl3:\n"
        "  bgeu x4, x3, l4\n  addi x5, x5, 10\nl4:\n" /* not taken -> +10 */
        "  beq x4, x4, l5\n  addi x5, x5, 1000\nl5:\n"
        "  st.d x5, 8(x0)\n"
        "  end\n";
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT), 55);
    ck_assert_int_eq((int64_t)gm_u64(&r, OUT + 8), 11);
    done(&r);
}
END_TEST

START_TEST(sprs_and_blocks)
{
    /* 4 vector cores on ascend910b: block i writes its SPRs at out + 64 i */
    static const char src[] =
        ".kernel k, aiv\n.arg out, gm, s64\n"
        "  mfspr x1, block_idx\n  shli x2, x1, 6\n  add x0, x0, x2\n"
        "  st.d x1, 0(x0)\n"
        "  mfspr x3, block_num\n  st.d x3, 8(x0)\n"
        "  mfspr x3, sub_block_idx\n  st.d x3, 16(x0)\n"
        "  mfspr x3, sub_block_num\n  st.d x3, 24(x0)\n"
        "  mfspr x3, core_id\n  st.d x3, 32(x0)\n"
        "  mfspr x3, mask0\n  st.d x3, 40(x0)\n"
        "  mfspr x3, cycle\n  st.d x3, 48(x0)\n"
        "  end\n";
    Run r;
    make(&r, "ascend910b", src, 4, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    for (uint64_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(gm_u64(&r, OUT + 64 * i), i);
        ck_assert_uint_eq(gm_u64(&r, OUT + 64 * i + 8), 4);
        ck_assert_uint_eq(gm_u64(&r, OUT + 64 * i + 16), i % 2);
        ck_assert_uint_eq(gm_u64(&r, OUT + 64 * i + 24), 2);
        ck_assert_uint_eq(gm_u64(&r, OUT + 64 * i + 32), i);
        ck_assert_uint_eq(gm_u64(&r, OUT + 64 * i + 40), ~0ull);
        ck_assert_uint_gt(gm_u64(&r, OUT + 64 * i + 48), 500);
    }
    done(&r);
}
END_TEST

START_TEST(mix_block_idx)
{
    /* mix kernel, 2 AI cores: AIC sees block_idx 0..1, AIV 0..3 */
    static const char src[] =
        ".kernel k, mix\n.arg out, gm, s64\n"
        ".aic\n  mfspr x1, block_idx\n  shli x2, x1, 3\n  add x2, x0, x2\n  li x3, 100\n  add x3, x3, x1\n"
        "  st.d x3, 0(x2)\n  end\n"
        ".aiv\n  mfspr x1, block_idx\n  shli x2, x1, 3\n  add x2, x0, x2\n  li x3, 200\n  add x3, x3, x1\n"
        "  st.d x3, 64(x2)\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 2, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    ck_assert_uint_eq(asc_sim_ncores(r.sim), 6);
    for (uint64_t i = 0; i < 2; i++) ck_assert_uint_eq(gm_u64(&r, OUT + 8 * i), 100 + i);
    for (uint64_t i = 0; i < 4; i++) ck_assert_uint_eq(gm_u64(&r, OUT + 64 + 8 * i), 200 + i);
    char name[48];
    ck_assert_str_eq(asc_sim_core_name(r.sim, 0, name, sizeof name), "core0.cubecore0");
    ck_assert_str_eq(asc_sim_core_name(r.sim, 5, name, sizeof name), "core1.veccore1");
    done(&r);
}
END_TEST

START_TEST(too_many_blocks)
{
    AscConfig cfg;
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_config_builtin(&cfg, "ascend910b", &d));
    static const char src[] = ".kernel k, aic\n  end\n";
    AscAsm *as = asc_asm_new(&(AscAsmDesc){0});
    AscImage img;
    asc_image_init(&img, NULL);
    ck_assert(asc_asm_string(as, "k.s", src, strlen(src), &img));
    asc_asm_free(as);
    AscSimDesc sd = {.cfg = &cfg, .image = &img, .blocks = 25};
    ck_assert(asc_sim_new(&sd, &d) == NULL);
    ck_assert_msg(d.count && strstr(d.items[0].msg, "--blocks 25 is too many") &&
                      strstr(d.items[0].msg, "24 cube cores"), "%s", d.count ? d.items[0].msg : "");
    asc_image_free(&img);
    asc_diags_free(&d);
}
END_TEST

START_TEST(div_zero_fault)
{
    static const char src[] = ".kernel k, aiv\n  li x1, 0\n  li x2, 5\n  div x3, x2, x1\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_int_eq(asc_sim_fault(r.sim)->kind, ASC_FAULT_DIV_ZERO);
    ck_assert_msg(strstr(r.text, "core0.veccore0 pipe s pc 0x0008 `div x3, x2, x1` (k.s:4)") &&
                      strstr(r.text, "division by zero"), "%s", r.text);
    done(&r);
}
END_TEST

START_TEST(double_set_flag_fault)
{
    /* nobody waits: the second set finds the flag still set */
    static const char src[] = ".kernel k, aiv\n  set_flag mte2, v, 0\n  set_flag mte2, v, 0\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_int_eq(asc_sim_fault(r.sim)->kind, ASC_FAULT_FLAG_SET);
    ck_assert_msg(strstr(r.text, "pipe mte2 pc 0x0004 `set_flag mte2, v, 0` (k.s:3)") &&
                      strstr(r.text, "already set"), "%s", r.text);
    done(&r);
}
END_TEST

START_TEST(illegal_for_core_fault)
{
    /* assembled for a coupled target (vadd is legal there), run as an AIC
     * kernel on ascend910b: a cube core has no vector unit */
    static const char src[] = ".kernel k, aic\n  li x1, 0\n  vadd.f16 x1, x1, x1, x1\n  end\n";
    Run r;
    memset(&r, 0, sizeof r);
    asc_diags_init(&r.d, NULL);
    ck_assert(asc_config_builtin(&r.cfg, "ascend910b", &r.d));
    AscAsm *as = asc_asm_new(&(AscAsmDesc){.target = "teach"});
    asc_image_init(&r.img, NULL);
    ck_assert(asc_asm_string(as, "k.s", src, strlen(src), &r.img));
    asc_asm_free(as);
    r.sim = asc_sim_new(&(AscSimDesc){.cfg = &r.cfg, .image = &r.img}, &r.d);
    ck_assert(r.sim);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_int_eq(asc_sim_fault(r.sim)->kind, ASC_FAULT_ILLEGAL);
    ck_assert_msg(strstr(r.text, "'vadd.f16' is not available on AIC cores of target ascend910b") && strstr(r.text, "(k.s:3)"), "%s",
                  r.text);
    done(&r);
}
END_TEST

START_TEST(bad_pc_fault)
{
    static const char src[] = ".kernel k, aiv\n  nop\n  nop\n";
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_int_eq(asc_sim_fault(r.sim)->kind, ASC_FAULT_BAD_PC);
    ck_assert_msg(strstr(r.text, "pc 0x0008 is outside the program"), "%s", r.text);
    done(&r);
}
END_TEST

START_TEST(deadlock_listed_fast)
{
    /* V waits for MTE2->V 0 and MTE3 for V->MTE3 1; nobody sets them */
    static const char src[] = ".kernel k, aiv\n"
                              "  wait_flag mte2, v, 0\n"
                              "  wait_flag v, mte3, 1\n"
                              "  end\n";
    Run r;
    make(&r, "ascend910b", src, 2, NULL, NULL);
    clock_t t0 = clock();
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_msg(secs < 1.0, "deadlock took %.3f s", secs);
    const AscSimFault *f = asc_sim_fault(r.sim);
    ck_assert_int_eq(f->kind, ASC_FAULT_DEADLOCK);
    ck_assert_uint_eq(f->nblocked, 6); /* per core: scalar (end), V, MTE3 */
    ck_assert_msg(strstr(r.text, "deadlock at cycle") &&
                      strstr(r.text, "core0.veccore0 pipe v pc 0x0000 `wait_flag mte2, v, 0` (k.s:2): waits for flag "
                                     "mte2 -> v id 0") &&
                      strstr(r.text, "core0.veccore1 pipe mte3 pc 0x0004 `wait_flag v, mte3, 1` (k.s:3): waits for "
                                     "flag v -> mte3 id 1") &&
                      strstr(r.text, "core0.veccore0 pipe s pc 0x0008 `end` (k.s:4): waits for every pipe"),
                  "%s", r.text);
    done(&r);
}
END_TEST

/* a loop of 10000 copies that each occupy MTE2 for ~100000 cycles */
static const char long_src[] =
    ".kernel k, aiv\n.arg x, gm, f16\n"
    "  li x1, 10000\n  li x2, 0\n"
    "loop:\n  mov_out_to_ub x2, x0, nburst=1, len=1\n  addi x1, x1, -1\n  bnez x1, loop\n"
    "  end\n";
static const char *const long_sets[] = {"dma.setup_cycles=100000", "dma.gm_read_latency=100000",
                                        "max_cycles=100000000000", NULL};

START_TEST(idle_cycles_cost_no_host_time)
{
    Run r;
    make(&r, "ascend910b", long_src, 1, long_sets, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    clock_t t0 = clock();
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* 10000 * (100000 setup + 2 burst + 1 byte-cycle) + latency > 1e9 cycles */
    ck_assert_uint_gt(asc_sim_cycles(r.sim), 1000000000ull);
    ck_assert_msg(secs < 1.0, "%llu cycles took %.3f s", (unsigned long long)asc_sim_cycles(r.sim), secs);
    done(&r);
}
END_TEST

START_TEST(max_cycles_resumable)
{
    Run r;
    make(&r, "ascend910b", long_src, 1, long_sets, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_int_eq(run(&r, 5000000), ASC_SIM_LIMIT);
    ck_assert_uint_le(asc_sim_cycles(r.sim), 5000000);
    ck_assert_int_eq(run(&r, UINT64_MAX), ASC_SIM_DONE);
    Run r2;
    make(&r2, "ascend910b", long_src, 1, long_sets, NULL);
    asc_sim_set_arg(r2.sim, 0, OUT);
    ck_assert_int_eq(run(&r2, UINT64_MAX), ASC_SIM_DONE);
    ck_assert_uint_eq(asc_sim_cycles(r.sim), asc_sim_cycles(r2.sim)); /* stopping changes nothing */
    done(&r);
    done(&r2);
}
END_TEST

static char *file_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

START_TEST(reports_byte_identical)
{
    char *texts[2], *jsons[2];
    const char *src = file_text(ASC_SOURCE_DIR "/kernels/asm/vadd_double.s");
    for (int i = 0; i < 2; i++) {
        Run r;
        make(&r, "ascend910b", src, 4, NULL, NULL);
        uint64_t x, y, z;
        ck_assert(asc_sim_gm_place(r.sim, 65536 * 2, &x));
        ck_assert(asc_sim_gm_place(r.sim, 65536 * 2, &y));
        ck_assert(asc_sim_gm_place(r.sim, 65536 * 2, &z));
        ck_assert_uint_eq(x, 0x40000000ull);
        ck_assert_uint_eq(y, 0x40200000ull);
        asc_sim_set_arg(r.sim, 0, x);
        asc_sim_set_arg(r.sim, 1, y);
        asc_sim_set_arg(r.sim, 2, z);
        asc_sim_set_arg(r.sim, 3, 65536);
        ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
        texts[i] = asc_sim_report_text(r.sim);
        jsons[i] = asc_sim_report_json(r.sim);
        ck_assert(texts[i] && jsons[i]);
        done(&r);
    }
    ck_assert_str_eq(texts[0], texts[1]);
    ck_assert_str_eq(jsons[0], jsons[1]);
    ck_assert(strstr(texts[0], "bound: ") || strstr(texts[0], "bound"));
    for (int i = 0; i < 2; i++) free(texts[i]), free(jsons[i]);
}
END_TEST

/* An allocator that counts calls. */
typedef struct Counter {
    unsigned long allocs;
} Counter;
static void *count_alloc(void *ud, size_t n)
{
    ((Counter *)ud)->allocs++;
    return malloc(n);
}
static void count_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

START_TEST(step_loop_allocation_free)
{
    /* vector work, flags, barriers, GM reads (no GM writes, so no GM page is
     * backed while running): not one allocation between run start and end */
    static const char src[] = ".kernel k, aiv\n.arg x, gm, f16\n"
                              "  li x1, 0\n  li x2, 0x2100\n  li x3, 0x10000\n  li x5, 20\n"
                              "loop:\n"
                              "  mov_out_to_ub x1, x0, nburst=1, len=256\n"
                              "  mov_out_to_ub x2, x0, nburst=1, len=256\n"
                              "  set_flag mte2, v, 0\n  wait_flag mte2, v, 0\n"
                              "  vadd.f16 x3, x1, x2, repeat=32\n"
                              "  bar v\n  set_flag v, mte2, 1\n  wait_flag v, mte2, 1\n"
                              "  addi x5, x5, -1\n  bnez x5, loop\n"
                              "  bar all\n  end\n";
    Counter cnt = {0};
    AscAlloc a = {count_alloc, count_free, &cnt};
    Run r;
    make(&r, "ascend910b", src, 2, NULL, &a);
    asc_sim_set_arg(r.sim, 0, OUT);
    unsigned long before = cnt.allocs;
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    ck_assert_uint_eq(cnt.allocs, before);
    done(&r);
}
END_TEST

/* ---- every scalar ALU instruction against hand-computed results ---------- *
 * Each case loads its operands with li, runs one instruction into x3 and
 * stores x3 at out + 8 * i.  Expected values come from the table's
 * semantics column (isa/asc_isa.def), worked out by hand, not by running. */
typedef struct AluCase {
    const char *insn; /* "add x3, x1, x2" or "addi x3, x1, -1"; x1 = a, x2 = b */
    uint64_t a, b, want;
} AluCase;

#define MIN64 0x8000000000000000ull
#define ALL1 0xffffffffffffffffull
static const AluCase alu_cases[] = {
    {"add x3, x1, x2", 0x7fffffffffffffffull, 1, MIN64},          /* wraps */
    {"sub x3, x1, x2", 0, 1, ALL1},
    {"mul x3, x1, x2", 0x100000000ull, 0x100000000ull, 0},        /* low 64 bits of 2^64 */
    {"mul x3, x1, x2", (uint64_t)-3, 5, (uint64_t)-15},
    {"div x3, x1, x2", (uint64_t)-7, 2, (uint64_t)-3},            /* toward zero */
    {"div x3, x1, x2", 7, (uint64_t)-2, (uint64_t)-3},
    {"div x3, x1, x2", MIN64, (uint64_t)-1, MIN64},               /* overflow wraps */
    {"divu x3, x1, x2", ALL1, 2, 0x7fffffffffffffffull},
    {"rem x3, x1, x2", (uint64_t)-7, 2, (uint64_t)-1},            /* sign of rs1 */
    {"rem x3, x1, x2", 7, (uint64_t)-2, 1},
    {"rem x3, x1, x2", MIN64, (uint64_t)-1, 0},
    {"remu x3, x1, x2", ALL1, 10, 5},                             /* 18446744073709551615 % 10 */
    {"and x3, x1, x2", 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0x0f000f000f000f00ull},
    {"or x3, x1, x2", 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0xfff0fff0fff0fff0ull},
    {"xor x3, x1, x2", 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0xf0f0f0f0f0f0f0f0ull},
    {"shl x3, x1, x2", 1, 63, MIN64},
    {"shl x3, x1, x2", 1, 64, 1},                                 /* 64 & 63 = 0 */
    {"shl x3, x1, x2", 1, 127, MIN64},                            /* 127 & 63 = 63 */
    {"shr x3, x1, x2", MIN64, 63, 1},
    {"shr x3, x1, x2", MIN64, 64, MIN64},
    {"shr x3, x1, x2", ALL1, 68, 0x0fffffffffffffffull},          /* 68 & 63 = 4, logical */
    {"sra x3, x1, x2", MIN64, 63, ALL1},
    {"sra x3, x1, x2", (uint64_t)-8, 65, (uint64_t)-4},           /* 65 & 63 = 1, arithmetic */
    {"min x3, x1, x2", ALL1, 1, ALL1},                            /* signed: -1 < 1 */
    {"max x3, x1, x2", ALL1, 1, 1},
    {"minu x3, x1, x2", ALL1, 1, 1},                              /* unsigned: 1 < 2^64-1 */
    {"maxu x3, x1, x2", ALL1, 1, ALL1},
    {"seq x3, x1, x2", 5, 5, 1},
    {"seq x3, x1, x2", 5, 6, 0},
    {"sne x3, x1, x2", 5, 5, 0},
    {"sne x3, x1, x2", 5, 6, 1},
    {"slt x3, x1, x2", ALL1, 0, 1},
    {"slt x3, x1, x2", 0, ALL1, 0},
    {"sltu x3, x1, x2", ALL1, 0, 0},
    {"sltu x3, x1, x2", 0, ALL1, 1},
    {"sge x3, x1, x2", ALL1, 0, 0},
    {"sge x3, x1, x2", 3, 3, 1},
    {"sgeu x3, x1, x2", ALL1, 0, 1},
    {"sgeu x3, x1, x2", 0, 1, 0},
    {"addi x3, x1, -1", 0, 0, ALL1},
    {"addi x3, x1, 8191", 1, 0, 8192},
    {"andi x3, x1, -16", ALL1, 0, 0xfffffffffffffff0ull},         /* imm sign-extended */
    {"ori x3, x1, -8192", 0, 0, 0xffffffffffffe000ull},
    {"xori x3, x1, -1", 0x0f, 0, 0xfffffffffffffff0ull},
    {"shli x3, x1, 63", 1, 0, MIN64},
    {"shri x3, x1, 60", ALL1, 0, 15},
    {"srai x3, x1, 1", MIN64, 0, 0xc000000000000000ull},
    {"muli x3, x1, -5", 3, 0, (uint64_t)-15},
    {"slti x3, x1, -4", (uint64_t)-5, 0, 1},
    {"slti x3, x1, -4", 5, 0, 0},
    {"movz x3, 0xbeef, 48", 0, 0, 0xbeef000000000000ull},
    {"movn x3, 0x1234, 16", 0, 0, 0xffffffffedcbffffull},         /* ~(0x1234 << 16) */
    {"movz x3, 0, 0", 0, 0, 0},
    {"movn x3, 0, 0", 0, 0, ALL1},
};

START_TEST(scalar_alu_every_op)
{
    size_t n = sizeof alu_cases / sizeof alu_cases[0];
    char *src = malloc(256 * (n + 8));
    size_t len = (size_t)sprintf(src, ".kernel k, aiv\n.arg out, gm, s64\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(src + len, "  li x1, 0x%llx\n  li x2, 0x%llx\n  li x3, 0x5a5a\n  %s\n  st.d x3, %zu(x0)\n",
                               (unsigned long long)alu_cases[i].a, (unsigned long long)alu_cases[i].b,
                               alu_cases[i].insn, 8 * i);
    /* movk keeps the other bits of rd: 0x1111222233334444 with 0xabcd at 32 */
    len += (size_t)sprintf(src + len, "  li x3, 0x1111222233334444\n  movk x3, 0xabcd, 32\n  st.d x3, %zu(x0)\n"
                                      "  end\n", 8 * n);
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    free(src);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    for (size_t i = 0; i < n; i++) {
        uint64_t got = gm_u64(&r, OUT + 8 * i);
        ck_assert_msg(got == alu_cases[i].want, "%s with x1 = 0x%llx, x2 = 0x%llx: got 0x%llx, want 0x%llx",
                      alu_cases[i].insn, (unsigned long long)alu_cases[i].a, (unsigned long long)alu_cases[i].b,
                      (unsigned long long)got, (unsigned long long)alu_cases[i].want);
    }
    ck_assert_uint_eq(gm_u64(&r, OUT + 8 * n), 0x1111abcd33334444ull);
    done(&r);
}
END_TEST

/* ---- cross-core flags and sync_all --------------------------------------- */

/* Two AIVs of AI core 0 (blocks 0 and 1): AIV 0 copies in[0..3] through UB
 * to out[0..3] (MTE2, MTE3) and sets cross-core flag 3 in mode 1 on MTE3,
 * i.e. once the copy has landed in GM; AIV 1 sets it too (mode 1 is a join
 * of both AIVs: asc-devkit 关键特性说明.md), waits on flag 3, then reads
 * out[0] with a scalar load and stores it to out[4].  Without the waits
 * (xwait = false) AIV 1 reads GM long before the copy lands and sees 0. */
static void xcore_handoff(bool xwait, uint64_t *got, AscSimPipeStats *consumer_s)
{
    char src[1024];
    snprintf(src, sizeof src,
             ".kernel k, aiv\n.arg in, gm, s64\n.arg out, gm, s64\n"
             "  mfspr x2, sub_block_idx\n  bnez x2, consumer\n"
             "  li x3, 0\n"
             "  mov_out_to_ub x3, x0, nburst=1, len=1\n"
             "  set_flag mte2, mte3, 0\n  wait_flag mte2, mte3, 0\n"
             "  mov_ub_to_out x1, x3, nburst=1, len=1\n"
             "  set_cross_core mte3, 1, 3\n%s"
             "  end\n"
             "consumer:\n  set_cross_core mte3, 1, 3\n%s"
             "  ld.d x4, 0(x1)\n  st.d x4, 32(x1)\n"
             "  end\n",
             xwait ? "  wait_flag_dev 3\n" : "", xwait ? "  wait_flag_dev 3\n" : "");
    Run r;
    make(&r, "ascend910b", src, 2, NULL, NULL);
    uint64_t v = 0x1234567890abcdefull;
    ck_assert(asc_sim_gm_write(r.sim, OUT, &v, 8));
    asc_sim_set_arg(r.sim, 0, OUT);
    asc_sim_set_arg(r.sim, 1, OUT + 0x1000);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    ck_assert_uint_eq(gm_u64(&r, OUT + 0x1000), v); /* the copy itself */
    *got = gm_u64(&r, OUT + 0x1000 + 32);
    ck_assert(asc_sim_pipe_stats(r.sim, 1, ASC_PIPE_S, consumer_s));
    done(&r);
}

START_TEST(xcore_handoff_through_gm)
{
    uint64_t got;
    AscSimPipeStats s;
    xcore_handoff(true, &got, &s);
    ck_assert_uint_eq(got, 0x1234567890abcdefull);
    /* the consumer waited at least the GM read + write latencies (1300 + 280) */
    ck_assert_uint_gt(s.xcore_cycles, 1300 + 280);
    xcore_handoff(false, &got, &s);
    ck_assert_uint_eq(got, 0); /* the race the flag prevents */
    ck_assert_uint_eq(s.xcore_cycles, 0);
}
END_TEST

START_TEST(xcore_mix_aic_to_aivs)
{
    /* mix kernel, 1 AI core: the AIC stores 77 to GM and sets flag 1 in
     * mode 2 (a broadcast to its AIVs); each AIV waits, loads it and stores 77 + sub. */
    static const char src[] =
        ".kernel k, mix\n.arg out, gm, s64\n"
        ".aic\n  li x3, 77\n  st.d x3, 0(x0)\n  set_cross_core fix, 2, 1\n  end\n"
        ".aiv\n  wait_flag_dev 1\n  ld.d x4, 0(x0)\n  mfspr x5, sub_block_idx\n  add x4, x4, x5\n"
        "  shli x5, x5, 3\n  add x5, x5, x0\n  st.d x4, 8(x5)\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    ck_assert_uint_eq(gm_u64(&r, OUT + 8), 77);
    ck_assert_uint_eq(gm_u64(&r, OUT + 16), 78);
    done(&r);
}
END_TEST

/* Mode 2 from the AIVs is a join: the AIC's counter rises once every AIV of
 * its AI core has set.  On `blocks` AI cores, AIV j of AI core c spins
 * (j + 1) * 300 iterations (the last AIV is the slowest), stores
 * 100 c + 10 j + 1 to its slot, sets flag 6 in mode 2 and ends; each AIC
 * waits once, then sums the slots of its AIVs into out[64 + c].  A wait that
 * passed on the first AIV's set would read the later slots as 0. */
static void xcore_mode2_join(uint32_t blocks, bool one_to_one)
{
    char text[2048];
    /* AIV block_idx is c * ratio + sub; its AI core is block_idx / ratio */
    unsigned ratio = one_to_one ? 1 : 2;
    snprintf(text, sizeof text,
             ".kernel k, mix\n.arg out, gm, s64\n"
             ".aiv\n  mfspr x3, sub_block_idx\n  addi x4, x3, 1\n  muli x4, x4, 300\n"
             "spin:\n  addi x4, x4, -1\n  bnez x4, spin\n"
             "  mfspr x2, block_idx\n  li x5, %u\n  divu x6, x2, x5\n" /* x6 = AI core */
             "  muli x7, x6, 100\n  muli x8, x3, 10\n  add x7, x7, x8\n  addi x7, x7, 1\n"
             "  shli x9, x2, 3\n  add x9, x9, x0\n  st.d x7, 0(x9)\n"
             "  set_cross_core mte3, 2, 6\n  end\n"
             ".aic\n  wait_flag_dev 6\n  mfspr x2, block_idx\n  li x3, 0\n  li x4, 0\n"
             "sum:\n  muli x5, x2, %u\n  add x5, x5, x4\n  shli x5, x5, 3\n  add x5, x5, x0\n  ld.d x6, 0(x5)\n"
             "  add x3, x3, x6\n  addi x4, x4, 1\n  li x7, %u\n  bne x4, x7, sum\n"
             "  shli x8, x2, 3\n  add x8, x8, x0\n  st.d x3, 512(x8)\n  end\n",
             ratio, ratio, ratio);
    static const char *const one[] = {"aiv_per_core=1", NULL};
    Run r;
    make(&r, "ascend910b", text, blocks, one_to_one ? one : NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    for (uint32_t c = 0; c < blocks; c++) {
        uint64_t want = 0;
        for (unsigned j = 0; j < ratio; j++) want += 100 * c + 10 * j + 1;
        ck_assert_msg(gm_u64(&r, OUT + 512 + 8 * c) == want, "AI core %u of %u (1:%u): got %llu, want %llu", c,
                      blocks, ratio, (unsigned long long)gm_u64(&r, OUT + 512 + 8 * c), (unsigned long long)want);
    }
    done(&r);
}

START_TEST(xcore_mode2_aivs_join_at_aic)
{
    xcore_mode2_join(1, false);
    xcore_mode2_join(4, false); /* each AIC joins only the AIVs of its own AI core */
    xcore_mode2_join(1, true);  /* MIX_AIC_1_1: the join of one AIV */
    xcore_mode2_join(3, true);
}
END_TEST

START_TEST(xcore_mode2_partial_join_deadlocks)
{
    /* only AIV 0 sets: the AIC's wait never passes, and the report names the
     * AIC's wait and the AIV whose set is missing */
    static const char src[] =
        ".kernel k, mix\n"
        ".aiv\n  mfspr x3, sub_block_idx\n  bnez x3, skip\n  set_cross_core mte3, 2, 6\nskip:\n  end\n"
        ".aic\n  wait_flag_dev 6\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 1, NULL, NULL);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_int_eq(asc_sim_fault(r.sim)->kind, ASC_FAULT_DEADLOCK);
    ck_assert_msg(strstr(r.text, "core0.cubecore0 pipe s pc") && strstr(r.text, "`wait_flag_dev 6` (k.s:9)") &&
                      strstr(r.text, "waits for cross-core flag 6: core0.veccore0 set it, core0.veccore1 did not"),
                  "%s", r.text);
    done(&r);
}
END_TEST

/* Mode 0 over every AIV of `blocks` AI cores: AIV i spins 150 i iterations,
 * stores i + 1 to slot i, sets flag 4 in mode 0 (unless it is `skip`), waits
 * on 4 and sums every slot into out[32 + i].  All sums are n (n + 1) / 2: no
 * wait passes before the last AIV's set.  With one AIV not setting, every
 * wait blocks and the report names it. */
static void xcore_mode0(uint32_t blocks, int skip, Run *r)
{
    char text[2048];
    snprintf(text, sizeof text,
             ".kernel k, aiv\n.arg out, gm, s64\n"
             "  mfspr x2, block_idx\n  muli x4, x2, 150\n  addi x4, x4, 1\n"
             "spin:\n  addi x4, x4, -1\n  bnez x4, spin\n"
             "  addi x3, x2, 1\n  shli x5, x2, 3\n  add x5, x5, x0\n  st.d x3, 0(x5)\n"
             "  li x6, %d\n  beq x2, x6, nos\n  set_cross_core mte3, 0, 4\nnos:\n  wait_flag_dev 4\n"
             "  mfspr x7, block_num\n  li x8, 0\n  li x9, 0\n"
             "sum:\n  shli x10, x9, 3\n  add x10, x10, x0\n  ld.d x11, 0(x10)\n  add x8, x8, x11\n"
             "  addi x9, x9, 1\n  bne x9, x7, sum\n"
             "  st.d x8, 256(x5)\n  end\n",
             skip);
    make(r, "ascend910b", text, blocks, NULL, NULL);
    asc_sim_set_arg(r->sim, 0, OUT);
}

START_TEST(xcore_mode0_all_aivs_of_four_ai_cores)
{
    Run r;
    xcore_mode0(8, -1, &r); /* 4 AI cores x 2 AIVs */
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    for (uint32_t i = 0; i < 8; i++) ck_assert_uint_eq(gm_u64(&r, OUT + 256 + 8 * i), 36);
    done(&r);
    xcore_mode0(8, 5, &r); /* core2.veccore1 never sets */
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_int_eq(asc_sim_fault(r.sim)->kind, ASC_FAULT_DEADLOCK);
    ck_assert_msg(strstr(r.text, "8 of 8 cores unfinished") && strstr(r.text, "core0.veccore0 pipe s pc") &&
                      strstr(r.text, "set it, core2.veccore1 did not") && strstr(r.text, "(k.s:17)"),
                  "%s", r.text);
    done(&r);
}
END_TEST

START_TEST(xcore_mode0_all_aics)
{
    /* mode 0 from the AICs of a mix kernel on 3 AI cores: a barrier of the AICs only */
    static const char src[] =
        ".kernel k, mix\n.arg out, gm, s64\n"
        ".aic\n  mfspr x2, block_idx\n  muli x4, x2, 400\n  addi x4, x4, 1\n"
        "spin:\n  addi x4, x4, -1\n  bnez x4, spin\n"
        "  addi x3, x2, 1\n  shli x5, x2, 3\n  add x5, x5, x0\n  st.d x3, 0(x5)\n"
        "  set_cross_core fix, 0, 9\n  wait_flag_dev 9\n"
        "  ld.d x6, 0(x0)\n  ld.d x7, 8(x0)\n  add x6, x6, x7\n  ld.d x7, 16(x0)\n  add x6, x6, x7\n"
        "  st.d x6, 64(x5)\n  end\n"
        ".aiv\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 3, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    for (uint32_t i = 0; i < 3; i++) ck_assert_uint_eq(gm_u64(&r, OUT + 64 + 8 * i), 6);
    done(&r);
}
END_TEST

START_TEST(xcore_mode1_barrier_loop)
{
    /* 40 rounds of a mode 1 barrier of both AIVs (each sets, then waits),
     * AIV 1 slower; before round k's set each AIV stores k to its slot and
     * after the wait reads the other's: it must be k (the other AIV reached
     * round k), else it records a mismatch in out[2 + sub] */
    static const char src[] =
        ".kernel k, aiv\n.arg out, gm, s64\n"
        "  mfspr x2, sub_block_idx\n  shli x3, x2, 3\n  add x3, x3, x0\n" /* x3 = my slot */
        "  xori x4, x2, 1\n  shli x4, x4, 3\n  add x4, x4, x0\n" /* x4 = the other's */
        "  li x1, 1\n  li x9, 0\n"
        "round:\n  addi x5, x2, 1\n  muli x5, x5, 40\n"
        "spin:\n  addi x5, x5, -1\n  bnez x5, spin\n"
        "  st.d x1, 0(x3)\n  set_cross_core mte3, 1, 2\n  wait_flag_dev 2\n"
        "  ld.d x6, 0(x4)\n  sne x7, x6, x1\n  add x9, x9, x7\n"
        "  set_cross_core mte3, 1, 3\n  wait_flag_dev 3\n" /* the slots are rewritten next round */
        "  addi x1, x1, 1\n  li x8, 41\n  bne x1, x8, round\n"
        "  st.d x9, 16(x3)\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 2, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    ck_assert_uint_eq(gm_u64(&r, OUT + 16), 0);
    ck_assert_uint_eq(gm_u64(&r, OUT + 24), 0);
    done(&r);
    /* MIX_AIC_1_1-style launch of AIV kernels with one AIV per AI core: mode 1 is the join of one */
    static const char one_src[] = ".kernel k, aiv\n  set_cross_core mte3, 1, 2\n  wait_flag_dev 2\n  end\n";
    static const char *const one[] = {"aiv_per_core=1", NULL};
    make(&r, "ascend910b", one_src, 2, one, NULL);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    done(&r);
}
END_TEST

START_TEST(xcore_mode1_one_sided_deadlocks)
{
    /* AIV 0 sets flag 2 in mode 1 and waits; its sibling only waits: under per-set delivery
     * the sibling's wait would pass, under the join neither does */
    static const char src[] =
        ".kernel k, aiv\n"
        "  mfspr x2, sub_block_idx\n  bnez x2, other\n  set_cross_core mte3, 1, 2\nother:\n  wait_flag_dev 2\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 2, NULL, NULL);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_msg(strstr(r.text, "2 of 2 cores unfinished") &&
                      strstr(r.text, "core0.veccore1 pipe s pc 0x000c `wait_flag_dev 2` (k.s:6): waits for "
                                     "cross-core flag 2: core0.veccore0 set it, core0.veccore1 did not"),
                  "%s", r.text);
    done(&r);
}
END_TEST

START_TEST(xcore_pending_overflow_fault)
{
    /* AIV 0 sets flag 2 in mode 1 16 times; its sibling never sets: the 16th
     * set finds 15 of AIV 0's sets not joined (xcore_max_pending) and faults */
    static const char src[] =
        ".kernel k, aiv\n"
        "  mfspr x2, sub_block_idx\n  bnez x2, idle\n  li x1, 16\n"
        "loop:\n  set_cross_core mte3, 1, 2\n  addi x1, x1, -1\n  bnez x1, loop\n"
        "idle:\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 2, NULL, NULL);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    const AscSimFault *f = asc_sim_fault(r.sim);
    ck_assert_int_eq(f->kind, ASC_FAULT_XCORE);
    ck_assert_int_eq(f->pipe, ASC_PIPE_MTE3);
    ck_assert_msg(strstr(r.text, "set_cross_core mode 1 id 2: this core already holds 15 sets that no set of "
                                 "core0.veccore1 joined (at most xcore_max_pending = 15)") &&
                      strstr(r.text, "core0.veccore0 pipe mte3") && strstr(r.text, "set_cross_core mte3, 1, 2") &&
                      strstr(r.text, "k.s:6"),
                  "%s", r.text);
    done(&r);
    /* both set 16 times and never wait: the 16th join finds 15 pending on a counter */
    static const char both[] =
        ".kernel k, aiv\n  li x1, 16\n"
        "loop:\n  set_cross_core mte3, 1, 2\n  addi x1, x1, -1\n  bnez x1, loop\n  end\n";
    make(&r, "ascend910b", both, 2, NULL, NULL);
    ck_assert_int_eq(run(&r, 0), ASC_SIM_FAULT);
    ck_assert_msg(strstr(r.text, "the counter of core0.veccore0 already holds 15 pending sets (at most "
                                 "xcore_max_pending = 15)") &&
                      strstr(r.text, "set_cross_core mte3, 1, 2") && strstr(r.text, "k.s:4"),
                  "%s", r.text);
    done(&r);
    /* 15 sets each are fine */
    static const char src15[] =
        ".kernel k, aiv\n  li x1, 15\n"
        "loop:\n  set_cross_core mte3, 1, 2\n  addi x1, x1, -1\n  bnez x1, loop\n  end\n";
    make(&r, "ascend910b", src15, 2, NULL, NULL);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    done(&r);
}
END_TEST

START_TEST(sync_all_four_blocks)
{
    /* block i spins 200 * i loop iterations, stores i + 1 to slot i, then
     * sync_all; after it every block sums the 4 slots into slot 4 + i.  The
     * sum is 1 + 2 + 3 + 4 = 10 only if nobody left sync_all early. */
    static const char src[] =
        ".kernel k, aiv\n.arg out, gm, s64\n"
        "  mfspr x1, block_idx\n  muli x2, x1, 200\n  addi x2, x2, 1\n"
        "spin:\n  addi x2, x2, -1\n  bnez x2, spin\n"
        "  shli x3, x1, 3\n  add x3, x3, x0\n  addi x4, x1, 1\n  st.d x4, 0(x3)\n"
        "  sync_all\n"
        "  ld.d x5, 0(x0)\n  ld.d x6, 8(x0)\n  add x5, x5, x6\n  ld.d x6, 16(x0)\n  add x5, x5, x6\n"
        "  ld.d x6, 24(x0)\n  add x5, x5, x6\n  st.d x5, 32(x3)\n  end\n";
    Run r;
    make(&r, "ascend910b", src, 4, NULL, NULL);
    asc_sim_set_arg(r.sim, 0, OUT);
    ck_assert_msg(run(&r, 0) == ASC_SIM_DONE, "%s", r.text);
    for (uint64_t i = 0; i < 4; i++) ck_assert_uint_eq(gm_u64(&r, OUT + 32 + 8 * i), 10);
    AscSimPipeStats s0, s3;
    ck_assert(asc_sim_pipe_stats(r.sim, 0, ASC_PIPE_S, &s0));
    ck_assert(asc_sim_pipe_stats(r.sim, 3, ASC_PIPE_S, &s3));
    /* block 0 arrives first and waits for block 3's 600 extra spins (each
     * addi + taken bnez: 1 + 1 + lat.branch 2 = 4 cycles): > 2000 cycles */
    ck_assert_uint_gt(s0.sync_all_cycles, 2000);
    ck_assert_uint_lt(s3.sync_all_cycles, s0.sync_all_cycles);
    done(&r);
}
END_TEST

/* An allocator that counts live blocks and fails its N-th call. */
typedef struct LiveCounter {
    long calls, live, fail_at; /* fail_at: the 1-based call that fails; 0 = never */
} LiveCounter;
static void *live_alloc(void *ud, size_t n)
{
    LiveCounter *c = ud;
    if (++c->calls == c->fail_at) return NULL;
    void *p = malloc(n ? n : 1);
    if (p) c->live++;
    return p;
}
static void live_free(void *ud, void *p)
{
    if (p) ((LiveCounter *)ud)->live--;
    free(p);
}

START_TEST(gm_place_oom_leaks_nothing)
{
    /* under initcheck and racecheck a placed allocation gets two shadows; whichever
     * allocation fails, asc_sim_gm_place says so and asc_sim_free frees the rest */
    static const char src[] = ".kernel k, aiv\n.arg x, gm, f16\n  end\n";
    bool placed = false;
    for (long n = 1; n <= 4 && !placed; n++) {
        LiveCounter c = {0, 0, 0};
        AscAlloc a = {live_alloc, live_free, &c};
        Run r;
        memset(&r, 0, sizeof r);
        asc_diags_init(&r.d, NULL);
        asc_test_profile(&r.cfg, &r.d, "ascend910b", NULL);
        asc_test_assemble(&r.img, "ascend910b", "k.s", src);
        AscSimDesc sd = {.cfg = &r.cfg, .image = &r.img, .blocks = 1, .alloc = a,
                         .sanitize = ASC_SAN_INITCHECK | ASC_SAN_RACECHECK};
        r.sim = asc_sim_new(&sd, &r.d);
        ck_assert_msg(r.sim != NULL, "asc_sim_new: %s", r.d.count ? r.d.items[0].msg : "?");
        c.fail_at = c.calls + n;
        uint64_t addr;
        placed = asc_sim_gm_place(r.sim, 4096, &addr);
        done(&r);
        ck_assert_int_eq(c.live, 0);
    }
    ck_assert(placed);
}
END_TEST

/* Run `printf fmt` with one pending argument 1 on one core; the format goes to .rodata. */
static AscSimStatus run_printf(Run *r, const char *fmt)
{
    char src[1024];
    int n = snprintf(src, sizeof src, ".rodata\nfmt: .byte ");
    for (const char *p = fmt;; p++) {
        n += snprintf(src + n, sizeof src - (size_t)n, "%d%s", (unsigned char)*p, *p ? ", " : "\n");
        if (!*p) break;
    }
    snprintf(src + n, sizeof src - (size_t)n,
             ".text\n.kernel k, aiv\n  la x1, fmt\n  li x2, 1\n  prt.arg x2\n  printf x1\n  end\n");
    make(r, "ascend910b", src, 1, NULL, NULL);
    return run(r, 0);
}

START_TEST(printf_field_bounds)
{
    /* a width or precision libc would pad or allocate for (2e9 spaces: seconds per record;
     * %.200000000f: 1 GB in snprintf) faults naming the limit; within it, C's output whole */
    static const char *const bad[] = {"%2000000000d", "%.200000000f", "%129d", "%.129x"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Run r;
        ck_assert_int_eq(run_printf(&r, bad[i]), ASC_SIM_FAULT);
        ck_assert_msg(strstr(r.text, "at most 128") != NULL, "%s: %s", bad[i], r.text);
        done(&r);
    }
    Run r;
    ck_assert_msg(run_printf(&r, "[%128.120d]") == ASC_SIM_DONE, "%s", r.text);
    uint64_t dropped;
    ck_assert_uint_eq(asc_sim_prints(r.sim, &dropped), 1);
    uint32_t core, pc;
    const char *text;
    ck_assert(asc_sim_print_get(r.sim, 0, &core, &pc, &text));
    char want[200];
    snprintf(want, sizeof want, "[%128.120d]", 1);
    ck_assert_str_eq(text, want);
    done(&r);
}
END_TEST

Suite *sim_engine_suite(void)
{
    Suite *s = suite_create("sim_engine");
    TCase *tc = tcase_create("engine");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, scalar_alu);
    tcase_add_test(tc, branches_and_loops);
    tcase_add_test(tc, sprs_and_blocks);
    tcase_add_test(tc, mix_block_idx);
    tcase_add_test(tc, too_many_blocks);
    tcase_add_test(tc, div_zero_fault);
    tcase_add_test(tc, double_set_flag_fault);
    tcase_add_test(tc, illegal_for_core_fault);
    tcase_add_test(tc, bad_pc_fault);
    tcase_add_test(tc, deadlock_listed_fast);
    tcase_add_test(tc, idle_cycles_cost_no_host_time);
    tcase_add_test(tc, max_cycles_resumable);
    tcase_add_test(tc, reports_byte_identical);
    tcase_add_test(tc, step_loop_allocation_free);
    tcase_add_test(tc, scalar_alu_every_op);
    tcase_add_test(tc, xcore_handoff_through_gm);
    tcase_add_test(tc, xcore_mix_aic_to_aivs);
    tcase_add_test(tc, xcore_mode2_aivs_join_at_aic);
    tcase_add_test(tc, xcore_mode2_partial_join_deadlocks);
    tcase_add_test(tc, xcore_mode0_all_aivs_of_four_ai_cores);
    tcase_add_test(tc, xcore_mode0_all_aics);
    tcase_add_test(tc, xcore_mode1_barrier_loop);
    tcase_add_test(tc, xcore_mode1_one_sided_deadlocks);
    tcase_add_test(tc, xcore_pending_overflow_fault);
    tcase_add_test(tc, sync_all_four_blocks);
    tcase_add_test(tc, gm_place_oom_leaks_nothing);
    tcase_add_test(tc, printf_field_bounds);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return asc_check_run(sim_engine_suite());
}
