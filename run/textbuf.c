/* textbuf.c -- the growing text buffer of run/textbuf.h. */
#include <stdarg.h>
#include <stdio.h>

#include "textbuf.h"

void tb_put(TextBuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int need = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (need < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->n + (size_t)need < b->cap) {
            b->n += (size_t)need;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->n + (size_t)need + 1) nc *= 2;
        char *np = asc_realloc(b->a, b->p, b->cap, nc);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np, b->cap = nc;
    }
}

char *tb_done(TextBuf *b)
{
    if (b->oom) {
        asc_free(b->a, b->p);
        return NULL;
    }
    if (!b->p) tb_put(b, "%s", "");
    return b->oom ? NULL : b->p;
}
