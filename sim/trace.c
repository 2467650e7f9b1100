/* trace.c -- the streaming Chrome trace writer (msOpProf layout) on the
 * simulator's observer hook: asc-sim run ... --trace trace.json.
 *
 * Users: asc-sim; asc-viz and Perfetto read what it writes.
 *
 * Layout (ARCHITECTURE §6, issue 4):
 *   {"schemaVersion":2,"displayTimeUnit":"ns","profilingType":"op",
 *    "otherData":{"tool":"asc-sim","clock_mhz":M,"target":"T","total_cycles":N},
 *    "traceEvents":[ ... ]}
 * One process per core, named core{N}.veccore{i} / core{N}.cubecore0 /
 * core{N}.aicore0, pid = sort index (cube core*3+1, vector core*3+2+i,
 * coupled core*3+1); one thread per lane, tid = msOpProf's sort index
 * (SCALAR 1, FLOWCTRL 2, MTE1 3, CUBE 4, FIXP 5, MTE2 6, VECTOR 7, MTE3 8).
 * Every instruction is an "X" event on its lane (set_flag: "SET_FLAG" on the
 * source lane, wait_flag: "WAIT_FLAG" on the waiting lane spanning its
 * stall), every released wait a flow "s" -> "t" pair, HBM bandwidth and queue
 * occupancy are "C" counters.  ts/dur are microseconds printed with 3
 * decimals from integer nanoseconds = cycles * 1000 / clock_mhz.
 *
 * Events are written as the engine reports them (deterministic engine order:
 * the cycle each event becomes known, then core, then pipe), never held in
 * memory.  total_cycles is known only at the end: a 20-character field is
 * reserved and patched on close.  The file is PATH.tmp until closed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

struct AscTrace {
    AscAlloc alloc;
    FILE *f;
    char path[1024], tmp[1040];
    const AscSim *sim;
    long total_at;      /* file offset of the reserved total_cycles field */
    uint64_t mhz;
    uint64_t flows;
    bool io_error;
};

static unsigned lane_tid(unsigned pipe)
{
    switch (pipe) {
    case ASC_PIPE_S: return 1;
    case ASC_PIPE_MTE1: return 3;
    case ASC_PIPE_M: return 4;
    case ASC_PIPE_FIX: return 5;
    case ASC_PIPE_MTE2: return 6;
    case ASC_PIPE_V: return 7;
    case ASC_PIPE_MTE3: return 8;
    default: return 11;
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

static unsigned core_pid(const AscSim *sim, uint32_t core)
{
    const AscCore *c = &sim->cores[core];
    return c->kind == ASC_CORE_AIV ? c->ai_core * 3 + 2 + c->sub : c->ai_core * 3 + 1;
}

/* microseconds with 3 decimals */
static const char *us(const AscTrace *t, char *buf, uint64_t cycles)
{
    uint64_t ns = cycles * 1000 / t->mhz;
    snprintf(buf, 32, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
    return buf;
}

static const char *dur_us(const AscTrace *t, char *buf, uint64_t a, uint64_t b)
{
    uint64_t ns = b * 1000 / t->mhz - a * 1000 / t->mhz;
    snprintf(buf, 32, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
    return buf;
}

static void on_insn(void *ud, const AscSimInsnEvent *e)
{
    AscTrace *t = ud;
    if (!t->sim) return;
    const AscCore *c = &t->sim->cores[e->core];
    const AscProg *p = c->prog;
    char text[128] = "", src[300], ts[32], du[32];
    const AscInsn *in = &p->insn[(e->pc - p->entry) / 4];
    asc_insn_print(in, text, sizeof text);
    asc_sim_source(t->sim, e->pc, src, sizeof src);
    const char *name = asc_insn_info[e->op].mnemonic, *cname = lane_cname(e->pipe);
    if (e->op == ASC_OP_SET_FLAG) name = "SET_FLAG", cname = "black";
    if (e->op == ASC_OP_WAIT_FLAG) name = "WAIT_FLAG", cname = "yellow";
    char stall[64] = "";
    if (e->stall == ASC_STALL_FLAG)
        snprintf(stall, sizeof stall, "flag %s->%s id %u", asc_pipe_lane(e->flag_src), asc_pipe_lane(e->flag_dst),
                 e->flag_event);
    else if (e->stall == ASC_STALL_BARRIER) snprintf(stall, sizeof stall, "barrier");
    else if (e->stall == ASC_STALL_XCORE) snprintf(stall, sizeof stall, "cross-core flag");
    else if (e->stall == ASC_STALL_SYNC_ALL) snprintf(stall, sizeof stall, "sync_all");
    else if (e->stall == ASC_STALL_DRAIN) snprintf(stall, sizeof stall, "drain");
    fprintf(t->f,
            ",\n{\"name\":\"%s\",\"cname\":\"%s\",\"ph\":\"X\",\"ts\":%s,\"dur\":%s,\"pid\":%u,\"tid\":%u,"
            "\"args\":{\"pc\":\"0x%04x\",\"instr\":\"%s\",\"source\":\"%s\",\"start_cycle\":%llu,\"end_cycle\":%llu,"
            "\"done_cycle\":%llu,\"bytes\":%llu,\"bank_conflict_beats\":%u,\"hbm_extra_cycles\":%llu,\"stall\":\"%s\"}}",
            name, cname, us(t, ts, e->start_cycle), dur_us(t, du, e->start_cycle, e->end_cycle),
            core_pid(t->sim, e->core), lane_tid(e->pipe), e->pc, text, src, (unsigned long long)e->start_cycle,
            (unsigned long long)e->end_cycle, (unsigned long long)e->done_cycle, (unsigned long long)e->bytes,
            e->conflict_beats, (unsigned long long)e->hbm_extra_cycles, stall);
}

static void on_flag(void *ud, const AscSimFlagEvent *e)
{
    AscTrace *t = ud;
    if (!t->sim) return;
    char ts[32];
    unsigned pid = core_pid(t->sim, e->core);
    uint64_t id = t->flows++;
    fprintf(t->f,
            ",\n{\"name\":\"flow\",\"ph\":\"s\",\"id\":\"intra_%llu\",\"cat\":\"%sTo%s\",\"pid\":%u,\"tid\":%u,\"ts\":%s}",
            (unsigned long long)id, asc_pipe_lane(e->src), asc_pipe_lane(e->dst), pid, lane_tid(e->src),
            us(t, ts, e->set_cycle));
    fprintf(t->f,
            ",\n{\"name\":\"flow\",\"ph\":\"t\",\"bp\":\"e\",\"id\":\"intra_%llu\",\"cat\":\"%sTo%s\",\"pid\":%u,"
            "\"tid\":%u,\"ts\":%s}",
            (unsigned long long)id, asc_pipe_lane(e->src), asc_pipe_lane(e->dst), pid, lane_tid(e->dst),
            us(t, ts, e->release_cycle));
}

static void on_counter(void *ud, uint64_t cycle, const char *name, uint32_t core, uint8_t pipe, int64_t value)
{
    AscTrace *t = ud;
    if (!t->sim) return;
    char ts[32];
    if (core == UINT32_MAX) {
        /* value: milli-bytes per cycle; GB/s = B/cycle * MHz / 1000 */
        uint64_t micro_gbs = (uint64_t)value * t->mhz; /* 1e-6 GB/s */
        fprintf(t->f, ",\n{\"name\":\"HBM GB/s\",\"ph\":\"C\",\"pid\":\"chip\",\"ts\":%s,\"args\":{\"GB/s\":%llu.%03llu}}",
                us(t, ts, cycle), (unsigned long long)(micro_gbs / 1000000),
                (unsigned long long)(micro_gbs % 1000000 / 1000));
        return;
    }
    (void)name;
    fprintf(t->f, ",\n{\"name\":\"queue %s\",\"ph\":\"C\",\"pid\":%u,\"ts\":%s,\"args\":{\"entries\":%lld}}",
            asc_pipe_lane(pipe), core_pid(t->sim, core), us(t, ts, cycle), (long long)value);
}

AscTrace *asc_trace_open(const char *path, const AscAlloc *alloc, AscSimObserver *obs, AscDiags *d)
{
    AscAlloc a = asc_alloc_resolve(alloc);
    AscTrace *t = asc_calloc(&a, 1, sizeof *t);
    if (!t) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    t->alloc = a;
    snprintf(t->path, sizeof t->path, "%s", path);
    snprintf(t->tmp, sizeof t->tmp, "%s.tmp", path);
    t->f = fopen(t->tmp, "wb");
    if (!t->f) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "write", path, strerror(errno));
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
    t->sim = sim;
    t->mhz = (uint64_t)sim->cfg.v[ASC_KEY_CLOCK_MHZ];
    fprintf(t->f, "{\"schemaVersion\":2,\"displayTimeUnit\":\"ns\",\"profilingType\":\"op\",\"otherData\":{\"tool\":"
                  "\"asc-sim\",\"clock_mhz\":%llu,\"target\":\"%s\",\"total_cycles\":",
            (unsigned long long)t->mhz, sim->cfg.name);
    t->total_at = ftell(t->f);
    fprintf(t->f, "%20s},\"traceEvents\":[\n", "0");
    fprintf(t->f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\"chip\",\"args\":{\"name\":\"chip\"}}");
    char name[48];
    for (uint32_t i = 0; i < sim->ncores; i++) {
        unsigned pid = core_pid(sim, i);
        fprintf(t->f, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"%s\"}}", pid,
                asc_sim_core_name(sim, i, name, sizeof name));
        fprintf(t->f, ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"sort_index\":%u}}", pid,
                pid);
        for (unsigned p = 0; p < ASC_PIPE_COUNT; p++) {
            if (!sim->cores[i].pipes[p].present) continue;
            fprintf(t->f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
                    pid, lane_tid(p), asc_pipe_lane(p));
            fprintf(t->f,
                    ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
                    pid, lane_tid(p), lane_tid(p));
        }
    }
}

bool asc_trace_close(AscTrace *t, bool keep, AscDiags *d)
{
    bool ok = true;
    if (keep && t->sim) {
        fprintf(t->f, "\n]}\n");
        if (fseek(t->f, t->total_at, SEEK_SET) == 0)
            fprintf(t->f, "%20llu", (unsigned long long)asc_sim_cycles(t->sim));
        else ok = false;
    }
    if (ferror(t->f)) ok = false;
    if (fclose(t->f) != 0) ok = false;
    if (keep && ok && rename(t->tmp, t->path) != 0) ok = false;
    if (!keep || !ok) remove(t->tmp);
    if (keep && !ok && d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "write", t->path, strerror(errno));
    AscAlloc a = t->alloc;
    asc_free(&a, t);
    return ok || !keep;
}
