/* race.c -- --check-races: accesses to the same bytes of a local buffer by
 * two pipes of one core that no synchronisation orders (docs/timing.md
 * §Races), whatever the latencies.
 *
 * Users: sim.c (asc_race_core_init at asc_sim_new when desc.check_races),
 * core.c and scalar.c (the hooks below, each behind `if (c->race)`),
 * report.c (asc_sim_race_format).
 *
 * Happens-before.  Each unit of a core (the scalar unit S and each pipe)
 * has a vector clock VC_u (AscVClock, one component per pipe).  Pipe p
 * numbers its instructions 1, 2, ... in program order (its epochs); when
 * it starts instruction n, VC_p[p] = n.  Edges:
 *   program order   a pipe is in order: VC_p[p] grows;
 *   set_flag        set_flag(SRC, DST, id) fires after every earlier SRC
 *                   instruction completed: the pending set carries VC_SRC
 *                   as of the set_flag, the flag gets it when the set takes
 *                   effect (the clock belongs to that flag instance);
 *   wait_flag       DST joins the flag's clock when the wait consumes it
 *                   (S for wait_flag X, s);
 *   issue           an instruction starts after the scalar unit issued it:
 *                   the pipe joins VC_S as of the issue (so what S acquired
 *                   by a wait_flag X, s or a drain orders what it issues
 *                   next; issuing itself gives S nothing, so two pipes fed
 *                   in some order by S stay unordered);
 *   drain           bar all / sync_all / end wait until every pipe is idle
 *                   and complete: every unit joins every clock;
 *   cross-core      a set_cross_core of mode 0 reaches its own core too:
 *                   the counter accumulates the setters' clocks, a
 *                   wait_flag_dev on it joins them into S (other cores'
 *                   clocks are not tracked: GM across cores is not checked).
 * bar PIPE orders PIPE after PIPE, which program order already does.
 *
 * Shadow.  Per 32 B granule of each local buffer: the last write (pipe,
 * epoch, pc) and per pipe the last read (epoch, pc).  An access of pipe q
 * (clock VC_q) races with
 *   the last write (p, n), p != q, VC_q[p] < n             RAW / WAW
 *   a write: the last read of each p != q, VC_q[p] < n     WAR
 * Keeping one read per pipe is exact: a pipe's reads are in program order,
 * so a writer ordered after its last read is ordered after every earlier
 * one.  Reads are not cleared by a write (transitivity makes an old read
 * ordered before any access ordered after that write).
 *
 * A race is named in program order (the core's issue order) when the
 * earlier access is in its pipe's history, else in this run's order: RAW
 * when the access issued later reads.
 *
 * Races are kept as the first ASC_SIM_MAX_RACES distinct (kind, buffer,
 * pc, earlier pc), with the range and cycles of the first occurrence and
 * a count of occurrences (one execution racing with one earlier
 * instruction); further distinct races are only counted.  Cycles are
 * information only: the start and done cycles of both instructions in
 * this run, from a ring of each pipe's last ASC_RACE_HIST epochs (an
 * earlier instruction older than that shows its cycles as unknown).
 *
 * Invariants: everything is allocated by asc_race_core_init; nothing here
 * allocates while running; with checking off c->race is NULL, no hook is
 * called and ctx->on_access is NULL. */
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"
#include "sim_internal.h"

#define NO_SLOT 0xff

static void on_access(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write);

/* The race check of one access, for san.c's chained on_access. */
void asc_race_access(AscCore *c, AscBuf buf, uint64_t lo, uint64_t hi, bool write)
{
    on_access(c, buf, lo, hi, write);
}

static size_t flag_index(uint8_t src, uint8_t dst, uint8_t ev)
{
    return ((size_t)src * ASC_PIPE_COUNT + dst) * ASC_MAX_EVENTS + ev;
}

static void vc_join(uint32_t *to, const uint32_t *from)
{
    for (unsigned i = 0; i < ASC_PIPE_COUNT; i++)
        if (from[i] > to[i]) to[i] = from[i];
}

bool asc_race_core_init(AscSim *sim, AscCore *c)
{
    AscRaceCore *r = asc_calloc(&sim->alloc, 1, sizeof *r);
    if (!r) return false;
    c->race = r;
    memset(r->pipe_slot, NO_SLOT, sizeof r->pipe_slot);
    r->flag = asc_calloc(&sim->alloc, (size_t)ASC_PIPE_COUNT * ASC_PIPE_COUNT * ASC_MAX_EVENTS, sizeof *r->flag);
    if (!r->flag) return false;
    for (unsigned i = 0; i < ASC_PIPE_COUNT; i++) {
        const AscPipeUnit *p = &c->pipes[i];
        if (!p->present || i == ASC_PIPE_S) continue;
        r->pend[i] = asc_calloc(&sim->alloc, ASC_PENDING_CAP, sizeof *r->pend[i]);
        r->queue[i] = asc_calloc(&sim->alloc, p->qcap ? p->qcap : 1, sizeof *r->queue[i]);
        r->hist[i] = asc_calloc(&sim->alloc, ASC_RACE_HIST, sizeof *r->hist[i]);
        if (!r->pend[i] || !r->queue[i] || !r->hist[i]) return false;
        r->pipe_slot[i] = r->nslots;
        r->slot_pipe[r->nslots++] = (uint8_t)i;
    }
    r->stride = 3 + 2u * r->nslots;
    for (unsigned b = ASC_BUF_UB; b < ASC_BUF_COUNT; b++) {
        const AscMem *m = &c->ctx.mem[b];
        if (!m->size) continue;
        size_t n = ((size_t)m->size + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE;
        r->shadow[b] = asc_calloc(&sim->alloc, n * r->stride, sizeof *r->shadow[b]);
        if (!r->shadow[b]) return false;
    }
    c->ctx.on_access = on_access;
    c->ctx.access_ud = c;
    if (sim->san & ASC_SAN_RACECHECK) return asc_race_gm_init(sim, c);
    return true;
}

void asc_race_core_free(AscSim *sim, AscCore *c)
{
    AscRaceCore *r = c->race;
    if (!r) return;
    asc_race_gm_free(sim, c);
    for (unsigned b = 0; b < ASC_BUF_COUNT; b++) asc_free(&sim->alloc, r->shadow[b]);
    for (unsigned i = 0; i < ASC_PIPE_COUNT; i++) {
        asc_free(&sim->alloc, r->pend[i]);
        asc_free(&sim->alloc, r->queue[i]);
        asc_free(&sim->alloc, r->hist[i]);
    }
    asc_free(&sim->alloc, r->flag);
    asc_free(&sim->alloc, r);
    c->race = NULL;
}

/* ---- the happens-before edges ------------------------------------------------ */

void asc_race_issue(AscCore *c, uint8_t pipe, uint32_t i)
{
    memcpy(c->race->queue[pipe][i], c->race->vc[ASC_PIPE_S], sizeof(AscVClock));
    if (c->race->gm) asc_race_gm_issue(c, pipe, i);
}

void asc_race_start(AscCore *c, AscPipeUnit *p, uint32_t i)
{
    uint32_t *vc = c->race->vc[p->id];
    vc_join(vc, c->race->queue[p->id][i]);
    vc[p->id]++;
    if (c->race->gm) asc_race_gm_start(c, p->id, i);
}

void asc_race_pend(AscCore *c, AscPipeUnit *p, uint32_t i)
{
    memcpy(c->race->pend[p->id][i], c->race->vc[p->id], sizeof(AscVClock));
}

static const uint32_t *setter_clock(const AscCore *c, uint8_t src, uint32_t i)
{
    return src == ASC_PIPE_S ? c->race->vc[ASC_PIPE_S] : c->race->pend[src][i];
}

void asc_race_flag_set(AscCore *c, uint8_t src, uint8_t dst, uint8_t ev, uint32_t i)
{
    memcpy(c->race->flag[flag_index(src, dst, ev)], setter_clock(c, src, i), sizeof(AscVClock));
}

void asc_race_flag_wait(AscCore *c, uint8_t src, uint8_t dst, uint8_t ev)
{
    vc_join(c->race->vc[dst], c->race->flag[flag_index(src, dst, ev)]);
    if (c->race->gm) asc_race_gm_flag_wait(c, src, dst);
}

void asc_race_xset(AscCore *c, uint8_t src, uint8_t xid, uint32_t i)
{
    vc_join(c->race->xvc[xid], setter_clock(c, src, i));
}

void asc_race_xwait(AscCore *c, uint8_t xid)
{
    vc_join(c->race->vc[ASC_PIPE_S], c->race->xvc[xid]);
    if (c->race->gm) asc_race_gm_xwait(c, xid);
}

void asc_race_drain(AscCore *c)
{
    AscRaceCore *r = c->race;
    AscVClock all;
    memcpy(all, r->vc[ASC_PIPE_S], sizeof all);
    for (unsigned i = 1; i < ASC_PIPE_COUNT; i++)
        if (c->pipes[i].present) vc_join(all, r->vc[i]);
    for (unsigned i = 0; i < ASC_PIPE_COUNT; i++)
        if (i == ASC_PIPE_S || c->pipes[i].present) memcpy(r->vc[i], all, sizeof all);
    if (r->gm) asc_race_gm_drain(c);
}

/* A cross-core set of c by unit src (pipe pending index i) takes effect: a release. */
void asc_race_gm_xset(AscCore *c, uint8_t src, uint32_t i)
{
    if (c->race->gm) asc_race_gm_release(c, src, setter_clock(c, src, i));
}

/* ---- accesses ------------------------------------------------------------------ */

void asc_race_begin(AscSim *sim, AscCore *c, AscPipeUnit *p)
{
    AscRaceCore *r = c->race;
    r->acc_pipe = p->id;
    r->acc_pc = p->cur.q.pc;
    r->acc_epoch = r->vc[p->id][p->id];
    r->acc_seq = p->cur.seq;
    r->acc_atomic = (p->cur.q.st_atomic & 7) != 0;
    r->hist[p->id][r->acc_epoch % ASC_RACE_HIST] = (AscRaceHist){.epoch = r->acc_epoch, .seq = r->acc_seq,
                                                                   .start = sim->now, .done = ASC_NEVER};
    sim->race_exec++;
}

static uint16_t op_at(const AscCore *c, uint32_t pc)
{
    const AscProg *pr = c->prog;
    if (pc < pr->entry || pc >= pr->entry + pr->size || (pc & 3)) return 0;
    return pr->insn[(pc - pr->entry) / 4].op;
}

/* The earlier access: pipe, epoch, pc. */
typedef struct Prev {
    uint8_t pipe;
    uint32_t epoch, pc;
} Prev;

/* One side of a race as reported. */
typedef struct Side {
    uint8_t pipe;
    uint32_t epoch, pc;
    uint64_t start, done;
} Side;

static void record(AscSim *sim, AscCore *c, AscRaceKind kind, AscBuf buf, uint32_t g, Prev prev)
{
    const AscRaceCore *rc = c->race;
    /* The two sides in this run's order; then in program order when the
     * earlier one is in its pipe's history: data is applied at start, so a
     * consumer with a missing wait may run before its producer started,
     * and the user thinks of the pair in the order the program issues it. */
    Side now = {rc->acc_pipe, rc->acc_epoch, rc->acc_pc, sim->now, ASC_NEVER};
    Side was = {prev.pipe, prev.epoch, prev.pc, ASC_NEVER, ASC_NEVER};
    const AscRaceHist *h = &rc->hist[prev.pipe][prev.epoch % ASC_RACE_HIST];
    bool known = h->epoch == prev.epoch;
    if (known) {
        was.start = h->start;
        was.done = h->done;
    }
    if (known && h->seq > rc->acc_seq) { /* issued after the access at hand: swap */
        Side t = now;
        now = was;
        was = t;
        kind = kind == ASC_RACE_RAW ? ASC_RACE_WAR : kind == ASC_RACE_WAR ? ASC_RACE_RAW : kind;
    }
    uint64_t lo = (uint64_t)g * ASC_RACE_GRANULE, hi = lo + ASC_RACE_GRANULE, ex = sim->race_exec;
    for (uint32_t i = 0; i < sim->nraces; i++) {
        AscSimRace *r = &sim->races[i];
        if (r->kind != kind || r->buf != buf || r->pc != now.pc || r->prev_pc != was.pc) continue;
        if (sim->race_first_exec[i] == ex) { /* the first occurrence, one more granule */
            if (lo < r->lo) r->lo = lo;
            if (hi > r->hi) r->hi = hi;
        } else if (sim->race_last_exec[i] != ex) {
            sim->race_last_exec[i] = ex;
            r->count++;
            sim->race_total++;
        }
        return;
    }
    if (sim->nraces == ASC_SIM_MAX_RACES) {
        uint64_t key[4] = {(uint64_t)kind | (uint64_t)buf << 8, now.pc, was.pc, ex};
        if (memcmp(key, sim->race_over_key, sizeof key)) {
            memcpy(sim->race_over_key, key, sizeof key);
            sim->race_total++;
        }
        return;
    }
    uint32_t i = sim->nraces++;
    AscSimRace *r = &sim->races[i];
    *r = (AscSimRace){.kind = (uint8_t)kind, .buf = (uint8_t)buf, .core = c->index, .lo = lo, .hi = hi,
                      .pipe = now.pipe, .op = op_at(c, now.pc), .pc = now.pc, .start_cycle = now.start,
                      .done_cycle = now.done, .prev_pipe = was.pipe, .prev_op = op_at(c, was.pc), .prev_pc = was.pc,
                      .prev_start_cycle = was.start, .prev_done_cycle = was.done, .count = 1};
    sim->race_first_exec[i] = sim->race_last_exec[i] = ex;
    sim->race_epoch[i] = now.epoch;
    sim->race_prev_epoch[i] = was.epoch;
    /* the access at hand completes later (resolve); the other side is
     * pending if it is in the history without a done cycle */
    bool mine_first = now.epoch == rc->acc_epoch && now.pipe == rc->acc_pipe;
    sim->race_pending[i] = (uint8_t)(mine_first ? 1 | (known && was.done == ASC_NEVER ? 2 : 0)
                                                : 2 | (now.done == ASC_NEVER ? 1 : 0));
    sim->race_total++;
}

/* ctx->on_access with checking on: compare with the shadow, then record. */
static void on_access(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write)
{
    AscCore *c = ud;
    AscRaceCore *rc = c->race;
    uint32_t *sh = buf < ASC_BUF_COUNT ? rc->shadow[buf] : NULL;
    if (buf == ASC_BUF_GM && rc->gm) {
        asc_race_gm_access(c, rc->acc_pipe, rc->acc_epoch, rc->acc_pc, rc->acc_atomic && write, lo, hi, write);
        return;
    }
    if (!sh || hi <= lo) return; /* GM: only with --sanitize=racecheck (race_gm.c) */
    AscSim *sim = c->sim;
    uint8_t q = rc->acc_pipe, ns = rc->nslots, qs = rc->pipe_slot[q];
    const uint32_t *vc = rc->vc[q];
    uint32_t ep = rc->acc_epoch, pc = rc->acc_pc, stride = rc->stride;
    uint32_t g0 = (uint32_t)(lo / ASC_RACE_GRANULE), g1 = (uint32_t)((hi + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE);
    for (uint32_t g = g0; g < g1; g++) {
        uint32_t *s = &sh[(size_t)g * stride];
        uint8_t wp = (uint8_t)s[2];
        bool wrace = s[0] && wp != q && vc[wp] < s[0];
        if (write) {
            if (wrace) record(sim, c, ASC_RACE_WAW, buf, g, (Prev){wp, s[0], s[1]});
            for (uint8_t k = 0; k < ns; k++) {
                uint8_t rp = rc->slot_pipe[k];
                uint32_t rep = s[3 + 2 * k];
                if (rep && rp != q && vc[rp] < rep) record(sim, c, ASC_RACE_WAR, buf, g, (Prev){rp, rep, s[4 + 2 * k]});
            }
            s[0] = ep;
            s[1] = pc;
            s[2] = q;
        } else {
            if (wrace) record(sim, c, ASC_RACE_RAW, buf, g, (Prev){wp, s[0], s[1]});
            if (qs != NO_SLOT) {
                s[3 + 2 * qs] = ep;
                s[4 + 2 * qs] = pc;
            }
        }
    }
}

void asc_race_resolve(AscSim *sim, AscCore *c, AscPipeUnit *p, uint64_t done)
{
    AscRaceCore *rc = c->race;
    uint8_t P = p->id;
    uint32_t ep = rc->vc[P][P];
    AscRaceHist *h = &rc->hist[P][ep % ASC_RACE_HIST];
    if (h->epoch == ep) h->done = done;
    for (uint32_t i = 0; i < sim->nraces; i++) {
        AscSimRace *r = &sim->races[i];
        if (!sim->race_pending[i] || r->core != c->index) continue;
        if ((sim->race_pending[i] & 1) && r->pipe == P && sim->race_epoch[i] == ep) {
            r->done_cycle = done;
            sim->race_pending[i] &= (uint8_t)~1u;
        }
        if ((sim->race_pending[i] & 2) && r->prev_pipe == P && sim->race_prev_epoch[i] == ep) {
            r->prev_done_cycle = done;
            sim->race_pending[i] &= (uint8_t)~2u;
        }
    }
}

/* ---- results ------------------------------------------------------------------ */

uint64_t asc_sim_races(const AscSim *sim, const AscSimRace **races, uint32_t *n)
{
    if (races) *races = sim->races;
    if (n) *n = sim->nraces;
    return sim->race_total;
}

static void cycles(char *buf, size_t size, uint64_t start, uint64_t done)
{
    char d[24] = "?";
    if (done != ASC_NEVER) snprintf(d, sizeof d, "%llu", (unsigned long long)done);
    if (start == ASC_NEVER) snprintf(buf, size, "cycles ?");
    else snprintf(buf, size, "cycles %llu-%s", (unsigned long long)start, d);
}

int asc_sim_race_format(const AscSim *sim, const AscSimRace *r, char *buf, size_t size)
{
    static const char *const kinds[] = {"RAW", "WAR", "WAW"};
    const char *verb = r->kind == ASC_RACE_RAW ? "reads" : "writes";
    const char *pverb = r->kind == ASC_RACE_WAR ? "read" : "written";
    char name[48], src[300], psrc[300], at[320], pat[320], cyc[64], pcyc[64], times[40] = "";
    asc_sim_source(sim, r->pc, src, sizeof src);
    asc_sim_source(sim, r->prev_pc, psrc, sizeof psrc);
    snprintf(at, sizeof at, "%s%s", src[0] ? " at " : "", src);
    snprintf(pat, sizeof pat, "%s%s", psrc[0] ? " at " : "", psrc);
    cycles(cyc, sizeof cyc, r->start_cycle, r->done_cycle);
    cycles(pcyc, sizeof pcyc, r->prev_start_cycle, r->prev_done_cycle);
    if (r->count > 1) snprintf(times, sizeof times, " (%llu times)", (unsigned long long)r->count);
    const char *mn = r->op < ASC_OP_COUNT ? asc_insn_info[r->op].mnemonic : "?";
    const char *pmn = r->prev_op < ASC_OP_COUNT ? asc_insn_info[r->prev_op].mnemonic : "?";
    return snprintf(buf, size,
                    "race (%s): %s %s%s (%s, pc 0x%04x, %s) %s %s [0x%llx, 0x%llx) %s by %s %s%s (pc 0x%04x, %s): "
                    "no flag or barrier orders them%s",
                    kinds[r->kind < 3 ? r->kind : 0], asc_pipe_lane(r->pipe), mn, at,
                    asc_sim_core_name(sim, r->core, name, sizeof name), r->pc, cyc, verb,
                    asc_exec_buf_name((AscBuf)r->buf), (unsigned long long)r->lo, (unsigned long long)r->hi, pverb,
                    asc_pipe_lane(r->prev_pipe), pmn, pat, r->prev_pc, pcyc, times);
}

uint64_t asc_sim_races_diag(const AscSim *sim, AscDiags *d)
{
    uint64_t listed = 0;
    char msg[1024];
    for (uint32_t i = 0; i < sim->nraces; i++) {
        asc_sim_race_format(sim, &sim->races[i], msg, sizeof msg);
        if (d) asc_diag(d, ASC_DIAG_SIM_RACE, (AscLoc){0}, msg);
        listed += sim->races[i].count;
    }
    if (sim->race_total > listed && d) {
        snprintf(msg, sizeof msg, "race: %llu more occurrences of other races, not listed (the first %d distinct races are)",
                 (unsigned long long)(sim->race_total - listed), ASC_SIM_MAX_RACES);
        asc_diag(d, ASC_DIAG_SIM_RACE, (AscLoc){0}, msg);
    }
    return sim->race_total;
}
