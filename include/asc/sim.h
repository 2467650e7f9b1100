/* sim.h -- the AI Core simulator: launch a kernel of an AscImage on N cores,
 * run it cycle-approximately (or functionally), read results, report.
 *
 * Users: run/ (argument binding, reports, the trace writer: asc/run.h),
 * asc-sim (run/asc_sim_main.c), the pyasc runtime (ctypes over libasc.so),
 * tests and benchmarks.
 *
 * Lifetime: asc_sim_new() copies the config and decodes the kernel's
 * programs; the image is borrowed and must outlive the sim (the line table
 * and file names are read when a fault or report is formatted).  Every
 * buffer the engine needs (cores, local memories, queues, the event heap,
 * per-pc statistics) is allocated there, so asc_sim_run() never allocates,
 * except GM pages backed on first write (sim_exec.h).
 *
 * Time is integer cycles only.  Output is deterministic: events are
 * processed in (cycle, core, pipe) order, reports have a fixed key order.
 * The library never prints: faults are values (AscSimFault), reports are
 * strings the caller prints or writes.  docs/timing.md has every formula. */
#ifndef ASC_SIM_H
#define ASC_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "asc/alloc.h"
#include "asc/config.h"
#include "asc/diag.h"
#include "asc/image.h"
#include "asc/isa.h"

typedef struct AscSim AscSim;

/* GM placement of argument tensors: 2 MiB-aligned slots from 1 GiB up. */
#define ASC_GM_ARG_BASE 0x40000000ull
#define ASC_GM_ARG_ALIGN 0x200000ull

/* ---- observer: the hook traces and per-instruction reports hang on ------- *
 * Called synchronously from asc_sim_run in the engine's event order, which is
 * deterministic: (cycle at which the event is known, core, pipe).  An
 * instruction is reported when its pipe occupancy ends (so start, end and
 * completion are all known); a flag when its wait is released. */

/* Why an instruction or the scalar unit did not progress before `start`. */
typedef enum AscStall {
    ASC_STALL_NONE = 0,
    ASC_STALL_FLAG,       /* wait_flag: flag not yet set (and visible) */
    ASC_STALL_BARRIER,    /* bar: earlier work of the pipe not completed */
    ASC_STALL_QUEUE_FULL, /* scalar: the target pipe's queue was full */
    ASC_STALL_XCORE,      /* scalar: wait_flag_dev counter at 0 */
    ASC_STALL_SYNC_ALL,   /* scalar: waiting for the other cores at sync_all */
    ASC_STALL_DRAIN,      /* scalar: end / bar all waiting for the pipes */
    ASC_STALL_COUNT
} AscStall;

typedef struct AscSimInsnEvent {
    uint32_t core;         /* index of the core (asc_sim_core_name) */
    uint8_t pipe;          /* AscPipe the instruction ran on (S for scalar) */
    uint16_t op;           /* AscOp */
    uint32_t pc;           /* byte offset into .text */
    uint64_t seq;          /* per core program-order number */
    uint64_t issue_cycle;  /* scalar issued it (entered the queue) */
    uint64_t start_cycle;  /* left the queue: began waiting or running */
    uint64_t end_cycle;    /* pipe free again (occupancy end) */
    uint64_t done_cycle;   /* effect complete (DMA: data landed; set_flag: flag set) */
    uint64_t stall_cycles; /* part of [start, end) spent stalled (see stall) */
    uint8_t stall;         /* AscStall */
    uint8_t flag_src, flag_dst, flag_event; /* the flag of a wait_flag stall */
    uint8_t src_buf, dst_buf; /* AscBuf of a data movement (asc/config.h), else 0 */
    uint64_t bytes;           /* bytes moved or read */
    uint32_t conflict_beats;  /* UB bank-conflict extra beats (vector) */
    uint64_t hbm_extra_cycles;/* transfer cycles lost to HBM sharing */
    uint64_t flops;
} AscSimInsnEvent;

typedef struct AscSimFlagEvent {
    uint32_t core;
    uint8_t src, dst, event;    /* flag (src pipe, dst pipe, id) */
    uint64_t set_cycle;         /* the flag became 1 */
    uint64_t set_pc;            /* pc of the set_flag */
    uint64_t wait_start_cycle;  /* the wait_flag started waiting (or found it set) */
    uint64_t release_cycle;     /* the waiting pipe went on */
    uint32_t wait_pc;
} AscSimFlagEvent;

typedef struct AscSimObserver {
    void *ud;
    void (*on_insn)(void *ud, const AscSimInsnEvent *e);
    void (*on_flag)(void *ud, const AscSimFlagEvent *e);
    /* A counter changed: name is "hbm_bytes_per_cycle" (core = UINT32_MAX,
     * value = milli-bytes per cycle in use chip-wide), "queue" (value =
     * entries in the queue of `pipe` of `core`) or "hbm_contention" (value =
     * per-mille of the rate of the GM transfer on `pipe` of `core` lost to
     * other transfers sharing HBM, 1000 * (1 - min(cap, H/n) / cap); sent
     * for every transfer in flight whenever the set changes, 0 when it
     * leaves: its integral over a transfer is the transfer's
     * hbm_extra_cycles, docs/timing.md §HBM). */
    void (*on_counter)(void *ud, uint64_t cycle, const char *name, uint32_t core, uint8_t pipe, int64_t value);
} AscSimObserver;

/* ---- creation ------------------------------------------------------------ */
typedef struct AscSimDesc {
    const AscConfig *cfg;     /* required; copied */
    const AscImage *image;    /* required; borrowed, must outlive the sim */
    const char *kernel;       /* NULL = the image's first kernel */
    uint32_t blocks;          /* 0 = 1 */
    bool functional;          /* no timing: every operation takes 0 cycles (CPU twin) */
    bool check_races;         /* --check-races: report unordered accesses (asc_sim_races) */
    uint8_t sanitize;         /* AscSanCheck bits (--sanitize=...); 0: only out-of-allocation GM writes, a fault */
    AscAlloc alloc;           /* zero = malloc/free */
    AscSimObserver observer;  /* zero = none */
    uint32_t threads;         /* host threads (0 = $ASC_THREADS, else the host's CPUs); results are the same for any count */
} AscSimDesc;

/* Errors (UNKNOWN kernel, too many blocks, mix on a coupled target, OOM...)
 * are reported as SIM_SETUP diagnostics and return NULL. */
AscSim *asc_sim_new(const AscSimDesc *desc, AscDiags *d);
void asc_sim_free(AscSim *sim);
uint32_t asc_sim_threads(const AscSim *sim); /* host threads the run uses (1: no workers) */

const AscKernelInfo *asc_sim_kernel(const AscSim *sim);
const AscConfig *asc_sim_config(const AscSim *sim);

/* ---- arguments and GM (before asc_sim_run) -------------------------------- */
/* Reserve `bytes` of GM for an argument tensor at the next free 2 MiB-aligned
 * address from ASC_GM_ARG_BASE; false when GM is too small. */
bool asc_sim_gm_place(AscSim *sim, uint64_t bytes, uint64_t *addr);
bool asc_sim_gm_write(AscSim *sim, uint64_t addr, const void *src, size_t n);
bool asc_sim_gm_read(AscSim *sim, uint64_t addr, void *dst, size_t n);
/* true when the kernel may have written some byte of GM [addr, addr + n): a write since the
 * first asc_sim_run began (every kernel store, DMA, fixpipe and atomic, and any host write
 * between sliced runs) touched a 64 KiB GM page overlapping the range.  Conservative at page
 * granularity: a page written for a neighbouring argument counts.  The host's writes before
 * the first run (asc_sim_gm_write, asc_sim_gm_fill, .rodata) do not count, so false means the
 * range still holds exactly what the host put there (a caller may skip reading it back).
 * false for n 0 or a range outside GM. */
bool asc_sim_gm_written(AscSim *sim, uint64_t addr, uint64_t n);
/* Fills GM [addr, addr + n) straight into its pages, with no copy in between (run/npy.c reads
 * a .npy file's data with pread into them): the pages are allocated first, then
 * fill(ud, dst, off, len) is called for pieces [off, off + len) of the range, each one
 * contiguous in host memory at dst; every byte of the range is in exactly one piece.  The
 * pieces go to the host threads (any thread, any order), so fill must be safe to call
 * concurrently and must write every byte of its piece.  false: out of memory backing GM, or
 * some fill returned false (the range then holds unspecified bytes). */
typedef bool (*AscGmFillFn)(void *ud, void *dst, uint64_t off, size_t len);
bool asc_sim_gm_fill(AscSim *sim, uint64_t addr, uint64_t n, AscGmFillFn fill, void *ud);
/* Calls each(ud, src, len) for consecutive pieces of GM [addr, addr + n), in address order, on
 * the calling thread: src is the piece's host memory, or NULL for bytes never written (they read
 * as zero), so an output goes to a file with no copy in between (run/npy.c).  false: the range
 * leaves GM, or some each returned false (then no more calls). */
typedef bool (*AscGmEachFn)(void *ud, const void *src, size_t len);
bool asc_sim_gm_each(AscSim *sim, uint64_t addr, uint64_t n, AscGmEachFn each, void *ud);
/* Raw value of argument register x<i> on every core (i < ASC_MAX_ARGS):
 * a GM address, an integer, or f32 bits for float arguments. */
void asc_sim_set_arg(AscSim *sim, uint32_t i, uint64_t value);

/* ---- running --------------------------------------------------------------- */
typedef enum AscSimStatus {
    ASC_SIM_DONE = 0, /* every core reached `end` and drained */
    ASC_SIM_LIMIT,    /* the next event lies beyond max_cycles; run again to go on */
    ASC_SIM_FAULT     /* asc_sim_fault() says what; the run cannot go on */
} AscSimStatus;

/* Run until done, a fault, or the next event is beyond cycle `max_cycles`
 * (0 = the profile's max_cycles key, a generous default limit: every run is
 * bounded).  Host time depends on events, not on cycles.  A caller that
 * must stay responsive (pyasc, for Ctrl-C) runs in slices: call again with
 * a higher limit after ASC_SIM_LIMIT; the result is the same as one call. */
AscSimStatus asc_sim_run(AscSim *sim, uint64_t max_cycles);
uint64_t asc_sim_cycles(const AscSim *sim); /* cycle of the last processed event / of completion */
uint64_t asc_sim_insns(const AscSim *sim);  /* instructions executed, all cores */

typedef enum AscFaultKind {
    ASC_FAULT_NONE = 0,
    ASC_FAULT_ACCESS,     /* exec function: out of bounds, misaligned, bad parameter */
    ASC_FAULT_ILLEGAL,    /* instruction illegal for the core kind / bar s / bad pipe */
    ASC_FAULT_FLAG_SET,   /* set_flag of a flag already set */
    ASC_FAULT_DIV_ZERO,
    ASC_FAULT_BAD_PC,     /* control left the program */
    ASC_FAULT_XCORE,      /* cross-core counter overflow / no partner core */
    ASC_FAULT_DEADLOCK,   /* everything unfinished is blocked with no future event */
    ASC_FAULT_INTERNAL,   /* host memory exhausted (GM backing) */
    ASC_FAULT_TRAP        /* the kernel executed trap (Ascend C Trap) */
} AscFaultKind;

/* One blocked unit of a deadlock. */
typedef struct AscSimBlocked {
    uint32_t core;
    uint8_t pipe;      /* AscPipe; S = the scalar unit */
    uint32_t pc;
    char what[96];     /* "wait_flag mte2 -> v id 0 (flag never set)" */
} AscSimBlocked;

#define ASC_SIM_MAX_BLOCKED 64
typedef struct AscSimFault {
    AscFaultKind kind;
    uint64_t cycle;
    uint32_t core;
    uint8_t pipe;
    uint32_t pc;
    uint16_t op;
    char msg[320];             /* the rule that was broken */
    uint32_t nblocked;         /* deadlock: units listed in blocked[] */
    AscSimBlocked blocked[ASC_SIM_MAX_BLOCKED];
} AscSimFault;

const AscSimFault *asc_sim_fault(const AscSim *sim);
const char *asc_fault_kind_name(AscFaultKind k); /* "deadlock" */
/* "core0.veccore0" / "core3.cubecore0" / "core1.aicore0" (msOpProf names) */
const char *asc_sim_core_name(const AscSim *sim, uint32_t core, char *buf, size_t size);
/* The whole fault as text, one unit per line for deadlocks:
 *   core0.veccore0 pipe v pc 0x0040 `vadd.f16 x1, x2, x3, x4` (k.s:12) at cycle 812: <msg>
 * Same text for the same run.  Returns the length needed (snprintf rule). */
int asc_sim_fault_format(const AscSim *sim, char *buf, size_t size);
/* Why a run did not finish, as asc-sim says it: the fault text above after
 * ASC_SIM_FAULT; "--max-cycles N exceeded: the kernel was still running at
 * cycle C" after ASC_SIM_LIMIT (N = max_cycles; 0 names the profile's
 * max_cycles key instead), then one line per unfinished core naming its
 * scalar unit's pc, instruction and source line; "" after ASC_SIM_DONE.
 * Returns the length needed (snprintf rule). */
int asc_sim_status_format(const AscSim *sim, AscSimStatus st, uint64_t max_cycles, char *buf, size_t size);
/* "k.s:12" for a pc, or "" when the image has no line for it. */
const char *asc_sim_source(const AscSim *sim, uint32_t pc, char *buf, size_t size);

/* ---- races (desc.check_races) ----------------------------------------------- *
 * A race: two accesses to overlapping 32 B blocks of one local buffer (UB,
 * L1, L0A, L0B, L0C) of one core, by different pipes, at least one a write,
 * that no synchronisation orders: no chain of set_flag/wait_flag pairs,
 * bar all, sync_all or scalar wait leads from the earlier one's pipe, after
 * it, to the later one's pipe, before it (happens-before with vector
 * clocks; the latencies of this run play no part, so a missing wait is
 * reported even when the timing hides it).  Data is applied when an
 * instruction starts (sim_exec.h), so a racy kernel may compute the right
 * numbers here and the wrong ones on hardware.  GM is not checked.
 * Works with and without desc.functional.  docs/timing.md §Races. */
typedef enum AscRaceKind {      /* later / earlier as in AscSimRace */
    ASC_RACE_RAW = 0, /* the later access reads what the earlier one writes */
    ASC_RACE_WAR,     /* the later access writes what the earlier one reads */
    ASC_RACE_WAW      /* both write */
} AscRaceKind;

typedef struct AscSimRace {
    uint8_t kind;           /* AscRaceKind */
    uint8_t buf;            /* AscBuf */
    uint32_t core;          /* where it first happened */
    uint64_t lo, hi;        /* bytes of buf in conflict, first occurrence (32 B blocks; span of them) */
    /* the later access: issued later by the scalar unit (program order);
     * in this run's order when the earlier one is more than 64
     * instructions of its pipe back */
    uint8_t pipe;
    uint16_t op;
    uint32_t pc;
    uint64_t start_cycle, done_cycle;
    /* the earlier access, which nothing orders before the later one */
    uint8_t prev_pipe;
    uint16_t prev_op;
    uint32_t prev_pc;
    uint64_t prev_start_cycle, prev_done_cycle;
    uint64_t count;         /* occurrences of this (kind, buf, pc, prev_pc), every core */
} AscSimRace;
/* The cycles are information (this run's schedule, first occurrence):
 * UINT64_MAX when unknown (an earlier access more than 64 instructions of
 * its pipe back, or one that had not completed when the run stopped). */

#define ASC_SIM_MAX_RACES 16
/* The first ASC_SIM_MAX_RACES distinct races in order of detection; returns
 * the number of occurrences in all (those listed and any others).  An
 * occurrence = one execution of an instruction racing with one earlier
 * instruction. */
uint64_t asc_sim_races(const AscSim *sim, const AscSimRace **races, uint32_t *n);
/* "race (RAW): VECTOR vadd.f16 at k.s:31 (core0.veccore0, pc 0x0040, cycles
 * 120-160) reads UB [0x0, 0x2000) written by MTE2 mov_out_to_ub at k.s:28
 * (pc 0x0030, cycles 20-1400): no flag or barrier orders them (3 times)".
 * snprintf rule for the return value. */
int asc_sim_race_format(const AscSim *sim, const AscSimRace *r, char *buf, size_t size);
/* Append one SIM_RACE error per listed race, and one more counting the
 * unlisted occurrences; returns the number of occurrences. */
uint64_t asc_sim_races_diag(const AscSim *sim, AscDiags *d);

/* ---- notes ---------------------------------------------------------------------- */
/* Where an instruction did what the hardware does but not what the kernel
 * asked (AscNoteKind in asc/isa.h: a DataCopy that rounded its bytes down, a
 * DataCopyPad that wrote dummy bytes), the run keeps a note.  Notes are
 * distinct by (pc, kind): the first ASC_SIM_MAX_NOTES are kept with the
 * first occurrence's core and values and a count.  asc_sim_note_get fills
 * out[6] = {core, pc, kind, count, a, b} of note i and returns false when
 * i >= the number kept; asc_sim_notes returns the occurrences in all. */
#define ASC_SIM_MAX_NOTES 64
bool asc_sim_note_get(const AscSim *sim, uint32_t i, uint64_t out[6]);
uint64_t asc_sim_notes(const AscSim *sim);

/* ---- device print log ------------------------------------------------------------ */
/* What the kernel printed (printf, DumpTensor: prt.arg/printf/dump.ub, sim/exec_print.c):
 * records in execution order, i.e. program order on each core.  The run keeps up to
 * ASC_SIM_MAX_PRINTS records and ASC_SIM_PRINT_BYTES of text; asc_sim_prints returns the
 * number kept and sets *dropped to those that did not fit.  asc_sim_print_get sets core, pc
 * and the NUL-terminated text (owned by the sim, valid until it is freed) of record i and
 * returns false when i is not a kept record.  A DumpTensor prints at most
 * ASC_SIM_DUMP_MAX_BYTES of data (DumpTensor.md: 30 KB per call). */
#define ASC_SIM_MAX_PRINTS 4096
#define ASC_SIM_PRINT_BYTES (1u << 20)
#define ASC_SIM_DUMP_MAX_BYTES (30u * 1024)
uint32_t asc_sim_prints(const AscSim *sim, uint64_t *dropped);
bool asc_sim_print_get(const AscSim *sim, uint32_t i, uint32_t *core, uint32_t *pc, const char **text);

/* ---- sanitizers (desc.sanitize) ---------------------------------------------- *
 * After CUDA's compute-sanitizer; docs/timing.md §Sanitizers has the rules.  Every GM
 * argument placed with asc_sim_gm_place is its own allocation (named after the kernel
 * argument whose value is its base; the rest of its 2 MiB slot is a red zone), .rodata one
 * more (read-only).  A run that placed an allocation always checks its GM writes: one outside
 * the allocation its first byte falls in is a fault ("memcheck: ...").  With checks on,
 * findings are listed instead and the run goes on:
 *   memcheck   every GM access (DMA of any MTE path, fixpipe, scalar load/store) outside the
 *              allocation its first byte falls in, or a write to .rodata;
 *   initcheck  reads of local-buffer or GM-allocation 32 B granules no byte of which was
 *              written in this run (the host's writes of inputs count);
 *   racecheck  desc.check_races (local buffers; asc_sim_races);
 *   synccheck  warnings: flags still set at `end`, waits on flags no set_flag of the program
 *              sets, barriers on pipes that started nothing since the last one. */
typedef enum AscSanCheck {
    ASC_SAN_MEMCHECK = 1,
    ASC_SAN_INITCHECK = 2,
    ASC_SAN_RACECHECK = 4,
    ASC_SAN_SYNCCHECK = 8
} AscSanCheck;
#define ASC_SAN_CHECKS 4
#define ASC_SAN_ALL 15

/* "memcheck,initcheck" (or "all") -> bits; false with a message naming the bad word. */
bool asc_sim_sanitize_parse(const char *list, uint8_t *bits, char *err, size_t size);
const char *asc_san_check_name(unsigned check); /* "memcheck"; NULL when not one check */

typedef struct AscSimSanIssue {
    uint8_t check;   /* AscSanCheck (one bit) */
    uint8_t sev;     /* AscSev: ERROR, synccheck WARNING */
    uint8_t pipe;    /* of the first occurrence */
    uint32_t core;
    uint32_t pc;
    uint64_t count;  /* occurrences of this finding (check, pc, what), every core */
    char msg[640];   /* the first occurrence in full: unit, instruction, line, range, argument */
} AscSimSanIssue;
#define ASC_SIM_MAX_SAN 32
/* The first ASC_SIM_MAX_SAN distinct findings in order of detection; returns the
 * occurrences of all checks (listed or not).  asc_sim_san_count: of one check. */
uint64_t asc_sim_san_issues(const AscSim *sim, const AscSimSanIssue **list, uint32_t *n);
uint64_t asc_sim_san_count(const AscSim *sim, unsigned check);
int asc_sim_san_format(const AscSim *sim, const AscSimSanIssue *s, char *buf, size_t size);
/* Per check with findings: a count line, then each listed finding and a line counting the
 * unlisted ones (SIM_SANITIZE; synccheck as warnings).  Returns the error occurrences. */
uint64_t asc_sim_san_diag(const AscSim *sim, AscDiags *d);

/* ---- statistics ---------------------------------------------------------------- */
/* Every cycle of a pipe is busy (which includes bank-conflict and HBM extra
 * cycles), stalled (flag, barrier; the scalar unit also queue-full, xcore,
 * sync_all, drain) or idle: idle = total cycles - busy - stalls. */
#define ASC_SIM_MAX_EVENTS 16 /* event ids per flag pair: the event_ids key's maximum */
typedef struct AscSimPipeStats {
    uint64_t insns;
    uint64_t busy_cycles;       /* occupied (includes conflict and HBM extra) */
    uint64_t conflict_cycles;   /* bank-conflict extra beats (vector) */
    uint64_t hbm_extra_cycles;  /* transfer cycles lost to HBM sharing */
    uint64_t flag_wait_cycles;  /* total over flags */
    uint64_t barrier_cycles;
    uint64_t queue_full_cycles; /* scalar only */
    uint64_t xcore_cycles;      /* scalar only */
    uint64_t sync_all_cycles;   /* scalar only */
    uint64_t drain_cycles;      /* scalar only: end / bar all */
    uint64_t flag_wait_by[ASC_PIPE_COUNT][ASC_SIM_MAX_EVENTS]; /* [src pipe][event id], this pipe = dst */
    uint64_t last_end_cycle;    /* last cycle this unit did anything */
} AscSimPipeStats;
uint32_t asc_sim_ncores(const AscSim *sim);
/* false when the core has no such pipe (S is the scalar unit) */
bool asc_sim_pipe_stats(const AscSim *sim, uint32_t core, uint8_t pipe, AscSimPipeStats *out);
uint64_t asc_sim_core_end_cycle(const AscSim *sim, uint32_t core);

/* ---- inspection: what run/ (reports, traces) reads of a sim ------------------ *
 * Read-only views of the engine's state; valid between asc_sim_run calls
 * and, from the observer's callbacks, at the moment of the event. */
const AscImage *asc_sim_image(const AscSim *sim);
const AscAlloc *asc_sim_alloc(const AscSim *sim);
uint32_t asc_sim_blocks(const AscSim *sim);
bool asc_sim_functional(const AscSim *sim);
bool asc_sim_checks_races(const AscSim *sim);
/* What-if "one more buffer" (asc-sim explain, docs/timing.md §Explain):
 * before the run, flag (src, dst, event) of every core starts set (at cycle
 * 0) and holds up to two sets, consumed oldest first -- the token of a
 * second buffer behind a buffer-free flag.  The data effects are those of
 * the kernel as written (both tiles share the buffer), so only the timing of
 * such a run means anything.  false when the run has started or an
 * argument is out of range. */
bool asc_sim_add_buffer(AscSim *sim, uint8_t src, uint8_t dst, uint8_t event);
/* What-if flag rules (asc-sim explain's double buffering of a whole buffer
 * set, docs/timing.md §Explain): rewrite the kernel's synchronisation
 * without rewriting its code.  Flags are (src pipe, dst pipe, id); b's dst
 * must be a's dst for the wait rules.  Like asc_sim_add_buffer, only the
 * timing of such a run means anything.  false when the run has started, an
 * argument is out of range or ASC_SIM_MAX_FLAG_RULES rules are set. */
typedef enum AscFlagRule {
    ASC_FLAG_RULE_TEE,       /* a set of a also sets b */
    ASC_FLAG_RULE_MOVE_SET,  /* a set of a sets b instead */
    ASC_FLAG_RULE_MOVE_WAIT, /* a pipe's wait on a waits on b instead */
    ASC_FLAG_RULE_JOIN_WAIT, /* a pipe's wait on a also waits on (and consumes) b */
} AscFlagRule;
#define ASC_SIM_MAX_FLAG_RULES 16
bool asc_sim_flag_rule(AscSim *sim, AscFlagRule kind, const uint8_t a[3], const uint8_t b[3]);
/* Flag (src, dst, event) of every core starts with `tokens` sets (1 or 2) and
 * holds up to two (the tokens of two buffers); false as asc_sim_add_buffer. */
bool asc_sim_flag_tokens(AscSim *sim, uint8_t src, uint8_t dst, uint8_t event, unsigned tokens);
/* The value set with asc_sim_set_arg (0 when never set or i >= ASC_MAX_ARGS). */
uint64_t asc_sim_arg(const AscSim *sim, uint32_t i);

typedef struct AscSimCoreInfo {
    AscCoreKind kind;
    uint32_t ai_core, sub;  /* AI core number; vector index inside it (0 for AIC / coupled) */
    uint64_t block_idx;
    uint64_t end_cycle;     /* the core reached `end` and drained (0 before) */
    uint32_t entry, size;   /* its program: bytes of .text */
} AscSimCoreInfo;
/* false when core >= asc_sim_ncores */
bool asc_sim_core_info(const AscSim *sim, uint32_t core, AscSimCoreInfo *out);
bool asc_sim_has_pipe(const AscSim *sim, uint32_t core, uint8_t pipe);
/* Cross-core joins (docs/timing.md): does a set_cross_core of `mode` on core `from` join
 * with the sets of core `other` (both members of one group), and does the group's join
 * raise the counter of core `to`? */
bool asc_sim_xcore_joins(const AscSim *sim, uint32_t from, uint32_t other, unsigned mode);
bool asc_sim_xcore_reaches(const AscSim *sim, uint32_t from, uint32_t to, unsigned mode);

/* What a core moved and computed, over the run so far. */
typedef struct AscSimCoreStats {
    uint64_t bytes[ASC_BUF_COUNT][ASC_BUF_COUNT]; /* [src][dst] AscBuf */
    uint64_t cube_flops, vec_flops;
    uint64_t vec_bytes;       /* vector source bytes read */
    uint64_t conflict_beats;  /* UB bank-conflict extra beats */
} AscSimCoreStats;
bool asc_sim_core_stats(const AscSim *sim, uint32_t core, AscSimCoreStats *out);

/* The decoded instruction of a core's program at pc; NULL outside it. */
const AscInsn *asc_sim_insn_at(const AscSim *sim, uint32_t core, uint32_t pc);
/* Per-pc totals of a core's program (zero when pc is outside it). */
typedef struct AscSimPcStats {
    uint64_t count;
    uint64_t cycles; /* sum of end - start (occupancy and stalls) */
} AscSimPcStats;
bool asc_sim_pc_stats(const AscSim *sim, uint32_t core, uint32_t pc, AscSimPcStats *out);

/* The scalar unit's current stall: true when it is stalled, with the
 * AscStall kind, the cycle it began, the pc it stalls at and, for a full
 * queue, the pipe whose queue is full. */
typedef struct AscSimScalarWait {
    uint8_t stall;   /* AscStall */
    uint8_t pipe;    /* ASC_STALL_QUEUE_FULL: the full queue's pipe */
    uint32_t pc;
    uint64_t since;
} AscSimScalarWait;
bool asc_sim_scalar_wait(const AscSim *sim, uint32_t core, AscSimScalarWait *out);

/* The safe flush point of an observer that sorts by start cycle: no event
 * reported from now on has a start (or cycle) below the returned one =
 * min(current cycle, start of every instruction still running or waiting on
 * a pipe, start of every scalar unit's current stall). */
uint64_t asc_sim_watermark(const AscSim *sim);

#endif
