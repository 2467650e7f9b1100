/* diag.c -- recording and printing diagnostics (see asc/diag.h).
 *
 * Users: every libasc module records through asc_diag; every CLI prints
 * through asc_diags_print.  The message formats come from asc_diag.def;
 * errors past the cap are counted, not stored; an allocation failure while
 * recording sets `oom` instead of losing the count. */
#include "asc/diag.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    AscSev sev;
    const char *fmt;
} diag_table[ASC_DIAG_COUNT] = {
#define ASC_DIAG(id, sev, fmt) [ASC_DIAG_##id] = {#id, ASC_SEV_##sev, fmt},
#include "asc_diag.def"
#undef ASC_DIAG
};

void asc_diags_init(AscDiags *d, const AscAlloc *alloc)
{
    memset(d, 0, sizeof *d);
    d->alloc = asc_alloc_resolve(alloc);
}

void asc_diags_free(AscDiags *d)
{
    for (uint32_t i = 0; i < d->count; i++) asc_free(&d->alloc, d->items[i].msg);
    asc_free(&d->alloc, d->items);
    d->items = NULL;
    d->count = d->cap = 0;
}

static void store(AscDiags *d, AscDiagId id, AscSev sev, AscLoc loc, const char *text)
{
    if (sev == ASC_SEV_WARNING && d->werror) sev = ASC_SEV_ERROR;
    uint32_t cap = d->max_errors ? d->max_errors : 50;
    if (sev == ASC_SEV_ERROR) {
        d->nerrors++;
        if (d->nerrors > cap) return; /* counted, not stored */
    } else if (sev == ASC_SEV_WARNING) {
        d->nwarnings++;
    }
    if (d->count == d->cap) {
        uint32_t ncap = d->cap ? d->cap * 2 : 16;
        AscDiag *n = asc_realloc(&d->alloc, d->items, d->cap * sizeof *n, ncap * sizeof *n);
        if (!n) {
            d->oom = true;
            return;
        }
        d->items = n;
        d->cap = ncap;
    }
    char *msg = asc_strdup(&d->alloc, text);
    if (!msg) {
        d->oom = true;
        return;
    }
    d->items[d->count++] = (AscDiag){id, sev, loc, msg};
}

static void record(AscDiags *d, AscDiagId id, AscSev sev, AscLoc loc, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, diag_table[id].fmt, ap);
    store(d, id, sev, loc, buf);
}

void asc_diag_text(AscDiags *d, AscDiagId id, AscSev sev, AscLoc loc, const char *msg)
{
    store(d, id < ASC_DIAG_COUNT ? id : ASC_DIAG_CONFIG, sev, loc, msg ? msg : "?");
}

void asc_vdiag(AscDiags *d, AscDiagId id, AscLoc loc, va_list ap)
{
    record(d, id, diag_table[id].sev, loc, ap);
}

void asc_diag(AscDiags *d, AscDiagId id, AscLoc loc, ...)
{
    va_list ap;
    va_start(ap, loc);
    record(d, id, diag_table[id].sev, loc, ap);
    va_end(ap);
}

void asc_diag_sev(AscDiags *d, AscDiagId id, AscSev sev, AscLoc loc, ...)
{
    va_list ap;
    va_start(ap, loc);
    record(d, id, sev, loc, ap);
    va_end(ap);
}

bool asc_diags_has_errors(const AscDiags *d) { return d->nerrors > 0 || d->oom; }

const char *asc_diag_id_name(AscDiagId id) { return id < ASC_DIAG_COUNT ? diag_table[id].name : "?"; }

const char *asc_sev_name(AscSev sev)
{
    switch (sev) {
    case ASC_SEV_NOTE: return "note";
    case ASC_SEV_WARNING: return "warning";
    case ASC_SEV_ERROR: return "error";
    }
    return "?";
}

/* The quoted source line and its caret.  Control characters (a NUL, an ESC
 * from a binary file) print as '?' so they cannot garble the terminal; a
 * tab stays a tab, under the line too, so the caret lines up; UTF-8
 * continuation bytes take no column.  Columns and lengths are in bytes. */
static void print_excerpt(FILE *out, const char *text, uint32_t len, const AscLoc *loc)
{
    fputs("    ", out);
    for (uint32_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : '?', out);
    }
    fputc('\n', out);
    if (!loc->col) return;
    fputs("    ", out);
    for (uint32_t c = 1; c < loc->col && c <= len; c++) {
        unsigned char ch = (unsigned char)text[c - 1];
        if ((ch & 0xc0) != 0x80) fputc(ch == '\t' ? '\t' : ' ', out);
    }
    fputc('^', out);
    for (uint32_t c = loc->col + 1; c < loc->col + loc->len; c++)
        if (c > len || ((unsigned char)text[c - 1] & 0xc0) != 0x80) fputc('~', out);
    fputc('\n', out);
}

void asc_diags_print(const AscDiags *d, FILE *out, AscSourceLineFn source_line, void *ud)
{
    for (uint32_t i = 0; i < d->count; i++) {
        const AscDiag *g = &d->items[i];
        if (g->loc.file && g->loc.line && g->loc.col)
            fprintf(out, "%s:%u:%u: ", g->loc.file, g->loc.line, g->loc.col);
        else if (g->loc.file && g->loc.line)
            fprintf(out, "%s:%u: ", g->loc.file, g->loc.line);
        else if (g->loc.file)
            fprintf(out, "%s: ", g->loc.file);
        fprintf(out, "%s: %s\n", asc_sev_name(g->sev), g->msg);
        uint32_t len = 0;
        const char *text = (source_line && g->loc.file && g->loc.line)
                               ? source_line(ud, g->loc.file, g->loc.line, &len)
                               : NULL;
        if (text) print_excerpt(out, text, len, &g->loc);
    }
    uint32_t cap = d->max_errors ? d->max_errors : 50;
    if (d->nerrors > cap) fprintf(out, "error: too many errors (%u), only the first %u are shown\n", d->nerrors, cap);
    if (d->oom) fprintf(out, "error: out of memory while recording diagnostics\n");
}
