/* alloc.c -- the default allocator and the helpers every module uses. */
#include "asc/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *std_alloc(void *ud, size_t size)
{
    (void)ud;
    return malloc(size ? size : 1);
}

static void std_free(void *ud, void *ptr)
{
    (void)ud;
    free(ptr);
}

AscAlloc asc_alloc_resolve(const AscAlloc *a)
{
    if (a && a->alloc && a->free) return *a;
    AscAlloc d = {std_alloc, std_free, NULL};
    return d;
}

bool asc_alloc_is_default(const AscAlloc *a) { return asc_alloc_resolve(a).alloc == std_alloc; }

void *asc_malloc(const AscAlloc *a, size_t size)
{
    AscAlloc r = asc_alloc_resolve(a);
    return r.alloc(r.ud, size);
}

/* With the default allocator, calloc and realloc are libc's own: calloc takes
 * fresh pages already zero (no memset touching each one) and realloc may grow a
 * block in place or by remapping its pages (no copy, no fresh pages): the
 * critical-path recorder (run/explain.c) grows a 20 MB event array by doubling. */
void *asc_calloc(const AscAlloc *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    /* the default allocator: calloc, which leaves memory fresh from the kernel untouched (a
     * core's 192 KB UB costs no page until it is used, and no memset before the run) */
    if (asc_alloc_is_default(a)) return calloc(1, n * size > 0 ? n * size : 1);
    void *p = asc_malloc(a, n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void *asc_realloc(const AscAlloc *a, void *ptr, size_t old_size, size_t new_size)
{
    if (asc_alloc_is_default(a)) return realloc(ptr, new_size ? new_size : 1); /* NULL leaves ptr, as below */
    void *p = asc_malloc(a, new_size);
    if (!p) return NULL;
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        asc_free(a, ptr);
    }
    return p;
}

void asc_free(const AscAlloc *a, void *ptr)
{
    if (!ptr) return;
    AscAlloc r = asc_alloc_resolve(a);
    r.free(r.ud, ptr);
}

char *asc_strdup(const AscAlloc *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = asc_malloc(a, n);
    if (p) memcpy(p, s, n);
    return p;
}
