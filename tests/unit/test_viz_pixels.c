/* test_viz_pixels.c -- acceptance of the viewer (docs/viewer.md): render the golden traces with
 * `asc-viz TRACE --png OUT --size 1600x900` (SDL_VIDEODRIVER=dummy) and
 * read the pixels back.
 *
 * For each of the MTE2, VECTOR and MTE3 rows of core0.veccore0 the test
 * samples one pixel row inside the row's band, away from labels (y0 + 3,
 * docs/viewer.md), in every plot column, and calls the column busy there
 * when the colour is neither a background (white, #F6F7F9, grid #E2E4E8)
 * nor a stall (pale yellow, hatch) nor a flag arrow (#374151).  The
 * double-buffered vadd must have runs of at least 3 adjacent columns where
 * two or more of those rows are busy; the single-buffered one none (a lone
 * column can be shared at a hand-off, where one stage ends a couple of
 * cycles before the next starts, or where an arrow crosses: hence runs).
 * The bank-conflict demo must show the red bank stripe on VECTOR.
 *
 * Issue 13 item 4: a 24-core vadd (vadd_double on ascend910b, --blocks 48:
 * 24 AI cores x 2 vector cores, zero inputs, made here with asc-as and
 * asc-sim) rendered with no --size must show all 24 cores, each as a
 * summary row with its name in the label column and MTE2 heat in its
 * MTE2 strip, and the chip's HBM GB/s counter track (its step line in
 * every plot column, its fill where HBM is busy); with a height too small
 * the CLI names the cores it left out on stderr. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asc/viz.h"
#include "check_main.h"

#define W 1600
#define H 900

typedef struct Img {
    AscVizModel *m;
    AscVizView v;
    uint8_t *px;
    int w, h;
} Img;

static void render(Img *im, const char *golden)
{
    char trace[512], png[512], cmd[1600];
    snprintf(trace, sizeof trace, "%s/tests/golden/%s.json", ASC_SOURCE_DIR, golden);
    snprintf(png, sizeof png, "%s/test_viz_pixels_%ld_%s.png", ASC_BINARY_DIR, (long)getpid(), golden);
    snprintf(cmd, sizeof cmd, "SDL_VIDEODRIVER=dummy '%s/viz/asc-viz' '%s' --png '%s' --size %dx%d", ASC_BINARY_DIR,
             trace, png, W, H);
    ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
    AscVizError err;
    ck_assert_msg(asc_viz_png_read(png, &im->px, &im->w, &im->h, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(im->w, W);
    ck_assert_int_eq(im->h, H);
    remove(png);
    /* the same model and view as the render: fit, same size */
    ck_assert_msg(asc_viz_model_load_file(&im->m, trace, NULL, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(asc_viz_view_init(&im->v, im->m, &(AscVizViewDesc){.width = W, .height = H}), 0);
}

static void release(Img *im)
{
    asc_viz_view_free(&im->v);
    asc_viz_model_free(im->m);
    free(im->px);
}

static uint32_t pixel(const Img *im, int x, int y)
{
    const uint8_t *p = im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 4;
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static bool busy_colour(uint32_t rgb)
{
    static const uint32_t not_busy[] = {0xFFFFFF, 0xF6F7F9, 0xE2E4E8, 0xFFF1A0, 0xB59A00, 0x374151};
    for (size_t i = 0; i < sizeof not_busy / sizeof *not_busy; i++)
        if (rgb == not_busy[i]) return false;
    return true;
}

/* The sampling y of a lane of core0.veccore0. */
static int lane_y(const Img *im, const char *lane)
{
    int row = asc_viz_model_find_row(im->m, "core0.veccore0", lane);
    ck_assert_msg(row >= 0, "no row %s", lane);
    int y0, y1;
    ck_assert(asc_viz_view_row_band(&im->v, (uint32_t)row, &y0, &y1));
    ck_assert_int_gt(y1 - y0, 8);
    return y0 + 3;
}

/* Longest run of adjacent columns with >= 2 of MTE2/VECTOR/MTE3 busy; also
 * the number of busy columns per lane. */
static int overlap_run(const Img *im, int busy_cols[3], int *overlap_cols)
{
    const char *lanes[3] = {"MTE2", "VECTOR", "MTE3"};
    int ys[3];
    for (int k = 0; k < 3; k++) ys[k] = lane_y(im, lanes[k]), busy_cols[k] = 0;
    int run = 0, best = 0;
    *overlap_cols = 0;
    /* the view has the trace's clock: a cycle in the middle lands in the plot */
    ck_assert_int_ge(asc_viz_view_x_of_cycle(&im->v, 4000), im->v.plot_x0);
    for (int x = im->v.plot_x0; x < im->v.plot_x1; x++) {
        int n = 0;
        for (int k = 0; k < 3; k++)
            if (busy_colour(pixel(im, x, ys[k]))) n++, busy_cols[k]++;
        if (n >= 2) {
            ++*overlap_cols;
            if (++run > best) best = run;
        } else run = 0;
    }
    return best;
}

START_TEST(double_buffered_lanes_overlap)
{
    Img im;
    render(&im, "vadd_double");
    int busy[3], cols;
    int run = overlap_run(&im, busy, &cols);
    for (int k = 0; k < 3; k++) ck_assert_int_gt(busy[k], 0);
    ck_assert_msg(run >= 3, "longest overlap run %d columns (%d overlap columns)", run, cols);
    ck_assert_int_gt(cols, 50);
    release(&im);
}
END_TEST

START_TEST(single_buffered_lanes_do_not)
{
    Img im;
    render(&im, "vadd_single");
    int busy[3], cols;
    int run = overlap_run(&im, busy, &cols);
    for (int k = 0; k < 3; k++) ck_assert_int_gt(busy[k], 0); /* the sampler does see each stage */
    ck_assert_msg(run < 3, "longest overlap run %d columns", run);
    release(&im);
}
END_TEST

START_TEST(bank_conflicts_striped)
{
    Img im;
    render(&im, "vadd_bank_conflict");
    int y = lane_y(&im, "VECTOR"), red = 0;
    for (int x = im.v.plot_x0; x < im.v.plot_x1; x++) red += pixel(&im, x, y) == 0xE00000;
    ck_assert_int_gt(red, 0);
    release(&im);
}
END_TEST

/* A zero-filled f16 .npy of n elements (format 1.0). */
static void write_zero_npy(const char *path, long n)
{
    char hdr[128];
    int hl = snprintf(hdr, sizeof hdr, "{'descr': '<f2', 'fortran_order': False, 'shape': (%ld,), }", n);
    int total = (10 + hl + 1 + 63) / 64 * 64, pad = total - 10 - hl - 1;
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((total - 10) & 255, f);
    fputc((total - 10) >> 8, f);
    fwrite(hdr, 1, (size_t)hl, f);
    for (int i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    static const char zero[4096];
    for (long left = n * 2; left > 0; left -= (long)sizeof zero)
        fwrite(zero, 1, left < (long)sizeof zero ? (size_t)left : sizeof zero, f);
    fclose(f);
}

/* Make the 24-core trace: TMP.json; returns nothing, asserts. */
static void make_chip_trace(const char *dir)
{
    char cmd[4096], npy[600];
    long n = 2L * 4096 * 48; /* vadd_double needs n a multiple of 2 * TILE * blocks */
    snprintf(npy, sizeof npy, "%s/x.npy", dir);
    write_zero_npy(npy, n);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s/asm/asc-as' -o '%s/vadd.bin' kernels/asm/vadd_double.s && "
             "'%s/sim/asc-sim' run '%s/vadd.bin' --blocks 48 --arg x='%s' --arg y='%s' --arg z=@'%s/z.npy':%ld:f16 "
             "--arg n=%ld --trace '%s/t.json' > '%s/sim.txt'",
             ASC_SOURCE_DIR, ASC_BINARY_DIR, dir, ASC_BINARY_DIR, dir, npy, npy, dir, n, n, dir, dir);
    ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

static bool is_bg(uint32_t rgb)
{
    return rgb == 0xFFFFFF || rgb == 0xF6F7F9 || rgb == 0xE2E4E8 || rgb == 0x374151;
}

static bool file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

START_TEST(chip_24_cores_and_hbm)
{
    char dir[512], cmd[2048], png[600], errf[600], trace[600];
    snprintf(dir, sizeof dir, "%s/test_viz_pixels_chip_%ld", ASC_BINARY_DIR, (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    ck_assert(system(cmd) == 0);
    make_chip_trace(dir);
    snprintf(trace, sizeof trace, "%s/t.json", dir);
    snprintf(png, sizeof png, "%s/chip.png", dir);
    snprintf(errf, sizeof errf, "%s/stderr.txt", dir);
    /* no --size: asc-viz picks a height that shows every core, and says nothing */
    snprintf(cmd, sizeof cmd, "SDL_VIDEODRIVER=dummy '%s/viz/asc-viz' '%s' --png '%s' 2> '%s'", ASC_BINARY_DIR, trace,
             png, errf);
    ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
    ck_assert_msg(!file_has(errf, "left out"), "asc-viz named cores it left out");
    Img im;
    AscVizError err;
    ck_assert_msg(asc_viz_png_read(png, &im.px, &im.w, &im.h, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(im.w, 1600);
    ck_assert_int_eq(im.h, 900); /* 24 summary rows fit the default height */
    ck_assert_msg(asc_viz_model_load_file(&im.m, trace, NULL, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(asc_viz_view_init(&im.v, im.m, &(AscVizViewDesc){.width = im.w, .height = im.h}), 0);
    const AscVizView *v = &im.v;
    /* the library agrees: every group with rows is shown */
    AscVizRenderInfo info;
    char png2[600];
    snprintf(png2, sizeof png2, "%s/chip2.png", dir);
    ck_assert_msg(asc_viz_render_png_info(im.m, &(AscVizRenderDesc){0}, png2, &info, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(info.ngroups, 24);
    ck_assert_uint_eq(info.groups_shown, 24);
    ck_assert_str_eq(info.groups_left_out, "");

    uint32_t ncores = 0;
    for (uint32_t g = 0; g < asc_viz_model_group_count(im.m); g++) {
        AscVizGroupInfo gi = asc_viz_model_group(im.m, g);
        if (!gi.nrows) continue;
        char want[16];
        snprintf(want, sizeof want, "core%u", ncores);
        ck_assert_str_eq(gi.name, want);
        ncores++;
        int y0, y1;
        ck_assert_msg(asc_viz_view_group_band(v, g, &y0, &y1), "%s has no summary row", gi.name);
        ck_assert_msg(y0 >= v->plot_y0 && y1 <= v->plot_y1 && y1 <= im.h, "%s is cut off", gi.name);
        /* its name: dark text pixels in the label column */
        int dark = 0;
        for (int y = y0; y < y1; y++)
            for (int x = 18; x < 18 + 7 * 6; x++) {
                uint32_t c = pixel(&im, x, y);
                dark += ((c >> 16) & 255) + ((c >> 8) & 255) + (c & 255) < 3 * 110;
            }
        ck_assert_msg(dark > 20, "%s: no label drawn (%d dark pixels)", gi.name, dark);
        /* the MTE2 strip (same geometry as viz_draw.c's draw_groups) is hot
         * over the loads: coloured in many columns */
        uint32_t k = 0;
        while (k < gi.npipes && strcmp(asc_viz_model_group_pipe(im.m, g, k), "MTE2")) k++;
        ck_assert_uint_lt(k, gi.npipes);
        int inner = y1 - y0 - 4, sh = inner / (int)gi.npipes;
        int ys = y0 + 2 + (inner - sh * (int)gi.npipes) / 2 + (int)k * sh + sh / 2, hot = 0;
        for (int x = v->plot_x0; x < v->plot_x1; x++) hot += !is_bg(pixel(&im, x, ys));
        ck_assert_msg(hot > (v->plot_x1 - v->plot_x0) / 3, "%s: MTE2 heat in %d columns", gi.name, hot);
    }
    ck_assert_uint_eq(ncores, 24);
    /* the HBM counter: its band is in the image, its step line (violet
     * 0x7C3AED darkened by 25%) in (nearly) every column, its fill in some */
    int c = -1;
    for (uint32_t i = 0; i < asc_viz_model_counter_count(im.m); i++)
        if (!strcmp(asc_viz_model_counter(im.m, i).name, "HBM GB/s")) c = (int)i;
    ck_assert_int_ge(c, 0);
    int y0, y1;
    ck_assert_msg(asc_viz_view_counter_band(v, (uint32_t)c, &y0, &y1), "no HBM track");
    ck_assert(y0 >= v->plot_y0 && y1 <= v->plot_y1);
    int line = 0, filled = 0, cols = v->plot_x1 - v->plot_x0;
    for (int x = v->plot_x0; x < v->plot_x1; x++) {
        bool l = false, f = false;
        for (int y = y0; y < y1; y++) {
            uint32_t p = pixel(&im, x, y);
            l |= p == 0x5D2CB2;
            f |= p == 0xDAC8FA; /* blend(white, 0x7C3AED, 0.28) */
        }
        line += l;
        filled += f;
    }
    ck_assert_msg(line >= cols * 95 / 100, "HBM line in %d of %d columns", line, cols);
    ck_assert_msg(filled > cols / 10, "HBM fill in %d columns", filled);
    release(&im);

    /* a height that cannot show them all: the PNG is still written, and
     * stderr names the cores left out */
    snprintf(cmd, sizeof cmd, "SDL_VIDEODRIVER=dummy '%s/viz/asc-viz' '%s' --png '%s' --size 1600x400 2> '%s'",
             ASC_BINARY_DIR, trace, png, errf);
    ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
    ck_assert(file_has(errf, "left out: core"));
    ck_assert(file_has(errf, "core23"));
    ck_assert(!file_has(errf, "core0,"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}
END_TEST

Suite *viz_pixels_suite(void)
{
    Suite *s = suite_create("viz_pixels");
    TCase *tc = tcase_create("pixels");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, double_buffered_lanes_overlap);
    tcase_add_test(tc, single_buffered_lanes_do_not);
    tcase_add_test(tc, bank_conflicts_striped);
    tcase_add_test(tc, chip_24_cores_and_hbm);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return asc_check_run(viz_pixels_suite());
}
