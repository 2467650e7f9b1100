/* test_sim_gm.c -- GM write tracking (asc_sim_gm_written) and GM copies in parts
 * (asc_sim_gm_read / asc_sim_gm_write of 1 MiB or more on the host threads).
 *
 * asc_sim_gm_written must never say "not written" for a range the kernel changed (a caller
 * then skips the read-back and keeps stale bytes: a silent wrong answer), so every kernel
 * write path is run here, with 1 and 2 host threads: scalar stores, DMA (mov_ub_to_out),
 * DataCopyPad (mov_ub_to_out.pad), atomic DMA stores, fixpipe; and every host write that must
 * not count (before the first asc_sim_run: asc_sim_gm_write, asc_sim_gm_fill, .rodata) or must
 * (between sliced runs).  The granularity is the 64 KiB GM page, checked at its edges. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "asc/asm.h"
#include "asc/sim.h"
#include "check_main.h"
#include "sim_fixture.h"

#define PAGE 65536ull

typedef struct Run {
    AscConfig cfg;
    AscImage img;
    AscDiags d;
    AscSim *sim;
} Run;

/* Assemble src for ascend910b and create a sim of `blocks` cores on `threads` host threads. */
static void make(Run *r, const char *src, uint32_t blocks, uint32_t threads)
{
    memset(r, 0, sizeof *r);
    asc_diags_init(&r->d, NULL);
    asc_test_profile(&r->cfg, &r->d, "ascend910b", NULL);
    asc_test_assemble(&r->img, "ascend910b", "k.s", src);
    AscSimDesc sd = {.cfg = &r->cfg, .image = &r->img, .blocks = blocks, .threads = threads};
    r->sim = asc_sim_new(&sd, &r->d);
    ck_assert_msg(r->sim != NULL, "asc_sim_new: %s", r->d.count ? r->d.items[0].msg : "?");
}

static void done(Run *r)
{
    asc_sim_free(r->sim);
    asc_image_free(&r->img);
    asc_diags_free(&r->d);
}

/* Place `bytes` of GM, fill them from the host with a pattern and pass the address as x<i>. */
static uint64_t arg(Run *r, uint32_t i, uint64_t bytes)
{
    uint64_t a;
    ck_assert(asc_sim_gm_place(r->sim, bytes, &a));
    uint8_t *p = malloc(bytes);
    ck_assert_ptr_nonnull(p);
    for (uint64_t k = 0; k < bytes; k++) p[k] = (uint8_t)(k * 7 + i);
    ck_assert(asc_sim_gm_write(r->sim, a, p, bytes));
    free(p);
    asc_sim_set_arg(r->sim, i, a);
    return a;
}

static void run_done(Run *r)
{
    AscSimStatus st = asc_sim_run(r->sim, 0);
    char msg[1024] = "";
    if (st == ASC_SIM_FAULT) asc_sim_fault_format(r->sim, msg, sizeof msg);
    ck_assert_msg(st == ASC_SIM_DONE, "status %d: %s", (int)st, msg);
}

/* A kernel that writes nothing: host data in, nothing counts as written (n 0 and ranges
 * outside GM neither); .rodata does not count either. */
START_TEST(host_writes_do_not_count)
{
    Run r;
    make(&r, ".rodata\nk0: .word 1, 2, 3\n.text\n.kernel k, aiv\n.arg a, gm, u8\n.arg b, gm, u8\n  end\n", 1,
         (uint32_t)_i + 1);
    uint64_t a = arg(&r, 0, 3 * PAGE + 5), b = arg(&r, 1, 1);
    ck_assert(!asc_sim_gm_written(r.sim, a, 3 * PAGE + 5));
    run_done(&r);
    ck_assert(!asc_sim_gm_written(r.sim, a, 3 * PAGE + 5));
    ck_assert(!asc_sim_gm_written(r.sim, b, 1));
    ck_assert(!asc_sim_gm_written(r.sim, ASC_GM_RODATA_BASE, 12));
    ck_assert(!asc_sim_gm_written(r.sim, a, 0));
    ck_assert(!asc_sim_gm_written(r.sim, 0, ~0ull));                 /* clamped to GM: nothing written */
    ck_assert(!asc_sim_gm_written(r.sim, ~0ull - 8, 8));             /* outside GM */
    done(&r);
}
END_TEST

/* One scalar byte store at the last byte of a page: that page (and any range overlapping it)
 * counts, its neighbours do not. */
START_TEST(scalar_store_page_edges)
{
    Run r;
    make(&r, ".kernel k, aiv\n.arg a, gm, u8\n  li x1, 65535\n  add x1, x0, x1\n  li x2, 9\n  st.b x2, 0(x1)\n  end\n",
         1, (uint32_t)_i + 1);
    uint64_t a = arg(&r, 0, 3 * PAGE);
    run_done(&r);
    ck_assert(asc_sim_gm_written(r.sim, a, 3 * PAGE));
    ck_assert(asc_sim_gm_written(r.sim, a + PAGE - 1, 1));
    ck_assert(asc_sim_gm_written(r.sim, a, 1));                      /* same page: conservative */
    ck_assert(asc_sim_gm_written(r.sim, a + PAGE - 2, 2));
    ck_assert(asc_sim_gm_written(r.sim, a + PAGE - 1, 2));           /* crosses into page 1 */
    ck_assert(!asc_sim_gm_written(r.sim, a + PAGE, 1));
    ck_assert(!asc_sim_gm_written(r.sim, a + PAGE, 2 * PAGE));
    uint8_t v = 0;
    ck_assert(asc_sim_gm_read(r.sim, a + PAGE - 1, &v, 1));
    ck_assert_uint_eq(v, 9);
    done(&r);
}
END_TEST

/* UB -> GM copies on each core: plain DMA into a, DataCopyPad (4 bytes) into b, an atomic f32
 * add of zeros (the bytes do not change, but they were written) into c; d untouched. */
START_TEST(dma_pad_atomic)
{
    static const char src[] =
        ".kernel k, aiv\n.arg a, gm, f32\n.arg b, gm, f32\n.arg c, gm, f32\n.arg d, gm, f32\n"
        "  mfspr x5, block_idx\n"
        "  li x6, 131072\n  mul x7, x5, x6\n" /* core i writes page 2i of each array */
        "  li x3, 0\n"
        "  add x8, x0, x7\n  mov_ub_to_out x8, x3, nburst=1, len=2\n"
        "  li x9, 16385\n" /* one burst of 4 bytes (DMAP: nburst bits 0-11, len bits 12-32) */
        "  add x8, x1, x7\n  mov_ub_to_out.pad x8, x3, x9\n"
        "  li x4, 1\n  mtspr st_atomic, x4\n"
        "  add x8, x2, x7\n  mov_ub_to_out x8, x3, nburst=1, len=1\n"
        "  end\n";
    Run r;
    make(&r, src, 8, (uint32_t)_i + 1);
    uint64_t n = 16 * PAGE + 3;
    uint64_t a = arg(&r, 0, n), b = arg(&r, 1, n), c = arg(&r, 2, n), d = arg(&r, 3, n);
    run_done(&r);
    for (uint64_t p = 0; p < 16; p++) {
        bool w = p % 2 == 0;
        ck_assert_msg(asc_sim_gm_written(r.sim, a + p * PAGE, 1) == w, "a page %llu", (unsigned long long)p);
        ck_assert_msg(asc_sim_gm_written(r.sim, b + p * PAGE + PAGE - 1, 1) == w, "b page %llu", (unsigned long long)p);
        ck_assert_msg(asc_sim_gm_written(r.sim, c + p * PAGE + 100, 4) == w, "c page %llu", (unsigned long long)p);
    }
    ck_assert(!asc_sim_gm_written(r.sim, a + 16 * PAGE, 3));
    ck_assert(!asc_sim_gm_written(r.sim, d, n));
    float f = 1;
    ck_assert(asc_sim_gm_read(r.sim, a, &f, 4));
    ck_assert(f == 0.0f); /* UB is zero: the copy did land */
    done(&r);
}
END_TEST

/* fixpipe L0C -> GM on a cube core */
START_TEST(fixpipe)
{
    Run r;
    make(&r, ".kernel k, aic\n.arg c, gm, f32\n.arg e, gm, f32\n  li x3, 0\n  fix_l0c_to_out.f32 x0, x3, m=16, n=16\n  end\n",
         1, (uint32_t)_i + 1);
    uint64_t c = arg(&r, 0, 1024), e = arg(&r, 1, 1024);
    run_done(&r);
    ck_assert(asc_sim_gm_written(r.sim, c, 1024));
    ck_assert(!asc_sim_gm_written(r.sim, e, 1024));
    done(&r);
}
END_TEST

static bool fill_ones(void *ud, void *dst, uint64_t off, size_t len)
{
    (void)ud, (void)off;
    memset(dst, 1, len);
    return true;
}

/* Sliced runs: host writes once the first asc_sim_run began count (asc_sim_gm_write and
 * asc_sim_gm_fill), those before do not. */
START_TEST(host_writes_between_slices)
{
    Run r;
    make(&r, ".kernel k, aiv\n.arg a, gm, u8\n  li x1, 200\nl:\n  addi x1, x1, -1\n  bnez x1, l\n  end\n", 1,
         (uint32_t)_i + 1);
    uint64_t a = arg(&r, 0, 4 * PAGE), b, c, e;
    ck_assert(asc_sim_gm_place(r.sim, 2 * PAGE, &b));
    ck_assert(asc_sim_gm_place(r.sim, 2 << 20, &c));
    ck_assert(asc_sim_gm_place(r.sim, 2 << 20, &e));
    ck_assert(asc_sim_gm_fill(r.sim, c, 2 << 20, fill_ones, NULL)); /* before: the host's */
    ck_assert_int_eq(asc_sim_run(r.sim, 50), ASC_SIM_LIMIT);
    ck_assert(!asc_sim_gm_written(r.sim, a, 4 * PAGE));
    uint8_t v = 5;
    ck_assert(asc_sim_gm_write(r.sim, a + 2 * PAGE + 17, &v, 1));   /* after the start: counts */
    ck_assert(asc_sim_gm_fill(r.sim, e, (2 << 20) + 0, fill_ones, NULL));
    run_done(&r);
    ck_assert(!asc_sim_gm_written(r.sim, a, 2 * PAGE));
    ck_assert(asc_sim_gm_written(r.sim, a + 2 * PAGE, 1));
    ck_assert(!asc_sim_gm_written(r.sim, a + 3 * PAGE, PAGE));
    ck_assert(!asc_sim_gm_written(r.sim, b, 2 * PAGE));
    ck_assert(!asc_sim_gm_written(r.sim, c, 2 << 20));
    ck_assert(asc_sim_gm_written(r.sim, e + (2 << 20) - 1, 1));
    done(&r);
}
END_TEST

/* asc_sim_gm_read and _write of >= 1 MiB in parts: the same bytes for 1, 2 and 3 threads,
 * never-written pages reading as zero, ranges not a multiple of anything. */
START_TEST(big_copies_in_parts)
{
    Run r;
    make(&r, ".kernel k, aiv\n  end\n", 1, (uint32_t)_i + 1);
    uint64_t n = (3u << 20) + 5, a;
    ck_assert(asc_sim_gm_place(r.sim, n + PAGE, &a));
    uint8_t *in = malloc(n), *out = malloc(n + 7);
    ck_assert(in && out);
    for (uint64_t k = 0; k < n; k++) in[k] = (uint8_t)(k * 131 + (k >> 16));
    /* a hole of never-written pages: bytes [PAGE + 3, 5 * PAGE + 3) stay unbacked */
    ck_assert(asc_sim_gm_write(r.sim, a, in, PAGE + 3));
    ck_assert(asc_sim_gm_write(r.sim, a + 5 * PAGE + 3, in + 5 * PAGE + 3, n - 5 * PAGE - 3));
    memset(in + PAGE + 3, 0, 4 * PAGE);
    run_done(&r);
    memset(out, 0xee, n + 7);
    ck_assert(asc_sim_gm_read(r.sim, a + 1, out + 1, n - 1));
    ck_assert(memcmp(out + 1, in + 1, n - 1) == 0);
    ck_assert_uint_eq(out[0], 0xee);
    ck_assert_uint_eq(out[n], 0xee); /* nothing past the range */
    ck_assert(!asc_sim_gm_read(r.sim, ~0ull - 4096, out, 2 << 20)); /* outside GM */
    free(in);
    free(out);
    done(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim_gm");
    TCase *t = tcase_create("written");
    tcase_add_loop_test(t, host_writes_do_not_count, 0, 2);
    tcase_add_loop_test(t, scalar_store_page_edges, 0, 2);
    tcase_add_loop_test(t, dma_pad_atomic, 0, 2);
    tcase_add_loop_test(t, fixpipe, 0, 2);
    tcase_add_loop_test(t, host_writes_between_slices, 0, 2);
    tcase_add_loop_test(t, big_copies_in_parts, 0, 3);
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return asc_check_run(suite()); }
