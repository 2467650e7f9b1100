/* report.c -- the summary of a run (text and JSON) and the per-instruction
 * reports of --report-dir (msprof op simulator's instr_exe.csv and
 * code_exe.csv, plus summary.json).
 *
 * Users: asc-sim, the Python runtime, tests (byte-identical reports).
 *
 * Every number comes from integer counters kept by the engine; percentages
 * and microseconds are printed from integer arithmetic (tenths of a percent,
 * nanoseconds) so the text is the same on every machine.  JSON keys come out
 * in a fixed order.  Definitions (docs/timing.md §Report):
 *   busy %      busy cycles of a pipe / total cycles (per core; "all" sums
 *               over the cores that have the pipe)
 *   idle        total - busy - every stall of the pipe
 *   cube peak   cube.m0 * cube.n0 * cube.k0_b16 * 2 flops/cycle per cube core
 *   vector peak 512 / vec.base_beats source bytes per cycle per vector core
 *               (two 256-byte source operands per beat)
 *   HBM peak    dma.hbm_bytes_per_cycle
 *   bound       derived from the critical path (explain.c: the class of
 *               cause with the most critical-path cycles), one sentence
 *   profile     name, hash (FNV-1a 64 of every resolved key=value line in
 *               table order) and the keys that differ from the built-in
 *               profile of that name (every --set that changed a value)
 * Every string in the JSON is written by asc_json_quote (asc/json.h: cJSON
 * escapes, invalid UTF-8 as U+FFFD). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "asc/json.h"
#include "asc/outfile.h"
#include "asc/run.h"
#include "explain_pc.h"
#include "textbuf.h"

typedef AscSimPipeStats AscPipeStats;
#define ASC_MAX_EVENTS ASC_SIM_MAX_EVENTS

/* "12.3" from a / b in tenths, rounded down (b = 0 -> "0.0") */
static const char *pct(char *buf, uint64_t a, uint64_t b)
{
    uint64_t t = b ? a * 1000 / b : 0;
    snprintf(buf, 32, "%llu.%llu", (unsigned long long)(t / 10), (unsigned long long)(t % 10));
    return buf;
}

/* "12.345" from a / b with 3 decimals, rounded down */
static const char *dec3(char *buf, uint64_t a, uint64_t b)
{
    uint64_t t = b ? a * 1000 / b : 0;
    snprintf(buf, 32, "%llu.%03llu", (unsigned long long)(t / 1000), (unsigned long long)(t % 1000));
    return buf;
}

/* pipes in msOpProf lane order */
static const uint8_t lanes[] = {ASC_PIPE_S, ASC_PIPE_MTE1, ASC_PIPE_M, ASC_PIPE_FIX, ASC_PIPE_MTE2, ASC_PIPE_V, ASC_PIPE_MTE3};
#define NLANES (sizeof lanes / sizeof lanes[0])

/* Every stall cycle of a unit (the scalar-only kinds are 0 on a pipe). */
static uint64_t stalls(const AscPipeStats *s)
{
    return s->flag_wait_cycles + s->barrier_cycles + s->queue_full_cycles + s->xcore_cycles + s->sync_all_cycles +
           s->drain_cycles;
}

/* Cycles core `core`'s scalar unit waited on its loads and stores: each executed scalar load
 * (GM or UB) costs lat.scalar_load beyond its issue, each store lat.scalar_store (sim/scalar.c
 * scost), counted in the scalar pipe's busy_cycles.  That is waiting on memory, not scalar
 * work: the report moves it out of SCALAR busy into its own stall. */
static uint64_t scalar_mem_cycles(const AscSim *sim, uint32_t core)
{
    AscSimCoreInfo ci;
    if (asc_sim_functional(sim) || !asc_sim_core_info(sim, core, &ci)) return 0;
    const int64_t *v = asc_sim_config(sim)->v;
    uint64_t sum = 0;
    for (uint32_t pc = ci.entry; pc + 4 <= ci.entry + ci.size; pc += 4) {
        const AscInsn *in = asc_sim_insn_at(sim, core, pc);
        if (!in || in->op >= ASC_OP_COUNT) continue;
        uint8_t lat = asc_insn_info[in->op].lat;
        if (lat != ASC_LAT_LOAD && lat != ASC_LAT_STORE) continue;
        AscSimPcStats ps;
        if (asc_sim_pc_stats(sim, core, pc, &ps))
            sum += ps.count * (uint64_t)v[lat == ASC_LAT_LOAD ? ASC_KEY_LAT_SCALAR_LOAD : ASC_KEY_LAT_SCALAR_STORE];
    }
    return sum;
}

/* The pipe's statistics as the report shows them: the scalar unit's load/store waits
 * (scalar_mem_cycles, returned in *mem) are not busy cycles. */
static bool report_pipe_stats(const AscSim *sim, uint32_t core, uint8_t pipe, AscPipeStats *st, uint64_t *mem)
{
    *mem = 0;
    if (!asc_sim_pipe_stats(sim, core, pipe, st)) return false;
    if (pipe == ASC_PIPE_S) {
        *mem = scalar_mem_cycles(sim, core);
        if (*mem > st->busy_cycles) *mem = st->busy_cycles;
        st->busy_cycles -= *mem;
    }
    return true;
}

/* Totals over cores. */
typedef struct Sum {
    uint64_t total;
    uint64_t busy[ASC_PIPE_COUNT], have[ASC_PIPE_COUNT]; /* have = cores with the pipe */
    uint64_t flag[ASC_PIPE_COUNT][ASC_PIPE_COUNT][ASC_MAX_EVENTS]; /* [src][dst][id] */
    uint64_t flag_dst[ASC_PIPE_COUNT][ASC_PIPE_COUNT];              /* [dst][src] */
    uint64_t barrier, conflict_beats, queue_full, hbm_extra, xcore, sync_all, drain, scalar_mem;
    uint64_t bytes[ASC_BUF_COUNT][ASC_BUF_COUNT];
    uint64_t cube_flops, vec_flops, vec_bytes, insns;
    uint64_t cube_cores, vec_cores;
} Sum;

/* Sum the per-core counters; flag waits are kept both by (src, dst, id),
 * for the table, and by (dst, src), for the bound sentence. */
static void summarise(const AscSim *sim, Sum *s)
{
    memset(s, 0, sizeof *s);
    s->total = asc_sim_cycles(sim);
    for (uint32_t i = 0; i < asc_sim_ncores(sim); i++) {
        for (unsigned p = 0; p < ASC_PIPE_COUNT; p++) {
            AscPipeStats st;
            uint64_t mem;
            if (!report_pipe_stats(sim, i, (uint8_t)p, &st, &mem)) continue;
            s->have[p]++;
            s->busy[p] += st.busy_cycles;
            s->scalar_mem += mem;
            s->barrier += st.barrier_cycles;
            s->queue_full += st.queue_full_cycles;
            s->hbm_extra += st.hbm_extra_cycles;
            s->xcore += st.xcore_cycles;
            s->sync_all += st.sync_all_cycles;
            s->drain += st.drain_cycles;
            s->insns += st.insns;
            for (unsigned src = 0; src < ASC_PIPE_COUNT; src++)
                for (unsigned e = 0; e < ASC_MAX_EVENTS; e++) {
                    s->flag[src][p][e] += st.flag_wait_by[src][e];
                    s->flag_dst[p][src] += st.flag_wait_by[src][e];
                }
        }
        AscSimCoreStats c;
        asc_sim_core_stats(sim, i, &c);
        for (unsigned a = 0; a < ASC_BUF_COUNT; a++)
            for (unsigned b = 0; b < ASC_BUF_COUNT; b++) s->bytes[a][b] += c.bytes[a][b];
        s->conflict_beats += c.conflict_beats;
        s->cube_flops += c.cube_flops;
        s->vec_flops += c.vec_flops;
        s->vec_bytes += c.vec_bytes;
        s->cube_cores += asc_sim_has_pipe(sim, i, ASC_PIPE_M);
        s->vec_cores += asc_sim_has_pipe(sim, i, ASC_PIPE_V);
    }
}

/* Bytes in and out of GM over every path: what went through HBM. */
static uint64_t gm_bytes(const Sum *s)
{
    uint64_t g = 0;
    for (unsigned b = 1; b < ASC_BUF_COUNT; b++) g += s->bytes[ASC_BUF_GM][b] + s->bytes[b][ASC_BUF_GM];
    return g;
}

/* The one sentence naming the bound: from the critical path (explain.c). */
static void bound_sentence(const AscSim *sim, const AscExplain *x, char *out, size_t size)
{
    if (asc_sim_functional(sim)) snprintf(out, size, "functional run: no timing");
    else asc_explain_bound(x, out, size);
}

/* A JSON string through the one string writer (asc/json.h: escaped, invalid UTF-8 as U+FFFD). */
static void jstr(TextBuf *b, const char *text)
{
    if (!text) text = "";
    /* a string JSON holds unchanged goes in as it is (asc_json_quote's own shortcut, without
     * its copy: the report quotes ~17,000 short strings) */
    if (!text[asc_json_plain(text)]) {
        tb_str(b, "\"");
        tb_str(b, text);
        tb_str(b, "\"");
        return;
    }
    char *q = asc_json_quote(text, b->a);
    if (!q) b->oom = true;
    else tb_str(b, q);
    asc_free(b->a, q);
}

/* The profile of the run: name, hash of the resolved keys, and the keys
 * that differ from the built-in profile of that name (or from the key
 * defaults when the name is not built in). */
typedef struct Prov {
    uint64_t hash;
    bool builtin;
    unsigned nover;
    unsigned over[ASC_KEY_COUNT];
} Prov;

static void provenance(const AscConfig *cfg, Prov *p)
{
    memset(p, 0, sizeof *p);
    uint64_t h = 1469598103934665603ull;
    char line[160];
    for (unsigned k = 0; k < ASC_KEY_COUNT; k++) {
        int n = snprintf(line, sizeof line, "%s=%lld\n", asc_config_keys[k].key, (long long)cfg->v[k]);
        for (int i = 0; i < n && i < (int)sizeof line; i++) h = (h ^ (uint8_t)line[i]) * 1099511628211ull;
    }
    p->hash = h;
    AscConfig base;
    AscDiags d;
    asc_diags_init(&d, NULL);
    p->builtin = asc_config_builtin(&base, cfg->name, &d);
    asc_diags_free(&d);
    for (unsigned k = 0; k < ASC_KEY_COUNT; k++) {
        int64_t ref = p->builtin ? base.v[k] : asc_config_keys[k].def;
        if (cfg->v[k] != ref) p->over[p->nover++] = k;
    }
}

static void text_profile(TextBuf *b, const AscConfig *cfg)
{
    Prov p;
    provenance(cfg, &p);
    tb_put(b, "profile: %s, hash %016llx, overrides%s:", cfg->name, (unsigned long long)p.hash,
         p.builtin ? "" : " (from the key defaults: not a built-in profile)");
    if (!p.nover) tb_put(b, " none");
    for (unsigned i = 0; i < p.nover; i++)
        tb_put(b, "%s %s=%lld", i ? "," : "", asc_config_keys[p.over[i]].key, (long long)cfg->v[p.over[i]]);
    tb_put(b, "\n");
}

static void json_profile(TextBuf *b, const AscConfig *cfg)
{
    Prov p;
    provenance(cfg, &p);
    tb_put(b, "  \"profile\": {\"name\": ");
    jstr(b, cfg->name);
    tb_put(b, ", \"hash\": \"%016llx\", \"builtin\": %s, \"overrides\": {", (unsigned long long)p.hash,
         p.builtin ? "true" : "false");
    for (unsigned i = 0; i < p.nover; i++) {
        tb_put(b, "%s", i ? ", " : "");
        jstr(b, asc_config_keys[p.over[i]].key);
        tb_put(b, ": %lld", (long long)cfg->v[p.over[i]]);
    }
    tb_put(b, "}},\n");
}

#define ASC_EXPLAIN_TEXT_SEGS 24

/* The critical path, by cause and segment by segment, and the what-ifs. */
static void text_explain(TextBuf *b, const AscSim *sim, const AscExplain *x)
{
    char t1[32];
    if (!x || asc_sim_functional(sim)) return;
    uint64_t total = asc_explain_total(x);
    tb_put(b, "\ncritical path (%llu cycles, walked back from the last event; docs/timing.md, Explain)\n",
         (unsigned long long)total);
    for (unsigned c = 0; c < ASC_CAUSE_COUNT; c++) {
        uint64_t v = asc_explain_cause_cycles(x, c);
        if (v) tb_put(b, "  %-38s %9llu  %5s%%\n", asc_cause_name(c), (unsigned long long)v, pct(t1, v, total));
    }
    uint32_t n = asc_explain_nsegs(x);
    tb_put(b, "segments (%u, in time order%s):\n", n, n > ASC_EXPLAIN_TEXT_SEGS ? "; the last ones, all in --json" : "");
    for (uint32_t k = n > ASC_EXPLAIN_TEXT_SEGS ? n - ASC_EXPLAIN_TEXT_SEGS : 0; k < n; k++) {
        AscExplainSeg g;
        asc_explain_seg(x, k, &g);
        tb_put(b, "  %8llu-%-8llu %-24s %s\n", (unsigned long long)g.t0, (unsigned long long)g.t1, asc_cause_name(g.cause),
             g.why[0] ? g.why : g.insn);
    }
    uint32_t nw = asc_explain_nwhatifs(x);
    if (!nw) return;
    tb_put(b, "what to change (ranked; each saving is a what-if run of the model, total cycles %llu minus the run's)\n",
         (unsigned long long)total);
    for (uint32_t k = 0; k < nw; k++) {
        AscExplainWhatIf w;
        asc_explain_whatif_get(x, k, &w);
        if (w.ok)
            tb_put(b, "  %u. %s %s: %llu cycles (saves %llu, %s%%) [%s]\n", k + 1, w.kernel ? "kernel:" : "cost:  ",
                 w.change, (unsigned long long)w.cycles, (unsigned long long)w.saved, pct(t1, w.saved, total), w.what);
        else tb_put(b, "  %u. %s %s: the what-if run did not finish: %s [%s]\n", k + 1, w.kernel ? "kernel:" : "cost:  ",
                  w.change, w.err, w.what);
    }
}

static void json_explain(TextBuf *b, const AscSim *sim, const AscExplain *x)
{
    if (!x || asc_sim_functional(sim)) return;
    tb_put(b, "  \"critical_path\": {\"cycles\": %llu, \"by_cause\": {", (unsigned long long)asc_explain_total(x));
    bool first = true;
    for (unsigned c = 0; c < ASC_CAUSE_COUNT; c++) {
        uint64_t v = asc_explain_cause_cycles(x, c);
        if (!v) continue;
        tb_put(b, "%s", first ? "" : ", ");
        jstr(b, asc_cause_name(c));
        tb_put(b, ": %llu", (unsigned long long)v);
        first = false;
    }
    tb_put(b, "},\n    \"segments\": [");
    uint32_t n = asc_explain_nsegs(x);
    for (uint32_t k = 0; k < n; k++) {
        AscExplainSeg g;
        asc_explain_seg(x, k, &g);
        char src[300];
        asc_sim_source(sim, g.pc, src, sizeof src);
        /* tb_str / tb_u64, not tb_put: this loop writes most of an explained run's JSON */
        tb_str(b, k ? ",\n      {\"t0\": " : "\n      {\"t0\": ");
        tb_u64(b, g.t0);
        tb_str(b, ", \"t1\": ");
        tb_u64(b, g.t1);
        tb_str(b, ", \"cause\": ");
        jstr(b, asc_cause_name(g.cause));
        tb_str(b, ", \"core\": ");
        tb_u64(b, g.core);
        tb_str(b, ", \"pipe\": ");
        jstr(b, asc_pipe_lane(g.pipe) ? asc_pipe_lane(g.pipe) : "?");
        tb_str(b, ", \"pc\": ");
        tb_u64(b, g.pc);
        tb_str(b, ", \"line\": ");
        jstr(b, src);
        tb_str(b, ", \"insn\": ");
        jstr(b, g.insn);
        if (g.why[0]) {
            tb_str(b, ", \"why\": ");
            jstr(b, g.why);
        }
        tb_str(b, "}");
    }
    uint32_t nw = asc_explain_nwhatifs(x);
    tb_put(b, "%s]", n ? "\n    " : "");
    if (!nw) { /* what-ifs only from asc-sim explain */
        tb_put(b, "},\n");
        return;
    }
    tb_put(b, ",\n    \"whatif\": [");
    for (uint32_t k = 0; k < nw; k++) {
        AscExplainWhatIf w;
        asc_explain_whatif_get(x, k, &w);
        tb_put(b, "%s\n      {\"rank\": %u, \"kind\": \"%s\", \"what\": ", k ? "," : "", k + 1,
             w.kernel ? "kernel" : "cost");
        jstr(b, w.what);
        tb_put(b, ", \"change\": ");
        jstr(b, w.change);
        if (w.ok)
            tb_put(b, ", \"cycles\": %llu, \"saved\": %llu}", (unsigned long long)w.cycles,
                 (unsigned long long)w.saved);
        else {
            tb_put(b, ", \"error\": ");
            jstr(b, w.err);
            tb_put(b, "}");
        }
    }
    tb_put(b, "\n    ]},\n");
}

/* One pc of one core, gathered once for json_lines. */
typedef struct PcRow {
    uint32_t file, line; /* file nfiles, line 0: no line */
    uint64_t cnt, cyc, busy, beats;
} PcRow;

/* json_lines with every pc's line, stats and cost gathered in one pass (the
 * loops of json_lines_scan ask them per line: lines x pcs x recorded events);
 * false (nothing written) when the scratch cannot be allocated. */
static bool json_lines_fast(TextBuf *b, const AscSim *sim, const AscExplain *x)
{
    const AscImage *img = asc_sim_image(sim);
    const AscAlloc *a = asc_sim_alloc(sim);
    uint32_t nc = asc_sim_ncores(sim);
    size_t npc = 0;
    uint32_t *entry = asc_calloc(a, nc ? nc : 1, sizeof *entry), *pcs = asc_calloc(a, nc ? nc : 1, sizeof *pcs);
    size_t *base = asc_calloc(a, nc ? nc : 1, sizeof *base);
    if (!entry || !pcs || !base) {
        asc_free(a, entry), asc_free(a, pcs), asc_free(a, base);
        return false;
    }
    for (uint32_t c = 0; c < nc; c++) {
        AscSimCoreInfo ci;
        asc_sim_core_info(sim, c, &ci);
        entry[c] = ci.entry, pcs[c] = (uint32_t)(ci.size / 4 + (ci.size % 4 != 0)), base[c] = npc;
        npc += pcs[c];
    }
    PcRow *rows = asc_calloc(a, npc ? npc : 1, sizeof *rows);
    uint64_t *busy = asc_calloc(a, npc ? npc : 1, sizeof *busy), *beats = asc_calloc(a, npc ? npc : 1, sizeof *beats);
    if (!rows || !busy || !beats) {
        asc_free(a, rows), asc_free(a, busy), asc_free(a, beats);
        asc_free(a, entry), asc_free(a, pcs), asc_free(a, base);
        return false;
    }
    asc_explain_pc_costs(x, nc, entry, pcs, base, busy, beats);
    size_t r = 0;
    for (uint32_t c = 0; c < nc; c++) {
        for (uint32_t k = 0; k < pcs[c]; k++, r++) {
            uint32_t pc = entry[c] + 4 * k;
            const AscLineEntry *e = asc_image_line_at(img, pc);
            AscSimPcStats ps;
            asc_sim_pc_stats(sim, c, pc, &ps);
            rows[r] = (PcRow){.file = e ? e->file : img->nfiles, .line = e ? e->line : 0, .cnt = ps.count,
                              .cyc = ps.cycles, .busy = busy[r], .beats = beats[r]};
        }
    }
    asc_free(a, busy), asc_free(a, beats);
    asc_free(a, entry), asc_free(a, pcs), asc_free(a, base);
    tb_put(b, "  \"lines\": {");
    bool first = true, ok = true;
    for (uint32_t f = 0; f < img->nfiles + 1 && ok; f++) {
        uint32_t maxline = 0;
        for (size_t i = 0; i < npc; i++)
            if (rows[i].file == f && f < img->nfiles && rows[i].line > maxline) maxline = rows[i].line;
        PcRow *lines = asc_calloc(a, (size_t)maxline + 1, sizeof *lines);
        if (!lines) {
            ok = false;
            break;
        }
        for (size_t i = 0; i < npc; i++) {
            if (rows[i].file != f) continue;
            PcRow *l = &lines[rows[i].line];
            l->cnt += rows[i].cnt, l->cyc += rows[i].cyc, l->busy += rows[i].busy, l->beats += rows[i].beats;
        }
        for (uint32_t line = 0; line <= maxline; line++) {
            const PcRow *l = &lines[line];
            if (!l->cnt) continue;
            char key[320];
            if (f < img->nfiles) snprintf(key, sizeof key, "%s:%u", img->files[f], line);
            else snprintf(key, sizeof key, "?");
            tb_put(b, "%s\n    ", first ? "" : ",");
            jstr(b, key);
            tb_put(b, ": {\"count\": %llu, \"cycles\": %llu", (unsigned long long)l->cnt, (unsigned long long)l->cyc);
            if (x) tb_put(b, ", \"busy_cycles\": %llu, \"conflict_beats\": %llu", (unsigned long long)l->busy,
                        (unsigned long long)l->beats);
            tb_put(b, "}");
            first = false;
        }
        asc_free(a, lines);
    }
    asc_free(a, rows);
    if (!ok) return false;
    tb_put(b, "%s},\n", first ? "" : "\n  ");
    return true;
}

/* Per source line, all cores: executions, cycles (end - start, as
 * code_exe.csv) and UB bank-conflict beats (recorded events; 0 without x). */
static void json_lines_scan(TextBuf *b, const AscSim *sim, const AscExplain *x)
{
    const AscImage *img = asc_sim_image(sim);
    tb_put(b, "  \"lines\": {");
    bool first = true;
    for (uint32_t f = 0; f < img->nfiles + 1; f++) {
        /* lines of file f in order; f == nfiles: pcs with no line */
        uint32_t maxline = 0;
        for (uint32_t c = 0; c < asc_sim_ncores(sim); c++) {
            AscSimCoreInfo ci;
            asc_sim_core_info(sim, c, &ci);
            for (uint32_t pc = ci.entry; pc < ci.entry + ci.size; pc += 4) {
                const AscLineEntry *e = asc_image_line_at(img, pc);
                if ((e ? e->file : img->nfiles) == f && e && e->line > maxline) maxline = e->line;
            }
        }
        for (uint32_t line = 0; line <= maxline; line++) {
            uint64_t cnt = 0, cyc = 0, busy = 0, beats = 0;
            for (uint32_t c = 0; c < asc_sim_ncores(sim); c++) {
                AscSimCoreInfo ci;
                asc_sim_core_info(sim, c, &ci);
                for (uint32_t pc = ci.entry; pc < ci.entry + ci.size; pc += 4) {
                    const AscLineEntry *e = asc_image_line_at(img, pc);
                    if ((e ? e->file : img->nfiles) != f || (e ? e->line : 0) != line) continue;
                    AscSimPcStats ps;
                    asc_sim_pc_stats(sim, c, pc, &ps);
                    cnt += ps.count, cyc += ps.cycles;
                    uint64_t bu, be;
                    if (asc_explain_pc_cost(x, c, pc, &bu, &be)) busy += bu, beats += be;
                }
            }
            if (!cnt) continue;
            char key[320];
            if (f < img->nfiles) snprintf(key, sizeof key, "%s:%u", img->files[f], line);
            else snprintf(key, sizeof key, "?");
            tb_put(b, "%s\n    ", first ? "" : ",");
            jstr(b, key);
            tb_put(b, ": {\"count\": %llu, \"cycles\": %llu", (unsigned long long)cnt, (unsigned long long)cyc);
            if (x) tb_put(b, ", \"busy_cycles\": %llu, \"conflict_beats\": %llu", (unsigned long long)busy,
                        (unsigned long long)beats);
            tb_put(b, "}");
            first = false;
        }
    }
    tb_put(b, "%s},\n", first ? "" : "\n  ");
}

/* Per source line, all cores: executions, cycles (end - start, as
 * code_exe.csv) and UB bank-conflict beats (recorded events; 0 without x):
 * json_lines_fast, or the scan when its scratch cannot be allocated. */
static void json_lines(TextBuf *b, const AscSim *sim, const AscExplain *x)
{
    size_t len = b->n;
    if (!json_lines_fast(b, sim, x)) {
        b->n = len;
        json_lines_scan(b, sim, x);
    }
}

/* Peak rates of the launch (per cycle, all cores): cube flops, vector
 * source bytes, HBM bytes; see the definitions at the top. */
static void roofline(const AscSim *sim, const Sum *s, uint64_t *cube_peak, uint64_t *vec_peak, uint64_t *hbm_peak)
{
    const int64_t *v = asc_sim_config(sim)->v;
    *cube_peak = (uint64_t)(v[ASC_KEY_CUBE_M0] * v[ASC_KEY_CUBE_N0] * v[ASC_KEY_CUBE_K0_B16] * 2) * s->cube_cores;
    *vec_peak = 512 / (uint64_t)v[ASC_KEY_VEC_BASE_BEATS] * s->vec_cores;
    *hbm_peak = (uint64_t)v[ASC_KEY_HBM_BYTES_PER_CYCLE];
}

/* --check-races only (reports without it are unchanged): the races found. */
static void text_races(const AscSim *sim, TextBuf *b)
{
    const AscSimRace *r;
    uint32_t n;
    uint64_t total = asc_sim_races(sim, &r, &n), listed = 0;
    tb_put(b, "\nraces (--check-races): %llu\n", (unsigned long long)total);
    for (uint32_t i = 0; i < n; i++) {
        char msg[1024];
        asc_sim_race_format(sim, &r[i], msg, sizeof msg);
        tb_put(b, "  %s\n", msg);
        listed += r[i].count;
    }
    if (total > listed) tb_put(b, "  ... and %llu more occurrences of other races\n", (unsigned long long)(total - listed));
}

/* a cycle of a race, null when unknown */
static const char *race_cycle(uint64_t c, char *buf, size_t size)
{
    if (c == UINT64_MAX) snprintf(buf, size, "null");
    else snprintf(buf, size, "%llu", (unsigned long long)c);
    return buf;
}

static void json_races(const AscSim *sim, TextBuf *b)
{
    static const char *const kinds[] = {"RAW", "WAR", "WAW"};
    const AscSimRace *r;
    uint32_t n;
    uint64_t total = asc_sim_races(sim, &r, &n);
    tb_put(b, "  \"races\": {\"total\": %llu, \"list\": [", (unsigned long long)total);
    for (uint32_t i = 0; i < n; i++) {
        char name[48], c0[24], c1[24], c2[24], c3[24];
        tb_put(b, "%s\n    {\"kind\": \"%s\", \"core\": \"%s\", \"buf\": \"%s\", \"lo\": %llu, \"hi\": %llu, "
                "\"pipe\": \"%s\", \"pc\": %u, \"start_cycle\": %s, \"done_cycle\": %s, "
                "\"prev_pipe\": \"%s\", \"prev_pc\": %u, \"prev_start_cycle\": %s, \"prev_done_cycle\": %s, "
                "\"count\": %llu}",
             i ? "," : "", kinds[r[i].kind < 3 ? r[i].kind : 0], asc_sim_core_name(sim, r[i].core, name, sizeof name),
             asc_buf_name(r[i].buf < ASC_BUF_COUNT ? r[i].buf : 0), (unsigned long long)r[i].lo,
             (unsigned long long)r[i].hi, asc_pipe_lane(r[i].pipe), r[i].pc,
             race_cycle(r[i].start_cycle, c0, sizeof c0), race_cycle(r[i].done_cycle, c1, sizeof c1),
             asc_pipe_lane(r[i].prev_pipe), r[i].prev_pc, race_cycle(r[i].prev_start_cycle, c2, sizeof c2),
             race_cycle(r[i].prev_done_cycle, c3, sizeof c3), (unsigned long long)r[i].count);
    }
    tb_put(b, "%s]},\n", n ? "\n  " : "");
}

char *asc_sim_report_text(const AscSim *sim) { return asc_report_text(sim, NULL); }

char *asc_report_text(const AscSim *sim, const AscExplain *x)
{
    TextBuf b = {.a = asc_sim_alloc(sim)};
    Sum s;
    summarise(sim, &s);
    char t1[32], t2[32], name[48];
    uint64_t mhz = (uint64_t)asc_sim_config(sim)->v[ASC_KEY_CLOCK_MHZ];
    const AscKernelInfo *k = asc_sim_kernel(sim);
    tb_put(&b, "kernel %s (%s) on %s: %u block%s, %u core%s%s\n", k->name, asc_kernel_kind_name(k->kind), asc_sim_config(sim)->name,
         asc_sim_blocks(sim), asc_sim_blocks(sim) == 1 ? "" : "s", asc_sim_ncores(sim),
         asc_sim_ncores(sim) == 1 ? "" : "s", asc_sim_functional(sim) ? ", functional (no timing)" : "");
    tb_put(&b, "total: %llu cycles = %s us at %llu MHz; %llu instructions\n", (unsigned long long)s.total,
         dec3(t1, s.total, mhz), (unsigned long long)mhz, (unsigned long long)asc_sim_insns(sim));
    text_profile(&b, asc_sim_config(sim));
    /* per core and pipe busy % */
    tb_put(&b, "\nbusy %% of %llu cycles\n%-18s", (unsigned long long)s.total, "core");
    for (unsigned i = 0; i < NLANES; i++)
        if (s.have[lanes[i]]) tb_put(&b, " %7s", asc_pipe_lane(lanes[i]));
    tb_put(&b, "\n");
    for (uint32_t c = 0; c < asc_sim_ncores(sim); c++) {
        tb_put(&b, "%-18s", asc_sim_core_name(sim, c, name, sizeof name));
        for (unsigned i = 0; i < NLANES; i++) {
            unsigned p = lanes[i];
            if (!s.have[p]) continue;
            AscPipeStats st;
            uint64_t mem;
            if (!report_pipe_stats(sim, c, (uint8_t)p, &st, &mem)) tb_put(&b, " %7s", "-");
            else tb_put(&b, " %6s%%", pct(t1, st.busy_cycles, s.total));
        }
        tb_put(&b, "\n");
    }
    if (asc_sim_ncores(sim) > 1) {
        tb_put(&b, "%-18s", "all");
        for (unsigned i = 0; i < NLANES; i++)
            if (s.have[lanes[i]]) tb_put(&b, " %6s%%", pct(t1, s.busy[lanes[i]], s.total * s.have[lanes[i]]));
        tb_put(&b, "\n");
    }
    /* stalls */
    tb_put(&b, "\nstalls (cycles, all cores)\n");
    bool any = false;
    for (unsigned sp = 0; sp < ASC_PIPE_COUNT; sp++)
        for (unsigned d = 0; d < ASC_PIPE_COUNT; d++)
            for (unsigned e = 0; e < ASC_MAX_EVENTS; e++)
                if (s.flag[sp][d][e]) {
                    tb_put(&b, "  flag wait %s->%s id %u: %llu\n", asc_pipe_lane(sp), asc_pipe_lane(d), e,
                         (unsigned long long)s.flag[sp][d][e]);
                    any = true;
                }
    if (!any) tb_put(&b, "  flag waits: 0\n");
    tb_put(&b, "  barrier waits: %llu\n", (unsigned long long)s.barrier);
    tb_put(&b, "  bank-conflict extra beats: %llu\n", (unsigned long long)s.conflict_beats);
    tb_put(&b, "  queue-full (scalar): %llu\n", (unsigned long long)s.queue_full);
    if (s.scalar_mem)
        tb_put(&b, "  load/store latency (scalar, not busy): %llu\n", (unsigned long long)s.scalar_mem);
    tb_put(&b, "  HBM contention (extra transfer cycles): %llu\n", (unsigned long long)s.hbm_extra);
    if (s.xcore) tb_put(&b, "  cross-core waits (scalar): %llu\n", (unsigned long long)s.xcore);
    if (s.sync_all) tb_put(&b, "  sync_all waits (scalar): %llu\n", (unsigned long long)s.sync_all);
    /* bytes */
    tb_put(&b, "\nbytes moved\n");
    any = false;
    for (unsigned a = 0; a < ASC_BUF_COUNT; a++)
        for (unsigned d = 0; d < ASC_BUF_COUNT; d++)
            if (s.bytes[a][d]) {
                tb_put(&b, "  %s->%s: %llu\n", asc_buf_name(a), asc_buf_name(d), (unsigned long long)s.bytes[a][d]);
                any = true;
            }
    if (!any) tb_put(&b, "  none\n");
    tb_put(&b, "FLOPs: cube %llu, vector %llu\n", (unsigned long long)s.cube_flops, (unsigned long long)s.vec_flops);
    /* roofline */
    uint64_t cp, vp, hp;
    roofline(sim, &s, &cp, &vp, &hp);
    tb_put(&b, "\nroofline (achieved / peak per cycle)\n");
    if (cp) tb_put(&b, "  cube:   %s / %llu flops (%s%%)\n", dec3(t1, s.cube_flops, s.total), (unsigned long long)cp,
                 pct(t2, s.cube_flops, s.total * cp));
    if (vp) tb_put(&b, "  vector: %s / %llu source bytes (%s%%)\n", dec3(t1, s.vec_bytes, s.total), (unsigned long long)vp,
                 pct(t2, s.vec_bytes, s.total * vp));
    tb_put(&b, "  HBM:    %s / %llu bytes (%s%%)\n", dec3(t1, gm_bytes(&s), s.total), (unsigned long long)hp,
         pct(t2, gm_bytes(&s), s.total * hp));
    tb_put(&b, "  arithmetic intensity: %s flops per GM byte\n", dec3(t1, s.cube_flops + s.vec_flops, gm_bytes(&s)));
    text_explain(&b, sim, x);
    char bound[256];
    bound_sentence(sim, x, bound, sizeof bound);
    tb_put(&b, "\n%s\n", bound);
    if (asc_sim_checks_races(sim)) text_races(sim, &b);
    return tb_done(&b);
}

static void json_pipe(TextBuf *b, const AscPipeStats *st, uint64_t total, bool scalar, uint64_t mem)
{
    char t[32];
    uint64_t w = stalls(st) + mem;
    uint64_t idle = total > st->busy_cycles + w ? total - st->busy_cycles - w : 0;
    tb_put(b, "{\"insns\": %llu, \"busy_cycles\": %llu, \"busy_pct\": %s, \"conflict_cycles\": %llu, "
            "\"hbm_extra_cycles\": %llu, \"flag_wait_cycles\": %llu, \"barrier_cycles\": %llu, ",
         (unsigned long long)st->insns, (unsigned long long)st->busy_cycles, pct(t, st->busy_cycles, total),
         (unsigned long long)st->conflict_cycles, (unsigned long long)st->hbm_extra_cycles,
         (unsigned long long)st->flag_wait_cycles, (unsigned long long)st->barrier_cycles);
    if (scalar)
        tb_put(b, "\"queue_full_cycles\": %llu, \"xcore_cycles\": %llu, \"sync_all_cycles\": %llu, \"drain_cycles\": %llu, "
                  "\"load_store_wait_cycles\": %llu, ",
             (unsigned long long)st->queue_full_cycles, (unsigned long long)st->xcore_cycles,
             (unsigned long long)st->sync_all_cycles, (unsigned long long)st->drain_cycles, (unsigned long long)mem);
    tb_put(b, "\"idle_cycles\": %llu}", (unsigned long long)idle);
}

char *asc_sim_report_json(const AscSim *sim) { return asc_report_json(sim, NULL); }

char *asc_report_json(const AscSim *sim, const AscExplain *x)
{
    TextBuf b = {.a = asc_sim_alloc(sim)};
    Sum s;
    summarise(sim, &s);
    char t1[32], t2[32], name[48];
    uint64_t mhz = (uint64_t)asc_sim_config(sim)->v[ASC_KEY_CLOCK_MHZ];
    const AscKernelInfo *k = asc_sim_kernel(sim);
    tb_put(&b, "{\n  \"tool\": \"asc-sim\",\n  \"kernel\": ");
    jstr(&b, k->name);
    tb_put(&b, ",\n  \"kind\": \"%s\",\n  \"target\": ", asc_kernel_kind_name(k->kind));
    jstr(&b, asc_sim_config(sim)->name);
    tb_put(&b, ",\n");
    json_profile(&b, asc_sim_config(sim));
    tb_put(&b, "  \"blocks\": %u,\n  \"cores\": %u,\n  \"functional\": %s,\n  \"clock_mhz\": %llu,\n",
         asc_sim_blocks(sim), asc_sim_ncores(sim), asc_sim_functional(sim) ? "true" : "false", (unsigned long long)mhz);
    tb_put(&b, "  \"total_cycles\": %llu,\n  \"microseconds\": %s,\n  \"instructions\": %llu,\n",
         (unsigned long long)s.total, dec3(t1, s.total, mhz), (unsigned long long)asc_sim_insns(sim));
    tb_put(&b, "  \"per_core\": [\n");
    for (uint32_t c = 0; c < asc_sim_ncores(sim); c++) {
        AscSimCoreInfo co;
        asc_sim_core_info(sim, c, &co);
        tb_put(&b, "    {\"core\": \"%s\", \"kind\": \"%s\", \"block_idx\": %llu, \"end_cycle\": %llu, \"pipes\": {",
             asc_sim_core_name(sim, c, name, sizeof name), asc_core_kind_name(co.kind),
             (unsigned long long)co.block_idx, (unsigned long long)co.end_cycle);
        bool first = true;
        for (unsigned i = 0; i < NLANES; i++) {
            AscPipeStats st;
            uint64_t mem;
            if (!report_pipe_stats(sim, c, lanes[i], &st, &mem)) continue;
            tb_put(&b, "%s\n      \"%s\": ", first ? "" : ",", asc_pipe_lane(lanes[i]));
            json_pipe(&b, &st, s.total, lanes[i] == ASC_PIPE_S, mem);
            first = false;
        }
        tb_put(&b, "}}%s\n", c + 1 < asc_sim_ncores(sim) ? "," : "");
    }
    tb_put(&b, "  ],\n  \"stalls\": {\n    \"flag_waits\": [");
    bool first = true;
    for (unsigned sp = 0; sp < ASC_PIPE_COUNT; sp++)
        for (unsigned d = 0; d < ASC_PIPE_COUNT; d++)
            for (unsigned e = 0; e < ASC_MAX_EVENTS; e++)
                if (s.flag[sp][d][e]) {
                    tb_put(&b, "%s{\"src\": \"%s\", \"dst\": \"%s\", \"id\": %u, \"cycles\": %llu}", first ? "" : ", ",
                         asc_pipe_lane(sp), asc_pipe_lane(d), e, (unsigned long long)s.flag[sp][d][e]);
                    first = false;
                }
    tb_put(&b, "],\n    \"barrier_cycles\": %llu,\n    \"bank_conflict_beats\": %llu,\n    \"queue_full_cycles\": %llu,\n"
             "    \"hbm_contention_cycles\": %llu,\n    \"xcore_cycles\": %llu,\n    \"sync_all_cycles\": %llu,\n"
             "    \"scalar_load_store_wait_cycles\": %llu\n  },\n",
         (unsigned long long)s.barrier, (unsigned long long)s.conflict_beats, (unsigned long long)s.queue_full,
         (unsigned long long)s.hbm_extra, (unsigned long long)s.xcore, (unsigned long long)s.sync_all,
         (unsigned long long)s.scalar_mem);
    tb_put(&b, "  \"bytes\": {");
    first = true;
    for (unsigned a = 0; a < ASC_BUF_COUNT; a++)
        for (unsigned d = 0; d < ASC_BUF_COUNT; d++)
            if (s.bytes[a][d]) {
                tb_put(&b, "%s\"%s->%s\": %llu", first ? "" : ", ", asc_buf_name(a), asc_buf_name(d),
                     (unsigned long long)s.bytes[a][d]);
                first = false;
            }
    uint64_t cp, vp, hp;
    roofline(sim, &s, &cp, &vp, &hp);
    tb_put(&b, "},\n  \"flops\": {\"cube\": %llu, \"vector\": %llu},\n", (unsigned long long)s.cube_flops,
         (unsigned long long)s.vec_flops);
    tb_put(&b, "  \"roofline\": {\n");
    tb_put(&b, "    \"cube\": {\"achieved_per_cycle\": %s, \"peak_per_cycle\": %llu, \"pct\": %s},\n",
         dec3(t1, s.cube_flops, s.total), (unsigned long long)cp, pct(t2, s.cube_flops, s.total * cp));
    tb_put(&b, "    \"vector\": {\"achieved_per_cycle\": %s, \"peak_per_cycle\": %llu, \"pct\": %s},\n",
         dec3(t1, s.vec_bytes, s.total), (unsigned long long)vp, pct(t2, s.vec_bytes, s.total * vp));
    tb_put(&b, "    \"hbm\": {\"achieved_per_cycle\": %s, \"peak_per_cycle\": %llu, \"pct\": %s},\n",
         dec3(t1, gm_bytes(&s), s.total), (unsigned long long)hp, pct(t2, gm_bytes(&s), s.total * hp));
    tb_put(&b, "    \"intensity_flops_per_gm_byte\": %s\n  },\n", dec3(t1, s.cube_flops + s.vec_flops, gm_bytes(&s)));
    char bound[256];
    bound_sentence(sim, x, bound, sizeof bound);
    if (asc_sim_checks_races(sim)) json_races(sim, &b);
    json_lines(&b, sim, x);
    json_explain(&b, sim, x);
    tb_put(&b, "  \"bound\": ");
    jstr(&b, bound);
    tb_put(&b, "\n}\n");
    return tb_done(&b);
}

/* ---- --report-dir ------------------------------------------------------------- */

typedef struct LineKey {
    uint32_t file, line, idx;
} LineKey;

/* (file, line) order for code_exe.csv; idx (the pc) breaks ties so qsort,
 * which is not stable, still gives one order. */
static int cmp_line(const void *a, const void *b)
{
    const LineKey *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Write a whole file through path.tmp and a rename, so a reader never sees
 * half a report. */
static bool write_text(const char *path, const char *text, AscDiags *d)
{
    /* asc/outfile.h: an exclusive temporary beside the file (never a planted symlink), renamed
     * into place only when complete */
    return asc_out_write(NULL, path, text, strlen(text), d);
}

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or newline. */
static void csv_field(TextBuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        tb_put(b, "%s", s);
        return;
    }
    tb_put(b, "\"");
    for (; *s; s++) {
        if (*s == '"') tb_put(b, "\"\"");
        else tb_put(b, "%c", *s);
    }
    tb_put(b, "\"");
}

/* cycles / mhz in microseconds with 6 decimals, rounded down (as the trace) */
static const char *us6(char *buf, uint64_t cycles, uint64_t mhz)
{
    if (!mhz) mhz = 1;
    uint64_t v = cycles / mhz * 1000000u + cycles % mhz * 1000000u / mhz;
    snprintf(buf, 32, "%llu.%06llu", (unsigned long long)(v / 1000000u), (unsigned long long)(v % 1000000u));
    return buf;
}

/* <core>_instr_exe.csv, one row per executed instruction (pc order):
 *   instr             mnemonic (SET_FLAG / WAIT_FLAG for the flag ops, as in the trace)
 *   addr              pc, byte offset in .text
 *   pipe              lane name (SCALAR, MTE2, VECTOR, ...)
 *   call_count        times executed
 *   cycles            sum of end - start (occupancy and its stalls)
 *   running_time(us)  cycles / clock_mhz
 *   detail            the instruction text and its source line
 * <core>_code_exe.csv, one row per source line ((file, line) order): code
 * (file:line), call_count, cycles, running_time(us) summed over its pcs. */
static bool core_csvs(const AscSim *sim, uint32_t ci, const char *dir, AscDiags *d)
{
    AscSimCoreInfo p;
    asc_sim_core_info(sim, ci, &p);
    const AscImage *img = asc_sim_image(sim);
    uint64_t mhz = (uint64_t)asc_sim_config(sim)->v[ASC_KEY_CLOCK_MHZ];
    char name[48], path[1100], text[128], src[300], t[32], detail[460];
    asc_sim_core_name(sim, ci, name, sizeof name);
    TextBuf b = {.a = asc_sim_alloc(sim)};
    tb_put(&b, "instr,addr,pipe,call_count,cycles,running_time(us),detail\n");
    uint32_t n = p.size / 4;
    for (uint32_t i = 0; i < n; i++) {
        AscSimPcStats pst, *ps = &pst;
        asc_sim_pc_stats(sim, ci, p.entry + 4 * i, ps);
        if (!ps->count) continue;
        const AscInsn *in = asc_sim_insn_at(sim, ci, p.entry + 4 * i);
        const AscInsnInfo *ii = &asc_insn_info[in->op];
        uint8_t pipe = ii->pipe;
        if (pipe == ASC_PIPE_DYN)
            pipe = in->op == ASC_OP_SET_FLAG ? in->psrc : in->op == ASC_OP_WAIT_FLAG ? in->pdst : in->pipe;
        asc_insn_print(in, text, sizeof text);
        asc_sim_source(sim, p.entry + 4 * i, src, sizeof src);
        if (src[0]) snprintf(detail, sizeof detail, "%s (%s)", text, src);
        else snprintf(detail, sizeof detail, "%s", text);
        csv_field(&b, in->op == ASC_OP_SET_FLAG ? "SET_FLAG" : in->op == ASC_OP_WAIT_FLAG ? "WAIT_FLAG" : ii->mnemonic);
        tb_put(&b, ",0x%04x,%s,%llu,%llu,%s,", p.entry + 4 * i, asc_pipe_lane(pipe) ? asc_pipe_lane(pipe) : "ALL",
             (unsigned long long)ps->count, (unsigned long long)ps->cycles, us6(t, ps->cycles, mhz));
        csv_field(&b, detail);
        tb_put(&b, "\n");
    }
    char *csv = tb_done(&b);
    snprintf(path, sizeof path, "%s/%s_instr_exe.csv", dir, name);
    bool ok = csv && write_text(path, csv, d);
    asc_free(asc_sim_alloc(sim), csv);
    if (!ok) return false;

    /* code_exe.csv: per source line, in (file, line) order */
    LineKey *keys = asc_calloc(asc_sim_alloc(sim), n ? n : 1, sizeof *keys);
    if (!keys) return false;
    uint32_t nk = 0;
    for (uint32_t i = 0; i < n; i++) {
        AscSimPcStats ps;
        asc_sim_pc_stats(sim, ci, p.entry + 4 * i, &ps);
        if (!ps.count) continue;
        const AscLineEntry *e = asc_image_line_at(img, p.entry + 4 * i);
        keys[nk++] = (LineKey){e ? e->file : UINT32_MAX, e ? e->line : 0, i};
    }
    qsort(keys, nk, sizeof *keys, cmp_line);
    TextBuf b2 = {.a = asc_sim_alloc(sim)};
    tb_put(&b2, "code,call_count,cycles,running_time(us)\n");
    for (uint32_t i = 0; i < nk;) {
        uint64_t cnt = 0, cyc = 0;
        uint32_t j = i;
        for (; j < nk && keys[j].file == keys[i].file && keys[j].line == keys[i].line; j++) {
            AscSimPcStats ps;
            asc_sim_pc_stats(sim, ci, p.entry + 4 * keys[j].idx, &ps);
            cnt += ps.count;
            cyc += ps.cycles;
        }
        if (keys[i].file < img->nfiles) {
            snprintf(src, sizeof src, "%s:%u", img->files[keys[i].file], keys[i].line);
            csv_field(&b2, src);
        } else tb_put(&b2, "?");
        tb_put(&b2, ",%llu,%llu,%s\n", (unsigned long long)cnt, (unsigned long long)cyc, us6(t, cyc, mhz));
        i = j;
    }
    asc_free(asc_sim_alloc(sim), keys);
    csv = tb_done(&b2);
    snprintf(path, sizeof path, "%s/%s_code_exe.csv", dir, name);
    ok = csv && write_text(path, csv, d);
    asc_free(asc_sim_alloc(sim), csv);
    return ok;
}

bool asc_sim_report_dir(const AscSim *sim, const char *dir, AscDiags *d) { return asc_report_dir(sim, NULL, dir, d); }

bool asc_report_dir(const AscSim *sim, const AscExplain *x, const char *dir, AscDiags *d)
{
    /* like msprof --output: create the directory (one level) when missing */
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "create", dir, strerror(errno));
        return false;
    }
    for (uint32_t c = 0; c < asc_sim_ncores(sim); c++)
        if (!core_csvs(sim, c, dir, d)) return false;
    char *json = asc_report_json(sim, x);
    char path[1100];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    bool ok = json && write_text(path, json, d);
    asc_free(asc_sim_alloc(sim), json);
    return ok;
}
