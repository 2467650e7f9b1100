/* fuzz_sim.c -- libFuzzer harness of the simulator on assembled fuzz input.
 *
 * Input: assembly text.  It is assembled with asc_asm_string for the teach
 * target, or the one its .target directive names (includes fail: no file
 * system); when it assembles, one of its
 * kernels (picked by a hash of the input) runs with asc_sim_* on the
 * image's target (teach unless the text says .target) on 1 or 2 blocks,
 * timed or functional (also picked by the hash), half of the runs under
 * every sanitizer check (--sanitize=all, also by the hash), with tiny GM tensors
 * (16 KiB each, a fixed pattern), int arguments 64 and float arguments 1.0,
 * for at most 100000 cycles.
 *
 * Invariants checked (abort = a finding):
 *   - asc_sim_new either returns a sim or leaves an error;
 *   - asc_sim_run returns DONE, LIMIT or FAULT; a fault has a kind and a
 *     message; no fault is reported otherwise (asc_sim_fault is NULL); the clock never passes
 *     max_cycles;
 *   - observer events are well-formed: core and pipe exist,
 *     issue <= start <= end;
 *   - the text and JSON reports and the fault text are produced, and for
 *     each pipe busy + stalled cycles never exceed the run's cycles;
 *   - determinism: a second run of the same input gives the same status,
 *     cycles, instruction count, fault text and JSON report bytes;
 *   - for short runs (< 5000 instructions) the second run writes a Chrome
 *     trace (asc_trace_*) which the viewer's loader must accept. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asc/asm.h"
#include "asc/run.h"
#include "asc/viz.h"

#define FUZZ_CHECK(c, msg)                                                                          \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s: %s\n", __FILE__, __LINE__, #c, msg); \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

#define MAX_CYCLES 100000u
#define TENSOR_BYTES 16384u
#define TRACE_MAX_INSNS 5000u

static char *no_files(void *ud, const AscAlloc *alloc, const char *path, size_t *len, const char **err)
{
    (void)ud, (void)alloc, (void)path, (void)len;
    *err = "No such file or directory";
    return NULL;
}

typedef struct Obs {
    AscSimObserver inner; /* the trace's observer, or zero */
    uint32_t ncores;
    uint64_t nevents;
} Obs;

static void on_insn(void *ud, const AscSimInsnEvent *e)
{
    Obs *o = ud;
    o->nevents++;
    FUZZ_CHECK(e->core < o->ncores, "an instruction event names a core that does not exist");
    FUZZ_CHECK(e->pipe < ASC_PIPE_COUNT, "an instruction event names a pipe that does not exist");
    FUZZ_CHECK(e->issue_cycle <= e->start_cycle && e->start_cycle <= e->end_cycle,
               "an instruction event is not issue <= start <= end");
    FUZZ_CHECK(e->stall < ASC_STALL_COUNT, "bad stall kind");
    if (o->inner.on_insn) o->inner.on_insn(o->inner.ud, e);
}

static void on_flag(void *ud, const AscSimFlagEvent *e)
{
    Obs *o = ud;
    o->nevents++;
    FUZZ_CHECK(e->core < o->ncores, "a flag event names a core that does not exist");
    if (o->inner.on_flag) o->inner.on_flag(o->inner.ud, e);
}

static void on_counter(void *ud, uint64_t cycle, const char *name, uint32_t core, uint8_t pipe, int64_t value)
{
    Obs *o = ud;
    FUZZ_CHECK(name != NULL, "a counter event has no name");
    FUZZ_CHECK(core == UINT32_MAX || core < o->ncores, "a counter event names a core that does not exist");
    if (o->inner.on_counter) o->inner.on_counter(o->inner.ud, cycle, name, core, pipe, value);
}

typedef struct Outcome {
    bool created;
    AscSimStatus st;
    uint64_t cycles, insns;
    uint64_t san; /* sanitizer findings, listed or not */
    char fault[8192];
    char *json; /* malloc'd */
} Outcome;

static const char *trace_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/asc-fuzz-sim-XXXXXX", t && *t ? t : "/tmp");
        FUZZ_CHECK(mkdtemp(dir) != NULL, "cannot make a temporary directory");
    }
    return dir;
}

static void run_once(const AscImage *img, const AscConfig *cfg, const char *kernel, uint32_t blocks,
                     bool functional, uint8_t san, bool trace, Outcome *out)
{
    memset(out, 0, sizeof *out);
    AscDiags d;
    asc_diags_init(&d, NULL);
    Obs obs = {.ncores = 0};
    AscTrace *tr = NULL;
    char path[400];
    snprintf(path, sizeof path, "%s/t.json", trace_dir());
    if (trace) {
        tr = asc_trace_open(path, NULL, &obs.inner, &d);
        FUZZ_CHECK(tr != NULL, "asc_trace_open failed");
    }
    AscSimDesc sd = {.cfg = cfg, .image = img, .kernel = kernel, .blocks = blocks, .functional = functional,
                     .sanitize = san};
    sd.observer = (AscSimObserver){&obs, on_insn, on_flag, on_counter};
    uint32_t before = d.nerrors;
    AscSim *sim = asc_sim_new(&sd, &d);
    if (!sim) {
        FUZZ_CHECK(d.nerrors > before || d.oom, "asc_sim_new failed without an error");
        if (tr) FUZZ_CHECK(asc_trace_close(tr, false, &d), "closing an unused trace failed");
        asc_diags_free(&d);
        return;
    }
    out->created = true;
    obs.ncores = asc_sim_ncores(sim);
    FUZZ_CHECK(obs.ncores >= 1, "a sim without cores");
    if (tr) asc_trace_bind(tr, sim);

    const AscKernelInfo *k = asc_sim_kernel(sim);
    FUZZ_CHECK(k != NULL && k->nargs <= ASC_MAX_ARGS, "bad kernel info");
    uint8_t pattern[256];
    for (int i = 0; i < 256; i++) pattern[i] = (uint8_t)(i * 37 + 11);
    for (uint32_t i = 0; i < k->nargs; i++) {
        uint64_t v = 0;
        if (k->args[i].kind == ASC_ARG_GM) {
            if (asc_sim_gm_place(sim, TENSOR_BYTES, &v))
                for (uint32_t off = 0; off < TENSOR_BYTES; off += sizeof pattern)
                    FUZZ_CHECK(asc_sim_gm_write(sim, v + off, pattern, sizeof pattern), "GM write of a placed tensor failed");
        } else if (k->args[i].kind == ASC_ARG_INT) {
            v = 64;
        } else {
            v = 0x3f800000u; /* 1.0f */
        }
        asc_sim_set_arg(sim, i, v);
    }

    out->st = asc_sim_run(sim, MAX_CYCLES);
    FUZZ_CHECK(out->st == ASC_SIM_DONE || out->st == ASC_SIM_LIMIT || out->st == ASC_SIM_FAULT, "bad run status");
    out->cycles = asc_sim_cycles(sim);
    out->insns = asc_sim_insns(sim);
    const AscSimFault *f = asc_sim_fault(sim);
    if (out->st == ASC_SIM_FAULT) {
        FUZZ_CHECK(f != NULL, "a faulted run has no fault (asc_sim_fault is NULL)");
        FUZZ_CHECK(f->kind != ASC_FAULT_NONE, "a fault without a kind");
        FUZZ_CHECK(memchr(f->msg, 0, sizeof f->msg) && f->msg[0], "a fault without a message");
        FUZZ_CHECK(f->nblocked <= ASC_SIM_MAX_BLOCKED, "too many blocked units");
        FUZZ_CHECK(asc_fault_kind_name(f->kind) != NULL, "a fault kind without a name");
        int n = asc_sim_fault_format(sim, out->fault, sizeof out->fault);
        FUZZ_CHECK(n > 0, "asc_sim_fault_format gave nothing");
    } else {
        FUZZ_CHECK(f == NULL || f->kind == ASC_FAULT_NONE, "a fault is reported after a run without one");
        FUZZ_CHECK(out->cycles <= MAX_CYCLES, "the clock passed max_cycles");
    }

    /* statistics: busy + stalled <= total for every unit */
    for (uint32_t c = 0; c < obs.ncores; c++) {
        char name[64];
        FUZZ_CHECK(asc_sim_core_name(sim, c, name, sizeof name) != NULL, "a core without a name");
        for (uint8_t p = 0; p < ASC_PIPE_COUNT; p++) {
            AscSimPipeStats ps;
            if (!asc_sim_pipe_stats(sim, c, p, &ps)) continue;
            uint64_t used = ps.busy_cycles + ps.flag_wait_cycles + ps.barrier_cycles + ps.queue_full_cycles +
                            ps.xcore_cycles + ps.sync_all_cycles + ps.drain_cycles;
            if (used > out->cycles && out->st != ASC_SIM_FAULT) {
                fprintf(stderr, "core %u pipe %u: busy %llu + stalls = %llu > %llu cycles\n", c, p,
                        (unsigned long long)ps.busy_cycles, (unsigned long long)used,
                        (unsigned long long)out->cycles);
                FUZZ_CHECK(0, "a unit is busy or stalled for more cycles than the run took");
            }
        }
    }
    /* sanitizer findings: well-formed, counted at least as often as listed */
    const AscSimSanIssue *list;
    uint32_t nlisted;
    out->san = asc_sim_san_issues(sim, &list, &nlisted);
    FUZZ_CHECK(san || !nlisted, "sanitizer findings in a run without checks");
    FUZZ_CHECK(nlisted <= ASC_SIM_MAX_SAN && out->san >= nlisted, "bad sanitizer counts");
    for (uint32_t i = 0; i < nlisted; i++) {
        FUZZ_CHECK(memchr(list[i].msg, 0, sizeof list[i].msg) && list[i].msg[0], "a finding without a message");
        FUZZ_CHECK(list[i].count >= 1 && asc_san_check_name(list[i].check) != NULL, "a finding without a check");
        FUZZ_CHECK(list[i].core < obs.ncores, "a finding on a core that does not exist");
    }
    AscDiags sd_diags;
    asc_diags_init(&sd_diags, NULL);
    (void)asc_sim_san_diag(sim, &sd_diags);
    asc_diags_free(&sd_diags);
    char *text = asc_sim_report_text(sim);
    FUZZ_CHECK(text != NULL, "asc_sim_report_text failed");
    free(text);
    out->json = asc_sim_report_json(sim);
    FUZZ_CHECK(out->json != NULL, "asc_sim_report_json failed");
    for (uint32_t pc = 0; pc < 64; pc += 4) {
        char src[128];
        (void)asc_sim_source(sim, pc, src, sizeof src);
    }

    if (tr) {
        FUZZ_CHECK(asc_trace_close(tr, true, &d), "writing the trace failed");
        AscVizModel *m = NULL;
        AscVizError e;
        int r = asc_viz_model_load_file(&m, path, NULL, &e);
        if (r != 0) fprintf(stderr, "viewer: %s (offset %lld)\n", e.msg, (long long)e.offset);
        FUZZ_CHECK(r == 0, "the viewer rejects a trace the simulator wrote");
        asc_viz_model_free(m);
        unlink(path);
    }
    asc_sim_free(sim);
    asc_diags_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u; /* FNV-1a: the run's shape */
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;

    /* teach, unless the text names its own target (a mismatch is an error) */
    bool own_target = false;
    for (size_t i = 0; i + 7 <= size && !own_target; i++) own_target = memcmp(data + i, ".target", 7) == 0;
    AscAsmDesc ad = {.target = own_target ? NULL : "teach", .read_file = no_files};
    AscAsm *as = asc_asm_new(&ad);
    FUZZ_CHECK(as != NULL, "asc_asm_new failed");
    AscImage img;
    asc_image_init(&img, NULL);
    bool ok = asc_asm_string(as, "fuzz.s", (const char *)data, size, &img);
    FUZZ_CHECK(ok || asc_asm_diags(as)->nerrors >= 1, "assembly failed without an error");
    asc_asm_free(as);
    if (!ok || img.nkernels == 0) {
        asc_image_free(&img);
        return 0;
    }

    AscConfig cfg;
    AscDiags d;
    asc_diags_init(&d, NULL);
    if (!asc_config_builtin(&cfg, img.target, &d)) {
        asc_diags_free(&d);
        asc_diags_init(&d, NULL);
        FUZZ_CHECK(asc_config_builtin(&cfg, "teach", &d), "the teach profile does not load");
    }
    asc_diags_free(&d);

    const char *kernel = img.kernels[(h >> 8) % img.nkernels].name;
    uint32_t blocks = 1 + (h & 1);
    bool functional = (h & 6) == 6; /* a quarter of the runs */
    uint8_t san = (h >> 3) & 1 ? ASC_SAN_ALL : 0; /* half of them */

    Outcome a, b;
    run_once(&img, &cfg, kernel, blocks, functional, san, false, &a);
    bool trace = a.created && a.insns < TRACE_MAX_INSNS;
    run_once(&img, &cfg, kernel, blocks, functional, san, trace, &b);
    FUZZ_CHECK(a.created == b.created, "two sims of one input disagree on creation");
    if (a.created) {
        FUZZ_CHECK(a.st == b.st && a.cycles == b.cycles && a.insns == b.insns, "two runs of one input disagree");
        FUZZ_CHECK(strcmp(a.fault, b.fault) == 0, "two runs of one input give different fault texts");
        FUZZ_CHECK(a.san == b.san, "two runs of one input give different sanitizer counts");
        FUZZ_CHECK(strcmp(a.json, b.json) == 0, "two runs of one input give different reports");
    }
    free(a.json);
    free(b.json);
    asc_image_free(&img);
    return 0;
}
