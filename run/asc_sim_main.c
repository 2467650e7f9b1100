/* asc_sim_main.c -- asc-sim, the thin CLI over libasc's simulator: `run` a
 * kernel binary, `explain` it (run + critical path + what-if runs), `diff`
 * two results, list the built-in `targets`, print a resolved `config`
 * (flags: `usage` below).  It parses flags, calls the library (profiles,
 * --arg binding, .npy files, reports, traces all live there), prints
 * diagnostics, the fault or the report, and picks the exit code: 0 success,
 * 1 user error, kernel fault or (with --check-races) a race (no output .npy
 * is written then; after a race the trace, --report-dir and the report are
 * still written, to look at it), 2 internal error (out of memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/config.h"
#include "asc/run.h"

static const char usage[] =
    "usage: asc-sim run kernel.bin [--kernel NAME] [--blocks N] [--target NAME | --config F.json]\n"
    "                   [--set key=value]... --arg NAME=in.npy | NAME=@out.npy:SHAPE:DTYPE | NAME=VALUE ...\n"
    "                   [--trace trace.json] [--report-dir DIR] [--json] [--functional] [--max-cycles N]\n"
    "                   [--check-races]\n"
    "       asc-sim explain kernel.bin [the options of run]   (run, then the critical path and what-ifs)\n"
    "       asc-sim diff RUN_A RUN_B   (two --json results or --report-dir directories)\n"
    "       asc-sim targets\n"
    "       asc-sim config [--target NAME | --config F.json] [--set key=value]... [--peaks]\n"
    "       asc-sim --help | --version\n";

typedef struct Opts {
    const char *bin, *kernel, *target, *config, *trace, *report_dir;
    const char *sets[64]; /* --set, applied in order */
    unsigned nsets, nargs, blocks;
    AscRunArg args[ASC_MAX_ARGS + 1]; /* one spare: asc_sim_bind_args names the surplus argument */
    bool json, functional, check_races, peaks;
    unsigned long long max_cycles; /* 0: no limit */
} Opts;

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
                     !strcmp(a, "--report-dir") || !strcmp(a, "--max-cycles");
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
        else if (!strcmp(a, "--set")) {
            if (o->nsets == 64) {
                fprintf(stderr, "asc-sim: too many --set (at most 64)\n");
                return false;
            }
            o->sets[o->nsets++] = v;
        } else if (!strcmp(a, "--blocks") || !strcmp(a, "--max-cycles")) {
            unsigned long long n = strtoull(v, &end, 10);
            /* strtoull accepts "-1" (as 2^64 - 1): refuse a sign outright */
            if (*end || !*v || v[0] == '-' || (!strcmp(a, "--blocks") && (n == 0 || n > 65536))) {
                fprintf(stderr, "asc-sim: %s takes a positive integer, got '%s'\n", a, v);
                return false;
            }
            if (!strcmp(a, "--blocks")) o->blocks = (unsigned)n;
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

static int cmd_run(Opts *o, AscDiags *d, bool explain)
{
    if (!o->bin) {
        fprintf(stderr, "asc-sim: run needs a kernel binary\n%s", usage);
        return 1;
    }
    AscImage img;
    asc_image_init(&img, NULL);
    if (!asc_image_read_file(&img, o->bin, d)) return fail(d, code_of(d));
    AscConfig cfg;
    int rc = 1;
    AscSim *sim = NULL;
    AscTrace *tr = NULL;
    AscExplain *ex = NULL;
    AscSimDesc desc = {.cfg = &cfg, .image = &img, .kernel = o->kernel, .blocks = o->blocks,
                       .functional = o->functional, .check_races = o->check_races};
    /* the target the binary was assembled for, unless --target / --config say otherwise */
    const char *target = o->target ? o->target : img.target[0] ? img.target : ASC_DEFAULT_TARGET;
    if (!asc_config_load(&cfg, o->config, target, o->sets, o->nsets, d)) goto out;
    if (o->trace && !(tr = asc_trace_open(o->trace, NULL, &desc.observer, d))) goto out;
    if (!(ex = asc_explain_new(NULL, &desc.observer))) { /* the recorder, chained before the trace */
        rc = 2;
        goto out;
    }
    if (!(sim = asc_sim_new(&desc, d))) goto out;
    if (tr) asc_trace_bind(tr, sim);
    if (!asc_sim_bind_args(sim, o->args, o->nargs, d)) goto out;
    AscSimStatus st = asc_sim_run(sim, o->max_cycles);
    if (st != ASC_SIM_DONE) {
        static char msg[1 << 14]; /* a deadlock names every blocked unit */
        asc_sim_status_format(sim, st, o->max_cycles, msg, sizeof msg);
        fprintf(stderr, "asc-sim: error: %s\n", msg);
        if (st == ASC_SIM_FAULT && asc_sim_fault(sim)->kind == ASC_FAULT_INTERNAL) rc = 2;
        goto out;
    }
    /* races are errors: the numbers may be right here and wrong on hardware */
    bool racy = o->check_races && asc_sim_races_diag(sim, d) > 0;
    if (!racy && !asc_sim_write_outputs(sim, o->args, o->nargs, d)) goto out;
    bool traced = !tr || asc_trace_close(tr, true, d); /* closed either way: not again at `out` */
    tr = NULL;
    if (!traced) goto out;
    if (!asc_explain_analyse(ex, sim) || (explain && !asc_explain_whatif(ex, &desc, o->args, o->nargs, d))) {
        rc = 2;
        goto out;
    }
    if (o->report_dir && !asc_report_dir(sim, ex, o->report_dir, d)) goto out;
    char *rep = o->json ? asc_report_json(sim, ex) : asc_report_text(sim, ex);
    if (rep) fputs(rep, stdout);
    rc = !rep ? 2 : racy ? 1 : 0;
    free(rep);
out:
    if (tr) asc_trace_close(tr, false, NULL); /* a failed run leaves no trace file */
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
