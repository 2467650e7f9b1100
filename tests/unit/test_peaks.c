/* test_peaks.c -- chip peaks follow the profile keys (target/peaks.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "asc/config.h"
#include "check_main.h"

static AscConfig load(const char *target, const char *set)
{
    AscConfig c;
    AscDiags d;
    asc_diags_init(&d, NULL);
    const char *sets[1] = {set};
    ck_assert(asc_config_load(&c, NULL, target, sets, set ? 1 : 0, &d));
    asc_diags_free(&d);
    return c;
}

START_TEST(peaks_from_keys)
{
    AscConfig c = load("ascend910b", NULL);
    AscPeaks p;
    asc_config_peaks(&c, &p);
    /* 16 x 16 x 16 multiply-adds per cycle, 2 FLOP each */
    ck_assert_int_eq(p.cube_flop_per_cycle[ASC_PEAK_B16],
                     2 * c.v[ASC_KEY_CUBE_M0] * c.v[ASC_KEY_CUBE_N0] * c.v[ASC_KEY_CUBE_K0_B16]);
    ck_assert_int_eq(p.cube_flop_per_cycle[ASC_PEAK_B16], 8192);
    ck_assert_int_eq(p.cube_flop_per_cycle[ASC_PEAK_B8], 16384);
    ck_assert_int_eq(p.cube_cores, 24);
    ck_assert_int_eq(p.vector_cores, 48); /* split: 2 AIV per AI core */
    ck_assert_int_eq(p.vec_flop_per_cycle[0], 128);
    char *t = asc_config_peaks_text(&c, NULL);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(strstr(t, "363.7 TFLOP/s")); /* 8192 x 24 x 1850 MHz */
    ck_assert_ptr_nonnull(strstr(t, "1.199 TB/s"));    /* 648 B x 1850 MHz */
    free(t);

    c = load("ascend910b", "cube.m0=32");
    asc_config_peaks(&c, &p);
    ck_assert_int_eq(p.cube_flop_per_cycle[ASC_PEAK_B16], 16384);
    c = load("ascend910b", "vec.base_beats=2");
    asc_config_peaks(&c, &p);
    ck_assert_int_eq(p.vec_flop_per_cycle[1], 32);

    c = load("ascend910", NULL); /* coupled: every core has both units */
    asc_config_peaks(&c, &p);
    ck_assert_int_eq(p.cube_cores, 32);
    ck_assert_int_eq(p.vector_cores, 32);
    t = asc_config_peaks_text(&c, NULL);
    ck_assert_ptr_nonnull(strstr(t, "262.1 TFLOP/s"));
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("peaks");
    TCase *tc = tcase_create("peaks");
    tcase_add_test(tc, peaks_from_keys);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
