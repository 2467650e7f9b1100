/* race_gm.c -- racecheck on GM and across cores (--sanitize=racecheck; docs/timing.md
 * §Sanitizers).  race.c orders the units of one core with vector clocks over its pipes; this
 * file adds what one core knows of the others and a shadow of every GM allocation.
 *
 * Users: race.c (its hooks call ours when c->race->gm is set), core.c (cross-core sets
 * reaching their targets), scalar.c (scalar GM accesses, sync_all), san.c (allocations).
 *
 * Releases.  A core's GM accesses become visible to other cores only through its releases:
 * a set_cross_core taking effect, or its arrival at sync_all.  Core j numbers its releases
 * 1, 2, ...  Release r carries the local clock L of the unit that made it (the clock race.c
 * gives a set_flag: a pipe's set fires after its earlier instructions completed); it covers an
 * access of pipe p with epoch e iff L[p] >= e, and because a later release of the same core
 * may carry less (another pipe), coverage is kept as M_p(r) = max over releases <= r of L[p]:
 * per pipe a ring of the change points (r, M_p).  One vector clock component per core: unit u
 * of core i holds K_u[j] = the last release of core j ordered before u (j != i).
 *
 * Edges.  A release of core j made by unit s carries K_s with K[j] = r; it joins into the
 * join of its (mode, id) group, which passes it to the counter of each target core at the
 * join (core.c), a wait_flag_dev on that counter joins it into
 * the scalar unit S; sync_all joins every arriving core's release into one clock that every
 * leaving core's S joins (kernel start: everything 0, so host writes order before all).  S
 * passes K on to what it issues: a pipe joins S's K as of the issue (a ring of ASC_GM_SNAPS
 * snapshots of K_S, one per change, each queue entry naming its snapshot; an entry older than
 * the ring joins the oldest kept, which holds more: a race may be missed, none invented).
 * Inside a core K follows the local edges: a wait_flag joins the setter pipe's current K, a
 * drain joins all units' K.  An access A = (core j, pipe p, epoch e) is ordered before the
 * access at hand by unit q of core i iff j == i and (p == q or VC_q[p] >= e) (race.c's rule),
 * or j != i and the first release of j that covers (p, e) is <= K_q[j].  When that release
 * fell out of the ring, A counts as ordered (a miss, never a false report).
 *
 * Shadow.  Per 32 B granule of each GM allocation (ASC_RACE_GM_WORDS words): the last write
 * (who = core + 1 << 9 | atomic << 8 | pipe, epoch, pc, mask of the bytes) and two reads (who,
 * epoch, pc, mask).  Two accesses conflict only when their byte masks meet: cores storing
 * neighbouring elements of one granule (a scalar gather, a DataCopyPad row) are no race.  A read
 * replaces a read it is ordered after (or of its own unit), else the older one; a write
 * replaces the last write (an unordered write to other bytes of the granule is then forgotten:
 * a later race with it may be missed, none is invented).  Atomic writes
 * (the instruction ran under st_atomic) do not race with each other; an atomic write races
 * with a plain access like any write.  The scalar unit's GM loads and stores are accesses of
 * S, numbered by their own epochs (VC_S[S]).
 *
 * Reports go through san.c's list (check racecheck), keyed (pc, kind, earlier pc): the core,
 * pipe, pc and source line of both sides, the argument and the bytes.
 *
 * Invariants: everything is allocated at asc_sim_new / asc_sim_gm_place; nothing while
 * running; with racecheck off c->race->gm is NULL and no hook here is called. */
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"
#include "sim_internal.h"

#define ASC_GM_SNAPS 64 /* snapshots of K_S */
#define ASC_GM_CP 256   /* change points per pipe */

typedef struct GmCp {
    uint32_t rel, m;
} GmCp;

typedef struct AscRaceGmCore {
    uint32_t n;                       /* cores */
    uint32_t *k[ASC_PIPE_COUNT];      /* per unit: n words */
    uint32_t *xk[ASC_XCORE_IDS];      /* per cross-core counter of this core */
    uint32_t *xa[ASC_XCORE_MODES][ASC_XCORE_IDS]; /* per join: the releases of this core's sets not yet joined */
    uint32_t *snap;                   /* ASC_GM_SNAPS x n */
    uint32_t snap_gen[ASC_GM_SNAPS];
    uint32_t gen;
    uint32_t *qgen[ASC_PIPE_COUNT];   /* per pipe queue entry: the snapshot of its issue */
    uint32_t nrel;                    /* releases made */
    uint32_t *rel;                    /* n words: K of the last release */
    uint32_t mcov[ASC_PIPE_COUNT];
    GmCp *cp[ASC_PIPE_COUNT];         /* ring of ASC_GM_CP */
    uint32_t ncp[ASC_PIPE_COUNT];     /* change points ever */
} AscRaceGmCore;

static void join(uint32_t *to, const uint32_t *from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (from[i] > to[i]) to[i] = from[i];
}

bool asc_race_gm_init(AscSim *sim, AscCore *c)
{
    uint32_t n = sim->ncores;
    AscRaceGmCore *g = asc_calloc(&sim->alloc, 1, sizeof *g);
    if (!g) return false;
    c->race->gm = g;
    g->n = n;
    for (unsigned i = 0; i < ASC_PIPE_COUNT; i++) {
        bool unit = i == ASC_PIPE_S || c->pipes[i].present;
        if (!unit) continue;
        g->k[i] = asc_calloc(&sim->alloc, n, sizeof(uint32_t));
        g->cp[i] = asc_calloc(&sim->alloc, ASC_GM_CP, sizeof(GmCp));
        if (!g->k[i] || !g->cp[i]) return false;
        if (i != ASC_PIPE_S) {
            g->qgen[i] = asc_calloc(&sim->alloc, c->pipes[i].qcap ? c->pipes[i].qcap : 1, sizeof(uint32_t));
            if (!g->qgen[i]) return false;
        }
    }
    for (unsigned x = 0; x < ASC_XCORE_IDS; x++)
        if (!(g->xk[x] = asc_calloc(&sim->alloc, n, sizeof(uint32_t)))) return false;
    for (unsigned m = 0; m < ASC_XCORE_MODES; m++)
        for (unsigned x = 0; x < ASC_XCORE_IDS; x++)
            if (!(g->xa[m][x] = asc_calloc(&sim->alloc, n, sizeof(uint32_t)))) return false;
    g->snap = asc_calloc(&sim->alloc, (size_t)ASC_GM_SNAPS * n, sizeof(uint32_t));
    g->rel = asc_calloc(&sim->alloc, n, sizeof(uint32_t));
    if (!g->snap || !g->rel) return false;
    if (!sim->race_bar && !(sim->race_bar = asc_calloc(&sim->alloc, n, sizeof(uint32_t)))) return false;
    return true;
}

void asc_race_gm_free(AscSim *sim, AscCore *c)
{
    AscRaceGmCore *g = c->race ? c->race->gm : NULL;
    if (!g) return;
    for (unsigned i = 0; i < ASC_PIPE_COUNT; i++) {
        asc_free(&sim->alloc, g->k[i]);
        asc_free(&sim->alloc, g->cp[i]);
        asc_free(&sim->alloc, g->qgen[i]);
    }
    for (unsigned x = 0; x < ASC_XCORE_IDS; x++) asc_free(&sim->alloc, g->xk[x]);
    for (unsigned m = 0; m < ASC_XCORE_MODES; m++)
        for (unsigned x = 0; x < ASC_XCORE_IDS; x++) asc_free(&sim->alloc, g->xa[m][x]);
    asc_free(&sim->alloc, g->snap);
    asc_free(&sim->alloc, g->rel);
    asc_free(&sim->alloc, g);
    c->race->gm = NULL;
    if (c->index == 0) {
        asc_free(&sim->alloc, sim->race_bar);
        sim->race_bar = NULL;
    }
}

bool asc_race_gm_alloc(AscSim *sim, AscGmAlloc *a)
{
    size_t n = (size_t)((a->bytes + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE);
    a->race = asc_calloc(&sim->alloc, (n ? n : 1) * ASC_RACE_GM_WORDS, sizeof(uint32_t));
    return a->race != NULL;
}

/* ---- edges ------------------------------------------------------------------------------ */

/* K_S changed: a new snapshot for what S issues from now on. */
static void snapshot(AscRaceGmCore *g)
{
    g->gen++;
    uint32_t s = g->gen % ASC_GM_SNAPS;
    g->snap_gen[s] = g->gen;
    memcpy(g->snap + (size_t)s * g->n, g->k[ASC_PIPE_S], g->n * sizeof(uint32_t));
}

void asc_race_gm_issue(AscCore *c, uint8_t pipe, uint32_t i)
{
    AscRaceGmCore *g = c->race->gm;
    g->qgen[pipe][i] = g->gen;
}

void asc_race_gm_start(AscCore *c, uint8_t pipe, uint32_t i)
{
    AscRaceGmCore *g = c->race->gm;
    uint32_t want = g->qgen[pipe][i];
    if (g->gen - want >= ASC_GM_SNAPS) want = g->gen - (ASC_GM_SNAPS - 1); /* the oldest kept */
    uint32_t s = want % ASC_GM_SNAPS;
    if (g->snap_gen[s] != want) return; /* gen 0 before any change: K_S was all zero */
    join(g->k[pipe], g->snap + (size_t)s * g->n, g->n);
}

void asc_race_gm_flag_wait(AscCore *c, uint8_t src, uint8_t dst)
{
    AscRaceGmCore *g = c->race->gm;
    if (!g->k[src] || !g->k[dst]) return;
    join(g->k[dst], g->k[src], g->n);
    if (dst == ASC_PIPE_S) snapshot(g);
}

void asc_race_gm_xwait(AscCore *c, uint8_t xid)
{
    AscRaceGmCore *g = c->race->gm;
    join(g->k[ASC_PIPE_S], g->xk[xid], g->n);
    snapshot(g);
}

void asc_race_gm_drain(AscCore *c)
{
    AscRaceGmCore *g = c->race->gm;
    for (unsigned i = 1; i < ASC_PIPE_COUNT; i++)
        if (g->k[i]) join(g->k[ASC_PIPE_S], g->k[i], g->n);
    for (unsigned i = 1; i < ASC_PIPE_COUNT; i++)
        if (g->k[i]) memcpy(g->k[i], g->k[ASC_PIPE_S], g->n * sizeof(uint32_t));
    snapshot(g);
}

void asc_race_gm_release(AscCore *c, uint8_t src, const uint32_t *vc)
{
    AscRaceGmCore *g = c->race->gm;
    uint32_t r = ++g->nrel;
    for (unsigned p = 0; p < ASC_PIPE_COUNT; p++) {
        if (!g->cp[p] || vc[p] <= g->mcov[p]) continue;
        g->mcov[p] = vc[p];
        g->cp[p][g->ncp[p]++ % ASC_GM_CP] = (GmCp){r, vc[p]};
    }
    memcpy(g->rel, g->k[src] ? g->k[src] : g->k[ASC_PIPE_S], g->n * sizeof(uint32_t));
    g->rel[c->index] = r;
}

/* Joins (core.c): a set's release waits in its core's arrival clock until the join; the join
 * passes every member's arrival clock to each target's counter.  A member that ran several
 * sets ahead keeps the join of their releases after the first join: that may order more than
 * the later join does (a race missed, none invented). */
void asc_race_gm_arrive(AscCore *c, uint8_t mode, uint8_t xid)
{
    AscRaceGmCore *g = c->race->gm;
    join(g->xa[mode][xid], g->rel, g->n);
}

void asc_race_gm_deliver(const AscCore *m, AscCore *t, uint8_t mode, uint8_t xid)
{
    if (!t->race || !t->race->gm || !m->race || !m->race->gm) return;
    join(t->race->gm->xk[xid], m->race->gm->xa[mode][xid], m->race->gm->n);
}

void asc_race_gm_joined(AscCore *m, uint8_t mode, uint8_t xid)
{
    AscRaceGmCore *g = m->race->gm;
    if (!m->xarr[mode][xid]) memset(g->xa[mode][xid], 0, g->n * sizeof(uint32_t));
}

void asc_race_gm_sync_arrive(AscSim *sim, AscCore *c)
{
    asc_race_gm_release(c, ASC_PIPE_S, c->race->vc[ASC_PIPE_S]);
    join(sim->race_bar, c->race->gm->rel, c->race->gm->n);
}

void asc_race_gm_sync_leave(AscSim *sim, AscCore *c)
{
    AscRaceGmCore *g = c->race->gm;
    join(g->k[ASC_PIPE_S], sim->race_bar, g->n);
    snapshot(g);
}

/* ---- accesses ----------------------------------------------------------------------------- */

/* Is access (core j, pipe p, epoch e) ordered before unit q of core c? */
static bool ordered(const AscSim *sim, const AscCore *c, uint8_t q, uint32_t j, uint8_t p, uint32_t e)
{
    if (j == c->index) return p == q || c->race->vc[q][p] >= e;
    const AscRaceGmCore *o = sim->cores[j].race->gm;
    uint32_t known = c->race->gm->k[q][j];
    if (!known || p >= ASC_PIPE_COUNT || !o->cp[p] || e > o->mcov[p]) return false;
    /* the first change point with m >= e: binary search over the kept ring (sorted) */
    uint32_t total = o->ncp[p], kept = total < ASC_GM_CP ? total : ASC_GM_CP;
    uint32_t lo = total - kept, hi = total; /* indices into the ever-numbered sequence */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->cp[p][mid % ASC_GM_CP].m >= e) hi = mid;
        else lo = mid + 1;
    }
    if (lo == total - kept && total > kept) return true; /* fell out of the ring: a miss, not a false report */
    return o->cp[p][lo % ASC_GM_CP].rel <= known;
}

static const char *const kinds[] = {"RAW", "WAR", "WAW"};

static void found(AscSim *sim, AscCore *c, uint8_t q, uint32_t pc, bool write, bool atomic, unsigned kind,
                  const AscGmAlloc *a, uint64_t lo, uint64_t hi, const uint32_t *prev)
{
    uint32_t pj = (prev[0] >> 9) - 1, ppc = prev[2];
    uint8_t pp = (uint8_t)(prev[0] & 0xff);
    bool patomic = (prev[0] >> 8) & 1;
    uint32_t what = (uint32_t)kind | (uint32_t)(a - sim->allocs) << 2 | ppc << 10;
    char *m = asc_san_claim(sim, ASC_SAN_RACECHECK, ASC_SEV_ERROR, c, q, pc, what);
    if (!m) return;
    char now[480], was[480];
    asc_san_who(sim, c, q, pc, true, now, sizeof now);
    asc_san_who(sim, &sim->cores[pj], pp, ppc, false, was, sizeof was);
    asc_san_put(m,
             "racecheck (%s) on GM: %s %s%s %s [0x%llx, 0x%llx) %s%s by %s: %s orders them", kinds[kind], now,
             write ? "writes" : "reads", atomic ? " (atomic)" : "", a->name, (unsigned long long)lo,
             (unsigned long long)hi, kind == 1 ? "read" : "written", patomic ? " (atomic)" : "", was,
             pj == c->index ? "no flag or barrier" : "no cross-core flag or sync_all");
}

void asc_race_gm_access(AscCore *c, uint8_t q, uint32_t ep, uint32_t pc, bool atomic, uint64_t lo, uint64_t hi,
                        bool write)
{
    AscSim *sim = c->sim;
    AscGmAlloc *a = NULL;
    for (uint32_t i = 0; i < sim->nallocs; i++)
        if (lo >= sim->allocs[i].base && lo - sim->allocs[i].base < sim->allocs[i].bytes) {
            a = &sim->allocs[i];
            break;
        }
    if (!a || !a->race) return; /* outside every allocation: memcheck's business; .rodata is never written */
    if (hi > a->base + a->bytes) hi = a->base + a->bytes;
    if (hi <= lo) return;
    uint32_t me = (c->index + 1) << 9 | (uint32_t)atomic << 8 | q;
    uint64_t g0 = (lo - a->base) / ASC_RACE_GRANULE, g1 = (hi - a->base + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE;
    for (uint64_t gi = g0; gi < g1; gi++) {
        uint32_t *s = &a->race[gi * ASC_RACE_GM_WORDS];
        uint64_t blo = a->base + gi * ASC_RACE_GRANULE, bhi = blo + ASC_RACE_GRANULE;
        if (blo < lo) blo = lo;
        if (bhi > hi) bhi = hi;
        uint32_t off0 = (uint32_t)(blo - a->base) % ASC_RACE_GRANULE, len = (uint32_t)(bhi - blo);
        uint32_t mask = len >= 32 ? 0xffffffffu : ((1u << len) - 1) << off0;
        bool both_atomic = write && atomic && ((s[0] >> 8) & 1);
        if (s[0] && (s[3] & mask) && !both_atomic && !ordered(sim, c, q, (s[0] >> 9) - 1, (uint8_t)(s[0] & 0xff), s[1]))
            found(sim, c, q, pc, write, atomic, write ? 2 : 0, a, blo, bhi, s);
        if (write) {
            for (unsigned k = 0; k < 2; k++) {
                const uint32_t *r = &s[4 + 4 * k];
                if (r[0] && (r[3] & mask) && !ordered(sim, c, q, (r[0] >> 9) - 1, (uint8_t)(r[0] & 0xff), r[1]))
                    found(sim, c, q, pc, write, atomic, 1, a, blo, bhi, r);
            }
            if (s[0] == me && s[1] == ep) mask |= s[3]; /* one instruction, more bytes */
            s[0] = me, s[1] = ep, s[2] = pc, s[3] = mask;
            continue;
        }
        /* a read: replace one of the unit itself or ordered before this one, else the older */
        uint32_t mine = me & ~(1u << 8);
        unsigned slot = 2;
        for (unsigned k = 0; k < 2 && slot == 2; k++) {
            const uint32_t *r = &s[4 + 4 * k];
            if (!r[0] || r[0] == mine || ordered(sim, c, q, (r[0] >> 9) - 1, (uint8_t)(r[0] & 0xff), r[1])) slot = k;
        }
        if (slot == 2) { /* both concurrent with this read: keep the newer, drop the older */
            memcpy(&s[4], &s[8], 4 * sizeof(uint32_t));
            slot = 1;
        }
        uint32_t *r = &s[4 + 4 * slot];
        if (r[0] == mine && r[1] == ep) mask |= r[3]; /* one instruction, more bytes */
        r[0] = mine, r[1] = ep, r[2] = pc, r[3] = mask;
    }
}

void asc_race_gm_scalar(AscCore *c, uint64_t lo, uint64_t hi, bool write)
{
    uint32_t ep = ++c->race->vc[ASC_PIPE_S][ASC_PIPE_S];
    asc_race_gm_access(c, ASC_PIPE_S, ep, c->pc, false, lo, hi, write);
}
