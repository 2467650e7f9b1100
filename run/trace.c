/* trace.c -- the streaming Chrome trace writer (msOpProf layout) on the
 * simulator's observer hook: asc-sim run ... --trace trace.json.
 *
 * Users: asc-sim, the pyasc runtime (ctypes); asc-viz, Perfetto,
 * chrome://tracing and MindStudio Insight read what it writes.
 * docs/traces.md documents every field.
 *
 * Layout (docs/traces.md; msOpProf core_timeline_visualizer, docs/sources.md §Trace format):
 *   {"schemaVersion":2,"displayTimeUnit":"ns","profilingType":"op",
 *    "otherData":{"tool":"asc-sim","clock_mhz":M,"target":"T",
 *                 "total_cycles":N,"reorder_overflows":K},
 *    "traceEvents":[ metadata..., events sorted by (cycle, pid, lane, seq) ]}
 *   - pid 0 is "chip" (the HBM counter); one process per core, pid =
 *     msOpProf's process_sort_index (cube core*3+1, vector core*3+2+i,
 *     coupled core*3+1), named core{N}.veccore{i} / cubecore0 / aicore0;
 *   - one thread (lane) per pipe, tid = thread_sort_index = msOpProf's lane
 *     order (SCALAR 1, FLOWCTRL 2, MTE1 3, CUBE 4, FIXP 5, MTE2 6, VECTOR 7,
 *     MTE3 8, ALL 11);
 *   - "X" per instruction on its lane (set_flag: "SET_FLAG" on the source
 *     lane; wait_flag: "WAIT_FLAG" on the waiting lane, spanning its stall);
 *     a scalar queue-full stall is an "X" named QUEUE_FULL on SCALAR;
 *   - flow "s" at the last cycle of the SET_FLAG, flow "t" (bp "e") at the
 *     cycle its WAIT_FLAG was released, id "intra_N", cat "MTE2ToVECTOR";
 *   - cross-core arrows: flow "s" at the last cycle of a set_cross_core (one
 *     per core whose counter it raised), flow "t" at the cycle the
 *     wait_flag_dev that consumed that count was released, id "inter_N",
 *     cat "<SrcLane>ToSCALAR" (the wait sits on the scalar unit); sets and
 *     waits of one counter pair in FIFO order;
 *   - "C" counters: HBM GB/s in use (chip), queue entries per pipe (core).
 *   ts/dur in microseconds = cycles / clock_mhz, printed with 6 decimals by
 *   integer division (rounded down: the same bytes on every machine); dur is
 *   the difference of the printed end and start, so ts + dur is the printed
 *   end exactly.  The exact cycles are in args.
 *
 * Streaming and order.  The engine reports an instruction when its pipe
 * occupancy ends, i.e. in (end cycle, core, pipe) order, while docs/internals.md §Conventions wants
 * the file in start order.  Events wait in a min-heap (the reorder window)
 * and are written once no later report can sort before them: the watermark
 * W = min(now, start of every instruction still running or waiting on a pipe,
 * start of the scalar unit's current stall).  Every future event has a sort
 * cycle >= W: a running instruction is reported with its start (>= W), a
 * flow "s" with its SET_FLAG's last cycle (pushed together with that X), a
 * flow "t", a counter or a new instruction at >= now.  So the heap holds only
 * the events of the window [W, now]: as long as the longest occupancy or
 * stall in flight (a DMA of a few thousand cycles for the kernels we ship),
 * independent of the length of the run.  W costs a scan of the cores' pipes,
 * done only when the heap has doubled (or grown by CHECK_MIN) since the last
 * scan, so amortised O(1) per event.  A pathological kernel (a pipe waiting
 * on a flag for the whole run) would pin W; past MAX_PENDING buffered events
 * the writer then emits the least event anyway and counts it in
 * otherData.reorder_overflows (0 = the file is fully sorted).
 *
 * The file is an exclusive temporary (asc/outfile.h) until it is renamed into
 * place (by asc_trace_close, or by the commit of the caller's set given to
 * asc_trace_open_to); on any error it is removed.  otherData's total_cycles and reorder_overflows are fixed-width
 * fields reserved at the start and patched on close. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "asc/json.h"
#include "asc/run.h"

#define ASC_MAX_EVENTS ASC_SIM_MAX_EVENTS

enum {
    CHECK_MIN = 1024,      /* events pushed between two watermark scans, at least */
    MAX_PENDING = 1 << 18  /* hard bound of the reorder window (~30 MB) */
};

typedef enum TKind {
    TK_INSN, TK_QFULL, TK_FLOW_S, TK_FLOW_T, TK_QUEUE, TK_HBM, TK_FLY_B, TK_FLY_E, TK_HBMC, TK_XFLOW_S, TK_XFLOW_T
} TKind;

/* A copy's in-flight span [from, to): occupancy end to data landed. */
typedef struct TFly {
    uint64_t id, from, to;
    uint32_t pc;
    uint16_t op;
    uint8_t pipe;
} TFly;

/* One buffered event.  Sort key (cycle, pid, lane, seq); seq = arrival
 * number, itself deterministic (the engine's order). */
typedef struct TEv {
    uint64_t cycle, seq;
    uint32_t pid;
    uint8_t lane, kind;
    union {
        AscSimInsnEvent x;                       /* TK_INSN; TK_QFULL (core, pipe = target, pc, start/end) */
        struct { uint64_t id; uint8_t src, dst; } flow;
        struct { int64_t value; uint8_t pipe; } ctr; /* TK_QUEUE, TK_HBM, TK_HBMC */
        TFly fly;                                /* TK_FLY_B/E */
    } u;
} TEv;

/* Flow ids per flag (core, src, dst, event): a set is consumed by exactly
 * one wait, so the slot pairs them whichever of the two is reported first
 * (with flag_release_cycles >= 1 the SET_FLAG always is). */
typedef struct FlowSlot {
    uint64_t id;
    uint8_t state; /* 0 free, 1 "s" written (waiting for the release), 2 "t" written (waiting for the set) */
} FlowSlot;

struct AscTrace {
    AscAlloc alloc;
    FILE *f;
    char path[1024];
    AscOutSet *out, *own_out; /* the file is a temporary of out; own_out: the set asc_trace_open made */
    const AscSim *sim;
    long other_at;      /* file offset of the reserved otherData fields */
    uint64_t mhz;
    uint64_t flows, flights, seq, overflows;
    TEv *heap;
    uint32_t n, cap, next_check;
    FlowSlot *slots;    /* [core][src][dst][event] */
    uint64_t *xring;    /* [core][xid][xcap]: the arrows of the sets pending on a cross-core counter,
                         * oldest first: flow id | setter core << 40 | pipe << 56 | mode << 60 */
    uint32_t *xhead, *xcnt; /* [core][xid]: unused (0) and length */
    uint32_t xcap;      /* per counter: xcore_max_pending * (largest join + 1) */
    uint8_t *xtaken;    /* [core]: scratch of a wait's pop */
    uint64_t xflows;
    uint64_t *qfull_done; /* [core]: swait_since of the queue-full stall already written, +1 */
    int64_t *qlast;     /* [core][pipe]: last queue counter written (-1 none) */
    int64_t *hlast;     /* [core][pipe]: last HBM contention counter written (-1 none) */
    unsigned *pids;     /* [core]: its process id (core_pid), computed at bind */
    int64_t hbm_last;
    bool oom;
};

unsigned asc_trace_lane_tid(unsigned pipe)
{
    switch (pipe) {
    case ASC_PIPE_S: return 1;
    case ASC_PIPE_MTE1: return 3;
    case ASC_PIPE_M: return 4;
    case ASC_PIPE_FIX: return 5;
    case ASC_PIPE_MTE2: return 6;
    case ASC_PIPE_V: return 7;
    case ASC_PIPE_MTE3: return 8;
    case ASC_PIPE_ALL: return 11;
    default: return 16 + pipe; /* pipes msOpProf has no lane for (V2, MTE4, MTE5): after its 15 */
    }
}

static const char *lane_cname(unsigned pipe)
{
    switch (pipe) {
    case ASC_PIPE_S: return "startup";
    case ASC_PIPE_MTE1: return "thread_state_running";
    case ASC_PIPE_M: return "background_memory_dump";
    case ASC_PIPE_FIX: return "thread_state_unknown";
    case ASC_PIPE_MTE2: return "thread_state_iowait";
    case ASC_PIPE_V: return "cq_build_failed";
    case ASC_PIPE_MTE3: return "rail_response";
    default: return "cq_build_passed";
    }
}

static unsigned lane_tid(unsigned pipe) { return asc_trace_lane_tid(pipe); }

static unsigned core_pid(const AscSim *sim, uint32_t core)
{
    AscSimCoreInfo c;
    asc_sim_core_info(sim, core, &c);
    return c.kind == ASC_CORE_AIV ? c.ai_core * 3 + 2 + c.sub : c.ai_core * 3 + 1;
}

/* ---- numbers and strings ---------------------------------------------------- */

/* cycles -> microseconds * 1e6, rounded down; no overflow below 2^64 / 1e6 * mhz */
static uint64_t upico(const AscTrace *t, uint64_t cycles)
{
    return cycles / t->mhz * 1000000u + cycles % t->mhz * 1000000u / t->mhz;
}

static const char *fix6(char *buf, uint64_t v)
{
    snprintf(buf, 32, "%llu.%06llu", (unsigned long long)(v / 1000000u), (unsigned long long)(v % 1000000u));
    return buf;
}

/* A JSON string body: the one string writer (asc/json.h) escapes quotes,
 * backslashes and control bytes, and writes invalid UTF-8 as U+FFFD. */
static void put_str(FILE *f, const char *s) { asc_json_put(f, s, false); }

/* ---- the reorder heap ------------------------------------------------------- */

static bool ev_less(const TEv *a, const TEv *b)
{
    if (a->cycle != b->cycle) return a->cycle < b->cycle;
    if (a->pid != b->pid) return a->pid < b->pid;
    if (a->lane != b->lane) return a->lane < b->lane;
    return a->seq < b->seq;
}

static void heap_pop(AscTrace *t, TEv *out)
{
    *out = t->heap[0];
    TEv last = t->heap[--t->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l >= t->n) break;
        m = l + 1 < t->n && ev_less(&t->heap[l + 1], &t->heap[l]) ? l + 1 : l;
        if (!ev_less(&t->heap[m], &last)) break;
        t->heap[i] = t->heap[m];
        i = m;
    }
    if (t->n) t->heap[i] = last;
}

/* ---- writing one event ------------------------------------------------------- */

static const char *stall_text(char *buf, size_t size, uint8_t stall, uint8_t fsrc, uint8_t fdst, uint8_t fev)
{
    switch (stall) {
    case ASC_STALL_FLAG:
        snprintf(buf, size, "flag %s->%s id %u", asc_pipe_lane(fsrc), asc_pipe_lane(fdst), fev);
        break;
    case ASC_STALL_BARRIER: snprintf(buf, size, "barrier"); break;
    case ASC_STALL_QUEUE_FULL: snprintf(buf, size, "queue full %s", asc_pipe_lane(fsrc)); break;
    case ASC_STALL_XCORE: snprintf(buf, size, "cross-core flag"); break;
    case ASC_STALL_SYNC_ALL: snprintf(buf, size, "sync_all"); break;
    case ASC_STALL_DRAIN: snprintf(buf, size, "drain"); break;
    default: buf[0] = 0; break;
    }
    return buf;
}

/* Scalar stalls that span their whole event (end / bar all draining the
 * pipes, sync_all, wait_flag_dev): drawn in the waiting colour. */
static bool waiting(uint8_t stall)
{
    return stall == ASC_STALL_DRAIN || stall == ASC_STALL_SYNC_ALL || stall == ASC_STALL_XCORE;
}

static void write_x(AscTrace *t, const TEv *ev)
{
    const AscSimInsnEvent *e = &ev->u.x;
    const AscInsn *in = asc_sim_insn_at(t->sim, e->core, e->pc);
    char text[160] = "", src[300], ts[32], du[32], stall[64];
    asc_insn_print(in, text, sizeof text);
    asc_sim_source(t->sim, e->pc, src, sizeof src);
    const char *name = asc_insn_info[e->op].mnemonic, *cname = lane_cname(e->pipe);
    if (ev->kind == TK_QFULL) name = "QUEUE_FULL", cname = "yellow";
    else if (e->op == ASC_OP_SET_FLAG) name = "SET_FLAG", cname = "black";
    else if (e->op == ASC_OP_WAIT_FLAG) name = "WAIT_FLAG", cname = "yellow";
    else if (waiting(e->stall)) cname = "yellow"; /* the scalar unit waited the whole event: not work */
    uint64_t a = upico(t, e->start_cycle), b = upico(t, e->end_cycle);
    FILE *f = t->f;
    fprintf(f, ",\n{\"name\":\"%s\",\"cname\":\"%s\",\"ph\":\"X\",\"ts\":%s,\"dur\":%s,\"pid\":%u,\"tid\":%u,", name,
            cname, fix6(ts, a), fix6(du, b - a), ev->pid, ev->lane);
    fprintf(f, "\"args\":{\"pc\":\"0x%04x\",\"instr\":\"", e->pc);
    put_str(f, text);
    fputs("\",\"source\":\"", f);
    put_str(f, src);
    fprintf(f,
            "\",\"start_cycle\":%llu,\"end_cycle\":%llu,\"done_cycle\":%llu,\"stall_cycles\":%llu,\"bytes\":%llu,"
            "\"bank_conflict_beats\":%u,\"hbm_extra_cycles\":%llu,\"stall\":\"%s\"}}",
            (unsigned long long)e->start_cycle, (unsigned long long)e->end_cycle, (unsigned long long)e->done_cycle,
            (unsigned long long)e->stall_cycles, (unsigned long long)e->bytes, e->conflict_beats,
            (unsigned long long)e->hbm_extra_cycles,
            stall_text(stall, sizeof stall, e->stall, e->flag_src, e->flag_dst, e->flag_event));
}

static void write_ev(AscTrace *t, const TEv *ev)
{
    char ts[32];
    switch ((TKind)ev->kind) {
    case TK_INSN:
    case TK_QFULL: write_x(t, ev); break;
    case TK_FLOW_S:
    case TK_FLOW_T:
        fprintf(t->f, ",\n{\"name\":\"flow\",\"ph\":\"%s,\"id\":\"intra_%llu\",\"cat\":\"%sTo%s\",\"pid\":%u,"
                      "\"tid\":%u,\"ts\":%s}",
                ev->kind == TK_FLOW_S ? "s\"" : "t\",\"bp\":\"e\"", (unsigned long long)ev->u.flow.id,
                asc_pipe_lane(ev->u.flow.src), asc_pipe_lane(ev->u.flow.dst), ev->pid, ev->lane,
                fix6(ts, upico(t, ev->cycle)));
        break;
    case TK_XFLOW_S:
    case TK_XFLOW_T:
        fprintf(t->f, ",\n{\"name\":\"flow\",\"ph\":\"%s,\"id\":\"inter_%llu\",\"cat\":\"%sTo%s\",\"pid\":%u,"
                      "\"tid\":%u,\"ts\":%s}",
                ev->kind == TK_XFLOW_S ? "s\"" : "t\",\"bp\":\"e\"", (unsigned long long)ev->u.flow.id,
                asc_pipe_lane(ev->u.flow.src), asc_pipe_lane(ev->u.flow.dst), ev->pid, ev->lane,
                fix6(ts, upico(t, ev->cycle)));
        break;
    case TK_QUEUE:
        fprintf(t->f, ",\n{\"name\":\"queue %s\",\"ph\":\"C\",\"pid\":%u,\"ts\":%s,\"args\":{\"entries\":%lld}}",
                asc_pipe_lane(ev->u.ctr.pipe), ev->pid, fix6(ts, upico(t, ev->cycle)),
                (long long)ev->u.ctr.value);
        break;
    case TK_FLY_B:
    case TK_FLY_E:
        fprintf(t->f, ",\n{\"name\":\"%s in flight\",\"cat\":\"in_flight\",\"ph\":\"%c\",\"id\":\"flight_%llu\",\"pid\":%u,"
                      "\"tid\":%u,\"ts\":%s",
                asc_pipe_lane(ev->u.fly.pipe), ev->kind == TK_FLY_B ? 'b' : 'e', (unsigned long long)ev->u.fly.id,
                ev->pid, ev->lane, fix6(ts, upico(t, ev->cycle)));
        if (ev->kind == TK_FLY_B)
            fprintf(t->f, ",\"args\":{\"pc\":\"0x%04x\",\"instr\":\"%s\",\"start_cycle\":%llu,\"end_cycle\":%llu}",
                    ev->u.fly.pc, asc_insn_info[ev->u.fly.op].mnemonic, (unsigned long long)ev->u.fly.from,
                    (unsigned long long)ev->u.fly.to);
        fputc('}', t->f);
        break;
    case TK_HBMC: /* value: per-mille of the transfer's rate lost; printed as a percentage, 1 decimal */
        fprintf(t->f, ",\n{\"name\":\"HBM contention %s\",\"ph\":\"C\",\"pid\":%u,\"ts\":%s,\"args\":{\"%%\":%lld.%lld}}",
                asc_pipe_lane(ev->u.ctr.pipe), ev->pid, fix6(ts, upico(t, ev->cycle)),
                (long long)(ev->u.ctr.value / 10), (long long)(ev->u.ctr.value % 10));
        break;
    case TK_HBM: {
        /* value: milli-bytes per cycle; GB/s = B/cycle * MHz / 1000, printed with 3 decimals */
        uint64_t milli_gbs = (uint64_t)ev->u.ctr.value * t->mhz / 1000u;
        fprintf(t->f, ",\n{\"name\":\"HBM GB/s\",\"ph\":\"C\",\"pid\":0,\"ts\":%s,\"args\":{\"GB/s\":%llu.%03llu}}",
                fix6(ts, upico(t, ev->cycle)), (unsigned long long)(milli_gbs / 1000),
                (unsigned long long)(milli_gbs % 1000));
        break;
    }
    }
}

static void flush_below(AscTrace *t, uint64_t w)
{
    TEv ev;
    while (t->n && t->heap[0].cycle < w) {
        heap_pop(t, &ev);
        write_ev(t, &ev);
    }
}

static void push(AscTrace *t, TEv *ev)
{
    if (t->oom) return;
    ev->seq = t->seq++;
    if (t->n == t->cap) {
        uint32_t ncap = t->cap ? t->cap * 2 : 4096;
        TEv *nh = asc_realloc(&t->alloc, t->heap, (size_t)t->cap * sizeof *nh, (size_t)ncap * sizeof *nh);
        if (!nh) {
            t->oom = true;
            return;
        }
        t->heap = nh;
        t->cap = ncap;
    }
    uint32_t i = t->n++;
    while (i && ev_less(ev, &t->heap[(i - 1) / 2])) {
        t->heap[i] = t->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    t->heap[i] = *ev;
    if (t->n >= t->next_check) {
        flush_below(t, asc_sim_watermark(t->sim)); /* no later report sorts before it */
        while (t->n > MAX_PENDING) { /* pinned watermark: give up strict order for bounded memory */
            TEv e;
            heap_pop(t, &e);
            write_ev(t, &e);
            t->overflows++;
        }
        t->next_check = t->n + (t->n > CHECK_MIN ? t->n : CHECK_MIN);
    }
}

/* ---- observer callbacks --------------------------------------------------------- */

static FlowSlot *slot(AscTrace *t, uint32_t core, uint8_t src, uint8_t dst, uint8_t ev)
{
    return &t->slots[((core * ASC_PIPE_COUNT + src) * ASC_PIPE_COUNT + dst) * ASC_MAX_EVENTS + ev];
}

/* A flow arrow's id for one end (`mine`: 1 the set "s", 2 the release "t")
 * of the pair in slot s.  Either end may be reported first: the first one
 * takes a new id and marks the slot, the second one reuses it and frees it. */
static uint64_t flow_id(AscTrace *t, FlowSlot *s, uint8_t mine)
{
    if (s->state == 3 - mine) {
        s->state = 0;
        return s->id;
    }
    s->state = mine;
    return s->id = t->flows++;
}

/* Cross-core arrows.  A set of core `from` is an arrival at its join group (the engine's
 * rule: asc_sim_xcore_joins / asc_sim_xcore_reaches, docs/timing.md); it pushes one "s" per
 * core the group's join raises and queues the arrow on that core's counter.  A
 * wait_flag_dev (reported after its release, which follows every set's report) consumes
 * one join: the oldest queued arrow and, for each other member of that arrow's group, the
 * oldest arrow of that member; it pushes their "t" at its release. */
#define XF_ID(v) ((v) & ((1ull << 40) - 1))
#define XF_CORE(v) ((uint32_t)((v) >> 40) & 0xffffu)
#define XF_PIPE(v) ((uint8_t)((v) >> 56) & 15u)
#define XF_MODE(v) ((unsigned)((v) >> 60) & 3u)
static void xcore_flow(AscTrace *t, const AscSimInsnEvent *e, uint32_t pid, uint8_t lane)
{
    const AscInsn *in = asc_sim_insn_at(t->sim, e->core, e->pc);
    unsigned xid = in->xid & 15;
    uint32_t nc = asc_sim_ncores(t->sim);
    if (e->op == ASC_OP_WAIT_FLAG_DEV) {
        size_t q = (size_t)e->core * 16 + xid;
        if (!t->xcnt[q]) return;
        uint64_t *r = t->xring + q * t->xcap;
        uint64_t first = r[0];
        memset(t->xtaken, 0, nc);
        uint32_t keep = 0;
        for (uint32_t k = 0; k < t->xcnt[q]; k++) {
            uint64_t v = r[k];
            uint32_t src = XF_CORE(v);
            bool take = k == 0 || (XF_MODE(v) == XF_MODE(first) && src < nc && !t->xtaken[src] &&
                                   asc_sim_xcore_joins(t->sim, XF_CORE(first), src, XF_MODE(first)));
            if (!take) {
                r[keep++] = v;
                continue;
            }
            if (src < nc) t->xtaken[src] = 1;
            TEv ft = {.cycle = e->start_cycle + e->stall_cycles, .pid = pid, .lane = lane, .kind = TK_XFLOW_T};
            ft.u.flow.id = XF_ID(v);
            ft.u.flow.src = XF_PIPE(v);
            ft.u.flow.dst = ASC_PIPE_S;
            push(t, &ft);
        }
        t->xcnt[q] = keep;
        return;
    }
    for (uint32_t c = 0; c < nc; c++) {
        if (!asc_sim_xcore_reaches(t->sim, e->core, c, in->mode)) continue;
        size_t q = (size_t)c * 16 + xid;
        if (t->xcnt[q] == t->xcap) continue; /* the engine faults before this */
        uint64_t id = t->xflows++;
        t->xring[q * t->xcap + t->xcnt[q]] = XF_ID(id) | (uint64_t)e->core << 40 | (uint64_t)(e->pipe & 15) << 56 |
                                             (uint64_t)(in->mode & 3) << 60;
        t->xcnt[q]++;
        TEv fs = {.cycle = e->end_cycle > e->start_cycle ? e->end_cycle - 1 : e->start_cycle, .pid = pid,
                  .lane = lane, .kind = TK_XFLOW_S};
        fs.u.flow.id = id;
        fs.u.flow.src = e->pipe;
        fs.u.flow.dst = ASC_PIPE_S;
        push(t, &fs);
    }
}

static void on_insn(void *ud, const AscSimInsnEvent *e)
{
    AscTrace *t = ud;
    if (!t->sim) return;
    TEv ev = {.cycle = e->start_cycle, .pid = t->pids[e->core], .lane = (uint8_t)lane_tid(e->pipe),
              .kind = TK_INSN};
    ev.u.x = *e;
    push(t, &ev);
    if ((asc_insn_info[e->op].flags & F_DMA) && e->done_cycle > e->end_cycle) {
        /* the copy's data is in flight from its occupancy end until it lands */
        TEv fb = {.cycle = e->end_cycle, .pid = ev.pid, .lane = ev.lane, .kind = TK_FLY_B};
        fb.u.fly = (TFly){.id = t->flights++, .from = e->end_cycle, .to = e->done_cycle, .pc = e->pc,
                                       .op = e->op, .pipe = e->pipe};
        TEv fe = fb;
        fe.cycle = e->done_cycle;
        fe.kind = TK_FLY_E;
        push(t, &fb);
        push(t, &fe);
    }
    if (e->op == ASC_OP_SET_CROSS_CORE || e->op == ASC_OP_WAIT_FLAG_DEV) {
        xcore_flow(t, e, ev.pid, ev.lane);
        return;
    }
    if (e->op != ASC_OP_SET_FLAG) return;
    /* the arrow leaves from the SET_FLAG's last cycle (msOpProf: "from the SET end") */
    const AscInsn *in = asc_sim_insn_at(t->sim, e->core, e->pc);
    FlowSlot *s = slot(t, e->core, in->psrc, in->pdst, in->event);
    TEv fs = {.cycle = e->end_cycle > e->start_cycle ? e->end_cycle - 1 : e->start_cycle, .pid = ev.pid,
              .lane = ev.lane, .kind = TK_FLOW_S};
    fs.u.flow.id = flow_id(t, s, 1); /* the release may come first (0-latency configs) */
    fs.u.flow.src = in->psrc;
    fs.u.flow.dst = in->pdst;
    push(t, &fs);
}

static void on_flag(void *ud, const AscSimFlagEvent *e)
{
    AscTrace *t = ud;
    if (!t->sim) return;
    FlowSlot *s = slot(t, e->core, e->src, e->dst, e->event);
    TEv ft = {.cycle = e->release_cycle, .pid = t->pids[e->core], .lane = (uint8_t)lane_tid(e->dst),
              .kind = TK_FLOW_T};
    ft.u.flow.id = flow_id(t, s, 2);
    ft.u.flow.src = e->src;
    ft.u.flow.dst = e->dst;
    push(t, &ft);
}

static void on_counter(void *ud, uint64_t cycle, const char *name, uint32_t core, uint8_t pipe, int64_t value)
{
    AscTrace *t = ud;
    if (!t->sim) return;
    if (!strcmp(name, "hbm_contention")) {
        int64_t *last = &t->hlast[core * ASC_PIPE_COUNT + pipe];
        if (*last == value || (*last < 0 && value == 0)) return; /* no sample before the first contention */
        *last = value;
        TEv ev = {.cycle = cycle, .pid = t->pids[core], .lane = (uint8_t)lane_tid(pipe), .kind = TK_HBMC};
        ev.u.ctr.value = value;
        ev.u.ctr.pipe = pipe;
        push(t, &ev);
        return;
    }
    if (core == UINT32_MAX) {
        if (value == t->hbm_last) return;
        t->hbm_last = value;
        TEv ev = {.cycle = cycle, .pid = 0, .lane = 0, .kind = TK_HBM};
        ev.u.ctr.value = value;
        push(t, &ev);
        return;
    }
    if (strcmp(name, "queue")) return;
    /* A pop that wakes a scalar unit stalled on this full queue: the stall
     * [since, now) becomes visible as QUEUE_FULL on SCALAR. */
    AscSimScalarWait w;
    if (asc_sim_scalar_wait(t->sim, core, &w) && w.stall == ASC_STALL_QUEUE_FULL && w.pipe == pipe &&
        cycle > w.since && t->qfull_done[core] != w.since + 1) {
        t->qfull_done[core] = w.since + 1;
        TEv q = {.cycle = w.since, .pid = t->pids[core], .lane = (uint8_t)lane_tid(ASC_PIPE_S),
                 .kind = TK_QFULL};
        q.u.x = (AscSimInsnEvent){.core = core, .pipe = ASC_PIPE_S, .op = asc_sim_insn_at(t->sim, core, w.pc)->op,
                                  .pc = w.pc, .start_cycle = w.since, .end_cycle = cycle, .done_cycle = cycle,
                                  .stall_cycles = cycle - w.since, .stall = ASC_STALL_QUEUE_FULL,
                                  .flag_src = pipe};
        push(t, &q);
    }
    int64_t *last = &t->qlast[core * ASC_PIPE_COUNT + pipe];
    if (*last == value) return;
    *last = value;
    TEv ev = {.cycle = cycle, .pid = t->pids[core], .lane = (uint8_t)lane_tid(pipe), .kind = TK_QUEUE};
    ev.u.ctr.value = value;
    ev.u.ctr.pipe = pipe;
    push(t, &ev);
}

/* ---- open, bind, close ------------------------------------------------------------ */

AscTrace *asc_trace_open(const char *path, const AscAlloc *alloc, AscSimObserver *obs, AscDiags *d)
{
    return asc_trace_open_to(path, alloc, obs, NULL, d);
}

AscTrace *asc_trace_open_to(const char *path, const AscAlloc *alloc, AscSimObserver *obs, AscOutSet *out,
                            AscDiags *d)
{
    AscAlloc a = asc_alloc_resolve(alloc);
    AscTrace *t = asc_calloc(&a, 1, sizeof *t);
    if (!t) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    t->alloc = a;
    t->next_check = CHECK_MIN;
    t->hbm_last = -1;
    snprintf(t->path, sizeof t->path, "%s", path);
    t->out = out ? out : (t->own_out = asc_out_new(&a));
    t->f = t->out ? asc_out_open(t->out, path, d) : NULL;
    if (!t->f) {
        if (!t->out && d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        asc_out_free(t->own_out);
        asc_free(&a, t);
        return NULL;
    }
    obs->ud = t;
    obs->on_insn = on_insn;
    obs->on_flag = on_flag;
    obs->on_counter = on_counter;
    return t;
}

void asc_trace_bind(AscTrace *t, const AscSim *sim)
{
    uint32_t nc = asc_sim_ncores(sim);
    t->slots = asc_calloc(&t->alloc, (size_t)nc * ASC_PIPE_COUNT * ASC_PIPE_COUNT * ASC_MAX_EVENTS, sizeof *t->slots);
    t->qfull_done = asc_calloc(&t->alloc, nc, sizeof *t->qfull_done);
    t->qlast = asc_calloc(&t->alloc, (size_t)nc * ASC_PIPE_COUNT, sizeof *t->qlast);
    t->hlast = asc_calloc(&t->alloc, (size_t)nc * ASC_PIPE_COUNT, sizeof *t->hlast);
    t->pids = asc_calloc(&t->alloc, nc ? nc : 1, sizeof *t->pids);
    t->xcap = (uint32_t)asc_sim_config(sim)->v[ASC_KEY_XCORE_MAX_PENDING];
    if (!t->xcap) t->xcap = 1;
    {
        uint32_t kinds[4] = {0}, maxg = 1; /* the largest join group: the cores of one kind */
        AscSimCoreInfo ci;
        for (uint32_t i = 0; i < nc; i++)
            if (asc_sim_core_info(sim, i, &ci) && (unsigned)ci.kind < 4 && ++kinds[ci.kind] > maxg) maxg = kinds[ci.kind];
        t->xcap *= maxg + 1;
    }
    t->xtaken = asc_calloc(&t->alloc, nc ? nc : 1, 1);
    t->xring = asc_calloc(&t->alloc, (size_t)(nc ? nc : 1) * 16 * t->xcap, sizeof *t->xring);
    t->xhead = asc_calloc(&t->alloc, (size_t)(nc ? nc : 1) * 16, sizeof *t->xhead);
    t->xcnt = asc_calloc(&t->alloc, (size_t)(nc ? nc : 1) * 16, sizeof *t->xcnt);
    if (!t->slots || !t->qfull_done || !t->qlast || !t->hlast || !t->pids || !t->xring || !t->xhead || !t->xcnt ||
        !t->xtaken) {
        t->oom = true; /* reported on close; the callbacks stay off */
        return;
    }
    for (size_t i = 0; i < (size_t)nc * ASC_PIPE_COUNT; i++) t->qlast[i] = t->hlast[i] = -1;
    for (uint32_t i = 0; i < nc; i++) t->pids[i] = core_pid(sim, i);
    t->sim = sim;
    t->mhz = (uint64_t)asc_sim_config(sim)->v[ASC_KEY_CLOCK_MHZ];
    if (!t->mhz) t->mhz = 1;
    FILE *f = t->f;
    fprintf(f, "{\"schemaVersion\":2,\"displayTimeUnit\":\"ns\",\"profilingType\":\"op\",\"otherData\":{\"tool\":"
               "\"asc-sim\",\"clock_mhz\":%llu,\"target\":\"",
            (unsigned long long)t->mhz);
    put_str(f, asc_sim_config(sim)->name);
    fputs("\",", f);
    t->other_at = ftell(f);
    /* reserved, patched on close */
    fprintf(f, "\"total_cycles\":%20s,\"reorder_overflows\":%20s},\"traceEvents\":[\n", "0", "0");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"chip\"}}");
    fprintf(f, ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":0,\"args\":{\"sort_index\":0}}");
    char name[48];
    for (uint32_t i = 0; i < nc; i++) {
        unsigned pid = t->pids[i];
        fprintf(f, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"%s\"}}", pid,
                asc_sim_core_name(sim, i, name, sizeof name));
        fprintf(f, ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"sort_index\":%u}}", pid,
                pid);
        /* lanes in tid (= msOpProf sort index) order */
        for (unsigned tid = 1; tid < 16 + ASC_PIPE_COUNT; tid++)
            for (unsigned p = 0; p < ASC_PIPE_COUNT; p++) {
                if (!asc_sim_has_pipe(sim, i, (uint8_t)p) || lane_tid(p) != tid) continue;
                fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
                        pid, tid, asc_pipe_lane(p));
                fprintf(f,
                        ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
                        pid, tid, tid);
            }
    }
}

bool asc_trace_close(AscTrace *t, bool keep, AscDiags *d)
{
    bool ok = !t->oom;
    if (keep && ok && t->sim) {
        flush_below(t, UINT64_MAX);
        fprintf(t->f, "\n]}\n");
        if (fseek(t->f, t->other_at, SEEK_SET) == 0)
            fprintf(t->f, "\"total_cycles\":%20llu,\"reorder_overflows\":%20llu",
                    (unsigned long long)asc_sim_cycles(t->sim), (unsigned long long)t->overflows);
        else ok = false;
    }
    if (keep && !t->sim) ok = false;
    int err = errno;
    if (ferror(t->f)) ok = false;
    if (!asc_out_close(t->out, t->f, NULL)) ok = false;
    if (keep && ok && t->own_out && !asc_out_commit(t->own_out, NULL)) ok = false, err = errno;
    if (!keep || !ok) asc_out_abort(t->out); /* a shared set: the whole run fails */
    asc_out_free(t->own_out);
    if (keep && !ok && d) {
        if (t->oom) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        else asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "write", t->path, err ? strerror(err) : "write error");
    }
    AscAlloc a = t->alloc;
    asc_free(&a, t->heap);
    asc_free(&a, t->slots);
    asc_free(&a, t->qfull_done);
    asc_free(&a, t->qlast);
    asc_free(&a, t->hlast);
    asc_free(&a, t->pids);
    asc_free(&a, t->xring);
    asc_free(&a, t->xhead);
    asc_free(&a, t->xcnt);
    asc_free(&a, t->xtaken);
    asc_free(&a, t);
    return ok || !keep;
}
