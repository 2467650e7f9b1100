/* test_viz_model.c -- the headless asc-viz model, without SDL.
 *
 * Fixtures live in tests/viz/: ours.json is a small double-buffered vadd in
 * the asc-sim/msOpProf layout (clock 1000 MHz so cycles = ts * 1000),
 * chrome_array.json a generic Chrome trace (array form, int pids, B/E). */
#include "asc/viz.h"
#include "check_main.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX(name) ASC_SOURCE_DIR "/tests/viz/" name

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    ck_assert(fread(b, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    b[len] = 0;
    *n = (size_t)len;
    return b;
}

static AscVizModel *load_ok(const char *path, double mhz)
{
    AscVizModel *m = NULL;
    AscVizError err;
    AscVizLoadDesc d = {.mhz = mhz};
    int rc = asc_viz_model_load_file(&m, path, &d, &err);
    ck_assert_msg(rc == 0, "load %s: %s (offset %lld)", path, err.msg, (long long)err.offset);
    return m;
}

/* deterministic generator: no global state */
static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static int64_t find_event(const AscVizModel *m, int row, const char *name, double t0)
{
    AscVizRowInfo ri = asc_viz_model_row(m, (uint32_t)row);
    for (uint32_t i = ri.first; i < ri.first + ri.count; i++) {
        const AscVizEvent *e = asc_viz_model_event(m, i);
        if (!strcmp(asc_viz_model_str(m, e->name), name) && fabs(e->t0_us - t0) < 1e-9) return i;
    }
    return -1;
}

/* ---- our format ---- */

START_TEST(test_ours_rows)
{
    AscVizModel *m = load_ok(FIX("ours.json"), 0);
    ck_assert_double_eq(asc_viz_model_mhz(m), 1000);
    ck_assert_uint_eq(asc_viz_model_row_count(m), 5);
    /* chip shows too: it has a counter track (HBM GB/s) but no lanes */
    ck_assert_uint_eq(asc_viz_model_process_count(m), 3);
    ck_assert_str_eq(asc_viz_model_process_name(m, 2), "chip");
    static const char *const want[][2] = {{"core0.cubecore0", "CUBE"}, {"core0.veccore0", "SCALAR"},
                                          {"core0.veccore0", "MTE2"},  {"core0.veccore0", "VECTOR"},
                                          {"core0.veccore0", "MTE3"}};
    for (uint32_t r = 0; r < 5; r++) {
        AscVizRowInfo ri = asc_viz_model_row(m, r);
        ck_assert_str_eq(ri.process, want[r][0]);
        ck_assert_str_eq(ri.lane, want[r][1]);
        ck_assert_int_eq(asc_viz_model_find_row(m, want[r][0], want[r][1]), (int)r);
    }
    ck_assert_int_eq(asc_viz_model_find_row(m, "core0.cubecore0", "MTE1"), -1); /* empty lane dropped */
    ck_assert_uint_eq(asc_viz_model_event_count(m), 20);
    ck_assert_uint_eq(asc_viz_model_flow_count(m), 4);
    double t0, t1;
    asc_viz_model_span(m, &t0, &t1);
    ck_assert_double_eq_tol(t0, 0, 1e-12);
    ck_assert_double_eq_tol(t1, 0.3, 1e-12);
    /* per-row events sorted by start; cycles exact */
    for (uint32_t r = 0; r < 5; r++) {
        AscVizRowInfo ri = asc_viz_model_row(m, r);
        for (uint32_t i = ri.first + 1; i < ri.first + ri.count; i++)
            ck_assert(asc_viz_model_event(m, i - 1)->t0_us <= asc_viz_model_event(m, i)->t0_us);
    }
    int vec = asc_viz_model_find_row(m, "core0.veccore0", "VECTOR");
    int64_t va = find_event(m, vec, "vadd.f16", 0.101);
    ck_assert_int_ge(va, 0);
    const AscVizEvent *e = asc_viz_model_event(m, (uint32_t)va);
    ck_assert(e->flags & ASC_VIZ_EV_CYCLES);
    ck_assert(e->flags & ASC_VIZ_EV_BANK);
    ck_assert(!(e->flags & ASC_VIZ_EV_STALL));
    ck_assert_int_eq(e->c0, 101);
    ck_assert_int_eq(e->c1, 150);
    ck_assert_uint_eq(e->rgb, 0xEE8888); /* cq_build_failed */
    int64_t w = find_event(m, vec, "WAIT_FLAG", 0);
    ck_assert(asc_viz_model_event(m, (uint32_t)w)->flags & ASC_VIZ_EV_STALL);
    ck_assert(asc_viz_model_event(m, (uint32_t)w)->flags & ASC_VIZ_EV_WAITFLAG);
    asc_viz_model_free(m);
}
END_TEST

START_TEST(test_ours_args_hit_util)
{
    AscVizModel *m = load_ok(FIX("ours.json"), 0);
    int vec = asc_viz_model_find_row(m, "core0.veccore0", "VECTOR");
    int64_t h = asc_viz_model_hit(m, (uint32_t)vec, 0.120, 0);
    ck_assert_int_ge(h, 0);
    ck_assert_str_eq(asc_viz_model_str(m, asc_viz_model_event(m, (uint32_t)h)->name), "vadd.f16");
    AscVizEventArgs a;
    ck_assert_int_eq(asc_viz_model_event_args(m, (uint32_t)h, &a), 0);
    ck_assert_str_eq(a.instr, "vadd.f16 x5, x6, x7");
    ck_assert_str_eq(a.pc, "0x0024");
    ck_assert_str_eq(a.source, "vadd_db.s:21");
    ck_assert_int_eq(a.bank_conflict_beats, 2);
    ck_assert_int_eq(a.bytes, -1);
    /* nothing under t, nearest within tolerance */
    int mte3 = asc_viz_model_find_row(m, "core0.veccore0", "MTE3");
    ck_assert_int_eq(asc_viz_model_hit(m, (uint32_t)mte3, 0.5, 0.01), -1);
    ck_assert_int_ge(asc_viz_model_hit(m, (uint32_t)mte3, 0.305, 0.01), 0);
    /* VECTOR: vadd 49 + set 1 + vadd 49 + set 1 = 100 cycles busy of 300 */
    ck_assert_double_eq_tol(asc_viz_model_utilisation(m, (uint32_t)vec, 0, 0.3), 1.0 / 3, 1e-9);
    ck_assert_double_eq_tol(asc_viz_model_busy(m, (uint32_t)vec, 0, 0.3, true), 0.151, 1e-9);
    ck_assert_double_eq_tol(asc_viz_model_utilisation(m, (uint32_t)vec, 0.101, 0.150), 1, 1e-9);
    ck_assert_double_eq_tol(asc_viz_model_utilisation(m, (uint32_t)vec, 0.125, 0.175), 0.52, 1e-9);
    int cube = asc_viz_model_find_row(m, "core0.cubecore0", "CUBE");
    ck_assert_double_eq_tol(asc_viz_model_utilisation(m, (uint32_t)cube, 0, 0.3), 1, 1e-9);
    asc_viz_model_free(m);
}
END_TEST

START_TEST(test_ours_flows_deps)
{
    AscVizModel *m = load_ok(FIX("ours.json"), 0);
    int mte2 = asc_viz_model_find_row(m, "core0.veccore0", "MTE2");
    int vec = asc_viz_model_find_row(m, "core0.veccore0", "VECTOR");
    int n_m2v = 0;
    for (uint32_t i = 0; i < asc_viz_model_flow_count(m); i++) {
        const AscVizFlow *f = asc_viz_model_flow(m, i);
        if (f->row_s == (uint32_t)mte2) {
            ck_assert_uint_eq(f->row_t, (uint32_t)vec);
            ck_assert_str_eq(asc_viz_model_str(m, f->cat), "MTE2ToVECTOR");
            n_m2v++;
        }
    }
    ck_assert_int_eq(n_m2v, 2);
    /* the second vadd waited (WAIT_FLAG 151-201) for MTE2's SET_FLAG at 200,
     * issued after the mov_out_to_ub 100-200 */
    int64_t va = find_event(m, vec, "vadd.f16", 0.201);
    AscVizDeps d = asc_viz_model_deps(m, (uint32_t)va);
    ck_assert_int_ge(d.flow, 0);
    ck_assert_int_eq(d.wait, find_event(m, vec, "WAIT_FLAG", 0.151));
    ck_assert_int_eq(d.set, find_event(m, mte2, "SET_FLAG", 0.200));
    ck_assert_int_eq(d.producer, find_event(m, mte2, "mov_out_to_ub", 0.100));
    /* the first vadd: flag 0 */
    d = asc_viz_model_deps(m, (uint32_t)find_event(m, vec, "vadd.f16", 0.101));
    ck_assert_int_eq(d.set, find_event(m, mte2, "SET_FLAG", 0.100));
    ck_assert_int_eq(d.producer, find_event(m, mte2, "mov_out_to_ub", 0));
    /* an MTE2 event waits for nothing */
    d = asc_viz_model_deps(m, (uint32_t)find_event(m, mte2, "mov_out_to_ub", 0));
    ck_assert_int_eq(d.flow, -1);
    ck_assert_int_eq(d.set, -1);
    asc_viz_model_free(m);
}
END_TEST

START_TEST(test_search)
{
    AscVizModel *m = load_ok(FIX("ours.json"), 0);
    AscVizSearch s;
    ck_assert_int_eq(asc_viz_search_run(&s, m, "vadd"), 0);
    ck_assert_uint_eq(s.count, 2);
    ck_assert(asc_viz_model_event(m, s.items[0])->t0_us < asc_viz_model_event(m, s.items[1])->t0_us);
    ck_assert_int_eq(asc_viz_search_step(&s, m, 0.0, 1), 0);
    ck_assert_int_eq(asc_viz_search_step(&s, m, 0.101, 1), 1);
    ck_assert_int_eq(asc_viz_search_step(&s, m, 0.201, 1), 0); /* wraps */
    ck_assert_int_eq(asc_viz_search_step(&s, m, 0.101, -1), 1); /* wraps back */
    asc_viz_search_free(&s);
    ck_assert_int_eq(asc_viz_search_run(&s, m, "MOV_"), 0);
    ck_assert_uint_eq(s.count, 4);
    for (uint32_t i = 1; i < s.count; i++)
        ck_assert(asc_viz_model_event(m, s.items[i - 1])->t0_us <= asc_viz_model_event(m, s.items[i])->t0_us);
    asc_viz_search_free(&s);
    ck_assert_int_eq(asc_viz_search_run(&s, m, "nosuchop"), 0);
    ck_assert_uint_eq(s.count, 0);
    ck_assert_int_eq(asc_viz_search_step(&s, m, 0, 1), -1);
    asc_viz_search_free(&s);
    asc_viz_model_free(m);
}
END_TEST

/* ---- generic Chrome format ---- */

START_TEST(test_chrome_array)
{
    AscVizModel *m = load_ok(FIX("chrome_array.json"), 0);
    ck_assert_double_eq(asc_viz_model_mhz(m), 0);
    ck_assert_uint_eq(asc_viz_model_row_count(m), 3);
    /* numeric pid then numeric tid order */
    AscVizRowInfo r0 = asc_viz_model_row(m, 0), r1 = asc_viz_model_row(m, 1), r2 = asc_viz_model_row(m, 2);
    ck_assert_str_eq(r0.process, "1");
    ck_assert_str_eq(r0.lane, "1");
    ck_assert_str_eq(r1.lane, "2");
    ck_assert_str_eq(r2.process, "2");
    ck_assert_uint_eq(r1.count, 2); /* two B/E pairs */
    const AscVizEvent *outer = asc_viz_model_event(m, r1.first), *inner = asc_viz_model_event(m, r1.first + 1);
    ck_assert_str_eq(asc_viz_model_str(m, outer->name), "outer");
    ck_assert_double_eq(outer->t0_us, 0);
    ck_assert_double_eq(outer->t1_us, 5);
    ck_assert_uint_eq(outer->depth, 0);
    ck_assert_str_eq(asc_viz_model_str(m, inner->name), "inner");
    ck_assert_double_eq(inner->t1_us, 2);
    ck_assert_uint_eq(inner->depth, 1);
    /* innermost wins the hit test; union counts nesting once */
    ck_assert_int_eq(asc_viz_model_hit(m, 1, 1.5, 0), (int64_t)r1.first + 1);
    ck_assert_double_eq_tol(asc_viz_model_busy(m, 1, 0, 10, false), 5, 1e-12);
    asc_viz_model_free(m);
    /* --mhz gives a cycle axis */
    m = load_ok(FIX("chrome_array.json"), 100);
    ck_assert_double_eq(asc_viz_model_mhz(m), 100);
    asc_viz_model_free(m);
}
END_TEST

START_TEST(test_object_forms)
{
    static const char *const ok[] = {
        "{\"traceEvents\":[]}",
        "[]",
        " [ {\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":\"p\",\"tid\":3} ] \n",
        "{\"otherData\":{\"clock_mhz\":1850},\"traceEvents\":[{\"ph\":\"X\",\"ts\":1e-3,\"dur\":2E+1,\"pid\":0,\"tid\":-1,\"name\":\"a\\u00b5\\n\\\"\"}]}",
        "[{\"ph\":\"C\",\"ts\":1,\"pid\":1,\"name\":\"c\",\"args\":{\"v\":1}},{\"ph\":\"i\",\"ts\":1}]",
        "[{\"ph\":\"XY\",\"ts\":\"weird\"},{\"ph\":\"Q\"}]",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        AscVizModel *m = NULL;
        AscVizError err;
        int rc = asc_viz_model_load_mem(&m, ok[i], strlen(ok[i]), NULL, &err);
        ck_assert_msg(rc == 0, "case %zu: %s", i, err.msg);
        asc_viz_model_free(m);
    }
    AscVizModel *m = NULL;
    AscVizError err;
    ck_assert_int_eq(asc_viz_model_load_mem(&m, ok[3], strlen(ok[3]), NULL, &err), 0);
    ck_assert_double_eq(asc_viz_model_mhz(m), 1850);
    const AscVizEvent *e = asc_viz_model_event(m, 0);
    ck_assert_str_eq(asc_viz_model_str(m, e->name), "a\xc2\xb5\n\"");
    ck_assert_double_eq_tol(e->t0_us, 1e-3, 1e-15);
    ck_assert_double_eq_tol(e->t1_us, 20.001, 1e-12);
    asc_viz_model_free(m);
}
END_TEST

/* In-flight spans: a "b" pairs with the next "e" of the same (process, cat,
 * id) and is drawn on the b's lane; an unmatched b is dropped. */
START_TEST(test_async_spans)
{
    static const char js[] =
        "[{\"ph\":\"X\",\"ts\":0,\"dur\":1,\"pid\":2,\"tid\":6,\"name\":\"mov_out_to_ub\"},"
        "{\"ph\":\"b\",\"ts\":1,\"pid\":2,\"tid\":6,\"cat\":\"in_flight\",\"id\":\"f0\",\"name\":\"MTE2 in flight\","
        "\"args\":{\"start_cycle\":10,\"end_cycle\":50}},"
        "{\"ph\":\"b\",\"ts\":2,\"pid\":2,\"tid\":6,\"cat\":\"in_flight\",\"id\":\"f1\",\"name\":\"MTE2 in flight\"},"
        "{\"ph\":\"e\",\"ts\":5,\"pid\":2,\"tid\":6,\"cat\":\"in_flight\",\"id\":\"f0\"},"
        "{\"ph\":\"b\",\"ts\":3,\"pid\":2,\"tid\":6,\"cat\":\"in_flight\",\"id\":\"lost\"},"
        "{\"ph\":\"e\",\"ts\":6,\"pid\":2,\"tid\":6,\"cat\":\"in_flight\",\"id\":\"f1\"}]";
    AscVizModel *m = NULL;
    AscVizError err;
    ck_assert_msg(asc_viz_model_load_mem(&m, js, strlen(js), NULL, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(asc_viz_model_async_count(m), 2);
    uint32_t first, count;
    asc_viz_model_row_async(m, 0, &first, &count);
    ck_assert_uint_eq(first, 0);
    ck_assert_uint_eq(count, 2);
    const AscVizAsync *a = asc_viz_model_async(m, 0), *b = asc_viz_model_async(m, 1);
    ck_assert_double_eq(a->t0_us, 1);
    ck_assert_double_eq(a->t1_us, 5);
    ck_assert(a->cycles && a->c0 == 10 && a->c1 == 50);
    ck_assert_str_eq(asc_viz_model_str(m, a->name), "MTE2 in flight");
    ck_assert_double_eq(b->t0_us, 2);
    ck_assert_double_eq(b->t1_us, 6);
    ck_assert(!b->cycles);
    asc_viz_model_free(m);
}
END_TEST

/* ---- malformed input: every case rejected with its rule ---- */

typedef struct BadCase {
    const char *json, *msg;
    int64_t offset; /* -2 = don't check */
} BadCase;

static const BadCase bad_cases[] = {
    {"", "empty input", 0},
    {"   ", "empty input", 3},
    {"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}", "truncated JSON", 57},
    {"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\"", "truncated JSON", -2},
    {"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":\"co", "unexpected end of input while reading a string", -2},
    {"[{\"ph\":\"X\",\"ts\":1,\"pid\":1,\"tid\":1}]", "X event has no \"dur\"", 1},
    {"[{\"ph\":\"X\",\"dur\":1,\"pid\":1,\"tid\":1}]", "X event has no \"ts\"", 1},
    {"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"tid\":1}]", "X event has no \"pid\"", 1},
    {"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1}]", "X event has no \"tid\"", 1},
    {"[{\"ph\":\"X\",\"ts\":\"1\",\"dur\":1,\"pid\":1,\"tid\":1}]", "\"ts\" must be a number, got a string", 16},
    {"[{\"ph\":\"X\",\"ts\":1,\"dur\":true,\"pid\":1,\"tid\":1}]", "\"dur\" must be a number, got a boolean", -2},
    {"[{\"ph\":\"X\",\"ts\":1,\"dur\":-1,\"pid\":1,\"tid\":1}]", "\"dur\" must be >= 0", -2},
    {"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":[1],\"tid\":1}]", "\"pid\" must be a number or a string, got an array", -2},
    {"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":3}]", "\"args\" must be an object", -2},
    {"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":5}]", "\"name\" must be a string", -2},
    {"[{\"ph\":7}]", "\"ph\" must be a string", -2},
    {"[{\"ts\":1}]", "trace event has no \"ph\"", 1},
    {"[{\"ph\":\"B\",\"ts\":0,\"pid\":1,\"tid\":1}]", "never closed by an \"E\"", 1},
    {"[{\"ph\":\"E\",\"ts\":0,\"pid\":1,\"tid\":1}]", "an \"E\" event closes nothing", 1},
    {"[{\"ph\":\"B\",\"ts\":0,\"pid\":1,\"tid\":1},{\"ph\":\"E\",\"ts\":1,\"pid\":1,\"tid\":2}]", "unbalanced B/E", -2},
    {"[{\"ph\":\"s\",\"ts\":0,\"pid\":1,\"tid\":1}]", "flow event has no \"id\"", 1},
    {"[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{}}]", "process_name metadata needs args.name", -2},
    {"[{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":1,\"args\":{\"sort_index\":\"x\"}}]", "needs args.sort_index", -2},
    {"[1]", "each trace event must be a JSON object", 1},
    {"[{\"ph\":\"i\"}", "truncated JSON", 11},
    {"[]x", "unexpected data after the end", 2},
    {"{\"a\":1}", "no \"traceEvents\" array", 0},
    {"{\"traceEvents\":{}}", "\"traceEvents\" must be an array", 15},
    {"{\"traceEvents\":[],\"otherData\":{\"clock_mhz\":-5}}", "clock_mhz must be a positive number", -2},
    {"nope", "must start with '[' or '{'", 0},
    {"[{\"ph\":\"X\",\"ts\":01}]", "leading zeros", -2},
    {"[{\"ph\":\"X\",\"ts\":1.}]", "a digit must follow '.'", -2},
    {"[{\"ph\":\"X\",\"ts\":-}]", "a digit must follow '-'", -2},
    {"[{\"ph\":\"X\",\"ts\":1e}]", "exponent", -2},
    {"[{\"ph\":\"X\",\"ts\":1e999}]", "out of range", -2},
    {"[{\"ph\":\"X\\q\"}]", "invalid escape", -2},
    {"[{\"ph\":\"X\\u12G4\"}]", "invalid \\u escape", -2},
    {"[{\"ph\":\"X\n\"}]", "control character", -2},
    {"[{\"ph\" \"X\"}]", "expected ':'", -2},
    {"[{\"ph\":\"X\" \"ts\":1}]", "expected ',' or '}'", -2},
    {"[{\"ph\":\"X\",\"args\":[1 2]}]", "expected ',' or ']'", -2},
    {"[{\"ph\":\"X\",\"args\":{\"a\":tru}}]", "expected a JSON value", -2},
    {"[{\"ph\":\"X\",\"x\":nul", "truncated JSON", -2},
    {"[{\"ph\":\"X\",\"args\":{1:2}}]", "expected a string key", -2},
    {"[{\"ph\":\"i\"},]", "each trace event must be a JSON object", 12},
};

START_TEST(test_malformed)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const BadCase *c = &bad_cases[i];
        AscVizModel *m = NULL;
        AscVizError err;
        int rc = asc_viz_model_load_mem(&m, c->json, strlen(c->json), NULL, &err);
        ck_assert_msg(rc == -1, "case %zu accepted: %s", i, c->json);
        ck_assert_ptr_null(m);
        ck_assert_msg(strstr(err.msg, c->msg) != NULL, "case %zu: want '%s', got '%s'", i, c->msg, err.msg);
        if (c->offset != -2)
            ck_assert_msg(err.offset == c->offset, "case %zu: offset %lld, want %lld (%s)", i,
                          (long long)err.offset, (long long)c->offset, err.msg);
        ck_assert(err.offset >= 0 && err.offset <= (int64_t)strlen(c->json));
        ck_assert_uint_ge(err.line, 1);
        ck_assert_uint_ge(err.col, 1);
    }
    /* deep nesting is an error, not a stack overflow */
    size_t n = 100000;
    char *deep = malloc(n * 2 + 64);
    strcpy(deep, "[{\"ph\":\"X\",\"args\":{\"a\":");
    size_t k = strlen(deep);
    for (size_t i = 0; i < n; i++) deep[k++] = '[';
    for (size_t i = 0; i < n; i++) deep[k++] = ']';
    strcpy(deep + k, "}}]");
    AscVizModel *m = NULL;
    AscVizError err;
    ck_assert_int_eq(asc_viz_model_load_mem(&m, deep, strlen(deep), NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "nested deeper"));
    free(deep);
    /* line:col */
    const char *two = "[\n  {\"ph\":\"X\",\"ts\":\"1\",\"dur\":1,\"pid\":1,\"tid\":1}]";
    ck_assert_int_eq(asc_viz_model_load_mem(&m, two, strlen(two), NULL, &err), -1);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.col, 18);
    /* missing file */
    ck_assert_int_eq(asc_viz_model_load_file(&m, "/nonexistent/t.json", NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
    ck_assert_int_eq(err.offset, -1);
}
END_TEST

START_TEST(test_fixture_errors)
{
    static const char *const files[][2] = {
        {"bad_truncated.json", "truncated JSON"},
        {"bad_x_no_dur.json", "X event has no \"dur\""},
        {"bad_ts_string.json", "\"ts\" must be a number"},
        {"bad_unbalanced.json", "unbalanced B/E"},
        {"bad_no_pid.json", "X event has no \"pid\""},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/viz/%s", ASC_SOURCE_DIR, files[i][0]);
        AscVizModel *m = NULL;
        AscVizError err;
        ck_assert_int_eq(asc_viz_model_load_file(&m, path, NULL, &err), -1);
        ck_assert_msg(strstr(err.msg, files[i][1]) != NULL, "%s: %s", files[i][0], err.msg);
        ck_assert_int_ge(err.offset, 0);
    }
}
END_TEST

/* Truncate and mutate a valid trace thousands of times: never a crash, and
 * every failure carries a message and an offset inside the input. */
START_TEST(test_fuzz)
{
    size_t n;
    char *src = slurp(FIX("ours.json"), &n);
    char *buf = malloc(n + 64);
    uint64_t seed = 12345;
    int failures = 0;
    static const char alphabet[] = "{}[]\",:0123456789.-eE+ \\untrfalsXBEMsph";
    for (int it = 0; it < 6000; it++) {
        size_t len;
        if (it < 2000) { /* truncation */
            len = lcg(&seed) % n;
            memcpy(buf, src, len);
        } else {         /* 1-3 byte mutations: replace, delete, insert */
            memcpy(buf, src, n);
            len = n;
            int k = 1 + (int)(lcg(&seed) % 3);
            for (int j = 0; j < k; j++) {
                size_t pos = lcg(&seed) % len;
                char c = alphabet[lcg(&seed) % (sizeof alphabet - 1)];
                switch (lcg(&seed) % 3) {
                case 0: buf[pos] = c; break;
                case 1: memmove(buf + pos, buf + pos + 1, len - pos - 1); len--; break;
                default: memmove(buf + pos + 1, buf + pos, len - pos); buf[pos] = c; len++; break;
                }
            }
        }
        AscVizModel *m = NULL;
        AscVizError err;
        int rc = asc_viz_model_load_mem(&m, buf, len, NULL, &err);
        if (rc == 0) {
            /* whatever loaded must be queryable */
            uint32_t rows = asc_viz_model_row_count(m);
            double t0, t1;
            asc_viz_model_span(m, &t0, &t1);
            for (uint32_t r = 0; r < rows; r++) {
                float busy[8];
                asc_viz_model_lod(m, r, t0, t1, 8, busy, NULL);
                (void)asc_viz_model_hit(m, r, (t0 + t1) / 2, 1);
            }
            for (uint32_t i = 0; i < asc_viz_model_event_count(m); i++) (void)asc_viz_model_deps(m, i);
            asc_viz_model_free(m);
        } else {
            failures++;
            ck_assert(m == NULL);
            ck_assert(err.msg[0] != 0);
            ck_assert(err.offset >= -1 && err.offset <= (int64_t)len);
        }
    }
    ck_assert_int_gt(failures, 2000); /* every truncation before the final '}' fails */
    free(buf);
    free(src);
}
END_TEST

/* ---- level of detail vs brute force ---- */

static double brute_union(const double (*iv)[2], int n, double a, double b)
{
    /* measure of the union of [iv] clipped to [a, b], by sweeping sorted clips */
    double (*c)[2] = malloc((size_t)(n ? n : 1) * sizeof *c);
    int k = 0;
    for (int i = 0; i < n; i++) {
        double x = iv[i][0] > a ? iv[i][0] : a, y = iv[i][1] < b ? iv[i][1] : b;
        if (y > x) { c[k][0] = x; c[k][1] = y; k++; }
    }
    for (int i = 1; i < k; i++) /* insertion sort: small */
        for (int j = i; j > 0 && c[j][0] < c[j - 1][0]; j--) {
            double t0 = c[j][0], t1 = c[j][1];
            c[j][0] = c[j - 1][0]; c[j][1] = c[j - 1][1];
            c[j - 1][0] = t0; c[j - 1][1] = t1;
        }
    double sum = 0, cs = 0, ce = 0;
    bool open = false;
    for (int i = 0; i < k; i++) {
        if (open && c[i][0] <= ce) { if (c[i][1] > ce) ce = c[i][1]; continue; }
        if (open) sum += ce - cs;
        cs = c[i][0]; ce = c[i][1]; open = true;
    }
    if (open) sum += ce - cs;
    free(c);
    return sum;
}

START_TEST(test_lod_exact)
{
    uint64_t seed = 777;
    for (int trial = 0; trial < 20; trial++) {
        int n = 50 + (int)(lcg(&seed) % 400);
        double (*iv)[2] = malloc((size_t)n * sizeof *iv);
        size_t cap = (size_t)n * 128 + 64, len = 0;
        char *json = malloc(cap);
        len += (size_t)snprintf(json + len, cap - len, "[");
        for (int i = 0; i < n; i++) {
            double t = (lcg(&seed) % 100000) / 100.0;
            double d = (lcg(&seed) % 5 == 0) ? (lcg(&seed) % 3000) / 100.0 : (lcg(&seed) % 200) / 1000.0;
            iv[i][0] = t;
            iv[i][1] = t + d;
            len += (size_t)snprintf(json + len, cap - len,
                                    "%s{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":%.17g,\"dur\":%.17g}",
                                    i ? "," : "", t, d);
        }
        snprintf(json + len, cap - len, "]");
        AscVizModel *m = NULL;
        AscVizError err;
        ck_assert_msg(asc_viz_model_load_mem(&m, json, strlen(json), NULL, &err) == 0, "%s", err.msg);
        ck_assert_uint_eq(asc_viz_model_row_count(m), 1);
        double a = (lcg(&seed) % 50000) / 100.0, b = a + 1 + (lcg(&seed) % 60000) / 100.0;
        uint32_t cols = 37 + lcg(&seed) % 500;
        float *busy = malloc(cols * sizeof *busy);
        asc_viz_model_lod(m, 0, a, b, cols, busy, NULL);
        double w = (b - a) / cols;
        for (uint32_t c = 0; c < cols; c++) {
            double ca = a + w * c, cb = c + 1 == cols ? b : a + w * (c + 1);
            double want = brute_union((const double (*)[2])iv, n, ca, cb) / w;
            ck_assert_msg(fabs(busy[c] - want) < 1e-4, "trial %d col %u: %f vs %f", trial, c, busy[c], want);
        }
        /* busy() on random windows too */
        for (int q = 0; q < 50; q++) {
            double x = (lcg(&seed) % 100000) / 100.0, y = x + (lcg(&seed) % 10000) / 100.0;
            ck_assert(fabs(asc_viz_model_busy(m, 0, x, y, false) -
                           brute_union((const double (*)[2])iv, n, x, y)) < 1e-9);
        }
        /* window: every overlapping event is inside [first, last) */
        uint32_t f, l;
        asc_viz_model_window(m, 0, a, b, &f, &l);
        for (uint32_t i = 0; i < asc_viz_model_event_count(m); i++) {
            const AscVizEvent *e = asc_viz_model_event(m, i);
            if (e->t1_us >= a && e->t0_us <= b) ck_assert(i >= f && i < l);
        }
        free(busy);
        free(json);
        free(iv);
        asc_viz_model_free(m);
    }
}
END_TEST

/* ---- the view ---- */

START_TEST(test_view)
{
    AscVizModel *m = load_ok(FIX("ours.json"), 0);
    AscVizView v;
    AscVizViewDesc d = {.width = 1000, .height = 600};
    ck_assert_int_eq(asc_viz_view_init(&v, m, &d), 0);
    ck_assert_int_eq(v.width, 1000);
    int prev = -1;
    for (uint32_t r = 0; r < asc_viz_model_row_count(m); r++) {
        int y0, y1;
        ck_assert(asc_viz_view_row_band(&v, r, &y0, &y1));
        ck_assert_int_gt(y0, prev);
        ck_assert_int_eq(y1 - y0, v.row_h);
        ck_assert_int_eq(asc_viz_view_row_at(&v, (y0 + y1) / 2), (int)r);
        prev = y1 - 1;
    }
    /* fit shows the whole span; cycles map into the plot */
    int x0 = asc_viz_view_x_of_cycle(&v, 0), x1 = asc_viz_view_x_of_cycle(&v, 299);
    ck_assert_int_gt(x0, v.plot_x0);
    ck_assert_int_lt(x1, v.plot_x1);
    ck_assert_int_gt(x1, x0);
    ck_assert_int_eq(asc_viz_view_x_of_cycle(&v, 100000), -1);
    /* hit through the view */
    int vec = asc_viz_model_find_row(m, "core0.veccore0", "VECTOR"), y0, y1;
    asc_viz_view_row_band(&v, (uint32_t)vec, &y0, &y1);
    int64_t h = asc_viz_view_hit(&v, m, asc_viz_view_x_of_cycle(&v, 120), (y0 + y1) / 2);
    ck_assert_int_ge(h, 0);
    ck_assert_str_eq(asc_viz_model_str(m, asc_viz_model_event(m, (uint32_t)h)->name), "vadd.f16");
    ck_assert_int_eq(asc_viz_view_hit(&v, m, 5, (y0 + y1) / 2), -1);
    /* zoom keeps the time under the cursor; pan moves by pixels */
    int cx = (v.plot_x0 + v.plot_x1) / 2;
    double tc = asc_viz_view_time_of_x(&v, cx);
    asc_viz_view_zoom(&v, 4, cx);
    ck_assert_double_eq_tol(asc_viz_view_time_of_x(&v, cx), tc, 1e-12);
    double w = v.t1 - v.t0;
    asc_viz_view_pan(&v, 100);
    ck_assert_double_eq_tol(v.t1 - v.t0, w, 1e-12);
    ck_assert_double_eq_tol(asc_viz_view_time_of_x(&v, cx + 100), tc, 1e-12);
    asc_viz_view_fit(&v, m);
    ck_assert(v.t0 < 0 && v.t1 > 0.3);
    asc_viz_view_free(&v);
    asc_viz_model_free(m);
}
END_TEST

/* A flow ending exactly where a wait ends, when the next wait starts there,
 * is that next wait's: the earlier flow inside the first wait is its own
 * (vadd_double: wait_flag mte2 ends at 4284, the mte3 flow of the next
 * wait also ends at 4284). */
START_TEST(test_deps_back_to_back_waits)
{
    static const char js[] =
        "{\"otherData\":{\"clock_mhz\":1000},\"traceEvents\":["
        "{\"ph\":\"X\",\"name\":\"SET_FLAG\",\"pid\":1,\"tid\":\"MTE2\",\"ts\":0.002,\"dur\":0.001},"
        "{\"ph\":\"X\",\"name\":\"SET_FLAG\",\"pid\":1,\"tid\":\"MTE3\",\"ts\":0.004,\"dur\":0.001},"
        "{\"ph\":\"X\",\"name\":\"WAIT_FLAG\",\"pid\":1,\"tid\":\"VECTOR\",\"ts\":0,\"dur\":0.010},"
        "{\"ph\":\"X\",\"name\":\"WAIT_FLAG\",\"pid\":1,\"tid\":\"VECTOR\",\"ts\":0.010,\"dur\":0.002},"
        "{\"ph\":\"s\",\"id\":1,\"cat\":\"MTE2ToVECTOR\",\"pid\":1,\"tid\":\"MTE2\",\"ts\":0.002},"
        "{\"ph\":\"t\",\"id\":1,\"cat\":\"MTE2ToVECTOR\",\"pid\":1,\"tid\":\"VECTOR\",\"ts\":0.009},"
        "{\"ph\":\"s\",\"id\":2,\"cat\":\"MTE3ToVECTOR\",\"pid\":1,\"tid\":\"MTE3\",\"ts\":0.004},"
        "{\"ph\":\"t\",\"id\":2,\"cat\":\"MTE3ToVECTOR\",\"pid\":1,\"tid\":\"VECTOR\",\"ts\":0.010}]}";
    AscVizModel *m = NULL;
    AscVizError err;
    ck_assert_int_eq(asc_viz_model_load_mem(&m, js, strlen(js), NULL, &err), 0);
    int vec = asc_viz_model_find_row(m, "1", "VECTOR");
    int64_t w1 = find_event(m, vec, "WAIT_FLAG", 0), w2 = find_event(m, vec, "WAIT_FLAG", 0.010);
    AscVizDeps d1 = asc_viz_model_deps(m, (uint32_t)w1), d2 = asc_viz_model_deps(m, (uint32_t)w2);
    ck_assert_str_eq(asc_viz_model_str(m, asc_viz_model_flow(m, (uint32_t)d1.flow)->cat), "MTE2ToVECTOR");
    ck_assert_str_eq(asc_viz_model_str(m, asc_viz_model_flow(m, (uint32_t)d2.flow)->cat), "MTE3ToVECTOR");
    ck_assert_int_eq(d1.wait, w1);
    asc_viz_model_free(m);
}
END_TEST

/* ---- counters ---- */

START_TEST(test_counters)
{
    AscVizModel *m = load_ok(FIX("ours.json"), 0);
    ck_assert_uint_eq(asc_viz_model_counter_count(m), 2);
    AscVizCounterInfo q = asc_viz_model_counter(m, 0), h = asc_viz_model_counter(m, 1);
    ck_assert_str_eq(q.process, "core0.veccore0");
    ck_assert_str_eq(q.name, "queue MTE2");
    ck_assert_uint_eq(q.proc, 1);
    ck_assert_str_eq(h.process, "chip");
    ck_assert_str_eq(h.name, "HBM GB/s");
    ck_assert_uint_eq(h.proc, 2);
    ck_assert_uint_eq(h.count, 1);
    ck_assert_double_eq(h.vmax, 59.2);
    ck_assert_double_eq(asc_viz_model_counter_value(m, 0, 0.05), 0); /* before the first sample */
    ck_assert_double_eq(asc_viz_model_counter_value(m, 0, 0.1), 3);
    asc_viz_model_free(m);

    /* several keys make several series; order: process, lane rank of the
     * last word, first appearance; samples sorted by time, ties in file order */
    static const char js[] =
        "[{\"ph\":\"C\",\"pid\":1,\"name\":\"queue VECTOR\",\"ts\":2,\"args\":{\"entries\":2}},"
        "{\"ph\":\"C\",\"pid\":1,\"name\":\"queue MTE2\",\"ts\":1,\"args\":{\"entries\":1}},"
        "{\"ph\":\"C\",\"pid\":1,\"name\":\"queue MTE2\",\"ts\":3,\"args\":{\"entries\":4}},"
        "{\"ph\":\"C\",\"pid\":1,\"name\":\"queue MTE2\",\"ts\":3,\"args\":{\"entries\":0}},"
        "{\"ph\":\"C\",\"pid\":0,\"name\":\"mem\",\"ts\":0,\"args\":{\"rd\":5,\"wr\":-1,\"note\":\"x\"}},"
        "{\"ph\":\"C\",\"pid\":0,\"name\":\"empty\",\"ts\":0}]";
    AscVizError err;
    ck_assert_int_eq(asc_viz_model_load_mem(&m, js, strlen(js), NULL, &err), 0);
    ck_assert_uint_eq(asc_viz_model_row_count(m), 0);
    ck_assert_uint_eq(asc_viz_model_process_count(m), 2);
    ck_assert_uint_eq(asc_viz_model_counter_count(m), 4);
    static const char *const names[] = {"mem rd", "mem wr", "queue MTE2", "queue VECTOR"};
    for (uint32_t c = 0; c < 4; c++) ck_assert_str_eq(asc_viz_model_counter(m, c).name, names[c]);
    AscVizCounterInfo w = asc_viz_model_counter(m, 1), mte2 = asc_viz_model_counter(m, 2);
    ck_assert_double_eq(w.vmin, -1);
    ck_assert_uint_eq(mte2.count, 3);
    ck_assert_double_eq(mte2.vmax, 4);
    double t, v;
    asc_viz_model_counter_sample(m, mte2.first + 2, &t, &v);
    ck_assert_double_eq(t, 3);
    ck_assert_double_eq(v, 0); /* the later of two samples at ts 3 */
    double s0, s1;
    asc_viz_model_span(m, &s0, &s1); /* counters only: their span */
    ck_assert_double_eq(s0, 0);
    ck_assert_double_eq(s1, 3);
    /* LOD over [0, 4) in 4 columns: 0 | 1 | 1 | 1,4,0 */
    float lo[4], hi[4], last[4];
    asc_viz_model_counter_lod(m, 2, 0, 4, 4, lo, hi, last);
    static const float wlo[] = {0, 1, 1, 0}, whi[] = {0, 1, 1, 4}, wlast[] = {0, 1, 1, 0};
    for (int k = 0; k < 4; k++) {
        ck_assert_float_eq(lo[k], wlo[k]);
        ck_assert_float_eq(hi[k], whi[k]);
        ck_assert_float_eq(last[k], wlast[k]);
    }
    /* a view lays out counter tracks under their process, and can hide them */
    AscVizView view;
    ck_assert_int_eq(asc_viz_view_init(&view, m, &(AscVizViewDesc){.width = 800, .height = 400}), 0);
    int y0, y1, prev = -1;
    for (uint32_t c = 0; c < 4; c++) {
        ck_assert(asc_viz_view_counter_band(&view, c, &y0, &y1));
        ck_assert_int_gt(y0, prev);
        ck_assert_int_eq(asc_viz_view_counter_at(&view, (y0 + y1) / 2), (int)c);
        prev = y1 - 1;
    }
    asc_viz_view_show_counters(&view, false);
    ck_assert(!asc_viz_view_counter_band(&view, 0, &y0, &y1));
    ck_assert_int_eq(view.content_h, 0);
    asc_viz_view_free(&view);
    asc_viz_model_free(m);

    static const struct { const char *json, *msg; } bad[] = {
        {"[{\"ph\":\"C\",\"pid\":1,\"args\":{\"v\":1}}]", "C event has no \"ts\""},
        {"[{\"ph\":\"C\",\"ts\":1,\"args\":{\"v\":1}}]", "C event has no \"pid\""},
        {"[{\"ph\":\"C\",\"ts\":1,\"pid\":1,\"args\":[1]}]", "\"args\" must be an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(asc_viz_model_load_mem(&m, bad[i].json, strlen(bad[i].json), NULL, &err), -1);
        ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "want '%s', got '%s'", bad[i].msg, err.msg);
        ck_assert_int_ge(err.offset, 0);
    }
}
END_TEST

/* Rows fit the plot: few lanes get tall rows (up to 56 px), many lanes keep
 * 20 px and scroll; a fixed row_height stays fixed. */
START_TEST(test_view_fit_rows)
{
    AscVizModel *m = load_ok(FIX("ours.json"), 0);
    AscVizView v;
    ck_assert_int_eq(asc_viz_view_init(&v, m, &(AscVizViewDesc){.width = 1600, .height = 900}), 0);
    ck_assert_int_eq(v.row_h, 56);
    ck_assert_int_le(v.content_h, v.plot_y1 - v.plot_y0);
    asc_viz_view_resize(&v, 1600, 300); /* 5 rows, 3 headers, 2 tracks in 214 px */
    ck_assert_int_eq(v.row_h, 20);
    int before = v.row_h;
    asc_viz_view_resize(&v, 1600, 600);
    ck_assert_int_gt(v.row_h, before);
    ck_assert_int_le(v.content_h, v.plot_y1 - v.plot_y0);
    /* a details panel takes height from the rows, which still fit */
    asc_viz_view_reserve_bottom(&v, 150);
    ck_assert_int_le(v.content_h, v.plot_y1 - v.plot_y0);
    ck_assert_int_eq(v.plot_y1, 600 - v.footer_h - 150);
    ck_assert(v.show_counters);
    /* a short picture keeps its lanes: counter tracks stay out unless forced */
    asc_viz_view_reserve_bottom(&v, 0);
    asc_viz_view_resize(&v, 1600, 240);
    int y0, y1;
    ck_assert(!v.show_counters);
    ck_assert(!asc_viz_view_counter_band(&v, 0, &y0, &y1));
    ck_assert_int_le(v.content_h, v.plot_y1 - v.plot_y0);
    ck_assert_int_ge(v.row_h, 20);
    asc_viz_view_show_counters(&v, true);
    ck_assert(asc_viz_view_counter_band(&v, 0, &y0, &y1) || v.content_h > v.plot_y1 - v.plot_y0);
    ck_assert(v.show_counters);
    asc_viz_view_free(&v);
    ck_assert_int_eq(asc_viz_view_init(&v, m, &(AscVizViewDesc){.width = 1600, .height = 900, .row_height = 24}), 0);
    ck_assert_int_eq(v.row_h, 24);
    asc_viz_view_free(&v);
    asc_viz_model_free(m);
}
END_TEST

/* ---- allocation failure ---- */

/* An allocator that fails the N-th allocation and counts live blocks. */
typedef struct FailAlloc {
    long n, fail_at, live;
} FailAlloc;

static void *fail_alloc(void *ud, size_t size)
{
    FailAlloc *f = ud;
    if (++f->n == f->fail_at) return NULL;
    void *p = malloc(size);
    if (p) f->live++;
    return p;
}

static void fail_free(void *ud, void *p)
{
    FailAlloc *f = ud;
    if (p) f->live--;
    free(p);
}

/* Fail the N-th allocation, for N = 1, 2, ... until loading a fixture,
 * building a view and running a search all succeed: every failure is a
 * clean "out of memory" error with no model and no leak.  Both loaders, and
 * the B/E fixture too (its pairing allocates). */
START_TEST(test_alloc_failures)
{
    static const char *const fixtures[] = {"ours.json", "chrome_array.json"};
    for (int fx = 0; fx < 2; fx++) {
        for (int from_mem = 0; from_mem < (fx == 0 ? 2 : 1); from_mem++) {
            size_t len = 0;
            char *text = from_mem ? slurp(FIX("ours.json"), &len) : NULL;
            long ok_at = 0, fails = 0;
            for (long n = 1; n < 100000 && !ok_at; n++) {
                FailAlloc fa = {0, n, 0};
                AscAlloc al = {fail_alloc, fail_free, &fa};
                AscVizLoadDesc d = {.alloc = &al};
                AscVizModel *m = NULL;
                AscVizError err;
                char path[512];
                snprintf(path, sizeof path, "%s/tests/viz/%s", ASC_SOURCE_DIR, fixtures[fx]);
                int rc = from_mem ? asc_viz_model_load_mem(&m, text, len, &d, &err)
                                  : asc_viz_model_load_file(&m, path, &d, &err);
                if (rc) {
                    ck_assert_ptr_null(m);
                    ck_assert_msg(strstr(err.msg, "out of memory") != NULL, "N=%ld: '%s'", n, err.msg);
                    ck_assert_int_eq(err.offset, -1);
                    fails++;
                } else {
                    AscVizView v;
                    if (asc_viz_view_init(&v, m, NULL) == 0) {
                        AscVizSearch s;
                        if (asc_viz_search_run(&s, m, "a") == 0) {
                            ck_assert_uint_gt(s.count, 0);
                            asc_viz_search_free(&s);
                            ok_at = n;
                        }
                        asc_viz_view_free(&v);
                    }
                    asc_viz_model_free(m);
                }
                ck_assert_msg(fa.live == 0, "%s: failing allocation %ld leaks %ld blocks", fixtures[fx], n, fa.live);
                if (!ok_at) ck_assert_int_ge(fa.n, n); /* the N-th allocation was reached */
            }
            ck_assert_int_gt(ok_at, 10);
            ck_assert_int_gt(fails, 5);
            free(text);
        }
    }
}
END_TEST

/* ---- PNG ---- */

START_TEST(test_png_roundtrip)
{
    int w = 37, h = 23;
    uint8_t *img = malloc((size_t)w * h * 4);
    uint64_t seed = 9;
    for (int i = 0; i < w * h * 4; i++) img[i] = (uint8_t)lcg(&seed);
    char p1[] = "/tmp/test_viz_png_aXXXXXX", p2[] = "/tmp/test_viz_png_bXXXXXX";
    int f1 = mkstemp(p1), f2 = mkstemp(p2);
    close(f1);
    close(f2);
    AscVizError err;
    ck_assert_int_eq(asc_viz_png_write(p1, img, w, h, w * 4, &err), 0);
    ck_assert_int_eq(asc_viz_png_write(p2, img, w, h, w * 4, &err), 0);
    size_t n1, n2;
    char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_int_eq(memcmp(b1, b2, n1), 0); /* deterministic bytes */
    uint8_t *back;
    int bw, bh;
    ck_assert_int_eq(asc_viz_png_read(p1, &back, &bw, &bh, &err), 0);
    ck_assert_int_eq(bw, w);
    ck_assert_int_eq(bh, h);
    for (int i = 0; i < w * h; i++) {
        ck_assert_int_eq(back[i * 4], img[i * 4]);
        ck_assert_int_eq(back[i * 4 + 1], img[i * 4 + 1]);
        ck_assert_int_eq(back[i * 4 + 2], img[i * 4 + 2]);
        ck_assert_int_eq(back[i * 4 + 3], 255);
    }
    /* a corrupted file is rejected, not misread */
    b1[n1 / 2] ^= 0x55;
    FILE *f = fopen(p1, "wb");
    fwrite(b1, 1, n1, f);
    fclose(f);
    uint8_t *bad = NULL;
    ck_assert_int_eq(asc_viz_png_read(p1, &bad, &bw, &bh, &err), -1);
    ck_assert_ptr_null(bad);
    ck_assert_int_eq(asc_viz_png_read(FIX("ours.json"), &bad, &bw, &bh, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "not a PNG"));
    free(back);
    free(b1);
    free(b2);
    free(img);
    unlink(p1);
    unlink(p2);
}
END_TEST

/* ---- chip-sized traces: groups, elision, step mode ---- */

static AscVizModel *load_str(const char *json)
{
    AscVizModel *m = NULL;
    AscVizError err;
    int rc = asc_viz_model_load_mem(&m, json, strlen(json), NULL, &err);
    ck_assert_msg(rc == 0, "load: %s (offset %lld)", err.msg, (long long)err.offset);
    return m;
}

/* A group name is a prefix of a process label already in the string pool; interning it when the
 * pool must grow read the label from the freed pool (found by fuzz_sim: heap-use-after-free in
 * viz_intern under build_groups).  An event name of every length across the pool's first
 * boundary (4096 bytes) makes one of these loads grow the pool exactly there. */
START_TEST(test_group_name_interned_while_pool_grows)
{
    char *json = malloc(8192);
    char *pad = malloc(4200);
    ck_assert(json && pad);
    for (int len = 3900; len < 4150; len++) {
        memset(pad, 'p', (size_t)len);
        pad[len] = 0;
        snprintf(json, 8192,
                 "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"core7.aicore0\"}},"
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"core7.veccore0\"}},"
                 "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},"
                 "{\"name\":\"b\",\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":0,\"dur\":1}]",
                 pad);
        AscVizModel *m = load_str(json);
        uint32_t n = asc_viz_model_group_count(m), found = 0;
        for (uint32_t g = 0; g < n; g++)
            if (!strcmp(asc_viz_model_group(m, g).name, "core7")) found++;
        ck_assert_msg(found == 1, "pad %d: group core7 found %u times", len, found);
        asc_viz_model_free(m);
    }
    free(pad);
    free(json);
}
END_TEST

/* Whole words or nothing: a mnemonic is never cut inside a word. */
START_TEST(test_elide_words)
{
    char b[64];
    ck_assert_int_eq(asc_viz_elide("mov_out_to_ub", 13, b, sizeof b), 13);
    ck_assert_str_eq(b, "mov_out_to_ub");
    ck_assert_int_eq(asc_viz_elide("mov_out_to_ub", 12, b, sizeof b), 11);
    ck_assert_str_eq(b, "mov_out_to\xe2\x80\xa6");
    ck_assert_int_eq(asc_viz_elide("mov_out_to_ub", 8, b, sizeof b), 8);
    ck_assert_str_eq(b, "mov_out\xe2\x80\xa6");
    ck_assert_int_eq(asc_viz_elide("mov_out_to_ub", 7, b, sizeof b), 4);
    ck_assert_str_eq(b, "mov\xe2\x80\xa6");
    ck_assert_int_eq(asc_viz_elide("mov_out_to_ub", 4, b, sizeof b), 4);
    ck_assert_str_eq(b, "mov\xe2\x80\xa6");
    ck_assert_int_eq(asc_viz_elide("mov_out_to_ub", 3, b, sizeof b), 0); /* never "mov_" or "mov" */
    ck_assert_str_eq(b, "");
    ck_assert_int_eq(asc_viz_elide("WAIT_FLAG", 9, b, sizeof b), 9);
    ck_assert_int_eq(asc_viz_elide("WAIT_FLAG", 8, b, sizeof b), 5);
    ck_assert_str_eq(b, "WAIT\xe2\x80\xa6");
    ck_assert_int_eq(asc_viz_elide("WAIT_FLAG", 4, b, sizeof b), 0); /* never "WAI" */
    ck_assert_int_eq(asc_viz_elide("vadd.f16", 6, b, sizeof b), 5);
    ck_assert_str_eq(b, "vadd\xe2\x80\xa6");
    ck_assert_int_eq(asc_viz_elide("end", 3, b, sizeof b), 3);
    ck_assert_int_eq(asc_viz_elide("end", 2, b, sizeof b), 0);
    ck_assert_int_eq(asc_viz_elide("queue MTE2", 9, b, sizeof b), 6);
    ck_assert_str_eq(b, "queue\xe2\x80\xa6");
    ck_assert_int_eq(asc_viz_elide("", 5, b, sizeof b), 0);
    ck_assert_int_eq(asc_viz_elide("abc", 0, b, sizeof b), 0);
    /* glyphs, not bytes: the micro sign is one */
    ck_assert_int_eq(asc_viz_elide("2 \xc2\xb5s", 4, b, sizeof b), 4);
    /* a small buffer never overflows */
    char s[6];
    ck_assert_int_le(asc_viz_elide("mov_out_to_ub", 13, s, sizeof s), 13);
    ck_assert_uint_lt(strlen(s), sizeof s);
}
END_TEST

/* A hand-checkable trace (1000 MHz: cycle = ts * 1000).  core0.veccore0:
 *   MTE2:   mov_out_to_ub 10..20, SET_FLAG 20..21, mov_out_to_ub 21..31
 *   VECTOR: WAIT_FLAG 5..22 (flag MTE2->VECTOR id 0), vadd.f16 22..30
 *   flow MTE2ToVECTOR: set at 20 (MTE2), released at 22 (VECTOR)
 *   queue MTE2: 1 @1, 2 @2, 3 @3, 2 @10 (first mov starts), 1 @20, 0 @21
 *   queue VECTOR: 1 @4, 2 @4.5, 1 @5, 0 @22
 * core1.veccore0: MTE2 mov_out_to_ub 10..15.  chip: HBM GB/s. */
static const char step_json[] =
    "{\"otherData\":{\"clock_mhz\":1000},\"traceEvents\":["
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"chip\"}},"
    "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":0,\"args\":{\"sort_index\":0}},"
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"core0.veccore0\"}},"
    "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":2,\"args\":{\"sort_index\":2}},"
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":5,\"args\":{\"name\":\"core1.veccore0\"}},"
    "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":5,\"args\":{\"sort_index\":5}},"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":6,\"args\":{\"name\":\"MTE2\"}},"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":7,\"args\":{\"name\":\"VECTOR\"}},"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":5,\"tid\":6,\"args\":{\"name\":\"MTE2\"}},"
    "{\"name\":\"queue MTE2\",\"ph\":\"C\",\"pid\":2,\"ts\":0.001,\"args\":{\"entries\":1}},"
    "{\"name\":\"queue MTE2\",\"ph\":\"C\",\"pid\":2,\"ts\":0.002,\"args\":{\"entries\":2}},"
    "{\"name\":\"queue MTE2\",\"ph\":\"C\",\"pid\":2,\"ts\":0.003,\"args\":{\"entries\":3}},"
    "{\"name\":\"queue VECTOR\",\"ph\":\"C\",\"pid\":2,\"ts\":0.004,\"args\":{\"entries\":1}},"
    "{\"name\":\"queue VECTOR\",\"ph\":\"C\",\"pid\":2,\"ts\":0.0045,\"args\":{\"entries\":2}},"
    "{\"name\":\"queue VECTOR\",\"ph\":\"C\",\"pid\":2,\"ts\":0.005,\"args\":{\"entries\":1}},"
    "{\"name\":\"WAIT_FLAG\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":0.005,\"dur\":0.017,"
    "\"args\":{\"instr\":\"wait_flag mte2, v, 0\",\"stall\":\"flag MTE2->VECTOR id 0\"}},"
    "{\"name\":\"queue MTE2\",\"ph\":\"C\",\"pid\":2,\"ts\":0.010,\"args\":{\"entries\":2}},"
    "{\"name\":\"mov_out_to_ub\",\"ph\":\"X\",\"pid\":2,\"tid\":6,\"ts\":0.010,\"dur\":0.010,\"args\":{\"instr\":\"mov_out_to_ub x20, x0, x31\"}},"
    "{\"name\":\"mov_out_to_ub\",\"ph\":\"X\",\"pid\":5,\"tid\":6,\"ts\":0.010,\"dur\":0.005},"
    "{\"name\":\"HBM GB/s\",\"ph\":\"C\",\"pid\":0,\"ts\":0.010,\"args\":{\"GB/s\":59.2}},"
    "{\"name\":\"HBM GB/s\",\"ph\":\"C\",\"pid\":0,\"ts\":0.020,\"args\":{\"GB/s\":0}},"
    "{\"name\":\"queue MTE2\",\"ph\":\"C\",\"pid\":2,\"ts\":0.020,\"args\":{\"entries\":1}},"
    "{\"name\":\"SET_FLAG\",\"ph\":\"X\",\"pid\":2,\"tid\":6,\"ts\":0.020,\"dur\":0.001,\"args\":{\"instr\":\"set_flag mte2, v, 0\"}},"
    "{\"name\":\"flow\",\"ph\":\"s\",\"id\":\"intra_0\",\"cat\":\"MTE2ToVECTOR\",\"pid\":2,\"tid\":6,\"ts\":0.020},"
    "{\"name\":\"queue MTE2\",\"ph\":\"C\",\"pid\":2,\"ts\":0.021,\"args\":{\"entries\":0}},"
    "{\"name\":\"mov_out_to_ub\",\"ph\":\"X\",\"pid\":2,\"tid\":6,\"ts\":0.021,\"dur\":0.010},"
    "{\"name\":\"flow\",\"ph\":\"t\",\"bp\":\"e\",\"id\":\"intra_0\",\"cat\":\"MTE2ToVECTOR\",\"pid\":2,\"tid\":7,\"ts\":0.022},"
    "{\"name\":\"queue VECTOR\",\"ph\":\"C\",\"pid\":2,\"ts\":0.022,\"args\":{\"entries\":0}},"
    "{\"name\":\"vadd.f16\",\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":0.022,\"dur\":0.008}"
    "]}";

static const char *ev_name(const AscVizModel *m, int64_t i)
{
    ck_assert_int_ge(i, 0);
    return asc_viz_model_str(m, asc_viz_model_event(m, (uint32_t)i)->name);
}

START_TEST(test_groups)
{
    AscVizModel *m = load_str(step_json);
    ck_assert_uint_eq(asc_viz_model_group_count(m), 3);
    AscVizGroupInfo g0 = asc_viz_model_group(m, 0), g1 = asc_viz_model_group(m, 1), g2 = asc_viz_model_group(m, 2);
    ck_assert_str_eq(g0.name, "chip");
    ck_assert_uint_eq(g0.nrows, 0);
    ck_assert_uint_eq(g0.nctrs, 1);
    ck_assert_str_eq(g1.name, "core0");
    ck_assert_uint_eq(g1.nrows, 2);
    ck_assert_uint_eq(g1.nctrs, 2);
    ck_assert_uint_eq(g1.npipes, 2);
    ck_assert_str_eq(asc_viz_model_group_pipe(m, 1, 0), "MTE2");
    ck_assert_str_eq(asc_viz_model_group_pipe(m, 1, 1), "VECTOR");
    ck_assert_str_eq(g2.name, "core1");
    ck_assert_uint_eq(g2.first_row, 2);
    /* core1's MTE2 is busy 10..15 of [10, 20): half */
    ck_assert_double_eq_tol(asc_viz_model_group_utilisation(m, 2, 0, 0.010, 0.020), 0.5, 1e-9);
    float busy[2];
    asc_viz_model_group_lod(m, 2, 0, 0.010, 0.020, 2, busy);
    ck_assert_float_eq_tol(busy[0], 1, 1e-5);
    ck_assert_float_eq_tol(busy[1], 0, 1e-5);
    /* the view: collapse core0 into one summary row, expand it again */
    AscVizView v;
    ck_assert_int_eq(asc_viz_view_init(&v, m, &(AscVizViewDesc){.width = 800, .height = 600}), 0);
    ck_assert(!v.collapsed[1]); /* it all fits: nothing collapses */
    int y0, y1;
    ck_assert(asc_viz_view_row_band(&v, 0, &y0, &y1));
    ck_assert(!asc_viz_view_group_band(&v, 1, &y0, &y1));
    asc_viz_view_collapse(&v, 1, -1);
    ck_assert(v.collapsed[1]);
    ck_assert(!asc_viz_view_row_band(&v, 0, &y0, &y1));
    ck_assert(!asc_viz_view_row_band(&v, 1, &y0, &y1));
    ck_assert(asc_viz_view_group_band(&v, 1, &y0, &y1));
    ck_assert_int_eq(asc_viz_view_group_at(&v, (y0 + y1) / 2), 1);
    ck_assert_int_eq(asc_viz_view_row_at(&v, (y0 + y1) / 2), -1);
    ck_assert(asc_viz_view_group_shown(&v, 1));
    ck_assert(asc_viz_view_row_band(&v, 2, &y0, &y1)); /* core1 is still expanded */
    ck_assert_int_eq(asc_viz_view_row_at(&v, (y0 + y1) / 2), 2);
    asc_viz_view_collapse(&v, 0, 1); /* chip has no rows: it never collapses */
    ck_assert(!v.collapsed[0]);
    asc_viz_view_collapse_all(&v, false);
    ck_assert(asc_viz_view_row_band(&v, 0, &y0, &y1));
    asc_viz_view_free(&v);
    asc_viz_model_free(m);
}
END_TEST

/* 24 cores x 2 vector cores x 4 lanes, a counter per core and the HBM one:
 * at 1600x900 everything expanded does not fit at 20 px rows, so auto
 * collapses every core, then expands core0 (it fits beside the others);
 * every core and the HBM counter track then show. */
static char *many_cores_json(int ncores)
{
    size_t cap = 1 << 20, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n, "{\"otherData\":{\"clock_mhz\":1000},\"traceEvents\":["
                          "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"chip\"}},"
                          "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":0,\"args\":{\"sort_index\":0}},"
                          "{\"name\":\"HBM GB/s\",\"ph\":\"C\",\"pid\":0,\"ts\":0,\"args\":{\"GB/s\":10}}");
    static const char *const lanes[] = {"SCALAR", "MTE2", "VECTOR", "MTE3"};
    for (int c = 0; c < ncores; c++)
        for (int v = 0; v < 2; v++) {
            int pid = c * 3 + 2 + v;
            n += (size_t)snprintf(b + n, cap - n,
                                  ",{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"core%d.veccore%d\"}}"
                                  ",{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}"
                                  ",{\"name\":\"queue MTE2\",\"ph\":\"C\",\"pid\":%d,\"ts\":0,\"args\":{\"entries\":1}}",
                                  pid, c, v, pid, pid, pid);
            for (int l = 0; l < 4; l++)
                n += (size_t)snprintf(b + n, cap - n,
                                      ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}"
                                      ",{\"name\":\"op\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":1}",
                                      pid, l + 1, lanes[l], pid, l + 1, l + v);
        }
    snprintf(b + n, cap - n, "]}");
    return b;
}

START_TEST(test_collapse_many_cores)
{
    char *json = many_cores_json(24);
    AscVizModel *m = load_str(json);
    free(json);
    ck_assert_uint_eq(asc_viz_model_group_count(m), 25);
    AscVizView v;
    ck_assert_int_eq(asc_viz_view_init(&v, m, &(AscVizViewDesc){.width = 1600, .height = 900}), 0);
    ck_assert_str_eq(asc_viz_model_group(m, 0).name, "chip");
    ck_assert(!v.collapsed[1]); /* core0 expanded: 2 x (header + 4 rows + its counter) fit */
    ck_assert(asc_viz_view_group_shown(&v, 1));
    for (uint32_t g = 2; g < 25; g++) {
        int y0, y1;
        ck_assert_msg(v.collapsed[g], "core %u not collapsed", g - 1);
        ck_assert(asc_viz_view_group_band(&v, g, &y0, &y1));
        ck_assert(asc_viz_view_group_shown(&v, g));
        ck_assert_int_ge(y1 - y0, 20);
    }
    ck_assert(v.show_counters);
    int hy0, hy1;
    ck_assert(asc_viz_view_counter_band(&v, 0, &hy0, &hy1)); /* HBM GB/s */
    ck_assert_str_eq(asc_viz_model_counter(m, 0).name, "HBM GB/s");
    ck_assert_int_le(hy1, v.plot_y1);
    /* the layout fits the image: the full height is within it */
    ck_assert_int_le(asc_viz_view_full_height(&v), 900);
    /* all expanded: the later cores do not fit, and say so */
    asc_viz_view_collapse_all(&v, false);
    ck_assert(asc_viz_view_group_shown(&v, 1));
    ck_assert(!asc_viz_view_group_shown(&v, 24));
    ck_assert_int_gt(asc_viz_view_full_height(&v), 900);
    asc_viz_view_collapse_all(&v, true);
    for (uint32_t g = 1; g < 25; g++) ck_assert(v.collapsed[g] && asc_viz_view_group_shown(&v, g));
    asc_viz_view_free(&v);
    /* all collapsed on request */
    ck_assert_int_eq(asc_viz_view_init(&v, m, &(AscVizViewDesc){.width = 1600, .height = 900, .collapse = 1}), 0);
    ck_assert(v.collapsed[1] && !v.collapsed[0]);
    asc_viz_view_free(&v);
    /* never collapse on request */
    ck_assert_int_eq(asc_viz_view_init(&v, m, &(AscVizViewDesc){.width = 1600, .height = 900, .collapse = -1}), 0);
    ck_assert(!v.collapsed[1]);
    asc_viz_view_free(&v);
    /* a small chip fits expanded: nothing collapses */
    asc_viz_model_free(m);
    json = many_cores_json(2);
    m = load_str(json);
    free(json);
    ck_assert_int_eq(asc_viz_view_init(&v, m, &(AscVizViewDesc){.width = 1600, .height = 900}), 0);
    ck_assert(!v.collapsed[1] && !v.collapsed[2]);
    asc_viz_view_free(&v);
    asc_viz_model_free(m);
}
END_TEST

START_TEST(test_step_cursor)
{
    AscVizModel *m = load_str(step_json);
    int mte2 = asc_viz_model_find_row(m, "core0.veccore0", "MTE2"), vec = asc_viz_model_find_row(m, "core0.veccore0", "VECTOR");
    ck_assert_int_eq(mte2, 0);
    ck_assert_int_eq(vec, 1);
    /* event by event in (start, row) order: core1's mov at 10 follows core0's */
    static const char *const order[] = {"WAIT_FLAG", "mov_out_to_ub", "mov_out_to_ub", "SET_FLAG", "mov_out_to_ub", "vadd.f16"};
    static const double t0s[] = {0.005, 0.010, 0.010, 0.020, 0.021, 0.022};
    static const int rows[] = {1, 0, 2, 0, 0, 1};
    int64_t cur = -1, seen[6];
    for (int k = 0; k < 6; k++) {
        cur = asc_viz_model_step(m, cur, 1, NULL);
        ck_assert_str_eq(ev_name(m, cur), order[k]);
        ck_assert_double_eq_tol(asc_viz_model_event(m, (uint32_t)cur)->t0_us, t0s[k], 1e-12);
        ck_assert_uint_eq(asc_viz_model_event(m, (uint32_t)cur)->row, (uint32_t)rows[k]);
        seen[k] = cur;
    }
    ck_assert_int_eq(asc_viz_model_step(m, cur, 1, NULL), -1);
    for (int k = 4; k >= 0; k--) {
        cur = asc_viz_model_step(m, cur, -1, NULL);
        ck_assert_int_eq(cur, seen[k]);
    }
    ck_assert_int_eq(asc_viz_model_step(m, cur, -1, NULL), -1);
    ck_assert_int_eq(asc_viz_model_step(m, -1, -1, NULL), seen[5]);
    /* only core0's rows: core1's event is skipped */
    uint8_t mask[3] = {1, 1, 0};
    ck_assert_int_eq(asc_viz_model_step(m, seen[1], 1, mask), seen[3]);
    ck_assert_int_eq(asc_viz_model_step(m, seen[3], -1, mask), seen[1]);

    /* cycle 15: MTE2 runs the first mov, two queued behind it (SET_FLAG,
     * the second mov); VECTOR waits on the flag that MTE2 sets at 20, its
     * queue holds the vadd; no flag is set yet */
    AscVizState st;
    ck_assert_int_eq(asc_viz_state_at(&st, m, 0.015, 1), 0);
    ck_assert_uint_eq(st.npipes, 2);
    const AscVizPipeState *pm = &st.pipes[0], *pv = &st.pipes[1];
    ck_assert_uint_eq(pm->row, 0);
    ck_assert_str_eq(ev_name(m, pm->running), "mov_out_to_ub");
    ck_assert_int_eq(pm->waiting, -1);
    ck_assert_uint_eq(pm->queued, 2);
    ck_assert_uint_eq(pm->queue_len, 2);
    ck_assert_str_eq(ev_name(m, pm->queue_first), "SET_FLAG");
    ck_assert_str_eq(ev_name(m, pm->queue_first + 1), "mov_out_to_ub");
    ck_assert_int_eq(pv->running, -1);
    ck_assert_str_eq(ev_name(m, pv->waiting), "WAIT_FLAG");
    ck_assert_int_ge(pv->release, 0);
    const AscVizFlow *f = asc_viz_model_flow(m, (uint32_t)pv->release);
    ck_assert_uint_eq(f->row_s, 0);
    ck_assert_double_eq_tol(f->ts_s, 0.020, 1e-12);
    ck_assert_uint_eq(pv->queued, 1);
    ck_assert_str_eq(ev_name(m, pv->queue_first), "vadd.f16");
    ck_assert_uint_eq(st.nflags, 0);
    asc_viz_state_free(&st);

    /* cycle 20.5: the flag is set (by the SET_FLAG) and not yet consumed */
    ck_assert_int_eq(asc_viz_state_at(&st, m, 0.0205, 1), 0);
    ck_assert_str_eq(ev_name(m, st.pipes[0].running), "SET_FLAG");
    ck_assert_uint_eq(st.pipes[0].queued, 1);
    ck_assert_str_eq(ev_name(m, st.pipes[0].queue_first), "mov_out_to_ub");
    ck_assert_str_eq(ev_name(m, st.pipes[1].waiting), "WAIT_FLAG");
    ck_assert_uint_eq(st.nflags, 1);
    ck_assert_str_eq(asc_viz_model_str(m, asc_viz_model_flow(m, st.flags[0])->cat), "MTE2ToVECTOR");
    ck_assert_str_eq(ev_name(m, st.flag_set[0]), "SET_FLAG");
    asc_viz_state_free(&st);

    /* cycle 22 (the vadd's start, a cursor position): the wait has been
     * released, the flag consumed, both queues are empty */
    ck_assert_int_eq(asc_viz_state_at(&st, m, asc_viz_model_event(m, (uint32_t)seen[5])->t0_us, 1), 0);
    ck_assert_str_eq(ev_name(m, st.pipes[1].running), "vadd.f16");
    ck_assert_int_eq(st.pipes[1].waiting, -1);
    ck_assert_str_eq(ev_name(m, st.pipes[0].running), "mov_out_to_ub");
    ck_assert_uint_eq(st.pipes[0].queued, 0);
    ck_assert_uint_eq(st.pipes[1].queued, 0);
    ck_assert_uint_eq(st.nflags, 0);
    asc_viz_state_free(&st);

    /* all rows: core1's MTE2 too, without a queue counter */
    ck_assert_int_eq(asc_viz_state_at(&st, m, 0.012, -1), 0);
    ck_assert_uint_eq(st.npipes, 3);
    ck_assert_str_eq(ev_name(m, st.pipes[2].running), "mov_out_to_ub");
    ck_assert_int_eq(st.pipes[2].queue_ctr, -1);
    asc_viz_state_free(&st);
    asc_viz_model_free(m);
}
END_TEST

static Suite *viz_suite(void)
{
    Suite *s = suite_create("viz_model");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ours_rows);
    tcase_add_test(tc, test_ours_args_hit_util);
    tcase_add_test(tc, test_ours_flows_deps);
    tcase_add_test(tc, test_search);
    tcase_add_test(tc, test_chrome_array);
    tcase_add_test(tc, test_object_forms);
    tcase_add_test(tc, test_async_spans);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_fixture_errors);
    tcase_add_test(tc, test_fuzz);
    tcase_add_test(tc, test_lod_exact);
    tcase_add_test(tc, test_view);
    tcase_add_test(tc, test_view_fit_rows);
    tcase_add_test(tc, test_counters);
    tcase_add_test(tc, test_deps_back_to_back_waits);
    tcase_add_test(tc, test_alloc_failures);
    tcase_add_test(tc, test_png_roundtrip);
    tcase_add_test(tc, test_elide_words);
    tcase_add_test(tc, test_groups);
    tcase_add_test(tc, test_group_name_interned_while_pool_grows);
    tcase_add_test(tc, test_collapse_many_cores);
    tcase_add_test(tc, test_step_cursor);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return asc_check_run(viz_suite());
}
