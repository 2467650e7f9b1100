/* sched.c -- the event heap of the simulator: which agent (scalar unit or
 * pipe of a core) acts next.
 *
 * Users: sim.c (run loop), core.c / scalar.c / hbm.c (reschedule agents).
 * Invariants: a binary min-heap on (cycle, agent id); agent ids are
 * core * ASC_AGENTS_PER_CORE + pipe, so equal cycles resolve by core, then
 * pipe -- the deterministic tie-break of docs/internals.md §Conventions.  pos[] lets any agent be
 * moved in O(log n) when its next cycle changes; nothing allocates after
 * asc_heap_init. */
#include <string.h>

#include "sim_internal.h"

#define NOT_IN UINT32_MAX /* pos[] of an agent that is not scheduled */

/* Room for every agent at once (each is in the heap at most once), so
 * asc_heap_set never grows anything while the simulator runs. */
bool asc_heap_init(AscHeap *h, uint32_t agents, const AscAlloc *a)
{
    memset(h, 0, sizeof *h);
    h->a = asc_calloc(a, agents, sizeof *h->a);
    h->key = asc_calloc(a, agents, sizeof *h->key);
    h->pos = asc_calloc(a, agents, sizeof *h->pos);
    if (!h->a || !h->key || !h->pos) return false;
    for (uint32_t i = 0; i < agents; i++) h->pos[i] = NOT_IN;
    h->cap = agents;
    return true;
}

void asc_heap_free(AscHeap *h, const AscAlloc *a)
{
    asc_free(a, h->a);
    asc_free(a, h->key);
    asc_free(a, h->pos);
    memset(h, 0, sizeof *h);
}

/* (cycle, agent) order */
static bool less(const AscHeap *h, uint32_t x, uint32_t y)
{
    return h->key[x] < h->key[y] || (h->key[x] == h->key[y] && x < y);
}

/* Place agent at slot i, keeping pos[] the inverse of a[]. */
static void put(AscHeap *h, uint32_t i, uint32_t agent)
{
    h->a[i] = agent;
    h->pos[agent] = i;
}

/* Move the agent at slot i towards the root while it is less than its
 * parent; the classic hole-moving form, one put per level. */
static void sift_up(AscHeap *h, uint32_t i)
{
    uint32_t ag = h->a[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!less(h, ag, h->a[parent])) break;
        put(h, i, h->a[parent]);
        i = parent;
    }
    put(h, i, ag);
}

static void sift_down(AscHeap *h, uint32_t i)
{
    uint32_t ag = h->a[i];
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        uint32_t best = ag;
        if (l < h->n && less(h, h->a[l], best)) m = l, best = h->a[l];
        if (r < h->n && less(h, h->a[r], best)) m = r, best = h->a[r];
        if (m == i) break;
        put(h, i, h->a[m]);
        i = m;
    }
    put(h, i, ag);
}

/* Schedule, move or (ASC_NEVER) remove an agent.  Agents reschedule
 * themselves on every step, so this is the one hot operation of the loop. */
void asc_heap_set(AscHeap *h, uint32_t agent, uint64_t cycle)
{
    uint32_t i = h->pos[agent];
    if (cycle == ASC_NEVER) {
        /* fill the hole with the last agent; it may belong above or below */
        if (i == NOT_IN) return;
        h->pos[agent] = NOT_IN;
        h->n--;
        if (i == h->n) return;
        uint32_t last = h->a[h->n];
        put(h, i, last);
        sift_down(h, i);
        sift_up(h, h->pos[last]);
        return;
    }
    h->key[agent] = cycle;
    if (i == NOT_IN) {
        i = h->n++;
        put(h, i, agent);
        sift_up(h, i);
    } else { /* the key moved either way: one of the two sifts is a no-op */
        sift_up(h, i);
        sift_down(h, h->pos[agent]);
    }
}

bool asc_heap_peek(const AscHeap *h, uint32_t *agent, uint64_t *cycle)
{
    if (!h->n) return false;
    *agent = h->a[0];
    *cycle = h->key[h->a[0]];
    return true;
}

uint64_t asc_heap_min_cycle(const AscHeap *h)
{
    return h->n ? h->key[h->a[0]] : ASC_NEVER;
}
