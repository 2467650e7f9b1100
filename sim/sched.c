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
 * The agent that acts is taken (asc_heap_take), not removed: it stays in
 * its slot and is left out of asc_heap_min_cycle / asc_heap_peek until it
 * sets its next cycle (then one sift moves it; removing and re-inserting it
 * cost two) or asc_heap_release removes it.  (cycle, agent) is a strict
 * total order, so which agent comes first depends only on the scheduled
 * set, never on where the slots happen to be. */
#include <string.h>

#include "sim_internal.h"

#define NOT_IN UINT32_MAX /* pos[] of an agent that is not scheduled; held when none is taken */

/* Room for every agent at once (each is in the heap at most once), so
 * asc_heap_set never grows anything while the simulator runs. */
bool asc_heap_init(AscHeap *h, uint32_t agents, const AscAlloc *a)
{
    memset(h, 0, sizeof *h);
    h->e = asc_calloc(a, agents, sizeof *h->e);
    h->pos = asc_calloc(a, agents, sizeof *h->pos);
    h->held = NOT_IN;
    if (!h->e || !h->pos) return false;
    for (uint32_t i = 0; i < agents; i++) h->pos[i] = NOT_IN;
    h->cap = agents;
    return true;
}

void asc_heap_free(AscHeap *h, const AscAlloc *a)
{
    asc_free(a, h->e);
    asc_free(a, h->pos);
    memset(h, 0, sizeof *h);
    h->held = NOT_IN;
}

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

/* Schedule, move or (ASC_NEVER) remove an agent.  Agents reschedule
 * themselves on every step, so this is the one hot operation of the loop.
 * Setting the taken agent ends its being taken. */
void asc_heap_set(AscHeap *h, uint32_t agent, uint64_t cycle)
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

bool asc_heap_peek(const AscHeap *h, uint32_t *agent, uint64_t *cycle)
{
    const AscHeapSlot *s = first(h);
    if (!s) return false;
    *agent = s->agent;
    *cycle = s->key;
    return true;
}

uint64_t asc_heap_min_cycle(const AscHeap *h)
{
    const AscHeapSlot *s = first(h);
    return s ? s->key : ASC_NEVER;
}

void asc_heap_take(AscHeap *h, uint32_t agent)
{
    asc_heap_release(h);
    if (h->pos[agent] != NOT_IN) h->held = agent;
}

void asc_heap_release(AscHeap *h)
{
    if (h->held != NOT_IN) asc_heap_set(h, h->held, ASC_NEVER);
}
