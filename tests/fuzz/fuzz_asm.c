/* fuzz_asm.c -- libFuzzer harness of the assembler (asc_asm_string).
 *
 * Input: assembly text.  Includes are served from memory: a path ending in
 * "fuzz.s" is the input itself (recursive includes), "consts.inc" and
 * "body.inc" are fixed snippets, anything else does not exist, so the
 * harness never touches the real file system.
 *
 * Invariants checked (abort = a finding):
 *   - a failing assembly leaves at least one error and an untouched image;
 *     a successful one leaves no error;
 *   - the same input twice gives the same result, the same diagnostics and
 *     the same bytes out (determinism);
 *   - printing the diagnostics with source excerpts does not crash;
 *   - an assembled image validates, writes, reads back, and writes again to
 *     the same bytes;
 *   - its canonical disassembly (asc-objdump -d) assembles back to the same
 *     .text and .rodata (the round trip docs/binary.md promises). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/asm.h"
#include "asc/image.h"

#define FUZZ_CHECK(c, msg)                                                                          \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s: %s\n", __FILE__, __LINE__, #c, msg); \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

typedef struct Input {
    const char *data;
    size_t size;
} Input;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* The in-memory file server: exact-size buffers (no NUL), so a read past
 * the end is an ASan report. */
static char *mem_read(void *ud, const AscAlloc *alloc, const char *path, size_t *len, const char **err)
{
    const Input *in = ud;
    const char *src;
    size_t n;
    if (ends_with(path, "fuzz.s")) {
        src = in->data, n = in->size;
    } else if (ends_with(path, "consts.inc")) {
        src = ".equ INC_A, 5\n.equ INC_B, INC_A * 3\n", n = strlen(src);
    } else if (ends_with(path, "body.inc")) {
        src = "        addi x2, x2, INC_B\n        nop\n", n = strlen(src);
    } else {
        *err = "No such file or directory";
        return NULL;
    }
    char *b = asc_malloc(alloc, n ? n : 1);
    if (!b) {
        *err = "out of memory";
        return NULL;
    }
    if (n) memcpy(b, src, n);
    *len = n;
    return b;
}

static FILE *devnull(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

/* The result of one assembly, reduced to comparable bytes. */
typedef struct Result {
    bool ok;
    uint32_t nerrors, nwarnings, count;
    uint8_t *bin; /* the written image when ok */
    size_t bin_len;
    char *diag_text; /* every diagnostic as "id sev line col msg\n" */
    size_t diag_len;
} Result;

static void diags_text(const AscDiags *d, Result *r)
{
    size_t cap = 256, n = 0;
    char *s = malloc(cap);
    FUZZ_CHECK(s != NULL, "host out of memory");
    for (uint32_t i = 0; i < d->count; i++) {
        const AscDiag *g = &d->items[i];
        FUZZ_CHECK(g->msg != NULL, "a stored diagnostic has no message");
        size_t need = strlen(g->msg) + 64;
        if (n + need > cap) {
            while (n + need > cap) cap *= 2;
            s = realloc(s, cap);
            FUZZ_CHECK(s != NULL, "host out of memory");
        }
        n += (size_t)snprintf(s + n, cap - n, "%d %d %u %u %s\n", (int)g->id, (int)g->sev, g->loc.line,
                              g->loc.col, g->msg);
    }
    r->diag_text = s;
    r->diag_len = n;
}

/* Assemble `text` named `name` for `target`; the image stays in *img when ok. */
static void assemble(const Input *in, const char *name, const char *text, size_t len, const char *target,
                     AscImage *img, Result *r, bool print)
{
    memset(r, 0, sizeof *r);
    AscAsmDesc desc = {.target = target, .read_file = mem_read, .read_ud = (void *)in};
    AscAsm *as = asc_asm_new(&desc);
    FUZZ_CHECK(as != NULL, "asc_asm_new failed");
    asc_image_init(img, NULL);
    r->ok = asc_asm_string(as, name, text, len, img);
    AscDiags *d = asc_asm_diags(as);
    r->nerrors = d->nerrors, r->nwarnings = d->nwarnings, r->count = d->count;
    if (r->ok) {
        FUZZ_CHECK(d->nerrors == 0, "asc_asm_string succeeded with errors");
    } else {
        FUZZ_CHECK(d->nerrors >= 1 || d->oom, "asc_asm_string failed without an error");
        FUZZ_CHECK(img->text == NULL && img->nkernels == 0 && img->rodata == NULL && img->nlines == 0,
                   "a failed assembly filled the image");
    }
    diags_text(d, r);
    if (print && devnull()) asc_diags_print(d, devnull(), asc_asm_source_line, as);
    if (r->ok) {
        AscDiags wd;
        asc_diags_init(&wd, NULL);
        FUZZ_CHECK(asc_image_validate(img, &wd), "the assembler made an image its validator rejects");
        FUZZ_CHECK(asc_image_write(img, &r->bin, &r->bin_len, &wd), "the assembler made an image that cannot be written");
        FUZZ_CHECK(wd.nerrors == 0, "writing an assembled image left an error");
        asc_diags_free(&wd);
    }
    asc_asm_free(as);
}

static void result_free(Result *r)
{
    free(r->bin);
    free(r->diag_text);
}

typedef struct Buf {
    char *s;
    size_t n, cap;
} Buf;

static void buf_out(void *ud, const char *text, size_t len)
{
    Buf *b = ud;
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (b->n + len + 1 > cap) cap *= 2;
        b->s = realloc(b->s, cap);
        FUZZ_CHECK(b->s != NULL, "host out of memory");
        b->cap = cap;
    }
    memcpy(b->s + b->n, text, len);
    b->n += len;
    b->s[b->n] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Input in = {(const char *)data, size};
    AscImage img, img2;
    Result r1, r2;
    assemble(&in, "fuzz.s", in.data, size, "teach", &img, &r1, true);
    assemble(&in, "fuzz.s", in.data, size, "teach", &img2, &r2, false);

    /* determinism */
    FUZZ_CHECK(r1.ok == r2.ok && r1.nerrors == r2.nerrors && r1.nwarnings == r2.nwarnings && r1.count == r2.count,
               "two assemblies of one input disagree on the outcome");
    FUZZ_CHECK(r1.diag_len == r2.diag_len && memcmp(r1.diag_text, r2.diag_text, r1.diag_len) == 0,
               "two assemblies of one input give different diagnostics");
    FUZZ_CHECK(r1.bin_len == r2.bin_len && (r1.bin_len == 0 || memcmp(r1.bin, r2.bin, r1.bin_len) == 0),
               "two assemblies of one input give different bytes");
    asc_image_free(&img2);

    if (r1.ok) {
        /* write -> read -> write gives the same bytes */
        AscImage back;
        AscDiags d;
        asc_diags_init(&d, NULL);
        asc_image_init(&back, NULL);
        FUZZ_CHECK(asc_image_read(&back, r1.bin, r1.bin_len, &d), "the reader rejects what the writer wrote");
        uint8_t *bin2 = NULL;
        size_t len2 = 0;
        FUZZ_CHECK(asc_image_write(&back, &bin2, &len2, &d), "a read-back image cannot be written");
        FUZZ_CHECK(len2 == r1.bin_len && memcmp(bin2, r1.bin, len2) == 0, "write -> read -> write changed the bytes");
        free(bin2);

        /* the disassembly assembles back to the same .text and .rodata */
        Buf text = {0};
        AscDisasmDesc dd = {.out = buf_out, .out_ud = &text};
        FUZZ_CHECK(asc_image_disasm(&back, &dd, &d), "asc_image_disasm failed");
        AscImage again;
        Result r3;
        assemble(&in, "disasm.s", text.s ? text.s : "", text.n, back.target, &again, &r3, false);
        if (!r3.ok) {
            fprintf(stderr, "---- disassembly ----\n%.*s---- diagnostics ----\n%.*s", (int)text.n,
                    text.s ? text.s : "", (int)r3.diag_len, r3.diag_text);
        }
        FUZZ_CHECK(r3.ok, "the canonical disassembly does not assemble");
        FUZZ_CHECK(again.text_words == back.text_words &&
                       (back.text_words == 0 || memcmp(again.text, back.text, back.text_words * 4u) == 0),
                   "the disassembly assembles to a different .text");
        FUZZ_CHECK(again.rodata_size == back.rodata_size &&
                       (back.rodata_size == 0 || memcmp(again.rodata, back.rodata, back.rodata_size) == 0),
                   "the disassembly assembles to a different .rodata");
        result_free(&r3);
        asc_image_free(&again);
        free(text.s);
        asc_image_free(&back);
        asc_diags_free(&d);
    }
    result_free(&r1);
    result_free(&r2);
    asc_image_free(&img);
    return 0;
}
