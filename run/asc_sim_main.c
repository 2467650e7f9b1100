/* asc_sim_main.c -- asc-sim, the thin CLI over libasc's simulator: `run` a
 * kernel binary, `explain` it (run + critical path + what-if runs), `diff`
 * two results, list the built-in `targets`, print a resolved `config`
 * (flags: `usage` below).  It parses flags, calls the library (profiles,
 * --arg binding, .npy files, reports, traces all live there), prints
 * diagnostics, the fault or the report, and picks the exit code: 0 success,
 * 1 user error, kernel fault, (with --check-races) a race or a --sanitize error (no output .npy
 * is written then; after a race the trace, --report-dir and the report are
 * still written, to look at it), 2 internal error (out of memory).
 *
 * Outputs (asc/outfile.h): the .npy outputs, the trace and the report dir
 * are written into temporaries of one AscOutSet and renamed into place
 * together, only when the whole run succeeded; SIGINT and SIGTERM remove
 * the temporaries (on_signal); an output that is one of the inputs is an
 * error. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/config.h"
#include "asc/run.h"

static const char usage[] =
    "usage: asc-sim run kernel.bin [--kernel NAME] [--blocks N] [--target NAME | --config F.json]\n"
    "                   [--set key=value]... --arg NAME=in.npy | NAME=@out.npy:SHAPE:DTYPE | NAME=VALUE ...\n"
    "                   [--trace trace.json] [--report-dir DIR] [--json] [--functional] [--max-cycles N]\n"
    "                   [--threads N] [--check-races] [--sanitize=memcheck,initcheck,racecheck,synccheck|all]\n"
    "       asc-sim run bundle.om [--target NAME] --arg NAME=in.npy ... [--arg NAME=@out.npy:SHAPE:DTYPE]\n"
    "                   (a bundle of `pyasc compile script.py -o bundle.om`: its operators in order)\n"
    "       asc-sim explain kernel.bin [the options of run]   (run, then the critical path and what-ifs)\n"
    "       asc-sim diff RUN_A RUN_B   (two --json results or --report-dir directories)\n"
    "       asc-sim targets\n"
    "       asc-sim config [--target NAME | --config F.json] [--set key=value]... [--peaks]\n"
    "       asc-sim --help | --version\n";

typedef struct Opts {
    const char *bin, *kernel, *target, *config, *trace, *report_dir;
    const char *sets[64]; /* --set, applied in order */
    unsigned nsets, nargs, blocks, threads; /* threads 0: ASC_THREADS, else the host CPUs */
    AscRunArg args[ASC_MAX_ARGS + 1]; /* one spare: asc_sim_bind_args names the surplus argument */
    bool json, functional, check_races, peaks;
    uint8_t sanitize; /* AscSanCheck bits */
    unsigned long long max_cycles; /* 0: the profile's max_cycles key */
} Opts;

/* The run's temporaries, for on_signal.  The one static of this file: a
 * signal handler gets no argument, so the set must be reachable from it.  It
 * is set before the first temporary is made and cleared, with the signals
 * blocked, before the set is freed. */
static AscOutSet *volatile run_outputs;

static void on_signal(int sig)
{
    AscOutSet *s = run_outputs;
    if (s) asc_out_signal_cleanup(s);
    /* SA_RESETHAND restored the default action: die of the signal, as if not caught */
    raise(sig);
}

/* Block (how SIG_BLOCK) or unblock (SIG_UNBLOCK) the signals on_signal
 * catches: while a staged directory is written, and while committing, so
 * a commit is all or nothing. */
static void guard(int how)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(how, &set, NULL);
}

static void catch_signals(AscOutSet *out)
{
    run_outputs = out;
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* No output may be an input (or another output): the run would read what it
 * overwrites, or lose one of two results. */
static bool outputs_distinct(const Opts *o, AscDiags *d)
{
    const char *ins[ASC_MAX_ARGS + 4];
    unsigned n = 0;
    ins[n++] = o->bin;
    if (o->config) ins[n++] = o->config;
    for (unsigned i = 0; i < o->nargs; i++)
        if (o->args[i].how == ASC_RUN_ARG_IN) ins[n++] = o->args[i].path;
    for (unsigned i = 0; i < o->nargs; i++) {
        if (o->args[i].how != ASC_RUN_ARG_OUT) continue;
        const char *p = o->args[i].path;
        if (!asc_out_check_inputs(p, ins, n, d)) return false;
        if (o->trace && !asc_out_check_inputs(o->trace, &p, 1, d)) return false;
        for (unsigned j = i + 1; j < o->nargs; j++)
            if (o->args[j].how == ASC_RUN_ARG_OUT && !asc_out_check_inputs(o->args[j].path, &p, 1, d)) return false;
    }
    return !o->trace || asc_out_check_inputs(o->trace, ins, n, d);
}

/* --report-dir into a staged directory of `out` (moved into place at commit). */
static bool report_dir(const AscSim *sim, const AscExplain *ex, const char *dir, AscOutSet *out, AscDiags *d)
{
    guard(SIG_BLOCK);
    const char *tmp = asc_out_open_dir(out, dir, d);
    bool ok = tmp && asc_report_dir(sim, ex, tmp, d) && asc_out_dir_done(out, tmp, d);
    guard(SIG_UNBLOCK);
    return ok;
}

static int fail(AscDiags *d, int code)
{
    asc_diags_print(d, stderr, NULL, NULL);
    asc_diags_free(d);
    return code;
}

/* Print and free a text the library allocated; NULL was out of memory. */
static int put_text(char *text, AscDiags *d)
{
    if (!text) return fail(d, 2);
    fputs(text, stdout);
    free(text);
    return 0;
}

/* 2 when the library ran out of memory, else 1 (the user's input). */
static int code_of(const AscDiags *d)
{
    for (uint32_t i = 0; i < d->count; i++)
        if (d->items[i].id == ASC_DIAG_OOM) return 2;
    return d->oom ? 2 : 1;
}

static bool parse(int argc, char **argv, Opts *o, AscDiags *d)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = !strcmp(a, "--kernel") || !strcmp(a, "--blocks") || !strcmp(a, "--target") ||
                     !strcmp(a, "--config") || !strcmp(a, "--set") || !strcmp(a, "--arg") || !strcmp(a, "--trace") ||
                     !strcmp(a, "--report-dir") || !strcmp(a, "--max-cycles") || !strcmp(a, "--threads");
        if (takes && !v) {
            fprintf(stderr, "asc-sim: %s needs a value\n", a);
            return false;
        }
        if (takes) i++;
        char *end;
        if (!strcmp(a, "--kernel")) o->kernel = v;
        else if (!strcmp(a, "--target")) o->target = v;
        else if (!strcmp(a, "--config")) o->config = v;
        else if (!strcmp(a, "--trace")) o->trace = v;
        else if (!strcmp(a, "--report-dir")) o->report_dir = v;
        else if (!strcmp(a, "--json")) o->json = true;
        else if (!strcmp(a, "--functional")) o->functional = true;
        else if (!strcmp(a, "--check-races")) o->check_races = true;
        else if (!strcmp(a, "--peaks")) o->peaks = true;
        else if (!strncmp(a, "--sanitize=", 11)) {
            char err[200];
            if (!asc_sim_sanitize_parse(a + 11, &o->sanitize, err, sizeof err)) {
                fprintf(stderr, "asc-sim: %s\n", err);
                return false;
            }
        }
        else if (!strcmp(a, "--set")) {
            if (o->nsets == 64) {
                fprintf(stderr, "asc-sim: too many --set (at most 64)\n");
                return false;
            }
            o->sets[o->nsets++] = v;
        } else if (!strcmp(a, "--blocks") || !strcmp(a, "--max-cycles") || !strcmp(a, "--threads")) {
            errno = 0;
            unsigned long long n = strtoull(v, &end, 10);
            bool blk = !strcmp(a, "--blocks"), thr = !strcmp(a, "--threads");
            unsigned long long top = blk ? 65536 : thr ? 256 : (unsigned long long)asc_config_keys[ASC_KEY_MAX_CYCLES].hi;
            /* strtoull accepts "-1" (as 2^64 - 1): refuse a sign outright; 0 and overflow are errors too */
            if (*end || !*v || v[0] == '-' || errno || n == 0 || n > top) {
                fprintf(stderr, "asc-sim: %s takes an integer in [1, %llu], got '%s'\n", a, top, v);
                return false;
            }
            if (blk) o->blocks = (unsigned)n;
            else if (thr) o->threads = (unsigned)n;
            else o->max_cycles = n;
        } else if (!strcmp(a, "--arg")) {
            if (o->nargs == ASC_MAX_ARGS + 1) {
                fprintf(stderr, "asc-sim: too many --arg (a kernel takes at most %d)\n", ASC_MAX_ARGS);
                return false;
            }
            if (!asc_run_arg_parse(&o->args[o->nargs++], v, d)) return false;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "asc-sim: unknown option '%s'\n%s", a, usage);
            return false;
        } else if (!o->bin) o->bin = a;
        else {
            fprintf(stderr, "asc-sim: unexpected argument '%s'\n%s", a, usage);
            return false;
        }
    }
    if (o->target && o->config) {
        fprintf(stderr, "asc-sim: give --target NAME or --config F.json, not both\n");
        return false;
    }
    return true;
}


/* What the kernel printed (printf, DumpTensor; asc_sim_print_get): one line per record,
 * "[core N] file:line: text", in program order per core; on stderr with --json. */
static void print_device_log(const AscSim *sim, const AscImage *img, FILE *f)
{
    uint64_t dropped;
    uint32_t n = asc_sim_prints(sim, &dropped), core, pc;
    const char *text;
    for (uint32_t i = 0; i < n && asc_sim_print_get(sim, i, &core, &pc, &text); i++) {
        const AscLineEntry *e = asc_image_line_at(img, pc);
        if (e && e->file < img->nfiles)
            fprintf(f, "[core %u] %s:%u: %s\n", core, img->files[e->file], e->line, text);
        else
            fprintf(f, "[core %u] pc 0x%04x: %s\n", core, pc, text);
    }
    if (dropped) fprintf(f, "asc-sim: %llu device print record(s) did not fit in the print log\n", (unsigned long long)dropped);
}

/* The run's notes of kinds that lose data (asc_sim_note_get: what the card does silently), one
 * warning line each on stderr; a DataCopyPad's padding is that call doing its job, not warned
 * (as pyasc: runtime/launch.py _NOTE_LOSSY, which words the same kinds in _NOTE_TEXT). */
static void print_notes(const AscSim *sim, const AscImage *img)
{
    uint64_t n[6];
    for (uint32_t i = 0; asc_sim_note_get(sim, i, n); i++) {
        if (n[2] == ASC_NOTE_PAD) continue;
        char where[300];
        const AscLineEntry *e = asc_image_line_at(img, (uint32_t)n[1]);
        if (e && e->file < img->nfiles)
            snprintf(where, sizeof where, "%s:%u", img->files[e->file], e->line);
        else
            snprintf(where, sizeof where, "pc 0x%04x", (unsigned)n[1]);
        unsigned long long a = n[4], b = n[5];
        char times[40] = "";
        if (n[3] > 1) snprintf(times, sizeof times, ", %llu times", (unsigned long long)n[3]);
        fprintf(stderr, "asc-sim: warning: %s (first on core %u%s): ", where, (unsigned)n[0], times);
        switch (n[2]) {
        case ASC_NOTE_TRUNC: fprintf(stderr, "a DataCopy burst of %llu bytes moved %llu (rounded down to 32 B)\n", a, b); break;
        case ASC_NOTE_CMPMASK: fprintf(stderr, "a whole-repeat compare ignored a mask of %llu lanes: compared all %llu\n", a, b); break;
        case ASC_NOTE_CMPCOUNT: fprintf(stderr, "a whole-repeat compare in counter mode compared %llu of %llu elements\n", b, a); break;
        case ASC_NOTE_RDOWN: fprintf(stderr, "a DataCopy count moved %llu bytes, its last 1..31 dropped\n", b); break;
        case ASC_NOTE_GMREAD:
            fprintf(stderr, "GM read of %llu bytes at 0x%llx runs outside the argument it starts in (or lies in none): "
                    "the card reads whatever is there (an input shorter than the kernel's count? --sanitize=memcheck "
                    "names the argument)\n", a, b);
            break;
        default: fprintf(stderr, "note %llu (%llu, %llu)\n", (unsigned long long)n[2], a, b);
        }
    }
}

static int cmd_run(Opts *o, AscDiags *d, bool explain)
{
    if (!o->bin) {
        fprintf(stderr, "asc-sim: run needs a kernel binary\n%s", usage);
        return 1;
    }
    if (!explain && asc_bundle_is_file(o->bin)) { /* a bundle: its operators in order */
        char *t = asc_bundle_run(o->bin, o->target, o->args, o->nargs, d);
        return t ? put_text(t, d) : fail(d, code_of(d));
    }
    AscImage img;
    asc_image_init(&img, NULL);
    if (!asc_image_read_file(&img, o->bin, d)) return fail(d, code_of(d));
    AscConfig cfg;
    int rc = 1;
    AscSim *sim = NULL;
    AscTrace *tr = NULL;
    char *rep = NULL;
    AscOutSet *out = asc_out_new(NULL);
    AscExplain *ex = NULL;
    AscSimDesc desc = {.cfg = &cfg, .image = &img, .kernel = o->kernel, .blocks = o->blocks,
                       .functional = o->functional, .check_races = o->check_races, .sanitize = o->sanitize,
                       .threads = o->threads};
    /* the target the binary was assembled for, unless --target / --config say otherwise */
    const char *target = o->target ? o->target : img.target[0] ? img.target : ASC_DEFAULT_TARGET;
    if (!out) {
        asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        goto out;
    }
    catch_signals(out);
    if (!outputs_distinct(o, d)) goto out;
    if (!asc_config_load(&cfg, o->config, target, o->sets, o->nsets, d)) goto out;
    /* creating a temporary and entering it in `out` happen with the signals blocked: between the
     * two, on_signal would not know the file (tests/cli/test_safe_outputs.sh kills at random) */
    guard(SIG_BLOCK);
    if (o->trace) tr = asc_trace_open_to(o->trace, NULL, &desc.observer, out, d);
    guard(SIG_UNBLOCK);
    if (o->trace && !tr) goto out;
    if (!(ex = asc_explain_new(NULL, &desc.observer))) { /* the recorder, chained before the trace */
        rc = 2;
        goto out;
    }
    if (!(sim = asc_sim_new(&desc, d))) goto out;
    if (tr) asc_trace_bind(tr, sim);
    if (!asc_sim_bind_args(sim, o->args, o->nargs, d)) goto out;
    AscSimStatus st = asc_sim_run(sim, o->max_cycles);
    print_device_log(sim, &img, o->json ? stderr : stdout);
    print_notes(sim, &img);
    if (st != ASC_SIM_DONE) {
        static char msg[1 << 14]; /* a deadlock names every blocked unit */
        asc_sim_status_format(sim, st, o->max_cycles, msg, sizeof msg);
        fprintf(stderr, "asc-sim: error: %s\n", msg);
        if (st == ASC_SIM_FAULT && asc_sim_fault(sim)->kind == ASC_FAULT_INTERNAL) rc = 2;
        if (o->sanitize) asc_sim_san_diag(sim, d); /* what the sanitizers found before it stopped */
        goto out;
    }
    /* races are errors: the numbers may be right here and wrong on hardware */
    bool racy = (o->check_races || (o->sanitize & ASC_SAN_RACECHECK)) && asc_sim_races_diag(sim, d) > 0;
    if (o->sanitize && asc_sim_san_diag(sim, d) > 0) racy = true; /* sanitizer errors: no outputs, exit 1 */
    guard(SIG_BLOCK);
    bool written = racy || asc_sim_write_outputs_to(sim, o->args, o->nargs, out, d);
    guard(SIG_UNBLOCK);
    if (!written) goto out;
    bool traced = !tr || asc_trace_close(tr, true, d); /* closed either way: not again at `out` */
    tr = NULL;
    if (!traced) goto out;
    if (!asc_explain_analyse(ex, sim) || (explain && !asc_explain_whatif(ex, &desc, o->args, o->nargs, d))) {
        rc = 2;
        goto out;
    }
    if (o->report_dir && !report_dir(sim, ex, o->report_dir, out, d)) goto out;
    rep = o->json ? asc_report_json(sim, ex) : asc_report_text(sim, ex);
    if (!rep) {
        rc = 2;
        goto out;
    }
    /* everything is complete: only now does any output replace an old one */
    guard(SIG_BLOCK);
    bool committed = asc_out_commit(out, d);
    guard(SIG_UNBLOCK);
    if (!committed) goto out;
    fputs(rep, stdout);
    rc = racy ? 1 : 0;
out:
    free(rep);
    if (tr) asc_trace_close(tr, false, NULL); /* a failed run leaves no trace file */
    guard(SIG_BLOCK);
    run_outputs = NULL;
    asc_out_free(out); /* removes what was not committed */
    guard(SIG_UNBLOCK);
    asc_sim_free(sim);
    asc_explain_free(ex);
    asc_image_free(&img);
    if (rc && d->count) rc = code_of(d) == 2 ? 2 : rc;
    asc_diags_print(d, stderr, NULL, NULL);
    asc_diags_free(d);
    return rc;
}

int main(int argc, char **argv)
{
    AscDiags d;
    asc_diags_init(&d, NULL);
    Opts o = {.blocks = 0}; /* every other field zero too */
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage, cmd ? stdout : stderr);
        return cmd ? 0 : 1;
    }
    if (!strcmp(cmd, "--version")) {
        printf("asc-sim %s\n", ASC_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") && strcmp(cmd, "explain") && strcmp(cmd, "diff") && strcmp(cmd, "targets") &&
        strcmp(cmd, "config")) {
        fprintf(stderr, "asc-sim: unknown command '%s'\n%s", cmd, usage);
        return 1;
    }
    for (int i = 2; i < argc; i++) /* --help anywhere wins over any error in the other flags */
        if (!strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
    if (!strcmp(cmd, "diff")) {
        if (argc != 4) {
            fprintf(stderr, "asc-sim: diff takes two runs (--json files or report dirs)\n%s", usage);
            return 1;
        }
        char *t = asc_report_diff(argv[2], argv[3], NULL, &d);
        return t ? put_text(t, &d) : fail(&d, code_of(&d));
    }
    if (!parse(argc, argv, &o, &d)) return fail(&d, 1);
    if (!strcmp(cmd, "targets")) return put_text(asc_config_targets_text(NULL, &d), &d);
    if (!strcmp(cmd, "config")) {
        AscConfig c;
        if (!asc_config_load(&c, o.config, o.target ? o.target : ASC_DEFAULT_TARGET, o.sets, o.nsets, &d))
            return fail(&d, 1);
        return put_text(o.peaks ? asc_config_peaks_text(&c, NULL) : asc_config_to_json(&c, NULL), &d);
    }
    return cmd_run(&o, &d, !strcmp(cmd, "explain"));
}
