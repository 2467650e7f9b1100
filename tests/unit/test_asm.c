/* test_asm.c -- tests of the assembler (asm/).
 *
 *  (a) every instruction of the table, with edge operand values per field:
 *      encode -> decode -> print -> assemble gives the same word;
 *  (b) every tests/asm/ok_*.s and err_*.s, read through an in-memory file
 *      server: ok files carry the expected words of each line as
 *      `; = 0x70084186 ...`, err files carry `; error: ID` / `; warning: ID`
 *      on the line the diagnostic must point at; nothing unexpected may be
 *      reported;
 *  (c) specific behaviour: all errors in one run, the error cap, -Werror,
 *      li of edge constants, named-field packing, .loc, include cycles,
 *      allocation-failure injection (no crash, OOM reported, nothing leaked).
 * Users: CTest (asm/CMakeLists.txt). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/asm.h"
#include "asc/config.h"
#include "asc/image.h"
#include "asc/isa.h"
#include "asc/target.h"

#define ASM_DIR ASC_SOURCE_DIR "/tests/asm"

/* ---- helpers ---------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0 || n > (1L << 26)) { /* a directory, or not a test file */
        fclose(f);
        return NULL;
    }
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = '\0';
    if (len) *len = (size_t)n;
    return b;
}

/* An in-memory file server: name -> text. */
typedef struct MemFile {
    const char *path;
    const char *text;
    size_t len;
} MemFile;

typedef struct MemFs {
    MemFile files[64];
    int n;
} MemFs;

static char *mem_read(void *ud, const AscAlloc *alloc, const char *path, size_t *len, const char **err)
{
    MemFs *fs = ud;
    for (int i = 0; i < fs->n; i++)
        if (strcmp(fs->files[i].path, path) == 0) {
            char *b = asc_malloc(alloc, fs->files[i].len + 1);
            if (!b) {
                *err = "out of memory";
                return NULL;
            }
            memcpy(b, fs->files[i].text, fs->files[i].len);
            *len = fs->files[i].len;
            return b;
        }
    *err = "No such file or directory";
    return NULL;
}

static void memfs_add(MemFs *fs, const char *path, const char *text)
{
    ck_assert_int_lt(fs->n, 64);
    fs->files[fs->n++] = (MemFile){path, text, strlen(text)};
}

/* Assemble `src` (named "t.s") with a fresh assembler; returns the result
 * and leaves the diagnostics in *as_out when not NULL. */
static bool assemble(const char *src, const AscAsmDesc *desc, AscImage *img, AscAsm **as_out)
{
    AscAsm *as = asc_asm_new(desc);
    ck_assert_ptr_nonnull(as);
    asc_image_init(img, NULL);
    bool ok = asc_asm_string(as, "t.s", src, strlen(src), img);
    if (as_out) *as_out = as;
    else asc_asm_free(as);
    return ok;
}

static void dump_diags(AscAsm *as)
{
    asc_diags_print(asc_asm_diags(as), stderr, asc_asm_source_line, as);
}

static bool has_diag(AscAsm *as, AscDiagId id, uint32_t line)
{
    const AscDiags *d = asc_asm_diags(as);
    for (uint32_t i = 0; i < d->count; i++)
        if (d->items[i].id == id && d->items[i].loc.line == line) return true;
    return false;
}

/* Run the value a li/named-field sequence leaves in `rd`: the words must be
 * movz/movn followed by movk to the same register. */
static uint64_t run_movw(const uint32_t *w, uint32_t n, unsigned rd)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++) {
        AscInsn in;
        ck_assert(asc_decode(w[i], &in, NULL));
        ck_assert_uint_eq(in.rd, rd);
        uint64_t chunk = (uint64_t)(uint16_t)in.imm << in.hw;
        if (in.op == ASC_OP_MOVZ || in.op == ASC_OP_MOVN) {
            ck_assert_uint_eq(i, 0);
            v = in.op == ASC_OP_MOVZ ? chunk : ~chunk;
        } else {
            ck_assert_int_eq(in.op, ASC_OP_MOVK);
            v = (v & ~(0xffffull << in.hw)) | chunk;
        }
    }
    return v;
}

/* ---- (a) every instruction round-trips through print and parse --------------- */

static const int64_t *field_values(AscFieldKind k, const AscField *fd, int *n)
{
    static int64_t buf[32];
    int64_t lo, hi, step;
    asc_field_range(fd, &lo, &hi, &step);
    int c = 0;
    switch (k) {
    case ASC_FK_RD: case ASC_FK_RS1: case ASC_FK_RS2: case ASC_FK_RS3:
        buf[c++] = 0, buf[c++] = 1, buf[c++] = 17, buf[c++] = 30, buf[c++] = 31;
        break;
    case ASC_FK_IMM:
    case ASC_FK_OFF:
        buf[c++] = lo, buf[c++] = lo + step, buf[c++] = -step, buf[c++] = 0, buf[c++] = step, buf[c++] = hi;
        break;
    case ASC_FK_UIMM: buf[c++] = 0, buf[c++] = 1, buf[c++] = 0x8000, buf[c++] = 0xffff; break;
    case ASC_FK_HW: buf[c++] = 0, buf[c++] = 16, buf[c++] = 32, buf[c++] = 48; break;
    case ASC_FK_SPR: /* the assigned numbers (there are gaps) */
        for (int i = 0; i < ASC_SPR_COUNT && c < 32; i++)
            if (asc_spr_name((unsigned)i)) buf[c++] = i;
        break;
    case ASC_FK_PSRC: case ASC_FK_PDST: case ASC_FK_PIPE: for (int i = 0; i < ASC_PIPE_COUNT; i++) buf[c++] = i; break;
    case ASC_FK_EVENT: for (int i = 0; i < 8; i++) buf[c++] = i; break;
    case ASC_FK_COND: for (int i = 0; i < ASC_COND_COUNT; i++) buf[c++] = i; break;
    case ASC_FK_RND: for (int i = 0; i < ASC_RND_COUNT; i++) buf[c++] = i; break;
    case ASC_FK_CVP: for (int i = 0; i < ASC_CVP_COUNT; i++) buf[c++] = i; break;
    case ASC_FK_MODE: buf[c++] = 0, buf[c++] = 1, buf[c++] = 2; break;
    case ASC_FK_XID: buf[c++] = 0, buf[c++] = 5, buf[c++] = 10; break;
    default: break;
    }
    *n = c;
    return buf;
}

/* Would the assembler's checks accept this instruction? (We only test the
 * parser here; the target's rules have their own err_ files and
 * tests/unit/test_target.c.) */
static bool target_accepts(const AscConfig *cfg, AscCoreKind core, const AscInsn *in)
{
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    if (in->op == ASC_OP_MTSPR && !asc_spr_writable(in->spr)) return false;
    return asc_target_check_insn(cfg, core, in, r) == 0;
}

START_TEST(every_instruction_print_parse_roundtrip)
{
    unsigned total = 0;
    for (int op = 1; op < ASC_OP_COUNT; op++) {
        const AscInsnInfo *ii = &asc_insn_info[op];
        const AscFmtInfo *fi = &asc_fmt_info[ii->fmt];
        const char *target = "ascend910b", *kind = "aiv";
        AscCoreKind core = ASC_CORE_AIV;
        if (!(ii->flags & K_AIV)) kind = "aic", core = ASC_CORE_AIC;
        if (!(ii->flags & K_BOTH)) target = "ascend910", kind = "aiv", core = ASC_CORE_COUPLED;
        AscConfig cfg;
        AscDiags d;
        asc_diags_init(&d, NULL);
        ck_assert(asc_config_builtin(&cfg, target, &d));
        asc_diags_free(&d);

        static char src[1 << 16];
        static uint32_t want[1024];
        uint32_t nwant = 0;
        int len = snprintf(src, sizeof src, ".target %s\n.kernel t, %s\n", target, kind);
        unsigned nf = asc_fmt_nfields((AscFmt)ii->fmt);
        /* base instruction: every field at a middle value, then vary one
         * field at a time over its edge values; sync ops over all pairs */
        for (unsigned vary = 0; vary < (nf ? nf : 1); vary++) {
            int nv = 1;
            int64_t vals[32] = {0}; /* field_values gives at most 32 */
            if (nf) {
                const int64_t *v = field_values((AscFieldKind)fi->fields[vary].kind, &fi->fields[vary], &nv);
                memcpy(vals, v, (size_t)nv * sizeof *v);
            }
            for (int vi = 0; vi < nv; vi++) {
                for (int other = 0; other < (ii->fmt == ASC_FMT_FLAG ? ASC_PIPE_COUNT : 1); other++) {
                    AscInsn in = {.op = (uint16_t)op};
                    for (unsigned f = 0; f < nf; f++) {
                        int n2;
                        const int64_t *v = field_values((AscFieldKind)fi->fields[f].kind, &fi->fields[f], &n2);
                        asc_insn_set(&in, (AscFieldKind)fi->fields[f].kind, v[n2 / 2]);
                    }
                    if (ii->fmt == ASC_FMT_FLAG) in.pdst = (uint8_t)other;
                    if (nf) asc_insn_set(&in, (AscFieldKind)fi->fields[vary].kind, vals[vi]);
                    if (!target_accepts(&cfg, core, &in)) continue;
                    if (asc_insn_has_field((unsigned)op, ASC_FK_CVP) && asc_cvp_op(in.cvp) != (unsigned)op) continue;
                    if (!asc_rnd_ok(&in)) continue;
                    uint32_t w, w2;
                    ck_assert_msg(asc_encode(&in, &w), "%s does not encode", ii->mnemonic);
                    AscInsn back;
                    ck_assert_msg(asc_decode(w, &back, NULL), "%s (0x%08x) does not decode", ii->mnemonic, w);
                    char text[128];
                    asc_insn_print(&back, text, sizeof text);
                    (void)w2;
                    ck_assert_uint_lt(nwant, 1000);
                    want[nwant++] = w;
                    len += snprintf(src + len, sizeof src - (size_t)len, "    %s\n", text);
                    ck_assert_int_lt(len, (int)sizeof src - 200);
                }
            }
        }
        len += snprintf(src + len, sizeof src - (size_t)len, "    end\n");
        AscImage img;
        AscAsm *as;
        bool ok = assemble(src, NULL, &img, &as);
        if (!ok) dump_diags(as);
        ck_assert_msg(ok, "%s: printed forms do not assemble", ii->mnemonic);
        ck_assert_uint_eq(img.text_words, nwant + 1);
        for (uint32_t i = 0; i < nwant; i++)
            ck_assert_msg(img.text[i] == want[i], "%s line %u: 0x%08x != 0x%08x", ii->mnemonic, i + 3, img.text[i], want[i]);
        total += nwant;
        asc_image_free(&img);
        asc_asm_free(as);
    }
    ck_assert_uint_gt(total, 1000);
}
END_TEST

/* ---- (b) ok_*.s and err_*.s ---------------------------------------------------- */

typedef struct Expect {
    uint32_t line;
    AscDiagId id;
    AscSev sev;
    bool seen;
} Expect;

static int find_diag_id(const char *s, size_t n)
{
    for (int i = 0; i < ASC_DIAG_COUNT; i++) {
        const char *name = asc_diag_id_name((AscDiagId)i);
        if (strlen(name) == n && memcmp(name, s, n) == 0) return i;
    }
    return -1;
}

/* Parse `; error: ID`, `; warning: ID` (several per line allowed). */
static int parse_expects(const char *path, const char *text, Expect *ex, int max)
{
    int n = 0;
    uint32_t line = 1;
    for (const char *p = text; *p; line++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 511 ? len : 511), p);
        for (const char *q = buf; (q = strstr(q, ": ")) != NULL; q += 2) {
            AscSev sev;
            if (q - buf >= 5 && !strncmp(q - 5, "error", 5)) sev = ASC_SEV_ERROR;
            else if (q - buf >= 7 && !strncmp(q - 7, "warning", 7)) sev = ASC_SEV_WARNING;
            else continue;
            const char *id = q + 2;
            size_t idl = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
            int d = find_diag_id(id, idl);
            ck_assert_msg(d >= 0, "%s:%u: unknown diagnostic id '%.*s'", path, line, (int)idl, id);
            ck_assert_int_lt(n, max);
            ex[n++] = (Expect){line, (AscDiagId)d, sev, false};
        }
        p = e ? e + 1 : p + len;
    }
    return n;
}

/* Words expected on each line: `; = 0x... 0x...`. */
typedef struct WordExp {
    uint32_t line;
    uint32_t words[8];
    int n;
} WordExp;

static int parse_words(const char *text, WordExp *we, int max)
{
    int n = 0;
    uint32_t line = 1;
    for (const char *p = text; *p; line++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 511 ? len : 511), p);
        char *q = strstr(buf, "; =");
        if (q) {
            ck_assert_int_lt(n, max);
            WordExp *w = &we[n++];
            w->line = line;
            w->n = 0;
            q += 3;
            char *end;
            for (;;) {
                while (*q == ' ') q++;
                if (q[0] != '0' || q[1] != 'x') break;
                unsigned long v = strtoul(q, &end, 16);
                ck_assert_int_lt(w->n, 8);
                w->words[w->n++] = (uint32_t)v;
                q = end;
            }
        }
        p = e ? e + 1 : p + len;
    }
    return n;
}

static MemFs g_fs; /* loaded once per process (CK_FORK: per test) */
static char *g_texts[64];

static void load_fs(void)
{
    if (g_fs.n) return;
    static const char *dirs[] = {ASM_DIR, ASM_DIR "/inc"};
    for (int d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        if (!dir) continue;
        struct dirent *de;
        char *names[64];
        int nn = 0;
        while ((de = readdir(dir)) && nn < 64)
            if (de->d_name[0] != '.') names[nn++] = strdup(de->d_name);
        closedir(dir);
        for (int i = 0; i < nn; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[d], names[i]);
            size_t len;
            char *t = slurp(path, &len);
            if (t && g_fs.n < 64) {
                g_texts[g_fs.n] = t;
                g_fs.files[g_fs.n++] = (MemFile){strdup(path), t, len};
            } else {
                free(t);
            }
            free(names[i]);
        }
    }
}

static void check_asm_file(const MemFile *mf, bool expect_ok)
{
    Expect ex[128];
    int nex = parse_expects(mf->path, mf->text, ex, 128);
    static WordExp we[1024];
    int nwe = parse_words(mf->text, we, 1024);
    AscAsmDesc desc = {.read_file = mem_read, .read_ud = &g_fs, .max_errors = 200};
    AscAsm *as = asc_asm_new(&desc);
    AscImage img;
    asc_image_init(&img, NULL);
    bool ok = asc_asm_file(as, mf->path, &img);
    const AscDiags *d = asc_asm_diags(as);
    int bad = 0;
    for (uint32_t i = 0; i < d->count; i++) {
        const AscDiag *g = &d->items[i];
        bool found = false;
        for (int e = 0; e < nex; e++)
            if (g->loc.file && !strcmp(g->loc.file, mf->path) && ex[e].line == g->loc.line && ex[e].id == g->id) {
                ex[e].seen = true;
                found = true;
            }
        if (!found && g->sev != ASC_SEV_NOTE) {
            fprintf(stderr, "%s: unexpected %s %s at line %u: %s\n", mf->path, asc_sev_name(g->sev),
                    asc_diag_id_name(g->id), g->loc.line, g->msg);
            bad++;
        }
    }
    for (int e = 0; e < nex; e++)
        if (!ex[e].seen) {
            fprintf(stderr, "%s:%u: expected %s %s was not reported\n", mf->path, ex[e].line, asc_sev_name(ex[e].sev),
                    asc_diag_id_name(ex[e].id));
            bad++;
        }
    if (bad) dump_diags(as);
    ck_assert_msg(bad == 0, "%s: %d diagnostic mismatches", mf->path, bad);
    bool want_ok = expect_ok;
    for (int e = 0; e < nex; e++)
        if (ex[e].sev == ASC_SEV_ERROR) want_ok = false;
    ck_assert_msg(ok == want_ok, "%s: assembler returned %d", mf->path, ok);
    if (!expect_ok) ck_assert_msg(nex > 0, "%s: an err_ file must expect at least one error", mf->path);
    if (ok) {
        /* the words of each annotated line, found through .asc.lines */
        for (int i = 0; i < nwe; i++) {
            uint32_t got[8], ng = 0;
            for (uint32_t l = 0; l < img.nlines; l++) {
                const AscLineEntry *e = &img.lines[l];
                if (e->line == we[i].line && !strcmp(img.files[e->file], mf->path) && ng < 8)
                    got[ng++] = img.text[e->pc / 4];
            }
            ck_assert_msg(ng == (uint32_t)we[i].n, "%s:%u: %u words emitted, %d expected", mf->path, we[i].line, ng,
                          we[i].n);
            for (uint32_t k = 0; k < ng; k++)
                ck_assert_msg(got[k] == we[i].words[k], "%s:%u: word %u is 0x%08x, expected 0x%08x", mf->path,
                              we[i].line, k, got[k], we[i].words[k]);
        }
        AscDiags vd;
        asc_diags_init(&vd, NULL);
        ck_assert_msg(asc_image_validate(&img, &vd), "%s: the image fails validation: %s", mf->path,
                      vd.count ? vd.items[0].msg : "?");
        asc_diags_free(&vd);
        ck_assert_msg(nwe > 0 || strstr(mf->path, "ok_loc") || strstr(mf->path, "ok_data"),
                      "%s: an ok_ file should carry expected words", mf->path);
    }
    asc_image_free(&img);
    asc_asm_free(as);
}

START_TEST(asm_files)
{
    load_fs();
    int nok = 0, nerr = 0;
    for (int i = 0; i < g_fs.n; i++) {
        const char *base = strrchr(g_fs.files[i].path, '/') + 1;
        if (strstr(g_fs.files[i].path, "/inc/")) continue;
        size_t bl = strlen(base);
        if (bl < 2 || strcmp(base + bl - 2, ".s")) continue;
        if (!strncmp(base, "ok_", 3)) check_asm_file(&g_fs.files[i], true), nok++;
        else if (!strncmp(base, "err_", 4)) check_asm_file(&g_fs.files[i], false), nerr++;
    }
    fprintf(stderr, "asm files: %d ok_, %d err_\n", nok, nerr);
    ck_assert_int_ge(nok, 5);
    ck_assert_int_ge(nerr, 5);
}
END_TEST

START_TEST(real_file_reader)
{
    /* the default file server (read_file NULL) reads real files and includes */
    AscAsm *as = asc_asm_new(NULL);
    AscImage img;
    asc_image_init(&img, NULL);
    bool ok = asc_asm_file(as, ASM_DIR "/ok_include.s", &img);
    if (!ok) dump_diags(as);
    ck_assert(ok);
    ck_assert_uint_gt(img.nfiles, 1);
    asc_image_free(&img);
    ck_assert(!asc_asm_file(as, ASM_DIR "/does_not_exist.s", &img));
    ck_assert_int_eq(asc_asm_diags(as)->items[0].id, ASC_DIAG_IO);
    asc_asm_free(as);
}
END_TEST

/* ---- (c) specific behaviour ---------------------------------------------------- */

START_TEST(all_errors_in_one_run)
{
    const char *src = ".kernel k, aiv\n"
                      "    addi x1, x2, 9000\n"
                      "    frob x1\n"
                      "    add x1, x2\n"
                      "    addi x1, x2, 3\n"
                      "    set_flag v, mte2, 8\n"
                      "    end\n";
    AscImage img;
    AscAsm *as;
    ck_assert(!assemble(src, NULL, &img, &as));
    const AscDiags *d = asc_asm_diags(as);
    ck_assert_uint_eq(d->nerrors, 4);
    ck_assert(has_diag(as, ASC_DIAG_IMM_RANGE, 2));
    ck_assert(has_diag(as, ASC_DIAG_UNKNOWN_MNEMONIC, 3));
    ck_assert(has_diag(as, ASC_DIAG_EXPECTED, 4));
    ck_assert(has_diag(as, ASC_DIAG_EVENT_RANGE, 6));
    ck_assert_str_eq(d->items[0].msg, "immediate must be an integer in the range [-8192, 8191], got 9000");
    ck_assert_uint_eq(d->items[0].loc.col, 18);
    ck_assert_uint_eq(d->items[0].loc.len, 4);
    ck_assert_str_eq(d->items[3].msg, "event id must be in the range [0, 7] for target ascend910b");
    ck_assert_uint_eq(img.text_words, 0); /* the image is untouched on error */
    uint32_t len;
    const char *line = asc_asm_source_line(as, "t.s", 3, &len);
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(len, 11);
    ck_assert(!strncmp(line, "    frob x1", len));
    ck_assert_ptr_null(asc_asm_source_line(as, "t.s", 99, &len));
    asc_asm_free(as);
}
END_TEST

START_TEST(error_cap)
{
    char src[4096] = ".kernel k, aiv\n";
    for (int i = 0; i < 30; i++) strcat(src, "    addi x1, x1, 99999\n");
    strcat(src, "    end\n");
    AscAsmDesc desc = {.max_errors = 5};
    AscImage img;
    AscAsm *as;
    ck_assert(!assemble(src, &desc, &img, &as));
    const AscDiags *d = asc_asm_diags(as);
    ck_assert_uint_eq(d->count, 5);
    ck_assert_uint_gt(d->nerrors, 5);
    asc_asm_free(as);
}
END_TEST

START_TEST(werror_promotes_warnings)
{
    const char *src = ".kernel k, aiv\n    vadd.f16 x31, x2, x3, repeat=2\n    end\n";
    AscImage img;
    AscAsm *as;
    ck_assert(assemble(src, NULL, &img, &as));
    ck_assert_uint_eq(asc_asm_diags(as)->nwarnings, 1);
    ck_assert(has_diag(as, ASC_DIAG_AT_CLOBBER, 2));
    asc_image_free(&img);
    asc_asm_free(as);
    AscAsmDesc desc = {.werror = true};
    ck_assert(!assemble(src, &desc, &img, &as));
    ck_assert_int_eq(asc_asm_diags(as)->items[0].sev, ASC_SEV_ERROR);
    asc_asm_free(as);
}
END_TEST

START_TEST(li_edge_constants)
{
    static const struct {
        uint64_t v;
        uint32_t words;
    } cases[] = {
        {0, 1},
        {UINT64_MAX, 1},                 /* -1: movn */
        {0x8000000000000000ull, 1},      /* INT64_MIN */
        {0x7fffffffffffffffull, 1},      /* INT64_MAX: movn 0x8000, 48 */
        {0x8000, 1},
        {0xffff0000ffffull, 2},
        {0x123456789abcdef0ull, 4},
        {0xffffffffffff1234ull, 1},
        {0x10000, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[256];
        snprintf(src, sizeof src, ".kernel k, aiv\n    li x7, %#llx\n    end\n", (unsigned long long)cases[i].v);
        AscImage img;
        AscAsm *as;
        bool ok = assemble(src, NULL, &img, &as);
        if (!ok) dump_diags(as);
        ck_assert(ok);
        ck_assert_msg(img.text_words - 1 == cases[i].words, "li %#llx: %u words", (unsigned long long)cases[i].v,
                      img.text_words - 1);
        ck_assert_uint_eq(run_movw(img.text, img.text_words - 1, 7), cases[i].v);
        asc_image_free(&img);
        asc_asm_free(as);
    }
    /* expressions: INT64_MIN as an expression, and a forward reference (4 words) */
    const char *src = ".kernel k, aiv\n    li x1, -0x7fffffffffffffff - 1\n    li x2, later\n    end\n"
                      ".equ later, 5\n";
    AscImage img;
    AscAsm *as;
    ck_assert(assemble(src, NULL, &img, &as));
    ck_assert_uint_eq(img.text_words, 1 + 4 + 1);
    ck_assert_uint_eq(run_movw(img.text, 1, 1), 0x8000000000000000ull);
    ck_assert_uint_eq(run_movw(img.text + 1, 4, 2), 5);
    asc_image_free(&img);
    asc_asm_free(as);
}
END_TEST

START_TEST(named_fields_match_cfg_packing)
{
    static const struct {
        const char *insn; /* with {} where the fields go */
        AscCfgLayout layout;
        int nregs;
    } forms[] = {
        {"vadd.f16 x1, x2, x3, %s", ASC_CFG_VEC, 3},
        {"mov_out_to_ub x1, x2, %s", ASC_CFG_DMA, 2},
        {"load_l1_to_l0a_2d x1, x2, %s", ASC_CFG_L2D, 2},
        {"mmad.f16f32 x1, x2, x3, %s", ASC_CFG_MMAD, 3},
        {"fix_l0c_to_out.f16 x1, x2, %s", ASC_CFG_FIX, 2},
    };
    for (size_t fi = 0; fi < sizeof forms / sizeof forms[0]; fi++) {
        /* every key of the layout at value max - 1 (all slots) */
        char fields[512] = "";
        uint64_t want = asc_cfg_pack_default(forms[fi].layout);
        for (unsigned f = 0; f < asc_cfg_field_count; f++) {
            const AscCfgField *cf = &asc_cfg_fields[f];
            if (cf->layout != forms[fi].layout) continue;
            uint64_t v = ((1ull << cf->width) - 1) - (cf->width > 1);
            char item[64];
            int n = snprintf(item, sizeof item, "%s%s=", fields[0] ? ", " : "", cf->key);
            for (unsigned s = 0; s < cf->count; s++) {
                n += snprintf(item + n, sizeof item - (size_t)n, "%s%llu", s ? "," : "", (unsigned long long)(v - s));
                ck_assert(asc_cfg_set(&want, f, s, v - s));
            }
            strcat(fields, item);
        }
        char line[700], src[800];
        snprintf(line, sizeof line, forms[fi].insn, fields);
        snprintf(src, sizeof src, ".kernel k, %s\n    %s\n    end\n",
                 forms[fi].layout == ASC_CFG_VEC || forms[fi].layout == ASC_CFG_DMA ? "aiv" : "aic", line);
        AscImage img;
        AscAsm *as;
        bool ok = assemble(src, NULL, &img, &as);
        if (!ok) dump_diags(as);
        ck_assert_msg(ok, "%s", line);
        uint32_t n = img.text_words - 2;
        ck_assert_msg(run_movw(img.text, n, ASC_REG_AT) == want, "%s", line);
        AscInsn in;
        ck_assert(asc_decode(img.text[n], &in, NULL));
        ck_assert_uint_eq(forms[fi].nregs == 3 ? in.rs3 : in.rs2, ASC_REG_AT);
        asc_image_free(&img);
        asc_asm_free(as);
    }
    /* defaults: keys not given keep asc.def defaults; vconv keeps its trailing rounding mode */
    const char *src = ".kernel k, aiv\n    vconv.f32.f16 x1, x2, repeat=2, rep=4,8, rint\n"
                      "    vcmp.f16 x1, x2, x3, blk=1,2,3, lt\n    end\n";
    AscImage img;
    AscAsm *as;
    bool ok = assemble(src, NULL, &img, &as);
    if (!ok) dump_diags(as);
    ck_assert(ok);
    uint64_t want = asc_cfg_pack_default(ASC_CFG_VEC);
    asc_cfg_set(&want, (unsigned)asc_cfg_lookup(ASC_CFG_VEC, "repeat", 6), 0, 2);
    asc_cfg_set(&want, (unsigned)asc_cfg_lookup(ASC_CFG_VEC, "rep", 3), 0, 4);
    asc_cfg_set(&want, (unsigned)asc_cfg_lookup(ASC_CFG_VEC, "rep", 3), 1, 8);
    uint32_t i = 0;
    while (i < img.text_words) {
        AscInsn in;
        ck_assert(asc_decode(img.text[i], &in, NULL));
        if (in.op == ASC_OP_VCONV_F32_F16) break;
        i++;
    }
    ck_assert_uint_eq(run_movw(img.text, i, ASC_REG_AT), want);
    AscInsn in;
    asc_decode(img.text[i], &in, NULL);
    ck_assert_int_eq(in.rnd, ASC_RND_RINT);
    asc_image_free(&img);
    asc_asm_free(as);
}
END_TEST

START_TEST(data_directives_bytes)
{
    const char *src = ".rodata\n"
                      ".byte 1, -1, 255, -128\n"
                      ".half 0x1234, -2\n"
                      ".word 0xdeadbeef\n"
                      ".dword -2\n"
                      ".float16 1.5, 65504, 65520, 1e-8, 6e-8, 2049, 2051, -0.0, nan, -inf, 5.9604645e-8\n"
                      ".bfloat16 1.0, 1.00390625, 1.01171875, 3.0e38, -1.5\n"
                      ".float 1.5, 1e-45, 3.5e38\n"
                      ".text\n.kernel k, aiv\n    end\n";
    static const uint8_t want[] = {
        0x01, 0xff, 0xff, 0x80,                         /* .byte */
        0x34, 0x12, 0xfe, 0xff,                         /* .half */
        0xef, 0xbe, 0xad, 0xde,                         /* .word */
        0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* .dword */
        0x00, 0x3e, 0xff, 0x7b, 0x00, 0x7c,             /* 1.5, max, 65520 -> inf */
        0x00, 0x00, 0x01, 0x00,                         /* 1e-8 -> 0, 6e-8 -> smallest subnormal */
        0x00, 0x68, 0x02, 0x68,                         /* ties to even: 2049 -> 2048, 2051 -> 2052 */
        0x00, 0x80, 0x00, 0x7e, 0x00, 0xfc, 0x01, 0x00, /* -0, nan, -inf, 2^-24 */
        0x80, 0x3f, 0x80, 0x3f, 0x82, 0x3f,             /* bf16 1.0, ties 1+2^-8 -> 1.0, 1+3*2^-8 -> 1+2^-6 */
        0x62, 0x7f, 0xc0, 0xbf,                         /* 3e38, -1.5 */
        0x00, 0x00, 0xc0, 0x3f, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x7f,
    };
    AscImage img;
    AscAsm *as;
    bool ok = assemble(src, NULL, &img, &as);
    if (!ok) dump_diags(as);
    ck_assert(ok);
    ck_assert_uint_eq(img.rodata_size, sizeof want);
    for (size_t i = 0; i < sizeof want; i++)
        ck_assert_msg(img.rodata[i] == want[i], "rodata byte %zu is 0x%02x, expected 0x%02x", i, img.rodata[i], want[i]);
    asc_image_free(&img);
    asc_asm_free(as);
}
END_TEST

START_TEST(loc_mapping)
{
    const char *src = ".kernel k, aiv\n"
                      "    nop\n"                   /* line 2: own line, column 5 */
                      ".loc \"kern.py\", 10, 3\n"
                      "    nop\n"
                      "    li x1, 0x12345\n"        /* 2 words, both kern.py:10:3 */
                      ".loc \"kern.py\", 12\n"
                      "    end\n";
    AscImage img;
    AscAsm *as;
    ck_assert(assemble(src, NULL, &img, &as));
    ck_assert_uint_eq(img.nlines, 5);
    ck_assert_str_eq(img.files[img.lines[0].file], "t.s");
    ck_assert_uint_eq(img.lines[0].line, 2);
    ck_assert_uint_eq(img.lines[0].col, 5);
    for (int i = 1; i <= 3; i++) {
        ck_assert_str_eq(img.files[img.lines[i].file], "kern.py");
        ck_assert_uint_eq(img.lines[i].line, 10);
        ck_assert_uint_eq(img.lines[i].col, 3);
        ck_assert_uint_eq(img.lines[i].pc, 4u * (unsigned)i);
    }
    ck_assert_uint_eq(img.lines[4].line, 12);
    ck_assert_uint_eq(img.lines[4].col, 0);
    asc_image_free(&img);
    asc_asm_free(as);
}
END_TEST

START_TEST(include_cycle_and_depth)
{
    MemFs fs = {0};
    memfs_add(&fs, "m/a.s", ".kernel k, aiv\n.include \"b.s\"\n    end\n");
    memfs_add(&fs, "m/b.s", "    nop\n.include \"a.s\"\n");
    AscAsmDesc desc = {.read_file = mem_read, .read_ud = &fs};
    AscAsm *as = asc_asm_new(&desc);
    AscImage img;
    asc_image_init(&img, NULL);
    ck_assert(!asc_asm_file(as, "m/a.s", &img));
    const AscDiags *d = asc_asm_diags(as);
    ck_assert_uint_eq(d->nerrors, 1);
    ck_assert_int_eq(d->items[0].id, ASC_DIAG_INCLUDE_CYCLE);
    ck_assert_str_eq(d->items[0].loc.file, "m/b.s");
    ck_assert_uint_eq(d->items[0].loc.line, 2);
    /* a missing include names the file */
    memfs_add(&fs, "m/c.s", ".kernel k, aiv\n.include \"nope.s\"\n    end\n");
    ck_assert(!asc_asm_file(as, "m/c.s", &img));
    ck_assert_int_eq(asc_asm_diags(as)->items[0].id, ASC_DIAG_IO);
    ck_assert(strstr(asc_asm_diags(as)->items[0].msg, "m/nope.s") != NULL);
    asc_asm_free(as);
}
END_TEST

/* An allocator that fails the N-th allocation and counts live blocks. */
typedef struct FailAlloc {
    long n, fail_at;
    long live;
} FailAlloc;

static void *fail_alloc(void *ud, size_t size)
{
    FailAlloc *f = ud;
    if (++f->n == f->fail_at) return NULL;
    void *p = malloc(size);
    if (p) f->live++;
    return p;
}

static void fail_free(void *ud, void *p)
{
    FailAlloc *f = ud;
    if (p) f->live--;
    free(p);
}

START_TEST(allocation_failures)
{
    MemFs fs = {0};
    memfs_add(&fs, "a.s",
              ".kernel k, aiv\n.arg x, gm, f16\n.include \"b.s\"\nloop: li x1, 0x123456789\n"
              "    vadd.f16 x1, x2, x3, repeat=8, blk=1,1,1\n    beqz x1, loop\n    end\n"
              ".rodata\ntab: .word 1, 2, 3\n.float16 1.5\n.text\n.kernel k2, mix\n.aic\n    end\n.aiv\n    la x2, tab\n    end\n");
    memfs_add(&fs, "b.s", ".equ N, 4\n    addi x1, x1, N\n");
    long ok_at = 0;
    for (long n = 1; n < 100000; n++) {
        FailAlloc fa = {0, n, 0};
        AscAlloc al = {fail_alloc, fail_free, &fa};
        AscAsmDesc desc = {.read_file = mem_read, .read_ud = &fs, .alloc = &al};
        AscAsm *as = asc_asm_new(&desc);
        if (as) {
            AscImage img;
            asc_image_init(&img, &al);
            bool ok = asc_asm_file(as, "a.s", &img);
            const AscDiags *d = asc_asm_diags(as);
            if (!ok) {
                bool oom = d->oom;
                for (uint32_t i = 0; i < d->count; i++) oom |= d->items[i].id == ASC_DIAG_OOM;
                ck_assert_msg(oom, "allocation %ld failed but no OOM was reported", n);
            } else {
                ck_assert_uint_eq(img.nkernels, 2);
                ok_at = n;
            }
            asc_image_free(&img);
            asc_asm_free(as);
        }
        ck_assert_msg(fa.live == 0, "failing allocation %ld leaks %ld blocks", n, fa.live);
        if (ok_at) break;
    }
    ck_assert_int_gt(ok_at, 5);
}
END_TEST

START_TEST(hostile_input_never_crashes)
{
    /* NUL bytes, non-ASCII, CRLF, a huge number, a very long line, no final newline */
    static char src[70000];
    size_t n = 0;
    const char *parts[] = {".kernel k, aiv\r\n", "  nop\r\n", "  addi x1, x2, 99999999999999999999999\n",
                           "  \xc3\xa9t\xc3\xa9 x1\n", "  li x1, 0x1__2\n", "  .word \"\n", "'", "  end"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t l = strlen(parts[i]);
        memcpy(src + n, parts[i], l);
        n += l;
        if (i == 1) src[n++] = '\0', src[n++] = '\n';
        if (i == 2) {
            for (int k = 0; k < 60000; k++) src[n++] = k % 7 ? 'a' : ',';
            src[n++] = '\n';
        }
    }
    AscAsm *as = asc_asm_new(NULL);
    AscImage img;
    asc_image_init(&img, NULL);
    ck_assert(!asc_asm_string(as, "h.s", src, n, &img));
    const AscDiags *d = asc_asm_diags(as);
    ck_assert(has_diag(as, ASC_DIAG_BAD_CHAR, 3));   /* the NUL line */
    ck_assert(has_diag(as, ASC_DIAG_BAD_NUMBER, 4));
    ck_assert_uint_ge(d->nerrors, 4);
    /* every prefix of the text, too */
    for (size_t cut = 0; cut < 400; cut++) asc_asm_string(as, "h.s", src, cut, &img);
    asc_image_free(&img);
    asc_asm_free(as);
}
END_TEST

/* Limits that keep hostile input from exhausting the stack or memory, and
 * files with nothing to run: each is a located error, never a crash or an
 * empty binary. */
START_TEST(hostile_limits)
{
    AscAsm *as = asc_asm_new(NULL);
    AscImage img;
    asc_image_init(&img, NULL);
    /* 100k nested parentheses / unary minus (a stack overflow before) */
    size_t n = 100000, cap = 2 * n + 64;
    char *src = malloc(cap);
    ck_assert_ptr_nonnull(src);
    for (int form = 0; form < 2; form++) {
        size_t k = (size_t)snprintf(src, cap, ".kernel k, aiv\n    li x1, ");
        for (size_t i = 0; i < n; i++) src[k++] = form ? '-' : '(';
        src[k++] = '1';
        if (!form)
            for (size_t i = 0; i < n; i++) src[k++] = ')';
        k += (size_t)snprintf(src + k, cap - k, "\n    end\n");
        ck_assert(!asc_asm_string(as, "deep.s", src, k, &img));
        ck_assert(has_diag(as, ASC_DIAG_EXPR_DEPTH, 2));
        ck_assert_uint_eq(asc_asm_diags(as)->nerrors, 1);
    }
    free(src);
    /* empty, comments only, data only: no kernel to run */
    static const char *const none[] = {"", "; only a comment\n// and another\n", "\n\n",
                                       ".rodata\nt: .word 1\n"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        ck_assert(!asc_asm_string(as, "none.s", none[i], strlen(none[i]), &img));
        const AscDiags *d = asc_asm_diags(as);
        ck_assert_uint_eq(d->nerrors, 1);
        ck_assert_int_eq(d->items[0].id, ASC_DIAG_NO_KERNELS);
        ck_assert_str_eq(d->items[0].loc.file, "none.s");
    }
    /* .rodata past 64 MiB through .align padding: one SECTION_SIZE error at
     * the statement that crosses the limit, not a 4 GiB wrap or an OOM */
    const char rep[] = ".align 4096\n.byte 1\n";
    size_t reps = (64u << 20) / 4096 + 2;
    char *big = malloc(16 + reps * (sizeof rep - 1) + 32);
    ck_assert_ptr_nonnull(big);
    size_t k = (size_t)sprintf(big, ".rodata\n");
    for (size_t i = 0; i < reps; i++) k += (size_t)sprintf(big + k, "%s", rep);
    k += (size_t)sprintf(big + k, ".text\n.kernel k, aiv\n end\n");
    ck_assert(!asc_asm_string(as, "big.s", big, k, &img));
    const AscDiags *d = asc_asm_diags(as);
    ck_assert_uint_eq(d->nerrors, 1);
    ck_assert_int_eq(d->items[0].id, ASC_DIAG_SECTION_SIZE);
    ck_assert_uint_eq(d->items[0].loc.line, 3 + 2 * ((64u << 20) / 4096)); /* the .byte after padding to 64 MiB */
    free(big);
    asc_image_free(&img);
    asc_asm_free(as);
}
END_TEST

/* A broken .kernel line is one error: the lines of its body are not each
 * reported as outside a kernel, nor the file as having no kernel; the
 * lines after a later good .kernel are checked as usual. */
START_TEST(broken_kernel_line_reported_once)
{
    const char *src = ".kernel .k, aiv\n.arg x, int\n    nop\n    end\n"
                      ".kernel k2, aiv\n    end\n.kernel k2, aiv\n    end\n"
                      ".kernel k3, aiv\n    end\n    .aiv\n";
    AscImage img;
    AscAsm *as;
    ck_assert(!assemble(src, NULL, &img, &as));
    const AscDiags *d = asc_asm_diags(as);
    if (d->nerrors != 3) dump_diags(as);
    ck_assert_uint_eq(d->nerrors, 3);
    ck_assert(has_diag(as, ASC_DIAG_DIRECTIVE_ARGS, 1));
    ck_assert(has_diag(as, ASC_DIAG_KERNEL_DUP, 7));
    ck_assert(has_diag(as, ASC_DIAG_MIX_PART, 11)); /* .aiv in aiv kernel k3 */
    asc_asm_free(as);
    const char *only_bad = ".kernel k, gpu\n    end\n";
    ck_assert(!assemble(only_bad, NULL, &img, &as));
    ck_assert_uint_eq(asc_asm_diags(as)->nerrors, 1);
    ck_assert(has_diag(as, ASC_DIAG_KERNEL_KIND, 1));
    asc_asm_free(as);
}
END_TEST

START_TEST(random_bytes_never_crash)
{
    /* deterministic pseudo-random sources: bytes biased toward the
     * language's own characters, so the parser gets deep too */
    static const char alphabet[] = "x1,.()=+-*/%<>!~&|^;:'\"\n\r\t 0x9abk_end li vadd.f16 repeat=.kernel aiv\0\xff";
    uint64_t seed = 12345;
    AscAsm *as = asc_asm_new(NULL);
    AscImage img;
    asc_image_init(&img, NULL);
    char buf[512];
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = (size_t)(iter % 500);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(seed >> 33);
            buf[i] = (r & 3) ? alphabet[r % (sizeof alphabet - 1)] : (char)(r >> 8);
        }
        if (asc_asm_string(as, "r.s", buf, n, &img)) asc_image_free(&img);
    }
    asc_asm_free(as);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("asm");
    TCase *tc = tcase_create("asm");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_instruction_print_parse_roundtrip);
    tcase_add_test(tc, asm_files);
    tcase_add_test(tc, real_file_reader);
    tcase_add_test(tc, all_errors_in_one_run);
    tcase_add_test(tc, error_cap);
    tcase_add_test(tc, werror_promotes_warnings);
    tcase_add_test(tc, li_edge_constants);
    tcase_add_test(tc, named_fields_match_cfg_packing);
    tcase_add_test(tc, data_directives_bytes);
    tcase_add_test(tc, loc_mapping);
    tcase_add_test(tc, include_cycle_and_depth);
    tcase_add_test(tc, allocation_failures);
    tcase_add_test(tc, hostile_input_never_crashes);
    tcase_add_test(tc, hostile_limits);
    tcase_add_test(tc, broken_kernel_line_reported_once);
    tcase_add_test(tc, random_bytes_never_crash);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int i = 0; i < g_fs.n; i++) free(g_texts[i]), free((char *)g_fs.files[i].path);
    return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
