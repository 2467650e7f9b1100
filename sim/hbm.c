/* hbm.c -- the chip-wide HBM bandwidth shared by every GM transfer in
 * flight: an exact, event-driven fluid model in integer arithmetic.
 *
 * Users: core.c (a GM transfer joins after its setup cycles and leaves when
 * its bytes are through), report.c (HBM busy cycles and bytes).
 *
 * Model (docs/timing.md §HBM): while n transfers are active, transfer i
 * moves min(cap_i, H / n) * pct_i / 100 bytes per cycle, where cap_i is the
 * per-core rate of its pipe (dma.gm_bytes_per_cycle, or
 * dma.fix_bytes_per_cycle for fixpipe), H = dma.hbm_bytes_per_cycle and pct_i
 * is 100 or dma.gm_unaligned_pct.  Whenever the active set changes, every
 * remaining count is brought up to date and every finish cycle recomputed.
 *
 * Arithmetic: rates and remaining bytes are fixed point with ASC_FP_SHIFT
 * (20) fraction bits; a rate is floored to 2^-20 B/cycle, a finish cycle is
 * rounded up to a whole cycle (a transfer finishing mid-cycle frees its pipe
 * at the next cycle boundary).  Integer only, so every machine gives the
 * same cycles.  Invariant: the order of act[] is the order transfers joined
 * (removal keeps order), so the counter callbacks are deterministic too. */
#include <string.h>

#include "sim_internal.h"

uint64_t asc_ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

bool asc_hbm_init(AscHbm *h, uint32_t cap, const AscAlloc *a)
{
    memset(h, 0, sizeof *h);
    h->act = asc_calloc(a, cap ? cap : 1, sizeof *h->act);
    h->cap = cap;
    return h->act != NULL;
}

void asc_hbm_free(AscHbm *h, const AscAlloc *a)
{
    asc_free(a, h->act);
    memset(h, 0, sizeof *h);
}

void asc_hbm_advance(AscSim *sim)
{
    AscHbm *h = &sim->hbm;
    uint64_t dt = sim->now - h->last_cycle;
    if (!dt) return;
    if (h->n) h->busy_cycles += dt;
    for (uint32_t i = 0; i < h->n; i++) {
        AscXfer *x = &h->act[i];
        /* rem -= rate * dt without overflowing: dt beyond rem/rate means done */
        uint64_t q = x->rem_fp / x->rate_fp;
        x->rem_fp = dt > q ? 0 : x->rem_fp - x->rate_fp * dt;
    }
    h->last_cycle = sim->now;
}

/* New rates for everyone and new finish cycles for their pipes. */
static void rerate(AscSim *sim)
{
    AscHbm *h = &sim->hbm;
    if (!h->n) {
        if (sim->obs.on_counter) sim->obs.on_counter(sim->obs.ud, sim->now, "hbm_bytes_per_cycle", UINT32_MAX, 0, 0);
        return;
    }
    uint64_t share_fp = ((uint64_t)sim->cfg.v[ASC_KEY_HBM_BYTES_PER_CYCLE] << ASC_FP_SHIFT) / h->n;
    uint64_t total_fp = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        AscXfer *x = &h->act[i];
        uint64_t base = x->cap_fp < share_fp ? x->cap_fp : share_fp, old = x->rate_fp;
        x->rate_fp = base * x->pct / 100;
        if (!x->rate_fp) x->rate_fp = 1;
        total_fp += x->rate_fp;
        AscCore *c = &sim->cores[x->agent / ASC_AGENTS_PER_CORE];
        AscPipeUnit *p = &c->pipes[x->agent % ASC_AGENTS_PER_CORE];
        /* the same rate: the finish cycle is where it was (rem dropped by exactly rate per cycle
         * since it was computed, so now + ceil(rem / rate) is that cycle; a transfer still in
         * act[] has not reached it before now), and so is the pipe's heap key */
        if (x->rate_fp != old) {
            /* a finish moved later keeps the pipe's earlier heap key: stepped then, the pipe
             * finds busy_until ahead and reschedules itself (core.c), one heap move instead
             * of one per arrival of another transfer */
            uint64_t until = sim->now + asc_ceil_div(x->rem_fp, x->rate_fp);
            bool later = old && until >= p->busy_until;
            p->busy_until = until;
            if (!later) asc_pipe_reschedule(sim, c, p);
        }
        if (sim->obs.on_counter) /* per-mille of this transfer's own rate lost to sharing */
            sim->obs.on_counter(sim->obs.ud, sim->now, "hbm_contention", c->index, p->id,
                                (int64_t)(x->cap_fp ? (x->cap_fp - base) * 1000 / x->cap_fp : 0));
    }
    if (sim->obs.on_counter)
        sim->obs.on_counter(sim->obs.ud, sim->now, "hbm_bytes_per_cycle", UINT32_MAX, 0,
                            (int64_t)((total_fp * 1000) >> ASC_FP_SHIFT));
}

void asc_hbm_add(AscSim *sim, uint32_t agent, uint64_t bytes, uint64_t cap_bytes_per_cycle, uint32_t pct)
{
    AscHbm *h = &sim->hbm;
    asc_hbm_advance(sim);
    /* cap = 2 transfers (MTE2, MTE3 / FIX) per core; sized in asc_sim_new */
    AscXfer *x = &h->act[h->n++];
    x->agent = agent;
    x->rem_fp = bytes << ASC_FP_SHIFT;
    x->cap_fp = cap_bytes_per_cycle << ASC_FP_SHIFT;
    x->pct = pct;
    x->rate_fp = 0; /* no rate yet: rerate sets it and the finish cycle */
    h->bytes += bytes;
    rerate(sim);
}

bool asc_hbm_done(const AscSim *sim, uint32_t agent)
{
    const AscHbm *h = &sim->hbm;
    for (uint32_t i = 0; i < h->n; i++)
        if (h->act[i].agent == agent) return h->act[i].rem_fp == 0;
    return true;
}

void asc_hbm_remove(AscSim *sim, uint32_t agent)
{
    AscHbm *h = &sim->hbm;
    asc_hbm_advance(sim);
    for (uint32_t i = 0; i < h->n; i++) {
        if (h->act[i].agent != agent) continue;
        if (sim->obs.on_counter)
            sim->obs.on_counter(sim->obs.ud, sim->now, "hbm_contention", agent / ASC_AGENTS_PER_CORE,
                                (uint8_t)(agent % ASC_AGENTS_PER_CORE), 0);
        memmove(&h->act[i], &h->act[i + 1], (h->n - i - 1) * sizeof *h->act);
        h->n--;
        break;
    }
    rerate(sim);
}
