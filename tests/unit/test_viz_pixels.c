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
 * The bank-conflict demo must show the red bank stripe on VECTOR. */
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

Suite *viz_pixels_suite(void)
{
    Suite *s = suite_create("viz_pixels");
    TCase *tc = tcase_create("pixels");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, double_buffered_lanes_overlap);
    tcase_add_test(tc, single_buffered_lanes_do_not);
    tcase_add_test(tc, bank_conflicts_striped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return asc_check_run(viz_pixels_suite());
}
