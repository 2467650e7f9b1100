/* explain.c -- why a run took as long as it did: the critical path, the
 * bound derived from it, and what-if runs of the model (asc-sim explain,
 * docs/timing.md §Explain).
 *
 * Users: asc-sim (run and explain), report.c (the critical path, the bound
 * and the what-ifs in the text report, --json and summary.json).
 *
 * The recorder is an observer (asc/sim.h) that keeps every instruction
 * event, chained in front of another observer (the trace writer).  After
 * the run, asc_explain_analyse walks the critical path back from the last
 * event of the last core to finish:
 *   an instruction that ran   -> its own cost: transfer, HBM contention,
 *                                landing latency, vector beats and bank
 *                                conflicts, cube, scalar, sync
 *   then what it started after:
 *     a flag wait             -> the set_flag that set the flag (and the
 *                                flag_release handoff)
 *     a set_flag / bar        -> the earlier instruction of its pipe whose
 *                                completion (data landing) it waited for
 *     a pipe that was busy    -> the previous instruction of the pipe
 *     the scalar unit's issue -> the scalar instruction before the issue
 * so the path is a chain of segments covering [0, total cycles] exactly.
 * Each segment has one cause (Cause below); the bound is the class with
 * the most critical-path cycles (rule in classify()).
 *
 * What-ifs (asc_explain_whatif) are model computations: the same kernel,
 * arguments and blocks re-simulated with one cost removed (a latency key
 * set to 0, HBM bandwidth at its maximum) or one more buffer behind a
 * buffer-free flag on the path (asc_sim_add_buffer); the saving is the
 * difference in total cycles.  Nothing is estimated from the path itself. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, madvise (before any system header) */
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#define EV_MAPPED 1
#endif

#include "asc/run.h"
#include "explain_pc.h"

typedef struct Ev { /* 72 bytes; of the instruction's bytes only whether it moved any is kept
                      * (is_dma).  stall .. dst_buf are in AscSimInsnEvent's order, so rec_insn
                      * copies them as one piece (its shifts and ors for each byte cost ~20
                      * host instructions an event) */
    uint32_t core, pc;
    uint16_t op;
    uint8_t pipe, moved;
    uint32_t conflict;
    uint8_t stall, fsrc, fdst, fev, src_buf, dst_buf;
    uint64_t issue, start, end, done, stall_cycles, hbm_extra;
} Ev;
_Static_assert(sizeof(Ev) == 72, "the recorder keeps up to ASC_EXPLAIN_MAX_EVENTS of these");
_Static_assert(offsetof(Ev, dst_buf) - offsetof(Ev, stall) == 5 &&
                   offsetof(AscSimInsnEvent, flag_src) == offsetof(AscSimInsnEvent, stall) + 1 &&
                   offsetof(AscSimInsnEvent, flag_dst) == offsetof(AscSimInsnEvent, stall) + 2 &&
                   offsetof(AscSimInsnEvent, flag_event) == offsetof(AscSimInsnEvent, stall) + 3 &&
                   offsetof(AscSimInsnEvent, src_buf) == offsetof(AscSimInsnEvent, stall) + 4 &&
                   offsetof(AscSimInsnEvent, dst_buf) == offsetof(AscSimInsnEvent, stall) + 5,
               "Ev.stall .. dst_buf is a copy of AscSimInsnEvent.stall .. dst_buf");

typedef struct Seg {
    uint8_t cause;
    uint32_t ev;       /* index of the instruction the segment belongs to */
    uint64_t t0, t1;
    uint32_t from_ev;  /* flag waits: the waiting instruction (UINT32_MAX: none) */
} Seg;

#define ASC_EXPLAIN_MAX_WHATIF 12
/* The recorder keeps at most this many instruction events (72 B each: 19 MB), so a long
 * run's memory stays bounded; past it the run has no critical path and says so. */
#define ASC_EXPLAIN_MAX_EVENTS (1u << 18)
typedef struct WhatIf {
    char what[160];    /* "dma.gm_read_latency=0" / "one more buffer behind flag MTE3->MTE2 id 0" */
    char change[160];  /* what to change, in words */
    bool kernel;       /* a change of the kernel (not of the hardware) */
    uint8_t flag[3];   /* kernel: the buffer-free flag (src, dst, id) */
    uint32_t core;     /* kernel: the core whose stages were followed */
    bool ok;
    uint64_t cycles;
    char err[200];
} WhatIf;

struct AscExplain {
    AscAlloc a;
    AscSimObserver next;
    Ev *ev;
    uint32_t n, cap;
    uint32_t room; /* events rec_insn stores without a check: min(cap, ASC_EXPLAIN_MAX_EVENTS), 0 once full or oom */
    uint32_t last; /* the event that completed last (rec_store), UINT32_MAX: none */
    uint64_t last_t;
    uint8_t last_pipe;
    bool oom;
    bool full;  /* more than ASC_EXPLAIN_MAX_EVENTS instructions: nothing is analysed */
    bool mapped; /* ev is one mapping of ASC_EXPLAIN_MAX_EVENTS events (ev_map), not the allocator's */
    const AscSim *sim;
    Seg *seg;
    uint32_t nseg;
    /* describe() of each segment's instruction and waiter, made once per distinct (core, pc,
     * pipe) when the path is walked (a loop's segments repeat a few instructions): seg_desc[2k]
     * and [2k + 1] are offsets into desc (UINT32_MAX: none); NULL when it could not be allocated,
     * and asc_explain_seg describes again */
    uint32_t *seg_desc;
    char *desc;
    /* while asc_explain_analyse walks: cprev[j] = the latest event before j of j's core
     * (UINT32_MAX: none), so the walk's backward searches, all within one core, skip the
     * other cores' events; NULL (out of memory): they scan every event */
    uint32_t *cprev;
    uint64_t total;
    uint64_t by_cause[ASC_CAUSE_COUNT];
    WhatIf wi[ASC_EXPLAIN_MAX_WHATIF];
    uint32_t nwi;
    bool whatif_done;
};

static const char *const cause_names[ASC_CAUSE_COUNT] = {
#define C(id, name, cls) name,
    ASC_CAUSES(C)
#undef C
};
static const char *const cause_class[ASC_CAUSE_COUNT] = {
#define C(id, name, cls) cls,
    ASC_CAUSES(C)
#undef C
};

const char *asc_cause_name(unsigned c) { return c < ASC_CAUSE_COUNT ? cause_names[c] : "?"; }

static inline void rec_store(AscExplain *x, const AscSimInsnEvent *e)
{
    /* the event that completed last (asc_explain_analyse walks back from it), kept as
     * they come, in the order its scan over the events took them: a pipe's completion
     * wins a tie with the scalar `end` that drained on it */
    uint64_t t = e->done_cycle > e->end_cycle ? e->done_cycle : e->end_cycle;
    if (x->last == UINT32_MAX || t > x->last_t || (t == x->last_t && x->last_pipe == ASC_PIPE_S && e->pipe != ASC_PIPE_S))
        x->last = x->n, x->last_t = t, x->last_pipe = e->pipe;
    Ev *v = &x->ev[x->n++]; /* field by field: a compound literal was built and then copied */
    v->core = e->core, v->pc = e->pc, v->op = e->op, v->pipe = e->pipe, v->moved = e->bytes != 0;
    v->conflict = e->conflict_beats;
    memcpy(&v->stall, &e->stall, 6); /* stall, flag_src, flag_dst, flag_event, src_buf, dst_buf */
    v->issue = e->issue_cycle, v->start = e->start_cycle, v->end = e->end_cycle, v->done = e->done_cycle;
    v->stall_cycles = e->stall_cycles, v->hbm_extra = e->hbm_extra_cycles;
}

/* The event array.  With the default allocator on Linux asc_explain_new maps room for every
 * event the recorder keeps (ev_map: ASC_EXPLAIN_MAX_EVENTS x 72 B = 18 MiB of address space,
 * MAP_NORESERVE, madvise MADV_HUGEPAGE): the kernel backs only the pages the events reach, with
 * transparent huge pages where it can, the array never moves and the run allocates nothing for
 * it.  Doubling it with realloc instead took a 4 KiB page fault per 57 events (a run that fills
 * the recorder: ~4,600 faults, 19 MB touched through the growth's copies; the full softmax of
 * bench/README.md spent ~15% of its wall time there).  A caller's own AscAlloc (or a failed
 * mapping) is used as before, doubling from 4096 events as the run goes. */
static void ev_map(AscExplain *x)
{
#ifdef EV_MAPPED
    if (!asc_alloc_is_default(&x->a)) return;
    size_t bytes = (size_t)ASC_EXPLAIN_MAX_EVENTS * sizeof *x->ev;
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return;
    (void)madvise(m, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
    x->ev = m, x->cap = ASC_EXPLAIN_MAX_EVENTS, x->mapped = true;
#else
    (void)x;
#endif
}

static void ev_release(AscExplain *x)
{
#ifdef EV_MAPPED
    if (x->mapped) {
        munmap(x->ev, (size_t)ASC_EXPLAIN_MAX_EVENTS * sizeof *x->ev);
        x->ev = NULL, x->mapped = false;
        return;
    }
#endif
    asc_free(&x->a, x->ev);
    x->ev = NULL;
}

/* Room for more events (x->n == x->cap < ASC_EXPLAIN_MAX_EVENTS: the allocator's array, never
 * the mapped one); false: out of memory. */
static bool ev_grow(AscExplain *x)
{
    uint32_t nc = x->cap ? x->cap * 2 : 4096;
    Ev *np = asc_realloc(&x->a, x->ev, (size_t)x->cap * sizeof *np, (size_t)nc * sizeof *np);
    if (!np) return false;
    x->ev = np, x->cap = nc;
    return true;
}

/* rec_insn when there is no room: full, out of memory, or the array grows;
 * then the next observer's call */
__attribute__((noinline)) static void rec_grow(AscExplain *x, const AscSimInsnEvent *e)
{
    if (!x->oom && !x->full) {
        if (x->n == ASC_EXPLAIN_MAX_EVENTS) {
            x->full = true;
            ev_release(x);
            x->n = x->cap = x->room = 0;
            x->last = UINT32_MAX;
        } else if (x->n == x->cap && !ev_grow(x)) {
            x->oom = true;
        }
        if (!x->oom && !x->full) {
            x->room = x->cap < ASC_EXPLAIN_MAX_EVENTS ? x->cap : ASC_EXPLAIN_MAX_EVENTS;
            rec_store(x, e);
        }
    }
    if (x->next.on_insn) x->next.on_insn(x->next.ud, e);
}

/* The store comes before the next observer's call (they are independent), so
 * that call is the last thing on either path and nothing is kept across it. */
static void rec_insn(void *ud, const AscSimInsnEvent *e)
{
    AscExplain *x = ud;
    if (x->n >= x->room) {
        rec_grow(x, e);
        return;
    }
    rec_store(x, e);
    if (x->next.on_insn) x->next.on_insn(x->next.ud, e);
}

static void rec_flag(void *ud, const AscSimFlagEvent *e)
{
    AscExplain *x = ud;
    if (x->next.on_flag) x->next.on_flag(x->next.ud, e);
}

static void rec_counter(void *ud, uint64_t cycle, const char *name, uint32_t core, uint8_t pipe, int64_t value)
{
    AscExplain *x = ud;
    if (x->next.on_counter) x->next.on_counter(x->next.ud, cycle, name, core, pipe, value);
}

AscExplain *asc_explain_new(const AscAlloc *alloc, AscSimObserver *obs)
{
    AscAlloc a = alloc ? *alloc : (AscAlloc){0};
    AscExplain *x = asc_calloc(&a, 1, sizeof *x);
    if (!x) return NULL;
    x->a = a;
    x->next = *obs;
    x->last = UINT32_MAX;
    ev_map(x);
    /* flags and counters are only passed on: with nobody after the recorder to take them
     * it leaves them unset, so the engine skips building them (a counter per transfer
     * every time the HBM sharing changes) */
    *obs = (AscSimObserver){.ud = x, .on_insn = rec_insn, .on_flag = x->next.on_flag ? rec_flag : NULL,
                            .on_counter = x->next.on_counter ? rec_counter : NULL};
    return x;
}

void asc_explain_free(AscExplain *x)
{
    if (!x) return;
    AscAlloc a = x->a;
    ev_release(x);
    asc_free(&a, x->seg);
    asc_free(&a, x->seg_desc);
    asc_free(&a, x->desc);
    asc_free(&a, x);
}

/* The flag (dst, event) a set_flag sets, from its instruction (the event
 * carries the flag only for a stalled wait). */
static bool set_target(const AscExplain *x, const Ev *e, uint8_t *dst, uint8_t *ev)
{
    const AscInsn *in = asc_sim_insn_at(x->sim, e->core, e->pc);
    if (!in || e->op != ASC_OP_SET_FLAG) return false;
    *dst = in->pdst, *ev = in->event;
    return true;
}

static bool is_dma(const Ev *e) { return e->moved && (asc_insn_info[e->op].flags & F_DMA); }

static bool push_seg(AscExplain *x, uint8_t cause, uint32_t ev, uint64_t t0, uint64_t t1, uint32_t from)
{
    if (t1 <= t0) return true;
    if (x->nseg % 1024 == 0) {
        Seg *np = asc_realloc(&x->a, x->seg, (size_t)x->nseg * sizeof *np, ((size_t)x->nseg + 1024) * sizeof *np);
        if (!np) return false;
        x->seg = np;
    }
    x->seg[x->nseg++] = (Seg){cause, ev, t0, t1, from};
    x->by_cause[cause] += t1 - t0;
    return true;
}

/* The own cost of instruction i over [run, until): where its cycles went. */
static bool own_cost(AscExplain *x, uint32_t i, uint64_t run, uint64_t until)
{
    const Ev *e = &x->ev[i];
    uint64_t end = e->end < until ? e->end : until;
    if (is_dma(e)) {
        uint8_t lat = e->src_buf == ASC_BUF_GM ? ASC_CAUSE_GM_READ_LAT
                      : e->dst_buf == ASC_BUF_GM ? ASC_CAUSE_GM_WRITE_LAT
                                                 : ASC_CAUSE_LOCAL_LAT;
        if (!push_seg(x, lat, i, end, until, UINT32_MAX)) return false;
        uint64_t h = e->hbm_extra < end - run ? e->hbm_extra : end - run;
        if (!push_seg(x, ASC_CAUSE_HBM, i, end - h, end, UINT32_MAX)) return false;
        return push_seg(x, e->pipe == ASC_PIPE_MTE2 ? ASC_CAUSE_MTE2 : e->pipe == ASC_PIPE_MTE3 ? ASC_CAUSE_MTE3
                                                                                                 : ASC_CAUSE_MTE_OTHER,
                        i, run, end - h, UINT32_MAX);
    }
    uint8_t c = e->pipe == ASC_PIPE_S ? ASC_CAUSE_SCALAR
                : e->op == ASC_OP_SET_FLAG || e->op == ASC_OP_WAIT_FLAG || e->op == ASC_OP_BAR ? ASC_CAUSE_SYNC
                : e->pipe == ASC_PIPE_V ? ASC_CAUSE_VECTOR
                : e->pipe == ASC_PIPE_M ? ASC_CAUSE_CUBE
                                        : ASC_CAUSE_OTHER;
    if (c == ASC_CAUSE_VECTOR && e->conflict) {
        uint64_t b = e->conflict < end - run ? e->conflict : end - run;
        if (!push_seg(x, ASC_CAUSE_BANK, i, end - b, end, UINT32_MAX)) return false;
        end -= b;
    }
    if (c == ASC_CAUSE_SCALAR && e->op < ASC_OP_COUNT) {
        /* a scalar load or store: S waits lat.scalar_load / lat.scalar_store for the memory (the
         * DCache is not modelled), which is no scalar work: its own cause, at the end of the
         * instruction's cycles */
        uint8_t lat = asc_insn_info[e->op].lat;
        if (lat == ASC_LAT_LOAD || lat == ASC_LAT_STORE) {
            uint64_t w = (uint64_t)asc_sim_config(x->sim)->v[lat == ASC_LAT_LOAD ? ASC_KEY_LAT_SCALAR_LOAD
                                                                                   : ASC_KEY_LAT_SCALAR_STORE];
            if (w > end - run) w = end - run;
            if (!push_seg(x, ASC_CAUSE_SCALAR_MEM, i, end - w, end, UINT32_MAX)) return false;
            end -= w;
        }
    }
    if (!push_seg(x, c, i, run, end, UINT32_MAX)) return false;
    /* completion after the occupancy (a set_flag's or bar's pipe drain is a predecessor, not a cost) */
    return push_seg(x, ASC_CAUSE_OTHER, i, end < e->end ? e->end : end, until, UINT32_MAX);
}

/* The latest event before index j of the core of event `of` (UINT32_MAX: none): the step of
 * every backward search of the walk, in index order like a scan of all events. */
static uint32_t core_prev(const AscExplain *x, uint32_t j, uint32_t of)
{
    if (x->cprev) return x->cprev[j]; /* j is `of` or an earlier event of its core */
    while (j-- > 0)
        if (x->ev[j].core == x->ev[of].core) return j;
    return UINT32_MAX;
}

#define FOR_CORE_BEFORE(x, j, i) for (uint32_t j = core_prev(x, i, i); j != UINT32_MAX; j = core_prev(x, j, i))

/* The latest event of `core` on `pipe` before index i (events of one pipe
 * come in occupancy order) satisfying the test; UINT32_MAX when none. */
static uint32_t prev_on_pipe(const AscExplain *x, uint32_t i)
{
    FOR_CORE_BEFORE(x, j, i)
        if (x->ev[j].pipe == x->ev[i].pipe) return j;
    return UINT32_MAX;
}

/* The earlier event of i's pipe that completed last (what a set_flag / bar drains on). */
static uint32_t pipe_done_at(const AscExplain *x, uint32_t i, uint64_t t)
{
    FOR_CORE_BEFORE(x, j, i)
        if (x->ev[j].pipe == x->ev[i].pipe && x->ev[j].done == t) return j;
    return UINT32_MAX;
}

/* The set_flag whose set released wait i: on the flag's source pipe, done
 * (flag set) at or before the release; events come in occupancy-end order,
 * so the first such going back from i is the latest set. */
static uint32_t setter_of(const AscExplain *x, uint32_t i, uint64_t release)
{
    const Ev *w = &x->ev[i];
    FOR_CORE_BEFORE(x, j, i) {
        const Ev *s = &x->ev[j];
        uint8_t dst, ev;
        if (s->pipe != w->fsrc || s->done > release || !set_target(x, s, &dst, &ev) ||
            dst != w->fdst || ev != w->fev)
            continue;
        return j;
    }
    return UINT32_MAX;
}

/* The scalar event of i's core that ended last at or before t (the scalar
 * unit's events come in order: the first going back from i). */
static uint32_t scalar_before(const AscExplain *x, uint32_t i, uint64_t t)
{
    FOR_CORE_BEFORE(x, j, i) {
        const Ev *s = &x->ev[j];
        if (s->pipe == ASC_PIPE_S && s->end <= t) return j;
    }
    return UINT32_MAX;
}

static void describe(const AscExplain *x, uint32_t i, char *out, size_t size);
static void describe_path(AscExplain *x);

static bool analyse_walk(AscExplain *x, const AscSim *sim);

bool asc_explain_analyse(AscExplain *x, const AscSim *sim)
{
    x->cprev = NULL;
    if (!x->oom && x->n) {
        uint32_t ncores = asc_sim_ncores(sim); /* every event is of one of the run's cores */
        uint32_t *last = asc_malloc(&x->a, (size_t)ncores * sizeof *last);
        x->cprev = last ? asc_malloc(&x->a, (size_t)x->n * sizeof *x->cprev) : NULL;
        if (x->cprev) {
            memset(last, 0xff, (size_t)ncores * sizeof *last);
            for (uint32_t j = 0; j < x->n; j++) {
                x->cprev[j] = last[x->ev[j].core];
                last[x->ev[j].core] = j;
            }
        }
        asc_free(&x->a, last);
    }
    bool ok = analyse_walk(x, sim);
    asc_free(&x->a, x->cprev);
    x->cprev = NULL;
    return ok;
}

static bool analyse_walk(AscExplain *x, const AscSim *sim)
{
    x->sim = sim;
    x->nseg = 0;
    asc_free(&x->a, x->seg_desc);
    asc_free(&x->a, x->desc);
    x->seg_desc = NULL, x->desc = NULL;
    memset(x->by_cause, 0, sizeof x->by_cause);
    x->total = asc_sim_cycles(sim);
    if (x->oom) return false;
    if (!x->n || asc_sim_functional(sim)) return true;
    /* the last core to finish; on it, the event that completed last */
    uint32_t i = x->last; /* kept by rec_store */
    uint64_t until = x->total;
    for (uint32_t guard = 0; i != UINT32_MAX && until > 0 && guard < 4 * x->n + 8; guard++) {
        const Ev *e = &x->ev[i];
        uint64_t t_done = e->done > e->end ? e->done : e->end;
        if (t_done < until && !push_seg(x, ASC_CAUSE_OTHER, i, t_done, until, UINT32_MAX)) return false;
        if (t_done < until) until = t_done;
        /* a set_flag or bar completes when its pipe's earlier work has landed */
        if ((e->op == ASC_OP_SET_FLAG || e->op == ASC_OP_BAR) && e->pipe != ASC_PIPE_S && e->done > e->end) {
            uint32_t j = pipe_done_at(x, i, e->done);
            if (j != UINT32_MAX) {
                i = j;
                continue;
            }
        }
        uint64_t run = e->start + e->stall_cycles;
        if (e->stall == ASC_STALL_DRAIN && e->pipe == ASC_PIPE_S) {
            /* `end` / bar all: the drain is the pipes' work, walked from the last completion */
            if (!push_seg(x, ASC_CAUSE_SCALAR, i, e->end - (e->end - run), until, UINT32_MAX)) return false;
            until = run;
            /* the core's pipe event that completed last by `run`; of equal ones the latest */
            uint32_t j = UINT32_MAX;
            FOR_CORE_BEFORE(x, k, i)
                if (x->ev[k].pipe != ASC_PIPE_S && x->ev[k].done <= run && (j == UINT32_MAX || x->ev[k].done > x->ev[j].done))
                    j = k;
            if (j == UINT32_MAX) j = scalar_before(x, i, e->start);
            i = j;
            continue;
        }
        if (!own_cost(x, i, run, until)) return false;
        until = run;
        if (!until) break;
        uint32_t j = UINT32_MAX;
        if (e->stall == ASC_STALL_FLAG && e->stall_cycles) {
            j = setter_of(x, i, run);
            if (j != UINT32_MAX) {
                /* the wait itself: from the set to the release (the handoff) */
                if (!push_seg(x, ASC_CAUSE_FLAG, i, x->ev[j].done, until, i)) return false;
                if (x->ev[j].done < until) until = x->ev[j].done;
            }
        } else if (e->stall == ASC_STALL_BARRIER && e->stall_cycles) {
            j = pipe_done_at(x, i, run);
        } else if (e->stall != ASC_STALL_NONE && e->stall_cycles) {
            /* cross-core and sync_all waits: the other cores' work is not walked */
            if (!push_seg(x, ASC_CAUSE_OTHER_CORES, i, e->start, until, UINT32_MAX)) return false;
            until = e->start;
        }
        if (j == UINT32_MAX && e->pipe != ASC_PIPE_S) {
            uint32_t p = prev_on_pipe(x, i);
            if (p != UINT32_MAX && x->ev[p].end == e->start && e->start > e->issue) j = p; /* the pipe was busy */
        }
        if (j == UINT32_MAX) j = scalar_before(x, i, e->pipe == ASC_PIPE_S ? e->start : e->issue);
        if (j != UINT32_MAX) {
            uint64_t jt = x->ev[j].done > x->ev[j].end ? x->ev[j].done : x->ev[j].end;
            if (jt < until && !push_seg(x, ASC_CAUSE_ISSUE, i, jt, until, UINT32_MAX)) return false;
            if (jt < until) until = jt;
        }
        i = j;
    }
    /* before the first instruction on the path: the launch */
    if (until && !push_seg(x, ASC_CAUSE_OTHER, x->nseg ? x->seg[x->nseg - 1].ev : x->last, 0, until, UINT32_MAX))
        return false;
    /* chronological order */
    for (uint32_t a = 0, b = x->nseg ? x->nseg - 1 : 0; a < b; a++, b--) {
        Seg t = x->seg[a];
        x->seg[a] = x->seg[b];
        x->seg[b] = t;
    }
    describe_path(x);
    return true;
}

/* x->seg_desc and x->desc for the segments (see AscExplain); left NULL when out of memory. */
static void describe_path(AscExplain *x)
{
    if (!x->nseg) return;
    uint32_t hsize = 64;
    while (hsize < 4 * (uint64_t)x->nseg) hsize *= 2;
    /* open addressing on (core, pc, pipe): the event that was described and its offset */
    uint32_t *hev = asc_malloc(&x->a, (size_t)hsize * sizeof *hev), *hoff = asc_malloc(&x->a, (size_t)hsize * sizeof *hoff);
    uint32_t *sd = asc_malloc(&x->a, (size_t)x->nseg * 2 * sizeof *sd);
    char *desc = NULL;
    size_t len = 0, cap = 0;
    bool ok = hev && hoff && sd;
    if (ok) memset(hev, 0xff, (size_t)hsize * sizeof *hev);
    for (uint32_t k = 0; ok && k < 2 * x->nseg; k++) {
        const Seg *g = &x->seg[k / 2];
        uint32_t i = k % 2 ? (g->cause == ASC_CAUSE_FLAG ? g->from_ev : UINT32_MAX) : g->ev;
        sd[k] = UINT32_MAX;
        if (i == UINT32_MAX) continue;
        const Ev *e = &x->ev[i];
        uint32_t h = (uint32_t)(((uint64_t)e->core * 0x9E3779B1u + e->pc * 0x85EBCA77u + e->pipe) >> 7) & (hsize - 1);
        while (hev[h] != UINT32_MAX) {
            const Ev *o = &x->ev[hev[h]];
            if (o->core == e->core && o->pc == e->pc && o->pipe == e->pipe) break;
            h = (h + 1) & (hsize - 1);
        }
        if (hev[h] == UINT32_MAX) {
            char text[400]; /* asc_explain_seg's sizes: AscExplainSeg.insn and its waiter's w */
            _Static_assert(sizeof ((AscExplainSeg *)0)->insn == 400, "describe() truncates alike");
            describe(x, i, text, sizeof text);
            size_t tl = strlen(text) + 1;
            if (len + tl > cap || len + tl > UINT32_MAX) {
                size_t nc = cap ? cap * 2 : 16384;
                while (nc < len + tl) nc *= 2;
                char *np = len + tl > UINT32_MAX ? NULL : asc_realloc(&x->a, desc, cap, nc);
                if (!np) {
                    ok = false;
                    break;
                }
                desc = np, cap = nc;
            }
            memcpy(desc + len, text, tl);
            hev[h] = i, hoff[h] = (uint32_t)len;
            len += tl;
        }
        sd[k] = hoff[h];
    }
    asc_free(&x->a, hev);
    asc_free(&x->a, hoff);
    if (!ok) {
        asc_free(&x->a, sd);
        asc_free(&x->a, desc);
        return;
    }
    x->seg_desc = sd, x->desc = desc;
}

uint64_t asc_explain_cause_cycles(const AscExplain *x, unsigned cause)
{
    return cause < ASC_CAUSE_COUNT ? x->by_cause[cause] : 0;
}

/* ---- the bound ------------------------------------------------------------ *
 * Rule (docs/timing.md §Explain): sum the critical path's cycles by class
 * (latency, the pipe of a transfer or compute, HBM, bank conflicts, sync,
 * scalar, other cores); the class with the most cycles is the bound, ties
 * to the earlier class in ASC_CAUSES.  The shares of a kernel that repeats
 * one tile do not depend on the number of tiles, so the answer does not
 * depend on the size unless the steady state changes (a pipelined kernel
 * whose fill is latency and whose steady state is a pipe: its share then
 * grows with the tiles, and the class that has the most cycles says so). */
static const char *classify(const AscExplain *x, uint64_t *cycles)
{
    static const char *const classes[] = {"latency", "MTE2", "MTE3", "MTE", "HBM", "VECTOR", "bank-conflict",
                                          "CUBE", "scalar", "scalar-memory", "sync", "cross-core", "other"};
    uint64_t sum[sizeof classes / sizeof classes[0]] = {0};
    for (unsigned c = 0; c < ASC_CAUSE_COUNT; c++)
        for (unsigned k = 0; k < sizeof classes / sizeof classes[0]; k++)
            if (!strcmp(cause_class[c], classes[k])) sum[k] += x->by_cause[c];
    unsigned best = 0;
    for (unsigned k = 1; k < sizeof classes / sizeof classes[0]; k++)
        if (sum[k] > sum[best]) best = k;
    *cycles = sum[best];
    return classes[best];
}

/* "12.3" in tenths of a percent, rounded down */
static const char *pct(char *buf, uint64_t a, uint64_t b)
{
    uint64_t t = b ? a * 1000 / b : 0;
    snprintf(buf, 32, "%llu.%llu", (unsigned long long)(t / 10), (unsigned long long)(t % 10));
    return buf;
}

int asc_explain_bound(const AscExplain *x, char *out, size_t size)
{
    if (!x || !x->sim) return snprintf(out, size, "bound: not classified (no critical path recorded)");
    if (x->full)
        return snprintf(out, size, "bound: not classified (the run has more than %u instructions, more than the "
                                   "critical-path recorder keeps)", ASC_EXPLAIN_MAX_EVENTS);
    if (asc_sim_functional(x->sim)) return snprintf(out, size, "functional run: no timing");
    uint64_t c;
    const char *cls = classify(x, &c);
    char a[32];
    /* the largest single cause, named */
    unsigned top = 0;
    for (unsigned k = 1; k < ASC_CAUSE_COUNT; k++)
        if (x->by_cause[k] > x->by_cause[top]) top = k;
    char b[32];
    return snprintf(out, size, "%s bound: %s is %s%% of the %llu-cycle critical path (largest cause: %s, %s%%)", cls,
                    !strcmp(cls, "latency")         ? "transfer latency"
                    : !strcmp(cls, "scalar-memory") ? "scalar load/store latency"
                                                    : cls,
                    pct(a, c, x->total),
                    (unsigned long long)x->total, cause_names[top], pct(b, x->by_cause[top], x->total));
}

/* ---- what-ifs ------------------------------------------------------------- */

/* A flag handed out before its source pipe did any work (only set_flags before
 * it): a buffer-free token of the double-buffer pattern. */
static bool buffer_flag(const AscExplain *x, uint32_t core, uint8_t src, uint8_t dst, uint8_t ev)
{
    for (uint32_t j = 0; j < x->n; j++) {
        const Ev *e = &x->ev[j];
        if (e->core != core || e->pipe != src) continue;
        uint8_t d, v;
        if (!set_target(x, e, &d, &v)) return false;
        if (d == dst && v == ev) return true;
    }
    return false;
}

/* The flag a wait_flag event waits on. */
static bool wait_target(const AscExplain *x, const Ev *e, uint8_t f[3])
{
    const AscInsn *in = asc_sim_insn_at(x->sim, e->core, e->pc);
    if (!in || e->op != ASC_OP_WAIT_FLAG) return false;
    f[0] = in->psrc, f[1] = in->pdst, f[2] = in->event;
    return true;
}

/* The stages a buffer-free flag F (S_n -> S_1) closes: starting at S_1, the
 * first flag each stage sets to another pipe after its first wait on the flag
 * that handed it its input, until the set is F.  chain[k] is f_(k+1), the
 * queue from stage k to stage k+1 (F last); returns the number of stages n
 * (0: the flags do not close into one loop of pipes). */
static unsigned stage_chain(const AscExplain *x, uint32_t core, const uint8_t F[3], uint8_t chain[][3])
{
    uint8_t in[3] = {F[0], F[1], F[2]};
    bool seen[ASC_PIPE_COUNT] = {false};
    for (unsigned n = 0; n < ASC_PIPE_COUNT; n++) {
        uint8_t p = in[1];
        if (p == ASC_PIPE_S || seen[p]) return 0;
        seen[p] = true;
        bool waited = false, found = false;
        for (uint32_t j = 0; j < x->n && !found; j++) {
            const Ev *e = &x->ev[j];
            uint8_t f[3];
            if (e->core != core || e->pipe != p) continue;
            if (!waited) {
                waited = wait_target(x, e, f) && !memcmp(f, in, 3);
                continue;
            }
            if (set_target(x, e, &f[1], &f[2]) && f[1] != p && f[1] != ASC_PIPE_S) {
                chain[n][0] = p, chain[n][1] = f[1], chain[n][2] = f[2];
                found = true;
            }
        }
        if (!found) return 0;
        if (!memcmp(chain[n], F, 3)) return n + 1;
        memcpy(in, chain[n], 3);
    }
    return 0;
}

/* A flag id of (src -> dst) that no set_flag or wait_flag of the run uses
 * (the highest); -1 when every id is used. */
static int free_flag_id(const AscExplain *x, uint8_t src, uint8_t dst)
{
    bool used[ASC_SIM_MAX_EVENTS] = {false};
    for (uint32_t j = 0; j < x->n; j++) {
        uint8_t f[3];
        const Ev *e = &x->ev[j];
        if (set_target(x, e, &f[1], &f[2])) f[0] = e->pipe;
        else if (!wait_target(x, e, f)) continue;
        if (f[0] == src && f[1] == dst && f[2] < ASC_SIM_MAX_EVENTS) used[f[2]] = true;
    }
    for (int id = ASC_SIM_MAX_EVENTS; id-- > 0;)
        if (!used[id]) return id;
    return -1;
}

static void add_whatif(AscExplain *x, bool kernel, const uint8_t *flag, uint32_t core, const char *what,
                       const char *change)
{
    if (x->nwi == ASC_EXPLAIN_MAX_WHATIF) return;
    for (uint32_t k = 0; k < x->nwi; k++)
        if (!strcmp(x->wi[k].what, what)) return;
    WhatIf *w = &x->wi[x->nwi++];
    memset(w, 0, sizeof *w);
    w->kernel = kernel;
    if (flag) memcpy(w->flag, flag, 3);
    w->core = core;
    snprintf(w->what, sizeof w->what, "%s", what);
    snprintf(w->change, sizeof w->change, "%s", change);
}

/* Double buffering, as the what-if runs it.  F (S_n -> S_1) is a buffer-free
 * flag; the stages it closes hand buffers on through the queues f_1 .. f_(n-1)
 * (stage_chain).  With one more buffer of each, as the double-buffer pattern
 * writes it (kernels/asm/vadd_double.s, the Ascend C TQue of depth 2), every
 * queue f_k gets its own free flag b_k (S_(k+1) -> S_k, an unused id) with two
 * tokens: a stage's input buffer is free once it has handed on its output
 * (its set of f_(k+1), or of F for the last stage), and a stage waits for its
 * output buffer being free when it waits for its input.  So:
 *   S_1's waits on F wait on b_1; the set of f_(k+1) also sets b_k; the last
 *   stage's set of F sets b_(n-1) instead (the kernel's first set of F, its
 *   one token, so b_(n-1) gets one more); S_(k+1)'s waits on f_k also wait on
 *   (and consume) b_(k+1).
 * Two stages (n = 2) is F with one more token (asc_sim_add_buffer). */
static bool double_buffer(const AscExplain *x, AscSim *sim, const WhatIf *w)
{
    uint8_t chain[ASC_PIPE_COUNT][3];
    unsigned n = stage_chain(x, w->core, w->flag, chain);
    if (n < 3) return asc_sim_add_buffer(sim, w->flag[0], w->flag[1], w->flag[2]);
    if (n > ASC_PIPE_COUNT) return false; /* stage_chain never says so; tells the compiler b[] suffices */
    uint8_t b[ASC_PIPE_COUNT][3];
    for (unsigned k = 0; k + 1 < n; k++) {
        int id = free_flag_id(x, chain[k][1], chain[k][0]);
        if (id < 0) return false;
        b[k][0] = chain[k][1], b[k][1] = chain[k][0], b[k][2] = (uint8_t)id;
    }
    bool ok = asc_sim_flag_rule(sim, ASC_FLAG_RULE_MOVE_WAIT, w->flag, b[0]) &&
              asc_sim_flag_rule(sim, ASC_FLAG_RULE_MOVE_SET, w->flag, b[n - 2]) &&
              asc_sim_add_buffer(sim, b[n - 2][0], b[n - 2][1], b[n - 2][2]);
    for (unsigned k = 0; ok && k + 2 < n; k++)
        ok = asc_sim_flag_rule(sim, ASC_FLAG_RULE_TEE, chain[k + 1], b[k]) &&
             asc_sim_flag_rule(sim, ASC_FLAG_RULE_JOIN_WAIT, chain[k], b[k + 1]) &&
             asc_sim_flag_tokens(sim, b[k][0], b[k][1], b[k][2], 2);
    return ok;
}

/* One re-simulation: config `cfg` (changed), and for a kernel what-if double buffering. */
static void rerun(const AscExplain *x, WhatIf *w, const AscSimDesc *base, const AscConfig *cfg, const AscRunArg *args,
                  uint32_t nargs)
{
    AscDiags d;
    asc_diags_init(&d, NULL);
    AscSimDesc desc = *base;
    desc.cfg = cfg;
    desc.observer = (AscSimObserver){0};
    desc.check_races = false;
    AscSim *sim = asc_sim_new(&desc, &d);
    bool set = sim && (!w->kernel || double_buffer(x, sim, w));
    if (sim && !set) {
        snprintf(w->err, sizeof w->err, "the what-if's flags could not be set up");
    } else if (sim && asc_sim_bind_args(sim, args, nargs, &d)) {
        AscSimStatus st = asc_sim_run(sim, 0);
        if (st == ASC_SIM_DONE) {
            w->ok = true;
            w->cycles = asc_sim_cycles(sim);
        } else {
            asc_sim_status_format(sim, st, 0, w->err, sizeof w->err);
        }
    } else {
        snprintf(w->err, sizeof w->err, "%s", d.count ? d.items[0].msg : "the what-if run could not start");
    }
    asc_sim_free(sim);
    asc_diags_free(&d);
}

bool asc_explain_whatif(AscExplain *x, const AscSimDesc *base, const AscRunArg *args, uint32_t nargs, AscDiags *d)
{
    (void)d;
    if (!x->sim || asc_sim_functional(x->sim)) return true;
    x->nwi = 0;
    /* kernel changes: double buffering behind each buffer-free flag waited on along the path */
    for (uint32_t s = 0; s < x->nseg; s++) {
        const Seg *g = &x->seg[s];
        if (g->cause != ASC_CAUSE_FLAG || g->from_ev == UINT32_MAX) continue;
        const Ev *w = &x->ev[g->from_ev];
        if (!buffer_flag(x, w->core, w->fsrc, w->fdst, w->fev)) continue;
        uint8_t F[3] = {w->fsrc, w->fdst, w->fev}, chain[ASC_PIPE_COUNT][3];
        unsigned n = stage_chain(x, w->core, F, chain);
        char what[160], change[160], stages[64] = "";
        if (n >= 3) {
            for (unsigned k = 0; k < n; k++) {
                size_t l = strlen(stages);
                snprintf(stages + l, sizeof stages - l, "%s%s", k ? "->" : "", asc_pipe_lane(chain[k][0]));
            }
            snprintf(what, sizeof what, "one more buffer for each queue %s (free flag %s->%s id %u)", stages,
                     asc_pipe_lane(F[0]), asc_pipe_lane(F[1]), F[2]);
            snprintf(change, sizeof change,
                     "double-buffer the data guarded by %s->%s id %u (a second buffer and a free flag per queue %s)",
                     asc_pipe_lane(F[0]), asc_pipe_lane(F[1]), F[2], stages);
        } else {
            snprintf(what, sizeof what, "one more buffer behind flag %s->%s id %u", asc_pipe_lane(F[0]),
                     asc_pipe_lane(F[1]), F[2]);
            snprintf(change, sizeof change,
                     "double-buffer the data guarded by %s->%s id %u (a second buffer and flag id)",
                     asc_pipe_lane(F[0]), asc_pipe_lane(F[1]), F[2]);
        }
        add_whatif(x, true, F, w->core, what, change);
    }
    /* costs on the path, each zeroed */
    static const struct {
        uint8_t cause;
        AscConfigKey key;
        int64_t value;
        const char *change;
    } costs[] = {
        {ASC_CAUSE_GM_READ_LAT, ASC_KEY_GM_READ_LATENCY, 0, "GM read latency vanished"},
        {ASC_CAUSE_GM_WRITE_LAT, ASC_KEY_GM_WRITE_LATENCY, 0, "GM write latency vanished"},
        {ASC_CAUSE_LOCAL_LAT, ASC_KEY_LOCAL_LATENCY, 0, "local copy latency vanished"},
        {ASC_CAUSE_HBM, ASC_KEY_HBM_BYTES_PER_CYCLE, 1048576, "HBM contention vanished (HBM at its maximum rate)"},
        {ASC_CAUSE_FLAG, ASC_KEY_FLAG_RELEASE, 0, "flag handoff vanished"},
        {ASC_CAUSE_SCALAR_MEM, ASC_KEY_LAT_SCALAR_LOAD, 0, "scalar load latency vanished"},
    };
    for (unsigned k = 0; k < sizeof costs / sizeof costs[0]; k++) {
        if (!x->by_cause[costs[k].cause]) continue;
        char what[160];
        snprintf(what, sizeof what, "%s=%lld", asc_config_keys[costs[k].key].key, (long long)costs[k].value);
        add_whatif(x, false, NULL, 0, what, costs[k].change);
    }
    for (uint32_t k = 0; k < x->nwi; k++) {
        WhatIf *w = &x->wi[k];
        AscConfig cfg = *asc_sim_config(x->sim);
        if (!w->kernel) {
            char key[96];
            long long v;
            if (sscanf(w->what, "%95[^=]=%lld", key, &v) == 2) {
                int ki = asc_config_key_index(key);
                if (ki >= 0) cfg.v[ki] = v;
            }
        }
        rerun(x, w, base, &cfg, args, nargs);
    }
    /* ranked: kernel changes first, each group by cycles saved (most first), then name */
    for (uint32_t a = 1; a < x->nwi; a++)
        for (uint32_t b = a; b > 0; b--) {
            WhatIf *p = &x->wi[b - 1], *q = &x->wi[b];
            uint64_t sp = p->ok && p->cycles < x->total ? x->total - p->cycles : 0;
            uint64_t sq = q->ok && q->cycles < x->total ? x->total - q->cycles : 0;
            bool swap = p->kernel != q->kernel ? q->kernel : sq > sp || (sq == sp && strcmp(q->what, p->what) < 0);
            if (!swap) break;
            WhatIf t = *p;
            *p = *q;
            *q = t;
        }
    x->whatif_done = true;
    return true;
}

/* ---- text and JSON ---------------------------------------------------------- */

static void describe(const AscExplain *x, uint32_t i, char *out, size_t size)
{
    const Ev *e = &x->ev[i];
    char text[128], src[200], core[48];
    const AscInsn *in = asc_sim_insn_at(x->sim, e->core, e->pc);
    if (in) asc_insn_print(in, text, sizeof text);
    else snprintf(text, sizeof text, "?");
    asc_sim_source(x->sim, e->pc, src, sizeof src);
    asc_sim_core_name(x->sim, e->core, core, sizeof core);
    snprintf(out, size, "%s %s pc 0x%04x `%s`%s%s%s", core, asc_pipe_lane(e->pipe) ? asc_pipe_lane(e->pipe) : "?",
             e->pc, text, src[0] ? " (" : "", src, src[0] ? ")" : "");
}

uint32_t asc_explain_nsegs(const AscExplain *x) { return x->nseg; }

bool asc_explain_seg(const AscExplain *x, uint32_t k, AscExplainSeg *out)
{
    if (k >= x->nseg) return false;
    const Seg *g = &x->seg[k];
    const Ev *e = &x->ev[g->ev];
    *out = (AscExplainSeg){.cause = g->cause, .core = e->core, .pipe = e->pipe, .pc = e->pc, .t0 = g->t0, .t1 = g->t1};
    if (x->seg_desc) memcpy(out->insn, x->desc + x->seg_desc[2 * k], strlen(x->desc + x->seg_desc[2 * k]) + 1);
    else describe(x, g->ev, out->insn, sizeof out->insn);
    out->why[0] = 0;
    if (g->cause == ASC_CAUSE_FLAG && g->from_ev != UINT32_MAX) {
        char w[400];
        if (x->seg_desc) memcpy(w, x->desc + x->seg_desc[2 * k + 1], strlen(x->desc + x->seg_desc[2 * k + 1]) + 1);
        else describe(x, g->from_ev, w, sizeof w);
        snprintf(out->why, sizeof out->why, "%s waited on flag %s->%s id %u until it was set at cycle %llu", w,
                 asc_pipe_lane(x->ev[g->from_ev].fsrc), asc_pipe_lane(x->ev[g->from_ev].fdst), x->ev[g->from_ev].fev,
                 (unsigned long long)g->t0);
    }
    return true;
}

void asc_explain_pc_costs(const AscExplain *x, uint32_t ncores, const uint32_t *entry, const uint32_t *n,
                          const size_t *base, uint64_t *busy, uint64_t *conflict)
{
    for (uint32_t c = 0; c < ncores; c++) {
        memset(busy + base[c], 0, n[c] * sizeof *busy);
        memset(conflict + base[c], 0, n[c] * sizeof *conflict);
    }
    if (!x) return;
    for (uint32_t j = 0; j < x->n; j++) {
        const Ev *e = &x->ev[j];
        uint32_t c = e->core;
        if (c >= ncores || e->pc < entry[c] || (e->pc - entry[c]) % 4 || (e->pc - entry[c]) / 4 >= n[c]) continue;
        size_t k = base[c] + (e->pc - entry[c]) / 4;
        busy[k] += e->end - e->start - e->stall_cycles;
        conflict[k] += e->conflict;
    }
}

uint32_t asc_explain_nwhatifs(const AscExplain *x) { return x->whatif_done ? x->nwi : 0; }

bool asc_explain_whatif_get(const AscExplain *x, uint32_t k, AscExplainWhatIf *out)
{
    if (!x->whatif_done || k >= x->nwi) return false;
    const WhatIf *w = &x->wi[k];
    *out = (AscExplainWhatIf){.kernel = w->kernel, .ok = w->ok, .cycles = w->cycles,
                              .saved = w->ok && w->cycles < x->total ? x->total - w->cycles : 0};
    snprintf(out->what, sizeof out->what, "%s", w->what);
    snprintf(out->change, sizeof out->change, "%s", w->change);
    snprintf(out->err, sizeof out->err, "%s", w->err);
    return true;
}

uint64_t asc_explain_total(const AscExplain *x) { return x->total; }

bool asc_explain_pc_cost(const AscExplain *x, uint32_t core, uint32_t pc, uint64_t *busy, uint64_t *conflict)
{
    *busy = *conflict = 0;
    if (!x) return false;
    for (uint32_t j = 0; j < x->n; j++) {
        const Ev *e = &x->ev[j];
        if (e->core != core || e->pc != pc) continue;
        *busy += e->end - e->start - e->stall_cycles;
        *conflict += e->conflict;
    }
    return true;
}
