/* alloc.h -- the pluggable allocator every libasc context takes.
 *
 * Users: every module of libasc.  A zero AscAlloc means "use malloc/free",
 * so callers that do not care pass NULL or a zeroed struct.  Tests pass an
 * allocator that fails after N calls to check every error path (Lua's
 * debug_realloc idea). */
#ifndef ASC_ALLOC_H
#define ASC_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct AscAlloc {
    void *(*alloc)(void *ud, size_t size); /* NULL result = out of memory */
    void (*free)(void *ud, void *ptr);
    void *ud;
} AscAlloc;

/* Resolve a possibly-NULL or zeroed allocator to a usable one. */
AscAlloc asc_alloc_resolve(const AscAlloc *a);
/* true when a (possibly NULL) resolves to the default malloc/free: then a module may get big
 * zeroed memory another way (sim/gm.c: huge-page slabs) without bypassing a caller's allocator. */
bool asc_alloc_is_default(const AscAlloc *a);
void *asc_malloc(const AscAlloc *a, size_t size);
void *asc_calloc(const AscAlloc *a, size_t n, size_t size); /* checks n*size overflow */
void *asc_realloc(const AscAlloc *a, void *ptr, size_t old_size, size_t new_size);
void asc_free(const AscAlloc *a, void *ptr);
char *asc_strdup(const AscAlloc *a, const char *s);

#endif
