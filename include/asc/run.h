/* run.h -- running a kernel on the simulator: the asc-sim --arg grammar and
 * argument binding, .npy files, the run's reports and the Chrome trace
 * writer.  Built on the public API of asc/sim.h (its observer and
 * inspection functions) and nothing else of sim/ (docs/internals.md
 * §Layers).  Users: asc-sim (run/asc_sim_main.c), the pyasc runtime
 * (ctypes over libasc.so), tests, fuzzers and benchmarks. */
#ifndef ASC_RUN_H
#define ASC_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asc/alloc.h"
#include "asc/diag.h"
#include "asc/image.h"
#include "asc/outfile.h"
#include "asc/sim.h"

/* ---- explain: the critical path and what-if runs (run/explain.c) ----------- *
 * docs/timing.md §Explain.  The causes a critical-path cycle is charged to:
 * id, name, the class the bound is named after. */
#define ASC_CAUSES(X)                                      \
    X(GM_READ_LAT, "GM read latency", "latency")           \
    X(GM_WRITE_LAT, "GM write latency", "latency")         \
    X(LOCAL_LAT, "local copy latency", "latency")          \
    X(MTE2, "MTE2 transfer", "MTE2")                       \
    X(MTE3, "MTE3 transfer", "MTE3")                       \
    X(MTE_OTHER, "MTE1/FIXP transfer", "MTE")              \
    X(HBM, "HBM contention", "HBM")                        \
    X(VECTOR, "VECTOR compute", "VECTOR")                  \
    X(BANK, "UB bank-conflict beats", "bank-conflict")     \
    X(CUBE, "CUBE compute", "CUBE")                        \
    X(SCALAR, "scalar instructions", "scalar")             \
    X(SCALAR_MEM, "scalar load/store latency", "scalar-memory") \
    X(SYNC, "set_flag/wait_flag/bar occupancy", "sync")    \
    X(FLAG, "flag handoff (flag_release_cycles)", "sync")  \
    X(ISSUE, "scalar issue (dispatch, queue full)", "scalar") \
    X(OTHER_CORES, "waiting for other cores", "cross-core") \
    X(OTHER, "launch and other", "other")
typedef enum AscCause {
#define ASC_CAUSE_ID(id, name, cls) ASC_CAUSE_##id,
    ASC_CAUSES(ASC_CAUSE_ID)
#undef ASC_CAUSE_ID
    ASC_CAUSE_COUNT
} AscCause;
const char *asc_cause_name(unsigned cause);

typedef struct AscExplain AscExplain;
typedef struct AscRunArg AscRunArg;
/* A recorder of every instruction event: *obs is the observer to chain to
 * (the trace writer, or zero) and is replaced by the recorder's, which
 * passes on flag and counter events only when *obs took them (else it
 * leaves those callbacks unset, so the engine does not build them).  NULL
 * when out of memory. */
AscExplain *asc_explain_new(const AscAlloc *alloc, AscSimObserver *obs);
void asc_explain_free(AscExplain *x);
/* After the run: walk the critical path (false: out of memory). */
bool asc_explain_analyse(AscExplain *x, const AscSim *sim);
/* What-ifs: re-simulate `desc` (its cfg, image, kernel, blocks) with the
 * same arguments once per candidate change found on the path. */
bool asc_explain_whatif(AscExplain *x, const AscSimDesc *desc, const AscRunArg *args, uint32_t nargs, AscDiags *d);
/* The bound sentence derived from the critical path (snprintf rule). */
int asc_explain_bound(const AscExplain *x, char *out, size_t size);
uint64_t asc_explain_total(const AscExplain *x);
uint64_t asc_explain_cause_cycles(const AscExplain *x, unsigned cause);
typedef struct AscExplainSeg {
    uint8_t cause; /* AscCause */
    uint32_t core, pc;
    uint8_t pipe;
    uint64_t t0, t1; /* [t0, t1) of the critical path */
    char insn[400];  /* "core0.veccore0 MTE2 pc 0x0040 `mov_out_to_ub ...` (k.s:12)" */
    char why[600];   /* flag waits: who waited, on what, until when */
} AscExplainSeg;
uint32_t asc_explain_nsegs(const AscExplain *x); /* chronological */
bool asc_explain_seg(const AscExplain *x, uint32_t k, AscExplainSeg *out);
typedef struct AscExplainWhatIf {
    bool kernel;        /* a change of the kernel (else of the model's costs) */
    bool ok;            /* the what-if run finished */
    uint64_t cycles, saved;
    char what[160];     /* "dma.gm_read_latency=0", "one more buffer behind flag MTE3->MTE2 id 0" */
    char change[160];
    char err[200];      /* !ok: why the run did not finish */
} AscExplainWhatIf;
/* Occupancy (end - start - stall) and bank-conflict beats of every execution of pc on core. */
bool asc_explain_pc_cost(const AscExplain *x, uint32_t core, uint32_t pc, uint64_t *busy, uint64_t *conflict);
uint32_t asc_explain_nwhatifs(const AscExplain *x); /* ranked; 0 before asc_explain_whatif */
bool asc_explain_whatif_get(const AscExplain *x, uint32_t k, AscExplainWhatIf *out);

/* ---- report ----------------------------------------------------------------- */
/* The summary of a finished (or stopped) run as text or JSON (fixed key
 * order), allocated with the sim's allocator; NULL when out of memory. */
char *asc_sim_report_text(const AscSim *sim);
char *asc_sim_report_json(const AscSim *sim);
/* --report-dir: per core <core>_instr_exe.csv and <core>_code_exe.csv, plus
 * summary.json; the directory is created if missing.  false + IO diagnostic on error. */
bool asc_sim_report_dir(const AscSim *sim, const char *dir, AscDiags *d);
/* The same with the critical path, the bound derived from it and the
 * what-ifs of x (NULL: no critical path; the bound says so). */
char *asc_report_text(const AscSim *sim, const AscExplain *x);
char *asc_report_json(const AscSim *sim, const AscExplain *x);
bool asc_report_dir(const AscSim *sim, const AscExplain *x, const char *dir, AscDiags *d);
/* asc-sim diff: two --json results or report dirs (their summary.json),
 * compared as text; NULL + diagnostic on a bad input. */
char *asc_report_diff(const char *a, const char *b, const AscAlloc *alloc, AscDiags *d);

/* ---- trace: a streaming Chrome trace writer on the observer ------ */
typedef struct AscTrace AscTrace;
/* Open `path` for writing; returns an observer in *obs to put in the desc.
 * The trace needs the sim for names: call asc_trace_bind after asc_sim_new. */
AscTrace *asc_trace_open(const char *path, const AscAlloc *alloc, AscSimObserver *obs, AscDiags *d);
/* The same, the file being a temporary of `out` (asc/outfile.h): close
 * finishes it and the caller's commit renames it into place. */
AscTrace *asc_trace_open_to(const char *path, const AscAlloc *alloc, AscSimObserver *obs, AscOutSet *out,
                            AscDiags *d);
void asc_trace_bind(AscTrace *t, const AscSim *sim);
/* Finish the JSON (after the run) and close; false + IO diagnostic on error.
 * The file is an exclusive temporary renamed into place (by close, or by
 * the commit of the set given to asc_trace_open_to). */
bool asc_trace_close(AscTrace *t, bool keep, AscDiags *d);

/* ---- .npy files (NumPy format 1.0 / 2.0, C order, little-endian) ------------ */
typedef struct AscNpy {
    uint8_t dtype;        /* AscDtype; bf16 is stored as '<u2' or '|V2' */
    uint32_t ndim;
    uint64_t shape[8];
    uint64_t count;       /* product of shape (1 for ndim 0) */
    uint8_t *data;        /* count * dtype size bytes, allocated with alloc */
    bool bf16_ok;         /* the file's dtype can hold bf16 ('<u2' or '|V2') */
} AscNpy;

/* Parse a whole .npy file in memory.  Errors name `origin` and the rule. */
bool asc_npy_parse(AscNpy *out, const char *origin, const uint8_t *buf, size_t len, const AscAlloc *alloc,
                   AscDiags *d);
bool asc_npy_read_file(AscNpy *out, const char *path, const AscAlloc *alloc, AscDiags *d);
/* Serialise (version 1.0 header, 2.0 when the header needs it); *out allocated. */
bool asc_npy_write(const AscNpy *a, uint8_t **out, size_t *len, const AscAlloc *alloc);
/* Write atomically: an exclusive temporary beside path, then rename (asc/outfile.h). */
bool asc_npy_write_file(const AscNpy *a, const char *path, const AscAlloc *alloc, AscDiags *d);
void asc_npy_free(AscNpy *a, const AscAlloc *alloc);
/* numpy descr of a dtype: "<f2", "<f4", "|i1", ...; bf16 -> "<u2". */
const char *asc_npy_descr(unsigned dtype);

/* ---- asc-sim run arguments ------------------------------------------------- */
/* One --arg NAME=... as given on the command line. */
typedef struct AscRunArg {
    char name[ASC_NAME_MAX];
    enum { ASC_RUN_ARG_IN, ASC_RUN_ARG_OUT, ASC_RUN_ARG_VALUE } how;
    char path[512];          /* IN and OUT */
    uint64_t shape[8];       /* OUT */
    uint32_t ndim;           /* OUT */
    uint8_t dtype;           /* OUT */
    char value[64];          /* VALUE text */
} AscRunArg;

/* Parse "x=x.npy", "z=@z.npy:64,64:f16", "n=4096"; errors name the rule. */
bool asc_run_arg_parse(AscRunArg *a, const char *text, AscDiags *d);

/* Check args against the kernel's .arg list (count, kind, dtype), read the
 * inputs, place every tensor in GM and set x0..x15.  Outputs are zeroed. */
bool asc_sim_bind_args(AscSim *sim, const AscRunArg *args, uint32_t nargs, AscDiags *d);
/* After ASC_SIM_DONE: write every OUT argument's .npy (atomically). */
bool asc_sim_write_outputs(AscSim *sim, const AscRunArg *args, uint32_t nargs, AscDiags *d);
/* The same into temporaries of `out`, renamed into place when the caller
 * commits the set (asc-sim: after the trace and report dir are complete). */
bool asc_sim_write_outputs_to(AscSim *sim, const AscRunArg *args, uint32_t nargs, AscOutSet *out, AscDiags *d);

/* ---- bundles (run/bundle.c; docs/pyasc.md "The native launch plan") ------- *
 * A bundle is the JSON file `pyasc compile script.py -o out.om` writes (asc's
 * own format, not Huawei's OM).  true when path starts with '{' (a kernel
 * binary starts with the ELF magic). */
bool asc_bundle_is_file(const char *path);
/* Execute every operator of the bundle in order on target (NULL: the
 * bundle's): inputs are IN args (NAME=x.npy, by the script's variable
 * name), outputs OUT args (NAME=@y.npy:SHAPE:DTYPE, checked against the
 * bundle).  Returns the report (malloc'ed text: cycles per operator), NULL +
 * SIM_LAUNCH diagnostics naming the place in the file and the rule. */
char *asc_bundle_run(const char *path, const char *target, const AscRunArg *args, uint32_t nargs, AscDiags *d);

/* The trace's tid of a pipe's lane (msOpProf thread_sort_index: SCALAR 1,
 * MTE1 3, CUBE 4, FIXP 5, MTE2 6, VECTOR 7, MTE3 8, ALL 11; pipes msOpProf
 * has no lane for: 16 + pipe).  The lane's name is asc_pipe_lane(pipe). */
unsigned asc_trace_lane_tid(unsigned pipe);

#endif
