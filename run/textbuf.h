/* textbuf.h -- a growing text buffer for the run/ writers (report.c, diff.c).
 * Internal to run/.  Out of memory is sticky: every later tb_put does nothing
 * and tb_done returns NULL (after freeing), so writers need no error check
 * after each line. */
#ifndef ASC_RUN_TEXTBUF_H
#define ASC_RUN_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asc/alloc.h"

typedef struct TextBuf {
    const AscAlloc *a;
    char *p;
    size_t n, cap;
    bool oom;
} TextBuf;

/* printf onto b: format into the free space; when it does not fit, grow
 * (doubling, at least 4 KB) and format again. */
void tb_put(TextBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* tb_put(b, "%s", s) and tb_put(b, "%llu", v), byte for byte, without the printf machinery
 * (the report's JSON writes ~10 pieces per critical-path segment). */
void tb_str(TextBuf *b, const char *s);
void tb_u64(TextBuf *b, uint64_t v);
/* The text (owned by the caller, freed with b->a), "" when nothing was put;
 * NULL when out of memory. */
char *tb_done(TextBuf *b);

#endif
