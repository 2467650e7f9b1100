/* test_fp16.c -- fp16.c against the independent frexp/ldexp reference of
 * exec_ref.h: every half and bfloat16 value widened, and f32 -> half/bf16
 * under every rounding mode on corner cases and random bit patterns. */
#include <check.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "exec_ref.h"
#include "check_main.h"

static float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t f_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Small deterministic generator (xorshift64*). */
static uint64_t rnd_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

START_TEST(widen_all)
{
    for (uint32_t h = 0; h < 65536; h++) {
        float f = asc_f16_to_f32((uint16_t)h);
        double r = ref_from_half((uint16_t)h);
        if (isnan(r)) {
            ck_assert_msg(isnan(f), "half 0x%04x", h);
            ck_assert_msg(f_bits(f) & 0x400000u, "NaN from half 0x%04x must be quiet", h);
        } else {
            ck_assert_msg((double)f == r && !signbit(f) == !signbit(r), "half 0x%04x: %g vs %g", h, f, r);
            /* and back, exactly */
            ck_assert_uint_eq(asc_f32_to_f16(f), h);
        }
        float b = asc_bf16_to_f32((uint16_t)h);
        double rb = ref_from_bf16((uint16_t)h);
        if (isnan(rb))
            ck_assert(isnan(b));
        else {
            ck_assert_msg((double)b == rb, "bf16 0x%04x", h);
            ck_assert_uint_eq(asc_f32_to_bf16(b), h);
        }
    }
}
END_TEST

static void check_one(float f)
{
    for (int mode = 0; mode <= 6; mode++) {
        uint16_t got = asc_f32_to_f16_rnd(f, (AscRnd)mode), want = ref_to_half(f, mode);
        if (isnan(f)) {
            ck_assert_msg((got & 0x7c00) == 0x7c00 && (got & 0x3ff) && (got & 0x200), "NaN -> quiet half");
        } else {
            ck_assert_msg(got == want, "f32 %a (0x%08x) mode %d: half 0x%04x, reference 0x%04x", f, f_bits(f), mode,
                          got, want);
        }
        uint16_t gb = asc_f32_to_bf16_rnd(f, (AscRnd)mode), wb = ref_to_bf16(f, mode);
        if (!isnan(f))
            ck_assert_msg(gb == wb, "f32 %a mode %d: bf16 0x%04x, reference 0x%04x", f, mode, gb, wb);
        else
            ck_assert((gb & 0x7f80) == 0x7f80 && (gb & 0x7f));
    }
}

START_TEST(narrow_corners)
{
    const float corners[] = {
        0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 65536.0f, 1e10f, -1e10f,
        INFINITY, -INFINITY, NAN, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f, 0x1.0p-14f, 0x1.ffcp-15f,
        0x1.ff8p-15f, 1.0f + 0x1p-11f, 1.0f + 0x1p-11f + 0x1p-20f, 1.0f + 3 * 0x1p-11f, -(1.0f + 0x1p-11f),
        2049.0f, 2051.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 3.0e38f, 0x1.fffffep127f, 1.00390625f,
        1.01171875f, 0x1.ffp127f, 0x1.ff8p127f,
    };
    for (size_t i = 0; i < sizeof corners / sizeof corners[0]; i++) check_one(corners[i]);
    /* named cases */
    ck_assert_uint_eq(asc_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);          /* tie to even (down) */
    ck_assert_uint_eq(asc_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);      /* tie to even (up) */
    ck_assert_uint_eq(asc_f32_to_f16(65520.0f), 0x7c00);                /* overflow to inf */
    ck_assert_uint_eq(asc_f32_to_f16_rnd(65520.0f, ASC_RND_TRUNC), 0x7bff);
    ck_assert_uint_eq(asc_f32_to_f16(0x1p-24f), 0x0001);                /* smallest subnormal */
    ck_assert_uint_eq(asc_f32_to_f16(0x1p-25f), 0x0000);                /* tie to even -> 0 */
    ck_assert_uint_eq(asc_f32_to_f16(-0x1p-26f), 0x8000);               /* -0 */
    ck_assert_uint_eq(asc_f32_to_f16_rnd(0x1p-26f, ASC_RND_CEIL), 0x0001);
    ck_assert_uint_eq(asc_f32_to_f16_rnd(1.0f + 0x1p-12f, ASC_RND_ODD), 0x3c01);
    ck_assert_uint_eq(asc_f32_to_bf16(bits_f(0x3f808000u)), 0x3f80);    /* bf16 tie to even */
    ck_assert_uint_eq(asc_f32_to_bf16(bits_f(0x3f818000u)), 0x3f82);
    ck_assert_uint_eq(asc_f32_to_bf16(bits_f(0x7f7fffffu)), 0x7f80);    /* overflow to inf */
}
END_TEST

START_TEST(narrow_random)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 120000; i++) {
        uint32_t u = (uint32_t)rnd_next(&s);
        if (i & 1) u = (u & 0x807fffffu) | ((uint32_t)(100 + (rnd_next(&s) % 60)) << 23); /* half's range */
        check_one(bits_f(u));
    }
}
END_TEST

START_TEST(narrow_fast_path)
{
    /* asc_f32_to_f16 has an integer fast path for normal results; it must
     * agree with the general rounder (asc_f32_to_f16_rnd, nearest even)
     * everywhere: a sweep of all f32 patterns in steps of 4099, and every
     * pattern near the fast path's edges against the reference */
    for (uint64_t u = 0; u <= 0xffffffffull; u += 4099) {
        float f = bits_f((uint32_t)u);
        if (f != f) continue; /* NaN payloads: both quiet them, checked by check_one */
        ck_assert_msg(asc_f32_to_f16(f) == asc_f32_to_f16_rnd(f, ASC_RND_RINT), "0x%08x", (unsigned)u);
    }
    static const uint32_t edges[] = {0x38800000u, 0x477fe000u, 0x477ff000u, 0x3f800000u, 0x38000000u};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (uint32_t d = 0; d < 0x1000; d++) {
            check_one(bits_f(edges[e] - 0x800 + d));
            check_one(bits_f((edges[e] - 0x800 + d) | 0x80000000u));
        }
}
END_TEST

START_TEST(other_roundings)
{
    ck_assert(asc_round_integral(2.5, ASC_RND_RINT) == 2.0);
    ck_assert(asc_round_integral(3.5, ASC_RND_NONE) == 4.0);
    ck_assert(asc_round_integral(-2.5, ASC_RND_ROUND) == -3.0);
    ck_assert(asc_round_integral(2.2, ASC_RND_ODD) == 3.0);
    ck_assert(asc_round_integral(3.0, ASC_RND_ODD) == 3.0);
    ck_assert(signbit(asc_round_integral(-0.3, ASC_RND_RINT)));
    ck_assert_int_eq(asc_float_to_int_sat(NAN, ASC_RND_RINT, -128, 127), 0);
    ck_assert_int_eq(asc_float_to_int_sat(1e9, ASC_RND_RINT, -128, 127), 127);
    ck_assert_int_eq(asc_float_to_int_sat(-INFINITY, ASC_RND_RINT, -128, 127), -128);
    ck_assert(asc_f64_to_f32_rnd(16777217.0, ASC_RND_RINT) == 16777216.0f);
    ck_assert(asc_f64_to_f32_rnd(16777217.0, ASC_RND_CEIL) == 16777218.0f);
    ck_assert(asc_f64_to_f32_rnd(16777217.0, ASC_RND_ROUND) == 16777218.0f);
    ck_assert(asc_f64_to_f32_rnd(-16777217.0, ASC_RND_TRUNC) == -16777216.0f);
    ck_assert(asc_f64_to_f32_rnd(16777219.0, ASC_RND_ODD) == 16777218.0f);
    uint64_t s = 12345;
    for (int i = 0; i < 30000; i++) {
        int32_t v = (int32_t)rnd_next(&s);
        for (int mode = 0; mode <= 6; mode++) {
            float got = asc_f64_to_f32_rnd((double)v, (AscRnd)mode);
            float want = ref_to_f32((double)v, mode);
            ck_assert_msg(got == want, "s32 %d mode %d: %a vs %a", v, mode, got, want);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fp16");
    TCase *tc = tcase_create("fp16");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, widen_all);
    tcase_add_test(tc, narrow_corners);
    tcase_add_test(tc, narrow_random);
    tcase_add_test(tc, narrow_fast_path);
    tcase_add_test(tc, other_roundings);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
