/* gm.c -- global memory (HBM): a large address space backed lazily.
 *
 * Users: the exec functions (DMA, fixpipe), the engine (kernel arguments,
 * scalar loads and stores), tests.
 *
 * Layout: 64 KiB pages in a two-level table.  The top level (allocated at
 * creation, one pointer per 4096 pages = per 256 MiB) points at leaf tables
 * of 4096 page pointers; leaves and pages are allocated on the first WRITE
 * that touches them.  Reading a byte that was never written gives 0 and
 * allocates nothing.  Lookups index arrays only, so nothing depends on a
 * hash order.  A 1 TiB space costs 32 KiB of top level up front.
 *
 * Written marks: a leaf also holds one byte per page, set by every asc_gm_write(_nosync) that
 * touches the page (a relaxed atomic store: workers write GM at the same time, sim/pool.c) and
 * read by asc_gm_written; asc_gm_set_written sets or clears them for host copies that do not
 * count (sim.c: a write before the first asc_sim_run is the host's, not the kernel's).  Only
 * an allocated page can be marked: every write allocates its pages first.
 *
 * Invariants: every allocated page is zero-filled before use, except a page whose first write
 * covers all of it (asc_gm_write: then no byte of it is read before being written);
 * backed_bytes == 64 KiB * pages allocated (leaf tables are not counted:
 * they are bookkeeping, not GM data). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise (before any system header) */
#endif
#include <stdatomic.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#define GM_SLABS 1
#endif

#include "asc/alloc.h"
#include "sim_exec.h"

#define PAGE_SHIFT 16u               /* 64 KiB pages */
#define PAGE_BYTES (1u << PAGE_SHIFT)
#define LEAF_SHIFT 12u               /* 4096 pages per leaf table */
#define LEAF_PAGES (1u << LEAF_SHIFT)
/* With the default allocator on Linux, pages come from 2 MiB slabs (32 pages, one
 * 2 MiB-aligned anonymous mapping each, madvise MADV_HUGEPAGE): the kernel maps them with
 * transparent huge pages where it can, so a 16 MB tensor costs 8 page faults instead of
 * 4096 (a 24-core vadd of 3 x 25 MB spent about half its system time in faults).  A slab is
 * zero when mapped; its pages are handed out as before (backed_bytes still counts 64 KiB
 * pages; the process RSS may round up to the slab).  A caller's own AscAlloc is used as is. */
#define SLAB_PAGES 32u
#define SLAB_BYTES ((size_t)SLAB_PAGES * PAGE_BYTES)
#define LEAF_SLABS (LEAF_PAGES / SLAB_PAGES) /* leaf[LEAF_PAGES + s]: slab s of the leaf */
/* a leaf table: LEAF_PAGES page pointers, LEAF_SLABS slab pointers, then LEAF_PAGES marks */
#define LEAF_BYTES ((LEAF_PAGES + LEAF_SLABS) * sizeof(uint8_t *) + LEAF_PAGES * sizeof(_Atomic uint8_t))

/* the written marks of a leaf table, one per page */
static _Atomic uint8_t *marks_of(uint8_t **leaf) { return (_Atomic uint8_t *)(void *)(leaf + LEAF_PAGES + LEAF_SLABS); }

/* Mark page p of leaf as written: a load first, so pages marked already (nearly every write
 * after a page's first) cost no store to a cache line other threads read. */
static void mark_written(uint8_t **leaf, uint32_t p)
{
    _Atomic uint8_t *m = &marks_of(leaf)[p];
    if (!atomic_load_explicit(m, memory_order_relaxed)) atomic_store_explicit(m, 1, memory_order_relaxed);
}

struct AscGm {
    AscAlloc alloc;
    uint64_t size_bytes;
    uint64_t ntop;        /* top-level entries */
    uint8_t ***top;       /* top[t][p] = page or NULL */
    uint64_t pages;       /* pages allocated */
    bool slabs;           /* pages from huge-page slabs (default allocator, Linux) */
    /* host threads (sim/pool.c): waits for worker jobs on an overlapping range; NULL = none */
    void (*sync)(void *ud, uint64_t lo, uint64_t hi, bool write, bool collect);
    void *sync_ud;
};

void asc_gm_set_sync(AscGm *gm, void (*sync)(void *ud, uint64_t lo, uint64_t hi, bool write, bool collect),
                     void *ud)
{
    gm->sync = sync;
    gm->sync_ud = ud;
}

void asc_gm_sync(AscGm *gm, uint64_t lo, uint64_t hi, bool write)
{
    if (gm->sync) gm->sync(gm->sync_ud, lo, hi, write, true);
}

AscGm *asc_gm_new(const AscAlloc *alloc, uint64_t size_bytes)
{
    AscGm *gm = asc_calloc(alloc, 1, sizeof *gm);
    if (!gm) return NULL;
    gm->alloc = asc_alloc_resolve(alloc);
#ifdef GM_SLABS
    gm->slabs = asc_alloc_is_default(alloc);
#endif
    gm->size_bytes = size_bytes;
    uint64_t npages = (size_bytes + PAGE_BYTES - 1) >> PAGE_SHIFT;
    gm->ntop = (npages + LEAF_PAGES - 1) >> LEAF_SHIFT;
    if (gm->ntop) {
        gm->top = asc_calloc(&gm->alloc, (size_t)gm->ntop, sizeof *gm->top);
        if (!gm->top) {
            asc_free(&gm->alloc, gm);
            return NULL;
        }
    }
    return gm;
}

void asc_gm_free(AscGm *gm)
{
    if (!gm) return;
    AscAlloc a = gm->alloc;
    for (uint64_t t = 0; t < gm->ntop; t++) {
        if (!gm->top[t]) continue;
#ifdef GM_SLABS
        if (gm->slabs) {
            for (uint32_t s = 0; s < LEAF_SLABS; s++)
                if (gm->top[t][LEAF_PAGES + s]) munmap(gm->top[t][LEAF_PAGES + s], SLAB_BYTES);
            asc_free(&a, gm->top[t]);
            continue;
        }
#endif
        for (uint32_t p = 0; p < LEAF_PAGES; p++) asc_free(&a, gm->top[t][p]);
        asc_free(&a, gm->top[t]);
    }
    asc_free(&a, gm->top);
    asc_free(&a, gm);
}

uint64_t asc_gm_size(const AscGm *gm) { return gm->size_bytes; }

uint64_t asc_gm_backed_bytes(const AscGm *gm) { return gm->pages * PAGE_BYTES; }

/* The page holding page number `pn`, or NULL; allocates when `create` (not zeroed when `whole`:
 * the caller writes every byte of it at once, so a big tensor's pages are touched once, not
 * zeroed by calloc and then overwritten). */
static uint8_t *page_of_new(AscGm *gm, uint64_t pn, bool create, bool whole)
{
    uint64_t t = pn >> LEAF_SHIFT;
    uint32_t p = (uint32_t)(pn & (LEAF_PAGES - 1));
    uint8_t **leaf = gm->top[t];
    if (!leaf) {
        if (!create) return NULL;
        leaf = asc_calloc(&gm->alloc, 1, LEAF_BYTES); /* marks zero: nothing written */
        if (!leaf) return NULL;
        gm->top[t] = leaf;
    }
#ifdef GM_SLABS
    if (!leaf[p] && create && gm->slabs) {
        uint8_t **slab = &leaf[LEAF_PAGES + p / SLAB_PAGES];
        if (!*slab) {
            /* 2 SLAB_BYTES mapped, the 2 MiB-aligned SLAB_BYTES inside kept */
            uint8_t *m = mmap(NULL, 2 * SLAB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) return NULL;
            uintptr_t at = ((uintptr_t)m + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1);
            uint8_t *s = (uint8_t *)at;
            if (s > m) munmap(m, (size_t)(s - m));
            if (s + SLAB_BYTES < m + 2 * SLAB_BYTES) munmap(s + SLAB_BYTES, (size_t)(m + 2 * SLAB_BYTES - (s + SLAB_BYTES)));
            (void)madvise(s, SLAB_BYTES, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
            *slab = s;
        }
        leaf[p] = *slab + (size_t)(p % SLAB_PAGES) * PAGE_BYTES; /* zero: fresh anonymous memory */
        gm->pages++;
        return leaf[p];
    }
#endif
    (void)whole;
    if (!leaf[p] && create) {
        leaf[p] = whole ? asc_malloc(&gm->alloc, PAGE_BYTES) : asc_calloc(&gm->alloc, 1, PAGE_BYTES);
        if (leaf[p]) gm->pages++;
    }
    return leaf[p];
}

static uint8_t *page_of(AscGm *gm, uint64_t pn, bool create) { return page_of_new(gm, pn, create, false); }

static bool in_range(const AscGm *gm, uint64_t addr, size_t n)
{
    return addr <= gm->size_bytes && n <= gm->size_bytes - addr;
}

bool asc_gm_read(AscGm *gm, uint64_t addr, void *dst, size_t n)
{
    if (!in_range(gm, addr, n)) return false;
    if (gm->sync) gm->sync(gm->sync_ud, addr, addr + n, false, false);
    return asc_gm_read_nosync(gm, addr, dst, n);
}

uint8_t *asc_gm_host_run(AscGm *gm, uint64_t addr, size_t max, size_t *run)
{
    *run = 0;
    if (!in_range(gm, addr, max ? 1 : 0)) return NULL;
    uint8_t *pg = page_of(gm, addr >> PAGE_SHIFT, false);
    uint32_t off = (uint32_t)(addr & (PAGE_BYTES - 1));
    if (!pg) { /* never written: *run = the bytes to the end of the page */
        *run = PAGE_BYTES - off < max ? PAGE_BYTES - off : max;
        return NULL;
    }
    uint8_t *at = pg + off;
    size_t n = PAGE_BYTES - off;
    while (n < max && in_range(gm, addr + n, 1)) { /* the next page right after this one */
        const uint8_t *next = page_of(gm, (addr + n) >> PAGE_SHIFT, false);
        if (next != at + n) break;
        n += PAGE_BYTES;
    }
    *run = n < max ? n : max;
    return at;
}

bool asc_gm_backed(const AscGm *gm, uint64_t addr, size_t n)
{
    if (!in_range(gm, addr, n)) return false;
    for (uint64_t pn = addr >> PAGE_SHIFT; n && pn <= (addr + n - 1) >> PAGE_SHIFT; pn++) {
        uint8_t **leaf = gm->top[pn >> LEAF_SHIFT];
        if (!leaf || !leaf[pn & (LEAF_PAGES - 1)]) return false;
    }
    return true;
}

/* Reads only page pointers (never changes one), so a worker may run it while the engine
 * allocates other pages. */
bool asc_gm_read_nosync(AscGm *gm, uint64_t addr, void *dst, size_t n)
{
    if (!in_range(gm, addr, n)) return false;
    uint8_t *out = dst;
    while (n) {
        uint32_t off = (uint32_t)(addr & (PAGE_BYTES - 1));
        size_t chunk = PAGE_BYTES - off < n ? PAGE_BYTES - off : n;
        const uint8_t *pg = page_of(gm, addr >> PAGE_SHIFT, false);
        if (pg)
            memcpy(out, pg + off, chunk);
        else
            memset(out, 0, chunk); /* never written: reads as zero */
        out += chunk;
        addr += chunk;
        n -= chunk;
    }
    return true;
}

bool asc_gm_reserve(AscGm *gm, uint64_t addr, size_t n)
{
    if (!in_range(gm, addr, n)) return false;
    while (n) {
        uint32_t off = (uint32_t)(addr & (PAGE_BYTES - 1));
        size_t chunk = PAGE_BYTES - off < n ? PAGE_BYTES - off : n;
        if (!page_of_new(gm, addr >> PAGE_SHIFT, true, chunk == PAGE_BYTES)) return false;
        addr += chunk;
        n -= chunk;
    }
    return true;
}

bool asc_gm_write(AscGm *gm, uint64_t addr, const void *src, size_t n)
{
    if (!in_range(gm, addr, n)) return false;
    if (gm->sync) gm->sync(gm->sync_ud, addr, addr + n, true, false);
    return asc_gm_write_nosync(gm, addr, src, n);
}

bool asc_gm_write_nosync(AscGm *gm, uint64_t addr, const void *src, size_t n)
{
    if (!in_range(gm, addr, n)) return false;
    const uint8_t *in = src;
    while (n) {
        uint32_t off = (uint32_t)(addr & (PAGE_BYTES - 1));
        size_t chunk = PAGE_BYTES - off < n ? PAGE_BYTES - off : n;
        uint8_t *pg = page_of_new(gm, addr >> PAGE_SHIFT, true, chunk == PAGE_BYTES);
        if (!pg) return false; /* host memory exhausted */
        memcpy(pg + off, in, chunk);
        mark_written(gm->top[addr >> PAGE_SHIFT >> LEAF_SHIFT], (uint32_t)((addr >> PAGE_SHIFT) & (LEAF_PAGES - 1)));
        in += chunk;
        addr += chunk;
        n -= chunk;
    }
    return true;
}

void asc_gm_set_written(AscGm *gm, uint64_t addr, uint64_t n, bool written)
{
    if (!n || !in_range(gm, addr, 1)) return;
    uint64_t last = (n > gm->size_bytes - addr ? gm->size_bytes : addr + n) - 1;
    for (uint64_t pn = addr >> PAGE_SHIFT; pn <= last >> PAGE_SHIFT; pn++) {
        uint8_t **leaf = gm->top[pn >> LEAF_SHIFT];
        uint32_t p = (uint32_t)(pn & (LEAF_PAGES - 1));
        if (!leaf || !leaf[p]) continue; /* never written: nothing to mark or clear */
        atomic_store_explicit(&marks_of(leaf)[p], written ? 1 : 0, memory_order_relaxed);
    }
}

bool asc_gm_written(AscGm *gm, uint64_t addr, uint64_t n)
{
    if (!n || !in_range(gm, addr, 1)) return false;
    uint64_t last = (n > gm->size_bytes - addr ? gm->size_bytes : addr + n) - 1;
    if (gm->sync) gm->sync(gm->sync_ud, addr, last + 1, false, false); /* pending writers land (and mark) first */
    for (uint64_t pn = addr >> PAGE_SHIFT; pn <= last >> PAGE_SHIFT; pn++) {
        uint8_t **leaf = gm->top[pn >> LEAF_SHIFT];
        if (!leaf) { /* a whole leaf never written: skip to the next one */
            pn |= LEAF_PAGES - 1;
            continue;
        }
        if (atomic_load_explicit(&marks_of(leaf)[pn & (LEAF_PAGES - 1)], memory_order_relaxed)) return true;
    }
    return false;
}
