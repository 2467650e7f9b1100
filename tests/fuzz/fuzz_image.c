/* fuzz_image.c -- libFuzzer harness of the kernel binary reader
 * (asc_image_read) and what runs on an image it accepts.
 *
 * Input: the bytes of a kernel binary (an ELF64 file).
 *
 * Invariants checked (abort = a finding):
 *   - a rejected file leaves at least one error and an empty image;
 *   - reading the same bytes twice gives the same outcome and diagnostics;
 *   - an accepted image passes asc_image_validate, its section table is
 *     readable (asc_image_sections > 0), it disassembles and lists (-d, -l,
 *     -h) without a crash, and write -> read -> write gives the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/image.h"

#define FUZZ_CHECK(c, msg)                                                                          \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s: %s\n", __FILE__, __LINE__, #c, msg); \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

static bool image_empty(const AscImage *img)
{
    return img->text == NULL && img->text_words == 0 && img->rodata == NULL && img->rodata_size == 0 &&
           img->kernels == NULL && img->nkernels == 0 && img->files == NULL && img->nfiles == 0 &&
           img->lines == NULL && img->nlines == 0;
}

static bool diags_equal(const AscDiags *a, const AscDiags *b)
{
    if (a->count != b->count || a->nerrors != b->nerrors || a->nwarnings != b->nwarnings) return false;
    for (uint32_t i = 0; i < a->count; i++)
        if (a->items[i].id != b->items[i].id || strcmp(a->items[i].msg, b->items[i].msg) != 0) return false;
    return true;
}

/* The text sink: counts bytes and checks the text holds no NUL. */
static void sink(void *ud, const char *text, size_t len)
{
    size_t *n = ud;
    FUZZ_CHECK(memchr(text, 0, len) == NULL, "the disassembly or listing holds a NUL byte");
    *n += len;
}

static const char *source_line(void *ud, const char *file, uint32_t line, uint32_t *len)
{
    (void)ud, (void)file;
    static const char text[] = "        vadd.f16 x1, x2, x3, x4";
    if (line % 3 == 0) return NULL; /* some lines unknown */
    *len = (uint32_t)(sizeof text - 1);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    AscImage img, img2;
    AscDiags d, d2;
    asc_diags_init(&d, NULL);
    asc_diags_init(&d2, NULL);
    asc_image_init(&img, NULL);
    asc_image_init(&img2, NULL);
    bool ok = asc_image_read(&img, data, size, &d);
    bool ok2 = asc_image_read(&img2, data, size, &d2);
    FUZZ_CHECK(ok == ok2 && diags_equal(&d, &d2), "reading the same bytes twice disagrees");
    asc_image_free(&img2);
    asc_diags_free(&d2);
    if (!ok) {
        FUZZ_CHECK(d.nerrors >= 1 || d.oom, "asc_image_read failed without an error");
        FUZZ_CHECK(image_empty(&img), "a rejected file left a non-empty image");
        for (uint32_t i = 0; i < d.count; i++) FUZZ_CHECK(d.items[i].msg && d.items[i].msg[0], "empty message");
        asc_image_free(&img);
        asc_diags_free(&d);
        return 0;
    }
    FUZZ_CHECK(d.nerrors == 0, "asc_image_read accepted with errors");
    FUZZ_CHECK(asc_image_validate(&img, &d), "asc_image_read accepted what asc_image_validate rejects");

    AscSectionInfo sec[64];
    uint32_t nsec = asc_image_sections(data, size, sec, 64);
    FUZZ_CHECK(nsec > 0, "an accepted file has no readable section table");

    size_t n = 0;
    AscDisasmDesc dd = {.out = sink, .out_ud = &n};
    FUZZ_CHECK(asc_image_disasm(&img, &dd, &d), "asc_image_disasm failed");
    dd.lines = true;
    dd.source_line = source_line;
    FUZZ_CHECK(asc_image_disasm(&img, &dd, &d), "asc_image_disasm -l failed");
    asc_image_describe(&img, "fuzz.bin", sec, nsec < 64 ? nsec : 64, &dd);
    for (uint32_t k = 0; k < img.nkernels; k++) {
        FUZZ_CHECK(memchr(img.kernels[k].name, 0, ASC_NAME_MAX) != NULL, "kernel name not terminated");
        FUZZ_CHECK(asc_image_kernel(&img, img.kernels[k].name) != NULL, "a kernel cannot be found by its name");
    }
    FUZZ_CHECK(memchr(img.target, 0, sizeof img.target) != NULL, "target name not terminated");
    for (uint32_t i = 0; i < img.text_words; i++) (void)asc_image_line_at(&img, i * 4);

    /* write -> read -> write */
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t l1 = 0, l2 = 0;
    FUZZ_CHECK(asc_image_write(&img, &b1, &l1, &d), "an accepted image cannot be written");
    AscImage back;
    asc_image_init(&back, NULL);
    FUZZ_CHECK(asc_image_read(&back, b1, l1, &d), "the reader rejects what the writer wrote");
    FUZZ_CHECK(asc_image_write(&back, &b2, &l2, &d), "a read-back image cannot be written");
    FUZZ_CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0, "write -> read -> write changed the bytes");
    FUZZ_CHECK(back.text_words == img.text_words && back.nkernels == img.nkernels &&
                   back.rodata_size == img.rodata_size && back.nlines == img.nlines,
               "the written image reads back different");
    free(b1);
    free(b2);
    asc_image_free(&back);
    asc_image_free(&img);
    asc_diags_free(&d);
    return 0;
}
