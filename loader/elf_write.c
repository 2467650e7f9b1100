/* elf_write.c -- AscImage -> ELF64 little-endian kernel binary.
 *
 * Users: the assembler CLI (asc-as -o), pyasc through libasc, tests.
 *
 * Invariants: the image is validated first, so nothing invalid is written;
 * the output buffer is allocated zero-filled and every field is written
 * explicitly, so padding is zero and the same image always gives the same
 * bytes; the layout is fixed (docs/binary.md):
 *
 *   ELF header | .text | .rodata | .asc.kernels | .asc.lines | .symtab |
 *   .strtab | .shstrtab | section header table (8 entries)
 *
 * each section at the next multiple of its alignment.  Sizes are computed in
 * uint64_t and checked against SIZE_MAX before allocating. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "asc/outfile.h"
#include "elf_format.h"

static uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

typedef struct Layout {
    uint64_t off[SEC_COUNT], size[SEC_COUNT];
    uint32_t name[SEC_COUNT]; /* offsets into .shstrtab */
    uint64_t shoff, total;
    uint32_t nsyms;           /* without the null symbol */
    uint64_t files_bytes;
} Layout;

static uint32_t nsyms_of(const AscKernelInfo *k) { return k->kind == ASC_KERNEL_MIX ? 2 : 1; }

static void layout(const AscImage *img, Layout *L)
{
    memset(L, 0, sizeof *L);
    uint64_t strtab = 1; /* leading NUL */
    for (uint32_t i = 0; i < img->nkernels; i++) {
        const AscKernelInfo *k = &img->kernels[i];
        L->nsyms += nsyms_of(k);
        uint64_t n = strlen(k->name);
        strtab += k->kind == ASC_KERNEL_MIX ? 2 * (n + strlen(MIX_AIC_SUFFIX) + 1) : n + 1;
    }
    for (uint32_t i = 0; i < img->nfiles; i++) L->files_bytes += strlen(img->files[i]) + 1;
    uint64_t shstr = 1;
    for (int s = 1; s < SEC_COUNT; s++) {
        L->name[s] = (uint32_t)shstr;
        shstr += strlen(sec_specs[s].name) + 1;
    }
    L->size[SEC_TEXT] = (uint64_t)img->text_words * 4;
    L->size[SEC_RODATA] = img->rodata_size;
    L->size[SEC_KERNELS] = KHDR_SIZE + (uint64_t)img->nkernels * KREC_SIZE;
    L->size[SEC_LINES] = LHDR_SIZE + (uint64_t)img->nlines * LREC_SIZE + L->files_bytes;
    L->size[SEC_SYMTAB] = (uint64_t)(L->nsyms + 1) * ELF_SYM_SIZE;
    L->size[SEC_STRTAB] = strtab;
    L->size[SEC_SHSTRTAB] = shstr;
    uint64_t at = ELF_EHDR_SIZE;
    for (int s = 1; s < SEC_COUNT; s++) {
        at = align_up(at, sec_specs[s].align);
        L->off[s] = at;
        at += L->size[s];
    }
    L->shoff = align_up(at, 8);
    L->total = L->shoff + (uint64_t)SEC_COUNT * ELF_SHDR_SIZE;
}

static void put_name(uint8_t *p, const char *s, size_t cap)
{
    size_t n = strnlen(s, cap - 1);
    memcpy(p, s, n); /* the rest stays zero: NUL-padded */
}

static void write_kernels(const AscImage *img, uint8_t *p)
{
    put_name(p + KHDR_TARGET, img->target, ASC_TARGET_NAME_MAX);
    wr32(p + KHDR_NKERNELS, img->nkernels);
    for (uint32_t i = 0; i < img->nkernels; i++) {
        const AscKernelInfo *k = &img->kernels[i];
        uint8_t *r = p + KHDR_SIZE + (size_t)i * KREC_SIZE;
        put_name(r + KREC_NAME, k->name, ASC_NAME_MAX);
        wr32(r + KREC_KIND, k->kind);
        wr32(r + KREC_NARGS, k->nargs);
        wr32(r + KREC_AIV_ENTRY, k->entry[ASC_PART_AIV]);
        wr32(r + KREC_AIV_SIZE, k->size[ASC_PART_AIV]);
        wr32(r + KREC_AIC_ENTRY, k->entry[ASC_PART_AIC]);
        wr32(r + KREC_AIC_SIZE, k->size[ASC_PART_AIC]);
        wr32(r + KREC_UB, k->ub_bytes);
        wr32(r + KREC_L1, k->l1_bytes);
        for (uint32_t a = 0; a < k->nargs; a++) {
            uint8_t *q = r + KREC_ARGS + a * AREC_SIZE;
            put_name(q + AREC_NAME, k->args[a].name, ASC_NAME_MAX);
            q[AREC_KIND] = k->args[a].kind;
            q[AREC_DTYPE] = k->args[a].dtype;
        }
    }
}

static void write_lines(const AscImage *img, const Layout *L, uint8_t *p)
{
    wr32(p + 0, img->nfiles);
    wr32(p + 4, img->nlines);
    wr32(p + 8, (uint32_t)L->files_bytes);
    uint8_t *r = p + LHDR_SIZE;
    for (uint32_t i = 0; i < img->nlines; i++, r += LREC_SIZE) {
        wr32(r + 0, img->lines[i].pc);
        wr32(r + 4, img->lines[i].file);
        wr32(r + 8, img->lines[i].line);
        wr32(r + 12, img->lines[i].col);
    }
    for (uint32_t i = 0; i < img->nfiles; i++) {
        size_t n = strlen(img->files[i]) + 1;
        memcpy(r, img->files[i], n);
        r += n;
    }
}

/* .symtab and .strtab: the null symbol, then per kernel (in table order) its
 * programs, AIC before AIV for mix kernels. */
static void write_symbols(const AscImage *img, uint8_t *sym, uint8_t *str)
{
    uint32_t at = 1;
    sym += ELF_SYM_SIZE;
    for (uint32_t i = 0; i < img->nkernels; i++) {
        const AscKernelInfo *k = &img->kernels[i];
        for (int j = 0; j < 2; j++) {
            AscPart part = sym_part_order[j];
            if (!k->size[part]) continue;
            char name[SYM_NAME_MAX];
            asc_loader_symbol_name(k, part, name);
            size_t n = strlen(name) + 1;
            memcpy(str + at, name, n);
            wr32(sym + 0, at);
            sym[4] = SYM_INFO_GLOBAL_FUNC;
            sym[5] = 0; /* STV_DEFAULT */
            wr16(sym + 6, SEC_TEXT);
            wr64(sym + 8, k->entry[part]);
            wr64(sym + 16, k->size[part]);
            sym += ELF_SYM_SIZE;
            at += (uint32_t)n;
        }
    }
}

bool asc_image_write(const AscImage *img, uint8_t **out, size_t *len, AscDiags *d)
{
    *out = NULL;
    *len = 0;
    if (!asc_loader_validate(img, NULL, d)) return false;
    Layout L;
    layout(img, &L);
    if (L.files_bytes > UINT32_MAX) {
        asc_diag(d, ASC_DIAG_BAD_BINARY, (AscLoc){0}, "the file name table is larger than 4 GiB");
        return false;
    }
    if (L.total > SIZE_MAX) {
        asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    uint8_t *b = asc_calloc(&img->alloc, 1, (size_t)L.total);
    if (!b) {
        asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }

    /* ELF header */
    static const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, EV_CURRENT, 0 /* OSABI none */};
    memcpy(b, ident, sizeof ident);
    wr16(b + 0x10, ET_EXEC);
    wr16(b + 0x12, ASC_ELF_MACHINE);
    wr32(b + 0x14, EV_CURRENT);
    wr64(b + 0x18, asc_loader_entry(img));
    wr64(b + 0x20, 0); /* no program headers */
    wr64(b + 0x28, L.shoff);
    wr32(b + 0x30, ASC_BINARY_VERSION);
    wr16(b + 0x34, ELF_EHDR_SIZE);
    wr16(b + 0x36, 0);
    wr16(b + 0x38, 0);
    wr16(b + 0x3a, ELF_SHDR_SIZE);
    wr16(b + 0x3c, SEC_COUNT);
    wr16(b + 0x3e, SEC_SHSTRTAB);

    /* section contents */
    for (uint32_t i = 0; i < img->text_words; i++) wr32(b + L.off[SEC_TEXT] + 4 * (size_t)i, img->text[i]);
    if (img->rodata_size) memcpy(b + L.off[SEC_RODATA], img->rodata, img->rodata_size);
    write_kernels(img, b + L.off[SEC_KERNELS]);
    write_lines(img, &L, b + L.off[SEC_LINES]);
    write_symbols(img, b + L.off[SEC_SYMTAB], b + L.off[SEC_STRTAB]);
    for (int s = 1; s < SEC_COUNT; s++) {
        const char *n = sec_specs[s].name;
        memcpy(b + L.off[SEC_SHSTRTAB] + L.name[s], n, strlen(n) + 1);
    }

    /* section headers; entry 0 stays all zero */
    for (int s = 1; s < SEC_COUNT; s++) {
        const SecSpec *sp = &sec_specs[s];
        uint8_t *h = b + L.shoff + (size_t)s * ELF_SHDR_SIZE;
        wr32(h + 0x00, L.name[s]);
        wr32(h + 0x04, sp->type);
        wr64(h + 0x08, sp->flags);
        wr64(h + 0x10, sp->addr);
        wr64(h + 0x18, L.off[s]);
        wr64(h + 0x20, L.size[s]);
        wr32(h + 0x28, sp->link_sec >= 0 ? (uint32_t)sp->link_sec : 0);
        wr32(h + 0x2c, sp->info);
        wr64(h + 0x30, sp->align);
        wr64(h + 0x38, sp->entsize);
    }
    *out = b;
    *len = (size_t)L.total;
    return true;
}

bool asc_image_write_file(const AscImage *img, const char *path, AscDiags *d)
{
    return asc_image_write_to(img, path, NULL, d);
}

/* Through asc/outfile.h: an exclusive temporary beside `path`, renamed into
 * place when `out` commits (out NULL: at once). */
bool asc_image_write_to(const AscImage *img, const char *path, AscOutSet *out, AscDiags *d)
{
    uint8_t *buf;
    size_t len;
    if (!asc_image_write(img, &buf, &len, d)) return false;
    bool ok = asc_out_write(out, path, buf, len, d);
    asc_free(&img->alloc, buf);
    return ok;
}
