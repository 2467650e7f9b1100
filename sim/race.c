/* race.c -- --check-races: accesses to the same bytes of a local buffer by
 * two pipes of one core that nothing orders (docs/timing.md §Races).
 *
 * Users: sim.c (allocates the shadows at asc_sim_new when desc.check_races,
 * formats the races), core.c (asc_race_begin before an instruction's exec
 * function, asc_race_resolve when its completion is known), report.c.
 *
 * How it works.  Data is applied when an instruction starts (sim_exec.h),
 * and with checking on the exec function reports every range it reads or
 * writes through ctx->on_access.  Each local buffer has a shadow of 32 B
 * granules holding the last write and the last read of up to three pipes,
 * each as (pipe, pc, done cycle).  An access by pipe P at cycle `now` races
 * with a shadow entry of another pipe whose done cycle is after `now`:
 *   read  vs the last write            RAW
 *   write vs the last write            WAW
 *   write vs every recorded read       WAR
 * A flag or a barrier orders two accesses exactly when the later one cannot
 * start before the earlier one's done cycle (set_flag fires only after its
 * pipe's completions), so correctly synchronised kernels report nothing.
 * Accesses of one pipe never race with each other (the pipe is in order).
 *
 * Done cycles are not known at start: a transfer's end depends on the HBM
 * sharing to come.  A new entry is written with done = ASC_NEVER
 * ("pending"); a pipe has one instruction in flight, so when it completes,
 * asc_race_resolve sweeps the granules that instruction touched (a span per
 * buffer) and replaces its pending entries by the done cycle.  Vector and
 * cube instructions know their done cycle at start and resolve at once.
 *
 * Races are kept as the first ASC_SIM_MAX_RACES distinct (kind, buffer,
 * pc, earlier pc), with the range and cycles of the first occurrence and
 * a count of occurrences (one execution racing with one earlier
 * instruction); further distinct races are only counted.
 *
 * Invariants: nothing here allocates after asc_sim_new; when checking is
 * off no function here is called and ctx->on_access is NULL. */
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"
#include "sim_internal.h"

static void on_access(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write);

bool asc_race_core_init(AscSim *sim, AscCore *c)
{
    for (unsigned b = ASC_BUF_UB; b < ASC_BUF_COUNT; b++) {
        const AscMem *m = &c->ctx.mem[b];
        if (!m->size) continue;
        size_t n = ((size_t)m->size + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE;
        c->shadow[b] = asc_calloc(&sim->alloc, n, sizeof *c->shadow[b]);
        if (!c->shadow[b]) return false;
    }
    c->ctx.on_access = on_access;
    c->ctx.access_ud = c;
    return true;
}

void asc_race_core_free(AscSim *sim, AscCore *c)
{
    for (unsigned b = 0; b < ASC_BUF_COUNT; b++) asc_free(&sim->alloc, c->shadow[b]);
}

void asc_race_begin(AscSim *sim, AscCore *c, AscPipeUnit *p)
{
    c->acc_pipe = p->id;
    c->acc_pc = p->cur.q.pc;
    memset(p->rlo, 0, sizeof p->rlo);
    memset(p->rhi, 0, sizeof p->rhi);
    sim->race_epoch++;
}

static uint16_t op_at(const AscCore *c, uint32_t pc)
{
    const AscProg *pr = c->prog;
    if (pc < pr->entry || pc >= pr->entry + pr->size || (pc & 3)) return 0;
    return pr->insn[(pc - pr->entry) / 4].op;
}

/* Does entry `a` of another pipe than P complete after `now`?  A pending
 * entry belongs to its pipe's instruction in flight, which completes at or
 * after `now`; only a transfer already over with zero landing latency
 * completes exactly at `now` (its pipe's event at this cycle has not been
 * processed yet). */
static bool unfinished(const AscCore *c, const AscShadowAcc *a, uint8_t P, uint64_t now)
{
    if (a->pipe == P || a->done <= now) return false;
    if (a->done != ASC_NEVER) return true;
    const AscPipeUnit *u = &c->pipes[a->pipe];
    return !(u->state == ASC_PS_XFER && u->busy_until <= now && u->xfer_latency == 0);
}

static void record(AscSim *sim, AscCore *c, AscRaceKind kind, AscBuf buf, uint32_t g, const AscShadowAcc *prev)
{
    uint32_t pc = c->acc_pc;
    uint64_t lo = (uint64_t)g * ASC_RACE_GRANULE, hi = lo + ASC_RACE_GRANULE, ep = sim->race_epoch;
    for (uint32_t i = 0; i < sim->nraces; i++) {
        AscSimRace *r = &sim->races[i];
        if (r->kind != kind || r->buf != buf || r->pc != pc || r->prev_pc != prev->pc) continue;
        if (sim->race_first_epoch[i] == ep) { /* the first occurrence, one more granule */
            if (lo < r->lo) r->lo = lo;
            if (hi > r->hi) r->hi = hi;
        } else if (sim->race_last_epoch[i] != ep) {
            sim->race_last_epoch[i] = ep;
            r->count++;
            sim->race_total++;
        }
        return;
    }
    if (sim->nraces == ASC_SIM_MAX_RACES) {
        uint64_t key[4] = {(uint64_t)kind | (uint64_t)buf << 8, pc, prev->pc, ep};
        if (memcmp(key, sim->race_over_key, sizeof key)) {
            memcpy(sim->race_over_key, key, sizeof key);
            sim->race_total++;
        }
        return;
    }
    uint32_t i = sim->nraces++;
    AscSimRace *r = &sim->races[i];
    *r = (AscSimRace){.kind = (uint8_t)kind, .buf = (uint8_t)buf, .core = c->index, .lo = lo, .hi = hi,
                      .pipe = c->acc_pipe, .op = op_at(c, pc), .pc = pc, .start_cycle = sim->now,
                      .prev_pipe = prev->pipe, .prev_op = op_at(c, prev->pc), .prev_pc = prev->pc,
                      .prev_done_cycle = prev->done, .count = 1};
    sim->race_first_epoch[i] = sim->race_last_epoch[i] = ep;
    sim->race_pending[i] = (uint8_t)(1 | (prev->done == ASC_NEVER ? 2 : 0));
    sim->race_total++;
}

/* ctx->on_access with checking on: compare with the shadow, then record. */
static void on_access(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write)
{
    AscCore *c = ud;
    AscShadow *sh = buf < ASC_BUF_COUNT ? c->shadow[buf] : NULL;
    if (!sh || hi <= lo) return; /* GM is not checked */
    AscSim *sim = c->sim;
    uint64_t now = sim->now;
    uint8_t P = c->acc_pipe;
    uint32_t g0 = (uint32_t)(lo / ASC_RACE_GRANULE), g1 = (uint32_t)((hi + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE);
    AscPipeUnit *p = &c->pipes[P];
    if (p->rlo[buf] >= p->rhi[buf]) {
        p->rlo[buf] = g0;
        p->rhi[buf] = g1;
    } else {
        if (g0 < p->rlo[buf]) p->rlo[buf] = g0;
        if (g1 > p->rhi[buf]) p->rhi[buf] = g1;
    }
    AscShadowAcc mine = {.done = ASC_NEVER, .pc = c->acc_pc, .pipe = P};
    for (uint32_t g = g0; g < g1; g++) {
        AscShadow *s = &sh[g];
        if (write) {
            if (unfinished(c, &s->w, P, now)) record(sim, c, ASC_RACE_WAW, buf, g, &s->w);
            for (unsigned i = 0; i < ASC_RACE_READERS; i++)
                if (unfinished(c, &s->r[i], P, now)) record(sim, c, ASC_RACE_WAR, buf, g, &s->r[i]);
            s->w = mine;
            continue;
        }
        if (unfinished(c, &s->w, P, now)) record(sim, c, ASC_RACE_RAW, buf, g, &s->w);
        /* the read slot: P's own, else a finished (or empty) one, else the
         * one finishing first (more than three unfinished readers of one
         * granule do not occur: a buffer has at most three reader pipes) */
        unsigned k = ASC_RACE_READERS;
        for (unsigned i = 0; i < ASC_RACE_READERS && k == ASC_RACE_READERS; i++)
            if (s->r[i].pipe == P && s->r[i].done) k = i;
        for (unsigned i = 0; i < ASC_RACE_READERS && k == ASC_RACE_READERS; i++)
            if (s->r[i].done <= now) k = i;
        if (k == ASC_RACE_READERS) {
            k = 0;
            for (unsigned i = 1; i < ASC_RACE_READERS; i++)
                if (s->r[i].done < s->r[k].done) k = i;
        }
        s->r[k] = mine;
    }
}

void asc_race_resolve(AscSim *sim, AscCore *c, AscPipeUnit *p, uint64_t done)
{
    uint8_t P = p->id;
    for (unsigned b = ASC_BUF_UB; b < ASC_BUF_COUNT; b++) {
        AscShadow *sh = c->shadow[b];
        if (!sh) continue;
        for (uint32_t g = p->rlo[b]; g < p->rhi[b]; g++) {
            AscShadow *s = &sh[g];
            if (s->w.pipe == P && s->w.done == ASC_NEVER) s->w.done = done;
            for (unsigned i = 0; i < ASC_RACE_READERS; i++)
                if (s->r[i].pipe == P && s->r[i].done == ASC_NEVER) s->r[i].done = done;
        }
        p->rlo[b] = p->rhi[b] = 0;
    }
    for (uint32_t i = 0; i < sim->nraces; i++) {
        AscSimRace *r = &sim->races[i];
        if (!sim->race_pending[i] || r->core != c->index) continue;
        if ((sim->race_pending[i] & 1) && r->pipe == P) {
            r->done_cycle = done;
            sim->race_pending[i] &= (uint8_t)~1u;
        }
        if ((sim->race_pending[i] & 2) && r->prev_pipe == P) {
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

int asc_sim_race_format(const AscSim *sim, const AscSimRace *r, char *buf, size_t size)
{
    static const char *const kinds[] = {"RAW", "WAR", "WAW"};
    const char *verb = r->kind == ASC_RACE_WAR ? "writes" : r->kind == ASC_RACE_RAW ? "reads" : "writes";
    const char *pverb = r->kind == ASC_RACE_WAR ? "reads" : "writes";
    char name[48], src[300], psrc[300], at[320], pat[320], end[32], pend[48], times[40] = "";
    asc_sim_source(sim, r->pc, src, sizeof src);
    asc_sim_source(sim, r->prev_pc, psrc, sizeof psrc);
    snprintf(at, sizeof at, "%s%s", src[0] ? " at " : "", src);
    snprintf(pat, sizeof pat, "%s%s", psrc[0] ? " at " : "", psrc);
    if (r->done_cycle && r->done_cycle != ASC_NEVER) snprintf(end, sizeof end, "%llu", (unsigned long long)r->done_cycle);
    else snprintf(end, sizeof end, "?");
    if (r->prev_done_cycle != ASC_NEVER)
        snprintf(pend, sizeof pend, "until cycle %llu", (unsigned long long)r->prev_done_cycle);
    else
        snprintf(pend, sizeof pend, "past the end of the run");
    if (r->count > 1) snprintf(times, sizeof times, " (%llu times)", (unsigned long long)r->count);
    const char *mn = r->op < ASC_OP_COUNT ? asc_insn_info[r->op].mnemonic : "?";
    const char *pmn = r->prev_op < ASC_OP_COUNT ? asc_insn_info[r->prev_op].mnemonic : "?";
    return snprintf(buf, size,
                    "race (%s): %s %s%s (%s, pc 0x%04x, cycles %llu-%s) %s %s [0x%llx, 0x%llx) while %s %s%s "
                    "(pc 0x%04x) %s it %s: no flag orders them%s",
                    kinds[r->kind < 3 ? r->kind : 0], asc_pipe_lane(r->pipe), mn, at,
                    asc_sim_core_name(sim, r->core, name, sizeof name), r->pc, (unsigned long long)r->start_cycle,
                    end, verb, asc_exec_buf_name((AscBuf)r->buf), (unsigned long long)r->lo,
                    (unsigned long long)r->hi, asc_pipe_lane(r->prev_pipe), pmn, pat, r->prev_pc, pverb, pend,
                    times);
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
