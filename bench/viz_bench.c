/* viz_bench.c -- how fast asc-viz loads and draws a one-million-event trace.
 *
 * Generates a synthetic trace in the asc-sim/msOpProf layout (4 AI cores,
 * each a cube core and two vector cores, 52 lanes, X events with full args,
 * SET_FLAG/WAIT_FLAG pairs with flow arrows), then measures in one run:
 *   - load: asc_viz_model_load_file (parse + index), goal < 2 s;
 *   - one fully zoomed-out frame and one zoomed-in frame drawn headless
 *     (software renderer, 1600x900), goal < 16 ms each.
 * Prints each figure next to its goal as a ratio (< 1.00 meets the goal).
 * usage: viz_bench [--events N] [--keep FILE] */
#define _POSIX_C_SOURCE 200809L
#include "asc/viz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

typedef struct Lane {
    const char *pid, *tid, *cname, *op;
    long long t;
    long n;
} Lane;

static long write_trace(const char *path, long nev)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const double mhz = 1850;
    static const char *const vec_lanes[][3] = {{"SCALAR", "startup", "add"},
                                               {"MTE2", "thread_state_iowait", "mov_out_to_ub"},
                                               {"VECTOR", "cq_build_failed", "vadd.f16"},
                                               {"MTE3", "rail_response", "mov_ub_to_out"}};
    static const char *const cube_lanes[][3] = {{"SCALAR", "startup", "add"},
                                                {"MTE1", "thread_state_running", "load_l1_to_l0a_2d"},
                                                {"MTE2", "thread_state_iowait", "mov_out_to_l1"},
                                                {"CUBE", "background_memory_dump", "mmad.f16f32"},
                                                {"FIXP", "thread_state_unknown", "fix_l0c_to_out"}};
    static const int order[] = {1, 2, 3, 4, 5, 6, 7, 8};
    (void)order;
    Lane lanes[64];
    int nl = 0;
    char pids[12][32];
    fprintf(f, "{\"schemaVersion\":2,\"displayTimeUnit\":\"ns\",\"profilingType\":\"op\",\n\"traceEvents\":[\n");
    for (int core = 0; core < 4; core++) {
        for (int k = 0; k < 3; k++) {
            char *pid = pids[core * 3 + k];
            if (k == 0) snprintf(pid, 32, "core%d.cubecore0", core);
            else snprintf(pid, 32, "core%d.veccore%d", core, k - 1);
            int sort = k == 0 ? core * 3 + 1 : core * 3 + 2 + (k - 1);
            fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\"%s\",\"args\":{\"name\":\"%s\"}},\n", pid, pid);
            fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":\"%s\",\"args\":{\"sort_index\":%d}},\n", pid, sort);
            int n = k == 0 ? 5 : 4;
            for (int l = 0; l < n; l++) {
                const char *const *d = k == 0 ? cube_lanes[l] : vec_lanes[l];
                static const char *const names[] = {"SCALAR", "FLOWCTRL", "MTE1", "CUBE", "FIXP", "MTE2", "VECTOR", "MTE3"};
                int si = 0;
                for (int q = 0; q < 8; q++) if (!strcmp(names[q], d[0])) si = q + 1;
                fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":\"%s\",\"tid\":\"%s\",\"args\":{\"name\":\"%s\"}},\n", pid, d[0], d[0]);
                fprintf(f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":\"%s\",\"tid\":\"%s\",\"args\":{\"sort_index\":%d}},\n", pid, d[0], si);
                lanes[nl++] = (Lane){pid, d[0], d[1], d[2], 0, 0};
            }
        }
    }
    uint64_t seed = 42;
    long written = 0, flows = 0;
    long per_lane = nev / nl;
    for (int li = 0; li < nl; li++) {
        Lane *L = &lanes[li];
        long n = li == nl - 1 ? nev - written : per_lane;
        bool vec = strstr(L->pid, "veccore") != NULL;
        bool is_mte2 = !strcmp(L->tid, "MTE2"), is_vec = !strcmp(L->tid, "VECTOR");
        for (long i = 0; i < n; i++) {
            long long c0 = L->t + lcg(&seed) % 40, c1 = c0 + 20 + lcg(&seed) % 300;
            L->t = c1;
            const char *name = L->op, *cname = L->cname, *stall = "";
            int bank = 0;
            bool wait = vec && is_vec && i % 8 == 0, set = vec && is_mte2 && i % 8 == 7;
            if (wait) { name = "WAIT_FLAG"; cname = "yellow"; stall = "flag MTE2->V id 0"; }
            if (set) { name = "SET_FLAG"; cname = "black"; c1 = c0 + 1; L->t = c1; }
            if (is_vec && !wait && i % 5 == 0) bank = 1 + (int)(lcg(&seed) % 7);
            fprintf(f,
                    "{\"name\":\"%s\",\"cname\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,\"pid\":\"%s\",\"tid\":\"%s\","
                    "\"args\":{\"pc\":\"0x%04lx\",\"instr\":\"%s x1, x2, x31\",\"source\":\"bench.s:%ld\",\"start_cycle\":%lld,"
                    "\"end_cycle\":%lld,\"bytes\":%d,\"bank_conflict_beats\":%d,\"stall\":\"%s\"}},\n",
                    name, cname, c0 / mhz, (c1 - c0) / mhz, L->pid, L->tid, (i * 4) & 0xffff, name, 10 + i % 200,
                    c0, c1, is_mte2 ? 4096 : 0, bank, stall);
            if (set) {
                fprintf(f, "{\"name\":\"flow\",\"ph\":\"s\",\"id\":\"intra_%ld\",\"cat\":\"MTE2ToVECTOR\",\"pid\":\"%s\",\"tid\":\"MTE2\",\"ts\":%.6f},\n",
                        flows, L->pid, c1 / mhz);
                fprintf(f, "{\"name\":\"flow\",\"ph\":\"t\",\"bp\":\"e\",\"id\":\"intra_%ld\",\"cat\":\"MTE2ToVECTOR\",\"pid\":\"%s\",\"tid\":\"VECTOR\",\"ts\":%.6f},\n",
                        flows, L->pid, (c1 + 1) / mhz);
                flows++;
            }
            written++;
        }
    }
    fprintf(f, "{\"name\":\"HBM GB/s\",\"ph\":\"C\",\"pid\":\"chip\",\"ts\":0,\"args\":{\"GB/s\":59.2}}\n],\n");
    fprintf(f, "\"otherData\":{\"tool\":\"viz_bench\",\"clock_mhz\":1850,\"target\":\"ascend910b\"}}\n");
    if (fclose(f) != 0) return -1;
    return written;
}

static double draw_ms(AscVizOffscreen *o, const AscVizModel *m, const AscVizView *v, int reps)
{
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        double t = now_s();
        asc_viz_offscreen_draw(o, m, v, NULL);
        t = (now_s() - t) * 1e3;
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    long nev = 1000000;
    const char *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--events") && i + 1 < argc) nev = atol(argv[++i]);
        else if (!strcmp(argv[i], "--keep") && i + 1 < argc) keep = argv[++i];
        else { fprintf(stderr, "usage: viz_bench [--events N] [--keep FILE]\n"); return 1; }
    }
    char tmp[] = "/tmp/viz_bench_XXXXXX";
    const char *path = keep;
    if (!path) {
        int fd = mkstemp(tmp);
        if (fd < 0) { perror("mkstemp"); return 2; }
        close(fd);
        path = tmp;
    }
    double t = now_s();
    long n = write_trace(path, nev);
    if (n < 0) { fprintf(stderr, "viz_bench: cannot write %s\n", path); return 2; }
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fclose(f);
    printf("trace: %ld X events, %.1f MB, written in %.2f s (%s)\n", n, bytes / 1e6, now_s() - t, path);

    AscVizModel *m = NULL;
    AscVizError err;
    t = now_s();
    if (asc_viz_model_load_file(&m, path, NULL, &err)) {
        fprintf(stderr, "viz_bench: load failed: %s\n", err.msg);
        return 2;
    }
    double load_s = now_s() - t;
    AscVizView v;
    /* every lane drawn (collapse -1): the same frame as before cores could
     * collapse; the collapsed one (the default for 52 lanes) is measured too */
    AscVizViewDesc vd = {.width = 1600, .height = 900, .collapse = -1};
    asc_viz_view_init(&v, m, &vd);
    t = now_s();
    AscVizOffscreen *o = asc_viz_offscreen_create(v.width, v.height, NULL, &err);
    if (!o) { fprintf(stderr, "viz_bench: %s\n", err.msg); return 2; }
    double setup_ms = (now_s() - t) * 1e3;
    asc_viz_view_fit(&v, m);
    double out_ms = draw_ms(o, m, &v, 5);
    double s0, s1;
    asc_viz_model_span(m, &s0, &s1);
    double mid = (s0 + s1) / 2, w = (s1 - s0) / 2000;
    asc_viz_view_set_window(&v, mid - w / 2, mid + w / 2);
    double in_ms = draw_ms(o, m, &v, 5);
    asc_viz_view_collapse_all(&v, true);
    asc_viz_view_fit(&v, m);
    double col_ms = draw_ms(o, m, &v, 5);
    asc_viz_view_collapse_all(&v, false);
    asc_viz_view_set_window(&v, mid - w / 2, mid + w / 2);
    uint32_t first, last, vis = 0;
    for (uint32_t r = 0; r < asc_viz_model_row_count(m); r++) {
        asc_viz_model_window(m, r, v.t0, v.t1, &first, &last);
        vis += last - first;
    }
    printf("rows %u, events %u, flows %u\n", asc_viz_model_row_count(m), asc_viz_model_event_count(m),
           asc_viz_model_flow_count(m));
    printf("%-34s %9s %9s %7s\n", "measure", "value", "goal", "ratio");
    printf("%-34s %7.3f s %7.3f s %7.2f\n", "load (parse + index)", load_s, 2.0, load_s / 2.0);
    printf("%-34s %6.2f ms %6.2f ms %7.2f\n", "frame, fully zoomed out", out_ms, 16.0, out_ms / 16.0);
    printf("%-34s %6.2f ms %6.2f ms %7.2f\n", "frame, zoomed in (1/2000 of span)", in_ms, 16.0, in_ms / 16.0);
    printf("%-34s %6.2f ms %6.2f ms %7.2f\n", "frame, zoomed out, cores collapsed", col_ms, 16.0, col_ms / 16.0);
    printf("(font atlas and renderer setup, once: %.1f ms; zoomed-in window holds %u events)\n", setup_ms, vis);
    asc_viz_offscreen_free(o);
    asc_viz_view_free(&v);
    asc_viz_model_free(m);
    if (!keep) unlink(path);
    return 0;
}
