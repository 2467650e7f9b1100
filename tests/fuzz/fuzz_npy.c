/* fuzz_npy.c -- libFuzzer harness of the .npy reader (asc_npy_parse) and of
 * the asc-sim --arg parser (asc_run_arg_parse), both in run/npy.c.
 *
 * Input: the bytes of a .npy file; the same bytes up to the first NUL are
 * also given to asc_run_arg_parse as one --arg text.
 *
 * Invariants checked (abort = a finding):
 *   - a rejected file leaves at least one error and no data;
 *   - an accepted file has ndim <= 8, count = product of the shape, data;
 *     asc_npy_write of it parses back to the same dtype size, shape and
 *     data, and writing that again gives the same bytes;
 *   - --arg: a failing parse leaves an error; an accepted one has a
 *     non-empty terminated name, ndim <= 8 and terminated path/value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/run.h"

#define FUZZ_CHECK(c, msg)                                                                          \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s: %s\n", __FILE__, __LINE__, #c, msg); \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

static void check_npy(const uint8_t *data, size_t size)
{
    AscNpy a;
    AscDiags d;
    asc_diags_init(&d, NULL);
    bool ok = asc_npy_parse(&a, "fuzz.npy", data, size, NULL, &d);
    if (!ok) {
        FUZZ_CHECK(d.nerrors >= 1 || d.oom, "asc_npy_parse failed without an error");
        FUZZ_CHECK(a.data == NULL, "a rejected file left data");
        asc_diags_free(&d);
        return;
    }
    FUZZ_CHECK(d.nerrors == 0, "asc_npy_parse accepted with errors");
    FUZZ_CHECK(a.ndim <= 8, "more than 8 dimensions");
    uint64_t count = 1;
    for (uint32_t i = 0; i < a.ndim; i++) count *= a.shape[i];
    FUZZ_CHECK(count == a.count, "count is not the product of the shape");
    FUZZ_CHECK(a.data != NULL, "an accepted file has no data buffer");
    unsigned esize = asc_dtype_size(a.dtype);
    FUZZ_CHECK(esize > 0 && asc_npy_descr(a.dtype) != NULL, "an accepted dtype has no size or descr");

    uint8_t *w1 = NULL, *w2 = NULL;
    size_t l1 = 0, l2 = 0;
    FUZZ_CHECK(asc_npy_write(&a, &w1, &l1, NULL), "an accepted array cannot be written");
    FUZZ_CHECK(l1 % 64 == (a.count * esize) % 64, "the data does not start at a multiple of 64");
    AscNpy b;
    bool okb = asc_npy_parse(&b, "back.npy", w1, l1, NULL, &d);
    if (!okb) fprintf(stderr, "%s\n", d.count ? d.items[d.count - 1].msg : "?");
    FUZZ_CHECK(okb, "the reader rejects what the writer wrote");
    FUZZ_CHECK(asc_dtype_size(b.dtype) == esize && b.ndim == a.ndim && b.count == a.count &&
                   memcmp(b.shape, a.shape, sizeof a.shape) == 0,
               "written array reads back with another dtype size or shape");
    FUZZ_CHECK(a.count * esize == 0 || memcmp(a.data, b.data, a.count * esize) == 0,
               "written array reads back with other data");
    FUZZ_CHECK(asc_npy_write(&b, &w2, &l2, NULL), "a read-back array cannot be written");
    FUZZ_CHECK(l1 == l2 && memcmp(w1, w2, l1) == 0, "write -> read -> write changed the bytes");
    free(w1);
    free(w2);
    asc_npy_free(&a, NULL);
    asc_npy_free(&b, NULL);
    asc_diags_free(&d);
}

static void check_run_arg(const uint8_t *data, size_t size)
{
    size_t n = 0;
    while (n < size && data[n]) n++;
    char *text = malloc(n + 1);
    FUZZ_CHECK(text != NULL, "host out of memory");
    memcpy(text, data, n);
    text[n] = 0;
    AscRunArg a;
    AscDiags d;
    asc_diags_init(&d, NULL);
    if (asc_run_arg_parse(&a, text, &d)) {
        FUZZ_CHECK(d.nerrors == 0, "asc_run_arg_parse accepted with an error");
        FUZZ_CHECK(a.name[0] && memchr(a.name, 0, sizeof a.name), "bad name");
        FUZZ_CHECK(memchr(a.path, 0, sizeof a.path) && memchr(a.value, 0, sizeof a.value), "unterminated text");
        FUZZ_CHECK(a.ndim <= 8, "more than 8 dimensions");
        if (a.how == ASC_RUN_ARG_OUT)
            FUZZ_CHECK(a.ndim >= 1 && a.path[0] && asc_npy_descr(a.dtype) != NULL, "bad output argument");
    } else {
        FUZZ_CHECK(d.nerrors >= 1 || d.oom, "asc_run_arg_parse failed without an error");
    }
    asc_diags_free(&d);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_npy(data, size);
    check_run_arg(data, size);
    return 0;
}
