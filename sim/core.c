/* core.c -- the pipes of a core: in-order instruction queues, occupancy,
 * completion, flags, barriers, cross-core counters.
 *
 * Users: sim.c (run loop calls asc_pipe_step for pipe agents), scalar.c
 * (pushes into queues, sets flags executed on S), hbm.c (reschedules a pipe
 * when its transfer's rate changes).
 *
 * Each pipe executes its queue in order, one instruction at a time
 * (docs/timing.md §Pipes):
 *   set_flag   occupies lat.sync; the flag is set at max(start + lat.sync,
 *              done_cycle) -- after every earlier instruction of the pipe has
 *              completed, data landed included -- without blocking the pipe.
 *   wait_flag  waits until the flag is set and visible (set + flag_release),
 *              clears it, then occupies lat.sync.
 *   bar        occupies the pipe until max(start + lat.sync, done_cycle).
 *   vector     lat(class) + beats;  cube  lat.mmad + cube steps;
 *   transfer   dma.setup_cycles + bursts * dma.burst_cycles, then the bytes
 *              at the path's rate (GM paths share HBM, hbm.c); completion =
 *              occupancy end + the path's latency.
 * Data effects are applied when an instruction starts (sim_exec.h).  With
 * race checking on (c->race), race.c's hooks follow the happens-before
 * edges: issue (push), start (the pipe's next epoch), pending sets and the
 * flags they set, consumed waits; race.c sees the accesses at start and
 * learns the done cycle for its report when known (vector/cube at start,
 * transfers when the data lands).
 * Invariant: a pipe only changes state inside asc_pipe_step at sim->now, or
 * when hbm.c moves its busy_until; it always leaves with its heap key equal
 * to its next action (asc_pipe_reschedule), except a transfer whose finish
 * hbm.c moved later: its key stays earlier, and the step there finds
 * busy_until ahead and only reschedules it (no state, stats or observer
 * change). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

uint64_t asc_lat_cycles(const AscSim *sim, unsigned lat)
{
    const int64_t *v = sim->cfg.v;
    switch (lat) {
    case ASC_LAT_ADD: return (uint64_t)v[ASC_KEY_LAT_VEC_ADD];
    case ASC_LAT_MUL: return (uint64_t)v[ASC_KEY_LAT_VEC_MUL];
    case ASC_LAT_DIV: return (uint64_t)v[ASC_KEY_LAT_VEC_DIV];
    case ASC_LAT_EXP: return (uint64_t)v[ASC_KEY_LAT_VEC_EXP];
    case ASC_LAT_SQRT: return (uint64_t)v[ASC_KEY_LAT_VEC_SQRT];
    case ASC_LAT_RSQRT: return (uint64_t)v[ASC_KEY_LAT_VEC_RSQRT];
    case ASC_LAT_REDUCE: return (uint64_t)v[ASC_KEY_LAT_VEC_REDUCE];
    case ASC_LAT_CONV: return (uint64_t)v[ASC_KEY_LAT_VEC_CONV];
    case ASC_LAT_MMAD: return (uint64_t)v[ASC_KEY_LAT_MMAD];
    case ASC_LAT_MASK: return sim->lat_mask;
    case ASC_LAT_SYNC: return sim->lat_sync;
    default: return 0;
    }
}

/* Idle for a drain: nothing queued, nothing running, no set still to
 * take effect (a pending set is work the drain must wait for). */
bool asc_pipe_idle(const AscPipeUnit *p)
{
    return p->qcount == 0 && p->state == ASC_PS_IDLE && p->pcount == 0;
}

/* Put the pipe's heap key at its next action: the end of its current
 * state, or the first pending set if that comes earlier (a set fires while
 * the pipe is busy with later instructions).  Never in the past. */
void asc_pipe_reschedule(AscSim *sim, AscCore *c, AscPipeUnit *p)
{
    uint64_t t = ASC_NEVER;
    switch (p->state) {
    case ASC_PS_IDLE: t = p->qcount ? sim->now : ASC_NEVER; break;
    case ASC_PS_RUN:
    case ASC_PS_SETUP:
    case ASC_PS_XFER:
    case ASC_PS_BAR:
    case ASC_PS_WAIT: t = p->busy_until; break;
    }
    if (p->pcount && p->pend[p->phead].cycle < t) t = p->pend[p->phead].cycle;
    if (t != ASC_NEVER && t < sim->now) t = sim->now;
    asc_heap_set(&sim->heap, asc_agent(c, p->id), t);
}

/* Wake c's scalar unit at `cycle` (not before now).  It re-checks what it
 * waits for, so waking it early or twice is harmless. */
void asc_wake_scalar(AscSim *sim, AscCore *c, uint64_t cycle)
{
    c->stime = max64(cycle, sim->now);
    asc_heap_set(&sim->heap, asc_agent(c, ASC_PIPE_S), c->stime);
}

/* Append to pipe's queue (a ring of qcap = queue_depth entries); false when
 * full, and the scalar unit stalls (queue-full) until start_next pops. */
bool asc_pipe_push(AscSim *sim, AscCore *c, uint8_t pipe, const AscQEntry *e)
{
    AscPipeUnit *p = &c->pipes[pipe];
    if (p->qcount == p->qcap) return false;
    uint32_t i = (p->qhead + p->qcount) % p->qcap;
    p->queue[i] = *e;
    p->qcount++;
    if (c->race) asc_race_issue(c, pipe, i);
    if (sim->obs.on_counter) sim->obs.on_counter(sim->obs.ud, sim->now, "queue", c->index, pipe, p->qcount);
    if (p->state == ASC_PS_IDLE && p->qcount == 1) asc_pipe_reschedule(sim, c, p);
    return true;
}

/* ---- flags ------------------------------------------------------------------ */

/* The what-if flag rule of `kind` on flag (src, dst, ev); NULL when none. */
static const uint8_t *flag_rule(const AscSim *sim, uint8_t kind, uint8_t src, uint8_t dst, uint8_t ev)
{
    for (uint32_t k = 0; k < sim->nrules; k++)
        if (sim->rules[k].kind == kind && sim->rules[k].a[0] == src && sim->rules[k].a[1] == dst &&
            sim->rules[k].a[2] == ev)
            return sim->rules[k].b;
    return NULL;
}

static bool flag_set(AscSim *sim, AscCore *c, uint8_t src, uint8_t dst, uint8_t ev, uint64_t cycle, uint32_t pc);

bool asc_flag_set(AscSim *sim, AscCore *c, uint8_t src, uint8_t dst, uint8_t ev, uint64_t cycle, uint32_t pc)
{
    if (!sim->nrules) return flag_set(sim, c, src, dst, ev, cycle, pc);
    const uint8_t *t = flag_rule(sim, ASC_FLAG_RULE_TEE, src, dst, ev);
    if (t && !flag_set(sim, c, t[0], t[1], t[2], cycle, pc)) return false;
    const uint8_t *m = flag_rule(sim, ASC_FLAG_RULE_MOVE_SET, src, dst, ev);
    return m ? flag_set(sim, c, m[0], m[1], m[2], cycle, pc) : flag_set(sim, c, src, dst, ev, cycle, pc);
}

static bool flag_set(AscSim *sim, AscCore *c, uint8_t src, uint8_t dst, uint8_t ev, uint64_t cycle, uint32_t pc)
{
    AscFlag *f = &c->flags[src][dst][ev];
    if (f->set && f->two && !f->more) { /* asc_sim_add_buffer: queued behind the first set */
        f->more = true, f->more_cycle = cycle, f->more_pc = pc;
        return true;
    }
    if (f->set)
        return asc_sim_fail(sim, ASC_FAULT_FLAG_SET, c, src, pc, ASC_OP_SET_FLAG,
                            "set_flag %s -> %s id %u: the flag is already set (by the set_flag at pc 0x%04x, "
                            "cycle %llu) and no wait_flag consumed it; setting a set flag is an error",
                            asc_pipe_name(src), asc_pipe_name(dst), ev, f->set_pc, (unsigned long long)f->set_cycle);
    f->set = true;
    f->set_cycle = cycle;
    f->set_pc = pc;
    /* Flag release timing: the waiter sees the flag flag_release_cycles
     * after the set (the handoff measured in the MSOP CAModel dump; default
     * 1, 0 in a functional run), so it is woken for that cycle, not the set's. */
    uint64_t visible = cycle + sim->release;
    if (dst == ASC_PIPE_S) {
        if (c->sstate == ASC_SS_WAIT_FLAG && c->swait_src == src && c->swait_event == ev) asc_wake_scalar(sim, c, visible);
        return true;
    }
    AscPipeUnit *w = &c->pipes[dst];
    /* with what-if rules a wait may be on other flags than its own: re-check it */
    if (w->state == ASC_PS_WAIT && ((w->cur.q.in.psrc == src && w->cur.q.in.event == ev) || sim->nrules)) {
        w->busy_until = max64(visible, sim->now);
        asc_pipe_reschedule(sim, c, w);
    }
    return true;
}

/* Cross-core flags are joins (asc-devkit docs/zh/api/SIMD-API/基础API/同步控制/
 * 核间同步/关键特性说明.md and CrossCoreSetFlag(ISASI).md; docs/timing.md):
 * a set of `c` in `mode` is one arrival in c's join group for that id; when
 * every member of the group has arrived, each member's oldest arrival is
 * taken and the counter of every target core goes up by 1.
 *   mode 0: group = targets = every core of c's kind (c included);
 *   mode 1: group = targets = the AIVs of c's AI core (an AIV only);
 *   mode 2: from an AIC: group = {c}, targets = the AIVs of its AI core
 *           (a broadcast); from an AIV: group = the AIVs of its AI core,
 *           target = its AIC.
 * Member t of c's group (the cores whose sets join with c's). */
bool asc_xcore_member(const AscCore *c, const AscCore *t, uint8_t mode)
{
    switch (mode) {
    case 0: return t->kind == c->kind;
    case 1: return c->kind == ASC_CORE_AIV && t->kind == ASC_CORE_AIV && t->ai_core == c->ai_core;
    case 2:
        if (c->kind == ASC_CORE_AIC) return t == c;
        return c->kind == ASC_CORE_AIV && t->kind == ASC_CORE_AIV && t->ai_core == c->ai_core;
    }
    return false;
}

/* Target t: a join of c's group raises t's counter. */
bool asc_xcore_target(const AscCore *c, const AscCore *t, uint8_t mode)
{
    switch (mode) {
    case 0: return t->kind == c->kind;
    case 1: return c->kind == ASC_CORE_AIV && t->kind == ASC_CORE_AIV && t->ai_core == c->ai_core;
    case 2:
        return t->ai_core == c->ai_core && ((c->kind == ASC_CORE_AIC && t->kind == ASC_CORE_AIV) ||
                                            (c->kind == ASC_CORE_AIV && t->kind == ASC_CORE_AIC));
    }
    return false;
}

/* The arrival of c's set (its release already made, race_gm.c) at its group
 * for (mode, xid); when it completes the join, the targets' counters rise.
 * Faults: a group or target set that is empty, a member running more than
 * xcore_max_pending sets ahead of the join, a target counter past it. */
bool asc_xcore_set(AscSim *sim, AscCore *c, uint8_t mode, uint8_t xid, uint64_t cycle, uint32_t pc, uint8_t pipe)
{
    uint32_t hits = 0;
    uint32_t maxp = (uint32_t)sim->cfg.v[ASC_KEY_XCORE_MAX_PENDING];
    char name[48];
    for (uint32_t i = 0; i < sim->ncores; i++) hits += asc_xcore_target(c, &sim->cores[i], mode);
    if (!hits || mode > 2)
        return asc_sim_fail(sim, ASC_FAULT_XCORE, c, pipe, pc, ASC_OP_SET_CROSS_CORE,
                            "set_cross_core mode %u from a %s core reaches no core of this launch", mode,
                            asc_core_kind_name(c->kind));
    if (c->xarr[mode][xid] >= maxp) {
        uint32_t miss = 0;
        for (uint32_t i = 0; i < sim->ncores; i++)
            if (asc_xcore_member(c, &sim->cores[i], mode) && !sim->cores[i].xarr[mode][xid]) {
                miss = i;
                break;
            }
        return asc_sim_fail(sim, ASC_FAULT_XCORE, c, pipe, pc, ASC_OP_SET_CROSS_CORE,
                            "set_cross_core mode %u id %u: this core already holds %u sets that no set of %s "
                            "joined (at most xcore_max_pending = %u): a member of the join sets too rarely",
                            mode, xid, c->xarr[mode][xid], asc_sim_core_name(sim, miss, name, sizeof name), maxp);
    }
    c->xarr[mode][xid]++;
    if (c->race && c->race->gm) asc_race_gm_arrive(c, mode, xid);
    for (uint32_t i = 0; i < sim->ncores; i++)
        if (asc_xcore_member(c, &sim->cores[i], mode) && !sim->cores[i].xarr[mode][xid]) return true;
    /* every member arrived: the join */
    for (uint32_t i = 0; i < sim->ncores; i++) {
        const AscCore *t = &sim->cores[i];
        if (asc_xcore_target(c, t, mode) && t->xcnt[xid] >= maxp)
            return asc_sim_fail(sim, ASC_FAULT_XCORE, c, pipe, pc, ASC_OP_SET_CROSS_CORE,
                                "set_cross_core id %u: the counter of %s already holds %u pending sets "
                                "(at most xcore_max_pending = %u): it waits (wait_flag_dev) too rarely",
                                xid, asc_sim_core_name(sim, i, name, sizeof name), t->xcnt[xid], maxp);
    }
    for (uint32_t i = 0; i < sim->ncores; i++) {
        AscCore *t = &sim->cores[i];
        if (!asc_xcore_target(c, t, mode)) continue;
        t->xcnt[xid]++;
        if (c->race && c->race->gm)
            for (uint32_t j = 0; j < sim->ncores; j++)
                if (asc_xcore_member(c, &sim->cores[j], mode)) asc_race_gm_deliver(&sim->cores[j], t, mode, xid);
        if (t->sstate == ASC_SS_XWAIT && t->swait_xid == xid) asc_wake_scalar(sim, t, cycle + sim->release);
    }
    for (uint32_t j = 0; j < sim->ncores; j++) {
        AscCore *m = &sim->cores[j];
        if (!asc_xcore_member(c, m, mode)) continue;
        m->xarr[mode][xid]--;
        if (m->race && m->race->gm) asc_race_gm_joined(m, mode, xid);
    }
    return true;
}

/* ---- one pipe ------------------------------------------------------------- */

/* Queue a set (flag or cross-core) that takes effect at s->cycle, after the
 * pipe's earlier instructions complete.  Sets of one pipe are pushed in
 * nondecreasing cycle order (done_cycle only grows), so a ring suffices. */
static bool push_pending(AscSim *sim, AscCore *c, AscPipeUnit *p, const AscPendingSet *s)
{
    if (p->pcount == ASC_PENDING_CAP)
        return asc_sim_fail(sim, ASC_FAULT_FLAG_SET, c, p->id, s->pc, p->cur.q.in.op,
                            "more than %u sets pending on pipe %s: some flag is set twice before a wait",
                            ASC_PENDING_CAP, asc_pipe_name(p->id));
    uint32_t i = (p->phead + p->pcount) % ASC_PENDING_CAP;
    p->pend[i] = *s;
    p->pcount++;
    if (c->race) asc_race_pend(c, p, i);
    return true;
}

/* Apply every pending set due by now, in order. */
static bool fire_pending(AscSim *sim, AscCore *c, AscPipeUnit *p)
{
    while (p->pcount && p->pend[p->phead].cycle <= sim->now) {
        uint32_t i = p->phead;
        AscPendingSet s = p->pend[i];
        p->phead = (p->phead + 1) % ASC_PENDING_CAP;
        p->pcount--;
        if (s.xcore && c->race && c->race->gm) asc_race_gm_xset(c, p->id, i);
        bool ok = s.xcore ? asc_xcore_set(sim, c, s.mode, s.xid, s.cycle, s.pc, p->id)
                          : asc_flag_set(sim, c, p->id, s.dst, s.event, s.cycle, s.pc);
        if (!ok) return false;
        if (c->race) { /* the flag (or c's own cross-core counter) now carries the setter's clock */
            if (!s.xcore) asc_race_flag_set(c, p->id, s.dst, s.event, i);
            else if (s.mode != 2) asc_race_xset(c, p->id, s.xid, i);
        }
    }
    return true;
}

/* The occupancy of `cur` ended at sim->now: account it and tell the observer. */
static void finish_cur(AscSim *sim, AscCore *c, AscPipeUnit *p, uint64_t hbm_extra)
{
    uint64_t end = sim->now, start = p->start_cycle;
    if (p->cur_done < end) p->cur_done = end;
    p->done_cycle = max64(p->done_cycle, p->cur_done);
    AscPipeStats *s = &p->stats;
    s->insns++;
    s->busy_cycles += (end - start) - p->stall_cycles;
    s->hbm_extra_cycles += hbm_extra;
    s->last_end_cycle = end;
    if (p->stall == ASC_STALL_FLAG) {
        s->flag_wait_cycles += p->stall_cycles;
        s->flag_wait_by[p->cur.q.in.psrc][p->cur.q.in.event] += p->stall_cycles;
    } else if (p->stall == ASC_STALL_BARRIER) {
        s->barrier_cycles += p->stall_cycles;
    }
    AscPcStats *ps = &c->pcs[(p->cur.q.pc - c->prog->entry) / 4];
    ps->count++;
    ps->cycles += end - start;
    if (sim->obs.on_insn) {
        const AscInsn *in = &p->cur.q.in;
        asc_emit_insn(sim, c, p, &p->cur, &p->st, start, end, p->cur_done, p->stall_cycles, p->stall, in->psrc,
                      in->pdst, in->event, hbm_extra);
    }
    p->state = ASC_PS_IDLE;
}

/* Take the queue head and start it at sim->now. */
static bool start_next(AscSim *sim, AscCore *c, AscPipeUnit *p)
{
    uint64_t now = sim->now;
    if (c->race) asc_race_start(c, p, p->qhead);
    p->cur = p->queue[p->qhead];
    p->qhead = (p->qhead + 1) % p->qcap;
    p->qcount--;
    if (sim->obs.on_counter) sim->obs.on_counter(sim->obs.ud, now, "queue", c->index, p->id, p->qcount);
    if (c->sstate == ASC_SS_QFULL && c->swait_pipe == p->id) asc_wake_scalar(sim, c, now);

    const AscInsn *in = &p->cur.q.in;
    const AscInsnInfo *ii = &asc_insn_info[in->op];
    memset(&p->st, 0, sizeof p->st);
    p->start_cycle = p->run_cycle = now;
    p->stall = ASC_STALL_NONE;
    p->stall_cycles = 0;
    p->cur_done = 0;
    uint64_t sync = sim->lat_sync;

    switch (in->op) {
    case ASC_OP_SET_FLAG:
    case ASC_OP_SET_CROSS_CORE: {
        p->state = ASC_PS_RUN;
        p->busy_until = now + sync;
        AscPendingSet s = {.cycle = max64(p->busy_until, p->done_cycle), .pc = p->cur.q.pc};
        if (in->op == ASC_OP_SET_FLAG) {
            s.dst = in->pdst;
            s.event = in->event;
        } else {
            s.xcore = 1;
            s.mode = in->mode;
            s.xid = in->xid;
        }
        p->cur_done = s.cycle;
        return push_pending(sim, c, p, &s);
    }
    case ASC_OP_WAIT_FLAG:
        if (sim->san & ASC_SAN_SYNCCHECK) asc_san_wait(sim, c, p->id, p->cur.q.pc, in);
        p->state = ASC_PS_WAIT;
        p->busy_until = ASC_NEVER;
        return true;
    case ASC_OP_BAR:
        p->state = ASC_PS_BAR;
        p->busy_until = max64(now + sync, p->done_cycle);
        if (p->busy_until > now + sync) {
            p->stall = ASC_STALL_BARRIER;
            p->stall_cycles = p->busy_until - (now + sync);
        }
        return true;
    default: break;
    }

    /* a data instruction: apply its effect now, then time it */
    c->xfault = ASC_FAULT_ACCESS;
    c->ctx.fault[0] = 0;
    if (c->race) asc_race_begin(sim, c, p);
    c->xpipe = p->id;
    c->xpc = p->cur.q.pc;
    sim->san_exec++;
    if (!asc_dispatch(c, &p->cur.q, &p->st))
        return asc_sim_fail(sim, (AscFaultKind)c->xfault, c, p->id, p->cur.q.pc, in->op, "%s",
                            c->ctx.fault[0] ? c->ctx.fault : "instruction failed");
    const AscExecStats *st = &p->st;
    if (st->note) asc_sim_add_note(sim, c->index, p->cur.q.pc, st->note, st->note_a, st->note_b);
    const int64_t *v = sim->cfg.v;
    if (st->src_buf < ASC_BUF_COUNT && st->dst_buf < ASC_BUF_COUNT && (ii->flags & F_DMA))
        c->bytes[st->src_buf][st->dst_buf] += st->bytes;
    c->conflict_beats += st->conflict_beats;
    if (in->op >= ASC_OP_COUNT) return false;

    if (ii->flags & F_DMA) {
        /* transfer: fixed setup, then the bytes (run_cycle marks the transfer start) */
        p->state = ASC_PS_SETUP;
        p->busy_until = now + (uint64_t)v[ASC_KEY_DMA_SETUP] + (uint64_t)st->bursts * (uint64_t)v[ASC_KEY_DMA_BURST_CYCLES];
        if (sim->functional) p->busy_until = now;
        return true;
    }
    uint64_t dur;
    if (ii->lat == ASC_LAT_MMAD) {
        dur = asc_lat_cycles(sim, ii->lat) + st->cube_steps;
        c->cube_flops += st->flops;
    } else {
        dur = asc_lat_cycles(sim, ii->lat) + st->beats;
        c->vec_flops += st->flops;
        c->vec_bytes += st->bytes;
        p->stats.conflict_cycles += st->conflict_beats;
    }
    if (sim->functional) dur = 0;
    p->state = ASC_PS_RUN;
    p->busy_until = now + dur;
    p->cur_done = p->busy_until;
    if (c->race) asc_race_resolve(sim, c, p, p->cur_done);
    return true;
}

/* Setup done: start moving bytes. */
static void start_transfer(AscSim *sim, AscCore *c, AscPipeUnit *p)
{
    const AscExecStats *st = &p->st;
    const int64_t *v = sim->cfg.v;
    const AscInsnInfo *ii = &asc_insn_info[p->cur.q.in.op];
    bool gm_rd = st->src_buf == ASC_BUF_GM, gm_wr = st->dst_buf == ASC_BUF_GM;
    bool fix = ii->lat == ASC_LAT_FIX;
    /* latency from the last byte to the data landing */
    if (gm_rd) p->xfer_latency = (uint64_t)v[ASC_KEY_GM_READ_LATENCY];
    else if (gm_wr) p->xfer_latency = (uint64_t)v[ASC_KEY_GM_WRITE_LATENCY] + (fix ? (uint64_t)v[ASC_KEY_FIX_LATENCY] : 0);
    else if (fix) p->xfer_latency = (uint64_t)v[ASC_KEY_FIX_LATENCY];
    else if (ii->lat == ASC_LAT_L0) p->xfer_latency = (uint64_t)v[ASC_KEY_L0_LATENCY];
    else p->xfer_latency = (uint64_t)v[ASC_KEY_LOCAL_LATENCY];
    p->xfer_start = sim->now;
    p->state = ASC_PS_XFER;
    if (sim->functional) {
        p->xfer_latency = 0;
        p->xfer = -1;
        p->xfer_ideal_cycles = 0;
        p->busy_until = sim->now;
        return;
    }
    uint64_t rate;
    if (gm_rd || gm_wr) rate = (uint64_t)(fix ? v[ASC_KEY_FIX_BYTES_PER_CYCLE] : v[ASC_KEY_GM_BYTES_PER_CYCLE]);
    else if (fix) rate = (uint64_t)v[ASC_KEY_FIX_BYTES_PER_CYCLE];
    else if (ii->lat == ASC_LAT_L0) rate = (uint64_t)v[ASC_KEY_L0_BYTES_PER_CYCLE];
    else rate = (uint64_t)v[ASC_KEY_LOCAL_BYTES_PER_CYCLE];
    if ((gm_rd || gm_wr) && st->bytes) {
        uint32_t pct = st->gm_unaligned ? (uint32_t)v[ASC_KEY_GM_UNALIGNED_PCT] : 100;
        uint64_t ideal_fp = (rate << ASC_FP_SHIFT) * pct / 100;
        p->xfer_ideal_cycles = asc_ceil_div(st->bytes << ASC_FP_SHIFT, ideal_fp ? ideal_fp : 1);
        p->xfer = 0;
        asc_hbm_add(sim, asc_agent(c, p->id), st->bytes, rate, pct); /* sets busy_until */
    } else {
        p->xfer = -1;
        p->xfer_ideal_cycles = asc_ceil_div(st->bytes, rate);
        p->busy_until = sim->now + p->xfer_ideal_cycles;
    }
}

/* The pipe's turn at sim->now: fire due sets, then advance its state
 * machine as far as it goes at this cycle (an instruction that ends now lets
 * the next one start now), and reschedule it for its next action. */
void asc_pipe_step(AscSim *sim, AscCore *c, AscPipeUnit *p)
{
    uint64_t now = sim->now;
    for (;;) {
        if (!fire_pending(sim, c, p)) return;
        switch (p->state) {
        case ASC_PS_RUN:
        case ASC_PS_BAR:
            if (p->busy_until > now) goto out;
            if (p->state == ASC_PS_BAR) p->cur_done = now;
            finish_cur(sim, c, p, 0);
            continue;
        case ASC_PS_SETUP:
            if (p->busy_until > now) goto out;
            start_transfer(sim, c, p);
            continue;
        case ASC_PS_XFER: {
            if (p->busy_until > now) goto out;
            if (p->xfer >= 0) {
                uint32_t ag = asc_agent(c, p->id);
                asc_hbm_advance(sim);
                if (!asc_hbm_done(sim, ag)) goto out; /* re-rated meanwhile: busy_until moved */
                asc_hbm_remove(sim, ag);
            }
            uint64_t took = now - p->xfer_start;
            uint64_t extra = took > p->xfer_ideal_cycles ? took - p->xfer_ideal_cycles : 0;
            p->cur_done = now + p->xfer_latency;
            if (c->race) asc_race_resolve(sim, c, p, p->cur_done);
            finish_cur(sim, c, p, extra);
            continue;
        }
        case ASC_PS_WAIT: {
            const AscInsn *in = &p->cur.q.in;
            AscFlag *f = &c->flags[in->psrc][in->pdst][in->event], *g = NULL;
            if (sim->nrules) { /* what-if rules: the wait is on another flag, or on two */
                const uint8_t *m = flag_rule(sim, ASC_FLAG_RULE_MOVE_WAIT, in->psrc, in->pdst, in->event);
                const uint8_t *j = flag_rule(sim, ASC_FLAG_RULE_JOIN_WAIT, in->psrc, in->pdst, in->event);
                if (m) f = &c->flags[m[0]][m[1]][m[2]];
                if (j) g = &c->flags[j[0]][j[1]][j[2]];
            }
            if (!f->set || (g && !g->set)) {
                p->busy_until = ASC_NEVER;
                goto out;
            }
            uint64_t visible = max64(f->set_cycle, g ? g->set_cycle : 0) + sim->release;
            if (visible > now) {
                p->busy_until = visible;
                goto out;
            }
            uint64_t set_cycle = max64(f->set_cycle, g ? g->set_cycle : 0);
            uint32_t set_pc = f->set_pc;
            asc_flag_consume(f);
            if (g) asc_flag_consume(g);
            if (c->race) asc_race_flag_wait(c, in->psrc, in->pdst, in->event);
            if (now > p->start_cycle) {
                p->stall = ASC_STALL_FLAG;
                p->stall_cycles = now - p->start_cycle;
            }
            if (sim->obs.on_flag) {
                AscSimFlagEvent fe = {.core = c->index, .src = in->psrc, .dst = in->pdst, .event = in->event,
                                      .set_cycle = set_cycle, .set_pc = set_pc,
                                      .wait_start_cycle = p->start_cycle, .release_cycle = now,
                                      .wait_pc = p->cur.q.pc};
                sim->obs.on_flag(sim->obs.ud, &fe);
            }
            p->run_cycle = now;
            p->state = ASC_PS_RUN;
            p->busy_until = now + sim->lat_sync;
            p->cur_done = p->busy_until;
            continue;
        }
        case ASC_PS_IDLE:
            if (!p->qcount) goto out;
            if (!start_next(sim, c, p)) return;
            continue;
        }
    }
out:
    if (c->sstate == ASC_SS_DRAIN && asc_pipe_idle(p)) asc_wake_scalar(sim, c, now);
    asc_pipe_reschedule(sim, c, p);
}
