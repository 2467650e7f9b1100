/* test_trace.c -- the trace writer (run/trace.c) and the --report-dir CSVs
 * (run/report.c) on the shipped kernels.
 *
 * Structural test of the double-buffered vadd trace (docs/traces.md):
 * valid JSON (cJSON), msOpProf top-level keys and otherData, every X event
 * with pid/tid/ts/dur, every flow start with its end (same id and cat),
 * lanes in msOpProf order, events sorted by (cycle, pid, lane), and the
 * cycle args agreeing with the report (per-pipe busy cycles and instruction
 * counts, queue-full cycles, total cycles).  Also: same input -> the same
 * bytes; single-buffered stages never overlap while double-buffered ones
 * do; the reorder window stays small on a long run; no file is left
 * behind on an error; the CSV columns of msprof op simulator. */
#include <check.h>
#include <glob.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asc/asm.h"
#include "asc/json.h"
#include "asc/run.h"
#include "check_main.h"

/* ---- helpers --------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    ck_assert(b != NULL);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    b[n] = 0;
    if (len) *len = (size_t)n;
    return b;
}

static bool exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* Whether a temporary of `path` exists: DIR/.BASE.asc-tmp.* (asc/outfile.h). */
static bool has_tmp(const char *path)
{
    const char *sl = strrchr(path, '/');
    char pat[1200];
    snprintf(pat, sizeof pat, "%.*s.%s.asc-tmp.*", sl ? (int)(sl - path + 1) : 0, path, sl ? sl + 1 : path);
    glob_t g;
    bool any = glob(pat, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return any;
}

/* An allocator that records the peak of live bytes and can fail after N calls. */
typedef struct Meter {
    size_t live, peak;
    long fail_after; /* < 0: never */
} Meter;
static void *meter_alloc(void *ud, size_t n)
{
    Meter *m = ud;
    if (m->fail_after == 0) return NULL;
    if (m->fail_after > 0) m->fail_after--;
    size_t *p = malloc(n + sizeof(size_t) * 2);
    if (!p) return NULL;
    p[0] = n;
    m->live += n;
    if (m->live > m->peak) m->peak = m->live;
    return p + 2;
}
static void meter_free(void *ud, void *ptr)
{
    if (!ptr) return;
    size_t *p = (size_t *)ptr - 2;
    ((Meter *)ud)->live -= p[0];
    free(p);
}

typedef struct Run {
    AscConfig cfg;
    AscImage img;
    AscDiags d;
    AscSim *sim;
    char msg[4096];
} Run;

/* Assemble kernels/asm/<name>.s (file name as the CLI sees it from the
 * source dir), simulate it on n f16 elements (vadd family) with a trace to
 * `trace` (may be NULL). */
static AscSimStatus run_kernel(Run *r, const char *rel, uint64_t n, const char *trace, const AscAlloc *talloc,
                               bool *trace_ok, bool check_races)
{
    memset(r, 0, sizeof *r);
    asc_diags_init(&r->d, NULL);
    ck_assert(asc_config_builtin(&r->cfg, "ascend910b", &r->d));
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ASC_SOURCE_DIR, rel);
    size_t len;
    char *src = slurp(path, &len);
    ck_assert_msg(src != NULL, "%s", path);
    AscAsm *as = asc_asm_new(&(AscAsmDesc){.target = "ascend910b"});
    asc_image_init(&r->img, NULL);
    ck_assert_msg(asc_asm_string(as, rel, src, len, &r->img), "assembly of %s failed", rel);
    asc_asm_free(as);
    free(src);
    AscSimDesc sd = {.cfg = &r->cfg, .image = &r->img, .blocks = 1, .check_races = check_races};
    AscTrace *tr = NULL;
    if (trace) {
        tr = asc_trace_open(trace, talloc, &sd.observer, &r->d);
        ck_assert(tr != NULL);
    }
    r->sim = asc_sim_new(&sd, &r->d);
    ck_assert(r->sim != NULL);
    if (tr) asc_trace_bind(tr, r->sim);
    uint64_t a[3];
    for (int i = 0; i < 3; i++) ck_assert(asc_sim_gm_place(r->sim, n * 2, &a[i]));
    for (int i = 0; i < 3; i++) asc_sim_set_arg(r->sim, (uint32_t)i, a[i]);
    asc_sim_set_arg(r->sim, 3, n);
    AscSimStatus st = asc_sim_run(r->sim, 0);
    if (st == ASC_SIM_FAULT) asc_sim_fault_format(r->sim, r->msg, sizeof r->msg);
    if (tr) {
        bool ok = asc_trace_close(tr, st == ASC_SIM_DONE, &r->d);
        if (trace_ok) *trace_ok = ok;
        else ck_assert(ok);
    }
    return st;
}

static AscSimStatus run_vadd(Run *r, const char *name, uint64_t n, const char *trace, const AscAlloc *talloc,
                             bool *trace_ok)
{
    char rel[128];
    snprintf(rel, sizeof rel, "kernels/asm/%s.s", name);
    return run_kernel(r, rel, n, trace, talloc, trace_ok, false);
}

static void done(Run *r)
{
    asc_sim_free(r->sim);
    asc_image_free(&r->img);
    asc_diags_free(&r->d);
}

static void tmpname(char *buf, size_t n, const char *what)
{
    snprintf(buf, n, "%s/test_trace_%ld_%s", ASC_BINARY_DIR, (long)getpid(), what);
}

/* ---- a parsed trace ------------------------------------------------------- */

typedef struct Lane {
    int pid, tid, sort;
    char name[32];
} Lane;

typedef struct Parsed {
    cJSON *root, *events;
    Lane lanes[64];
    int nlanes;
} Parsed;

static void parse(Parsed *p, const char *path)
{
    memset(p, 0, sizeof *p);
    char *text = slurp(path, NULL);
    ck_assert_msg(text != NULL, "%s", path);
    p->root = cJSON_Parse(text);
    free(text);
    ck_assert_msg(p->root != NULL, "%s is not valid JSON", path);
    p->events = cJSON_GetObjectItemCaseSensitive(p->root, "traceEvents");
    ck_assert(cJSON_IsArray(p->events));
    cJSON *e;
    cJSON_ArrayForEach(e, p->events) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
        if (!name || strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph")), "M")) continue;
        int pid = cJSON_GetObjectItem(e, "pid")->valueint;
        cJSON *tid = cJSON_GetObjectItem(e, "tid"), *args = cJSON_GetObjectItem(e, "args");
        if (!strcmp(name, "thread_name") || !strcmp(name, "thread_sort_index")) {
            Lane *l = NULL;
            for (int i = 0; i < p->nlanes; i++)
                if (p->lanes[i].pid == pid && p->lanes[i].tid == tid->valueint) l = &p->lanes[i];
            if (!l) {
                ck_assert_int_lt(p->nlanes, 64);
                l = &p->lanes[p->nlanes++];
                l->pid = pid;
                l->tid = tid->valueint;
                l->sort = -1;
            }
            if (!strcmp(name, "thread_name"))
                snprintf(l->name, sizeof l->name, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(args, "name")));
            else l->sort = cJSON_GetObjectItem(args, "sort_index")->valueint;
        }
    }
}

static const Lane *lane_of(const Parsed *p, int pid, int tid)
{
    for (int i = 0; i < p->nlanes; i++)
        if (p->lanes[i].pid == pid && p->lanes[i].tid == tid) return &p->lanes[i];
    return NULL;
}

static const Lane *lane_named(const Parsed *p, int pid, const char *name)
{
    for (int i = 0; i < p->nlanes; i++)
        if (p->lanes[i].pid == pid && !strcmp(p->lanes[i].name, name)) return &p->lanes[i];
    return NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "missing number '%s'", key);
    return v->valuedouble;
}

static uint64_t u64(const cJSON *o, const char *key) { return (uint64_t)num(o, key); }

/* busy cycles of the X events of one lane (stall parts and QUEUE_FULL excluded) */
static uint64_t lane_busy(const Parsed *p, int pid, int tid, uint64_t *insns, uint64_t *qfull)
{
    uint64_t busy = 0;
    *insns = 0;
    if (qfull) *qfull = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, p->events) {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph")), "X")) continue;
        if ((int)num(e, "pid") != pid || (int)num(e, "tid") != tid) continue;
        cJSON *a = cJSON_GetObjectItem(e, "args");
        uint64_t s = u64(a, "start_cycle"), en = u64(a, "end_cycle"), st = u64(a, "stall_cycles");
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), "QUEUE_FULL")) {
            ck_assert_uint_eq(st, en - s);
            if (qfull) *qfull += st;
            continue;
        }
        busy += en - s - st;
        ++*insns;
    }
    return busy;
}

static const char *const msop_lanes[] = {"SCALAR", "FLOWCTRL", "MTE1", "CUBE", "FIXP", "MTE2", "VECTOR", "MTE3"};

/* ---- the structural test --------------------------------------------------- */

static void check_structure(const char *kernel, uint64_t n)
{
    char path[512];
    tmpname(path, sizeof path, "struct.json");
    Run r;
    ck_assert_msg(run_vadd(&r, kernel, n, path, NULL, NULL) == ASC_SIM_DONE, "%s", r.msg);
    Parsed p;
    parse(&p, path);

    /* top level: msOpProf's keys and our otherData */
    ck_assert_int_eq((int)num(p.root, "schemaVersion"), 2);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p.root, "displayTimeUnit")), "ns");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p.root, "profilingType")), "op");
    cJSON *od = cJSON_GetObjectItem(p.root, "otherData");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(od, "tool")), "asc-sim");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(od, "target")), "ascend910b");
    ck_assert_uint_eq(u64(od, "clock_mhz"), 1850);
    ck_assert_uint_eq(u64(od, "total_cycles"), asc_sim_cycles(r.sim));
    ck_assert_uint_eq(u64(od, "reorder_overflows"), 0);

    /* processes and lanes: core0.veccore0 at pid 2 (core*3+2), lanes in msOpProf order */
    int pid = -1;
    cJSON *e;
    cJSON_ArrayForEach(e, p.events) {
        const char *nm = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
        if (nm && !strcmp(nm, "process_name") &&
            !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "name")), "core0.veccore0"))
            pid = (int)num(e, "pid");
    }
    ck_assert_int_eq(pid, 2);
    ck_assert_int_eq(p.nlanes, 4);
    for (int i = 0; i < p.nlanes; i++) {
        const Lane *l = &p.lanes[i];
        ck_assert_int_eq(l->sort, l->tid);
        bool known = false;
        for (int k = 0; k < 8; k++)
            if (!strcmp(l->name, msop_lanes[k])) {
                known = true;
                ck_assert_int_eq(l->sort, k + 1);
            }
        ck_assert_msg(known, "lane %s", l->name);
        if (i) ck_assert_int_lt(p.lanes[i - 1].sort, l->sort); /* written in order */
    }

    /* every event: required fields; sorted by (ts, pid, lane); flows paired */
    double last_ts = -1;
    int last_pid = -1, last_lane = -1, nflow_s = 0, nflow_t = 0, nx = 0, nfly = 0;
    char sids[512][24], scat[512][32], tids_[512][24], tcat[512][32];
    cJSON_ArrayForEach(e, p.events) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph"));
        ck_assert(ph != NULL);
        if (!strcmp(ph, "M")) {
            ck_assert_int_eq(nx + nflow_s + nflow_t, 0); /* metadata first */
            continue;
        }
        double ts = num(e, "ts");
        int epid = (int)num(e, "pid"), lane = 0;
        if (!strcmp(ph, "X")) {
            nx++;
            ck_assert(num(e, "dur") >= 0);
            lane = (int)num(e, "tid");
            ck_assert_msg(lane_of(&p, epid, lane) != NULL, "X on an undeclared lane");
            cJSON *a = cJSON_GetObjectItem(e, "args");
            ck_assert(cJSON_IsObject(a));
            const char *keys[] = {"pc", "instr", "source", "stall"};
            for (int k = 0; k < 4; k++) ck_assert(cJSON_IsString(cJSON_GetObjectItem(a, keys[k])));
            ck_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(a, "source")), ".s:") != NULL);
            uint64_t s = u64(a, "start_cycle"), en = u64(a, "end_cycle");
            ck_assert_uint_le(s, en);
            (void)u64(a, "bytes");
            (void)u64(a, "bank_conflict_beats");
            /* ts = start / MHz, to the printed micro-microsecond */
            ck_assert_msg(ts * 1850 <= (double)s + 1e-3 && ts * 1850 > (double)s - 0.01, "ts %f vs cycle %llu", ts,
                          (unsigned long long)s);
        } else if (!strcmp(ph, "s") || !strcmp(ph, "t")) {
            lane = (int)num(e, "tid");
            const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(e, "id"));
            const char *cat = cJSON_GetStringValue(cJSON_GetObjectItem(e, "cat"));
            ck_assert(id && cat && !strncmp(id, "intra_", 6) && strstr(cat, "To"));
            if (ph[0] == 's') {
                ck_assert_int_lt(nflow_s, 512);
                snprintf(sids[nflow_s], 24, "%s", id);
                snprintf(scat[nflow_s++], 32, "%s", cat);
                /* the start lane is the cat's source */
                const Lane *src = lane_of(&p, epid, lane);
                ck_assert_ptr_nonnull(src);
                ck_assert(!strncmp(cat, src->name, strlen(src->name)));
            } else {
                ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "bp")), "e");
                ck_assert_int_lt(nflow_t, 512);
                snprintf(tids_[nflow_t], 24, "%s", id);
                snprintf(tcat[nflow_t++], 32, "%s", cat);
                const char *dst = strstr(cat, "To") + 2;
                const Lane *dl = lane_of(&p, epid, lane);
                ck_assert_ptr_nonnull(dl);
                ck_assert_str_eq(dst, dl->name);
            }
        } else if (!strcmp(ph, "b") || !strcmp(ph, "e")) {
            /* a copy's in-flight span: "LANE in flight" on that lane, b before its e */
            lane = (int)num(e, "tid");
            const Lane *l = lane_of(&p, epid, lane);
            ck_assert_ptr_nonnull(l);
            char want[48];
            snprintf(want, sizeof want, "%s in flight", l->name);
            ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), want);
            ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "cat")), "in_flight");
            nfly += ph[0] == 'b' ? 1 : -1;
            ck_assert_int_ge(nfly, 0);
        } else {
            ck_assert_str_eq(ph, "C");
            const char *nm = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
            if (!strncmp(nm, "queue ", 6) || !strncmp(nm, "HBM contention ", 15)) {
                const Lane *l = lane_named(&p, epid, strrchr(nm, ' ') + 1);
                ck_assert_msg(l != NULL, "%s", nm);
                lane = l->tid;
            } else ck_assert_str_eq(nm, "HBM GB/s");
        }
        /* sorted: ts (cycle) first, then pid, then lane */
        ck_assert_msg(ts > last_ts || (ts == last_ts && (epid > last_pid || (epid == last_pid && lane >= last_lane))),
                      "event at ts %f (pid %d lane %d) after ts %f (pid %d lane %d)", ts, epid, lane, last_ts,
                      last_pid, last_lane);
        last_ts = ts, last_pid = epid, last_lane = lane;
    }
    ck_assert_int_gt(nx, 50);
    ck_assert_int_eq(nfly, 0); /* every in-flight span ends */
    ck_assert_int_gt(nflow_s, 4);
    ck_assert_int_eq(nflow_s, nflow_t); /* every start has its end, ids unique */
    for (int i = 0; i < nflow_s; i++) {
        int found = 0;
        for (int j = 0; j < nflow_t; j++)
            if (!strcmp(sids[i], tids_[j])) {
                found++;
                ck_assert_str_eq(scat[i], tcat[j]);
            }
        ck_assert_msg(found == 1, "flow %s has %d ends", sids[i], found);
        for (int j = 0; j < i; j++) ck_assert_str_ne(sids[i], sids[j]);
    }

    /* the cycle args agree with the report */
    char *json = asc_sim_report_json(r.sim);
    cJSON *rep = cJSON_Parse(json);
    ck_assert(rep != NULL);
    ck_assert_uint_eq(u64(rep, "total_cycles"), u64(od, "total_cycles"));
    cJSON *pipes = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(rep, "per_core"), 0), "pipes");
    ck_assert(pipes != NULL);
    uint64_t total_insns = 0;
    for (int i = 0; i < p.nlanes; i++) {
        const Lane *l = &p.lanes[i];
        cJSON *ps = cJSON_GetObjectItem(pipes, l->name);
        ck_assert_msg(ps != NULL, "report lacks %s", l->name);
        uint64_t insns, qfull;
        uint64_t busy = lane_busy(&p, pid, l->tid, &insns, &qfull);
        ck_assert_msg(busy == u64(ps, "busy_cycles"), "%s busy: trace %llu, report %llu", l->name,
                      (unsigned long long)busy, (unsigned long long)u64(ps, "busy_cycles"));
        ck_assert_uint_eq(insns, u64(ps, "insns"));
        total_insns += insns;
        if (!strcmp(l->name, "SCALAR")) ck_assert_uint_eq(qfull, u64(ps, "queue_full_cycles"));
    }
    ck_assert_uint_eq(total_insns, asc_sim_insns(r.sim));
    cJSON_Delete(rep);
    free(json);
    cJSON_Delete(p.root);
    remove(path);
    done(&r);
}

/* asc_json_quote writes printable ASCII without '"' or '\\' itself (isa/json.c's fast path):
 * the same bytes as cJSON's own quoting, for every byte value placed alone, inside a word and
 * at the end of a report-like text (the other bytes take cJSON's path and are compared too). */
START_TEST(json_quote_matches_cjson)
{
    char s[200];
    for (int c = 1; c < 256; c++)
        for (int k = 0; k < 3; k++) {
            if (k == 0) snprintf(s, sizeof s, "%c", c);
            else if (k == 1) snprintf(s, sizeof s, "ab%ccd", c);
            else snprintf(s, sizeof s, "core 0 S pc 0x%02x `vadd.f32 x1, x2` (f.py:3)%c", c, c);
            bool utf8 = asc_utf8_valid(s);
            cJSON *j = cJSON_CreateString(s);
            char *ref = cJSON_PrintUnformatted(j), *got = asc_json_quote(s, NULL);
            ck_assert_ptr_nonnull(got);
            if (utf8) ck_assert_str_eq(got, ref); /* invalid bytes become U+FFFD, tested by fuzz_json */
            cJSON_Delete(j);
            free(ref);
            free(got);
        }
    /* asc_json_plain (the shortcut's test, eight bytes at a time): the first byte JSON changes,
     * at every offset in and across the words */
    for (int c = 1; c < 256; c++)
        for (int at = 0; at < 20; at++) {
            memset(s, 'a', (size_t)at);
            s[at] = (char)c;
            snprintf(s + at + 1, sizeof s - (size_t)at - 1, "tail of it");
            bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
            ck_assert_uint_eq(asc_json_plain(s), plain ? strlen(s) : (size_t)at);
        }
}
END_TEST

START_TEST(double_buffered_structure) { check_structure("vadd_double", 16384); }
END_TEST

START_TEST(single_buffered_structure) { check_structure("vadd_single", 16384); }
END_TEST

START_TEST(bank_conflict_structure) { check_structure("vadd_bank_conflict", 8192); }
END_TEST

/* Do busy (non-stall, non-flag) X events of two of MTE2/VECTOR/MTE3 overlap in cycles? */
static int overlapping_pairs(const char *kernel)
{
    char path[512];
    tmpname(path, sizeof path, "ovl.json");
    Run r;
    ck_assert(run_vadd(&r, kernel, 16384, path, NULL, NULL) == ASC_SIM_DONE);
    Parsed p;
    parse(&p, path);
    uint64_t iv[3][256][2];
    int cnt[3] = {0, 0, 0};
    const char *names[3] = {"MTE2", "VECTOR", "MTE3"};
    cJSON *e;
    cJSON_ArrayForEach(e, p.events) {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph")), "X")) continue;
        const char *nm = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
        if (!strcmp(nm, "SET_FLAG") || !strcmp(nm, "WAIT_FLAG")) continue;
        const Lane *l = lane_of(&p, (int)num(e, "pid"), (int)num(e, "tid"));
        for (int k = 0; k < 3; k++)
            if (!strcmp(l->name, names[k])) {
                cJSON *a = cJSON_GetObjectItem(e, "args");
                ck_assert_int_lt(cnt[k], 256);
                iv[k][cnt[k]][0] = u64(a, "start_cycle");
                iv[k][cnt[k]++][1] = u64(a, "end_cycle");
            }
    }
    int pairs = 0;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            for (int i = 0; i < cnt[a]; i++)
                for (int j = 0; j < cnt[b]; j++)
                    if (iv[a][i][0] < iv[b][j][1] && iv[b][j][0] < iv[a][i][1]) pairs++;
    cJSON_Delete(p.root);
    remove(path);
    done(&r);
    return pairs;
}

START_TEST(double_buffering_overlaps_single_does_not)
{
    ck_assert_int_gt(overlapping_pairs("vadd_double"), 0);
    ck_assert_int_eq(overlapping_pairs("vadd_single"), 0);
}
END_TEST

START_TEST(byte_identical)
{
    char a[512], b[512];
    tmpname(a, sizeof a, "a.json");
    tmpname(b, sizeof b, "b.json");
    Run r;
    ck_assert(run_vadd(&r, "vadd_double", 16384, a, NULL, NULL) == ASC_SIM_DONE);
    done(&r);
    ck_assert(run_vadd(&r, "vadd_double", 16384, b, NULL, NULL) == ASC_SIM_DONE);
    done(&r);
    size_t na, nb;
    char *ta = slurp(a, &na), *tb = slurp(b, &nb);
    ck_assert(ta && tb);
    ck_assert_uint_eq(na, nb);
    ck_assert(memcmp(ta, tb, na) == 0);
    free(ta), free(tb);
    remove(a), remove(b);
}
END_TEST

/* A long run: the trace's memory (the reorder window) does not grow with it. */
START_TEST(bounded_memory)
{
    char path[512];
    tmpname(path, sizeof path, "long.json");
    Meter m = {.fail_after = -1};
    AscAlloc al = {meter_alloc, meter_free, &m};
    Run r;
    ck_assert(run_vadd(&r, "vadd_double", 1u << 21, path, &al, NULL) == ASC_SIM_DONE); /* 256 tile pairs */
    size_t len;
    char *text = slurp(path, &len);
    ck_assert(text != NULL);
    size_t nev = 0;
    for (const char *q = text; (q = strstr(q, "\"ph\":")) != NULL; q++) nev++;
    free(text);
    ck_assert_uint_gt(nev, 30000);
    /* the heap starts at 4096 events and never needs to grow here: the
     * window holds the events of one DMA's time, not of the run */
    ck_assert_msg(m.peak < 1u << 20, "trace peak %zu bytes for %zu events", m.peak, nev);
    ck_assert_uint_eq(m.live, 0);
    remove(path);
    done(&r);
}
END_TEST

/* ---- in-flight spans: where the data lands ---------------------------------- */

static const char *sval(const cJSON *o, const char *key) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, key)); }

/* The in-flight span ("b" and its "e") that starts where the X event x ends
 * on its lane; checks it is the only one, that its args and its "e" agree,
 * and returns its end cycle (0: none). */
static uint64_t flight_of(const Parsed *p, const cJSON *x, uint64_t mhz)
{
    const cJSON *xa = cJSON_GetObjectItem(x, "args");
    int pid = (int)num(x, "pid"), tid = (int)num(x, "tid");
    uint64_t end = u64(xa, "end_cycle"), to = 0;
    int found = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, p->events) {
        if (strcmp(sval(e, "ph"), "b") || (int)num(e, "pid") != pid || (int)num(e, "tid") != tid) continue;
        const cJSON *a = cJSON_GetObjectItem(e, "args");
        if (u64(a, "start_cycle") != end || strcmp(sval(a, "pc"), sval(xa, "pc"))) continue;
        found++;
        to = u64(a, "end_cycle");
        ck_assert_str_eq(sval(a, "instr"), sval(x, "name"));
        /* its "e": same id, at the printed time of the end cycle */
        int ends = 0;
        const cJSON *f;
        cJSON_ArrayForEach(f, p->events) {
            if (strcmp(sval(f, "ph"), "e") || strcmp(sval(f, "id"), sval(e, "id"))) continue;
            ends++;
            uint64_t us6 = to / mhz * 1000000u + to % mhz * 1000000u / mhz;
            ck_assert_uint_eq((uint64_t)llround(num(f, "ts") * 1e6), us6);
        }
        ck_assert_int_eq(ends, 1);
    }
    ck_assert_int_le(found, 1);
    return to;
}

/* Issue 13 acceptance: in the double-buffered vadd every GM read has an
 * in-flight span from its occupancy end to where its data lands: its
 * done_cycle, end + dma.gm_read_latency (no HBM contention on one core),
 * and the cycle the SET_FLAG after it sets its flag (the flag waits for
 * every earlier copy of the pipe to land: docs/timing.md §Pipes). */
START_TEST(in_flight_spans_end_where_data_lands)
{
    char path[512];
    tmpname(path, sizeof path, "flight.json");
    Run r;
    ck_assert_msg(run_vadd(&r, "vadd_double", 16384, path, NULL, NULL) == ASC_SIM_DONE, "%s", r.msg);
    Parsed p;
    parse(&p, path);
    uint64_t lat = (uint64_t)r.cfg.v[ASC_KEY_GM_READ_LATENCY], mhz = (uint64_t)r.cfg.v[ASC_KEY_CLOCK_MHZ];
    uint64_t landed = 0; /* latest landing of the MTE2 copies since the last MTE2 SET_FLAG */
    int reads = 0, sets = 0, writes = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, p.events) {
        if (strcmp(sval(e, "ph"), "X")) continue;
        const cJSON *a = cJSON_GetObjectItem(e, "args");
        const char *nm = sval(e, "name");
        if (!strcmp(nm, "mov_out_to_ub")) {
            uint64_t to = flight_of(&p, e, mhz);
            ck_assert_msg(to != 0, "GM read at cycle %llu has no in-flight span", (unsigned long long)u64(a, "start_cycle"));
            ck_assert_uint_eq(to, u64(a, "done_cycle"));
            ck_assert_uint_eq(to, u64(a, "end_cycle") + lat);
            if (to > landed) landed = to;
            reads++;
        } else if (!strcmp(nm, "mov_ub_to_out")) {
            ck_assert_uint_eq(flight_of(&p, e, mhz), u64(a, "done_cycle"));
            writes++;
        } else if (!strcmp(nm, "SET_FLAG") && (int)num(e, "tid") == 6 && landed) {
            /* set_flag mte2, v: set when the last read before it landed */
            uint64_t ready = u64(a, "start_cycle") + (uint64_t)r.cfg.v[ASC_KEY_LAT_SYNC];
            ck_assert_uint_eq(u64(a, "done_cycle"), landed > ready ? landed : ready);
            landed = 0;
            sets++;
        } else {
            ck_assert_uint_eq(flight_of(&p, e, mhz), 0); /* only copies are in flight */
        }
    }
    /* 16384 f16 in tiles of 8 KiB: 4 tiles, each an x and a y read, one store, one "landed" set */
    ck_assert_int_eq(reads, 8);
    ck_assert_int_eq(writes, 4);
    ck_assert_int_eq(sets, 4);
    cJSON_Delete(p.root);
    remove(path);
    done(&r);
}
END_TEST

/* A race report and the trace give the same cycles for the same access:
 * the report's start is the X event's start_cycle, its done the end of the
 * in-flight span for a copy (the X event's end for the others).  Checked on
 * lab 2's kernel (the pong half's "landed" wait missing). */
START_TEST(race_cycles_match_trace)
{
    char path[512];
    tmpname(path, sizeof path, "race.json");
    Run r;
    ck_assert_msg(run_kernel(&r, "kernels/labs/lab2_race.s", 65536, path, NULL, NULL, true) == ASC_SIM_DONE, "%s",
                  r.msg);
    Parsed p;
    parse(&p, path);
    uint64_t mhz = (uint64_t)r.cfg.v[ASC_KEY_CLOCK_MHZ];
    const AscSimRace *races;
    uint32_t nr;
    ck_assert_uint_gt(asc_sim_races(r.sim, &races, &nr), 0);
    ck_assert_uint_gt(nr, 0);
    int checked = 0;
    for (uint32_t i = 0; i < nr; i++) {
        const AscSimRace *rc = &races[i];
        struct { uint32_t pc; uint64_t start, done; } side[2] = {{rc->pc, rc->start_cycle, rc->done_cycle},
                                                                {rc->prev_pc, rc->prev_start_cycle, rc->prev_done_cycle}};
        for (int k = 0; k < 2; k++) {
            char pc[16];
            snprintf(pc, sizeof pc, "0x%04x", side[k].pc);
            int found = 0;
            const cJSON *e;
            cJSON_ArrayForEach(e, p.events) {
                if (strcmp(sval(e, "ph"), "X")) continue;
                const cJSON *a = cJSON_GetObjectItem(e, "args");
                if (strcmp(sval(a, "pc"), pc) || u64(a, "start_cycle") != side[k].start) continue;
                found++;
                uint64_t to = flight_of(&p, e, mhz);
                ck_assert_uint_eq(to ? to : u64(a, "end_cycle"), side[k].done);
            }
            ck_assert_msg(found == 1, "race %u side %d (pc %s, cycle %llu): %d X events", i, k, pc,
                          (unsigned long long)side[k].start, found);
            checked++;
        }
    }
    ck_assert_int_ge(checked, 4);
    cJSON_Delete(p.root);
    remove(path);
    done(&r);
}
END_TEST

START_TEST(errors_leave_no_file)
{
    AscDiags d;
    asc_diags_init(&d, NULL);
    AscSimObserver obs = {0};
    /* a directory that does not exist */
    char bad[600];
    tmpname(bad, sizeof bad, "nodir/t.json");
    ck_assert(asc_trace_open(bad, NULL, &obs, &d) == NULL);
    ck_assert_uint_eq(d.count, 1);
    ck_assert_int_eq(d.items[0].id, ASC_DIAG_IO);
    asc_diags_free(&d);

    /* a run that is not kept: neither the file nor its .tmp */
    char path[512];
    tmpname(path, sizeof path, "gone.json");
    asc_diags_init(&d, NULL);
    AscTrace *t = asc_trace_open(path, NULL, &obs, &d);
    ck_assert(t != NULL);
    ck_assert(has_tmp(path));
    ck_assert(asc_trace_close(t, false, &d));
    ck_assert(!has_tmp(path) && !exists(path));

    /* out of memory while tracing: close fails with OOM, nothing left */
    for (long k = 0; k < 6; k++) {
        Meter m = {.fail_after = k};
        AscAlloc al = {meter_alloc, meter_free, &m};
        Run r;
        bool ok = true;
        AscTrace *probe = asc_trace_open(path, &al, &obs, &d);
        if (!probe) { /* the first allocation failed: reported, no file */
            ck_assert(!has_tmp(path) && !exists(path));
            continue;
        }
        asc_trace_close(probe, false, NULL);
        m.fail_after = k;
        ck_assert(run_vadd(&r, "vadd_double", 16384, path, &al, &ok) == ASC_SIM_DONE);
        if (!ok) {
            ck_assert(!has_tmp(path) && !exists(path));
            ck_assert_int_eq(r.d.items[r.d.count - 1].id, ASC_DIAG_OOM);
        } else remove(path);
        ck_assert_uint_eq(m.live, 0);
        done(&r);
    }
    asc_diags_free(&d);
}
END_TEST

/* ---- --report-dir ------------------------------------------------------------ */

START_TEST(report_dir_csvs)
{
    char dir[512], path[700];
    tmpname(dir, sizeof dir, "rep");
    Run r;
    ck_assert(run_vadd(&r, "vadd_double", 16384, NULL, NULL, NULL) == ASC_SIM_DONE);
    ck_assert(asc_sim_report_dir(r.sim, dir, &r.d)); /* creates the directory */

    snprintf(path, sizeof path, "%s/core0.veccore0_instr_exe.csv", dir);
    char *csv = slurp(path, NULL);
    ck_assert(csv != NULL);
    ck_assert(!strncmp(csv, "instr,addr,pipe,call_count,cycles,running_time(us),detail\n", 58));
    uint64_t calls = 0, cycles = 0;
    int rows = 0;
    bool saw_vadd = false, saw_set = false;
    for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        char instr[64], pipe[16];
        unsigned addr;
        unsigned long long cc, cy;
        double us;
        ck_assert_msg(sscanf(line, "%63[^,],0x%x,%15[^,],%llu,%llu,%lf,", instr, &addr, pipe, &cc, &cy, &us) == 6,
                      "%.80s", line);
        ck_assert_msg(us * 1850 <= cy + 1e-3 && us * 1850 > cy - 0.01, "%.80s", line);
        if (!strcmp(instr, "vadd.f16")) {
            saw_vadd = true;
            ck_assert_str_eq(pipe, "VECTOR");
        }
        if (!strcmp(instr, "SET_FLAG")) saw_set = true;
        calls += cc, cycles += cy, rows++;
        ck_assert(strstr(line, "vadd_double.s:") != NULL && strchr(line, '\n'));
    }
    ck_assert(saw_vadd && saw_set);
    ck_assert_uint_eq(calls, asc_sim_insns(r.sim));
    free(csv);

    snprintf(path, sizeof path, "%s/core0.veccore0_code_exe.csv", dir);
    csv = slurp(path, NULL);
    ck_assert(csv != NULL);
    ck_assert(!strncmp(csv, "code,call_count,cycles,running_time(us)\n", 40));
    uint64_t calls2 = 0, cycles2 = 0;
    for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        char code[200];
        unsigned long long cc, cy;
        ck_assert(sscanf(line, "%199[^,],%llu,%llu,", code, &cc, &cy) == 3);
        ck_assert(strstr(code, "kernels/asm/vadd_double.s:") == code);
        calls2 += cc, cycles2 += cy;
    }
    ck_assert_uint_eq(calls2, calls);
    ck_assert_uint_eq(cycles2, cycles);
    free(csv);

    snprintf(path, sizeof path, "%s/summary.json", dir);
    csv = slurp(path, NULL);
    char *json = asc_sim_report_json(r.sim);
    ck_assert_str_eq(csv, json);
    free(csv), free(json);
    for (const char *f = "core0.veccore0_instr_exe.csv\0core0.veccore0_code_exe.csv\0summary.json\0"; *f;
         f += strlen(f) + 1) {
        snprintf(path, sizeof path, "%s/%s", dir, f);
        remove(path);
    }
    rmdir(dir);
    /* a directory that cannot be created: IO error */
    snprintf(path, sizeof path, "%s/no/such", dir);
    ck_assert(!asc_sim_report_dir(r.sim, path, &r.d));
    ck_assert_int_eq(r.d.items[r.d.count - 1].id, ASC_DIAG_IO);
    done(&r);
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("trace");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, double_buffered_structure);
    tcase_add_test(tc, single_buffered_structure);
    tcase_add_test(tc, bank_conflict_structure);
    tcase_add_test(tc, double_buffering_overlaps_single_does_not);
    tcase_add_test(tc, byte_identical);
    tcase_add_test(tc, bounded_memory);
    tcase_add_test(tc, in_flight_spans_end_where_data_lands);
    tcase_add_test(tc, race_cycles_match_trace);
    tcase_add_test(tc, errors_leave_no_file);
    tcase_add_test(tc, report_dir_csvs);
    tcase_add_test(tc, json_quote_matches_cjson);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return asc_check_run(trace_suite());
}
