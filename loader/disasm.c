/* disasm.c -- the text forms of a kernel image: the canonical disassembly
 * (asc-objdump -d, -l) and the header listing (asc-objdump -h).
 *
 * Users: asc-objdump (loader/asc_objdump_main.c), tests/unit/test_loader.c;
 * anyone holding an AscImage who wants it as text (pyasc, the viewer).
 *
 * Invariants:
 *  - the library prints nothing itself: every piece of text goes to the
 *    caller's AscTextFn, and source lines come from the caller's
 *    AscSourceLineFn (this file never opens a file);
 *  - the disassembly is the one canonical form (docs/internals.md §Conventions): asc-as assembles
 *    it back to the same .text bytes (tests/cli/test_roundtrip.sh): the
 *    .target, then for each program in .text order its kernel's directives
 *    (.kernel, .arg, .uses, .aic/.aiv), then one instruction per line with
 *    a `; PC: WORD` comment; .rodata follows as .byte lines;
 *  - the image is one asc_image_read or asc_image_validate accepted; a word
 *    that does not decode still prints, as `.word 0x...`. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/image.h"
#include "asc/isa.h"

typedef struct Out {
    const AscDisasmDesc *desc;
} Out;

static void put(const Out *o, const char *s, size_t len)
{
    if (len) o->desc->out(o->desc->out_ud, s, len);
}

static void putf(const Out *o, const char *fmt, ...)
{
    char buf[512]; /* every formatted piece is short: names are < 64 bytes */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) put(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static const char *part_name(unsigned part) { return part == ASC_PART_AIC ? "AIC" : "AIV"; }

/* ---- -h ------------------------------------------------------------------ */

void asc_image_describe(const AscImage *img, const char *name, const AscSectionInfo *sec, uint32_t nsec,
                        const AscDisasmDesc *desc)
{
    Out o = {desc};
    static const char *const types[] = {"NULL", "PROGBITS", "SYMTAB", "STRTAB"};
    putf(&o, "%s: asc kernel binary, format version %d, target %s\n\n", name, ASC_BINARY_VERSION, img->target);
    if (nsec) {
        putf(&o, "Sections:\nIdx Name          Type      Offset      Size        Address\n");
        for (uint32_t i = 1; i < nsec; i++)
            putf(&o, "%3u %-13s %-9s 0x%08llx  0x%08llx  0x%016llx\n", i, sec[i].name,
                 sec[i].type < 4 ? types[sec[i].type] : "?", (unsigned long long)sec[i].offset,
                 (unsigned long long)sec[i].size, (unsigned long long)sec[i].addr);
        putf(&o, "\n");
    }
    putf(&o, "Kernels:\n");
    for (uint32_t i = 0; i < img->nkernels; i++) {
        const AscKernelInfo *k = &img->kernels[i];
        putf(&o, "%3u %s (%s)\n", i, k->name, asc_kernel_kind_name(k->kind));
        for (unsigned p = ASC_PART_COUNT; p-- > 0;) /* AIC first, as in .symtab */
            if (k->size[p])
                putf(&o, "      %s program: entry 0x%04x, size 0x%x (%u instructions)\n", part_name(p), k->entry[p],
                     k->size[p], k->size[p] / 4);
        for (uint32_t a = 0; a < k->nargs; a++) {
            const AscArgInfo *g = &k->args[a];
            putf(&o, "      arg x%-2u %-16s %s%s%s\n", a, g->name, asc_arg_kind_name(g->kind),
                 g->kind == ASC_ARG_GM ? " " : "", g->kind == ASC_ARG_GM ? asc_dtype_name(g->dtype) : "");
        }
        if (k->ub_bytes) putf(&o, "      uses ub %u bytes\n", k->ub_bytes);
        if (k->l1_bytes) putf(&o, "      uses l1 %u bytes\n", k->l1_bytes);
    }
    putf(&o, "\n");
}

/* ---- -d / -l -------------------------------------------------------------- */

/* "; file:line:col | source text" (the text without its indentation, when
 * the caller can give it). */
static void put_source(const Out *o, const AscImage *img, const AscLineEntry *e)
{
    const char *file = img->files[e->file];
    if (e->col) putf(o, "; %s:%u:%u", file, e->line, e->col);
    else putf(o, "; %s:%u", file, e->line);
    uint32_t len = 0;
    const char *text = o->desc->source_line ? o->desc->source_line(o->desc->source_ud, file, e->line, &len) : NULL;
    if (text) {
        const char *p = text, *q = text + len;
        while (p < q && (*p == ' ' || *p == '\t')) p++;
        const char *cr = memchr(p, '\r', (size_t)(q - p));
        if (cr) q = cr;
        put(o, " | ", 3);
        put(o, p, (size_t)(q - p));
    }
    put(o, "\n", 1);
}

/* The directives that open program `part` of kernel `k`; the kernel's own
 * lines only before its first program. */
static void put_program_start(const Out *o, const AscKernelInfo *k, unsigned part, bool first_of_kernel)
{
    if (first_of_kernel) {
        putf(o, "\n.kernel %s, %s\n", k->name, asc_kernel_kind_name(k->kind));
        for (uint32_t a = 0; a < k->nargs; a++) {
            const AscArgInfo *g = &k->args[a];
            if (g->kind == ASC_ARG_GM) putf(o, ".arg %s, gm, %s\n", g->name, asc_dtype_name(g->dtype));
            else putf(o, ".arg %s, %s\n", g->name, asc_arg_kind_name(g->kind));
        }
        if (k->ub_bytes) putf(o, ".uses ub, %u\n", k->ub_bytes);
        if (k->l1_bytes) putf(o, ".uses l1, %u\n", k->l1_bytes);
    }
    if (k->kind == ASC_KERNEL_MIX) putf(o, ".%s\n", part == ASC_PART_AIC ? "aic" : "aiv");
}

static void put_rodata(const Out *o, const AscImage *img)
{
    if (!img->rodata_size) return;
    putf(o, "\n.rodata\n");
    for (uint32_t i = 0; i < img->rodata_size; i += 16) {
        putf(o, "    .byte ");
        for (uint32_t j = i; j < i + 16 && j < img->rodata_size; j++) putf(o, "%s0x%02x", j > i ? ", " : "", img->rodata[j]);
        putf(o, " ; 0x%llx\n", (unsigned long long)(ASC_GM_RODATA_BASE + i));
    }
}

/* A program: where it starts in .text and whose it is. */
typedef struct Prog {
    uint32_t entry, kernel, part;
} Prog;

static int prog_cmp(const void *a, const void *b)
{
    const Prog *x = a, *y = b; /* entries are distinct: programs never overlap */
    return x->entry != y->entry ? (x->entry < y->entry ? -1 : 1) : 0;
}

bool asc_image_disasm(const AscImage *img, const AscDisasmDesc *desc, AscDiags *d)
{
    Out o = {desc};
    Prog *progs = asc_calloc(&img->alloc, 2 * (size_t)img->nkernels + 1, sizeof *progs);
    if (!progs) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    uint32_t np = 0;
    for (uint32_t i = 0; i < img->nkernels; i++)
        for (uint32_t p = 0; p < ASC_PART_COUNT; p++)
            if (img->kernels[i].size[p]) progs[np++] = (Prog){img->kernels[i].entry[p], i, p};
    qsort(progs, np, sizeof *progs, prog_cmp);

    putf(&o, "; disassembly by asc-objdump %s: assemble with asc-as to get the same .text\n.target %s\n", ASC_VERSION,
         img->target);
    uint32_t next = 0, li = 0, last_kernel = UINT32_MAX;
    const AscLineEntry *prev = NULL; /* source position shown last (-l) */
    uint64_t prog_end = 0;           /* end of the program being printed */
    bool outside = false;
    for (uint32_t w = 0; w < img->text_words; w++) {
        uint32_t pc = 4 * w;
        if (next < np && progs[next].entry == pc) {
            const Prog *p = &progs[next++];
            const AscKernelInfo *k = &img->kernels[p->kernel];
            put_program_start(&o, k, p->part, p->kernel != last_kernel);
            last_kernel = p->kernel;
            prev = NULL;
            prog_end = (uint64_t)p->entry + k->size[p->part];
            outside = false;
        } else if (pc >= prog_end && !outside) {
            putf(&o, "; the next words are outside every kernel program\n");
            outside = true;
        }
        while (li < img->nlines && img->lines[li].pc < pc) li++;
        if (desc->lines && li < img->nlines && img->lines[li].pc == pc) {
            const AscLineEntry *e = &img->lines[li];
            if (!prev || prev->file != e->file || prev->line != e->line || prev->col != e->col) put_source(&o, img, e);
            prev = e;
        }
        AscInsn in;
        char text[128];
        if (asc_decode(img->text[w], &in, NULL)) asc_insn_print(&in, text, sizeof text);
        else snprintf(text, sizeof text, ".word 0x%08x", img->text[w]);
        putf(&o, "    %-40s ; %04x: %08x\n", text, pc, img->text[w]);
    }
    put_rodata(&o, img);
    asc_free(&img->alloc, progs);
    return true;
}
