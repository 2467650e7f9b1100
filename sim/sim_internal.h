/* sim_internal.h -- the engine's state, shared by sim.c (lifecycle, run
 * loop, faults), sched.c (event heap), hbm.c (shared HBM bandwidth),
 * core.c (pipes, queues, flags), scalar.c (scalar unit, dispatch),
 * race.c.  Not installed; nothing outside sim/ includes it (run/ reads the
 * engine through the inspection functions of asc/sim.h).
 *
 * Invariants:
 *  - Every unit that can act (the scalar unit or a pipe of a core) is an
 *    "agent" with id core * ASC_AGENTS_PER_CORE + pipe (S = the scalar unit).
 *    An agent is in the heap iff it has a known next cycle to act; the heap
 *    orders by (cycle, agent), which is the (cycle, core, pipe) tie-break.
 *  - Time never goes backwards: an agent is only scheduled at >= sim->now.
 *  - All arrays are sized in asc_sim_new; nothing below allocates while
 *    running (GM pages aside, see sim_exec.h).
 *  - Pipe occupancy and completion: a pipe runs one instruction at a time;
 *    `done_cycle` is the latest completion (data landed / flag set) of every
 *    instruction it started, known as soon as that instruction's occupancy
 *    ended, so set_flag and bar can compute their time on start. */
#ifndef ASC_SIM_INTERNAL_H
#define ASC_SIM_INTERNAL_H

#include "asc/sim.h"
#include "sim_exec.h"

#define ASC_AGENTS_PER_CORE 16 /* pipe values 0..10 fit */
#define ASC_NEVER UINT64_MAX
#define ASC_MAX_EVENTS ASC_SIM_MAX_EVENTS /* event_ids key maximum */
#define ASC_XCORE_IDS 16       /* cross-core counters (ids 0..15, as on A2) */
#define ASC_XCORE_MODES 3      /* join groups per id: modes 0, 1, 2 */
#define ASC_FP_SHIFT 20        /* fixed-point fraction bits of HBM rates */

/* A decoded program (one per part of the kernel). */
typedef struct AscProg {
    uint32_t entry, size; /* bytes into .text */
    AscInsn *insn;        /* size / 4 decoded instructions */
    uint8_t *legal;       /* per instruction, bit k: legal on AscCoreKind k (asc_target_check_insn, once) */
} AscProg;

/* An instruction waiting in (or taken from) a pipe queue. */
typedef struct AscQEntry {
    AscIssued q;
    uint64_t issue_cycle;
    uint64_t seq;
} AscQEntry;

/* A set_flag / cross-core set whose effect lies in the future. */
typedef struct AscPendingSet {
    uint64_t cycle;
    uint32_t pc;
    uint8_t xcore;       /* 0: flag (src=pipe, dst, event); 1: cross-core (mode, xid) */
    uint8_t dst, event;  /* flag */
    uint8_t mode, xid;   /* cross-core */
} AscPendingSet;
#define ASC_PENDING_CAP 256

typedef enum AscPipeState {
    ASC_PS_IDLE = 0,   /* nothing running; starts the queue head when there is one */
    ASC_PS_RUN,        /* fixed occupancy until busy_until */
    ASC_PS_SETUP,      /* DMA setup + per-burst cycles until busy_until, then XFER */
    ASC_PS_XFER,       /* DMA transfer; busy_until follows the HBM model */
    ASC_PS_WAIT,       /* wait_flag: flag not set (busy_until = ASC_NEVER) or not yet visible */
    ASC_PS_BAR         /* bar: until busy_until = the pipe's done_cycle */
} AscPipeState;

typedef AscSimPipeStats AscPipeStats;

/* ---- race checking (race.c; only with desc.check_races) -----------------
 * Happens-before with vector clocks (docs/timing.md §Races).  A clock has
 * one component per unit of the core (indexed by AscPipe; S = the scalar
 * unit): VC[p] = the epoch of the last instruction of pipe p ordered before
 * the holder.  Epochs number each pipe's instructions from 1 in program
 * order.  Everything lives in one AscRaceCore per core, allocated at
 * asc_sim_new; AscCore.race is NULL when checking is off. */
#define ASC_RACE_GRANULE 32
#define ASC_RACE_HIST 64 /* per pipe: program order and cycles of the last 64 epochs (report only) */
typedef uint32_t AscVClock[ASC_PIPE_COUNT];

typedef struct AscRaceHist {
    uint32_t epoch;        /* 0 = empty */
    uint64_t seq;          /* the core's program-order number of the instruction */
    uint64_t start, done;  /* done = ASC_NEVER until known */
} AscRaceHist;

typedef struct AscRaceCore {
    AscVClock vc[ASC_PIPE_COUNT];     /* per unit: S and each pipe */
    AscVClock xvc[ASC_XCORE_IDS];/* cross-core counters this core sets for itself */
    AscVClock *flag;                  /* [src][dst][event]: the clock of the set flag */
    AscVClock *pend[ASC_PIPE_COUNT];  /* per pipe, parallel to its pend ring */
    AscVClock *queue[ASC_PIPE_COUNT]; /* per pipe, parallel to its queue: S's clock at issue */
    AscRaceHist *hist[ASC_PIPE_COUNT];/* per pipe: ring of ASC_RACE_HIST */
    /* Shadow of each local buffer: per 32 B granule, `stride` words:
     *   [0] epoch of the last write (0 = none)  [1] its pc  [2] its pipe
     *   [3 + 2k] epoch of the last read by the pipe of slot k, [4 + 2k] its pc */
    uint32_t *shadow[ASC_BUF_COUNT];
    uint32_t stride;
    uint8_t nslots;
    uint8_t slot_pipe[ASC_PIPE_COUNT]; /* slot -> pipe */
    uint8_t pipe_slot[ASC_PIPE_COUNT]; /* pipe -> slot (0xff: none) */
    /* the instruction whose accesses are being reported */
    uint8_t acc_pipe;
    uint32_t acc_pc, acc_epoch;
    uint64_t acc_seq;
    uint8_t acc_atomic;               /* the instruction writes GM under st_atomic (racecheck on GM) */
    struct AscRaceGmCore *gm;         /* racecheck on GM and across cores (race_gm.c); NULL when off */
} AscRaceCore;

/* ---- sanitizers (san.c) ------------------------------------------------- */
#define ASC_SIM_MAX_ALLOCS 256
/* The extent of a GM allocation of `bytes`, as a device allocation has it on the card:
 * aclrtMalloc rounds the size up to a multiple of 32 bytes and adds 32 (CANN AscendCL
 * reference, aclrtMalloc).  asc_sim_gm_place keeps extents apart; memcheck checks them. */
static inline uint64_t asc_gm_extent(uint64_t bytes) { return (bytes + 31) / 32 * 32 + 32; }

typedef struct AscGmAlloc {
    uint64_t base, bytes;         /* bytes: the device extent (san.c); req: the size asked for */
    uint64_t req;
    char name[ASC_NAME_MAX + 16]; /* "argument 'x'", ".rodata", "gm allocation 3" */
    bool rodata, named;
    uint8_t *init;                /* initcheck: per 32 B granule, 1 = written */
    uint32_t *race;               /* racecheck: per 32 B granule, ASC_RACE_GM_WORDS (race_gm.c) */
} AscGmAlloc;

typedef struct AscPipeUnit {
    bool present;
    uint8_t id;              /* AscPipe */
    AscQEntry *queue;        /* ring of cap entries */
    uint32_t qhead, qcount, qcap;
    AscPipeState state;
    AscQEntry cur;           /* the instruction running / waiting */
    AscExecStats st;
    uint64_t start_cycle;    /* cur left the queue */
    uint64_t run_cycle;      /* cur started running (after a wait) */
    uint64_t busy_until;
    uint64_t done_cycle;     /* latest completion of everything started */
    uint64_t cur_done;       /* completion of cur */
    uint64_t stall_cycles;
    uint8_t stall;           /* AscStall of cur */
    /* transfer (ASC_PS_XFER) */
    int32_t xfer;            /* index into sim->hbm.act, -1 = local (not shared) */
    uint64_t xfer_start, xfer_ideal_cycles, xfer_latency;
    /* pending sets, time-ordered ring */
    AscPendingSet pend[ASC_PENDING_CAP];
    uint32_t phead, pcount;
    AscPipeStats stats;
} AscPipeUnit;

typedef struct AscFlag {
    bool set;
    uint64_t set_cycle;
    uint32_t set_pc;
    /* what-if asc_sim_add_buffer: the flag holds a second set (FIFO) */
    bool two, more;
    uint64_t more_cycle;
    uint32_t more_pc;
} AscFlag;

/* A wait consumed flag f: the second set, if any, moves up. */
static inline void asc_flag_consume(AscFlag *f)
{
    f->set = f->more;
    f->set_cycle = f->more_cycle, f->set_pc = f->more_pc;
    f->more = false;
}

typedef enum AscScalarState {
    ASC_SS_RUN = 0,
    ASC_SS_QFULL,     /* wait_pipe's queue is full */
    ASC_SS_WAIT_FLAG, /* wait_flag X, S */
    ASC_SS_XWAIT,     /* wait_flag_dev */
    ASC_SS_DRAIN,     /* end / bar all / sync_all phase 1 */
    ASC_SS_SYNC_ALL,  /* sync_all phase 2: other cores */
    ASC_SS_DONE
} AscScalarState;

typedef AscSimPcStats AscPcStats;

/* One record of the device print log (exec_print.c): text at print_text + off, NUL-terminated. */
typedef struct AscPrintRec {
    uint32_t core, pc, off, len;
} AscPrintRec;
#define ASC_PRINT_MAX_ARGS 8

/* One job of a core on the host threads (pool.c): a DMA copy, a vector data pass or an mmad.
 * Several may be in flight at once when their footprints do not conflict. */
#define ASC_CORE_JOBS 8
#define ASC_JOB_DEPS 16
typedef struct AscJobSlot {
    AscExecJob job;
    struct AscCore *core;
    int state;               /* pool.c's JOB_*, under the pool's mutex */
    uint32_t next, left;     /* under the mutex: next part to take, parts not finished */
    uint32_t gen;            /* jobs the slot took so far (under the mutex) */
    uint32_t qpos;           /* while queued: its index in the pool's queue (under the mutex) */
    /* the earlier jobs this one must follow (a conflicting footprint): slot and its gen then;
     * it runs once each of them is done (or the slot moved on); under the mutex */
    struct AscJobSlot *dep[ASC_JOB_DEPS];
    uint32_t dep_gen[ASC_JOB_DEPS], ndep;
    bool pending;            /* main thread only: job not yet joined */
} AscJobSlot;

typedef struct AscCore {
    AscExecCtx ctx;          /* first member: exec functions get &core->ctx */
    AscSim *sim;
    uint32_t index;
    AscCoreKind kind;
    uint8_t part;            /* AscPart: which program */
    const AscProg *prog;
    uint32_t ai_core, sub;   /* AI core number; vector index inside it */
    uint64_t x[ASC_NUM_REGS];
    uint64_t spr[ASC_SPR_COUNT];
    uint32_t pc;
    uint64_t seq;            /* instructions fetched */
    uint32_t npc;            /* scalar exec functions: next pc */
    uint64_t scost;          /* scalar exec functions: extra cycles (taken branch, GM access) */
    uint8_t xfault;          /* AscFaultKind of a failing exec function (default ACCESS) */
    /* scalar unit */
    AscScalarState sstate;
    uint8_t sdrain_next;     /* what follows a drain: 0 continue (bar all), 1 end, 2 sync_all */
    uint8_t swait_pipe, swait_src, swait_event, swait_xid;
    uint64_t stime;          /* cycle of the scalar unit's next action */
    uint64_t swait_since;
    uint64_t sync_gen;       /* sync_all generation this core waits on */
    uint64_t end_cycle;
    AscPipeUnit pipes[ASC_PIPE_COUNT];
    AscFlag flags[ASC_PIPE_COUNT][ASC_PIPE_COUNT][ASC_MAX_EVENTS];
    uint32_t xcnt[ASC_XCORE_IDS];
    uint32_t xarr[ASC_XCORE_MODES][ASC_XCORE_IDS]; /* this core's sets not yet joined (core.c) */
    uint64_t pargs[ASC_PRINT_MAX_ARGS]; /* pending print arguments (prt.arg, exec_print.c) */
    uint8_t npargs;
    /* accounting */
    uint64_t bytes[ASC_BUF_COUNT][ASC_BUF_COUNT]; /* [src][dst] */
    uint64_t cube_flops, vec_flops, vec_bytes;
    uint64_t conflict_beats;
    AscPcStats *pcs;         /* per instruction of prog: [(pc - entry) / 4] */
    AscRaceCore *race;       /* race checking state (race.c); NULL when off */
    /* sanitizers (san.c) */
    uint8_t xpipe;           /* the unit whose instruction is executing (S or a pipe) */
    uint32_t xpc;            /* and its pc */
    uint8_t *init[ASC_BUF_COUNT];                 /* initcheck: per 32 B granule of each local buffer */
    uint8_t *undef[ASC_BUF_COUNT];                /* initcheck: per byte of L0A, L0B, L0C, 1 = not defined */
    uint16_t sets_flag[ASC_PIPE_COUNT][ASC_PIPE_COUNT]; /* synccheck: event bits some set_flag sets */
    uint32_t since_bar[ASC_PIPE_COUNT];           /* synccheck: instructions started since the last bar */
    uint8_t seen_bar[ASC_PIPE_COUNT];
    /* host threads (pool.c) */
    AscJobSlot jobs[ASC_CORE_JOBS]; /* the core's jobs handed to a worker */
    uint32_t jobs_pending;   /* main thread only: slots whose job is not yet joined */
    uint32_t job_rr;         /* main thread only: the slot the next job takes (mod ASC_CORE_JOBS) */
    /* main thread only: between AscExecCtx.deps_begin and the next defer or deps_join, the
     * conflicting jobs that asc_exec_check_span and asc_gm_sync find are collected here (the
     * next job follows them) instead of joined */
    bool collecting;
    /* main thread only: the newest job that uses buffer b whole (whole_last[b] while its gen is
     * whole_gen[b] and it is pending), and the slots whose pending job has a local range (bits) */
    struct AscJobSlot *whole_last[ASC_BUF_COUNT];
    uint32_t whole_gen[ASC_BUF_COUNT];
    uint32_t range_pend;
    uint32_t ncdep;
    AscJobSlot *cdep[ASC_JOB_DEPS];
    uint32_t cdep_gen[ASC_JOB_DEPS];
} AscCore;

/* pool.c: host worker threads for exec jobs (NULL pool = inline). */
typedef struct AscPool AscPool;
uint32_t asc_pool_host_threads(uint32_t want); /* want, or $ASC_THREADS, else 1, when 0 */
bool asc_pool_new(AscSim *sim, uint32_t threads); /* false: out of memory */
void asc_pool_free(AscSim *sim);
void asc_pool_join(AscCore *c);
void asc_pool_join_all(AscSim *sim);
/* Runs run_part(job, 0..parts-1) on the host threads (the calling thread too) and returns when all
 * are done; false (nothing run) without a pool.  job->scratch carries the caller's data. */
bool asc_pool_run_parts(AscSim *sim, AscExecJob *job, uint32_t parts);

/* HBM: the GM transfers moving right now, sharing dma.hbm_bytes_per_cycle. */
typedef struct AscXfer {
    uint32_t agent;
    uint64_t rem_fp;   /* bytes left << ASC_FP_SHIFT */
    uint64_t cap_fp;   /* per-core rate of this pipe, bytes/cycle << FP */
    uint32_t pct;      /* 100, or dma.gm_unaligned_pct */
    uint64_t rate_fp;  /* current rate */
} AscXfer;

typedef struct AscHbm {
    AscXfer *act;
    uint32_t n, cap;
    uint64_t last_cycle; /* rem_fp of every entry is as of this cycle */
    uint64_t busy_cycles;/* cycles with at least one transfer */
    uint64_t bytes;      /* GM bytes moved through HBM */
} AscHbm;

typedef struct AscHeapSlot {
    uint64_t key;      /* scheduled cycle */
    uint32_t agent;
} AscHeapSlot;

#define ASC_WIN 4096u /* cycles the near window of AscHeap covers (one bucket per cycle) */
#define ASC_WIN_GROUPS 64u /* its buckets in groups of 64: a bit per group, a bit per bucket */

typedef struct AscHeap {
    AscHeapSlot *e;    /* the heap's slots */
    uint32_t *pos;     /* per agent: index in e, UINT32_MAX - 1 = in the window, UINT32_MAX = not scheduled */
    uint32_t n, cap;
    uint32_t held;     /* the taken agent (asc_heap_take_first), UINT32_MAX = none */
    /* the near window (sched.c): agents due in [base, base + ASC_WIN), one bucket per cycle
     * (index cycle % ASC_WIN), each a bit set of agents with a summary of its non-zero words */
    uint64_t *key;     /* per agent: its cycle while in the window */
    uint64_t *bits;    /* nw words x ASC_WIN buckets: word w of bucket b at [w * ASC_WIN + b] */
    uint64_t *wsum;    /* per bucket: bit w = word w of its bit set is not zero */
    uint64_t occ[ASC_WIN_GROUPS]; /* per group of 64 buckets: bit b = its bucket b is not empty */
    uint64_t gocc;     /* bit g: group g has a non-empty bucket */
    uint64_t base;
    uint64_t first;    /* the window's least key, while it is not empty */
    uint64_t span;     /* ASC_WIN; 0 without a window (no cycle fits) */
    uint32_t nw;       /* words per bucket; 0: no window (more than 64 x 64 agents) */
} AscHeap;

struct AscSim {
    AscAlloc alloc;
    AscPool *pool;          /* host worker threads (pool.c); NULL: one thread */
    uint32_t threads;       /* resolved host threads */
    AscConfig cfg;
    const AscImage *img;
    const AscKernelInfo *kernel;
    AscSimObserver obs;
    bool functional;
    uint32_t blocks;
    AscProg progs[ASC_PART_COUNT];
    AscCore *cores;
    uint32_t ncores;
    AscGm *gm;
    uint64_t gm_next;      /* next argument placement address */
    uint64_t args[ASC_MAX_ARGS];
    AscHeap heap;
    AscHbm hbm;
    uint64_t now;
    uint64_t insns;
    uint64_t limit;        /* max cycles of the current asc_sim_run */
    bool started;
    uint32_t finished;     /* cores done */
    uint32_t sync_arrived;
    uint64_t sync_gen;
    AscSimFault fault;
    bool faulted;
    /* race checking (race.c) */
    bool check_races;
    uint64_t race_exec;             /* instruction executions with accesses, for merging ranges */
    uint64_t race_total;            /* occurrences, listed or not */
    uint32_t nraces;
    AscSimRace races[ASC_SIM_MAX_RACES];
    uint64_t race_first_exec[ASC_SIM_MAX_RACES]; /* execution of the first occurrence */
    uint64_t race_last_exec[ASC_SIM_MAX_RACES];  /* execution of the last one counted */
    uint32_t race_epoch[ASC_SIM_MAX_RACES];      /* epoch of the later access (first occurrence) */
    uint32_t race_prev_epoch[ASC_SIM_MAX_RACES]; /* epoch of the earlier one */
    uint8_t race_pending[ASC_SIM_MAX_RACES];     /* 1: later's done unknown, 2: earlier's */
    uint64_t race_over_key[4];      /* last unlisted occurrence (kind|buf, pc, prev_pc, exec) */
    /* notes (asc_sim_note_get): distinct (pc, kind), first values, counted */
    uint32_t nnotes;
    uint64_t note_total;
    uint64_t notes[ASC_SIM_MAX_NOTES][6]; /* core, pc, kind, count, a, b */
    /* device print log (exec_print.c, asc_sim_print_get): records in execution order */
    uint32_t nprints, print_used;   /* records kept; bytes of print_text used */
    uint64_t prints_dropped;        /* records that did not fit */
    AscPrintRec prints[ASC_SIM_MAX_PRINTS];
    char print_text[ASC_SIM_PRINT_BYTES];

    /* sanitizers (san.c) */
    uint8_t san;                    /* AscSanCheck bits */
    AscGmAlloc allocs[ASC_SIM_MAX_ALLOCS];
    uint32_t nallocs, nuser_allocs;
    uint64_t san_count[ASC_SAN_CHECKS];
    uint32_t nsan;
    AscSimSanIssue san_list[ASC_SIM_MAX_SAN];
    uint32_t san_what[ASC_SIM_MAX_SAN];
    uint64_t san_last_exec[ASC_SIM_MAX_SAN];
    uint64_t san_exec;              /* instruction executions so far (one occurrence each) */
    uint64_t san_over_key[3];       /* the last unlisted occurrence */
    uint32_t *race_bar;             /* racecheck on GM: what sync_all passes on (ncores words, race_gm.c) */
    /* what-if flag rules (asc_sim_flag_rule, asc-sim explain): flag a -> flag b */
    uint32_t nrules;
    struct { uint8_t kind, a[3], b[3]; } rules[ASC_SIM_MAX_FLAG_RULES];
    /* cached config values (cycles, rates) */
    uint64_t lat_scalar, lat_branch, lat_load, lat_store, lat_sync, lat_mask, release;
};

/* sim.c: record a note of an executed instruction (AscNoteKind) */
void asc_sim_add_note(AscSim *sim, uint32_t core, uint32_t pc, uint8_t kind, uint64_t a, uint64_t b);

/* sched.c */
bool asc_heap_init(AscHeap *h, uint32_t agents, const AscAlloc *a);
void asc_heap_free(AscHeap *h, const AscAlloc *a);
void asc_heap_set(AscHeap *h, uint32_t agent, uint64_t cycle); /* ASC_NEVER removes */
uint64_t asc_heap_min_cycle(const AscHeap *h); /* ASC_NEVER when empty */
/* The run loop's agent (asc_heap_take_first): out of min_cycle until it sets its next
 * cycle; asc_heap_release removes it if it did not (sched.c's header comment). */
void asc_heap_release(AscHeap *h);
int asc_heap_take_first(AscHeap *h, uint64_t limit, uint32_t *agent, uint64_t *cycle);

/* hbm.c */
bool asc_hbm_init(AscHbm *h, uint32_t cap, const AscAlloc *a);
void asc_hbm_free(AscHbm *h, const AscAlloc *a);
void asc_hbm_add(AscSim *sim, uint32_t agent, uint64_t bytes, uint64_t cap_bytes_per_cycle, uint32_t pct);
/* The transfer of `agent` finished (rem 0): remove it and re-rate the others. */
void asc_hbm_remove(AscSim *sim, uint32_t agent);
/* Bring every remaining count to sim->now. */
void asc_hbm_advance(AscSim *sim);
bool asc_hbm_done(const AscSim *sim, uint32_t agent);
uint64_t asc_ceil_div(uint64_t a, uint64_t b);

/* core.c: pipes, queues, flags */
void asc_pipe_step(AscSim *sim, AscCore *c, AscPipeUnit *p);
void asc_pipe_reschedule(AscSim *sim, AscCore *c, AscPipeUnit *p);
bool asc_pipe_push(AscSim *sim, AscCore *c, uint8_t pipe, const AscQEntry *e);
bool asc_pipe_idle(const AscPipeUnit *p); /* nothing queued, running or pending */
/* Set flag (src,dst,ev) of core c at `cycle`; wakes its waiter. false = fault. */
bool asc_flag_set(AscSim *sim, AscCore *c, uint8_t src, uint8_t dst, uint8_t ev, uint64_t cycle, uint32_t pc);
bool asc_xcore_set(AscSim *sim, AscCore *c, uint8_t mode, uint8_t xid, uint64_t cycle, uint32_t pc, uint8_t pipe);
bool asc_xcore_member(const AscCore *c, const AscCore *t, uint8_t mode);
bool asc_xcore_target(const AscCore *c, const AscCore *t, uint8_t mode);
void asc_wake_scalar(AscSim *sim, AscCore *c, uint64_t cycle);
uint64_t asc_lat_cycles(const AscSim *sim, unsigned lat);

/* scalar.c */
void asc_scalar_step(AscSim *sim, AscCore *c);
/* The X-macro dispatch of one instruction's effect (every family). */
bool asc_dispatch(AscCore *c, const AscIssued *q, AscExecStats *st);
void asc_capture(const AscCore *c, const AscInsn *in, uint32_t pc, AscIssued *q);

/* race.c: the hooks of the engine, each called only when c->race is set */
bool asc_race_core_init(AscSim *sim, AscCore *c);
void asc_race_core_free(AscSim *sim, AscCore *c);
/* The scalar unit pushed an instruction into p's queue at ring index i. */
void asc_race_issue(AscCore *c, uint8_t pipe, uint32_t i);
/* p took its queue head (ring index i) and starts it: the next epoch. */
void asc_race_start(AscCore *c, AscPipeUnit *p, uint32_t i);
/* p pushed a pending set (flag or cross-core) at ring index i. */
void asc_race_pend(AscCore *c, AscPipeUnit *p, uint32_t i);
/* A set of flag (src, dst, ev) took effect; from pipe src's pending ring
 * index i, or from the scalar unit (src = S, i ignored). */
void asc_race_flag_set(AscCore *c, uint8_t src, uint8_t dst, uint8_t ev, uint32_t i);
/* A wait of flag (src, dst, ev) consumed it: dst acquires its clock. */
void asc_race_flag_wait(AscCore *c, uint8_t src, uint8_t dst, uint8_t ev);
/* A cross-core set of c reached c itself (pipe's pending index i, or S). */
void asc_race_xset(AscCore *c, uint8_t src, uint8_t xid, uint32_t i);
void asc_race_xwait(AscCore *c, uint8_t xid);
/* bar all / sync_all / end drained every pipe: every unit acquires all. */
void asc_race_drain(AscCore *c);
/* Before the exec function of p's current (data) instruction runs. */
void asc_race_begin(AscSim *sim, AscCore *c, AscPipeUnit *p);
/* p's current instruction completes at `done` (cycles for the report). */
void asc_race_resolve(AscSim *sim, AscCore *c, AscPipeUnit *p, uint64_t done);

void asc_race_access(AscCore *c, AscBuf buf, uint64_t lo, uint64_t hi, bool write);

/* race_gm.c: racecheck on GM and across cores (only with --sanitize=racecheck) */
#define ASC_RACE_GM_WORDS 12
bool asc_race_gm_init(AscSim *sim, AscCore *c);
void asc_race_gm_free(AscSim *sim, AscCore *c);
bool asc_race_gm_alloc(AscSim *sim, AscGmAlloc *a);
void asc_race_gm_issue(AscCore *c, uint8_t pipe, uint32_t i);
void asc_race_gm_start(AscCore *c, uint8_t pipe, uint32_t i);
void asc_race_gm_flag_wait(AscCore *c, uint8_t src, uint8_t dst);
void asc_race_gm_xwait(AscCore *c, uint8_t xid);
void asc_race_gm_drain(AscCore *c);
/* A cross-core set of c from unit src (local clock vc) takes effect: one release of c. */
void asc_race_gm_release(AscCore *c, uint8_t src, const uint32_t *vc);
/* The release just made by c arrives at its (mode, xid) join; a join delivers every
 * member's arrivals to each target's counter xid; then the member's are cleared. */
void asc_race_gm_arrive(AscCore *c, uint8_t mode, uint8_t xid);
void asc_race_gm_deliver(const AscCore *m, AscCore *t, uint8_t mode, uint8_t xid);
void asc_race_gm_joined(AscCore *m, uint8_t mode, uint8_t xid);
void asc_race_gm_sync_arrive(AscSim *sim, AscCore *c);
void asc_race_gm_sync_leave(AscSim *sim, AscCore *c);
/* A GM access of the instruction being executed (pipe: race.c's acc_*; S: scalar). */
void asc_race_gm_access(AscCore *c, uint8_t pipe, uint32_t epoch, uint32_t pc, bool atomic, uint64_t lo,
                        uint64_t hi, bool write);
void asc_race_gm_scalar(AscCore *c, uint64_t lo, uint64_t hi, bool write);
void asc_race_gm_xset(AscCore *c, uint8_t src, uint32_t i); /* race.c: the setter's clock, then release */

/* san.c: the sanitizers' hooks */
bool asc_san_add_alloc(AscSim *sim, uint64_t base, uint64_t bytes, bool rodata);
void asc_san_free(AscSim *sim);
void asc_san_host_write(AscSim *sim, uint64_t addr, uint64_t n);
void asc_san_launch(AscSim *sim);
bool asc_san_core_init(AscSim *sim, AscCore *c);
bool asc_san_gm(void *ud, bool write, uint64_t lo, uint64_t hi);
void asc_san_access(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write);
void asc_san_scalar_gm(AscCore *c, uint64_t lo, uint64_t hi, bool write);
void asc_san_issue(AscSim *sim, AscCore *c, uint8_t pipe, const AscInsn *in);
void asc_san_bar_all(AscSim *sim, AscCore *c);
void asc_san_wait(AscSim *sim, AscCore *c, uint8_t pipe, uint32_t pc, const AscInsn *in);
void asc_san_core_end(AscSim *sim, AscCore *c);
/* A new finding (check, pc, what): its message buffer (ASC_SAN_MSG bytes) to format, or NULL when
 * it is one more occurrence of a listed one or beyond the list (counted, not formatted). */
#define ASC_SAN_MSG sizeof(((AscSimSanIssue *)0)->msg)
char *asc_san_claim(AscSim *sim, unsigned check, AscSev sev, const AscCore *c, uint8_t pipe, uint32_t pc,
                    uint32_t what);
void asc_san_put(char *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "MTE3 `mov_ub_to_out ...` at k.s:12 (core0.veccore0, pipe MTE3, pc 0x0040[, cycle 812])" */
void asc_san_who(const AscSim *sim, const AscCore *c, uint8_t pipe, uint32_t pc, bool cycle, char *buf,
                 size_t size);

/* sim.c */
bool asc_sim_fail(AscSim *sim, AscFaultKind kind, AscCore *c, uint8_t pipe, uint32_t pc, uint16_t op,
                  const char *fmt, ...);
static inline uint32_t asc_agent(const AscCore *c, uint8_t pipe) { return c->index * ASC_AGENTS_PER_CORE + pipe; }
void asc_emit_insn(AscSim *sim, AscCore *c, const AscPipeUnit *p, const AscQEntry *e, const AscExecStats *st,
                   uint64_t start, uint64_t end, uint64_t done, uint64_t stall_cycles, uint8_t stall, uint8_t fsrc,
                   uint8_t fdst, uint8_t fev, uint64_t hbm_extra);

#endif
