/* sched.c -- the event heap of the simulator: which agent (scalar unit or
 * pipe of a core) acts next.
 *
 * Users: sim.c (run loop), core.c / scalar.c / hbm.c (reschedule agents).
 * Invariants: a binary min-heap on (cycle, agent id); agent ids are
 * core * ASC_AGENTS_PER_CORE + pipe, so equal cycles resolve by core, then
 * pipe -- the deterministic tie-break of docs/internals.md §Conventions.  pos[] lets any agent be
 * moved in O(log n) when its next cycle changes; nothing allocates after
 * asc_heap_init.  Each slot holds its agent's cycle beside the id, so a
 * comparison reads one slot, not a second array.
 *
 * The agent that acts is taken (asc_heap_take_first), not removed: it stays in
 * its slot and is left out of asc_heap_min_cycle until it
 * sets its next cycle (then one sift moves it; removing and re-inserting it
 * cost two) or asc_heap_release removes it.  (cycle, agent) is a strict
 * total order, so which agent comes first depends only on the scheduled
 * set, never on where the slots happen to be.
 *
 * The near window: most agents reschedule themselves a few cycles ahead
 * (the scalar units of cores running the same program step in lockstep,
 * one instruction each in turn) and a DMA's completion lands a few hundred
 * cycles ahead, and a sift through the heap cost ~140-170 host instructions.
 * So an agent due within ASC_WIN cycles of the window's base sits in a
 * bucket of its cycle instead (bucket = cycle % ASC_WIN, a bit per agent, a
 * word summary per bucket, a bit per bucket in its group of 64 and a bit per
 * group): adding, moving and finding the first are a few bit operations.
 * Invariant: every window key k has base <= k < base + ASC_WIN, so a bucket
 * holds one cycle, and within a bucket the lowest agent bit is the lowest
 * agent id; `first` is the least window key (kept on every add and delete,
 * so finding the first agent reads one bucket).  An agent is in the window
 * or in the heap, never both; the first agent is the lesser (cycle, agent)
 * of the window's first and the heap's first, so the order is exactly the
 * heap's whichever part holds whom.  A taken agent of the window is removed
 * at once (re-adding it is as cheap as a move). */
#include <string.h>

#include "sched.h"

#define NOT_IN ASC_HEAP_NOT_IN
#define IN_WIN ASC_HEAP_IN_WIN

_Static_assert(ASC_WIN == 64u * ASC_WIN_GROUPS && ASC_WIN_GROUPS == 64u,
               "a group's buckets and the group summary are one 64-bit word each");

/* Room for every agent at once (each is in the heap at most once), so
 * asc_heap_set never grows anything while the simulator runs. */
bool asc_heap_init(AscHeap *h, uint32_t agents, const AscAlloc *a)
{
    memset(h, 0, sizeof *h);
    h->e = asc_calloc(a, agents, sizeof *h->e);
    h->pos = asc_calloc(a, agents, sizeof *h->pos);
    h->key = asc_calloc(a, agents ? agents : 1, sizeof *h->key);
    h->held = NOT_IN;
    if (!h->e || !h->pos || !h->key) return false;
    if (agents <= 64u * 64u) { /* the word summary is one 64-bit word too */
        h->nw = (agents + 63) / 64;
        h->bits = asc_calloc(a, (size_t)ASC_WIN * (h->nw ? h->nw : 1), sizeof *h->bits);
        h->wsum = asc_calloc(a, ASC_WIN, sizeof *h->wsum);
        if (!h->bits || !h->wsum) return false;
    }
    h->span = h->nw ? ASC_WIN : 0;
    for (uint32_t i = 0; i < agents; i++) h->pos[i] = NOT_IN;
    h->cap = agents;
    return true;
}

void asc_heap_free(AscHeap *h, const AscAlloc *a)
{
    asc_free(a, h->e);
    asc_free(a, h->pos);
    asc_free(a, h->key);
    asc_free(a, h->bits);
    asc_free(a, h->wsum);
    memset(h, 0, sizeof *h);
    h->held = NOT_IN;
}

/* ---- the near window ---- */

static inline uint64_t rotr64(uint64_t x, unsigned r)
{
    r &= 63;
    return (x >> r) | (x << ((64 - r) & 63));
}

/* The distance (in buckets, so in cycles) from bucket b0 to the first
 * non-empty bucket at or after it, circularly; the window is not empty. */
static inline uint32_t win_next(const AscHeap *h, uint32_t b0)
{
    uint32_t g0 = b0 / 64, o = b0 % 64;
    uint64_t m = h->occ[g0] & (~0ull << o);
    if (m) return (uint32_t)__builtin_ctzll(m) - o;
    /* the groups after g0, then g0's buckets before b0 (bit 63 of the rotation) */
    uint32_t g = (g0 + 1 + (uint32_t)__builtin_ctzll(rotr64(h->gocc, g0 + 1))) % 64;
    uint32_t b = g * 64 + (uint32_t)__builtin_ctzll(h->occ[g]);
    return (b - b0) % ASC_WIN;
}

/* The distance from bucket b0 back to the last non-empty bucket at or
 * before it, circularly; the window is not empty. */
static inline uint32_t win_prev(const AscHeap *h, uint32_t b0)
{
    uint32_t g0 = b0 / 64, o = b0 % 64;
    uint64_t m = h->occ[g0] & (~0ull >> (63 - o));
    if (m) return o - (63 - (uint32_t)__builtin_clzll(m));
    /* the groups before g0 (g0 - 1 at bit 63 of the rotation), then g0's buckets after b0 (bit 0) */
    uint32_t g = (g0 + 63 - (uint32_t)__builtin_clzll(rotr64(h->gocc, g0))) % 64;
    uint32_t b = g * 64 + 63 - (uint32_t)__builtin_clzll(h->occ[g]);
    return (b0 - b) % ASC_WIN;
}

/* The first key k (bucket b) left the window, which is not empty: the next
 * one is above k and within ASC_WIN of it (every key is). */
void asc_heap_win_advance(AscHeap *h, uint64_t k, uint32_t b) { h->first = k + win_next(h, b); }

/* May cycle c (not ASC_NEVER) go into the window?  Moves the base when that
 * makes room and keeps every key inside [base, base + ASC_WIN). */
static inline bool win_fits(AscHeap *h, uint64_t c)
{
    if (c - h->base < h->span && c >= h->base) return true;
    /* every key stays below ASC_NEVER - ASC_WIN, so the base does and ASC_NEVER never fits */
    if (!h->nw || c >= ASC_NEVER - ASC_WIN) return false;
    if (!h->gocc) {
        h->base = c;
        return true;
    }
    if (c < h->base) { /* lower the base to c if the last key stays within reach */
        uint32_t b0 = (uint32_t)((h->base + ASC_WIN - 1) % ASC_WIN);
        uint64_t hi = h->base + ASC_WIN - 1 - win_prev(h, b0);
        if (hi - c >= ASC_WIN) return false;
        h->base = c;
        return true;
    }
    /* raise it, at most to the first key, as little as c needs (room below stays) */
    if (c - h->first >= ASC_WIN) return false;
    h->base = c - (ASC_WIN - 1);
    return true;
}

/* ---- the heap ---- */

/* (cycle, agent) order */
static inline bool less(AscHeapSlot x, AscHeapSlot y)
{
    return x.key < y.key || (x.key == y.key && x.agent < y.agent);
}

/* Place slot value s at index i, keeping pos[] the inverse of e[]. */
static inline void put(AscHeap *h, uint32_t i, AscHeapSlot s)
{
    h->e[i] = s;
    h->pos[s.agent] = i;
}

/* Move the slot at i towards the root while it is less than its parent;
 * the classic hole-moving form, one put per level.  Returns its new index. */
static uint32_t sift_up(AscHeap *h, uint32_t i)
{
    AscHeapSlot s = h->e[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!less(s, h->e[parent])) break;
        put(h, i, h->e[parent]);
        i = parent;
    }
    put(h, i, s);
    return i;
}

static void sift_down(AscHeap *h, uint32_t i)
{
    AscHeapSlot s = h->e[i];
    uint32_t n = h->n;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = l;
        if (l >= n) break;
        if (r < n && less(h->e[r], h->e[l])) m = r;
        if (!less(h->e[m], s)) break;
        put(h, i, h->e[m]);
        i = m;
    }
    put(h, i, s);
}

/* The heap part of asc_heap_set (the agent is not in the window). */
static void heap_set(AscHeap *h, uint32_t agent, uint64_t cycle)
{
    uint32_t i = h->pos[agent];
    if (agent == h->held) h->held = NOT_IN;
    if (cycle == ASC_NEVER) {
        /* fill the hole with the last slot; it may belong above or below */
        if (i == NOT_IN) return;
        h->pos[agent] = NOT_IN;
        h->n--;
        if (i == h->n) return;
        put(h, i, h->e[h->n]);
        if (sift_up(h, i) == i) sift_down(h, i);
        return;
    }
    if (i == NOT_IN) {
        i = h->n++;
        put(h, i, (AscHeapSlot){cycle, agent});
        sift_up(h, i);
        return;
    }
    uint64_t old = h->e[i].key;
    if (cycle == old) return;
    h->e[i].key = cycle;
    if (cycle < old)
        sift_up(h, i);
    else
        sift_down(h, i);
}

/* The first scheduled slot other than the taken agent's, or NULL. */
const AscHeapSlot *asc_heap_first_slot(const AscHeap *h)
{
    if (!h->n) return NULL;
    if (h->e[0].agent != h->held) return &h->e[0];
    /* the taken agent is at the root: the next one is a child of the root */
    if (h->n == 1) return NULL;
    if (h->n == 2 || less(h->e[1], h->e[2])) return &h->e[1];
    return &h->e[2];
}

/* asc_heap_set but its inline common case (sched.h): everything that
 * involves the heap or moves the window's base. */
void asc_heap_set_slow(AscHeap *h, uint32_t agent, uint64_t cycle)
{
    uint32_t p = h->pos[agent];
    if (p == IN_WIN) {
        if (h->key[agent] == cycle) return;
        asc_win_del(h, agent);
        p = NOT_IN;
    }
    if (cycle != ASC_NEVER && win_fits(h, cycle)) {
        if (p != NOT_IN) heap_set(h, agent, ASC_NEVER); /* out of the heap */
        if (agent == h->held) h->held = NOT_IN;
        asc_win_add(h, agent, cycle);
        return;
    }
    heap_set(h, agent, cycle);
}

void asc_heap_drop_held(AscHeap *h) { heap_set(h, h->held, ASC_NEVER); }

void asc_heap_set(AscHeap *h, uint32_t agent, uint64_t cycle) { asc_heap_set_inline(h, agent, cycle); }

uint64_t asc_heap_min_cycle(const AscHeap *h) { return asc_heap_min_cycle_inline(h); }

int asc_heap_take_first(AscHeap *h, uint64_t limit, uint32_t *agent, uint64_t *cycle)
{
    return asc_heap_take_first_inline(h, limit, agent, cycle);
}

void asc_heap_release(AscHeap *h)
{
    if (h->held != NOT_IN) heap_set(h, h->held, ASC_NEVER);
}
