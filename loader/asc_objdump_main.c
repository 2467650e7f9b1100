/* asc_objdump_main.c -- asc-objdump: show a kernel binary.
 *
 *   asc-objdump [-d] [-h] [-l] [--help] [--version] kernel.bin
 *
 * -d (the default) prints a disassembly that asc-as assembles back into the
 * same .text bytes; -h prints sections and kernels; -l adds source lines to
 * -d.  A thin CLI: libasc reads and checks the file; this file only formats.
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

/* ---- -h ------------------------------------------------------------------ */

static void print_headers(const char *path, const AscImage *img)
{
    size_t len;
    uint8_t *buf = (uint8_t *)slurp(path, &len);
    AscSectionInfo sec[16];
    uint32_t n = buf ? asc_image_sections(buf, len, sec, 16) : 0;
    free(buf);
    printf("%s: asc kernel binary, format version %d, target %s\n\nSections:\nIdx Name          Type      Offset      Size        Address\n",
           path, ASC_BINARY_VERSION, img->target);
    static const char *const types[] = {"NULL", "PROGBITS", "SYMTAB", "STRTAB"};
    for (uint32_t i = 1; i < n && i < 16; i++)
        printf("%3u %-13s %-9s 0x%08llx  0x%08llx  0x%016llx\n", i, sec[i].name, sec[i].type < 4 ? types[sec[i].type] : "?",
               (unsigned long long)sec[i].offset, (unsigned long long)sec[i].size, (unsigned long long)sec[i].addr);
    printf("\nKernels:\n");
    for (uint32_t i = 0; i < img->nkernels; i++) {
        const AscKernelInfo *k = &img->kernels[i];
        printf("%3u %s (%s)\n", i, k->name, asc_kernel_kind_name(k->kind));
        for (unsigned p = ASC_PART_COUNT; p-- > 0;)
            if (k->size[p])
                printf("      %s program: entry 0x%04x, size 0x%x (%u instructions)\n", p == ASC_PART_AIC ? "AIC" : "AIV",
                       k->entry[p], k->size[p], k->size[p] / 4);
        for (uint32_t a = 0; a < k->nargs; a++) {
            const AscArgInfo *g = &k->args[a];
            printf("      arg x%-2u %-16s %s%s%s\n", a, g->name, asc_arg_kind_name(g->kind), g->kind == ASC_ARG_GM ? " " : "",
                   g->kind == ASC_ARG_GM ? asc_dtype_name(g->dtype) : "");
        }
        if (k->ub_bytes) printf("      uses ub %u bytes\n", k->ub_bytes);
        if (k->l1_bytes) printf("      uses l1 %u bytes\n", k->l1_bytes);
    }
    printf("\n");
}

/* ---- -d / -l ----------------------------------------------------------------- */

/* Source files for -l, loaded on first use (NULL text = unreadable). */
typedef struct Src {
    bool tried;
    char *text;
    size_t len;
} Src;

static void print_source(const AscImage *img, Src *src, const AscLineEntry *e)
{
    const char *file = img->files[e->file];
    if (e->col) printf("; %s:%u:%u", file, e->line, e->col);
    else printf("; %s:%u", file, e->line);
    Src *s = &src[e->file];
    if (!s->tried) {
        s->tried = true;
        s->text = slurp(file, &s->len);
    }
    const char *p = s->text, *end = s->text + s->len;
    for (uint32_t l = 1; p && l < e->line; l++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (p) p++;
    }
    if (p && e->line && p < end) {
        const char *q = p;
        while (q < end && *q != '\n' && *q != '\r') q++;
        while (p < q && (*p == ' ' || *p == '\t')) p++;
        printf(" | %.*s", (int)(q - p), p);
    }
    printf("\n");
}

static int prog_cmp(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b; /* {entry, kernel, part} */
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : 0;
}

static bool disassemble(const AscImage *img, bool lines)
{
    printf("; disassembly by asc-objdump %s: assemble with asc-as to get the same .text\n.target %s\n", ASC_VERSION,
           img->target);
    /* programs in .text order: {entry, kernel, part} */
    uint32_t np = 0, (*progs)[3] = calloc(2 * (size_t)img->nkernels + 1, sizeof *progs);
    Src *src = calloc(img->nfiles + 1, sizeof *src);
    if (!progs || !src) {
        free(progs);
        free(src);
        return false;
    }
    for (uint32_t i = 0; i < img->nkernels; i++)
        for (uint32_t p = 0; p < ASC_PART_COUNT; p++)
            if (img->kernels[i].size[p]) {
                progs[np][0] = img->kernels[i].entry[p];
                progs[np][1] = i;
                progs[np++][2] = p;
            }
    qsort(progs, np, sizeof *progs, prog_cmp); /* entries are distinct: programs never overlap */
    uint32_t next = 0, li = 0;
    const AscLineEntry *prev = NULL;
    uint32_t last_kernel = UINT32_MAX;
    uint64_t prog_end = 0; /* end of the program being printed */
    bool outside = false;
    for (uint32_t w = 0; w < img->text_words; w++) {
        uint32_t pc = 4 * w;
        if (next < np && progs[next][0] == pc) {
            const AscKernelInfo *k = &img->kernels[progs[next][1]];
            if (progs[next][1] != last_kernel) {
                printf("\n.kernel %s, %s\n", k->name, asc_kernel_kind_name(k->kind));
                for (uint32_t a = 0; a < k->nargs; a++) {
                    const AscArgInfo *g = &k->args[a];
                    if (g->kind == ASC_ARG_GM) printf(".arg %s, gm, %s\n", g->name, asc_dtype_name(g->dtype));
                    else printf(".arg %s, %s\n", g->name, asc_arg_kind_name(g->kind));
                }
                if (k->ub_bytes) printf(".uses ub, %u\n", k->ub_bytes);
                if (k->l1_bytes) printf(".uses l1, %u\n", k->l1_bytes);
                last_kernel = progs[next][1];
            }
            if (k->kind == ASC_KERNEL_MIX) printf(".%s\n", progs[next][2] == ASC_PART_AIC ? "aic" : "aiv");
            prev = NULL;
            prog_end = (uint64_t)progs[next][0] + img->kernels[progs[next][1]].size[progs[next][2]];
            outside = false;
            next++;
        } else if (pc >= prog_end && !outside) {
            printf("; the next words are outside every kernel program\n");
            outside = true;
        }
        while (li < img->nlines && img->lines[li].pc < pc) li++;
        if (lines && li < img->nlines && img->lines[li].pc == pc) {
            const AscLineEntry *e = &img->lines[li];
            if (!prev || prev->file != e->file || prev->line != e->line || prev->col != e->col) print_source(img, src, e);
            prev = e;
        }
        AscInsn in;
        char text[128];
        if (!asc_decode(img->text[w], &in, NULL)) snprintf(text, sizeof text, ".word 0x%08x", img->text[w]);
        else asc_insn_print(&in, text, sizeof text);
        printf("    %-40s ; %04x: %08x\n", text, pc, img->text[w]);
    }
    if (img->rodata_size) {
        printf("\n.rodata\n");
        for (uint32_t i = 0; i < img->rodata_size; i += 16) {
            printf("    .byte ");
            for (uint32_t j = i; j < i + 16 && j < img->rodata_size; j++)
                printf("%s0x%02x", j > i ? ", " : "", img->rodata[j]);
            printf(" ; 0x%llx\n", (unsigned long long)(ASC_GM_RODATA_BASE + i));
        }
    }
    for (uint32_t i = 0; i < img->nfiles; i++) free(src[i].text);
    free(src);
    free(progs);
    return true;
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
        if (hdr) print_headers(path, &img);
        if (dis && !disassemble(&img, lines)) {
            fprintf(stderr, "asc-objdump: out of memory\n");
            rc = 2;
        }
        if (fflush(stdout) != 0) rc = 2;
    }
    asc_image_free(&img);
    asc_diags_free(&d);
    return rc;
}
