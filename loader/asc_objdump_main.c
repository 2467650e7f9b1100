/* asc_objdump_main.c -- asc-objdump: show a kernel binary.
 *
 *   asc-objdump [-d] [-h] [-l] [--help] [--version] kernel.bin
 *
 * -d (the default) prints a disassembly that asc-as assembles back into the
 * same .text bytes; -h prints sections and kernels; -l adds source lines to
 * -d.  A thin CLI: libasc reads and checks the file and formats it
 * (asc_image_disasm, asc_image_describe); this file parses flags, reads the
 * source files -l quotes, and writes the text to stdout.
 * Exit codes: 0 ok, 1 user error (bad flag, unreadable or bad binary),
 * 2 internal error (out of memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/image.h"
#include "asc/isa.h"

static const char usage[] = "usage: asc-objdump [-d] [-h] [-l] [--help] [--version] kernel.bin\n";

static void help(void)
{
    printf("%s\n"
           "Show an asc kernel binary.\n"
           "  -d         disassemble .text and .rodata as asc-as input (default)\n"
           "  -h         list sections and kernels (kind, programs, arguments, buffers, target)\n"
           "  -l         with -d: show the source line of each instruction\n"
           "  --help     show this help\n"
           "  --version  show the version\n"
           "Exit status: 0 ok, 1 bad usage or bad binary, 2 internal error.\n",
           usage);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n - 1, f);
        if (n + 1 < cap) break;
        char *nb = realloc(b, cap *= 2);
        if (!nb) free(b);
        b = nb;
    }
    fclose(f);
    if (b) b[n] = 0;
    *len = n;
    return b;
}

/* ---- source lines for -l: files loaded on first use, relative to the
 * current directory (paths as the assembler recorded them) -------------- */

typedef struct Src {
    const char *path;
    char *text; /* NULL: unreadable */
    size_t len;
} Src;

typedef struct SrcCache {
    Src files[64]; /* a binary names few files; more are shown without text */
    int n;
} SrcCache;

static const char *source_line(void *ud, const char *path, uint32_t line, uint32_t *len)
{
    SrcCache *c = ud;
    Src *s = NULL;
    for (int i = 0; i < c->n && !s; i++)
        if (strcmp(c->files[i].path, path) == 0) s = &c->files[i];
    if (!s) {
        if (c->n == (int)(sizeof c->files / sizeof c->files[0])) return NULL;
        s = &c->files[c->n++];
        s->path = path;
        s->text = slurp(path, &s->len);
    }
    const char *p = s->text, *end = s->text + s->len;
    for (uint32_t l = 1; p && l < line; l++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (p) p++;
    }
    if (!p || !line || p >= end) return NULL;
    const char *q = memchr(p, '\n', (size_t)(end - p));
    *len = (uint32_t)((q ? q : end) - p);
    return p;
}

static void to_stdout(void *ud, const char *text, size_t len)
{
    (void)ud;
    fwrite(text, 1, len, stdout);
}

int main(int argc, char **argv)
{
    bool dis = false, hdr = false, lines = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            help();
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("asc-objdump %s (kernel binary format version %d)\n", ASC_VERSION, ASC_BINARY_VERSION);
            return 0;
        } else if (a[0] == '-' && a[1] && a[1] != '-') {
            for (const char *c = a + 1; *c; c++) {
                if (*c == 'd') dis = true;
                else if (*c == 'h') hdr = true;
                else if (*c == 'l') lines = true;
                else {
                    fprintf(stderr, "asc-objdump: unknown option '-%c'\n%s", *c, usage);
                    return 1;
                }
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "asc-objdump: unknown option '%s'\n%s", a, usage);
            return 1;
        } else if (path) {
            fprintf(stderr, "asc-objdump: one kernel binary at a time ('%s' and '%s')\n%s", path, a, usage);
            return 1;
        } else {
            path = a;
        }
    }
    if (!path) {
        fprintf(stderr, "asc-objdump: no kernel binary given\n%s", usage);
        return 1;
    }
    if (!dis && !hdr) dis = true;

    AscDiags d;
    asc_diags_init(&d, NULL);
    AscImage img;
    asc_image_init(&img, NULL);
    int rc = 0;
    if (!asc_image_read_file(&img, path, &d)) {
        asc_diags_print(&d, stderr, NULL, NULL);
        bool internal = d.oom;
        for (uint32_t i = 0; i < d.count; i++) internal |= d.items[i].id == ASC_DIAG_OOM;
        rc = internal ? 2 : 1;
    } else {
        SrcCache cache = {0};
        AscDisasmDesc out = {.out = to_stdout, .lines = lines, .source_line = source_line, .source_ud = &cache};
        if (hdr) {
            size_t len;
            uint8_t *buf = (uint8_t *)slurp(path, &len); /* the section table is not part of the image */
            AscSectionInfo sec[16];
            uint32_t n = buf ? asc_image_sections(buf, len, sec, 16) : 0;
            free(buf);
            asc_image_describe(&img, path, sec, n < 16 ? n : 16, &out);
        }
        if (dis && !asc_image_disasm(&img, &out, &d)) {
            asc_diags_print(&d, stderr, NULL, NULL);
            rc = 2;
        }
        for (int i = 0; i < cache.n; i++) free(cache.files[i].text);
        if (fflush(stdout) != 0) rc = 2;
    }
    asc_image_free(&img);
    asc_diags_free(&d);
    return rc;
}
