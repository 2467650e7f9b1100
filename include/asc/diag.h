/* diag.h -- diagnostics: the library reports, the CLI decides.
 *
 * libasc never prints and never exits.  Every module appends AscDiag values
 * to an AscDiags list owned by the caller and returns a status.  Each
 * diagnostic has a stable ID from isa/asc_diag.def (tests match on IDs), a
 * severity, a source location (file may be NULL for binary-level problems)
 * and a message that states the rule that was broken.
 *
 * The list owns its message strings; asc_diags_free releases them. */
#ifndef ASC_DIAG_H
#define ASC_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "asc/alloc.h"

typedef enum AscDiagId {
#define ASC_DIAG(id, sev, fmt) ASC_DIAG_##id,
#include "asc_diag.def"
#undef ASC_DIAG
    ASC_DIAG_COUNT
} AscDiagId;

typedef enum AscSev { ASC_SEV_NOTE, ASC_SEV_WARNING, ASC_SEV_ERROR } AscSev;

typedef struct AscLoc {
    const char *file; /* not owned: points into the owning context's file table */
    uint32_t line;    /* 1-based; 0 = no line */
    uint32_t col;     /* 1-based; 0 = no column */
    uint32_t len;     /* length of the underlined span, >= 1 when col > 0 */
} AscLoc;

typedef struct AscDiag {
    AscDiagId id;
    AscSev sev;
    AscLoc loc;
    char *msg; /* owned by the AscDiags list */
} AscDiag;

typedef struct AscDiags {
    AscAlloc alloc;
    AscDiag *items;
    uint32_t count, cap;
    uint32_t nerrors, nwarnings;
    uint32_t max_errors;   /* 0 = default cap (50); further errors are counted, not stored */
    bool werror;           /* promote warnings to errors */
    bool oom;              /* an allocation failed while recording: nerrors is still right */
} AscDiags;

void asc_diags_init(AscDiags *d, const AscAlloc *alloc);
void asc_diags_free(AscDiags *d);
/* Record a diagnostic; the message format comes from asc_diag.def for `id`. */
void asc_diag(AscDiags *d, AscDiagId id, AscLoc loc, ...);
void asc_vdiag(AscDiags *d, AscDiagId id, AscLoc loc, va_list ap);
/* Same, with an explicit severity (used for notes attached to an error). */
void asc_diag_sev(AscDiags *d, AscDiagId id, AscSev sev, AscLoc loc, ...);
/* Record an already formatted message under `id` (relaying another list's diagnostic to a new
 * place: the message is copied). */
void asc_diag_text(AscDiags *d, AscDiagId id, AscSev sev, AscLoc loc, const char *msg);
bool asc_diags_has_errors(const AscDiags *d);
const char *asc_diag_id_name(AscDiagId id); /* "IMM_RANGE" */
const char *asc_sev_name(AscSev sev);        /* "error" */

/* Print diagnostics the way every CLI does:
 *   file:line:col: error: message
 *       source line
 *       ^~~~
 * `source_line` may be NULL (no excerpt); it returns the text of a line of a file. */
typedef const char *(*AscSourceLineFn)(void *ud, const char *file, uint32_t line, uint32_t *len);
void asc_diags_print(const AscDiags *d, FILE *out, AscSourceLineFn source_line, void *ud);

#endif
