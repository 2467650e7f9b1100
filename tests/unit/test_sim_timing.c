/* test_sim_timing.c -- cycle counts of the timing model, each worked out by
 * hand in a comment from docs/timing.md and the target's config values
 * (never copied from a run).
 *
 * Config values used (ascend910b; asc_config.def defaults):
 *   launch_cycles 500, lat.scalar 1, lat.sync 1, flag_release_cycles 1,
 *   lat.vec_add 6, vec.base_beats 1, lat.mmad 20, cube m0 = n0 = k0_b16 = 16,
 *   dma.setup_cycles 20, dma.burst_cycles 2, dma.gm_bytes_per_cycle 32,
 *   dma.hbm_bytes_per_cycle 648, dma.gm_read_latency 1300.
 * Kernels take their config registers (vector/DMA/cube Xt) as arguments so
 * every scalar instruction is visible in the source: instruction i of the
 * program issues at cycle 500 + i unless it stalls. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/asm.h"
#include "asc/sim.h"
#include "check_main.h"
#include "sim_fixture.h"

#define MAXEV 4096
typedef struct Run {
    AscConfig cfg;
    AscImage img;
    AscDiags d;
    AscSim *sim;
    AscSimInsnEvent ev[MAXEV];
    uint32_t nev;
    char text[4096];
} Run;

static void on_insn(void *ud, const AscSimInsnEvent *e)
{
    Run *r = ud;
    if (r->nev < MAXEV) r->ev[r->nev++] = *e;
}

static Run *make(const char *target, const char *src, uint32_t blocks, const char *const *sets)
{
    Run *r = calloc(1, sizeof *r);
    asc_diags_init(&r->d, NULL);
    asc_test_profile(&r->cfg, &r->d, target, sets);
    asc_test_assemble(&r->img, target, "t.s", src);
    AscSimDesc sd = {.cfg = &r->cfg, .image = &r->img, .blocks = blocks,
                     .observer = {.ud = r, .on_insn = on_insn}};
    r->sim = asc_sim_new(&sd, &r->d);
    ck_assert_msg(r->sim != NULL, "asc_sim_new: %s", r->d.count ? r->d.items[0].msg : "?");
    return r;
}

static void done(Run *r)
{
    asc_sim_free(r->sim);
    asc_image_free(&r->img);
    asc_diags_free(&r->d);
    free(r);
}

static void run_ok(Run *r)
{
    AscSimStatus st = asc_sim_run(r->sim, 0);
    if (st != ASC_SIM_DONE) {
        asc_sim_fault_format(r->sim, r->text, sizeof r->text);
        ck_abort_msg("run failed: %s", r->text);
    }
}

/* The n-th (0-based) event of core `core` on `pipe` with mnemonic prefix. */
static const AscSimInsnEvent *ev(Run *r, uint32_t core, AscPipe pipe, const char *mn, unsigned nth)
{
    for (uint32_t i = 0; i < r->nev; i++) {
        const AscSimInsnEvent *e = &r->ev[i];
        if (e->core != core || e->pipe != pipe) continue;
        if (strncmp(asc_insn_info[e->op].mnemonic, mn, strlen(mn)) != 0) continue;
        if (nth-- == 0) return e;
    }
    ck_abort_msg("no event %s #%u on core %u", mn, nth, core);
    return NULL;
}

/* Config register values. */
static uint64_t cfgreg(AscCfgLayout layout, const char *const *kv)
{
    uint64_t v = asc_cfg_pack_default(layout);
    for (; *kv; kv += 3) {
        int f = asc_cfg_lookup(layout, kv[0], strlen(kv[0]));
        ck_assert_msg(f >= 0, "%s", kv[0]);
        ck_assert(asc_cfg_set(&v, (unsigned)f, (unsigned)atoi(kv[1]), (uint64_t)atoll(kv[2])));
    }
    return v;
}
#define VEC(...) cfgreg(ASC_CFG_VEC, (const char *const[]){__VA_ARGS__, NULL})
#define DMA(...) cfgreg(ASC_CFG_DMA, (const char *const[]){__VA_ARGS__, NULL})

#define GM_X 0x40000000ull

/* ---- vector: lat.vec_add + beats ----------------------------------------- */
static const char vadd_src[] =
    ".kernel k, aiv\n.arg dst, int\n.arg s0, int\n.arg s1, int\n.arg cfg, int\n"
    "  vadd.f16 x0, x1, x2, x3\n" /* issued at 500, V starts at 500 */
    "  end\n";

static uint64_t vadd_cycles(uint64_t dst, uint64_t s0, uint64_t s1, uint64_t cfg)
{
    Run *r = make("ascend910b", vadd_src, 1, NULL);
    asc_sim_set_arg(r->sim, 0, dst);
    asc_sim_set_arg(r->sim, 1, s0);
    asc_sim_set_arg(r->sim, 2, s1);
    asc_sim_set_arg(r->sim, 3, cfg);
    run_ok(r);
    const AscSimInsnEvent *e = ev(r, 0, ASC_PIPE_V, "vadd", 0);
    ck_assert_uint_eq(e->start_cycle, 500);
    uint64_t d = e->end_cycle - e->start_cycle;
    /* end waits for the vadd: total = its end */
    ck_assert_uint_eq(asc_sim_cycles(r->sim), e->end_cycle);
    done(r);
    return d;
}

START_TEST(vector_conflict_free)
{
    /* src0 at 0x0000 (groups 0..7), src1 at 0x2100 (groups 8..15), dst at
     * 0x10000 (layer 1): one row per group per beat -> 1 beat per repeat.
     * 8 repeats: 6 + 8 * 1 = 14 cycles. */
    ck_assert_uint_eq(vadd_cycles(0x10000, 0x0000, 0x2100, VEC("repeat", "0", "8")), 14);
}
END_TEST

START_TEST(vector_block_stride_16)
{
    /* blk = 16 (512 B): the 8 blocks of an operand share one bank group
     * (address bits [8:5] equal) -> 8 beats per repeat.  src0 group 0, src1
     * group 2 (0x40), dst group 4 of layer 1 (0x10080).  4 repeats:
     * 6 + 4 * 8 = 38 cycles. */
    uint64_t c = VEC("repeat", "0", "4", "blk", "0", "16", "blk", "1", "16", "blk", "2", "16");
    ck_assert_uint_eq(vadd_cycles(0x10080, 0x0000, 0x0040, c), 38);
}
END_TEST

START_TEST(vector_block_stride_8)
{
    /* blk = 8 (256 B): blocks alternate between two groups (0, 8 for src0;
     * 2, 10 for src1; 4, 12 for dst) -> 4 rows per group -> 4 beats per
     * repeat.  4 repeats: 6 + 4 * 4 = 22 cycles. */
    uint64_t c = VEC("repeat", "0", "4", "blk", "0", "8", "blk", "1", "8", "blk", "2", "8");
    ck_assert_uint_eq(vadd_cycles(0x10080, 0x0000, 0x0040, c), 22);
}
END_TEST

/* ---- cube: lat.mmad + ceil(m/16) ceil(n/16) ceil(k/16) -------------------- */
START_TEST(cube_mmad_128x256x64)
{
    /* 128 x 256 x 64 f16: 8 * 16 * 4 = 512 steps + lat.mmad 20 = 532 cycles;
     * li at 500, mmad issued at 501 -> M busy [501, 1033); end (issued 502)
     * drains at 1033. */
    static const char src[] = ".kernel k, aic\n.arg cfg, int\n"
                              "  li x1, 0\n"                 /* 500 */
                              "  mmad.f16f32 x1, x1, x1, x0\n" /* 501 */
                              "  end\n";
    Run *r = make("ascend910b", src, 1, NULL);
    uint64_t c = cfgreg(ASC_CFG_MMAD, (const char *const[]){"m", "0", "128", "n", "0", "256", "k", "0", "64", NULL});
    asc_sim_set_arg(r->sim, 0, c);
    run_ok(r);
    const AscSimInsnEvent *e = ev(r, 0, ASC_PIPE_M, "mmad", 0);
    ck_assert_uint_eq(e->start_cycle, 501);
    ck_assert_uint_eq(e->end_cycle, 501 + 532);
    ck_assert_uint_eq(e->flops, 2ull * 128 * 256 * 64);
    ck_assert_uint_eq(asc_sim_cycles(r->sim), 1033);
    done(r);
}
END_TEST

/* ---- DMA + set/wait handoff ----------------------------------------------- */
START_TEST(dma_64k_and_flag_handoff)
{
    /* 64 KB GM -> UB in one burst of 2048 x 32 B, GM address 1 GiB (512 B
     * aligned: full rate):
     *   occupancy = setup 20 + 1 burst * 2 + 65536 / 32 = 2070: [500, 2570)
     *   landed    = 2570 + gm_read_latency 1300 = 3870
     * set_flag mte2 -> v (issued 501) starts on MTE2 at 2570, occupies
     * lat.sync until 2571 and sets the flag when everything before it landed:
     * max(2571, 3870) = 3870.
     * wait_flag (issued 502) waits on V from 502; visible 3870 + 1 = 3871,
     * then occupies lat.sync: V ends at 3872.
     * end (issued 503) drains: last completion 3872 -> total 3872. */
    static const char src[] = ".kernel k, aiv\n.arg x, gm, f16\n.arg cfg, int\n"
                              "  mov_out_to_ub x2, x0, x1\n" /* x2 = 0: UB 0 */
                              "  set_flag mte2, v, 0\n"
                              "  wait_flag mte2, v, 0\n"
                              "  end\n";
    Run *r = make("ascend910b", src, 1, NULL);
    asc_sim_set_arg(r->sim, 0, GM_X);
    asc_sim_set_arg(r->sim, 1, DMA("nburst", "0", "1", "len", "0", "2048"));
    run_ok(r);
    const AscSimInsnEvent *c = ev(r, 0, ASC_PIPE_MTE2, "mov_out_to_ub", 0);
    ck_assert_uint_eq(c->start_cycle, 500);
    ck_assert_uint_eq(c->end_cycle, 2570);
    ck_assert_uint_eq(c->done_cycle, 3870);
    ck_assert_uint_eq(c->bytes, 65536);
    const AscSimInsnEvent *s = ev(r, 0, ASC_PIPE_MTE2, "set_flag", 0);
    ck_assert_uint_eq(s->start_cycle, 2570);
    ck_assert_uint_eq(s->end_cycle, 2571);
    ck_assert_uint_eq(s->done_cycle, 3870);
    const AscSimInsnEvent *w = ev(r, 0, ASC_PIPE_V, "wait_flag", 0);
    ck_assert_uint_eq(w->start_cycle, 502);
    ck_assert_uint_eq(w->end_cycle, 3872);
    ck_assert_uint_eq(w->stall_cycles, 3871 - 502);
    ck_assert_int_eq(w->stall, ASC_STALL_FLAG);
    ck_assert_uint_eq(asc_sim_cycles(r->sim), 3872);
    AscSimPipeStats ps;
    ck_assert(asc_sim_pipe_stats(r->sim, 0, ASC_PIPE_V, &ps));
    ck_assert_uint_eq(ps.flag_wait_by[ASC_PIPE_MTE2][0], 3369);
    ck_assert_uint_eq(ps.busy_cycles, 1);
    done(r);
}
END_TEST

/* ---- bar: later copies wait for earlier ones to land ---------------------- */
static uint64_t two_copies(bool bar)
{
    char src[512];
    snprintf(src, sizeof src,
             ".kernel k, aiv\n.arg x, gm, f16\n.arg cfg, int\n"
             "  mov_out_to_ub x2, x0, x1\n"
             "%s"
             "  mov_out_to_ub x2, x0, x1\n"
             "  end\n",
             bar ? "  bar mte2\n" : "");
    Run *r = make("ascend910b", src, 1, NULL);
    asc_sim_set_arg(r->sim, 0, GM_X);
    asc_sim_set_arg(r->sim, 1, DMA("nburst", "0", "1", "len", "0", "2048"));
    run_ok(r);
    uint64_t t = asc_sim_cycles(r->sim);
    if (bar) {
        AscSimPipeStats ps;
        ck_assert(asc_sim_pipe_stats(r->sim, 0, ASC_PIPE_MTE2, &ps));
        /* bar starts at 2570, occupies lat.sync to 2571, waits until 3870 */
        ck_assert_uint_eq(ps.barrier_cycles, 3870 - 2571);
    }
    done(r);
    return t;
}

START_TEST(barrier_orders_completion)
{
    /* no bar: copy 1 [500, 2570), copy 2 starts when the pipe is free:
     * [2570, 4640), lands 5940 = total.
     * bar mte2: copy 2 starts after copy 1 landed (3870): [3870, 5940),
     * lands 7240 = total. */
    ck_assert_uint_eq(two_copies(false), 5940);
    ck_assert_uint_eq(two_copies(true), 7240);
}
END_TEST

/* ---- queue full -------------------------------------------------------------- */
START_TEST(queue_full_stall)
{
    /* queue_depth = 2; three li (500, 501, 502), then four 8-repeat vadds
     * of 14 cycles each:
     *   #1 issued 503, starts at once (the queue is empty again)
     *   #2 issued 504, #3 issued 505 (queue full: 2 entries)
     *   #4 at 506 finds the queue full; #2 leaves the queue at 517 when #1
     *      ends, so #4 issues at 517: 11 queue-full cycles.
     *   V: [503,517) [517,531) [531,545) [545,559); end (518) drains -> 559. */
    static const char src[] = ".kernel k, aiv\n.arg cfg, int\n"
                              "  li x1, 0\n  li x2, 0x2100\n  li x3, 0x10000\n" /* 500..502 */
                              "  vadd.f16 x3, x1, x2, x0\n  vadd.f16 x3, x1, x2, x0\n"
                              "  vadd.f16 x3, x1, x2, x0\n  vadd.f16 x3, x1, x2, x0\n"
                              "  end\n";
    Run *r = make("ascend910b", src, 1, (const char *const[]){"queue_depth=2", NULL});
    asc_sim_set_arg(r->sim, 0, VEC("repeat", "0", "8"));
    run_ok(r);
    ck_assert_uint_eq(ev(r, 0, ASC_PIPE_V, "vadd", 0)->start_cycle, 503);
    ck_assert_uint_eq(ev(r, 0, ASC_PIPE_V, "vadd", 3)->issue_cycle, 517);
    ck_assert_uint_eq(ev(r, 0, ASC_PIPE_V, "vadd", 3)->end_cycle, 559);
    AscSimPipeStats ps;
    ck_assert(asc_sim_pipe_stats(r->sim, 0, ASC_PIPE_S, &ps));
    ck_assert_uint_eq(ps.queue_full_cycles, 11);
    ck_assert_uint_eq(asc_sim_cycles(r->sim), 559);
    done(r);
}
END_TEST

/* ---- HBM sharing --------------------------------------------------------------- */
static const char hbm_src[] = ".kernel k, aiv\n.arg x, gm, f16\n.arg cfg, int\n"
                              "  mfspr x3, block_idx\n"  /* 500 */
                              "  shli x3, x3, 16\n"      /* 501: 64 KB per core */
                              "  add x0, x0, x3\n"       /* 502 */
                              "  mov_out_to_ub x2, x0, x1\n" /* 503 */
                              "  end\n";

static void hbm_case(uint32_t blocks, uint64_t xfer_cycles)
{
    Run *r = make("ascend910b", hbm_src, blocks, NULL);
    asc_sim_set_arg(r->sim, 0, GM_X);
    asc_sim_set_arg(r->sim, 1, DMA("nburst", "0", "1", "len", "0", "2048"));
    run_ok(r);
    for (uint32_t c = 0; c < blocks; c++) {
        const AscSimInsnEvent *e = ev(r, c, ASC_PIPE_MTE2, "mov_out_to_ub", 0);
        ck_assert_uint_eq(e->start_cycle, 503);
        ck_assert_uint_eq(e->end_cycle, 503 + 22 + xfer_cycles);
        ck_assert_uint_eq(e->hbm_extra_cycles, xfer_cycles - 2048);
        ck_assert_uint_eq(e->done_cycle, e->end_cycle + 1300);
    }
    ck_assert_uint_eq(asc_sim_cycles(r->sim), 503 + 22 + xfer_cycles + 1300);
    done(r);
}

START_TEST(hbm_sharing)
{
    /* one core: 32 B/cycle -> 65536 / 32 = 2048 transfer cycles after the
     * 22 setup cycles.  20 cores: 20 * 32 = 640 <= 648, still 32 each (648/20
     * = 32.4 is above the per-core rate).  24 cores: 24 * 32 = 768 > 648, so
     * each gets 648 / 24 = 27 B/cycle: ceil(65536 / 27) = 2428 cycles, the
     * per-core bandwidth 65536 / 2428 = 26.99 B/cycle = hbm / 24; 380 cycles
     * of HBM contention per core. */
    hbm_case(1, 2048);
    hbm_case(20, 2048);
    hbm_case(24, 2428);
}
END_TEST


/* ---- double buffering ------------------------------------------------------- */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    char *buf = calloc(1, 1 << 16);
    fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

static uint64_t vadd_kernel_cycles(const char *target, const char *name, const char *const *sets, uint32_t blocks,
                                   uint64_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/asm/%s.s", ASC_SOURCE_DIR, name);
    char *src = slurp(path);
    Run *r = make(target, src, blocks, sets);
    free(src);
    uint64_t x, y, z;
    ck_assert(asc_sim_gm_place(r->sim, n * 2, &x) && asc_sim_gm_place(r->sim, n * 2, &y) &&
              asc_sim_gm_place(r->sim, n * 2, &z));
    asc_sim_set_arg(r->sim, 0, x);
    asc_sim_set_arg(r->sim, 1, y);
    asc_sim_set_arg(r->sim, 2, z);
    asc_sim_set_arg(r->sim, 3, n);
    run_ok(r);
    uint64_t c = asc_sim_cycles(r->sim);
    done(r);
    return c;
}

START_TEST(double_buffering_ratio)
{
    /* The lead's kernels/asm/vadd_{single,double}.s on the same 64 Ki f16
     * elements: double buffering overlaps MTE2, V and MTE3 and must take at
     * most 0.6x the cycles, on both targets' profiles as shipped. */
    struct {
        const char *target;
        const char *const *sets;
    } cases[] = {{"ascend910b", NULL}, {"teach", NULL}};
    for (unsigned i = 0; i < 2; i++) {
        uint64_t single = vadd_kernel_cycles(cases[i].target, "vadd_single", cases[i].sets, 1, 65536);
        uint64_t dbl = vadd_kernel_cycles(cases[i].target, "vadd_double", cases[i].sets, 1, 65536);
        printf("double buffering on %s: single %llu, double %llu cycles, ratio %.3f\n", cases[i].target,
               (unsigned long long)single, (unsigned long long)dbl, (double)dbl / (double)single);
        ck_assert_msg(dbl * 10 <= single * 6, "%s: double %llu vs single %llu", cases[i].target,
                      (unsigned long long)dbl, (unsigned long long)single);
    }
}
END_TEST

Suite *sim_timing_suite(void)
{
    Suite *s = suite_create("sim_timing");
    TCase *tc = tcase_create("timing");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, vector_conflict_free);
    tcase_add_test(tc, vector_block_stride_16);
    tcase_add_test(tc, vector_block_stride_8);
    tcase_add_test(tc, cube_mmad_128x256x64);
    tcase_add_test(tc, dma_64k_and_flag_handoff);
    tcase_add_test(tc, barrier_orders_completion);
    tcase_add_test(tc, queue_full_stall);
    tcase_add_test(tc, hbm_sharing);
    tcase_add_test(tc, double_buffering_ratio);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return asc_check_run(sim_timing_suite());
}
