/* fuzz_viz.c -- libFuzzer harness of the viewer's trace loader
 * (asc_viz_model_load_mem, the headless model of asc-viz) and of the
 * queries the viewer makes on a loaded model.
 *
 * Input: a Chrome trace-event JSON text.  The first byte also picks a clock
 * override (0 = from the trace) so both timing paths run.
 *
 * Invariants checked (abort = a finding):
 *   - a failed load returns -1, no model, a non-empty message, and an
 *     offset that is -1 or inside the input (with line/col when known);
 *   - loading twice gives the same events (determinism);
 *   - a loaded model: rows own contiguous event ranges covering every event,
 *     events are sorted by start time in their row and end no earlier than
 *     they start, flows point at existing rows, names resolve;
 *   - window/lod/busy/hit/deps/search/event_args, counter tracks (samples
 *     inside [vmin, vmax], LOD max >= min) and the view (fit, zoom, pan,
 *     hit, counter tracks) stay in range: indices valid or -1, fractions in
 *     [0, 1]. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/viz.h"

#define FUZZ_CHECK(c, msg)                                                                          \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s: %s\n", __FILE__, __LINE__, #c, msg); \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

static void check_model(const AscVizModel *m)
{
    uint32_t nev = asc_viz_model_event_count(m), nrows = asc_viz_model_row_count(m);
    uint32_t nproc = asc_viz_model_process_count(m);
    double t0, t1;
    asc_viz_model_span(m, &t0, &t1);
    if (nev) FUZZ_CHECK(t0 <= t1, "span ends before it starts");

    uint32_t next = 0;
    for (uint32_t r = 0; r < nrows; r++) {
        AscVizRowInfo ri = asc_viz_model_row(m, r);
        FUZZ_CHECK(ri.first == next, "rows do not own contiguous event ranges");
        FUZZ_CHECK(ri.count <= nev && ri.first <= nev - ri.count, "a row's events lie outside the event table");
        FUZZ_CHECK(ri.proc < nproc, "a row's process does not exist");
        FUZZ_CHECK(ri.process != NULL && ri.lane != NULL, "a row has no names");
        next = ri.first + ri.count;
        for (uint32_t i = ri.first; i < ri.first + ri.count; i++) {
            const AscVizEvent *e = asc_viz_model_event(m, i);
            FUZZ_CHECK(e->row == r, "an event is stored in another row's range");
            FUZZ_CHECK(!(e->t1_us < e->t0_us), "an event ends before it starts");
            if (i > ri.first) FUZZ_CHECK(!(e->t0_us < asc_viz_model_event(m, i - 1)->t0_us), "events not sorted");
            FUZZ_CHECK(asc_viz_model_str(m, e->name) != NULL, "an event name does not resolve");
        }
        FUZZ_CHECK(asc_viz_model_find_row(m, ri.process, ri.lane) >= 0, "a row cannot be found by its names");

        /* queries on the row */
        double w0 = t0, w1 = t1 > t0 ? t1 : t0 + 1.0;
        uint32_t first, last;
        asc_viz_model_window(m, r, w0, w1, &first, &last);
        FUZZ_CHECK(first <= last && last <= nev, "window out of range");
        float busy[16], stall[16];
        asc_viz_model_lod(m, r, w0, w1, 16, busy, stall);
        for (int c = 0; c < 16; c++)
            FUZZ_CHECK(busy[c] >= 0.0f && busy[c] <= 1.0f + 1e-4f && stall[c] >= 0.0f && stall[c] <= 1.0f + 1e-4f,
                       "lod fraction outside [0, 1]");
        double u = asc_viz_model_utilisation(m, r, w0, w1);
        FUZZ_CHECK(u >= 0.0 && u <= 1.0 + 1e-9, "utilisation outside [0, 1]");
        (void)asc_viz_model_busy(m, r, w0, w1, true);
        for (int k = 0; k <= 4; k++) {
            int64_t h = asc_viz_model_hit(m, r, w0 + (w1 - w0) * k / 4.0, (w1 - w0) / 50.0);
            FUZZ_CHECK(h == -1 || (h >= ri.first && h < (int64_t)ri.first + ri.count), "hit outside the row");
        }
    }
    FUZZ_CHECK(next == nev, "rows do not cover every event");

    for (uint32_t p = 0; p < nproc; p++) FUZZ_CHECK(asc_viz_model_process_name(m, p) != NULL, "no process name");
    for (uint32_t f = 0; f < asc_viz_model_flow_count(m); f++) {
        const AscVizFlow *fl = asc_viz_model_flow(m, f);
        FUZZ_CHECK(fl->row_s < nrows && fl->row_t < nrows, "a flow points at a missing row");
    }

    for (uint32_t i = 0; i < nev && i < 64; i++) {
        AscVizDeps dp = asc_viz_model_deps(m, i);
        FUZZ_CHECK(dp.wait >= -1 && dp.wait < (int64_t)nev && dp.set >= -1 && dp.set < (int64_t)nev &&
                       dp.producer >= -1 && dp.producer < (int64_t)nev && dp.flow >= -1 &&
                       dp.flow < (int64_t)asc_viz_model_flow_count(m),
                   "deps out of range");
        AscVizEventArgs ea;
        if (asc_viz_model_event_args(m, i, &ea) == 0) {
            FUZZ_CHECK(memchr(ea.instr, 0, sizeof ea.instr) && memchr(ea.pc, 0, sizeof ea.pc) &&
                           memchr(ea.source, 0, sizeof ea.source) && memchr(ea.stall, 0, sizeof ea.stall) &&
                           memchr(ea.other, 0, sizeof ea.other),
                       "event args not terminated");
        }
    }

    /* counter tracks: sample ranges, values inside [vmin, vmax], LOD */
    for (uint32_t c = 0; c < asc_viz_model_counter_count(m) && c < 16; c++) {
        AscVizCounterInfo ci = asc_viz_model_counter(m, c);
        FUZZ_CHECK(ci.proc < nproc && ci.process != NULL && ci.name != NULL, "a counter without process or name");
        FUZZ_CHECK(ci.count >= 1 && !(ci.vmax < ci.vmin), "a counter without samples or with vmax < vmin");
        for (uint32_t i = ci.first; i < ci.first + ci.count && i < ci.first + 64; i++) {
            double t, val;
            asc_viz_model_counter_sample(m, i, &t, &val);
            FUZZ_CHECK(!(val < ci.vmin) && !(val > ci.vmax), "a counter sample outside [vmin, vmax]");
        }
        double w1 = t1 > t0 ? t1 : t0 + 1.0;
        (void)asc_viz_model_counter_value(m, c, (t0 + w1) / 2);
        float lo[8], hi[8], last[8];
        asc_viz_model_counter_lod(m, c, t0, w1, 8, lo, hi, last);
        for (int k = 0; k < 8; k++) FUZZ_CHECK(!(hi[k] < lo[k]), "counter LOD max below min");
    }

    AscVizSearch s;
    memset(&s, 0, sizeof s);
    if (asc_viz_search_run(&s, m, "v") == 0) {
        for (uint32_t i = 0; i < s.count; i++) FUZZ_CHECK(s.items[i] < nev, "search result out of range");
        int64_t k = asc_viz_search_step(&s, m, (t0 + t1) / 2, 1);
        FUZZ_CHECK(k >= -1 && k < (int64_t)s.count, "search step out of range");
        k = asc_viz_search_step(&s, m, (t0 + t1) / 2, -1);
        FUZZ_CHECK(k >= -1 && k < (int64_t)s.count, "search step out of range");
        asc_viz_search_free(&s);
    }

    AscVizView v;
    AscVizViewDesc vd = {.width = 800, .height = 400};
    if (asc_viz_view_init(&v, m, &vd) == 0) {
        asc_viz_view_fit(&v, m);
        asc_viz_view_zoom(&v, 4.0, 300);
        asc_viz_view_pan(&v, -50);
        asc_viz_view_scroll(&v, 30);
        for (int y = 0; y < 400; y += 37)
            for (int x = 0; x < 800; x += 97) {
                int64_t h = asc_viz_view_hit(&v, m, x, y);
                FUZZ_CHECK(h >= -1 && h < (int64_t)nev, "view hit out of range");
                int row = asc_viz_view_row_at(&v, y);
                FUZZ_CHECK(row >= -1 && row < (int)nrows, "row_at out of range");
            }
        asc_viz_view_show_counters(&v, true);
        for (int y = 0; y < 400; y += 23) {
            int c = asc_viz_view_counter_at(&v, y);
            FUZZ_CHECK(c >= -1 && c < (int)asc_viz_model_counter_count(m), "counter_at out of range");
        }
        asc_viz_view_zoom(&v, 1e-9, 0);
        asc_viz_view_zoom(&v, 1e12, 799);
        asc_viz_view_free(&v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    AscVizLoadDesc desc = {.mhz = 0};
    if (size && data[0] == ' ') desc.mhz = 1000; /* a leading space: with a clock override */
    AscVizModel *m1 = NULL, *m2 = NULL;
    AscVizError e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    int r1 = asc_viz_model_load_mem(&m1, (const char *)data, size, &desc, &e1);
    int r2 = asc_viz_model_load_mem(&m2, (const char *)data, size, &desc, &e2);
    FUZZ_CHECK(r1 == r2, "two loads of one input disagree");
    if (r1 != 0) {
        FUZZ_CHECK(r1 == -1, "a failed load does not return -1");
        FUZZ_CHECK(m1 == NULL, "a failed load returned a model");
        FUZZ_CHECK(memchr(e1.msg, 0, sizeof e1.msg) && e1.msg[0], "a failed load has no message");
        FUZZ_CHECK(strcmp(e1.msg, e2.msg) == 0 && e1.offset == e2.offset, "two loads give different errors");
        FUZZ_CHECK(e1.offset >= -1 && e1.offset <= (int64_t)size, "error offset outside the input");
        if (e1.offset >= 0) FUZZ_CHECK(e1.line >= 1 && e1.col >= 1, "error offset without line/col");
        return 0;
    }
    FUZZ_CHECK(m1 != NULL && m2 != NULL, "a successful load returned no model");
    uint32_t n = asc_viz_model_event_count(m1);
    FUZZ_CHECK(n == asc_viz_model_event_count(m2), "two loads give different event counts");
    for (uint32_t i = 0; i < n; i++) {
        const AscVizEvent *a = asc_viz_model_event(m1, i), *b = asc_viz_model_event(m2, i);
        FUZZ_CHECK(memcmp(&a->t0_us, &b->t0_us, sizeof a->t0_us) == 0 && memcmp(&a->t1_us, &b->t1_us, 8) == 0 &&
                       a->row == b->row && a->name == b->name && a->src_off == b->src_off,
                   "two loads give different events");
        FUZZ_CHECK(a->src_off < size, "an event's source offset lies outside the input");
    }
    double mhz = asc_viz_model_mhz(m1);
    FUZZ_CHECK(mhz >= 0 && !isnan(mhz), "bad clock");
    asc_viz_model_free(m2);
    check_model(m1);
    asc_viz_model_free(m1);
    return 0;
}
