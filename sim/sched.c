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
 * one instruction each in turn), and a sift through the heap cost ~170 host
 * instructions a step.  So an agent due within ASC_WIN cycles of the
 * window's base sits in a bucket of its cycle instead (bucket = cycle %
 * ASC_WIN, a bit per agent, a word summary and a bucket summary): adding,
 * moving and finding the first are a few bit operations.  Invariant: every
 * window key k has base <= k < base + ASC_WIN, so a bucket holds one cycle,
 * and within a bucket the lowest agent bit is the lowest agent id.  An agent
 * is in the window or in the heap, never both; the first agent is the lesser
 * (cycle, agent) of the window's first and the heap's first, so the order is
 * exactly the heap's whichever part holds whom.  A taken agent of the window
 * is removed at once (re-adding it is as cheap as a move). */
#include <string.h>

#include "sim_internal.h"

#define NOT_IN UINT32_MAX /* pos[] of an agent that is not scheduled; held when none is taken */
#define IN_WIN (UINT32_MAX - 1) /* pos[] of an agent in the near window */

_Static_assert(ASC_WIN == 64, "the window's bucket summary is one 64-bit word");

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
        if (!h->bits) return false;
    }
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
    memset(h, 0, sizeof *h);
    h->held = NOT_IN;
}

/* ---- the near window ---- */

static inline uint64_t rotr64(uint64_t x, unsigned r)
{
    r &= 63;
    return r ? (x >> r) | (x << (64 - r)) : x;
}

static inline void win_add(AscHeap *h, uint32_t agent, uint64_t cycle)
{
    unsigned b = (unsigned)(cycle % ASC_WIN), w = agent / 64;
    h->bits[(size_t)b * h->nw + w] |= 1ull << (agent % 64);
    h->wsum[b] |= 1ull << w;
    h->occ |= 1ull << b;
    h->key[agent] = cycle;
    h->pos[agent] = IN_WIN;
}

static inline void win_del(AscHeap *h, uint32_t agent)
{
    unsigned b = (unsigned)(h->key[agent] % ASC_WIN), w = agent / 64;
    uint64_t *word = &h->bits[(size_t)b * h->nw + w];
    *word &= ~(1ull << (agent % 64));
    if (!*word) {
        h->wsum[b] &= ~(1ull << w);
        if (!h->wsum[b]) h->occ &= ~(1ull << b);
    }
    h->pos[agent] = NOT_IN;
}

/* May cycle c (not ASC_NEVER) go into the window?  Moves the base when that
 * makes room and keeps every key inside [base, base + ASC_WIN). */
static inline bool win_fits(AscHeap *h, uint64_t c)
{
    if (!h->nw) return false;
    if (!h->occ) {
        h->base = c;
        return true;
    }
    if (c >= h->base && c - h->base < ASC_WIN) return true;
    uint64_t rot = rotr64(h->occ, (unsigned)(h->base % ASC_WIN));
    if (c < h->base) { /* lower the base to c if the last key stays within reach */
        uint64_t hi = h->base + 63 - (unsigned)__builtin_clzll(rot);
        if (hi - c >= ASC_WIN) return false;
        h->base = c;
        return true;
    }
    h->base += (unsigned)__builtin_ctzll(rot); /* raise it to the first key */
    return c - h->base < ASC_WIN;
}

/* The window's first (cycle, agent); false when it is empty. */
static inline bool win_first(const AscHeap *h, uint32_t *agent, uint64_t *cycle)
{
    if (!h->occ) return false;
    unsigned off = (unsigned)__builtin_ctzll(rotr64(h->occ, (unsigned)(h->base % ASC_WIN)));
    uint64_t c = h->base + off;
    unsigned b = (unsigned)(c % ASC_WIN), w = (unsigned)__builtin_ctzll(h->wsum[b]);
    *agent = w * 64 + (uint32_t)__builtin_ctzll(h->bits[(size_t)b * h->nw + w]);
    *cycle = c;
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
static const AscHeapSlot *first(const AscHeap *h)
{
    if (!h->n) return NULL;
    if (h->e[0].agent != h->held) return &h->e[0];
    /* the taken agent is at the root: the next one is a child of the root */
    if (h->n == 1) return NULL;
    if (h->n == 2 || less(h->e[1], h->e[2])) return &h->e[1];
    return &h->e[2];
}

/* Schedule, move or (ASC_NEVER) remove an agent.  Agents reschedule
 * themselves on every step, so this is the one hot operation of the loop.
 * Setting the taken agent ends its being taken. */
void asc_heap_set(AscHeap *h, uint32_t agent, uint64_t cycle)
{
    if (h->pos[agent] == IN_WIN) {
        if (h->key[agent] == cycle) return;
        win_del(h, agent);
    }
    if (cycle != ASC_NEVER && win_fits(h, cycle)) {
        if (h->pos[agent] != NOT_IN) heap_set(h, agent, ASC_NEVER); /* out of the heap */
        if (agent == h->held) h->held = NOT_IN;
        win_add(h, agent, cycle);
        return;
    }
    heap_set(h, agent, cycle);
}

uint64_t asc_heap_min_cycle(const AscHeap *h)
{
    const AscHeapSlot *s = first(h);
    uint64_t c = s ? s->key : ASC_NEVER;
    if (h->occ) {
        uint64_t w = h->base + (unsigned)__builtin_ctzll(rotr64(h->occ, (unsigned)(h->base % ASC_WIN)));
        if (w < c) c = w;
    }
    return c;
}

/* The run loop's step: find the first agent and take it.  1: the first
 * (*agent, *cycle) is taken -- an agent of the window leaves it (setting it
 * adds it again), an agent of the heap stays in its slot, left out of
 * asc_heap_min_cycle; -1: the first is due at *cycle >= limit and stays;
 * 0: nothing is scheduled. */
int asc_heap_take_first(AscHeap *h, uint64_t limit, uint32_t *agent, uint64_t *cycle)
{
    asc_heap_release(h);
    const AscHeapSlot *s = h->n ? &h->e[0] : NULL; /* none is taken now */
    uint32_t wa;
    uint64_t wc;
    if (win_first(h, &wa, &wc) && (!s || wc < s->key || (wc == s->key && wa < s->agent))) {
        *agent = wa;
        *cycle = wc;
        if (wc >= limit) return -1;
        win_del(h, wa);
        return 1;
    }
    if (!s) return 0;
    *agent = s->agent;
    *cycle = s->key;
    if (s->key >= limit) return -1;
    h->held = s->agent;
    return 1;
}

void asc_heap_release(AscHeap *h)
{
    if (h->held != NOT_IN) heap_set(h, h->held, ASC_NEVER);
}
