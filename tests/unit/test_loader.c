/* test_loader.c -- the kernel binary: write, read, validate (loader/).
 *
 *  - hand-built images (aiv, aic, mix, rodata, several source files) survive
 *    write -> read field by field, and the same image always gives the same
 *    bytes (also after a read/write cycle);
 *  - the byte layout matches docs/binary.md at a few fixed offsets;
 *  - each corruption is rejected by its own named check: the test asserts the
 *    diagnostic ID and a distinctive part of the message;
 *  - every truncation and thousands of random byte flips are rejected or
 *    accepted without a crash (the sanitizer build checks out-of-bounds);
 *  - an allocator failing its N-th call, for every N until success: read and
 *    write fail with OOM and leak nothing;
 *  - write_file leaves no output and no temporary behind on error. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asc/image.h"
#include "asc/isa.h"
#include "check_main.h"

/* ---- a counting allocator that can fail its N-th call ------------------- */

typedef struct Counter {
    long calls;   /* allocations so far */
    long live;    /* allocations not yet freed */
    long fail_at; /* the call number (1-based) that fails; 0 = never */
} Counter;

static void *count_alloc(void *ud, size_t size)
{
    Counter *c = ud;
    if (++c->calls == c->fail_at) return NULL;
    void *p = malloc(size ? size : 1);
    if (p) c->live++;
    return p;
}

static void count_free(void *ud, void *ptr)
{
    Counter *c = ud;
    c->live--;
    free(ptr);
}

/* ---- building images by hand ------------------------------------------------ */

static uint32_t enc(AscInsn in)
{
    uint32_t w = 0;
    ck_assert_msg(asc_encode(&in, &w), "cannot encode op %u", in.op);
    return w;
}

static void *dup_mem(const AscAlloc *a, const void *p, size_t n)
{
    void *q = asc_malloc(a, n);
    ck_assert_ptr_nonnull(q);
    memcpy(q, p, n);
    return q;
}

static void set_text(AscImage *img, const uint32_t *w, uint32_t n)
{
    img->text = dup_mem(&img->alloc, w, n * sizeof *w);
    img->text_words = n;
}

static AscKernelInfo *add_kernel(AscImage *img, const char *name, AscKernelKind kind)
{
    AscKernelInfo *k = asc_realloc(&img->alloc, img->kernels, img->nkernels * sizeof *k, (img->nkernels + 1) * sizeof *k);
    ck_assert_ptr_nonnull(k);
    img->kernels = k;
    k = &img->kernels[img->nkernels++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    k->kind = (uint8_t)kind;
    return k;
}

static void add_arg(AscKernelInfo *k, const char *name, AscArgKind kind, AscDtype dt)
{
    AscArgInfo *a = &k->args[k->nargs++];
    snprintf(a->name, sizeof a->name, "%s", name);
    a->kind = (uint8_t)kind;
    a->dtype = (uint8_t)dt;
}

static void set_files(AscImage *img, const char *const *names, uint32_t n)
{
    img->files = asc_calloc(&img->alloc, n, sizeof *img->files);
    ck_assert_ptr_nonnull(img->files);
    for (uint32_t i = 0; i < n; i++) img->files[i] = asc_strdup(&img->alloc, names[i]);
    img->nfiles = n;
}

static void set_lines(AscImage *img, const AscLineEntry *l, uint32_t n)
{
    img->lines = dup_mem(&img->alloc, l, n * sizeof *l);
    img->nlines = n;
}

/* A single aiv kernel: 5 instructions, a forward branch, three arguments. */
static void build_aiv(AscImage *img)
{
    snprintf(img->target, sizeof img->target, "ascend910b");
    uint32_t w[] = {
        enc((AscInsn){.op = ASC_OP_MOVZ, .rd = 4, .imm = 0x40}),
        enc((AscInsn){.op = ASC_OP_ADDI, .rd = 5, .rs1 = 4, .imm = -3}),
        enc((AscInsn){.op = ASC_OP_BEQ, .rs1 = 4, .rs2 = 5, .off = 8}),
        enc((AscInsn){.op = ASC_OP_VADD_F16, .rd = 0, .rs1 = 1, .rs2 = 2, .rs3 = 6}),
        enc((AscInsn){.op = ASC_OP_END}),
    };
    set_text(img, w, 5);
    AscKernelInfo *k = add_kernel(img, "add", ASC_KERNEL_AIV);
    k->size[ASC_PART_AIV] = 20;
    add_arg(k, "x", ASC_ARG_GM, ASC_DT_F16);
    add_arg(k, "n", ASC_ARG_INT, ASC_DT_NONE);
    add_arg(k, "alpha", ASC_ARG_FLOAT, ASC_DT_NONE);
    k->ub_bytes = 4096;
}

static void build_aic(AscImage *img)
{
    snprintf(img->target, sizeof img->target, "ascend910b");
    uint32_t w[] = {
        enc((AscInsn){.op = ASC_OP_MMAD_F16F32, .rd = 0, .rs1 = 1, .rs2 = 2, .rs3 = 3}),
        enc((AscInsn){.op = ASC_OP_END}),
    };
    set_text(img, w, 2);
    AscKernelInfo *k = add_kernel(img, "mm.v2", ASC_KERNEL_AIC); /* dots are allowed after the first character */
    k->size[ASC_PART_AIC] = 8;
    add_arg(k, "a", ASC_ARG_GM, ASC_DT_F16);
    add_arg(k, "c", ASC_ARG_GM, ASC_DT_F32);
    k->l1_bytes = 1 << 19;
}

/* A mix kernel whose AIC program comes first in .text. */
static void build_mix(AscImage *img)
{
    snprintf(img->target, sizeof img->target, "ascend910b");
    uint32_t w[] = {
        enc((AscInsn){.op = ASC_OP_MMAD_F16F32, .rd = 0, .rs1 = 1, .rs2 = 2, .rs3 = 3}),
        enc((AscInsn){.op = ASC_OP_END}),
        enc((AscInsn){.op = ASC_OP_SET_FLAG, .psrc = ASC_PIPE_V, .pdst = ASC_PIPE_MTE3, .event = 1}),
        enc((AscInsn){.op = ASC_OP_NOP}),
        enc((AscInsn){.op = ASC_OP_END}),
    };
    set_text(img, w, 5);
    AscKernelInfo *k = add_kernel(img, "mmv", ASC_KERNEL_MIX);
    k->entry[ASC_PART_AIC] = 0;
    k->size[ASC_PART_AIC] = 8;
    k->entry[ASC_PART_AIV] = 8;
    k->size[ASC_PART_AIV] = 12;
    add_arg(k, "a", ASC_ARG_GM, ASC_DT_BF16);
}

/* Three kernels (aiv, aic, mix), .rodata, two source files, line entries. */
static void build_full(AscImage *img)
{
    snprintf(img->target, sizeof img->target, "teach");
    uint32_t w[12];
    for (int i = 0; i < 12; i++) w[i] = enc((AscInsn){.op = ASC_OP_ADDI, .rd = (uint8_t)i, .rs1 = 1, .imm = i - 6});
    w[3] = w[5] = w[7] = w[11] = enc((AscInsn){.op = ASC_OP_END});
    set_text(img, w, 12);
    AscKernelInfo *k = add_kernel(img, "vec", ASC_KERNEL_AIV);
    k->entry[ASC_PART_AIV] = 0;
    k->size[ASC_PART_AIV] = 16;
    for (int i = 0; i < ASC_MAX_ARGS; i++) {
        char n[16];
        snprintf(n, sizeof n, "arg%d", i);
        add_arg(k, n, i % 3 == 0 ? ASC_ARG_GM : i % 3 == 1 ? ASC_ARG_INT : ASC_ARG_FLOAT,
                i % 3 == 0 ? ASC_DT_S8 : ASC_DT_NONE);
    }
    k->ub_bytes = 192 * 1024;
    k = add_kernel(img, "cube", ASC_KERNEL_AIC);
    k->entry[ASC_PART_AIC] = 16;
    k->size[ASC_PART_AIC] = 8;
    k->l1_bytes = 12345 * 4;
    k = add_kernel(img, "both", ASC_KERNEL_MIX);
    k->entry[ASC_PART_AIV] = 24;
    k->size[ASC_PART_AIV] = 8;
    k->entry[ASC_PART_AIC] = 32;
    k->size[ASC_PART_AIC] = 16;
    add_arg(k, "out", ASC_ARG_GM, ASC_DT_U64);
    uint8_t ro[37];
    for (int i = 0; i < 37; i++) ro[i] = (uint8_t)(i * 7 + 1);
    img->rodata = dup_mem(&img->alloc, ro, sizeof ro);
    img->rodata_size = sizeof ro;
    static const char *const files[] = {"kernels/asm/vec.s", "python/k.py", "inc/common.inc"};
    set_files(img, files, 3);
    AscLineEntry l[] = {{0, 0, 1, 1}, {4, 0, 2, 5}, {8, 2, 7, 3}, {16, 1, 40, 0}, {20, 1, 41, 9}, {44, 0, 99, 2}};
    set_lines(img, l, 6);
}

typedef void (*BuildFn)(AscImage *);

/* ---- comparing, writing, reading ------------------------------------------- */

static void assert_same_image(const AscImage *a, const AscImage *b)
{
    ck_assert_str_eq(a->target, b->target);
    ck_assert_uint_eq(a->text_words, b->text_words);
    for (uint32_t i = 0; i < a->text_words; i++) ck_assert_uint_eq(a->text[i], b->text[i]);
    ck_assert_uint_eq(a->rodata_size, b->rodata_size);
    if (a->rodata_size) ck_assert_mem_eq(a->rodata, b->rodata, a->rodata_size);
    ck_assert_uint_eq(a->nkernels, b->nkernels);
    for (uint32_t i = 0; i < a->nkernels; i++) {
        const AscKernelInfo *x = &a->kernels[i], *y = &b->kernels[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_uint_eq(x->kind, y->kind);
        for (int p = 0; p < ASC_PART_COUNT; p++) {
            ck_assert_uint_eq(x->entry[p], y->entry[p]);
            ck_assert_uint_eq(x->size[p], y->size[p]);
        }
        ck_assert_uint_eq(x->nargs, y->nargs);
        for (uint32_t j = 0; j < x->nargs; j++) {
            ck_assert_str_eq(x->args[j].name, y->args[j].name);
            ck_assert_uint_eq(x->args[j].kind, y->args[j].kind);
            ck_assert_uint_eq(x->args[j].dtype, y->args[j].dtype);
        }
        ck_assert_uint_eq(x->ub_bytes, y->ub_bytes);
        ck_assert_uint_eq(x->l1_bytes, y->l1_bytes);
    }
    ck_assert_uint_eq(a->nfiles, b->nfiles);
    for (uint32_t i = 0; i < a->nfiles; i++) ck_assert_str_eq(a->files[i], b->files[i]);
    ck_assert_uint_eq(a->nlines, b->nlines);
    for (uint32_t i = 0; i < a->nlines; i++) {
        ck_assert_uint_eq(a->lines[i].pc, b->lines[i].pc);
        ck_assert_uint_eq(a->lines[i].file, b->lines[i].file);
        ck_assert_uint_eq(a->lines[i].line, b->lines[i].line);
        ck_assert_uint_eq(a->lines[i].col, b->lines[i].col);
    }
}

static void dump_diags(const AscDiags *d)
{
    for (uint32_t i = 0; i < d->count; i++) fprintf(stderr, "  %s: %s\n", asc_diag_id_name(d->items[i].id), d->items[i].msg);
}

/* Build with `fn` and serialise; the caller frees *buf with free(). */
static uint8_t *written(BuildFn fn, size_t *len)
{
    AscImage img;
    asc_image_init(&img, NULL);
    fn(&img);
    AscDiags d;
    asc_diags_init(&d, NULL);
    uint8_t *buf = NULL;
    bool ok = asc_image_write(&img, &buf, len, &d);
    if (!ok) dump_diags(&d);
    ck_assert(ok);
    ck_assert_uint_eq(d.count, 0);
    asc_diags_free(&d);
    asc_image_free(&img);
    return buf;
}

static void roundtrip(BuildFn fn)
{
    AscImage a, b;
    asc_image_init(&a, NULL);
    asc_image_init(&b, NULL);
    fn(&a);
    AscDiags d;
    asc_diags_init(&d, NULL);
    uint8_t *buf;
    size_t len;
    ck_assert(asc_image_write(&a, &buf, &len, &d));
    bool ok = asc_image_read(&b, buf, len, &d);
    if (!ok) dump_diags(&d);
    ck_assert(ok);
    ck_assert_uint_eq(d.count, 0);
    assert_same_image(&a, &b);
    /* reading again into a non-empty image replaces it */
    ck_assert(asc_image_read(&b, buf, len, &d));
    assert_same_image(&a, &b);
    asc_free(&a.alloc, buf);
    asc_image_free(&a);
    asc_image_free(&b);
    asc_diags_free(&d);
}

START_TEST(roundtrip_aiv) { roundtrip(build_aiv); }
END_TEST
START_TEST(roundtrip_aic) { roundtrip(build_aic); }
END_TEST
START_TEST(roundtrip_mix) { roundtrip(build_mix); }
END_TEST
START_TEST(roundtrip_full) { roundtrip(build_full); }
END_TEST

START_TEST(deterministic_bytes)
{
    BuildFn fns[] = {build_aiv, build_aic, build_mix, build_full};
    for (int i = 0; i < 4; i++) {
        size_t l1, l2, l3;
        uint8_t *a = written(fns[i], &l1), *b = written(fns[i], &l2);
        ck_assert_uint_eq(l1, l2);
        ck_assert_mem_eq(a, b, l1);
        /* read -> write gives the same bytes again */
        AscImage img;
        asc_image_init(&img, NULL);
        AscDiags d;
        asc_diags_init(&d, NULL);
        ck_assert(asc_image_read(&img, a, l1, &d));
        uint8_t *c;
        ck_assert(asc_image_write(&img, &c, &l3, &d));
        ck_assert_uint_eq(l1, l3);
        ck_assert_mem_eq(a, c, l1);
        asc_free(&img.alloc, c);
        asc_image_free(&img);
        asc_diags_free(&d);
        free(a);
        free(b);
    }
}
END_TEST

/* ---- layout, against docs/binary.md ---------------------------------------- */

static uint16_t g16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t g32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t g64(const uint8_t *p) { return g32(p) | (uint64_t)g32(p + 4) << 32; }
static void p32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i);
}
static void p64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i);
}

/* Offset of section header `i` in a valid file. */
static uint8_t *shdr(uint8_t *buf, unsigned i) { return buf + g64(buf + 0x28) + 64u * i; }

/* The section named `name`: its index, and its data via *off and *size. */
static unsigned find_sec(uint8_t *buf, const char *name, uint64_t *off, uint64_t *size)
{
    unsigned n = g16(buf + 0x3c), si = g16(buf + 0x3e);
    const char *shstr = (const char *)buf + g64(shdr(buf, si) + 0x18);
    for (unsigned i = 1; i < n; i++)
        if (strcmp(shstr + g32(shdr(buf, i)), name) == 0) {
            if (off) *off = g64(shdr(buf, i) + 0x18);
            if (size) *size = g64(shdr(buf, i) + 0x20);
            return i;
        }
    ck_abort_msg("no section %s", name);
    return 0;
}

enum { KHDR = 40, KREC = 1248, AREC = 72, KARGS = 96, LHDR = 16, LREC = 16 };

START_TEST(layout_matches_docs)
{
    size_t len;
    uint8_t *b = written(build_mix, &len);
    static const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    ck_assert_mem_eq(b, ident, 16);
    ck_assert_uint_eq(g16(b + 0x10), 2);      /* ET_EXEC */
    ck_assert_uint_eq(g16(b + 0x12), 0x4153); /* ASC_ELF_MACHINE */
    ck_assert_uint_eq(g32(b + 0x30), ASC_BINARY_VERSION);
    ck_assert_uint_eq(g64(b + 0x18), 0); /* e_entry: the AIC program at 0 comes first */
    ck_assert_uint_eq(g16(b + 0x3c), 8);
    ck_assert_uint_eq(g16(b + 0x3e), 7);
    const char *names[8] = {NULL, ".text", ".rodata", ".asc.kernels", ".asc.lines", ".symtab", ".strtab", ".shstrtab"};
    for (unsigned i = 1; i < 8; i++) ck_assert_uint_eq(find_sec(b, names[i], NULL, NULL), i);
    uint64_t off, size;
    find_sec(b, ".text", &off, &size);
    ck_assert_uint_eq(off, 64);
    ck_assert_uint_eq(size, 20);
    ck_assert_uint_eq(g32(b + off + 16), enc((AscInsn){.op = ASC_OP_END}));
    find_sec(b, ".rodata", &off, &size); /* empty, but the header is kept */
    ck_assert_uint_eq(size, 0);
    ck_assert_uint_eq(g64(shdr(b, 2) + 0x10), ASC_GM_RODATA_BASE);
    find_sec(b, ".asc.kernels", &off, &size);
    ck_assert_uint_eq(size, KHDR + KREC);
    ck_assert_str_eq((const char *)b + off, "ascend910b");
    ck_assert_uint_eq(g32(b + off + 32), 1);
    const uint8_t *k = b + off + KHDR;
    ck_assert_str_eq((const char *)k, "mmv");
    ck_assert_uint_eq(g32(k + 64), ASC_KERNEL_MIX);
    ck_assert_uint_eq(g32(k + 68), 1);
    ck_assert_uint_eq(g32(k + 72), 8);  /* aiv entry */
    ck_assert_uint_eq(g32(k + 76), 12); /* aiv size */
    ck_assert_uint_eq(g32(k + 80), 0);  /* aic entry */
    ck_assert_uint_eq(g32(k + 84), 8);  /* aic size */
    ck_assert_str_eq((const char *)k + KARGS, "a");
    ck_assert_uint_eq(k[KARGS + 64], ASC_ARG_GM);
    ck_assert_uint_eq(k[KARGS + 65], ASC_DT_BF16);
    find_sec(b, ".symtab", &off, &size);
    ck_assert_uint_eq(size, 3 * 24);
    uint64_t stro;
    find_sec(b, ".strtab", &stro, NULL);
    ck_assert_str_eq((const char *)b + stro + g32(b + off + 24), "mmv_mix_aic");
    ck_assert_str_eq((const char *)b + stro + g32(b + off + 48), "mmv_mix_aiv");
    ck_assert_uint_eq(b[off + 24 + 4], 0x12);
    ck_assert_uint_eq(g64(b + off + 48 + 8), 8);
    ck_assert_uint_eq(g64(b + off + 48 + 16), 12);
    AscSectionInfo s[8];
    ck_assert_uint_eq(asc_image_sections(b, len, s, 8), 8);
    ck_assert_str_eq(s[4].name, ".asc.lines");
    ck_assert_uint_eq(s[1].offset, 64);
    ck_assert_uint_eq(asc_image_sections(b, 10, s, 8), 0);
    free(b);
}
END_TEST

/* ---- rejection: each corruption names its check ------------------------------ */

static void expect_reject(const uint8_t *buf, size_t len, AscDiagId id, const char *substr)
{
    AscImage img;
    asc_image_init(&img, NULL);
    AscDiags d;
    asc_diags_init(&d, NULL);
    bool ok = asc_image_read(&img, buf, len, &d);
    ck_assert_msg(!ok, "accepted a binary that should fail with '%s'", substr);
    ck_assert_uint_ge(d.count, 1);
    bool found = false;
    for (uint32_t i = 0; i < d.count; i++)
        if (d.items[i].id == id && strstr(d.items[i].msg, substr)) found = true;
    if (!found) dump_diags(&d);
    ck_assert_msg(found, "no %s diagnostic containing '%s' (got %s: %s)", asc_diag_id_name(id), substr,
                  asc_diag_id_name(d.items[0].id), d.items[0].msg);
    /* failure leaves the image empty */
    ck_assert_ptr_null(img.text);
    ck_assert_ptr_null(img.kernels);
    ck_assert_uint_eq(img.nkernels + img.text_words + img.nlines + img.nfiles + img.rodata_size, 0);
    asc_image_free(&img);
    asc_diags_free(&d);
}

/* A corruption: patch a fresh copy of the full image, expect the message. */
typedef void (*PatchFn)(uint8_t *buf, size_t *len);

static void corrupt(BuildFn build, PatchFn patch, AscDiagId id, const char *substr)
{
    size_t len;
    uint8_t *b = written(build, &len);
    patch(b, &len);
    expect_reject(b, len, id, substr);
    free(b);
}

static uint8_t *kernel_rec(uint8_t *b, unsigned i)
{
    uint64_t off;
    find_sec(b, ".asc.kernels", &off, NULL);
    return b + off + KHDR + (size_t)i * KREC;
}

static uint8_t *line_rec(uint8_t *b, unsigned i)
{
    uint64_t off;
    find_sec(b, ".asc.lines", &off, NULL);
    return b + off + LHDR + (size_t)i * LREC;
}

static void p_magic(uint8_t *b, size_t *n) { (void)n; b[3] = 'G'; }
static void p_class(uint8_t *b, size_t *n) { (void)n; b[4] = 1; }
static void p_endian(uint8_t *b, size_t *n) { (void)n; b[5] = 2; }
static void p_newer(uint8_t *b, size_t *n) { (void)n; p32(b + 0x30, ASC_BINARY_VERSION + 1); }
static void p_older(uint8_t *b, size_t *n) { (void)n; p32(b + 0x30, ASC_BINARY_VERSION - 1); }
static void p_machine(uint8_t *b, size_t *n) { (void)n; b[0x12] = 0x3e; b[0x13] = 0; }
static void p_type(uint8_t *b, size_t *n) { (void)n; b[0x10] = 1; }
static void p_shoff(uint8_t *b, size_t *n) { p64(b + 0x28, (uint64_t)*n + 64); }
static void p_shoff_huge(uint8_t *b, size_t *n) { (void)n; p64(b + 0x28, UINT64_MAX - 7); }
static void p_shnum(uint8_t *b, size_t *n) { (void)n; b[0x3c] = 9; }
static void p_sec_off(uint8_t *b, size_t *n) { p64(shdr(b, 2) + 0x18, ((uint64_t)*n + 16) & ~15ull); }
static void p_sec_size(uint8_t *b, size_t *n) { (void)n; p64(shdr(b, 2) + 0x20, UINT64_MAX - 8); }
static void p_sec_name(uint8_t *b, size_t *n) { (void)n; p32(shdr(b, 3), 2); /* .shstrtab starts "\0.text": offset 2 is "text" */ }
static void p_sec_type(uint8_t *b, size_t *n) { (void)n; p32(shdr(b, 3) + 4, 8); }
static void p_text_size(uint8_t *b, size_t *n) { (void)n; p64(shdr(b, 1) + 0x20, 6); }
static void p_opcode(uint8_t *b, size_t *n) { (void)n; p32(b + 64 + 8, 0xff000000u); }
static void p_reserved(uint8_t *b, size_t *n) { (void)n; p32(b + 64 + 12, enc((AscInsn){.op = ASC_OP_END}) | 1); }
static void p_trunc(uint8_t *b, size_t *n) { (void)b; *n -= 1; }
static void p_entry_out(uint8_t *b, size_t *n) { (void)n; p32(kernel_rec(b, 2) + 84, 0x20); }
static void p_entry_align(uint8_t *b, size_t *n) { (void)n; p32(kernel_rec(b, 1) + 80, 18); }
static void p_overlap(uint8_t *b, size_t *n) { (void)n; p32(kernel_rec(b, 1) + 80, 12); }
static void p_kind_programs(uint8_t *b, size_t *n) { (void)n; p32(kernel_rec(b, 0) + 64, ASC_KERNEL_AIC); }
static void p_kind(uint8_t *b, size_t *n) { (void)n; p32(kernel_rec(b, 0) + 64, 9); }
static void p_arg_kind(uint8_t *b, size_t *n) { (void)n; kernel_rec(b, 0)[KARGS + AREC + 64] = 7; }
static void p_arg_gm_none(uint8_t *b, size_t *n) { (void)n; kernel_rec(b, 0)[KARGS + 65] = ASC_DT_NONE; }
static void p_arg_int_dtype(uint8_t *b, size_t *n) { (void)n; kernel_rec(b, 0)[KARGS + AREC + 65] = ASC_DT_F16; }
static void p_arg_dtype_range(uint8_t *b, size_t *n) { (void)n; kernel_rec(b, 0)[KARGS + 65] = 200; }
static void p_arg_slot(uint8_t *b, size_t *n) { (void)n; kernel_rec(b, 2)[KARGS + 3 * AREC + 10] = 'q'; }
static void p_nargs(uint8_t *b, size_t *n) { (void)n; p32(kernel_rec(b, 1) + 68, 17); }
static void p_name_unterminated(uint8_t *b, size_t *n) { (void)n; memset(kernel_rec(b, 1), 'k', 64); }
static void p_name_padding(uint8_t *b, size_t *n) { (void)n; kernel_rec(b, 1)[40] = 'z'; }
static void p_name_empty(uint8_t *b, size_t *n) { (void)n; memset(kernel_rec(b, 1), 0, 64); }
static void p_name_ident(uint8_t *b, size_t *n) { (void)n; kernel_rec(b, 1)[1] = '-'; }
static void p_dup_name(uint8_t *b, size_t *n) { (void)n; memcpy(kernel_rec(b, 1), "vec", 4); }
static void p_nkernels(uint8_t *b, size_t *n)
{
    (void)n;
    uint64_t off;
    find_sec(b, ".asc.kernels", &off, NULL);
    p32(b + off + 32, 0x40000000u);
}
static void p_target(uint8_t *b, size_t *n)
{
    (void)n;
    uint64_t off;
    find_sec(b, ".asc.kernels", &off, NULL);
    memset(b + off, 'T', 32);
}
static void p_lines_unsorted(uint8_t *b, size_t *n) { (void)n; p32(line_rec(b, 2), 4); }
static void p_lines_file(uint8_t *b, size_t *n) { (void)n; p32(line_rec(b, 1) + 4, 5); }
static void p_lines_pc(uint8_t *b, size_t *n) { (void)n; p32(line_rec(b, 5), 48); }
static void p_lines_count(uint8_t *b, size_t *n)
{
    (void)n;
    uint64_t off;
    find_sec(b, ".asc.lines", &off, NULL);
    p32(b + off + 4, 0xffffffffu);
}
static void p_file_name(uint8_t *b, size_t *n)
{
    (void)n;
    uint64_t off, size;
    find_sec(b, ".asc.lines", &off, &size);
    b[off + size - 1] = 'x'; /* last name loses its NUL */
}
static void p_sym_value(uint8_t *b, size_t *n)
{
    (void)n;
    uint64_t off;
    find_sec(b, ".symtab", &off, NULL);
    p64(b + off + 2 * 24 + 8, 4);
}
static void p_sym_name(uint8_t *b, size_t *n)
{
    (void)n;
    uint64_t off;
    find_sec(b, ".strtab", &off, NULL);
    b[off + 2] = 'V';
}
static void p_e_entry(uint8_t *b, size_t *n) { (void)n; p64(b + 0x18, 4); }
static void p_phnum(uint8_t *b, size_t *n) { (void)n; b[0x38] = 1; }
static void p_sec_overlap(uint8_t *b, size_t *n) { (void)n; p64(shdr(b, 2) + 0x18, 64); }

START_TEST(rejects_header_corruption)
{
    corrupt(build_full, p_magic, ASC_DIAG_BAD_BINARY, "not an ELF file (magic 7f 45 4c 47");
    corrupt(build_full, p_class, ASC_DIAG_BAD_BINARY, "not a 64-bit ELF file (EI_CLASS 1");
    corrupt(build_full, p_endian, ASC_DIAG_BAD_BINARY, "not a little-endian ELF file (EI_DATA 2");
    corrupt(build_full, p_newer, ASC_DIAG_BAD_BINARY, "upgrade asc");
    corrupt(build_full, p_older, ASC_DIAG_BAD_BINARY, "re-assemble the kernel");
    corrupt(build_full, p_machine, ASC_DIAG_BAD_BINARY, "e_machine 0x3e is not the asc machine");
    corrupt(build_full, p_type, ASC_DIAG_BAD_BINARY, "e_type 1 is not ET_EXEC");
    corrupt(build_full, p_phnum, ASC_DIAG_BAD_BINARY, "program headers");
    corrupt(build_full, p_shoff, ASC_DIAG_BAD_BINARY, "section header table at offset");
    corrupt(build_full, p_shoff_huge, ASC_DIAG_BAD_BINARY, "extends past the end of the file");
    corrupt(build_full, p_shnum, ASC_DIAG_BAD_BINARY, "e_shnum 9");
    corrupt(build_full, p_e_entry, ASC_DIAG_BAD_BINARY, "e_entry 0x4 is not 0x0");
}
END_TEST

START_TEST(rejects_section_corruption)
{
    corrupt(build_full, p_sec_off, ASC_DIAG_BAD_BINARY, "section 2 (.rodata) at offset");
    corrupt(build_full, p_sec_off, ASC_DIAG_BAD_BINARY, "extends past the end of the file");
    corrupt(build_full, p_sec_size, ASC_DIAG_BAD_BINARY, "section 2 (.rodata) at offset");
    corrupt(build_full, p_sec_name, ASC_DIAG_BAD_BINARY, "section 3 has unknown name 'text'");
    corrupt(build_full, p_sec_type, ASC_DIAG_BAD_BINARY, "section 3 (.asc.kernels) has sh_type 8, expected 1");
    corrupt(build_full, p_sec_overlap, ASC_DIAG_BAD_BINARY, "overlaps section 1 (.text)");
    corrupt(build_full, p_text_size, ASC_DIAG_BAD_BINARY, ".text size 6 is not a multiple of 4");
    corrupt(build_full, p_trunc, ASC_DIAG_BAD_BINARY, "extends past the end of the file");
}
END_TEST

START_TEST(rejects_bad_words)
{
    corrupt(build_full, p_opcode, ASC_DIAG_BAD_INSN_WORD, "word 0xff000000 at .text+0x8 is not an instruction: unknown opcode");
    corrupt(build_full, p_reserved, ASC_DIAG_BAD_INSN_WORD, "at .text+0xc is not an instruction: reserved bits are not zero");
}
END_TEST

START_TEST(rejects_kernel_table_corruption)
{
    corrupt(build_full, p_entry_out, ASC_DIAG_BAD_BINARY, "kernel 'both' AIC program [0x20, 0x40) is outside .text (0x30 bytes)");
    corrupt(build_full, p_entry_align, ASC_DIAG_BAD_BINARY, "kernel 'cube' AIC program entry 0x12 is not a multiple of 4");
    corrupt(build_full, p_overlap, ASC_DIAG_BAD_BINARY, "kernel 'vec' AIV program [0x0, 0x10) overlaps kernel 'cube' AIC program [0xc, 0x14)");
    corrupt(build_full, p_kind_programs, ASC_DIAG_BAD_BINARY, "aic kernel 'vec' has an AIV program (size 0x10): an aic kernel has only an AIC program");
    corrupt(build_full, p_kind, ASC_DIAG_BAD_BINARY, "kernel 'vec' has kind 9");
    corrupt(build_full, p_arg_kind, ASC_DIAG_BAD_BINARY, "kernel 'vec' argument 1 ('arg1') has kind 7");
    corrupt(build_full, p_arg_gm_none, ASC_DIAG_BAD_BINARY, "argument 0 ('arg0') is gm and needs an element dtype");
    corrupt(build_full, p_arg_int_dtype, ASC_DIAG_BAD_BINARY, "argument 1 ('arg1') is int and must have dtype none, got f16");
    corrupt(build_full, p_arg_dtype_range, ASC_DIAG_BAD_BINARY, "has dtype 200");
    corrupt(build_full, p_arg_slot, ASC_DIAG_BAD_BINARY, "kernel 'both' argument slot 3 is unused");
    corrupt(build_full, p_nargs, ASC_DIAG_BAD_BINARY, "kernel 'cube' has 17 arguments, more than 16");
    corrupt(build_full, p_name_unterminated, ASC_DIAG_BAD_BINARY, "kernel 1 name is not NUL-terminated");
    corrupt(build_full, p_name_padding, ASC_DIAG_BAD_BINARY, "kernel 1 name is not NUL-padded");
    corrupt(build_full, p_name_empty, ASC_DIAG_BAD_BINARY, "kernel 1 name is empty");
    corrupt(build_full, p_name_ident, ASC_DIAG_BAD_BINARY, "'c-be' is not an identifier");
    corrupt(build_full, p_dup_name, ASC_DIAG_BAD_BINARY, "kernels 0 and 1 are both named 'vec'");
    corrupt(build_full, p_nkernels, ASC_DIAG_BAD_BINARY, "its header counts 1073741824 kernels");
    corrupt(build_full, p_target, ASC_DIAG_BAD_BINARY, "target name in .asc.kernels is not NUL-terminated");
    corrupt(build_full, p_sym_value, ASC_DIAG_BAD_BINARY, "symbol 2 ('cube') has st_value 0x4, but the program's entry is 0x10");
    corrupt(build_full, p_sym_name, ASC_DIAG_BAD_BINARY, "symbol 1 is named 'vVc', expected 'vec'");
}
END_TEST

START_TEST(rejects_line_table_corruption)
{
    corrupt(build_full, p_lines_unsorted, ASC_DIAG_BAD_BINARY, "line entry 2 (pc 0x4) is not after line entry 1 (pc 0x4)");
    corrupt(build_full, p_lines_file, ASC_DIAG_BAD_BINARY, "line entry 1 names file 5, but there are 3 files");
    corrupt(build_full, p_lines_pc, ASC_DIAG_BAD_BINARY, "line entry 5 pc 0x30 is outside .text (0x30 bytes)");
    corrupt(build_full, p_lines_count, ASC_DIAG_BAD_BINARY, "4294967295 line entries");
    corrupt(build_full, p_file_name, ASC_DIAG_BAD_BINARY, "file name 2 is not NUL-terminated");
}
END_TEST

/* The shared validation also guards the writer: nothing invalid is written. */
START_TEST(validate_rejects_bad_images)
{
    struct {
        const char *substr;
        int what;
    } cases[] = {
        {"target name is empty", 0},
        {"kernel 'add' AIV program [0x0, 0x18) is outside .text (0x14 bytes)", 1},
        {"kernels 0 and 1 are both named 'add'", 2},
        {"kernel 'add_mix_aic' has the same symbol name as a program of mix kernel 'add'", 3},
        {"kernel 'add' arguments 0 and 1 are both named 'x'", 4},
        {"aiv kernel 'add' has an AIC program (size 0x4)", 5},
        {"aiv kernel 'add' has no AIC program but its entry is 0x4, not 0", 6},
        {"line entry 0 pc 0x2 is not a multiple of 4", 7},
        {"file name 0 is empty", 8},
        {"kernel 'add' has 17 arguments", 9},
    };
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        AscImage img;
        asc_image_init(&img, NULL);
        build_aiv(&img);
        AscKernelInfo *k = &img.kernels[0];
        switch (cases[c].what) {
        case 0: img.target[0] = 0; break;
        case 1: k->size[ASC_PART_AIV] = 24; break;
        case 2:
            k->size[ASC_PART_AIV] = 8;
            add_kernel(&img, "add", ASC_KERNEL_AIC)->entry[ASC_PART_AIC] = 8;
            img.kernels[1].size[ASC_PART_AIC] = 4;
            break;
        case 3: {
            k->size[ASC_PART_AIV] = 8;
            AscKernelInfo *m = add_kernel(&img, "add_mix_aic", ASC_KERNEL_AIC);
            m->entry[ASC_PART_AIC] = 8;
            m->size[ASC_PART_AIC] = 4;
            img.kernels[0].kind = ASC_KERNEL_MIX;
            img.kernels[0].entry[ASC_PART_AIC] = 12;
            img.kernels[0].size[ASC_PART_AIC] = 8;
            break;
        }
        case 4: memcpy(k->args[1].name, "x", 2); break;
        case 5: k->size[ASC_PART_AIC] = 4; break;
        case 6: k->entry[ASC_PART_AIC] = 4; break;
        case 7: {
            static const char *const f[] = {"a.s"};
            set_files(&img, f, 1);
            set_lines(&img, &(AscLineEntry){2, 0, 1, 1}, 1);
            break;
        }
        case 8: {
            static const char *const f[] = {""};
            set_files(&img, f, 1);
            break;
        }
        case 9: k->nargs = 17; break;
        }
        AscDiags d;
        asc_diags_init(&d, NULL);
        ck_assert(!asc_image_validate(&img, &d));
        ck_assert_uint_eq(d.count, 1);
        ck_assert_int_eq(d.items[0].id, ASC_DIAG_BAD_BINARY);
        ck_assert_msg(strstr(d.items[0].msg, cases[c].substr), "case %u: got '%s'", c, d.items[0].msg);
        uint8_t *out = (uint8_t *)&img; /* poisoned: write must set it to NULL */
        size_t len = 99;
        ck_assert(!asc_image_write(&img, &out, &len, &d));
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(len, 0);
        asc_diags_free(&d);
        asc_image_free(&img);
    }
}
END_TEST

/* ---- robustness: truncation, fuzzing -------------------------------------- */

START_TEST(every_truncation_rejected)
{
    size_t len;
    uint8_t *full = written(build_full, &len);
    for (size_t n = 0; n < len; n++) {
        /* a fresh exact-size copy, so the sanitizer sees any overread */
        uint8_t *b = malloc(n ? n : 1);
        memcpy(b, full, n);
        AscImage img;
        asc_image_init(&img, NULL);
        AscDiags d;
        asc_diags_init(&d, NULL);
        ck_assert_msg(!asc_image_read(&img, b, n, &d), "accepted a file truncated to %zu of %zu bytes", n, len);
        ck_assert_int_eq(d.items[0].id, ASC_DIAG_BAD_BINARY);
        if (n < 64) ck_assert_ptr_nonnull(strstr(d.items[0].msg, "shorter than the 64-byte ELF header"));
        asc_diags_free(&d);
        asc_image_free(&img);
        free(b);
    }
    expect_reject(NULL, 0, ASC_DIAG_BAD_BINARY, "file is 0 bytes");
    free(full);
}
END_TEST

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

START_TEST(random_byte_flips_never_crash)
{
    size_t len;
    uint8_t *full = written(build_full, &len);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned accepted = 0;
    uint64_t shoff = g64(full + 0x28);
    for (int iter = 0; iter < 4000; iter++) {
        uint8_t *b = malloc(len);
        memcpy(b, full, len);
        int flips = 1 + (int)(rng(&seed) % 4);
        for (int f = 0; f < flips; f++) {
            /* half the flips aim at the headers, where the checks are densest */
            uint64_t r = rng(&seed);
            size_t pos;
            switch (r % 4) {
            case 0: pos = (size_t)(rng(&seed) % 64); break;
            case 1: pos = (size_t)(shoff + rng(&seed) % (len - shoff)); break;
            default: pos = (size_t)(rng(&seed) % len); break;
            }
            b[pos] ^= (uint8_t)(1 + rng(&seed) % 255);
        }
        size_t n = (rng(&seed) % 8 == 0) ? (size_t)(rng(&seed) % len) : len;
        AscImage img;
        asc_image_init(&img, NULL);
        AscDiags d;
        asc_diags_init(&d, NULL);
        if (asc_image_read(&img, b, n, &d)) {
            /* whatever the reader accepts, the writer accepts too */
            accepted++;
            uint8_t *out;
            size_t ol;
            ck_assert(asc_image_write(&img, &out, &ol, &d));
            asc_free(&img.alloc, out);
        } else {
            ck_assert_uint_ge(d.count, 1);
            ck_assert(d.items[0].id == ASC_DIAG_BAD_BINARY || d.items[0].id == ASC_DIAG_BAD_INSN_WORD);
        }
        asc_diags_free(&d);
        asc_image_free(&img);
        free(b);
    }
    ck_assert_uint_lt(accepted, 4000); /* sanity: most mutations are caught */
    free(full);
}
END_TEST

/* ---- allocation failure ------------------------------------------------------ */

START_TEST(read_oom_every_allocation)
{
    size_t len;
    uint8_t *buf = written(build_full, &len);
    bool done = false;
    for (long n = 1; !done && n < 1000; n++) {
        Counter c = {0, 0, n};
        AscAlloc al = {count_alloc, count_free, &c};
        AscImage img;
        asc_image_init(&img, &al);
        AscDiags d;
        asc_diags_init(&d, NULL);
        if (asc_image_read(&img, buf, len, &d)) {
            ck_assert_int_lt(c.calls, n); /* succeeded only because call n never came */
            done = true;
        } else {
            ck_assert_uint_eq(d.count, 1);
            ck_assert_int_eq(d.items[0].id, ASC_DIAG_OOM);
            ck_assert_ptr_null(img.text);
        }
        asc_image_free(&img);
        ck_assert_int_eq(c.live, 0);
        asc_diags_free(&d);
    }
    ck_assert(done);
    free(buf);
}
END_TEST

START_TEST(write_oom_every_allocation)
{
    bool done = false;
    for (long n = 1; !done && n < 1000; n++) {
        Counter c = {0, 0, 0};
        AscAlloc al = {count_alloc, count_free, &c};
        AscImage img;
        asc_image_init(&img, &al);
        build_full(&img);
        c.fail_at = c.calls + n;
        AscDiags d;
        asc_diags_init(&d, NULL);
        uint8_t *out;
        size_t len;
        if (asc_image_write(&img, &out, &len, &d)) {
            asc_free(&img.alloc, out);
            done = true;
        } else {
            ck_assert_uint_eq(d.count, 1);
            ck_assert_int_eq(d.items[0].id, ASC_DIAG_OOM);
            ck_assert_ptr_null(out);
        }
        asc_image_free(&img);
        ck_assert_int_eq(c.live, 0);
        asc_diags_free(&d);
    }
    ck_assert(done);
}
END_TEST

/* ---- files ------------------------------------------------------------------- */

static bool exists(const char *p) { return access(p, F_OK) == 0; }

START_TEST(file_roundtrip_and_errors)
{
    char dir[] = "/tmp/asc_test_loader_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128], tmp[140];
    snprintf(path, sizeof path, "%s/k.bin", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    AscImage a, b;
    asc_image_init(&a, NULL);
    asc_image_init(&b, NULL);
    build_full(&a);
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_image_write_file(&a, path, &d));
    ck_assert(!exists(tmp));
    ck_assert(asc_image_read_file(&b, path, &d));
    assert_same_image(&a, &b);
    ck_assert_uint_eq(d.count, 0);

    /* an invalid image: error, the old output is untouched, no temporary */
    a.kernels[0].size[ASC_PART_AIV] = 6;
    ck_assert(!asc_image_write_file(&a, path, &d));
    ck_assert(!exists(tmp));
    ck_assert(asc_image_read_file(&b, path, &d));
    a.kernels[0].size[ASC_PART_AIV] = 16;

    /* an unwritable place: IO error naming the path, nothing left behind */
    char bad[160];
    snprintf(bad, sizeof bad, "%s/no/such/dir/k.bin", dir);
    asc_diags_free(&d);
    ck_assert(!asc_image_write_file(&a, bad, &d));
    ck_assert_int_eq(d.items[0].id, ASC_DIAG_IO);
    ck_assert_ptr_nonnull(strstr(d.items[0].msg, "no/such/dir/k.bin"));

    /* reading: a missing file, a directory, a corrupt file (diagnostics carry the path) */
    asc_diags_free(&d);
    ck_assert(!asc_image_read_file(&b, bad, &d));
    ck_assert_int_eq(d.items[0].id, ASC_DIAG_IO);
    ck_assert_str_eq(d.items[0].loc.file, bad);
    ck_assert_ptr_null(b.text);
    asc_diags_free(&d);
    ck_assert(!asc_image_read_file(&b, dir, &d));
    ck_assert_int_eq(d.items[0].id, ASC_DIAG_IO);
    asc_diags_free(&d);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fputc(0, f);
    fclose(f);
    ck_assert(!asc_image_read_file(&b, path, &d));
    ck_assert_int_eq(d.items[0].id, ASC_DIAG_BAD_BINARY);
    ck_assert_str_eq(d.items[0].loc.file, path);

    /* allocation failure in the file functions leaks nothing */
    ck_assert(asc_image_write_file(&a, path, &d));
    for (long n = 1; n < 100; n++) {
        Counter c = {0, 0, 0};
        AscAlloc al = {count_alloc, count_free, &c};
        AscImage img;
        asc_image_init(&img, &al);
        build_full(&img);
        c.fail_at = c.calls + n;
        AscDiags d2;
        asc_diags_init(&d2, NULL);
        bool ok = asc_image_write_file(&img, path, &d2);
        ck_assert(ok || d2.items[0].id == ASC_DIAG_OOM);
        ck_assert(!exists(tmp));
        c.fail_at = c.calls + n;
        bool ok2 = asc_image_read_file(&img, path, &d2);
        ck_assert(ok2 || d2.items[d2.count - 1].id == ASC_DIAG_OOM);
        asc_image_free(&img);
        ck_assert_int_eq(c.live, 0);
        asc_diags_free(&d2);
        if (ok && ok2) break;
    }

    remove(path);
    rmdir(dir);
    asc_diags_free(&d);
    asc_image_free(&a);
    asc_image_free(&b);
}
END_TEST

/* ---- text forms: asc_image_disasm / asc_image_describe --------------------- */

typedef struct TextBuf {
    char s[16384];
    size_t n;
} TextBuf;

static void text_out(void *ud, const char *text, size_t len)
{
    TextBuf *b = ud;
    ck_assert_uint_lt(b->n + len, sizeof b->s);
    memcpy(b->s + b->n, text, len);
    b->n += len;
    b->s[b->n] = '\0';
}

/* Every line of every file, indented and with a CR, as a CRLF file would be. */
static const char *fake_line(void *ud, const char *file, uint32_t line, uint32_t *len)
{
    static char buf[128];
    (void)ud;
    snprintf(buf, sizeof buf, "\t  src %s %u\r", file, line);
    *len = (uint32_t)strlen(buf);
    return strcmp(file, "inc/common.inc") == 0 ? NULL : buf; /* one unreadable file */
}

START_TEST(disasm_text)
{
    AscImage img;
    asc_image_init(&img, NULL);
    build_full(&img);
    static TextBuf b;
    b.n = 0;
    AscDisasmDesc desc = {.out = text_out, .out_ud = &b, .lines = true, .source_line = fake_line};
    ck_assert(asc_image_disasm(&img, &desc, NULL));
    static const char *const want[] = {
        "\n.target teach\n",
        "\n.kernel vec, aiv\n.arg arg0, gm, s8\n.arg arg1, int\n.arg arg2, float\n",
        ".uses ub, 196608\n; kernels/asm/vec.s:1:1 | src kernels/asm/vec.s 1\n    addi x0, x1, -6 ",
        "; 0000: ",
        "; inc/common.inc:7:3\n    addi x2,",     /* no text: position only */
        "; python/k.py:40 | src python/k.py 40\n", /* column 0: no column */
        "\n.kernel cube, aic\n.uses l1, 49380\n",
        "\n.kernel both, mix\n.arg out, gm, u64\n.aiv\n",
        "\n.aic\n",
        "\n.rodata\n    .byte 0x01, 0x08, ",
        " ; 0x10010\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(b.s, want[i]), "disassembly lacks \"%s\":\n%s", want[i], b.s);
    ck_assert_ptr_null(strstr(b.s, "outside every kernel program"));
    /* without -l: no source comments at all */
    b.n = 0;
    desc.lines = false;
    ck_assert(asc_image_disasm(&img, &desc, NULL));
    ck_assert_ptr_null(strstr(b.s, "; kernels/"));

    b.n = 0;
    AscSectionInfo sec[2] = {{"", 0, 0, 0, 0}, {".text", 1, 0x40, 0x30, 0}};
    asc_image_describe(&img, "k.bin", sec, 2, &desc);
    static const char *const head[] = {
        "k.bin: asc kernel binary, format version 1, target teach\n",
        "  1 .text         PROGBITS  0x00000040  0x00000030  0x0000000000000000\n",
        ("  2 both (mix)\n      AIC program: entry 0x0020, size 0x10 (4 instructions)\n"
         "      AIV program: entry 0x0018, size 0x8 (2 instructions)\n      arg x0  out              gm u64\n"),
        "      uses l1 49380 bytes\n",
    };
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        ck_assert_msg(strstr(b.s, head[i]), "header listing lacks \"%s\":\n%s", head[i], b.s);
    b.n = 0;
    asc_image_describe(&img, "k.bin", NULL, 0, &desc);
    ck_assert_ptr_null(strstr(b.s, "Sections:"));

    /* no memory for the scratch table: OOM, nothing printed */
    Counter c = {0, 0, 1};
    AscImage tmp = img;
    tmp.alloc = (AscAlloc){count_alloc, count_free, &c};
    AscDiags d;
    asc_diags_init(&d, NULL);
    b.n = 0;
    ck_assert(!asc_image_disasm(&tmp, &desc, &d));
    ck_assert_uint_eq(b.n, 0);
    ck_assert_int_eq(d.items[0].id, ASC_DIAG_OOM);
    asc_diags_free(&d);
    asc_image_free(&img);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("binary");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, roundtrip_aiv);
    tcase_add_test(tc, roundtrip_aic);
    tcase_add_test(tc, roundtrip_mix);
    tcase_add_test(tc, roundtrip_full);
    tcase_add_test(tc, deterministic_bytes);
    tcase_add_test(tc, layout_matches_docs);
    tcase_add_test(tc, rejects_header_corruption);
    tcase_add_test(tc, rejects_section_corruption);
    tcase_add_test(tc, rejects_bad_words);
    tcase_add_test(tc, rejects_kernel_table_corruption);
    tcase_add_test(tc, rejects_line_table_corruption);
    tcase_add_test(tc, validate_rejects_bad_images);
    tcase_add_test(tc, every_truncation_rejected);
    tcase_add_test(tc, random_byte_flips_never_crash);
    tcase_add_test(tc, read_oom_every_allocation);
    tcase_add_test(tc, write_oom_every_allocation);
    tcase_add_test(tc, file_roundtrip_and_errors);
    tcase_add_test(tc, disasm_text);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
