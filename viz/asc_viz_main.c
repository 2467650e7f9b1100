/* asc_viz_main.c -- asc-viz: open a trace in the timeline viewer, or render
 * it headless to a PNG.  A thin main: parse flags, call libascviz, print
 * diagnostics, pick the exit code (0 ok, 1 user error, 2 internal error). */
#include "asc/viz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: asc-viz TRACE.json [options]\n"
    "Open a Chrome trace-event JSON file (asc-sim --trace, msOpProf, or any\n"
    "X / B-E trace) in the timeline viewer.\n"
    "\n"
    "  --png OUT.png      render headless to OUT.png instead of opening a window\n"
    "  --size WxH         image or window size (default for --png: 1600 wide, 900 tall\n"
    "                     or taller until every core shows; cores that do not fit\n"
    "                     the given height are named on stderr)\n"
    "  --cycles A:B       visible window in cycles (needs a clock; default: fit)\n"
    "  --us A:B           visible window in microseconds\n"
    "  --mhz N            clock in MHz when the trace has no otherData.clock_mhz\n"
    "  --script FILE      replay an input script in a real window, then quit\n"
    "  --font FILE.ttf    font (default: DejaVu Sans Mono, or $ASC_VIZ_FONT)\n"
    "  --help, --version\n"
    "\n"
    "Keys in the window: ? shows them all (see docs/viewer.md).\n";

static int bad(const char *msg, const char *arg)
{
    fprintf(stderr, "asc-viz: error: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    fprintf(stderr, "try 'asc-viz --help'\n");
    return 1;
}

static int parse_range(const char *s, double *a, double *b)
{
    char *end;
    *a = strtod(s, &end);
    if (end == s || *end != ':') return -1;
    const char *t = end + 1;
    *b = strtod(t, &end);
    return end == t || *end ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *trace = NULL, *png = NULL, *script = NULL, *font = NULL;
    int w = 0, h = 0;
    AscVizRenderDesc rd = {0};
    AscVizLoadDesc ld = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(usage, stdout); return 0; }
        if (!strcmp(a, "--version")) { printf("asc-viz %s\n", ASC_VERSION); return 0; }
        if (!strcmp(a, "--png") || !strcmp(a, "--size") || !strcmp(a, "--cycles") || !strcmp(a, "--us") ||
            !strcmp(a, "--mhz") || !strcmp(a, "--script") || !strcmp(a, "--font")) {
            if (!has_val) return bad("missing value after", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--png")) png = v;
            else if (!strcmp(a, "--script")) script = v;
            else if (!strcmp(a, "--font")) font = v;
            else if (!strcmp(a, "--size")) {
                if (sscanf(v, "%dx%d", &w, &h) != 2 || w < 64 || h < 64 || w > 16384 || h > 16384)
                    return bad("--size must be WxH with 64 <= W, H <= 16384", v);
            } else if (!strcmp(a, "--mhz")) {
                char *end;
                ld.mhz = strtod(v, &end);
                if (end == v || *end || !(ld.mhz > 0)) return bad("--mhz must be a positive number", v);
            } else if (!strcmp(a, "--cycles")) {
                if (parse_range(v, &rd.c0, &rd.c1) || !(rd.c1 > rd.c0))
                    return bad("--cycles must be A:B with B > A", v);
                rd.has_cycles = true;
            } else {
                if (parse_range(v, &rd.t0_us, &rd.t1_us) || !(rd.t1_us > rd.t0_us))
                    return bad("--us must be A:B with B > A", v);
                rd.has_us = true;
            }
        } else if (a[0] == '-' && a[1]) {
            return bad("unknown option", a);
        } else if (trace) {
            return bad("only one trace file may be given", a);
        } else {
            trace = a;
        }
    }
    if (!trace) return bad("no trace file given", NULL);
    if (png && script) return bad("--png and --script cannot be combined", NULL);
    if (!png && (rd.has_cycles || rd.has_us)) return bad("--cycles and --us apply to --png", NULL);

    AscVizModel *m = NULL;
    AscVizError err;
    if (asc_viz_model_load_file(&m, trace, &ld, &err)) {
        /* FILE:LINE:COL: error: RULE, or FILE: error: MSG when no position */
        if (err.offset >= 0)
            fprintf(stderr, "%s:%u:%u: error: %s (byte offset %lld)\n", trace, err.line, err.col, err.msg,
                    (long long)err.offset);
        else
            fprintf(stderr, "%s: error: %s\n", trace, err.msg);
        return 1;
    }
    const char *base = strrchr(trace, '/');
    base = base ? base + 1 : trace;
    int rc;
    if (png) {
        rd.width = w;
        rd.height = h;
        rd.font_path = font;
        rd.title = base;
        AscVizRenderInfo info;
        rc = asc_viz_render_png_info(m, &rd, png, &info, &err);
        if (!rc && info.groups_shown < info.ngroups)
            fprintf(stderr,
                    "asc-viz: warning: %s (%dx%d) shows %u of %u cores in full; left out: %s "
                    "(omit --size's height to let asc-viz pick one, or press e in the window)\n",
                    png, info.width, info.height, info.groups_shown, info.ngroups, info.groups_left_out);
    } else {
        AscVizRunDesc run = {.width = w, .height = h, .script = script, .font_path = font, .title = base};
        rc = asc_viz_run(m, &run, &err);
    }
    asc_viz_model_free(m);
    if (rc) {
        if (script && err.line > 0) /* a script line: SCRIPT:LINE:COL: error: MSG */
            fprintf(stderr, "%s:%u:%u: error: %s\n", script, err.line, err.col, err.msg);
        else
            fprintf(stderr, "asc-viz: error: %s\n", err.msg);
        return 1;
    }
    return 0;
}
