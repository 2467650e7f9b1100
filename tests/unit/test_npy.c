/* test_npy.c -- .npy reader and writer: round trips for every dtype, v1 and
 * v2 headers, and rejections (bad magic, malformed header, fortran order,
 * big-endian, truncated data) that name the file and the rule. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "asc/run.h"
#include "check_main.h"

static bool has(const AscDiags *d, const char *needle)
{
    for (uint32_t i = 0; i < d->count; i++)
        if (strstr(d->items[i].msg, needle)) return true;
    return false;
}

START_TEST(round_trip_every_dtype)
{
    static const uint8_t dts[] = {ASC_DT_F16, ASC_DT_BF16, ASC_DT_F32, ASC_DT_S8,  ASC_DT_U8,  ASC_DT_S16,
                                  ASC_DT_U16, ASC_DT_S32,  ASC_DT_U32, ASC_DT_S64, ASC_DT_U64};
    for (size_t i = 0; i < sizeof dts; i++) {
        AscNpy a = {.dtype = dts[i], .ndim = 2, .shape = {3, 5}, .count = 15};
        size_t bytes = 15 * asc_dtype_size(dts[i]);
        a.data = malloc(bytes);
        for (size_t j = 0; j < bytes; j++) a.data[j] = (uint8_t)(j * 7 + i);
        uint8_t *buf;
        size_t len;
        ck_assert(asc_npy_write(&a, &buf, &len, NULL));
        ck_assert_uint_eq(buf[6], 1);
        ck_assert_uint_eq((len - bytes) % 64, 0); /* data 64-byte aligned */
        AscNpy b;
        AscDiags d;
        asc_diags_init(&d, NULL);
        ck_assert_msg(asc_npy_parse(&b, "t.npy", buf, len, NULL, &d), "%s", d.count ? d.items[0].msg : "");
        /* bf16 is written as '<u2' and reads back as u16 that a bf16 argument accepts */
        ck_assert_uint_eq(b.dtype, dts[i] == ASC_DT_BF16 ? ASC_DT_U16 : dts[i]);
        ck_assert(dts[i] != ASC_DT_BF16 || b.bf16_ok);
        ck_assert_uint_eq(b.ndim, 2);
        ck_assert_uint_eq(b.shape[0], 3);
        ck_assert_uint_eq(b.shape[1], 5);
        ck_assert_int_eq(memcmp(a.data, b.data, bytes), 0);
        asc_npy_free(&b, NULL);
        free(buf);
        free(a.data);
        asc_diags_free(&d);
    }
}
END_TEST

/* Build a file from a header text (padded as numpy does) and data bytes. */
static size_t mk(uint8_t *out, int major, const char *hdr, size_t data)
{
    size_t pre = major == 1 ? 10 : 12, hl = strlen(hdr);
    size_t total = (pre + hl + 1 + 63) / 64 * 64, h = total - pre;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    out[8] = (uint8_t)h, out[9] = (uint8_t)(h >> 8);
    if (major != 1) out[10] = 0, out[11] = 0;
    memcpy(out + pre, hdr, hl);
    memset(out + pre + hl, ' ', h - hl - 1);
    out[total - 1] = '\n';
    memset(out + total, 0x11, data);
    return total + data;
}

START_TEST(v2_header_and_scalar_shape)
{
    uint8_t buf[512];
    size_t n = mk(buf, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16);
    AscNpy a;
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_npy_parse(&a, "v2.npy", buf, n, NULL, &d));
    ck_assert_uint_eq(a.count, 4);
    asc_npy_free(&a, NULL);
    n = mk(buf, 1, "{\"shape\": (), \"fortran_order\": False, \"descr\": \"<i8\"}", 8);
    ck_assert(asc_npy_parse(&a, "s.npy", buf, n, NULL, &d));
    ck_assert_uint_eq(a.ndim, 0);
    ck_assert_uint_eq(a.count, 1);
    asc_npy_free(&a, NULL);
    asc_diags_free(&d);
}
END_TEST

START_TEST(rejections_name_the_rule)
{
    static const struct {
        int major;
        const char *hdr;
        size_t data;
        const char *msg;
    } bad[] = {
        {1, "{'descr': '<f2', 'fortran_order': True, 'shape': (2, 2), }", 8, "bad.npy: fortran_order is True"},
        {1, "{'descr': '>f2', 'fortran_order': False, 'shape': (4,), }", 8, "big-endian"},
        {1, "{'descr': '<c8', 'fortran_order': False, 'shape': (4,), }", 32, "dtype '<c8' is not supported"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", 7, "data is 7 bytes but shape and dtype need 8"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", 9, "truncated or extra"},
        {1, "{'descr': '<f2', 'shape': (4,), }", 8, "needs 'descr', 'fortran_order' and 'shape'"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (-4,), }", 8, "non-negative"},
        {1, "['descr']", 0, "dict literal"},
        {4, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", 8, "version 4.0 is not supported"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8, "below 2^63"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 8, "shape too large"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (4611686018427387904,), }", 8, "truncated or extra"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 2, 3, 4, 5, 6, 7, 8, 9), }", 8, "more than 8"},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), 'extra': 1}", 8, "unexpected key 'extra'"},
        {1, "{'descr': '<f2', 'fortran_order': Maybe, 'shape': (4,), }", 8, "True or False"},
        {1, "{'descr': '<f2' 'fortran_order': False}", 8, "expected ',' or '}'"},
        {1, "{'descr': 5, 'fortran_order': False, 'shape': (4,), }", 8, "descr must be a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t buf[512];
        size_t n = mk(buf, bad[i].major, bad[i].hdr, bad[i].data);
        AscNpy a;
        AscDiags d;
        asc_diags_init(&d, NULL);
        ck_assert_msg(!asc_npy_parse(&a, "bad.npy", buf, n, NULL, &d), "case %zu accepted", i);
        ck_assert_msg(has(&d, bad[i].msg) && has(&d, "bad.npy"), "case %zu: %s", i, d.count ? d.items[0].msg : "");
        ck_assert_int_eq(d.items[0].id, ASC_DIAG_NPY);
        asc_diags_free(&d);
    }
    AscNpy a;
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(!asc_npy_parse(&a, "x.npy", (const uint8_t *)"hello world", 11, NULL, &d));
    ck_assert(has(&d, "not a .npy file"));
    uint8_t buf[512];
    size_t n = mk(buf, 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", 8);
    ck_assert(!asc_npy_parse(&a, "cut.npy", buf, 40, NULL, &d)); /* header cut short */
    ck_assert(has(&d, "truncated .npy header"));
    (void)n;
    asc_diags_free(&d);
}
END_TEST

START_TEST(header_ends_inside_a_number)
{
    /* Regression (found reviewing the parser for the fuzzer): a header whose
     * last bytes are the digits of a shape entry, in a buffer of exactly the
     * file's size.  The parser used strtoull, which reads on past the header
     * (and here past the buffer: ASan builds flag it); it must stop at the
     * header's end and name the rule. */
    static const char hdr[] = "{'descr': '<f2', 'fortran_order': False, 'shape': (12";
    size_t hl = sizeof hdr - 1, n = 10 + hl;
    uint8_t *buf = malloc(n);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (uint8_t)hl, buf[9] = 0;
    memcpy(buf + 10, hdr, hl);
    AscNpy a;
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(!asc_npy_parse(&a, "cut.npy", buf, n, NULL, &d));
    ck_assert_msg(has(&d, "cut.npy: malformed .npy header"), "%s", d.count ? d.items[0].msg : "");
    free(buf);
    asc_diags_free(&d);
}
END_TEST

START_TEST(run_arg_forms)
{
    AscRunArg a;
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_run_arg_parse(&a, "x=in/x.npy", &d));
    ck_assert_int_eq(a.how, ASC_RUN_ARG_IN);
    ck_assert_str_eq(a.path, "in/x.npy");
    ck_assert(asc_run_arg_parse(&a, "z=@o:ut.npy:64,32:f16", &d));
    ck_assert_int_eq(a.how, ASC_RUN_ARG_OUT);
    ck_assert_str_eq(a.path, "o:ut.npy");
    ck_assert_uint_eq(a.ndim, 2);
    ck_assert_uint_eq(a.shape[1], 32);
    ck_assert_uint_eq(a.dtype, ASC_DT_F16);
    ck_assert(asc_run_arg_parse(&a, "n=4096", &d));
    ck_assert_int_eq(a.how, ASC_RUN_ARG_VALUE);
    ck_assert(!asc_run_arg_parse(&a, "z=@z.npy:64:f17", &d));
    ck_assert(has(&d, "unknown dtype 'f17'"));
    ck_assert(!asc_run_arg_parse(&a, "z=@z.npy:f16", &d));
    ck_assert(!asc_run_arg_parse(&a, "noequals", &d));
    ck_assert_int_eq(d.items[d.count - 1].id, ASC_DIAG_SIM_ARG);
    static const char *const bad[] = {
        "=5", "x=", "z=@z.npy:64,:f16", "z=@z.npy:,64:f16", "z=@z.npy::f16", "z=@:64:f16", "z=@z.npy:64",
        "z=@z.npy:99999999999999999999999:f16", "z=@z.npy:4294967296,4294967296:f16", "z=@z.npy:1,2,3,4,5,6,7,8,9:f16",
        "z=@z.npy:-4:f16", "z=@z.npy:4:", "z=@z.npy:4:none",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t before = d.count;
        ck_assert_msg(!asc_run_arg_parse(&a, bad[i], &d), "'%s' accepted", bad[i]);
        ck_assert_msg(d.count == before + 1 && d.items[before].id == ASC_DIAG_SIM_ARG && strstr(d.items[before].msg, "--arg"),
                      "'%s'", bad[i]);
    }
    ck_assert(asc_run_arg_parse(&a, "z=@z.npy:2x3x4:bf16", &d));
    ck_assert_uint_eq(a.ndim, 3);
    ck_assert_uint_eq(a.dtype, ASC_DT_BF16);
    asc_diags_free(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = tcase_create("npy");
    tcase_add_test(tc, round_trip_every_dtype);
    tcase_add_test(tc, v2_header_and_scalar_shape);
    tcase_add_test(tc, rejections_name_the_rule);
    tcase_add_test(tc, header_ends_inside_a_number);
    tcase_add_test(tc, run_arg_forms);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
