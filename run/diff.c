/* diff.c -- asc-sim diff RUN_A RUN_B: two runs side by side.
 *
 * Users: asc-sim diff.  Each run is an `asc-sim run --json` (or `explain
 * --json`) output file or a --report-dir directory (its summary.json).
 * Printed (docs/timing.md §Diff): the profiles (name, hash, overrides),
 * total cycles, per-pipe busy cycles over all cores, every stall counter,
 * bytes per path, the critical path by cause, the bound, and per source
 * line the cycles that moved (lines whose cycles differ, largest move
 * first).  Every figure is read from the two files; nothing is recomputed.
 * Parsed with cJSON; a missing or malformed file is an IO / parse error
 * naming the file. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "asc/json.h"
#include "asc/run.h"
#include "textbuf.h"

/* Read and parse one run; NULL + diagnostic on error. */
static cJSON *load(const char *path, const AscAlloc *a, AscDiags *d)
{
    char file[1100];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) snprintf(file, sizeof file, "%s/summary.json", path);
    else snprintf(file, sizeof file, "%s", path);
    FILE *f = fopen(file, "rb");
    if (!f) {
        asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "read", file, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = asc_realloc(a, NULL, 0, cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char *nb = asc_realloc(a, buf, cap, cap * 2);
        if (!nb) asc_free(a, buf);
        buf = nb, cap *= 2;
    }
    fclose(f);
    if (!buf) {
        asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(buf, n, &end, false);
    const char *after = j ? asc_json_trailing(end, buf, n) : NULL;
    long rest = after ? (long)(after - buf) : -1;
    asc_free(a, buf);
    if (rest >= 0) {
        char why[120];
        snprintf(why, sizeof why, "text after the JSON object at byte %ld (an asc-sim --json result is one object)", rest);
        asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "read", file, why);
        cJSON_Delete(j);
        return NULL;
    }
    if (!cJSON_IsObject(j) || !cJSON_GetObjectItemCaseSensitive(j, "total_cycles")) {
        asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "read", file,
                 "not an asc-sim --json result (a JSON object with total_cycles)");
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static long long num(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsNumber(v) ? (long long)v->valuedouble : 0;
}
static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void row(TextBuf *b, const char *name, long long x, long long y)
{
    tb_put(b, "  %-40s %12lld %12lld %+12lld\n", name, x, y, y - x);
}

/* Rows for every numeric member of object oa / ob (the union, a's order first). */
static void rows_of(TextBuf *b, const cJSON *oa, const cJSON *ob, const char *prefix)
{
    char name[200];
    for (const cJSON *it = oa ? oa->child : NULL; it; it = it->next)
        if (cJSON_IsNumber(it)) {
            snprintf(name, sizeof name, "%s%s", prefix, it->string);
            row(b, name, (long long)it->valuedouble, num(ob, it->string));
        }
    for (const cJSON *it = ob ? ob->child : NULL; it; it = it->next)
        if (cJSON_IsNumber(it) && !get(oa, it->string)) {
            snprintf(name, sizeof name, "%s%s", prefix, it->string);
            row(b, name, 0, (long long)it->valuedouble);
        }
}

/* Busy cycles of a pipe summed over cores. */
static long long busy(const cJSON *r, const char *pipe, const char *field)
{
    long long s = 0;
    const cJSON *pc = get(r, "per_core");
    for (const cJSON *c = pc ? pc->child : NULL; c; c = c->next) s += num(get(get(c, "pipes"), pipe), field);
    return s;
}

static void profile(TextBuf *b, const char *tag, const cJSON *r)
{
    const cJSON *p = get(r, "profile");
    tb_put(b, "%s: %s", tag, str(r, "target"));
    if (p) {
        tb_put(b, ", hash %s, overrides:", str(p, "hash"));
        const cJSON *o = get(p, "overrides");
        if (!o || !o->child) tb_put(b, " none");
        for (const cJSON *it = o ? o->child : NULL; it; it = it->next)
            tb_put(b, "%s %s=%lld", it == o->child ? "" : ",", it->string, (long long)it->valuedouble);
    } else tb_put(b, " (no profile record: an older result)");
    tb_put(b, "; %s\n", str(r, "bound"));
}

typedef struct Moved {
    const char *line;
    long long a, b, ba, bb, ca, cb; /* cycles, busy cycles, conflict beats */
} Moved;

static int cmp_moved(const void *x, const void *y)
{
    const Moved *p = x, *q = y;
    long long dp = llabs(p->bb - p->ba), dq = llabs(q->bb - q->ba);
    if (dp != dq) return dp > dq ? -1 : 1;
    return strcmp(p->line, q->line);
}

char *asc_report_diff(const char *pa, const char *pb, const AscAlloc *alloc, AscDiags *d)
{
    AscAlloc a = alloc ? *alloc : (AscAlloc){0};
    cJSON *ra = load(pa, &a, d);
    cJSON *rb = ra ? load(pb, &a, d) : NULL;
    if (!rb) {
        cJSON_Delete(ra);
        return NULL;
    }
    TextBuf b = {.a = &a};
    tb_put(&b, "A %s\nB %s\n", pa, pb);
    profile(&b, "A", ra);
    profile(&b, "B", rb);
    tb_put(&b, "\n  %-40s %12s %12s %12s\n", "", "A", "B", "B-A");
    row(&b, "total cycles", num(ra, "total_cycles"), num(rb, "total_cycles"));
    row(&b, "instructions", num(ra, "instructions"), num(rb, "instructions"));
    static const char *const pipes[] = {"SCALAR", "MTE1", "CUBE", "FIXP", "MTE2", "VECTOR", "MTE3"};
    tb_put(&b, "busy cycles (all cores)\n");
    for (unsigned i = 0; i < sizeof pipes / sizeof pipes[0]; i++) {
        long long x = busy(ra, pipes[i], "busy_cycles"), y = busy(rb, pipes[i], "busy_cycles");
        if (x || y) row(&b, pipes[i], x, y);
    }
    tb_put(&b, "stalls (cycles, all cores)\n");
    const cJSON *sa = get(ra, "stalls"), *sb = get(rb, "stalls");
    rows_of(&b, sa, sb, "");
    /* flag waits, keyed src->dst id */
    char name[200];
    for (int pass = 0; pass < 2; pass++) {
        const cJSON *fa = get(pass ? sb : sa, "flag_waits"), *fo = get(pass ? sa : sb, "flag_waits");
        for (const cJSON *it = fa ? fa->child : NULL; it; it = it->next) {
            long long other = 0;
            bool found = false;
            for (const cJSON *jt = fo ? fo->child : NULL; jt; jt = jt->next)
                if (!strcmp(str(it, "src"), str(jt, "src")) && !strcmp(str(it, "dst"), str(jt, "dst")) &&
                    num(it, "id") == num(jt, "id"))
                    other = num(jt, "cycles"), found = true;
            if (pass && found) continue;
            snprintf(name, sizeof name, "flag wait %s->%s id %lld", str(it, "src"), str(it, "dst"), num(it, "id"));
            if (pass) row(&b, name, other, num(it, "cycles"));
            else row(&b, name, num(it, "cycles"), other);
        }
    }
    tb_put(&b, "bytes\n");
    rows_of(&b, get(ra, "bytes"), get(rb, "bytes"), "");
    tb_put(&b, "critical path by cause (cycles)\n");
    const cJSON *ca = get(ra, "critical_path"), *cb = get(rb, "critical_path");
    if (!ca || !cb) tb_put(&b, "  (a run has no critical path: run it with asc-sim run or explain)\n");
    else rows_of(&b, get(ca, "by_cause"), get(cb, "by_cause"), "");
    /* per source line */
    const cJSON *la = get(ra, "lines"), *lb = get(rb, "lines");
    size_t nl = (size_t)cJSON_GetArraySize(la) + (size_t)cJSON_GetArraySize(lb);
    Moved *m = asc_calloc(&a, nl ? nl : 1, sizeof *m);
    size_t nm = 0;
    long long moved = 0;
    if (m) {
        for (const cJSON *it = la ? la->child : NULL; it; it = it->next) {
            const cJSON *o = get(lb, it->string);
            Moved v = {it->string, num(it, "cycles"), num(o, "cycles"), num(it, "busy_cycles"), num(o, "busy_cycles"),
                       num(it, "conflict_beats"), num(o, "conflict_beats")};
            if (v.a != v.b || v.ba != v.bb || v.ca != v.cb) m[nm++] = v;
        }
        for (const cJSON *it = lb ? lb->child : NULL; it; it = it->next)
            if (!get(la, it->string))
                m[nm++] = (Moved){it->string, 0, num(it, "cycles"), 0, num(it, "busy_cycles"), 0,
                                  num(it, "conflict_beats")};
        qsort(m, nm, sizeof *m, cmp_moved);
        tb_put(&b, "per source line: where the cycles moved (all cores; busy = occupancy without stalls; span = end - "
                 "start as code_exe.csv, waits included)\n");
        tb_put(&b, "  %-32s %9s %9s %9s %9s %9s %9s\n", "line", "busy A", "busy B", "busy B-A", "beats B-A",
             "span A", "span B");
        if (!nm) tb_put(&b, "  no line changed\n");
        long long beats = 0;
        for (size_t i = 0; i < nm; i++) {
            tb_put(&b, "  %-32s %9lld %9lld %+9lld %+9lld %9lld %9lld\n", m[i].line, m[i].ba, m[i].bb, m[i].bb - m[i].ba,
                 m[i].cb - m[i].ca, m[i].a, m[i].b);
            moved += m[i].bb - m[i].ba;
            beats += m[i].cb - m[i].ca;
        }
        if (nm) tb_put(&b, "  %-32s %9s %9s %+9lld %+9lld\n", "sum over these lines", "", "", moved, beats);
    } else b.oom = true;
    asc_free(&a, m);
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    if (b.oom) {
        asc_free(&a, b.p);
        asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    return b.p;
}
