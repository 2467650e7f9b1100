/* asm.c -- the assembler driver: AscAsm lifetime, the file server, the two
 * passes over the source, labels and directives, kernels, and the AscImage
 * it produces.
 *
 * Users: asc-as (asm/asc_as_main.c), tests/unit/test_asm.c, pyasc through
 * libasc.  The syntax is documented in docs/assembly.md.
 *
 * Invariants:
 *  - the library never prints or exits; every problem is an AscDiag in
 *    as->diags, reported only in pass 2 (pass 1 is silent), so each is
 *    reported exactly once;
 *  - every statement has the same size in both passes (see asm_int.h), so
 *    label values computed in pass 1 are the addresses pass 2 emits at;
 *  - the output image is filled only when the run had no error;
 *  - all job memory is freed when the job ends, also after an allocation
 *    failure (longjmp to the job entry). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asm_int.h"

/* ---- job memory ------------------------------------------------------------ */

typedef struct ArenaBlock {
    struct ArenaBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} ArenaBlock;

void *job_alloc(Job *j, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    ArenaBlock *b = j->arena;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > 8192 ? size : 8192;
        b = asc_malloc(&j->as->alloc, sizeof *b + cap);
        if (!b) longjmp(j->oom, 1);
        b->next = j->arena;
        b->used = 0;
        b->cap = cap;
        j->arena = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    return p;
}

void job_grow(Job *j, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return;
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    if (ncap > UINT32_MAX || ncap * elem > (uint64_t)SIZE_MAX / 2) longjmp(j->oom, 1);
    void *n = asc_realloc(&j->as->alloc, *p, (size_t)*cap * elem, (size_t)ncap * elem);
    if (!n) longjmp(j->oom, 1);
    *p = n;
    *cap = (uint32_t)ncap;
}

static char *job_strndup(Job *j, const char *s, size_t len)
{
    char *p = job_alloc(j, len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* ---- diagnostics ------------------------------------------------------------ */

AscLoc job_loc(Job *j, uint32_t col, uint32_t len)
{
    AscLoc l = {j->as->files[j->file].path, j->line, col, len ? len : 1};
    return l;
}

AscLoc tok_loc(Job *j, const Tok *t) { return job_loc(j, t->col, t->len); }

void job_err(Job *j, AscDiagId id, AscLoc loc, ...)
{
    if (j->pass != 2) return;
    va_list ap;
    va_start(ap, loc);
    asc_vdiag(j->d, id, loc, ap);
    va_end(ap);
    uint32_t cap = j->d->max_errors ? j->d->max_errors : 50;
    if (j->d->nerrors > cap) j->stop = true;
}

/* The token's text, truncated to fit `size` (with "..."), for messages. */
const char *tok_str(const Tok *t, char *buf, size_t size)
{
    if (t->kind == T_EOL) return "end of line";
    size_t n = t->len;
    if (n + 1 > size) {
        n = size - 4;
        memcpy(buf, t->p, n);
        strcpy(buf + n, "...");
    } else {
        memcpy(buf, t->p, n);
        buf[n] = '\0';
    }
    for (size_t i = 0; buf[i]; i++)
        if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f) buf[i] = '?';
    return buf;
}

/* "'tok'" or "end of line" */
static const char *tok_desc(const Tok *t, char *buf, size_t size)
{
    if (t->kind == T_EOL) return "end of line";
    char tmp[72];
    snprintf(buf, size, "'%s'", tok_str(t, tmp, sizeof tmp));
    return buf;
}

/* ---- symbols ------------------------------------------------------------- */

static uint32_t hash_name(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

Sym *sym_find(Job *j, const char *name, size_t len)
{
    if (!j->capsyms) return NULL;
    for (uint32_t i = hash_name(name, len) & (j->capsyms - 1);; i = (i + 1) & (j->capsyms - 1)) {
        Sym *s = &j->syms[i];
        if (!s->name) return NULL;
        if (s->nlen == len && memcmp(s->name, name, len) == 0) return s;
    }
}

/* A symbol is known at the current statement when it was defined above it,
 * or is a label of this very line.  Both passes agree on this. */
bool sym_known(Job *j, const Sym *s) { return s->def_order <= 2 * j->seq; }

static Sym *sym_add(Job *j, const char *name, size_t len)
{
    if ((j->nsyms + 1) * 2 > j->capsyms) {
        uint32_t ncap = j->capsyms ? j->capsyms * 2 : 64;
        Sym *n = asc_calloc(&j->as->alloc, ncap, sizeof *n);
        if (!n) longjmp(j->oom, 1);
        for (uint32_t i = 0; i < j->capsyms; i++) {
            if (!j->syms[i].name) continue;
            uint32_t k = hash_name(j->syms[i].name, j->syms[i].nlen) & (ncap - 1);
            while (n[k].name) k = (k + 1) & (ncap - 1);
            n[k] = j->syms[i];
        }
        asc_free(&j->as->alloc, j->syms);
        j->syms = n;
        j->capsyms = ncap;
    }
    uint32_t k = hash_name(name, len) & (j->capsyms - 1);
    while (j->syms[k].name) k = (k + 1) & (j->capsyms - 1);
    Sym *s = &j->syms[k];
    memset(s, 0, sizeof *s);
    s->name = job_strndup(j, name, len);
    s->nlen = (uint32_t)len;
    j->nsyms++;
    return s;
}

static bool is_reserved_name(const char *s, size_t len)
{
    if (len == 1 && s[0] == '.') return true;
    if (len == 2 && s[0] == 'a' && s[1] == 't') return true;
    if (len >= 2 && len <= 3 && s[0] == 'x') {
        unsigned v = 0;
        for (size_t i = 1; i < len; i++) {
            if (s[i] < '0' || s[i] > '9') return false;
            v = v * 10 + (unsigned)(s[i] - '0');
        }
        return v < 32;
    }
    return false;
}

/* Define a label or .equ symbol at token `t`.  Pass 1 defines, pass 2
 * reports a second definition (found by its position). */
static void sym_define(Job *j, const Tok *t, SymKind kind, int64_t value)
{
    char buf[80];
    if (is_reserved_name(t->p, t->len)) {
        job_err(j, ASC_DIAG_BAD_OPERAND, tok_loc(j, t), "symbol name", tok_str(t, buf, sizeof buf),
                "register names (x0..x31, at) and '.' cannot be symbols");
        return;
    }
    Sym *s = sym_find(j, t->p, t->len);
    if (j->pass == 1) {
        if (s) return;
        s = sym_add(j, t->p, t->len);
        s->kind = kind;
        s->value = value;
        s->def_order = 2 * j->seq + (kind == SYM_EQU);
        s->file = j->file;
        s->line = j->line;
        s->col = t->col;
        return;
    }
    if (!s || s->file != j->file || s->line != j->line || s->col != t->col || s->def_order / 2 != j->seq)
        job_err(j, ASC_DIAG_REDEFINED_SYMBOL, tok_loc(j, t), tok_str(t, buf, sizeof buf));
}

/* ---- files ------------------------------------------------------------------ */

/* Only regular files of at most ASC_ASM_MAX_FILE bytes: /dev/zero or a FIFO
 * would grow the buffer for ever (or block).  The file is opened without
 * blocking (a FIFO) and checked with fstat before a byte is read. */
static char *read_real_file(void *ud, const AscAlloc *alloc, const char *path, size_t *len, const char **err)
{
    (void)ud;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *err = strerror(errno);
        if (fd >= 0) close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *err = "not a regular file (a device, FIFO or directory): the assembler reads only regular files";
        return NULL;
    }
    if (st.st_size > (off_t)ASC_ASM_MAX_FILE) {
        close(fd);
        *err = "file too large: an assembler source holds at most 16 MiB";
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        *err = strerror(errno);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0; /* +1: see EOF in one read */
    char *buf = asc_malloc(alloc, cap);
    bool big = false;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n > ASC_ASM_MAX_FILE) { /* it grew while being read */
            big = true;
            break;
        }
        if (n == cap) {
            size_t ncap = cap * 2 > ASC_ASM_MAX_FILE + 1 ? ASC_ASM_MAX_FILE + 1 : cap * 2;
            char *nb = asc_realloc(alloc, buf, cap, ncap);
            if (!nb) asc_free(alloc, buf);
            buf = nb;
            cap = ncap;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf) {
        *err = "out of memory";
        return NULL;
    }
    if (bad || big) {
        asc_free(alloc, buf);
        *err = big ? "file too large: an assembler source holds at most 16 MiB" : "read error";
        return NULL;
    }
    *len = n;
    return buf;
}

static void files_clear(AscAsm *as)
{
    for (uint32_t i = 0; i < as->nfiles; i++) {
        asc_free(&as->alloc, as->files[i].path);
        asc_free(&as->alloc, as->files[i].text);
    }
    as->nfiles = 0;
}

/* Add a file entry (text may be NULL: a failed read, kept so its path can
 * be named).  Takes ownership of `text`.  Returns the index or -1 on OOM. */
static int files_add(AscAsm *as, const char *path, char *text, size_t len)
{
    if (as->nfiles == as->capfiles) {
        uint32_t ncap = as->capfiles ? as->capfiles * 2 : 8;
        SrcFile *n = asc_realloc(&as->alloc, as->files, as->capfiles * sizeof *n, ncap * sizeof *n);
        if (!n) {
            asc_free(&as->alloc, text);
            return -1;
        }
        as->files = n;
        as->capfiles = ncap;
    }
    char *p = asc_strdup(&as->alloc, path);
    if (!p) {
        asc_free(&as->alloc, text);
        return -1;
    }
    as->files[as->nfiles] = (SrcFile){p, text, len, NULL};
    return (int)as->nfiles++;
}

/* The index of `path` in the file cache, reading it on first use.  Returns
 * -1 and sets *err when it cannot be read. */
static int job_open(Job *j, const char *path, const char **err)
{
    AscAsm *as = j->as;
    for (uint32_t i = 0; i < as->nfiles; i++)
        if (strcmp(as->files[i].path, path) == 0) {
            if (!as->files[i].text) {
                *err = as->files[i].why ? as->files[i].why : "cannot be read";
                return -1;
            }
            return (int)i;
        }
    size_t len = 0;
    const char *why = "cannot be read";
    AscReadFileFn rd = as->desc.read_file ? as->desc.read_file : read_real_file;
    char *text = rd(as->desc.read_ud, &as->alloc, path, &len, &why);
    if (text && len >= UINT32_MAX) {
        asc_free(&as->alloc, text);
        text = NULL;
        why = "file too large";
    }
    if (!text && why && strcmp(why, "out of memory") == 0) longjmp(j->oom, 1);
    int idx = files_add(as, path, text, text ? len : 0);
    if (idx < 0) longjmp(j->oom, 1);
    if (!text) {
        *err = why ? why : "cannot be read";
        as->files[idx].why = *err;
        return -1;
    }
    return idx;
}

/* ---- output ------------------------------------------------------------ */

static uint32_t ofile_index(Job *j, const char *name)
{
    for (uint32_t i = 0; i < j->nofiles; i++)
        if (strcmp(j->ofiles[i], name) == 0) return i;
    job_grow(j, (void **)&j->ofiles, &j->capofiles, j->nofiles + 1, sizeof *j->ofiles);
    j->ofiles[j->nofiles] = name;
    return j->nofiles++;
}

/* Room for `bytes` more bytes in a section holding `used`?  At the limit
 * the section stops growing in both passes (so offsets never wrap and the
 * .align loops end); pass 2 reports it once and stops the job. */
static bool section_room(Job *j, uint32_t used, uint32_t bytes, const char *name)
{
    if (!j->full && used <= ASM_MAX_SECTION_BYTES - bytes) return true;
    if (!j->full) {
        j->full = true;
        job_err(j, ASC_DIAG_SECTION_SIZE, job_loc(j, j->stmt_col, 1), name, ASM_MAX_SECTION_BYTES >> 20,
                ASM_MAX_SECTION_BYTES >> 20);
        if (j->pass == 2) j->stop = true;
    }
    return false;
}

void emit_word(Job *j, uint32_t word, uint32_t col, bool user)
{
    if (!section_room(j, j->pc, 4, ".text")) return;
    if (j->pass == 2) {
        uint32_t n = j->pc / 4;
        job_grow(j, (void **)&j->text, &j->captext, n + 1, sizeof *j->text);
        j->text[n] = word;
        job_grow(j, (void **)&j->lines, &j->caplines, j->nlines + 1, sizeof *j->lines);
        AscLineEntry *e = &j->lines[j->nlines++];
        e->pc = j->pc;
        if (j->loc_on) {
            e->file = j->loc_file;
            e->line = j->loc_line;
            e->col = j->loc_col;
        } else {
            e->file = ofile_index(j, j->as->files[j->file].path);
            e->line = j->line;
            e->col = col;
        }
        if (user && j->cur >= 0) {
            Kernel *k = &j->kernels[j->cur];
            AscInsn in;
            if (k->part >= 0) {
                k->last_op[k->part] = asc_decode(word, &in, NULL) ? in.op : 0;
                k->last_loc[k->part] = job_loc(j, col, 1);
            }
        }
    }
    j->pc += 4;
}

static void emit_rodata(Job *j, uint64_t v, unsigned size)
{
    if (!section_room(j, j->ro, size, ".rodata")) return;
    if (j->pass == 2) {
        job_grow(j, (void **)&j->rodata, &j->caprodata, j->ro + size, 1);
        for (unsigned i = 0; i < size; i++) j->rodata[j->ro + i] = (uint8_t)(v >> (8 * i));
    }
    j->ro += size;
}

bool in_text_kernel(Job *j, const Tok *at)
{
    char msg[160];
    if (j->section != 0) {
        job_err(j, ASC_DIAG_WRONG_SECTION, tok_loc(j, at), "an instruction", ".text (switch with .text)");
        return false;
    }
    if (j->cur < 0) {
        if (!j->bad_kernel) job_err(j, ASC_DIAG_NO_KERNEL, tok_loc(j, at));
        return false;
    }
    Kernel *k = &j->kernels[j->cur];
    if (k->part < 0) {
        snprintf(msg, sizeof msg, "instructions of mix kernel '%s' must follow .aic or .aiv", k->info.name);
        job_err(j, ASC_DIAG_MIX_PART, tok_loc(j, at), msg);
        return false;
    }
    return true;
}

/* ---- kernels ------------------------------------------------------------- */

static void close_part(Job *j)
{
    if (j->cur < 0) return;
    Kernel *k = &j->kernels[j->cur];
    if (k->part >= 0) k->info.size[k->part] = j->pc - k->info.entry[k->part];
}

static void finish_kernel(Job *j)
{
    if (j->cur < 0) return;
    close_part(j);
    Kernel *k = &j->kernels[j->cur];
    if (k->recovery) { /* its .kernel line was reported; nothing more to say about the whole */
        j->cur = -1;
        return;
    }
    char msg[200];
    static const char *const pname[ASC_PART_COUNT] = {".aiv", ".aic"};
    for (int p = 0; p < ASC_PART_COUNT; p++) {
        bool want = k->info.kind == ASC_KERNEL_MIX || (p == ASC_PART_AIV) == (k->info.kind == ASC_KERNEL_AIV);
        if (!want) continue;
        if (k->info.kind == ASC_KERNEL_MIX && !k->seen[p]) {
            snprintf(msg, sizeof msg, "mix kernel '%s' has no %s program: a mix kernel needs both .aic and .aiv",
                     k->info.name, pname[p]);
            job_err(j, ASC_DIAG_MIX_PART, k->loc, msg);
            continue;
        }
        if (k->info.size[p] == 0) {
            if (k->info.kind == ASC_KERNEL_MIX) {
                snprintf(msg, sizeof msg, "the %s program of kernel '%s' has no instructions", pname[p], k->info.name);
                job_err(j, ASC_DIAG_MIX_PART, k->part_loc[p], msg);
            } else {
                job_err(j, ASC_DIAG_KERNEL_EMPTY, k->loc, k->info.name);
            }
            continue;
        }
        uint16_t op = k->last_op[p];
        if (op != ASC_OP_END && op != ASC_OP_J)
            job_err(j, ASC_DIAG_KERNEL_NO_END, k->last_loc[p].line ? k->last_loc[p] : k->loc, k->info.name);
    }
    j->cur = -1;
}

static void start_part(Job *j, int part, const Tok *at)
{
    Kernel *k = &j->kernels[j->cur];
    close_part(j);
    k->part = part;
    k->seen[part] = true;
    k->info.entry[part] = j->pc;
    k->part_loc[part] = tok_loc(j, at);
}

/* ---- directives --------------------------------------------------------- */

static bool expect_eol(Job *j, Lex *lx)
{
    char buf[80];
    if (lx->t.kind == T_EOL) return true;
    if (lx->t.kind != T_ERR) job_err(j, ASC_DIAG_TRAILING, tok_loc(j, &lx->t), tok_desc(&lx->t, buf, sizeof buf));
    return false;
}

static bool bad_args(Job *j, const Tok *dir, const Tok *at, const char *usage)
{
    char name[40];
    if (at->kind != T_ERR) {
        AscLoc l = at->kind == T_EOL ? tok_loc(j, dir) : tok_loc(j, at);
        job_err(j, ASC_DIAG_DIRECTIVE_ARGS, l, tok_str(dir, name, sizeof name), usage);
    }
    return false;
}

static bool expect_comma(Job *j, Lex *lx, const Tok *dir, const char *usage)
{
    if (!lex_is(lx, ',')) return bad_args(j, dir, &lx->t, usage);
    lex_next(lx);
    return true;
}

/* A constant expression: no forward reference. */
static bool const_expr(Job *j, Lex *lx, const char *what, int64_t *v)
{
    Val x;
    if (!parse_expr(lx, &x)) return false;
    if (x.fwd) {
        job_err(j, ASC_DIAG_NOT_CONSTANT, x.loc, what);
        return false;
    }
    *v = x.v;
    return true;
}

/* A string literal's contents with \" and \\ unescaped (arena). */
static char *string_value(Job *j, const Tok *t)
{
    char *s = job_alloc(j, t->len);
    size_t n = 0;
    for (uint32_t i = 1; i + 1 < t->len; i++) {
        if (t->p[i] == '\\' && i + 2 < t->len) i++;
        s[n++] = t->p[i];
    }
    s[n] = '\0';
    return s;
}

/* A kernel or argument name: what the loader accepts in a binary
 * ([A-Za-z_][A-Za-z0-9_.]*, at most 63 characters), checked here so the
 * error has a place. */
static bool name_ok(Job *j, const Tok *dir, const Tok *t, const char *usage)
{
    if (t->kind != T_IDENT) return bad_args(j, dir, t, usage);
    const char *rule = t->len >= ASC_NAME_MAX ? "a name of at most 63 characters"
                     : t->p[0] == '.'         ? "a name that starts with a letter or '_' (not '.')"
                                              : NULL;
    if (rule) {
        char name[40];
        job_err(j, ASC_DIAG_DIRECTIVE_ARGS, tok_loc(j, t), tok_str(dir, name, sizeof name), rule);
        return false;
    }
    return true;
}

static void process_file(Job *j, uint32_t idx);

/* .include "FILE" -- relative to the including file's directory. */
static void dir_include(Job *j, Lex *lx, const Tok *dir)
{
    static const char usage[] = "a file name in quotes: .include \"file.s\"";
    if (lx->t.kind != T_STR) {
        bad_args(j, dir, &lx->t, usage);
        return;
    }
    Tok ft = lx->t;
    char *name = string_value(j, &ft);
    lex_next(lx);
    if (!expect_eol(j, lx)) return;
    const char *cur = j->as->files[j->file].path;
    const char *slash = strrchr(cur, '/');
    size_t dlen = (name[0] != '/' && slash) ? (size_t)(slash - cur + 1) : 0;
    char *path = job_alloc(j, dlen + strlen(name) + 1);
    memcpy(path, cur, dlen);
    strcpy(path + dlen, name);
    if (j->depth >= ASM_MAX_INCLUDE_DEPTH) {
        job_err(j, ASC_DIAG_INCLUDE_DEPTH, tok_loc(j, &ft), (unsigned)ASM_MAX_INCLUDE_DEPTH);
        return;
    }
    const char *err = NULL;
    int idx = job_open(j, path, &err);
    if (idx < 0) {
        job_err(j, ASC_DIAG_IO, tok_loc(j, &ft), "read", path, err);
        return;
    }
    for (uint32_t i = 0; i <= j->depth; i++)
        if (j->inc[i] == (uint32_t)idx) {
            job_err(j, ASC_DIAG_INCLUDE_CYCLE, tok_loc(j, &ft), path, cur);
            return;
        }
    /* process the included file, then come back to this line */
    uint32_t file = j->file, line = j->line, llen = j->line_len;
    const char *ltext = j->line_text;
    j->inc[++j->depth] = (uint32_t)idx;
    process_file(j, (uint32_t)idx);
    j->depth--;
    j->file = file;
    j->line = line;
    j->line_text = ltext;
    j->line_len = llen;
}

/* NAME "," KIND -- the start of .kernel and .arg.  Leaves the cursor on
 * KIND (an identifier) and returns both tokens. */
static bool name_comma_kind(Job *j, Lex *lx, const Tok *dir, const char *usage, Tok *nt, Tok *kt)
{
    *nt = lx->t;
    if (!name_ok(j, dir, nt, usage)) return false;
    lex_next(lx);
    if (!expect_comma(j, lx, dir, usage)) return false;
    *kt = lx->t;
    if (kt->kind != T_IDENT) return bad_args(j, dir, kt, usage);
    return true;
}

/* .kernel NAME, aiv|aic|mix -- false after reporting a broken line, with
 * *kind_out the kind when the line named one (else -1) */
static bool open_kernel(Job *j, Lex *lx, const Tok *dir, int *kind_out)
{
    static const char usage[] = "a name and a kind: .kernel NAME, aiv|aic|mix";
    Tok nt, kt;
    if (!name_comma_kind(j, lx, dir, usage, &nt, &kt)) return false;
    int kind = lex_ident_is(lx, "aiv") ? ASC_KERNEL_AIV : lex_ident_is(lx, "aic") ? ASC_KERNEL_AIC
             : lex_ident_is(lx, "mix") ? ASC_KERNEL_MIX : -1;
    *kind_out = kind;
    char buf[80];
    if (kind < 0) {
        job_err(j, ASC_DIAG_KERNEL_KIND, tok_loc(j, &kt), tok_str(&kt, buf, sizeof buf));
        return false;
    }
    lex_next(lx);
    if (!expect_eol(j, lx)) return false;
    finish_kernel(j);
    for (uint32_t i = 0; i < j->nkernels; i++)
        if (strlen(j->kernels[i].info.name) == nt.len && memcmp(j->kernels[i].info.name, nt.p, nt.len) == 0) {
            job_err(j, ASC_DIAG_KERNEL_DUP, tok_loc(j, &nt), tok_str(&nt, buf, sizeof buf));
            return false;
        }
    job_grow(j, (void **)&j->kernels, &j->capkernels, j->nkernels + 1, sizeof *j->kernels);
    Kernel *k = &j->kernels[j->nkernels];
    memset(k, 0, sizeof *k);
    memcpy(k->info.name, nt.p, nt.len);
    k->info.kind = (uint8_t)kind;
    k->loc = tok_loc(j, &nt);
    k->part = -1;
    j->cur = (int)j->nkernels++;
    if (kind != ASC_KERNEL_MIX) start_part(j, kind == ASC_KERNEL_AIV ? ASC_PART_AIV : ASC_PART_AIC, &nt);
    return true;
}

/* After a broken .kernel line: a nameless kernel that only collects the
 * body's errors, of the kind the line named (none: mix with the vector
 * program open, so bare instructions, .aic and .aiv all parse, and the
 * core-kind rules are not checked, as the kind is unknown). */
static void open_recovery(Job *j, int kind, const Tok *dir)
{
    finish_kernel(j);
    job_grow(j, (void **)&j->kernels, &j->capkernels, j->nkernels + 1, sizeof *j->kernels);
    Kernel *k = &j->kernels[j->nkernels];
    memset(k, 0, sizeof *k);
    k->info.kind = (uint8_t)(kind < 0 ? ASC_KERNEL_MIX : kind);
    k->loc = tok_loc(j, dir);
    k->part = -1;
    k->recovery = true;
    k->any_kind = kind < 0;
    j->cur = (int)j->nkernels++;
    if (kind != ASC_KERNEL_MIX) start_part(j, kind == ASC_KERNEL_AIC ? ASC_PART_AIC : ASC_PART_AIV, dir);
}

/* A broken .kernel line closes the kernel before it; its body is still
 * checked (open_recovery), every operand error reported, but the file
 * having no kernel is not (NO_KERNELS). */
static void dir_kernel(Job *j, Lex *lx, const Tok *dir)
{
    int kind = -1;
    j->bad_kernel = !open_kernel(j, lx, dir, &kind);
    if (j->bad_kernel) open_recovery(j, kind, dir);
}

/* .aic | .aiv -- start that program of the current mix kernel */
static void dir_part(Job *j, Lex *lx, const Tok *dir, int part)
{
    char msg[200], name[16];
    if (!expect_eol(j, lx)) return;
    tok_str(dir, name, sizeof name);
    if (j->cur < 0) {
        snprintf(msg, sizeof msg, "%s outside a kernel: it starts a program of a mix kernel", name);
        job_err(j, ASC_DIAG_MIX_PART, tok_loc(j, dir), msg);
        return;
    }
    Kernel *k = &j->kernels[j->cur];
    if (k->info.kind != ASC_KERNEL_MIX) {
        snprintf(msg, sizeof msg, "%s is only allowed in a mix kernel; '%s' is %s", name, k->info.name,
                 asc_kernel_kind_name(k->info.kind));
        job_err(j, ASC_DIAG_MIX_PART, tok_loc(j, dir), msg);
        return;
    }
    if (k->seen[part]) {
        snprintf(msg, sizeof msg, "%s is given twice in kernel '%s': each program of a mix kernel is one block",
                 name, k->info.name);
        job_err(j, ASC_DIAG_MIX_PART, tok_loc(j, dir), msg);
        return;
    }
    if (j->section != 0) {
        job_err(j, ASC_DIAG_WRONG_SECTION, tok_loc(j, dir), name, ".text");
        return;
    }
    start_part(j, part, dir);
}

static const char *dtype_list(void)
{
    return "f16, bf16, f32, s8, u8, s16, u16, s32, u32, s64, u64";
}

/* .arg NAME, gm, DTYPE | .arg NAME, int | .arg NAME, float */
static void dir_arg(Job *j, Lex *lx, const Tok *dir)
{
    static const char usage[] = "a name and a kind: .arg NAME, gm, DTYPE | .arg NAME, int | .arg NAME, float";
    char buf[80];
    if (j->cur < 0) {
        if (!j->bad_kernel) job_err(j, ASC_DIAG_NO_KERNEL, tok_loc(j, dir));
        return;
    }
    Tok nt, kt;
    if (!name_comma_kind(j, lx, dir, usage, &nt, &kt)) return;
    int kind = lex_ident_is(lx, "gm") ? ASC_ARG_GM : lex_ident_is(lx, "int") ? ASC_ARG_INT
             : lex_ident_is(lx, "float") ? ASC_ARG_FLOAT : -1;
    if (kind < 0) {
        job_err(j, ASC_DIAG_ARG_KIND, tok_loc(j, &kt), tok_str(&kt, buf, sizeof buf));
        return;
    }
    lex_next(lx);
    int dt = ASC_DT_NONE;
    if (kind == ASC_ARG_GM) {
        if (!expect_comma(j, lx, dir, usage)) return;
        Tok dtok = lx->t;
        if (dtok.kind != T_IDENT) {
            bad_args(j, dir, &dtok, usage);
            return;
        }
        dt = asc_dtype_lookup(dtok.p, dtok.len);
        if (dt < 0) {
            job_err(j, ASC_DIAG_ARG_DTYPE, tok_loc(j, &dtok), tok_str(&dtok, buf, sizeof buf), dtype_list());
            return;
        }
        lex_next(lx);
    }
    if (!expect_eol(j, lx)) return;
    AscKernelInfo *ki = &j->kernels[j->cur].info;
    for (uint32_t i = 0; i < ki->nargs; i++)
        if (strlen(ki->args[i].name) == nt.len && memcmp(ki->args[i].name, nt.p, nt.len) == 0) {
            job_err(j, ASC_DIAG_ARG_DUP, tok_loc(j, &nt), tok_str(&nt, buf, sizeof buf));
            return;
        }
    if (ki->nargs >= ASC_MAX_ARGS) {
        job_err(j, ASC_DIAG_ARG_COUNT, tok_loc(j, &nt), (unsigned)ASC_MAX_ARGS, (unsigned)ASC_MAX_ARGS - 1);
        return;
    }
    AscArgInfo *a = &ki->args[ki->nargs++];
    memset(a, 0, sizeof *a);
    memcpy(a->name, nt.p, nt.len);
    a->kind = (uint8_t)kind;
    a->dtype = (uint8_t)dt;
}

/* .uses ub|l1, BYTES */
static void dir_uses(Job *j, Lex *lx, const Tok *dir)
{
    static const char usage[] = "a buffer and a byte count: .uses ub, BYTES | .uses l1, BYTES";
    if (j->cur < 0) {
        if (!j->bad_kernel) job_err(j, ASC_DIAG_NO_KERNEL, tok_loc(j, dir));
        return;
    }
    bool ub = lex_ident_is(lx, "ub"), l1 = lex_ident_is(lx, "l1");
    if (!ub && !l1) {
        bad_args(j, dir, &lx->t, usage);
        return;
    }
    lex_next(lx);
    if (!expect_comma(j, lx, dir, usage)) return;
    int64_t v;
    Tok vt = lx->t;
    if (!const_expr(j, lx, "a .uses byte count", &v) || !expect_eol(j, lx)) return;
    int64_t hi = UINT32_MAX;
    if (j->cfg_ok) hi = j->cfg.v[ub ? ASC_KEY_UB_BYTES : ASC_KEY_L1_BYTES];
    if (v < 0 || v > hi) {
        job_err(j, ASC_DIAG_IMM_RANGE, job_loc(j, vt.col, lx->t.col - vt.col), ub ? "UB bytes" : "L1 bytes", 0LL,
                (long long)hi, (long long)v);
        return;
    }
    if (ub) j->kernels[j->cur].info.ub_bytes = (uint32_t)v;
    else j->kernels[j->cur].info.l1_bytes = (uint32_t)v;
}

/* .equ NAME, EXPR */
static void dir_equ(Job *j, Lex *lx, const Tok *dir)
{
    static const char usage[] = "a name and a value: .equ NAME, EXPR";
    Tok nt = lx->t;
    if (nt.kind != T_IDENT) {
        bad_args(j, dir, &nt, usage);
        return;
    }
    lex_next(lx);
    if (!expect_comma(j, lx, dir, usage)) return;
    int64_t v;
    if (!const_expr(j, lx, "an .equ value", &v) || !expect_eol(j, lx)) return;
    sym_define(j, &nt, SYM_EQU, v);
}

/* .align N -- N a power of two; pads .text with nop, .rodata with zeros */
static void dir_align(Job *j, Lex *lx, const Tok *dir)
{
    int64_t v;
    Tok vt = lx->t;
    if (vt.kind == T_EOL) {
        bad_args(j, dir, &vt, "a power of two: .align N");
        return;
    }
    if (!const_expr(j, lx, ".align", &v) || !expect_eol(j, lx)) return;
    if (v < 1 || v > ASM_MAX_ALIGN || (v & (v - 1))) {
        job_err(j, ASC_DIAG_ALIGN_VALUE, job_loc(j, vt.col, lx->t.col - vt.col), (unsigned)ASM_MAX_ALIGN, (long long)v);
        return;
    }
    if (j->section == 1) {
        while (j->ro % (uint32_t)v && !j->full) emit_rodata(j, 0, 1);
        return;
    }
    if (j->pc % (uint32_t)v == 0) return;
    if (!in_text_kernel(j, dir)) return;
    uint32_t nop;
    AscInsn in = {.op = ASC_OP_NOP};
    asc_encode(&in, &nop);
    while (j->pc % (uint32_t)v && !j->full) emit_word(j, nop, dir->col, false);
}

/* .byte/.half/.word/.dword EXPR ("," EXPR)* */
static void dir_int_data(Job *j, Lex *lx, const Tok *dir, unsigned size)
{
    char name[16], buf[32], what[80];
    tok_str(dir, name, sizeof name);
    if (j->section != 1) {
        job_err(j, ASC_DIAG_WRONG_SECTION, tok_loc(j, dir), name, ".rodata (switch with .rodata)");
        return;
    }
    for (;;) {
        Val x;
        bool ok = parse_expr(lx, &x);
        if (ok && size < 8 && !(x.fwd && j->pass == 1)) {
            int64_t lo = -((int64_t)1 << (8 * size - 1)), hi = ((int64_t)1 << (8 * size)) - 1;
            if (x.v < lo || x.v > hi) {
                snprintf(buf, sizeof buf, "%lld", (long long)x.v);
                snprintf(what, sizeof what, "%s (range [%lld, %lld])", name, (long long)lo, (long long)hi);
                job_err(j, ASC_DIAG_DATA_RANGE, x.loc, buf, what);
            }
        }
        emit_rodata(j, ok ? (uint64_t)x.v : 0, size);
        if (!ok) return;
        if (!lex_is(lx, ',')) break;
        lex_next(lx);
    }
    expect_eol(j, lx);
}

/* float := ("+" | "-")? (FLOAT | INT | "inf" | "nan") */
static void dir_float_data(Job *j, Lex *lx, const Tok *dir, unsigned mbits, unsigned ebits)
{
    char name[16], buf[80];
    tok_str(dir, name, sizeof name);
    unsigned size = (mbits + ebits + 1) / 8;
    if (j->section != 1) {
        job_err(j, ASC_DIAG_WRONG_SECTION, tok_loc(j, dir), name, ".rodata (switch with .rodata)");
        return;
    }
    for (;;) {
        bool neg = false;
        if (lex_is(lx, '-') || lex_is(lx, '+')) {
            neg = lex_is(lx, '-');
            lex_next(lx);
        }
        Tok t = lx->t;
        double d = 0;
        if (t.kind == T_INT) {
            d = (double)t.ival;
        } else if (t.kind == T_FLOAT) {
            char tmp[128];
            size_t n = 0;
            for (uint32_t i = 0; i < t.len && n + 1 < sizeof tmp; i++)
                if (t.p[i] != '_') tmp[n++] = t.p[i];
            tmp[n] = '\0';
            d = strtod(tmp, NULL);
        } else if (lex_ident_is(lx, "inf")) {
            d = HUGE_VAL;
        } else if (lex_ident_is(lx, "nan")) {
            d = NAN;
        } else {
            if (t.kind != T_ERR)
                job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &t), "a float literal (1.5, -2e-3, inf, nan)",
                        tok_desc(&t, buf, sizeof buf));
            emit_rodata(j, 0, size);
            return;
        }
        if (neg) d = -d;
        emit_rodata(j, float_bits(d, mbits, ebits), size);
        lex_next(lx);
        if (!lex_is(lx, ',')) break;
        lex_next(lx);
    }
    expect_eol(j, lx);
}

/* .loc "FILE", LINE [, COL] */
static void dir_loc(Job *j, Lex *lx)
{
    Tok start = lx->t;
    if (start.kind != T_STR) goto bad;
    char *file = string_value(j, &start);
    lex_next(lx);
    if (!lex_is(lx, ',')) goto bad;
    lex_next(lx);
    int64_t line, col = 0;
    if (!const_expr(j, lx, "a .loc line", &line)) return;
    if (lex_is(lx, ',')) {
        lex_next(lx);
        if (!const_expr(j, lx, "a .loc column", &col)) return;
    }
    if (!expect_eol(j, lx)) return;
    if (line < 1 || line > UINT32_MAX || col < 0 || col > UINT32_MAX) goto bad;
    j->loc_on = true;
    j->loc_line = (uint32_t)line;
    j->loc_col = (uint32_t)col;
    if (j->pass == 2) j->loc_file = ofile_index(j, file);
    return;
bad:
    if (lx->t.kind != T_ERR) job_err(j, ASC_DIAG_LOC_FORMAT, tok_loc(j, start.kind == T_EOL ? &lx->t : &start));
}

/* .target NAME */
static void dir_target(Job *j, Lex *lx, const Tok *dir)
{
    Tok t = lx->t;
    if (t.kind != T_IDENT && t.kind != T_STR) {
        bad_args(j, dir, &t, "a target name: .target ascend910b");
        return;
    }
    char *name = t.kind == T_STR ? string_value(j, &t) : job_strndup(j, t.p, t.len);
    lex_next(lx);
    if (!expect_eol(j, lx)) return;
    if (j->pass == 1) {
        if (!j->file_target) j->file_target = name, j->file_target_loc = tok_loc(j, &t);
        return;
    }
    AscLoc l = tok_loc(j, &t);
    if (strcmp(name, j->file_target) != 0) {
        job_err(j, ASC_DIAG_TARGET_MISMATCH, l, name, "this .target", j->file_target, "an earlier .target");
        return;
    }
    if (j->as->target && strcmp(j->as->target, name) != 0) {
        job_err(j, ASC_DIAG_TARGET_MISMATCH, l, name, ".target", j->as->target, "--target");
        return;
    }
}

static void directive(Job *j, Lex *lx)
{
    Tok dir = lx->t;
    char name[40];
    lex_next(lx);
#define IS(s) (dir.len == sizeof(s) - 1 && memcmp(dir.p, s, dir.len) == 0)
    if (IS(".kernel")) dir_kernel(j, lx, &dir);
    else if (IS(".aic")) dir_part(j, lx, &dir, ASC_PART_AIC);
    else if (IS(".aiv")) dir_part(j, lx, &dir, ASC_PART_AIV);
    else if (IS(".arg")) dir_arg(j, lx, &dir);
    else if (IS(".uses")) dir_uses(j, lx, &dir);
    else if (IS(".equ")) dir_equ(j, lx, &dir);
    else if (IS(".align")) dir_align(j, lx, &dir);
    else if (IS(".text") || IS(".rodata")) {
        if (expect_eol(j, lx)) j->section = IS(".rodata");
    }
    else if (IS(".byte")) dir_int_data(j, lx, &dir, 1);
    else if (IS(".half")) dir_int_data(j, lx, &dir, 2);
    else if (IS(".word")) dir_int_data(j, lx, &dir, 4);
    else if (IS(".dword")) dir_int_data(j, lx, &dir, 8);
    else if (IS(".float16")) dir_float_data(j, lx, &dir, 10, 5);
    else if (IS(".bfloat16")) dir_float_data(j, lx, &dir, 7, 8);
    else if (IS(".float")) dir_float_data(j, lx, &dir, 23, 8);
    else if (IS(".include")) dir_include(j, lx, &dir);
    else if (IS(".loc")) dir_loc(j, lx);
    else if (IS(".target")) dir_target(j, lx, &dir);
    else job_err(j, ASC_DIAG_UNKNOWN_DIRECTIVE, tok_loc(j, &dir), tok_str(&dir, name, sizeof name));
#undef IS
}

/* ---- statements ---------------------------------------------------------- */

/* line      := (label ":")* statement? comment?
 * statement := directive args | mnemonic operands
 * comment   := (";" | "//") any* */
static void process_line(Job *j, const char *text, uint32_t len)
{
    Lex lx;
    j->seq++;
    j->line_text = text;
    j->line_len = len;
    j->stmt_pc = j->section == 0 ? j->pc : j->ro;
    lex_init(&lx, j, text, len);
    while (lx.t.kind == T_IDENT && lex_peek(&lx).kind == T_PUNCT && lex_peek(&lx).punct == ':') {
        Tok lt = lx.t;
        if (j->section == 0) sym_define(j, &lt, SYM_TEXT, j->pc);
        else sym_define(j, &lt, SYM_RODATA, (int64_t)(ASC_GM_RODATA_BASE + j->ro));
        lex_next(&lx);
        lex_next(&lx);
    }
    j->stmt_col = lx.t.col;
    if (lx.t.kind == T_EOL || lx.t.kind == T_ERR) return;
    if (lx.t.kind == T_IDENT && lx.t.p[0] == '.' && lx.t.len > 1) {
        directive(j, &lx);
    } else if (lx.t.kind == T_IDENT) {
        asm_insn(j, &lx);
    } else {
        char buf[80];
        job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &lx.t), "an instruction, a directive or a label",
                tok_desc(&lx.t, buf, sizeof buf));
    }
}

static void process_file(Job *j, uint32_t idx)
{
    const char *text = j->as->files[idx].text;
    size_t len = j->as->files[idx].len, pos = 0;
    uint32_t line = 0;
    while (pos < len && !j->stop) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        j->file = idx;
        j->line = ++line;
        process_line(j, text + pos, (uint32_t)(end - pos));
        pos = end + 1;
    }
}

static void run_pass(Job *j, uint32_t main_idx, int pass)
{
    j->pass = pass;
    j->seq = 0;
    j->section = 0;
    j->pc = j->ro = 0;
    j->full = false;
    j->bad_kernel = false;
    j->nkernels = 0;
    j->cur = -1;
    j->loc_on = false;
    j->nlines = 0;
    j->nofiles = 0;
    j->depth = 0;
    j->inc[0] = main_idx;
    process_file(j, main_idx);
    if (j->stop) return;
    finish_kernel(j);
    if (j->nkernels == 0 && !j->bad_kernel) {
        AscLoc file = {j->as->files[main_idx].path, 0, 0, 0};
        job_err(j, ASC_DIAG_NO_KERNELS, file);
    }
}

/* Resolve the target between the passes: --target wins when given (a
 * different .target is reported in pass 2), else .target, else the default. */
static void resolve_target(Job *j)
{
    const char *name = j->as->target ? j->as->target : j->file_target ? j->file_target : ASC_DEFAULT_TARGET;
    AscDiags tmp;
    asc_diags_init(&tmp, &j->as->alloc);
    j->cfg_ok = asc_config_named(&j->cfg, name, &tmp);
    /* why the profile did not load (unknown, or a bad $ASC_CONFIG_DIR file: the messages name the
     * file and key), at the .target that named it when --target did not */
    AscLoc at = j->as->target || !j->file_target ? (AscLoc){0} : j->file_target_loc;
    for (uint32_t i = 0; !j->cfg_ok && i < tmp.count; i++)
        asc_diag_text(j->d, tmp.items[i].id, tmp.items[i].sev, at, tmp.items[i].msg);
    if (!j->cfg_ok && !tmp.count) asc_diag(j->d, ASC_DIAG_UNKNOWN_TARGET, at, name, asc_config_builtin_list());
    asc_diags_free(&tmp);
}

/* ---- the image -------------------------------------------------------------- */

static bool fill_image(Job *j, AscImage *out)
{
    const AscAlloc *a = &out->alloc;
    AscImage img;
    asc_image_init(&img, a);
    snprintf(img.target, sizeof img.target, "%s", j->cfg.name[0] ? j->cfg.name : ASC_DEFAULT_TARGET);
    img.text_words = j->pc / 4;
    img.rodata_size = j->ro;
    img.nkernels = j->nkernels;
    img.nlines = j->nlines;
    img.text = img.text_words ? asc_malloc(a, img.text_words * sizeof *img.text) : NULL;
    img.rodata = img.rodata_size ? asc_malloc(a, img.rodata_size) : NULL;
    img.kernels = img.nkernels ? asc_calloc(a, img.nkernels, sizeof *img.kernels) : NULL;
    img.lines = img.nlines ? asc_malloc(a, img.nlines * sizeof *img.lines) : NULL;
    img.files = j->nofiles ? asc_calloc(a, j->nofiles, sizeof *img.files) : NULL;
    bool ok = (img.text || !img.text_words) && (img.rodata || !img.rodata_size) && (img.kernels || !img.nkernels) &&
              (img.lines || !img.nlines) && (img.files || !j->nofiles);
    if (ok) {
        for (uint32_t i = 0; i < j->nofiles && ok; i++) {
            img.files[i] = asc_strdup(a, j->ofiles[i]);
            if (img.files[i]) img.nfiles = i + 1;
            else ok = false;
        }
    }
    if (!ok) {
        /* asc_image_free frees files[0..nfiles) and the arrays */
        asc_image_free(&img);
        return false;
    }
    if (img.text_words) memcpy(img.text, j->text, img.text_words * sizeof *img.text);
    if (img.rodata_size) memcpy(img.rodata, j->rodata, img.rodata_size);
    for (uint32_t i = 0; i < j->nkernels; i++) img.kernels[i] = j->kernels[i].info;
    if (img.nlines) memcpy(img.lines, j->lines, img.nlines * sizeof *img.lines);
    asc_image_free(out);
    *out = img;
    return true;
}

static void job_free(Job *j)
{
    const AscAlloc *a = &j->as->alloc;
    while (j->arena) {
        ArenaBlock *n = j->arena->next;
        asc_free(a, j->arena);
        j->arena = n;
    }
    asc_free(a, j->syms);
    asc_free(a, j->text);
    asc_free(a, j->rodata);
    asc_free(a, j->lines);
    asc_free(a, j->ofiles);
    asc_free(a, j->kernels);
}

/* Assemble the cached file `main_idx`: pass 1, the target, pass 2, the image. */
static bool run_job(AscAsm *as, uint32_t main_idx, AscImage *out)
{
    AscLoc none = {0};
    Job *j = asc_calloc(&as->alloc, 1, sizeof *j);
    if (!j) {
        asc_diag(&as->diags, ASC_DIAG_OOM, none);
        return false;
    }
    j->as = as;
    j->d = &as->diags;
    bool ok = false;
    if (setjmp(j->oom) == 0) {
        run_pass(j, main_idx, 1);
        resolve_target(j);
        run_pass(j, main_idx, 2);
        ok = !asc_diags_has_errors(j->d);
        if (ok && !fill_image(j, out)) {
            asc_diag(j->d, ASC_DIAG_OOM, none);
            ok = false;
        }
    } else {
        asc_diag(j->d, ASC_DIAG_OOM, none);
        ok = false;
    }
    job_free(j);
    asc_free(&as->alloc, j);
    return ok;
}

/* ---- public API ------------------------------------------------------------ */

AscAsm *asc_asm_new(const AscAsmDesc *desc)
{
    AscAsmDesc dd = {0};
    if (desc) dd = *desc;
    AscAlloc a = asc_alloc_resolve(dd.alloc);
    AscAsm *as = asc_calloc(&a, 1, sizeof *as);
    if (!as) return NULL;
    as->alloc = a;
    as->desc = dd;
    as->desc.alloc = NULL;
    as->desc.target = NULL;
    if (dd.target) {
        as->target = asc_strdup(&a, dd.target);
        if (!as->target) {
            asc_free(&a, as);
            return NULL;
        }
    }
    asc_diags_init(&as->diags, &as->alloc);
    as->diags.werror = dd.werror;
    as->diags.max_errors = dd.max_errors;
    return as;
}

void asc_asm_free(AscAsm *as)
{
    if (!as) return;
    AscAlloc a = as->alloc;
    files_clear(as);
    asc_free(&a, as->files);
    asc_diags_free(&as->diags);
    asc_free(&a, as->target);
    asc_free(&a, as);
}

static void reset(AscAsm *as)
{
    asc_diags_free(&as->diags);
    asc_diags_init(&as->diags, &as->alloc);
    as->diags.werror = as->desc.werror;
    as->diags.max_errors = as->desc.max_errors;
    files_clear(as);
}

bool asc_asm_file(AscAsm *as, const char *path, AscImage *out)
{
    reset(as);
    size_t len = 0;
    const char *why = "cannot be read";
    AscReadFileFn rd = as->desc.read_file ? as->desc.read_file : read_real_file;
    char *text = rd(as->desc.read_ud, &as->alloc, path, &len, &why);
    if (text && len >= UINT32_MAX) {
        asc_free(&as->alloc, text);
        text = NULL;
        why = "file too large";
    }
    if (!text) {
        AscLoc none = {0};
        if (why && strcmp(why, "out of memory") == 0) asc_diag(&as->diags, ASC_DIAG_OOM, none);
        else asc_diag(&as->diags, ASC_DIAG_IO, none, "read", path, why ? why : "cannot be read");
        return false;
    }
    int idx = files_add(as, path, text, len);
    if (idx < 0) {
        AscLoc none = {0};
        asc_diag(&as->diags, ASC_DIAG_OOM, none);
        return false;
    }
    return run_job(as, (uint32_t)idx, out);
}

bool asc_asm_string(AscAsm *as, const char *name, const char *text, size_t len, AscImage *out)
{
    reset(as);
    AscLoc none = {0};
    if (len >= UINT32_MAX) {
        asc_diag(&as->diags, ASC_DIAG_IO, none, "read", name, "file too large");
        return false;
    }
    /* the caller keeps `text`; we copy it so diagnostics can quote it later */
    char *copy = asc_malloc(&as->alloc, len ? len : 1);
    if (!copy) {
        asc_diag(&as->diags, ASC_DIAG_OOM, none);
        return false;
    }
    if (len) memcpy(copy, text, len);
    int idx = files_add(as, name, copy, len);
    if (idx < 0) {
        asc_diag(&as->diags, ASC_DIAG_OOM, none);
        return false;
    }
    return run_job(as, (uint32_t)idx, out);
}

AscDiags *asc_asm_diags(AscAsm *as) { return &as->diags; }

const char *asc_asm_input(const AscAsm *as, uint32_t i) { return i < as->nfiles ? as->files[i].path : NULL; }

const char *asc_asm_source_line(void *ud, const char *file, uint32_t line, uint32_t *len)
{
    AscAsm *as = ud;
    if (!as || !file || !line) return NULL;
    for (uint32_t i = 0; i < as->nfiles; i++) {
        const SrcFile *f = &as->files[i];
        if (!f->text || (f->path != file && strcmp(f->path, file) != 0)) continue;
        size_t pos = 0;
        for (uint32_t l = 1; l < line; l++) {
            const char *nl = memchr(f->text + pos, '\n', f->len - pos);
            if (!nl) return NULL;
            pos = (size_t)(nl - f->text) + 1;
        }
        if (pos > f->len || (pos == f->len && line > 1)) return NULL;
        const char *nl = memchr(f->text + pos, '\n', f->len - pos);
        size_t end = nl ? (size_t)(nl - f->text) : f->len;
        if (end > pos && f->text[end - 1] == '\r') end--;
        *len = (uint32_t)(end - pos);
        return f->text + pos;
    }
    return NULL;
}
