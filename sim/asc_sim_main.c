/* asc_sim_main.c -- asc-sim, the thin CLI over libasc's simulator.
 *
 *   asc-sim run kernel.bin [--kernel NAME] [--blocks N] [--target NAME |
 *       --config F.json] [--set key=value]... --arg NAME=in.npy |
 *       NAME=@out.npy:SHAPE:DTYPE | NAME=VALUE ... [--trace trace.json]
 *       [--report-dir DIR] [--json] [--functional] [--max-cycles N]
 *       [--check-races]
 *   asc-sim targets
 *   asc-sim config [--target NAME | --config F.json] [--set key=value]...
 *
 * Parses flags, calls the library, prints diagnostics, the fault or the
 * report, and picks the exit code: 0 success, 1 user error, kernel fault or
 * (with --check-races) a race (no output .npy is written then; after a race
 * the trace, --report-dir and the report are still written, to look at it),
 * 2 internal error (out of memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/config.h"
#include "asc/sim.h"

static const char usage[] =
    "usage: asc-sim run kernel.bin [--kernel NAME] [--blocks N] [--target NAME | --config F.json]\n"
    "                   [--set key=value]... --arg NAME=in.npy | NAME=@out.npy:SHAPE:DTYPE | NAME=VALUE ...\n"
    "                   [--trace trace.json] [--report-dir DIR] [--json] [--functional] [--max-cycles N]\n"
    "                   [--check-races]\n"
    "       asc-sim targets\n"
    "       asc-sim config [--target NAME | --config F.json] [--set key=value]...\n"
    "       asc-sim --help | --version\n";

typedef struct Opts {
    const char *bin, *kernel, *target, *config, *trace, *report_dir;
    const char *sets[64];
    unsigned nsets, nargs, blocks;
    AscRunArg args[ASC_MAX_ARGS + 1];
    bool json, functional, check_races;
    unsigned long long max_cycles;
} Opts;

static int fail(AscDiags *d, int code)
{
    asc_diags_print(d, stderr, NULL, NULL);
    asc_diags_free(d);
    return code;
}

static int code_of(const AscDiags *d)
{
    for (uint32_t i = 0; i < d->count; i++)
        if (d->items[i].id == ASC_DIAG_OOM) return 2;
    return d->oom ? 2 : 1;
}

/* Resolve the profile: --config file, else --target, else `fallback`. */
static bool load_config(AscConfig *cfg, const Opts *o, const char *fallback, AscDiags *d)
{
    bool ok;
    if (o->config) ok = asc_config_read_file(cfg, o->config, d);
    else ok = asc_config_builtin(cfg, o->target ? o->target : fallback, d);
    for (unsigned i = 0; ok && i < o->nsets; i++) ok = asc_config_set(cfg, o->sets[i], d);
    return ok && asc_config_check(cfg, d);
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
        else if (!strcmp(a, "--set")) {
            if (o->nsets == 64) {
                fprintf(stderr, "asc-sim: too many --set (at most 64)\n");
                return false;
            }
            o->sets[o->nsets++] = v;
        }
        else if (!strcmp(a, "--blocks") || !strcmp(a, "--max-cycles")) {
            unsigned long long n = strtoull(v, &end, 10);
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

static int cmd_run(Opts *o, AscDiags *d)
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
    AscSimDesc desc = {.cfg = &cfg, .image = &img, .kernel = o->kernel, .blocks = o->blocks,
                       .functional = o->functional, .check_races = o->check_races};
    if (!load_config(&cfg, o, img.target[0] ? img.target : ASC_DEFAULT_TARGET, d)) goto out;
    if (o->trace && !(tr = asc_trace_open(o->trace, NULL, &desc.observer, d))) goto out;
    if (!(sim = asc_sim_new(&desc, d))) goto out;
    if (tr) asc_trace_bind(tr, sim);
    if (!asc_sim_bind_args(sim, o->args, o->nargs, d)) goto out;
    AscSimStatus st = asc_sim_run(sim, o->max_cycles);
    if (st == ASC_SIM_FAULT) {
        static char msg[1 << 14];
        asc_sim_fault_format(sim, msg, sizeof msg);
        fprintf(stderr, "asc-sim: error: %s\n", msg);
        rc = asc_sim_fault(sim)->kind == ASC_FAULT_INTERNAL ? 2 : 1;
        goto out;
    }
    if (st == ASC_SIM_LIMIT) {
        fprintf(stderr, "asc-sim: error: --max-cycles %llu exceeded: the kernel was still running at cycle %llu\n",
                o->max_cycles, (unsigned long long)asc_sim_cycles(sim));
        goto out;
    }
    /* races are errors: the numbers may be right here and wrong on hardware */
    bool racy = o->check_races && asc_sim_races_diag(sim, d) > 0;
    if (!racy && !asc_sim_write_outputs(sim, o->args, o->nargs, d)) goto out;
    if (tr) {
        AscTrace *t = tr;
        tr = NULL;
        if (!asc_trace_close(t, true, d)) goto out;
    }
    if (o->report_dir && !asc_sim_report_dir(sim, o->report_dir, d)) goto out;
    char *rep = o->json ? asc_sim_report_json(sim) : asc_sim_report_text(sim);
    if (!rep) {
        rc = 2;
        goto out;
    }
    fputs(rep, stdout);
    free(rep);
    rc = racy ? 1 : 0;
out:
    if (tr) asc_trace_close(tr, false, NULL);
    asc_sim_free(sim);
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
    Opts o;
    memset(&o, 0, sizeof o);
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage, cmd ? stdout : stderr);
        return cmd ? 0 : 1;
    }
    if (!strcmp(cmd, "--version")) {
        printf("asc-sim %s\n", ASC_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") && strcmp(cmd, "targets") && strcmp(cmd, "config")) {
        fprintf(stderr, "asc-sim: unknown command '%s'\n%s", cmd, usage);
        return 1;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
    if (!parse(argc, argv, &o, &d)) return fail(&d, 1);
    if (!strcmp(cmd, "targets")) {
        for (const char *const *n = asc_config_builtin_names(); *n; n++) {
            AscConfig c;
            if (!asc_config_builtin(&c, *n, &d)) return fail(&d, 2);
            printf("%-12s %s%s\n", *n, c.description, strcmp(*n, ASC_DEFAULT_TARGET) ? "" : " (default)");
        }
        return 0;
    }
    if (!strcmp(cmd, "config")) {
        AscConfig c;
        if (!load_config(&c, &o, ASC_DEFAULT_TARGET, &d)) return fail(&d, 1);
        char *json = asc_config_to_json(&c, NULL);
        if (!json) return fail(&d, 2);
        fputs(json, stdout);
        free(json);
        return 0;
    }
    return cmd_run(&o, &d);
}
