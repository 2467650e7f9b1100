/* validate.c -- the semantic rules of a kernel image, shared by the writer
 * (nothing invalid is ever written) and the reader (nothing invalid is ever
 * loaded).
 *
 * Users: asc_image_write (before serialising), asc_image_read (after
 * parsing), anyone holding an AscImage built by hand (tests, pyasc).
 *
 * Rules, each reported as BAD_BINARY naming the rule (BAD_INSN_WORD for an
 * undecodable word), first broken rule only:
 *  - the target name is NUL-terminated, non-empty, printable;
 *  - .text fits a 32-bit pc and every word decodes;
 *  - kernel and argument names are identifiers ([A-Za-z_][A-Za-z0-9_.]*:
 *    what asc-as lexes as a name, minus a leading dot),
 *    kernel names unique and not clashing with a mix kernel's symbols,
 *    argument names unique within a kernel;
 *  - a kernel's kind matches its programs (aiv: only AIV, aic: only AIC,
 *    mix: both); an absent program has entry 0 and size 0;
 *  - programs are 4-aligned, inside .text and do not overlap;
 *  - arguments: at most ASC_MAX_ARGS, kind gm/int/float, gm has an element
 *    dtype, int and float have dtype none;
 *  - files are non-empty strings; line entries have 4-aligned pc inside
 *    .text, strictly increasing, and name an existing file.
 * Allocation: one scratch array for sorting, from img->alloc (OOM reported). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/isa.h"
#include "elf_format.h"

typedef struct Val {
    const AscImage *img;
    const char *origin;
    AscDiags *d;
} Val;

static bool fail(Val *v, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    asc_diag(v->d, ASC_DIAG_BAD_BINARY, (AscLoc){.file = v->origin}, msg);
    return false;
}

static const char *part_name(unsigned part) { return part == ASC_PART_AIV ? "AIV" : "AIC"; }

/* A name in a fixed array: NUL-terminated inside it, and an identifier. */
static bool check_ident(Val *v, const char *name, size_t cap, const char *what)
{
    if (!memchr(name, 0, cap)) return fail(v, "%s is not NUL-terminated within %zu bytes", what, cap);
    if (!name[0]) return fail(v, "%s is empty", what);
    for (const char *p = name; *p; p++) {
        unsigned char c = (unsigned char)*p;
        bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (p != name && ((c >= '0' && c <= '9') || c == '.'));
        if (!ok)
            return fail(v, "%s '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_.]*): byte 0x%02x at %zu", what, name, c,
                        (size_t)(p - name));
    }
    return true;
}

void asc_loader_symbol_name(const AscKernelInfo *k, AscPart part, char *buf)
{
    if (k->kind == ASC_KERNEL_MIX)
        snprintf(buf, SYM_NAME_MAX, "%.63s%s", k->name, part == ASC_PART_AIC ? MIX_AIC_SUFFIX : MIX_AIV_SUFFIX);
    else
        snprintf(buf, SYM_NAME_MAX, "%.63s", k->name);
}

uint32_t asc_loader_entry(const AscImage *img)
{
    if (!img->nkernels) return 0;
    const AscKernelInfo *k = &img->kernels[0];
    if (k->size[ASC_PART_AIV] && k->size[ASC_PART_AIC])
        return k->entry[ASC_PART_AIV] < k->entry[ASC_PART_AIC] ? k->entry[ASC_PART_AIV] : k->entry[ASC_PART_AIC];
    return k->size[ASC_PART_AIC] ? k->entry[ASC_PART_AIC] : k->entry[ASC_PART_AIV];
}

/* Sort keys; ties broken by kernel index and part so order is total. */
typedef struct Prog {
    uint32_t entry, size, kernel, part;
} Prog;

static int prog_cmp(const void *a, const void *b)
{
    const Prog *x = a, *y = b;
    if (x->entry != y->entry) return x->entry < y->entry ? -1 : 1;
    if (x->kernel != y->kernel) return x->kernel < y->kernel ? -1 : 1;
    return (x->part > y->part) - (x->part < y->part);
}

typedef struct Named {
    const char *name;
    uint32_t kernel;
} Named;

static int named_cmp(const void *a, const void *b)
{
    const Named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

static bool check_kernel(Val *v, uint32_t ki, uint64_t text_bytes)
{
    const AscKernelInfo *k = &v->img->kernels[ki];
    char what[160];
    snprintf(what, sizeof what, "kernel %u name", ki);
    if (!check_ident(v, k->name, sizeof k->name, what)) return false;
    const char *kind = asc_kernel_kind_name(k->kind);
    if (!kind) return fail(v, "kernel '%s' has kind %u: kinds are 0 (aiv), 1 (aic), 2 (mix)", k->name, k->kind);
    bool want[ASC_PART_COUNT] = {k->kind != ASC_KERNEL_AIC, k->kind != ASC_KERNEL_AIV};
    for (unsigned p = 0; p < ASC_PART_COUNT; p++) {
        uint32_t e = k->entry[p], s = k->size[p];
        if (want[p] && !s) return fail(v, "%s kernel '%s' has no %s program (size 0)", kind, k->name, part_name(p));
        if (!want[p] && s)
            return fail(v, "%s kernel '%s' has an %s program (size 0x%x): %s", kind, k->name, part_name(p), s,
                        k->kind == ASC_KERNEL_AIV ? "an aiv kernel has only an AIV program"
                                                  : "an aic kernel has only an AIC program");
        if (!want[p] && e)
            return fail(v, "%s kernel '%s' has no %s program but its entry is 0x%x, not 0", kind, k->name, part_name(p), e);
        if (!s) continue;
        if (e % 4) return fail(v, "kernel '%s' %s program entry 0x%x is not a multiple of 4", k->name, part_name(p), e);
        if (s % 4) return fail(v, "kernel '%s' %s program size 0x%x is not a multiple of 4", k->name, part_name(p), s);
        if ((uint64_t)e + s > text_bytes)
            return fail(v, "kernel '%s' %s program [0x%x, 0x%llx) is outside .text (0x%llx bytes)", k->name, part_name(p), e,
                        (unsigned long long)e + s, (unsigned long long)text_bytes);
    }
    if (k->nargs > ASC_MAX_ARGS)
        return fail(v, "kernel '%s' has %u arguments, more than %u (x0..x%u)", k->name, k->nargs, ASC_MAX_ARGS,
                    ASC_MAX_ARGS - 1);
    for (uint32_t i = 0; i < k->nargs; i++) {
        const AscArgInfo *a = &k->args[i];
        snprintf(what, sizeof what, "kernel '%s' argument %u name", k->name, i);
        if (!check_ident(v, a->name, sizeof a->name, what)) return false;
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(k->args[j].name, a->name) == 0)
                return fail(v, "kernel '%s' arguments %u and %u are both named '%s'", k->name, j, i, a->name);
        const char *ak = asc_arg_kind_name(a->kind);
        if (!ak)
            return fail(v, "kernel '%s' argument %u ('%s') has kind %u: kinds are 0 (gm), 1 (int), 2 (float)", k->name, i,
                        a->name, a->kind);
        if (a->dtype >= ASC_DT_COUNT)
            return fail(v, "kernel '%s' argument %u ('%s') has dtype %u: dtypes are 0..%u", k->name, i, a->name, a->dtype,
                        ASC_DT_COUNT - 1);
        if (a->kind == ASC_ARG_GM && a->dtype == ASC_DT_NONE)
            return fail(v, "kernel '%s' argument %u ('%s') is gm and needs an element dtype (dtype is none)", k->name, i,
                        a->name);
        if (a->kind != ASC_ARG_GM && a->dtype != ASC_DT_NONE)
            return fail(v, "kernel '%s' argument %u ('%s') is %s and must have dtype none, got %s", k->name, i, a->name, ak,
                        asc_dtype_name(a->dtype));
    }
    return true;
}

/* Names unique; a non-mix kernel named like a mix kernel's symbol clashes;
 * programs do not overlap.  Needs sorting, so one scratch allocation. */
static bool check_kernel_set(Val *v)
{
    const AscImage *img = v->img;
    uint32_t n = img->nkernels;
    if (n == 0) return true;
    const AscAlloc *al = &img->alloc;
    Named *names = asc_calloc(al, n, sizeof *names);
    Prog *progs = asc_calloc(al, n, 2 * sizeof *progs);
    if (!names || !progs) {
        asc_free(al, names);
        asc_free(al, progs);
        asc_diag(v->d, ASC_DIAG_OOM, (AscLoc){.file = v->origin});
        return false;
    }
    bool ok = true;
    uint32_t np = 0;
    for (uint32_t i = 0; i < n; i++) {
        names[i] = (Named){img->kernels[i].name, i};
        for (uint32_t p = 0; p < ASC_PART_COUNT; p++)
            if (img->kernels[i].size[p]) progs[np++] = (Prog){img->kernels[i].entry[p], img->kernels[i].size[p], i, p};
    }
    qsort(names, n, sizeof *names, named_cmp);
    for (uint32_t i = 1; ok && i < n; i++)
        if (strcmp(names[i - 1].name, names[i].name) == 0)
            ok = fail(v, "kernels %u and %u are both named '%s'", names[i - 1].kernel, names[i].kernel, names[i].name);
    size_t sl = strlen(MIX_AIC_SUFFIX);
    for (uint32_t i = 0; ok && i < n; i++) {
        const AscKernelInfo *k = &img->kernels[i];
        size_t len = strlen(k->name);
        if (k->kind == ASC_KERNEL_MIX || len <= sl) continue;
        if (strcmp(k->name + len - sl, MIX_AIC_SUFFIX) != 0 && strcmp(k->name + len - sl, MIX_AIV_SUFFIX) != 0) continue;
        char base[ASC_NAME_MAX];
        memcpy(base, k->name, len - sl);
        base[len - sl] = 0;
        Named key = {base, 0};
        /* the first entry >= (base, 0): lower bound by hand */
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (named_cmp(&names[mid], &key) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < n && strcmp(names[lo].name, base) == 0 && img->kernels[names[lo].kernel].kind == ASC_KERNEL_MIX)
            ok = fail(v, "kernel '%s' has the same symbol name as a program of mix kernel '%s'", k->name, base);
    }
    qsort(progs, np, sizeof *progs, prog_cmp);
    for (uint32_t i = 1; ok && i < np; i++) {
        const Prog *a = &progs[i - 1], *b = &progs[i];
        if ((uint64_t)a->entry + a->size > b->entry)
            ok = fail(v, "kernel '%s' %s program [0x%x, 0x%llx) overlaps kernel '%s' %s program [0x%x, 0x%llx)",
                      img->kernels[a->kernel].name, part_name(a->part), a->entry, (unsigned long long)a->entry + a->size,
                      img->kernels[b->kernel].name, part_name(b->part), b->entry, (unsigned long long)b->entry + b->size);
    }
    asc_free(al, names);
    asc_free(al, progs);
    return ok;
}

bool asc_loader_validate(const AscImage *img, const char *origin, AscDiags *d)
{
    Val v = {img, origin, d};
    if (!memchr(img->target, 0, sizeof img->target))
        return fail(&v, "target name is not NUL-terminated within %zu bytes", sizeof img->target);
    if (!img->target[0]) return fail(&v, "target name is empty: a binary names the profile it was assembled for");
    for (const char *p = img->target; *p; p++)
        if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
            return fail(&v, "target name has byte 0x%02x: names are printable ASCII without spaces", (unsigned char)*p);

    /* .text: pc is a uint32_t byte offset, so .text is below 4 GiB */
    if (img->text_words > UINT32_MAX / 4)
        return fail(&v, ".text has %u words: more than a 32-bit pc can address", img->text_words);
    if (img->text_words && !img->text) return fail(&v, ".text has %u words but no data", img->text_words);
    uint64_t text_bytes = (uint64_t)img->text_words * 4;
    for (uint32_t i = 0; i < img->text_words; i++) {
        AscInsn in;
        const char *why = "undecodable";
        if (!asc_decode(img->text[i], &in, &why)) {
            asc_diag(d, ASC_DIAG_BAD_INSN_WORD, (AscLoc){.file = origin}, (unsigned)img->text[i], (unsigned)(i * 4), why);
            return false;
        }
    }
    if (img->rodata_size && !img->rodata) return fail(&v, ".rodata has %u bytes but no data", img->rodata_size);

    if (img->nkernels && !img->kernels) return fail(&v, "%u kernels but no kernel table", img->nkernels);
    for (uint32_t i = 0; i < img->nkernels; i++)
        if (!check_kernel(&v, i, text_bytes)) return false;
    if (!check_kernel_set(&v)) return false;

    if (img->nfiles && !img->files) return fail(&v, "%u files but no file table", img->nfiles);
    for (uint32_t i = 0; i < img->nfiles; i++)
        if (!img->files[i] || !img->files[i][0]) return fail(&v, "file name %u is empty", i);
    if (img->nlines && !img->lines) return fail(&v, "%u line entries but no line table", img->nlines);
    for (uint32_t i = 0; i < img->nlines; i++) {
        const AscLineEntry *e = &img->lines[i];
        if (e->pc % 4) return fail(&v, "line entry %u pc 0x%x is not a multiple of 4", i, e->pc);
        if (e->pc >= text_bytes)
            return fail(&v, "line entry %u pc 0x%x is outside .text (0x%llx bytes)", i, e->pc,
                        (unsigned long long)text_bytes);
        if (i && e->pc <= img->lines[i - 1].pc)
            return fail(&v, "line entry %u (pc 0x%x) is not after line entry %u (pc 0x%x): entries are sorted by increasing pc",
                        i, e->pc, i - 1, img->lines[i - 1].pc);
        if (e->file >= img->nfiles)
            return fail(&v, "line entry %u names file %u, but there are %u files", i, e->file, img->nfiles);
    }
    return true;
}

bool asc_image_validate(const AscImage *img, AscDiags *d) { return asc_loader_validate(img, NULL, d); }
