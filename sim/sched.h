/* sched.h -- the hot operations of the event heap (sched.c), inline for the
 * run loop (sim.c) and the scalar unit (scalar.c), which call them once or
 * twice per simulated instruction: setting an agent whose cycle stays within
 * the near window's reach, taking the first agent, and the first cycle.
 * Everything else (the binary heap, moving the window's base) is in sched.c;
 * asc_heap_set, asc_heap_take_first and asc_heap_min_cycle there are these
 * same functions, for the other callers. */
#ifndef ASC_SIM_SCHED_H
#define ASC_SIM_SCHED_H

#include "sim_internal.h"

#define ASC_HEAP_NOT_IN UINT32_MAX      /* pos[] of an agent that is not scheduled; held when none is taken */
#define ASC_HEAP_IN_WIN (UINT32_MAX - 1) /* pos[] of an agent in the near window */

/* sched.c: the rest of asc_heap_set; the window's next first key after
 * the first one (k, bucket b) left; removing the taken agent from the heap;
 * the heap's first slot other than the taken agent's (NULL: none). */
void asc_heap_set_slow(AscHeap *h, uint32_t agent, uint64_t cycle);
void asc_heap_win_advance(AscHeap *h, uint64_t k, uint32_t b);
void asc_heap_drop_held(AscHeap *h);
const AscHeapSlot *asc_heap_first_slot(const AscHeap *h);

static inline void asc_win_add(AscHeap *h, uint32_t agent, uint64_t cycle)
{
    unsigned b = (unsigned)(cycle % ASC_WIN), w = agent / 64;
    if (!h->gocc || cycle < h->first) h->first = cycle;
    uint64_t *word = &h->bits[(size_t)w * ASC_WIN + b], old = *word;
    *word = old | 1ull << (agent % 64);
    if (!old) { /* the summaries already say so when the word had an agent (lockstep cores share one) */
        h->wsum[b] |= 1ull << w;
        h->occ[b / 64] |= 1ull << (b % 64);
        h->gocc |= 1ull << (b / 64);
    }
    h->key[agent] = cycle;
    h->pos[agent] = ASC_HEAP_IN_WIN;
}

/* Clear agent's bit in the bucket of cycle k (its key), keeping the summaries
 * and `first`; pos[] is the caller's.  The last thing it may do is a call. */
static inline void asc_win_clear(AscHeap *h, uint32_t agent, uint64_t k)
{
    unsigned b = (unsigned)(k % ASC_WIN), w = agent / 64;
    uint64_t *word = &h->bits[(size_t)w * ASC_WIN + b];
    *word &= ~(1ull << (agent % 64));
    if (*word) return;
    h->wsum[b] &= ~(1ull << w);
    if (h->wsum[b]) return;
    /* the bucket is empty now */
    uint64_t *g = &h->occ[b / 64];
    *g &= ~(1ull << (b % 64));
    if (!*g) h->gocc &= ~(1ull << (b / 64));
    if (k == h->first && h->gocc) asc_heap_win_advance(h, k, b);
}

static inline void asc_win_del(AscHeap *h, uint32_t agent)
{
    h->pos[agent] = ASC_HEAP_NOT_IN;
    asc_win_clear(h, agent, h->key[agent]);
}

/* Schedule, move or (ASC_NEVER) remove an agent.  Agents reschedule
 * themselves on every step, so this is the one hot operation of the loop:
 * an agent out of the heap (so not the taken one) going to a cycle inside
 * the window's reach is handled here, the rest by asc_heap_set_slow.
 * Setting the taken agent ends its being taken. */
static inline void asc_heap_set_inline(AscHeap *h, uint32_t agent, uint64_t cycle)
{
    uint32_t p = h->pos[agent];
    if (p == ASC_HEAP_IN_WIN && h->key[agent] == cycle) return;
    if ((p == ASC_HEAP_IN_WIN || p == ASC_HEAP_NOT_IN) && cycle - h->base < h->span && cycle >= h->base) {
        /* add, then clear the old bucket: the clear's call (a new first) comes last, so
         * nothing lives across it.  The order does not matter: the buckets differ, and
         * a new least key is in `first` before the old one is cleared */
        uint64_t old = h->key[agent];
        asc_win_add(h, agent, cycle);
        if (p == ASC_HEAP_IN_WIN) asc_win_clear(h, agent, old);
        return;
    }
    asc_heap_set_slow(h, agent, cycle);
}

/* The first cycle of any agent but the taken one; ASC_NEVER when none. */
static inline uint64_t asc_heap_min_cycle_inline(const AscHeap *h)
{
    uint64_t c = ASC_NEVER;
    if (h->n) {
        const AscHeapSlot *s = h->e[0].agent != h->held ? &h->e[0] : asc_heap_first_slot(h);
        if (s) c = s->key;
    }
    if (h->gocc && h->first < c) c = h->first;
    return c;
}

/* The run loop's step: find the first agent and take it.  1: the first
 * (*agent, *cycle) is taken -- an agent of the window leaves it (setting it
 * adds it again), an agent of the heap stays in its slot, left out of
 * asc_heap_min_cycle; -1: the first is due at *cycle >= limit and stays;
 * 0: nothing is scheduled. */
static inline int asc_heap_take_first_inline(AscHeap *h, uint64_t limit, uint32_t *agent, uint64_t *cycle)
{
    if (h->held != ASC_HEAP_NOT_IN) asc_heap_drop_held(h); /* asc_heap_release */
    const AscHeapSlot *s = h->n ? &h->e[0] : NULL; /* none is taken now */
    if (h->gocc) { /* the window's first (cycle, agent) */
        uint64_t wc = h->first;
        unsigned b = (unsigned)(wc % ASC_WIN), w = (unsigned)__builtin_ctzll(h->wsum[b]);
        uint32_t wa = w * 64 + (uint32_t)__builtin_ctzll(h->bits[(size_t)w * ASC_WIN + b]);
        if (!s || wc < s->key || (wc == s->key && wa < s->agent)) {
            *agent = wa;
            *cycle = wc;
            if (wc >= limit) return -1;
            asc_win_del(h, wa);
            return 1;
        }
    }
    if (!s) return 0;
    *agent = s->agent;
    *cycle = s->key;
    if (s->key >= limit) return -1;
    h->held = s->agent;
    return 1;
}

/* The scalar unit's shortcut to the run loop's next turn (scalar.c): when
 * nothing is taken and the first agent is a scalar unit (pipe S) in the
 * window, due before limit, take it as asc_heap_take_first would and return
 * true; otherwise change nothing and return false (the loop takes it). */
static inline bool asc_heap_take_scalar_inline(AscHeap *h, uint64_t limit, uint32_t *agent, uint64_t *cycle)
{
    if (h->held != ASC_HEAP_NOT_IN || !h->gocc) return false;
    uint64_t wc = h->first;
    if (wc >= limit) return false;
    unsigned b = (unsigned)(wc % ASC_WIN), w = (unsigned)__builtin_ctzll(h->wsum[b]);
    uint32_t wa = w * 64 + (uint32_t)__builtin_ctzll(h->bits[(size_t)w * ASC_WIN + b]);
    if (wa % ASC_AGENTS_PER_CORE != ASC_PIPE_S) return false;
    if (h->n && (h->e[0].key < wc || (h->e[0].key == wc && h->e[0].agent < wa))) return false;
    *agent = wa;
    *cycle = wc;
    asc_win_del(h, wa);
    return true;
}

#endif
