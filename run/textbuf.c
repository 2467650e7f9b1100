/* textbuf.c -- the growing text buffer of run/textbuf.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* Room for `need` more bytes and the NUL after them; false (sticky oom) when it cannot grow. */
static bool tb_room(TextBuf *b, size_t need)
{
    if (b->oom) return false;
    if (b->p && b->n + need < b->cap) return true;
    size_t nc = b->cap ? b->cap * 2 : 4096;
    while (nc < b->n + need + 1) nc *= 2;
    char *np = asc_realloc(b->a, b->p, b->cap, nc);
    if (!np) {
        b->oom = true;
        return false;
    }
    b->p = np, b->cap = nc;
    return true;
}

void tb_str(TextBuf *b, const char *s)
{
    size_t len = strlen(s);
    if (!tb_room(b, len)) return;
    memcpy(b->p + b->n, s, len + 1);
    b->n += len;
}

void tb_u64(TextBuf *b, uint64_t v)
{
    char d[24];
    size_t k = sizeof d;
    d[--k] = 0;
    do d[--k] = (char)('0' + v % 10);
    while (v /= 10);
    tb_str(b, d + k);
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
