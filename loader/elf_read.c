/* elf_read.c -- ELF64 kernel binary -> AscImage, checking everything.
 *
 * Users: the simulator, asc-objdump, pyasc (through libasc), tests.
 *
 * The input is untrusted.  Checks run in three stages and the first broken
 * rule is reported as a BAD_BINARY diagnostic that names it (Lua's
 * checkHeader):
 *   1. structure: ELF header fields, the section table, each section's
 *      header fields and bounds, the fixed-width records of .asc.kernels and
 *      .asc.lines (reserved bytes zero, names NUL-terminated and NUL-padded);
 *   2. meaning: asc_loader_validate on the parsed image (every instruction
 *      word decodes, kinds, programs, arguments, line entries);
 *   3. derived data: .symtab/.strtab and e_entry agree with .asc.kernels.
 * Invariants: no read outside buf[0, len): every offset is checked with
 * `off <= len && size <= len - off` (never `off + size`, which can wrap);
 * counts read from the file are bounded by their section's size before
 * anything is allocated; on failure the image is left empty. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "elf_format.h"

typedef struct Sec {
    uint32_t name, type, link, info;
    uint64_t flags, addr, off, size, align, entsize;
    char nm[16]; /* printable name for messages (known names fit) */
} Sec;

typedef struct Rd {
    const uint8_t *buf;
    size_t len;
    const char *origin; /* loc.file of diagnostics, may be NULL */
    AscDiags *d;        /* may be NULL (asc_image_sections) */
    AscImage *img;
    Sec sh[SEC_COUNT];
    int idx[SEC_COUNT]; /* file index of each known section (SEC_*) */
} Rd;

static bool bad(Rd *r, const char *fmt, ...)
{
    if (!r->d) return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    asc_diag(r->d, ASC_DIAG_BAD_BINARY, (AscLoc){.file = r->origin}, msg);
    return false;
}

static bool oom(Rd *r)
{
    if (r->d) asc_diag(r->d, ASC_DIAG_OOM, (AscLoc){.file = r->origin});
    return false;
}

typedef unsigned long long ull;

/* [off, off+size) lies inside the file. */
static bool in_file(const Rd *r, uint64_t off, uint64_t size) { return off <= r->len && size <= r->len - off; }

/* ---- stage 1a: ELF header --------------------------------------------- */

static bool check_ehdr(Rd *r)
{
    const uint8_t *b = r->buf;
    if (r->len < ELF_EHDR_SIZE)
        return bad(r, "file is %zu bytes, shorter than the %u-byte ELF header", r->len, ELF_EHDR_SIZE);
    if (b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F')
        return bad(r, "not an ELF file (magic %02x %02x %02x %02x, expected 7f 45 4c 46)", b[0], b[1], b[2], b[3]);
    if (b[4] != ELFCLASS64) return bad(r, "not a 64-bit ELF file (EI_CLASS %u, expected 2 = ELFCLASS64)", b[4]);
    if (b[5] != ELFDATA2LSB)
        return bad(r, "not a little-endian ELF file (EI_DATA %u, expected 1 = ELFDATA2LSB)", b[5]);
    if (b[6] != EV_CURRENT) return bad(r, "ELF identification version EI_VERSION %u is not 1 (EV_CURRENT)", b[6]);
    if (b[7] != 0) return bad(r, "EI_OSABI %u is not 0 (ELFOSABI_NONE)", b[7]);
    if (b[8] != 0) return bad(r, "EI_ABIVERSION %u is not 0", b[8]);
    for (unsigned i = 9; i < 16; i++)
        if (b[i]) return bad(r, "e_ident padding byte %u is 0x%02x, not zero", i, b[i]);
    if (rd16(b + 0x10) != ET_EXEC) return bad(r, "e_type %u is not ET_EXEC (2)", rd16(b + 0x10));
    if (rd16(b + 0x12) != ASC_ELF_MACHINE)
        return bad(r, "e_machine 0x%x is not the asc machine 0x%x: this ELF file is not an asc kernel binary",
                   rd16(b + 0x12), ASC_ELF_MACHINE);
    if (rd32(b + 0x14) != EV_CURRENT) return bad(r, "e_version %u is not 1 (EV_CURRENT)", rd32(b + 0x14));
    uint32_t ver = rd32(b + 0x30);
    if (ver > ASC_BINARY_VERSION)
        return bad(r, "version mismatch: the file has format version %u, this loader reads version %u; upgrade asc to read it",
                   ver, ASC_BINARY_VERSION);
    if (ver < ASC_BINARY_VERSION)
        return bad(r,
                   "version mismatch: the file has format version %u, this loader reads version %u; re-assemble the "
                   "kernel with this asc",
                   ver, ASC_BINARY_VERSION);
    if (rd16(b + 0x34) != ELF_EHDR_SIZE) return bad(r, "e_ehsize %u is not %u", rd16(b + 0x34), ELF_EHDR_SIZE);
    if (rd64(b + 0x20) || rd16(b + 0x36) || rd16(b + 0x38))
        return bad(r, "the file has program headers (e_phoff %llu, e_phentsize %u, e_phnum %u): asc binaries have none",
                   (ull)rd64(b + 0x20), rd16(b + 0x36), rd16(b + 0x38));
    if (rd16(b + 0x3a) != ELF_SHDR_SIZE) return bad(r, "e_shentsize %u is not %u", rd16(b + 0x3a), ELF_SHDR_SIZE);
    if (rd16(b + 0x3c) != SEC_COUNT)
        return bad(r, "e_shnum %u: an asc binary has %u sections (null, .text, .rodata, .asc.kernels, .asc.lines, "
                      ".symtab, .strtab, .shstrtab)",
                   rd16(b + 0x3c), SEC_COUNT);
    uint64_t shoff = rd64(b + 0x28);
    if (shoff % 8) return bad(r, "section header table offset %llu is not a multiple of 8", (ull)shoff);
    if (shoff < ELF_EHDR_SIZE)
        return bad(r, "section header table offset %llu overlaps the ELF header", (ull)shoff);
    if (!in_file(r, shoff, (uint64_t)SEC_COUNT * ELF_SHDR_SIZE))
        return bad(r, "section header table at offset %llu (%u x %u bytes) extends past the end of the file (%zu bytes)",
                   (ull)shoff, SEC_COUNT, ELF_SHDR_SIZE, r->len);
    uint16_t shstrndx = rd16(b + 0x3e);
    if (shstrndx == 0 || shstrndx >= SEC_COUNT)
        return bad(r, "e_shstrndx %u does not name a section (1..%u)", shstrndx, SEC_COUNT - 1);
    return true;
}

/* ---- stage 1b: section table --------------------------------------------- */

static void printable(char *dst, size_t cap, const uint8_t *s, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < n && s[i] && j + 1 < cap; i++) dst[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? (char)s[i] : '?';
    dst[j] = 0;
}

static bool read_sections(Rd *r)
{
    uint64_t shoff = rd64(r->buf + 0x28);
    for (int i = 0; i < SEC_COUNT; i++) {
        const uint8_t *h = r->buf + shoff + (size_t)i * ELF_SHDR_SIZE;
        Sec *s = &r->sh[i];
        s->name = rd32(h + 0x00);
        s->type = rd32(h + 0x04);
        s->flags = rd64(h + 0x08);
        s->addr = rd64(h + 0x10);
        s->off = rd64(h + 0x18);
        s->size = rd64(h + 0x20);
        s->link = rd32(h + 0x28);
        s->info = rd32(h + 0x2c);
        s->align = rd64(h + 0x30);
        s->entsize = rd64(h + 0x38);
        r->idx[i] = -1;
    }
    for (unsigned i = 0; i < ELF_SHDR_SIZE; i++)
        if (r->buf[shoff + i]) return bad(r, "section 0 is not the all-zero null section (byte %u is not zero)", i);
    r->idx[SEC_NULL] = 0;

    /* the section name table first: every other name lives in it */
    unsigned si = rd16(r->buf + 0x3e);
    Sec *ss = &r->sh[si];
    if (ss->type != SHT_STRTAB)
        return bad(r, "section %u (named by e_shstrndx) has type %u, not SHT_STRTAB (3)", si, ss->type);
    if (!in_file(r, ss->off, ss->size))
        return bad(r, "section %u (the section name table) at offset %llu size %llu extends past the end of the file (%zu bytes)",
                   si, (ull)ss->off, (ull)ss->size, r->len);
    const uint8_t *shstr = r->buf + ss->off;
    if (ss->size == 0 || shstr[0] || shstr[ss->size - 1])
        return bad(r, "the section name table (section %u) does not start and end with a NUL byte", si);

    for (unsigned i = 1; i < SEC_COUNT; i++) {
        Sec *s = &r->sh[i];
        if (s->name >= ss->size)
            return bad(r, "section %u name offset %u is outside the section name table (%llu bytes)", i, s->name,
                       (ull)ss->size);
        const char *nm = (const char *)shstr + s->name; /* NUL-terminated: the table ends with NUL */
        printable(s->nm, sizeof s->nm, (const uint8_t *)nm, strlen(nm));
        int known = -1;
        for (int k = 1; k < SEC_COUNT; k++)
            if (strcmp(nm, sec_specs[k].name) == 0) known = k;
        if (known < 0) return bad(r, "section %u has unknown name '%s'", i, s->nm);
        if (r->idx[known] >= 0) return bad(r, "section %u duplicates %s (section %d)", i, s->nm, r->idx[known]);
        r->idx[known] = (int)i;
    }
    if (r->idx[SEC_SHSTRTAB] != (int)si)
        return bad(r, "e_shstrndx %u names section '%s', not .shstrtab", si, r->sh[si].nm);

    for (int k = 1; k < SEC_COUNT; k++) {
        unsigned i = (unsigned)r->idx[k];
        const Sec *s = &r->sh[i];
        const SecSpec *sp = &sec_specs[k];
        const char *n = sp->name;
        uint32_t link = sp->link_sec >= 0 ? (uint32_t)r->idx[sp->link_sec] : 0;
        if (s->type != sp->type) return bad(r, "section %u (%s) has sh_type %u, expected %u", i, n, s->type, sp->type);
        if (s->flags != sp->flags)
            return bad(r, "section %u (%s) has sh_flags 0x%llx, expected 0x%llx", i, n, (ull)s->flags, (ull)sp->flags);
        if (s->addr != sp->addr)
            return bad(r, "section %u (%s) has sh_addr 0x%llx, expected 0x%llx", i, n, (ull)s->addr, (ull)sp->addr);
        if (s->align != sp->align)
            return bad(r, "section %u (%s) has sh_addralign %llu, expected %llu", i, n, (ull)s->align, (ull)sp->align);
        if (s->entsize != sp->entsize)
            return bad(r, "section %u (%s) has sh_entsize %llu, expected %llu", i, n, (ull)s->entsize, (ull)sp->entsize);
        if (s->link != link) return bad(r, "section %u (%s) has sh_link %u, expected %u", i, n, s->link, link);
        if (s->info != sp->info) return bad(r, "section %u (%s) has sh_info %u, expected %u", i, n, s->info, sp->info);
        if (!in_file(r, s->off, s->size))
            return bad(r, "section %u (%s) at offset %llu size %llu extends past the end of the file (%zu bytes)", i, n,
                       (ull)s->off, (ull)s->size, r->len);
        if (s->off % sp->align)
            return bad(r, "section %u (%s) offset %llu is not a multiple of its alignment %llu", i, n, (ull)s->off,
                       (ull)sp->align);
    }
    /* no section overlaps the ELF header, the section header table or another */
    uint64_t shend = shoff + (uint64_t)SEC_COUNT * ELF_SHDR_SIZE;
    for (unsigned i = 1; i < SEC_COUNT; i++) {
        const Sec *a = &r->sh[i];
        if (!a->size) continue;
        uint64_t aend = a->off + a->size;
        if (a->off < ELF_EHDR_SIZE) return bad(r, "section %u (%s) overlaps the ELF header", i, a->nm);
        if (a->off < shend && shoff < aend) return bad(r, "section %u (%s) overlaps the section header table", i, a->nm);
        for (unsigned j = 1; j < i; j++) {
            const Sec *b = &r->sh[j];
            if (b->size && a->off < b->off + b->size && b->off < aend)
                return bad(r, "section %u (%s) [%llu, %llu) overlaps section %u (%s) [%llu, %llu)", i, a->nm, (ull)a->off,
                           (ull)aend, j, b->nm, (ull)b->off, (ull)(b->off + b->size));
        }
    }
    return true;
}

static const Sec *sec(const Rd *r, int k) { return &r->sh[r->idx[k]]; }
static const uint8_t *sec_data(const Rd *r, int k) { return r->buf + sec(r, k)->off; }

/* ---- stage 1c: contents ------------------------------------------------- */

/* A fixed-width name field: NUL-terminated within `cap`, NUL-padded. */
static bool check_name_field(Rd *r, const uint8_t *p, size_t cap, const char *what)
{
    const uint8_t *z = memchr(p, 0, cap);
    if (!z) return bad(r, "%s is not NUL-terminated within %zu bytes", what, cap);
    for (const uint8_t *q = z; q < p + cap; q++)
        if (*q) return bad(r, "%s is not NUL-padded (byte %zu after the NUL is 0x%02x)", what, (size_t)(q - p), *q);
    return true;
}

static bool read_text_rodata(Rd *r)
{
    AscImage *img = r->img;
    const Sec *t = sec(r, SEC_TEXT);
    if (t->size % 4) return bad(r, ".text size %llu is not a multiple of 4", (ull)t->size);
    if (t->size / 4 > UINT32_MAX / 4)
        return bad(r, ".text size %llu is more than a 32-bit pc can address", (ull)t->size);
    img->text_words = (uint32_t)(t->size / 4);
    if (img->text_words) {
        img->text = asc_malloc(&img->alloc, (size_t)t->size);
        if (!img->text) return oom(r);
        const uint8_t *p = sec_data(r, SEC_TEXT);
        for (uint32_t i = 0; i < img->text_words; i++) img->text[i] = rd32(p + 4 * (size_t)i);
    }
    const Sec *ro = sec(r, SEC_RODATA);
    if (ro->size > UINT32_MAX) return bad(r, ".rodata size %llu is more than 4 GiB", (ull)ro->size);
    img->rodata_size = (uint32_t)ro->size;
    if (img->rodata_size) {
        img->rodata = asc_malloc(&img->alloc, img->rodata_size);
        if (!img->rodata) return oom(r);
        memcpy(img->rodata, sec_data(r, SEC_RODATA), img->rodata_size);
    }
    return true;
}

static bool read_kernels(Rd *r)
{
    AscImage *img = r->img;
    const Sec *s = sec(r, SEC_KERNELS);
    const uint8_t *p = sec_data(r, SEC_KERNELS);
    if (s->size < KHDR_SIZE)
        return bad(r, ".asc.kernels is %llu bytes, shorter than its %u-byte header", (ull)s->size, KHDR_SIZE);
    if (!check_name_field(r, p + KHDR_TARGET, ASC_TARGET_NAME_MAX, "the target name in .asc.kernels")) return false;
    memcpy(img->target, p + KHDR_TARGET, ASC_TARGET_NAME_MAX);
    uint32_t n = rd32(p + KHDR_NKERNELS);
    if (rd32(p + KHDR_RESERVED)) return bad(r, ".asc.kernels header reserved word is not zero");
    if (n > (s->size - KHDR_SIZE) / KREC_SIZE || s->size != KHDR_SIZE + (uint64_t)n * KREC_SIZE)
        return bad(r, ".asc.kernels is %llu bytes but its header counts %u kernels (%u + %u x %u = %llu bytes)",
                   (ull)s->size, n, KHDR_SIZE, n, KREC_SIZE, (ull)(KHDR_SIZE + (uint64_t)n * KREC_SIZE));
    if (!n) return true;
    img->kernels = asc_calloc(&img->alloc, n, sizeof *img->kernels);
    if (!img->kernels) return oom(r);
    img->nkernels = n;
    char what[160];
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *k = p + KHDR_SIZE + (size_t)i * KREC_SIZE;
        AscKernelInfo *ki = &img->kernels[i];
        snprintf(what, sizeof what, "kernel %u name", i);
        if (!check_name_field(r, k + KREC_NAME, ASC_NAME_MAX, what)) return false;
        memcpy(ki->name, k + KREC_NAME, ASC_NAME_MAX);
        uint32_t kind = rd32(k + KREC_KIND);
        if (kind > 0xff) return bad(r, "kernel '%s' has kind %u: kinds are 0 (aiv), 1 (aic), 2 (mix)", ki->name, kind);
        ki->kind = (uint8_t)kind;
        ki->nargs = rd32(k + KREC_NARGS);
        if (ki->nargs > ASC_MAX_ARGS)
            return bad(r, "kernel '%s' has %u arguments, more than %u (x0..x%u)", ki->name, ki->nargs, ASC_MAX_ARGS,
                       ASC_MAX_ARGS - 1);
        ki->entry[ASC_PART_AIV] = rd32(k + KREC_AIV_ENTRY);
        ki->size[ASC_PART_AIV] = rd32(k + KREC_AIV_SIZE);
        ki->entry[ASC_PART_AIC] = rd32(k + KREC_AIC_ENTRY);
        ki->size[ASC_PART_AIC] = rd32(k + KREC_AIC_SIZE);
        ki->ub_bytes = rd32(k + KREC_UB);
        ki->l1_bytes = rd32(k + KREC_L1);
        for (uint32_t a = 0; a < ASC_MAX_ARGS; a++) {
            const uint8_t *q = k + KREC_ARGS + a * AREC_SIZE;
            if (a >= ki->nargs) {
                for (unsigned b = 0; b < AREC_SIZE; b++)
                    if (q[b])
                        return bad(r, "kernel '%s' argument slot %u is unused (nargs %u) but not all zero", ki->name, a,
                                   ki->nargs);
                continue;
            }
            snprintf(what, sizeof what, "kernel '%s' argument %u name", ki->name, a);
            if (!check_name_field(r, q + AREC_NAME, ASC_NAME_MAX, what)) return false;
            memcpy(ki->args[a].name, q + AREC_NAME, ASC_NAME_MAX);
            ki->args[a].kind = q[AREC_KIND];
            ki->args[a].dtype = q[AREC_DTYPE];
            for (unsigned b = AREC_RESERVED; b < AREC_SIZE; b++)
                if (q[b]) return bad(r, "kernel '%s' argument %u reserved byte %u is not zero", ki->name, a, b);
        }
    }
    return true;
}

static bool read_lines(Rd *r)
{
    AscImage *img = r->img;
    const Sec *s = sec(r, SEC_LINES);
    const uint8_t *p = sec_data(r, SEC_LINES);
    if (s->size < LHDR_SIZE)
        return bad(r, ".asc.lines is %llu bytes, shorter than its %u-byte header", (ull)s->size, LHDR_SIZE);
    uint32_t nfiles = rd32(p), nlines = rd32(p + 4), fbytes = rd32(p + 8);
    if (rd32(p + 12)) return bad(r, ".asc.lines header reserved word is not zero");
    uint64_t want = LHDR_SIZE + (uint64_t)nlines * LREC_SIZE + fbytes;
    if (s->size != want)
        return bad(r, ".asc.lines is %llu bytes but its header says %u line entries and %u bytes of file names (%llu bytes)",
                   (ull)s->size, nlines, fbytes, (ull)want);
    /* every name takes at least 2 bytes: bounds nfiles before allocating */
    if (nfiles > fbytes / 2)
        return bad(r, ".asc.lines counts %u files in %u bytes of names: each name needs at least 2 bytes", nfiles, fbytes);
    if (nlines) {
        img->lines = asc_calloc(&img->alloc, nlines, sizeof *img->lines);
        if (!img->lines) return oom(r);
        img->nlines = nlines;
        for (uint32_t i = 0; i < nlines; i++) {
            const uint8_t *q = p + LHDR_SIZE + (size_t)i * LREC_SIZE;
            img->lines[i] = (AscLineEntry){rd32(q), rd32(q + 4), rd32(q + 8), rd32(q + 12)};
        }
    }
    const uint8_t *f = p + LHDR_SIZE + (size_t)nlines * LREC_SIZE, *end = f + fbytes;
    if (nfiles) {
        img->files = asc_calloc(&img->alloc, nfiles, sizeof *img->files);
        if (!img->files) return oom(r);
        img->nfiles = nfiles; /* entries stay NULL until set: asc_image_free copes */
    }
    for (uint32_t i = 0; i < nfiles; i++) {
        const uint8_t *z = memchr(f, 0, (size_t)(end - f));
        if (!z) return bad(r, "file name %u is not NUL-terminated inside .asc.lines", i);
        if (z == f) return bad(r, "file name %u is empty", i);
        size_t n = (size_t)(z - f) + 1;
        img->files[i] = asc_malloc(&img->alloc, n);
        if (!img->files[i]) return oom(r);
        memcpy(img->files[i], f, n);
        f = z + 1;
    }
    if (f != end) return bad(r, ".asc.lines has %zu bytes after the last of its %u file names", (size_t)(end - f), nfiles);
    return true;
}

/* ---- stage 3: symbols and entry ----------------------------------------- */

static bool check_symbols(Rd *r)
{
    const AscImage *img = r->img;
    const Sec *ss = sec(r, SEC_SYMTAB), *st = sec(r, SEC_STRTAB);
    const uint8_t *sym = sec_data(r, SEC_SYMTAB), *str = sec_data(r, SEC_STRTAB);
    if (st->size == 0 || str[0] || str[st->size - 1])
        return bad(r, ".strtab does not start and end with a NUL byte");
    uint64_t nsyms = 0;
    for (uint32_t i = 0; i < img->nkernels; i++) nsyms += img->kernels[i].kind == ASC_KERNEL_MIX ? 2 : 1;
    if (ss->size != (nsyms + 1) * ELF_SYM_SIZE)
        return bad(r, ".symtab is %llu bytes, expected %llu: the null symbol and one symbol per kernel program (%llu)",
                   (ull)ss->size, (ull)((nsyms + 1) * ELF_SYM_SIZE), (ull)nsyms);
    for (unsigned b = 0; b < ELF_SYM_SIZE; b++)
        if (sym[b]) return bad(r, "symbol 0 is not the all-zero null symbol");
    uint32_t si = 1;
    for (uint32_t i = 0; i < img->nkernels; i++) {
        const AscKernelInfo *k = &img->kernels[i];
        for (int j = 0; j < 2; j++) {
            AscPart part = sym_part_order[j];
            if (!k->size[part]) continue;
            const uint8_t *e = sym + (size_t)si * ELF_SYM_SIZE;
            char want[SYM_NAME_MAX];
            asc_loader_symbol_name(k, part, want);
            uint32_t nm = rd32(e);
            if (nm >= st->size) return bad(r, "symbol %u name offset %u is outside .strtab (%llu bytes)", si, nm, (ull)st->size);
            const char *have = (const char *)str + nm; /* .strtab ends with NUL */
            if (strcmp(have, want) != 0) {
                char h[40];
                printable(h, sizeof h, (const uint8_t *)have, strlen(have));
                return bad(r, "symbol %u is named '%s', expected '%s' (kernel %u's %s program)", si, h, want, i,
                           part == ASC_PART_AIC ? "AIC" : "AIV");
            }
            if (e[4] != SYM_INFO_GLOBAL_FUNC)
                return bad(r, "symbol %u ('%s') has st_info 0x%02x, expected 0x12 (GLOBAL FUNC)", si, want, e[4]);
            if (e[5]) return bad(r, "symbol %u ('%s') has st_other 0x%02x, expected 0", si, want, e[5]);
            if (rd16(e + 6) != (unsigned)r->idx[SEC_TEXT])
                return bad(r, "symbol %u ('%s') has st_shndx %u, expected %d (.text)", si, want, rd16(e + 6), r->idx[SEC_TEXT]);
            if (rd64(e + 8) != k->entry[part])
                return bad(r, "symbol %u ('%s') has st_value 0x%llx, but the program's entry is 0x%x", si, want,
                           (ull)rd64(e + 8), k->entry[part]);
            if (rd64(e + 16) != k->size[part])
                return bad(r, "symbol %u ('%s') has st_size 0x%llx, but the program's size is 0x%x", si, want,
                           (ull)rd64(e + 16), k->size[part]);
            si++;
        }
    }
    uint64_t entry = rd64(r->buf + 0x18);
    if (entry != asc_loader_entry(img))
        return bad(r, "e_entry 0x%llx is not 0x%x, the entry of the first kernel's first program", (ull)entry,
                   asc_loader_entry(img));
    return true;
}

/* ---- entry points ------------------------------------------------------- */

static bool read_impl(AscImage *img, const uint8_t *buf, size_t len, const char *origin, AscDiags *d)
{
    asc_image_free(img); /* start empty (keeps the allocator) */
    Rd r;
    memset(&r, 0, sizeof r);
    r.buf = buf;
    r.len = len;
    r.origin = origin;
    r.d = d;
    r.img = img;
    bool ok = (buf || !len || bad(&r, "no buffer for a %zu-byte file", len)) && check_ehdr(&r) && read_sections(&r) && read_text_rodata(&r) && read_kernels(&r) &&
              read_lines(&r) && asc_loader_validate(img, origin, d) && check_symbols(&r);
    if (!ok) asc_image_free(img);
    return ok;
}

bool asc_image_read(AscImage *img, const uint8_t *buf, size_t len, AscDiags *d)
{
    return read_impl(img, buf, len, NULL, d);
}

bool asc_image_read_file(AscImage *img, const char *path, AscDiags *d)
{
    asc_image_free(img);
    FILE *f = fopen(path, "rb");
    if (!f) {
        asc_diag(d, ASC_DIAG_IO, (AscLoc){.file = path}, "open", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        asc_diag(d, ASC_DIAG_IO, (AscLoc){.file = path}, "stat", path, strerror(errno));
        fclose(f);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        asc_diag(d, ASC_DIAG_IO, (AscLoc){.file = path}, "read", path, "not a regular file");
        fclose(f);
        return false;
    }
    if ((uint64_t)st.st_size > SIZE_MAX - 1) {
        asc_diag(d, ASC_DIAG_IO, (AscLoc){.file = path}, "read", path, "file too large");
        fclose(f);
        return false;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = asc_malloc(&img->alloc, len ? len : 1);
    if (!buf) {
        asc_diag(d, ASC_DIAG_OOM, (AscLoc){.file = path});
        fclose(f);
        return false;
    }
    size_t got = fread(buf, 1, len, f);
    bool rerr = got != len || ferror(f);
    int e = errno;
    fclose(f);
    if (rerr) {
        asc_diag(d, ASC_DIAG_IO, (AscLoc){.file = path}, "read", path, got != len ? "the file changed size while being read" : strerror(e));
        asc_free(&img->alloc, buf);
        return false;
    }
    bool ok = read_impl(img, buf, len, path, d);
    asc_free(&img->alloc, buf);
    return ok;
}

uint32_t asc_image_sections(const uint8_t *buf, size_t len, AscSectionInfo *out, uint32_t cap)
{
    Rd r;
    memset(&r, 0, sizeof r);
    r.buf = buf;
    r.len = len;
    if (!buf || !check_ehdr(&r) || !read_sections(&r)) return 0;
    for (uint32_t i = 0; i < SEC_COUNT && i < cap; i++) {
        const Sec *s = &r.sh[i];
        memset(&out[i], 0, sizeof out[i]);
        snprintf(out[i].name, sizeof out[i].name, "%s", s->nm);
        out[i].type = s->type;
        out[i].offset = s->off;
        out[i].size = s->size;
        out[i].addr = s->addr;
    }
    return SEC_COUNT;
}
