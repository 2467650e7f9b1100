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

/* ---- report ----------------------------------------------------------------- */
/* The summary of a finished (or stopped) run as text or JSON (fixed key
 * order), allocated with the sim's allocator; NULL when out of memory. */
char *asc_sim_report_text(const AscSim *sim);
char *asc_sim_report_json(const AscSim *sim);
/* --report-dir: per core <core>_instr_exe.csv and <core>_code_exe.csv, plus
 * summary.json; the directory is created if missing.  false + IO diagnostic on error. */
bool asc_sim_report_dir(const AscSim *sim, const char *dir, AscDiags *d);

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

/* The trace's tid of a pipe's lane (msOpProf thread_sort_index: SCALAR 1,
 * MTE1 3, CUBE 4, FIXP 5, MTE2 6, VECTOR 7, MTE3 8, ALL 11; pipes msOpProf
 * has no lane for: 16 + pipe).  The lane's name is asc_pipe_lane(pipe). */
unsigned asc_trace_lane_tid(unsigned pipe);

#endif
