/* viz_model.c -- the headless timeline model of asc-viz.
 *
 * Users: viz_draw.c (drawing), asc_viz_main.c, tests/unit/test_viz_model.c,
 * bench/viz_bench.c.  Builds, after viz_json.c has read the records:
 *   - rows: one per (process, lane) in msOpProf order (sort indexes, then the
 *     known lane order SCALAR..WAIT_FLAG, then numeric ids, then first
 *     appearance); lanes with nothing to draw are dropped;
 *   - per-row event ranges sorted by start, a running max of ends (so the
 *     first event of a window is a binary search away), nesting depths;
 *   - per-row unions of busy and of stall time with prefix sums, which answer
 *     "busy time inside [a, b]" in O(log n): utilisation and the level of
 *     detail (one busy fraction per pixel column, cost O(pixels log n));
 *   - flag arrows (flow s -> t/f) matched by (cat, id).
 * It also holds the view (pixel layout).  Nothing here prints, exits or
 * touches SDL. */
#include "viz_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* msOpProf lane order (docs/sources.md §Trace format, utility.cpp getLaneOrderMap) */
static const char *const lane_order[] = {"SCALAR", "FLOWCTRL", "MTE1", "CUBE", "FIXP",
                                         "MTE2", "VECTOR", "MTE3", "CACHEMISS", "SCALARLDST",
                                         "ALL", "USERMARK", "EVENT", "SET_FLAG", "WAIT_FLAG"};

/* A pleasant fixed palette for events with neither cname nor known lane. */
static const uint32_t name_palette[] = {0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xEDC948,
                                        0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC, 0x86BCB6, 0x8CD17D};

static const char *S(const AscVizModel *m, uint32_t id)
{
    return m->pool + m->str_off[id];
}

/* ---- loading ------------------------------------------------------------ */

static void set_oom(AscVizError *err, const char *what)
{
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->offset = -1;
    snprintf(err->msg, sizeof err->msg, "out of memory %s", what);
}

static int load(AscVizModel *m, AscVizError *err, AscVizModel **out)
{
    int rc = -1;
    if (viz_intern(m, "", 0) == VIZ_NONE) set_oom(err, "while loading the trace");
    else rc = viz_parse(m, err) || viz_model_finish(m, err) ? -1 : 0;
    if (rc) {
        /* keep the model's view of the error, but drop the model */
        AscVizError keep;
        if (err) keep = *err;
        asc_viz_model_free(m);
        if (err) *err = keep;
        return -1;
    }
    *out = m;
    return 0;
}

/* The model itself comes from the caller's allocator too. */
static AscVizModel *model_new(const AscVizLoadDesc *desc)
{
    AscVizModel tmp;
    memset(&tmp, 0, sizeof tmp);
    if (desc && desc->alloc) tmp.al = *desc->alloc;
    AscVizModel *m = viz_malloc(&tmp, sizeof *m);
    if (!m) return NULL;
    *m = tmp;
    if (desc) m->mhz = desc->mhz > 0 ? desc->mhz : 0;
    return m;
}

int asc_viz_model_load_mem(AscVizModel **out, const char *buf, size_t len,
                           const AscVizLoadDesc *desc, AscVizError *err)
{
    *out = NULL;
    if (err) memset(err, 0, sizeof *err), err->offset = -1;
    AscVizModel *m = model_new(desc);
    if (!m) {
        set_oom(err, "creating the model");
        return -1;
    }
    if (!(m->buf = viz_malloc(m, len + 1))) {
        asc_viz_model_free(m);
        set_oom(err, "copying the trace");
        return -1;
    }
    memcpy(m->buf, buf, len);
    m->buf[len] = 0;
    m->len = len;
    return load(m, err, out);
}

int asc_viz_model_load_file(AscVizModel **out, const char *path, const AscVizLoadDesc *desc,
                            AscVizError *err)
{
    *out = NULL;
    if (err) memset(err, 0, sizeof *err), err->offset = -1;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (err) snprintf(err->msg, sizeof err->msg, "cannot open the trace: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (err) snprintf(err->msg, sizeof err->msg, "cannot read the trace: not a regular file");
        close(fd);
        return -1;
    }
    AscVizModel *m = model_new(desc);
    if (!m) {
        close(fd);
        set_oom(err, "creating the model");
        return -1;
    }
    m->len = (size_t)st.st_size;
    if (m->len > 0) {
        void *p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            if (err) snprintf(err->msg, sizeof err->msg, "cannot map the trace: %s", strerror(errno));
            close(fd);
            m->len = 0;
            asc_viz_model_free(m);
            return -1;
        }
        posix_madvise(p, m->len, POSIX_MADV_SEQUENTIAL);
        m->buf = p;
        m->mapped = true;
    } else if (!(m->buf = viz_calloc(m, 1, 1))) {
        close(fd);
        asc_viz_model_free(m);
        set_oom(err, "reading the trace");
        return -1;
    }
    close(fd);
    return load(m, err, out);
}

void asc_viz_model_free(AscVizModel *m)
{
    if (!m) return;
    if (m->mapped) munmap(m->buf, m->len);
    else viz_free(m, m->buf);
    viz_free(m, m->pool); viz_free(m, m->str_off); viz_free(m, m->shash);
    viz_free(m, m->procs); viz_free(m, m->lanes); viz_free(m, m->lhash); viz_free(m, m->lhash_v);
    viz_free(m, m->ev); viz_free(m, m->be); viz_free(m, m->fe);
    viz_free(m, m->ae); viz_free(m, m->async); viz_free(m, m->row_async_first);
    viz_free(m, m->ctr); viz_free(m, m->tracks); viz_free(m, m->thash); viz_free(m, m->thash_v);
    viz_free(m, m->row_lane); viz_free(m, m->row_first); viz_free(m, m->row_rgb); viz_free(m, m->proc_order);
    viz_free(m, m->row_proc); viz_free(m, m->pmax);
    for (uint32_t r = 0; r < m->nrows; r++) {
        if (m->busy) { viz_free(m, m->busy[r].iv); viz_free(m, m->busy[r].pre); }
        if (m->stall) { viz_free(m, m->stall[r].iv); viz_free(m, m->stall[r].pre); }
    }
    viz_free(m, m->busy); viz_free(m, m->stall);
    viz_free(m, m->flows); viz_free(m, m->flow_by_t); viz_free(m, m->row_flow_first);
    viz_free(m, m->groups); viz_free(m, m->proc_group); viz_free(m, m->gpipe); viz_free(m, m->row_pipe);
    AscVizModel self = *m; /* the allocator outlives the struct it lives in */
    viz_free(&self, m);
}

/* ---- finishing: pairing, rows, indexes --------------------------------- */

static int cmp_be(const void *a, const void *b)
{
    const VizBE *x = a, *y = b;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_fe(const void *a, const void *b)
{
    const VizFlowEnd *x = a, *y = b;
    if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->ph != y->ph) { /* at the same time a start comes first */
        int rx = x->ph == 's' ? 0 : x->ph == 't' ? 1 : 2, ry = y->ph == 's' ? 0 : y->ph == 't' ? 1 : 2;
        if (rx != ry) return rx < ry ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* async records: by (process, cat, id), then file order (a b before its e) */
static int cmp_ae(const void *a, const void *b)
{
    const VizAsyncEnd *x = a, *y = b;
    if (x->proc != y->proc) return x->proc < y->proc ? -1 : 1;
    if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_async(const void *a, const void *b)
{
    const AscVizAsync *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->t0_us != y->t0_us) return x->t0_us < y->t0_us ? -1 : 1;
    return x->t1_us < y->t1_us ? -1 : x->t1_us > y->t1_us;
}

/* 7. async spans: each b with the next e of the same (process, cat, id), on the b's row */
static int finish_async(AscVizModel *m, uint32_t nr)
{
    m->row_async_first = viz_calloc(m, nr + 2, sizeof *m->row_async_first);
    m->async = viz_malloc(m, (m->nae + 1) * sizeof *m->async);
    if (!m->row_async_first || !m->async) return -1;
    if (m->nae) qsort(m->ae, m->nae, sizeof *m->ae, cmp_ae);
    const VizAsyncEnd *open = NULL;
    for (uint32_t i = 0; i < m->nae; i++) {
        const VizAsyncEnd *a = &m->ae[i];
        if (open && (a->proc != open->proc || a->cat != open->cat || a->id != open->id)) open = NULL;
        if (a->begin) { open = a; continue; }
        if (!open || m->lanes[open->lane].row == VIZ_NONE || a->ts < open->ts) { open = NULL; continue; }
        AscVizAsync *s = &m->async[m->nasync++];
        *s = (AscVizAsync){.t0_us = open->ts, .t1_us = a->ts, .c0 = open->c0, .c1 = open->c1,
                           .row = m->lanes[open->lane].row, .name = open->name, .cycles = open->cycles};
        if (m->span0 <= m->span1 && s->t1_us > m->span1) m->span1 = s->t1_us;
        open = NULL;
    }
    qsort(m->async, m->nasync, sizeof *m->async, cmp_async);
    for (uint32_t i = 0; i < m->nasync; i++) m->row_async_first[m->async[i].row + 1]++;
    for (uint32_t r = 0; r < nr; r++) m->row_async_first[r + 1] += m->row_async_first[r];
    return 0;
}

static int cmp_ev(const void *a, const void *b)
{
    const AscVizEvent *x = a, *y = b;
    if (x->t0_us != y->t0_us) return x->t0_us < y->t0_us ? -1 : 1;
    return x->src_off < y->src_off ? -1 : x->src_off > y->src_off;
}

static bool parse_int(const char *s, int64_t *v)
{
    if (!*s) return false;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || errno) return false;
    *v = x;
    return true;
}

static int known_lane(const char *s)
{
    for (int i = 0; i < (int)(sizeof lane_order / sizeof lane_order[0]); i++)
        if (strcmp(s, lane_order[i]) == 0) return i + 1;
    return 0;
}

typedef struct SortKey {
    int64_t k1, k2, k3;
    uint32_t idx;
} SortKey;

static int cmp_key(const void *a, const void *b)
{
    const SortKey *x = a, *y = b;
    if (x->k1 != y->k1) return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2) return x->k2 < y->k2 ? -1 : 1;
    if (x->k3 != y->k3) return x->k3 < y->k3 ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int fail_oom(AscVizError *err)
{
    set_oom(err, "while indexing the trace");
    return -1;
}

static int cmp_ctr(const void *a, const void *b)
{
    const VizCtrSample *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Counter tracks in display order: by process, then the msOpProf rank of
 * the name's last word ("queue MTE2" sorts with MTE2), then first
 * appearance; samples grouped by track and sorted by (ts, file order). */
static int finish_counters(AscVizModel *m)
{
    if (!m->ntracks) return 0;
    SortKey *tk = viz_malloc(m, m->ntracks * sizeof *tk);
    uint32_t *remap = viz_malloc(m, m->ntracks * sizeof *remap);
    VizCtrTrack *nt = viz_malloc(m, m->ntracks * sizeof *nt);
    if (!tk || !remap || !nt) {
        viz_free(m, tk); viz_free(m, remap); viz_free(m, nt);
        return -1;
    }
    for (uint32_t t = 0; t < m->ntracks; t++) {
        const char *name = S(m, m->tracks[t].name), *sp = strrchr(name, ' ');
        int kl = known_lane(sp ? sp + 1 : name);
        tk[t].k1 = m->procs[m->tracks[t].proc].order;
        tk[t].k2 = kl ? kl : INT64_MAX / 2;
        tk[t].k3 = m->tracks[t].seq;
        tk[t].idx = t;
    }
    qsort(tk, m->ntracks, sizeof *tk, cmp_key);
    for (uint32_t k = 0; k < m->ntracks; k++) {
        nt[k] = m->tracks[tk[k].idx];
        remap[tk[k].idx] = k;
    }
    viz_free(m, tk);
    viz_free(m, m->tracks);
    m->tracks = nt;
    m->tracks_cap = m->ntracks;
    for (uint32_t i = 0; i < m->nctr; i++) m->ctr[i].track = remap[m->ctr[i].track];
    viz_free(m, remap);
    qsort(m->ctr, m->nctr, sizeof *m->ctr, cmp_ctr);
    for (uint32_t i = 0; i < m->nctr; i++) {
        VizCtrTrack *t = &m->tracks[m->ctr[i].track];
        double v = m->ctr[i].v;
        if (!t->count) { t->first = i; t->vmin = t->vmax = v; }
        if (v < t->vmin) t->vmin = v;
        if (v > t->vmax) t->vmax = v;
        t->count++;
    }
    return 0;
}

static int build_union(const AscVizModel *m, uint32_t first, uint32_t last, bool stall, VizUnion *u)
{
    uint32_t n = 0;
    for (uint32_t i = first; i < last; i++)
        if (((m->ev[i].flags & ASC_VIZ_EV_STALL) != 0) == stall) n++;
    u->iv = viz_malloc(m, (n ? n : 1) * sizeof *u->iv);
    u->pre = viz_malloc(m, (n + 1) * sizeof *u->pre);
    if (!u->iv || !u->pre) return -1;
    u->n = 0;
    for (uint32_t i = first; i < last; i++) {
        const AscVizEvent *e = &m->ev[i];
        if (((e->flags & ASC_VIZ_EV_STALL) != 0) != stall) continue;
        if (u->n && e->t0_us <= u->iv[u->n - 1].b) {
            if (e->t1_us > u->iv[u->n - 1].b) u->iv[u->n - 1].b = e->t1_us;
        } else {
            u->iv[u->n].a = e->t0_us;
            u->iv[u->n].b = e->t1_us;
            u->n++;
        }
    }
    u->pre[0] = 0;
    for (uint32_t k = 0; k < u->n; k++) u->pre[k + 1] = u->pre[k] + (u->iv[k].b - u->iv[k].a);
    return 0;
}

/* Groups (a chip's cores): consecutive display processes sharing the name
 * part before the first '.'; pipes = distinct lane labels of the group's
 * rows in msOpProf order, then first appearance. */
static int build_groups(AscVizModel *m)
{
    uint32_t np = m->nprocs_shown;
    m->groups = viz_calloc(m, np + 1, sizeof *m->groups);
    m->proc_group = viz_calloc(m, np + 1, sizeof *m->proc_group);
    m->gpipe = viz_calloc(m, m->nrows + 1, sizeof *m->gpipe);
    m->row_pipe = viz_calloc(m, m->nrows + 1, sizeof *m->row_pipe);
    if (!m->groups || !m->proc_group || !m->gpipe || !m->row_pipe) return -1;
    uint32_t r = 0, c = 0, npipes = 0;
    for (uint32_t p = 0; p < np; p++) {
        const char *name = S(m, m->procs[m->proc_order[p]].label), *dot = strchr(name, '.');
        size_t plen = dot && dot > name ? (size_t)(dot - name) : strlen(name);
        VizGroup *g = m->ngroups ? &m->groups[m->ngroups - 1] : NULL;
        bool join = false;
        if (g && dot && dot > name) {
            const char *gn = S(m, g->name);
            const char *prev = S(m, m->procs[m->proc_order[p - 1]].label);
            join = strlen(gn) == plen && !strncmp(gn, name, plen) && strchr(prev, '.') != NULL;
        }
        if (!join) {
            uint32_t id = viz_intern(m, name, plen);
            if (id == VIZ_NONE) return -1;
            g = &m->groups[m->ngroups++];
            memset(g, 0, sizeof *g);
            g->name = id;
            g->proc0 = p;
            g->row0 = r;
            g->ctr0 = c;
            g->pipe0 = npipes;
        }
        g->nproc++;
        m->proc_group[p] = m->ngroups - 1;
        for (; r < m->nrows && m->row_proc[r] == p; r++) {
            uint32_t lab = m->lanes[m->row_lane[r]].label, k = 0;
            while (k < g->npipe && m->gpipe[g->pipe0 + k] != lab) k++;
            if (k == g->npipe) {
                /* insert by lane rank (stable: first appearance among equals) */
                int rank = known_lane(S(m, lab));
                int64_t rk = rank ? rank : INT64_MAX / 2;
                uint32_t pos = g->npipe;
                while (pos > 0) {
                    int r2 = known_lane(S(m, m->gpipe[g->pipe0 + pos - 1]));
                    int64_t rk2 = r2 ? r2 : INT64_MAX / 2;
                    if (rk2 <= rk) break;
                    pos--;
                }
                for (uint32_t q = g->npipe; q > pos; q--) m->gpipe[g->pipe0 + q] = m->gpipe[g->pipe0 + q - 1];
                m->gpipe[g->pipe0 + pos] = lab;
                g->npipe++;
                npipes++;
            }
            g->nrow++;
        }
        for (; c < m->ntracks && m->procs[m->tracks[c].proc].order == p; c++) g->nctr++;
    }
    for (uint32_t gi = 0; gi < m->ngroups; gi++) {
        const VizGroup *g = &m->groups[gi];
        for (uint32_t k = g->row0; k < g->row0 + g->nrow; k++) {
            uint32_t lab = m->lanes[m->row_lane[k]].label, q = 0;
            while (q < g->npipe && m->gpipe[g->pipe0 + q] != lab) q++;
            m->row_pipe[k] = q;
        }
    }
    return 0;
}

int viz_model_finish(AscVizModel *m, AscVizError *err)
{
    /* 1. pair B/E per lane in time order */
    if (m->nbe) {
        qsort(m->be, m->nbe, sizeof *m->be, cmp_be);
        uint32_t *stack = viz_malloc(m, m->nbe * sizeof *stack);
        if (!stack) return fail_oom(err);
        uint32_t sp = 0;
        for (uint32_t i = 0; i < m->nbe; i++) {
            const VizBE *b = &m->be[i];
            if (i > 0 && b->lane != m->be[i - 1].lane && sp) break;
            if (b->begin) { stack[sp++] = i; continue; }
            if (!sp) {
                viz_free(m, stack);
                viz_error_at(err, m->buf, m->len, (int64_t)b->off,
                             "unbalanced B/E: an \"E\" event closes nothing (no open \"B\" on the same pid/tid before it)");
                return -1;
            }
            const VizBE *o = &m->be[stack[--sp]];
            if (m->nev + 1 > m->ev_cap) {
                uint32_t nc = m->ev_cap ? m->ev_cap * 2 : 64;
                AscVizEvent *q = viz_realloc(m, m->ev, (size_t)m->ev_cap * sizeof *q, (size_t)nc * sizeof *q);
                if (!q) { viz_free(m, stack); return fail_oom(err); }
                m->ev = q;
                m->ev_cap = nc;
            }
            AscVizEvent *e = &m->ev[m->nev++];
            memset(e, 0, sizeof *e);
            e->t0_us = o->ts;
            e->t1_us = b->ts;
            e->src_off = o->off;
            e->name = o->name != VIZ_NONE ? o->name : b->name != VIZ_NONE ? b->name : 0;
            e->row = o->lane;
            e->rgb = o->rgb != 0xFF000000u ? o->rgb : b->rgb;
            e->flags = (uint8_t)(o->flags | b->flags);
        }
        if (sp) {
            const VizBE *o = &m->be[stack[0]];
            viz_free(m, stack);
            viz_error_at(err, m->buf, m->len, (int64_t)o->off,
                         "unbalanced B/E: this \"B\" event is never closed by an \"E\" on the same pid/tid");
            return -1;
        }
        viz_free(m, stack);
    }

    /* 2. the clock, and exact cycle times when they agree with it */
    if (m->mhz <= 0) m->mhz = m->file_mhz;
    if (m->mhz > 0 && m->file_mhz > 0 && m->mhz == m->file_mhz) {
        for (uint32_t i = 0; i < m->nev; i++) {
            AscVizEvent *e = &m->ev[i];
            if (e->flags & ASC_VIZ_EV_CYCLES) {
                e->t0_us = (double)e->c0 / m->mhz;
                e->t1_us = (double)e->c1 / m->mhz;
            }
        }
    }

    /* 3. rows: lanes with something to draw, in msOpProf order */
    for (uint32_t i = 0; i < m->nfe; i++) m->lanes[m->fe[i].lane].nev++;
    SortKey *keys = viz_malloc(m, ((m->nprocs > m->nlanes ? m->nprocs : m->nlanes) + 1) * sizeof *keys);
    uint32_t *proc_rank = viz_calloc(m, m->nprocs + 1, sizeof *proc_rank);
    bool *proc_used = viz_calloc(m, m->nprocs + 1, sizeof *proc_used);
    if (!keys || !proc_rank || !proc_used) { viz_free(m, keys); viz_free(m, proc_rank); viz_free(m, proc_used); return fail_oom(err); }
    for (uint32_t i = 0; i < m->nlanes; i++)
        if (m->lanes[i].nev) proc_used[m->lanes[i].proc] = true;
    for (uint32_t i = 0; i < m->ntracks; i++) proc_used[m->tracks[i].proc] = true;
    uint32_t np = 0;
    for (uint32_t i = 0; i < m->nprocs; i++) {
        if (!proc_used[i]) continue;
        const VizProc *p = &m->procs[i];
        int64_t num;
        keys[np].k1 = p->has_sort ? p->sort : INT64_MAX;
        keys[np].k2 = parse_int(S(m, p->pid), &num) ? num : INT64_MAX;
        keys[np].k3 = p->seq;
        keys[np].idx = i;
        np++;
    }
    qsort(keys, np, sizeof *keys, cmp_key);
    m->proc_order = viz_malloc(m, (np + 1) * sizeof *m->proc_order);
    if (!m->proc_order) { viz_free(m, keys); viz_free(m, proc_rank); viz_free(m, proc_used); return fail_oom(err); }
    for (uint32_t i = 0; i < np; i++) {
        m->proc_order[i] = keys[i].idx;
        proc_rank[keys[i].idx] = i;
        m->procs[keys[i].idx].order = i;
    }
    m->nprocs_shown = np;
    uint32_t nr = 0;
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const VizLane *l = &m->lanes[i];
        if (!l->nev) continue;
        int64_t num;
        int kl = known_lane(S(m, l->tid));
        if (!kl) kl = known_lane(S(m, l->label));
        keys[nr].k1 = proc_rank[l->proc];
        keys[nr].k2 = l->has_sort ? l->sort : kl ? kl : INT64_MAX / 2;
        keys[nr].k3 = parse_int(S(m, l->tid), &num) ? num : INT64_MAX / 2 + l->seq;
        keys[nr].idx = i;
        nr++;
    }
    qsort(keys, nr, sizeof *keys, cmp_key);
    viz_free(m, proc_used);
    m->nrows = nr;
    m->row_lane = viz_malloc(m, (nr + 1) * sizeof *m->row_lane);
    m->row_proc = viz_malloc(m, (nr + 1) * sizeof *m->row_proc);
    m->row_first = viz_calloc(m, nr + 2, sizeof *m->row_first);
    m->row_rgb = viz_calloc(m, nr + 1, sizeof *m->row_rgb);
    m->busy = viz_calloc(m, nr + 1, sizeof *m->busy);
    m->stall = viz_calloc(m, nr + 1, sizeof *m->stall);
    if (!m->row_lane || !m->row_proc || !m->row_first || !m->row_rgb || !m->busy || !m->stall) {
        viz_free(m, keys); viz_free(m, proc_rank);
        return fail_oom(err);
    }
    for (uint32_t r = 0; r < nr; r++) {
        m->row_lane[r] = keys[r].idx;
        m->lanes[keys[r].idx].row = r;
        m->row_proc[r] = proc_rank[m->lanes[keys[r].idx].proc];
    }
    viz_free(m, keys);
    viz_free(m, proc_rank);
    if (finish_counters(m)) return fail_oom(err);

    /* 4. events grouped by row (counting sort), then by start within a row */
    for (uint32_t i = 0; i < m->nev; i++) {
        m->ev[i].row = m->lanes[m->ev[i].row].row;
        m->row_first[m->ev[i].row + 1]++;
    }
    for (uint32_t r = 0; r < nr; r++) m->row_first[r + 1] += m->row_first[r];
    if (m->nev) {
        AscVizEvent *sorted = viz_malloc(m, m->nev * sizeof *sorted);
        uint32_t *fill = viz_malloc(m, (nr + 1) * sizeof *fill);
        if (!sorted || !fill) { viz_free(m, sorted); viz_free(m, fill); return fail_oom(err); }
        memcpy(fill, m->row_first, nr * sizeof *fill);
        for (uint32_t i = 0; i < m->nev; i++) sorted[fill[m->ev[i].row]++] = m->ev[i];
        viz_free(m, fill);
        viz_free(m, m->ev);
        m->ev = sorted;
        m->ev_cap = m->nev;
    }
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t a = m->row_first[r], b = m->row_first[r + 1];
        bool ok = true;
        for (uint32_t i = a + 1; i < b && ok; i++) ok = cmp_ev(&m->ev[i - 1], &m->ev[i]) <= 0;
        if (!ok) qsort(m->ev + a, b - a, sizeof *m->ev, cmp_ev);
    }

    /* 5. colours, running max of ends, nesting depth, unions */
    m->pmax = viz_malloc(m, (m->nev + 1) * sizeof *m->pmax);
    double *stack = viz_malloc(m, (m->nev + 1) * sizeof *stack);
    if (!m->pmax || !stack) { viz_free(m, stack); return fail_oom(err); }
    m->span0 = DBL_MAX;
    m->span1 = -DBL_MAX;
    for (uint32_t r = 0; r < nr; r++) {
        const VizLane *l = &m->lanes[m->row_lane[r]];
        bool found;
        uint32_t lane_rgb = viz_lane_rgb(S(m, l->label), &found);
        if (!found) lane_rgb = viz_lane_rgb(S(m, l->tid), &found);
        uint32_t a = m->row_first[r], b = m->row_first[r + 1], sp = 0;
        double pm = -DBL_MAX;
        m->row_rgb[r] = found ? lane_rgb : 0xFF000000u;
        for (uint32_t i = a; i < b; i++) {
            AscVizEvent *e = &m->ev[i];
            if (e->rgb == 0xFF000000u)
                e->rgb = found ? lane_rgb
                               : name_palette[(m->str_off[e->name] * 2654435761u >> 7) %
                                              (sizeof name_palette / sizeof name_palette[0])];
            if (m->row_rgb[r] == 0xFF000000u && !(e->flags & ASC_VIZ_EV_STALL)) m->row_rgb[r] = e->rgb;
            if (e->t1_us > pm) pm = e->t1_us;
            m->pmax[i] = pm;
            while (sp && stack[sp - 1] <= e->t0_us) sp--;
            e->depth = sp > 65535 ? 65535 : (uint16_t)sp;
            stack[sp++] = e->t1_us;
            if (e->t0_us < m->span0) m->span0 = e->t0_us;
            if (e->t1_us > m->span1) m->span1 = e->t1_us;
        }
        if (m->row_rgb[r] == 0xFF000000u) m->row_rgb[r] = 0x8C8C8C;
        if (build_union(m, a, b, false, &m->busy[r]) || build_union(m, a, b, true, &m->stall[r])) {
            viz_free(m, stack);
            return fail_oom(err);
        }
    }
    viz_free(m, stack);

    /* 6. flag arrows: s -> t/f with the same (cat, id), chained in time order */
    if (m->nfe) {
        qsort(m->fe, m->nfe, sizeof *m->fe, cmp_fe);
        m->flows = viz_malloc(m, m->nfe * sizeof *m->flows);
        if (!m->flows) return fail_oom(err);
        const VizFlowEnd *start = NULL;
        for (uint32_t i = 0; i < m->nfe; i++) {
            const VizFlowEnd *e = &m->fe[i];
            if (i > 0 && (e->cat != m->fe[i - 1].cat || e->id != m->fe[i - 1].id)) start = NULL;
            if (e->ph == 's') { start = e; continue; }
            if (!start) continue;
            AscVizFlow *f = &m->flows[m->nflows++];
            f->ts_s = start->ts;
            f->ts_t = e->ts;
            f->row_s = m->lanes[start->lane].row;
            f->row_t = m->lanes[e->lane].row;
            f->cat = e->cat;
            start = e->ph == 't' ? e : NULL;
        }
        for (uint32_t i = 0; i < m->nfe; i++) {
            if (m->fe[i].ts < m->span0) m->span0 = m->fe[i].ts;
            if (m->fe[i].ts > m->span1) m->span1 = m->fe[i].ts;
        }
    }
    m->flow_by_t = viz_malloc(m, (m->nflows + 1) * sizeof *m->flow_by_t);
    m->row_flow_first = viz_calloc(m, nr + 2, sizeof *m->row_flow_first);
    if (!m->flow_by_t || !m->row_flow_first) return fail_oom(err);
    {
        SortKey *fk = viz_malloc(m, (m->nflows + 1) * sizeof *fk);
        if (!fk) return fail_oom(err);
        for (uint32_t i = 0; i < m->nflows; i++) {
            fk[i].k1 = m->flows[i].row_t;
            /* ts in picoseconds keeps the integer key exact enough */
            fk[i].k2 = (int64_t)llround(m->flows[i].ts_t * 1e6);
            fk[i].k3 = 0;
            fk[i].idx = i;
            m->row_flow_first[m->flows[i].row_t + 1]++;
        }
        qsort(fk, m->nflows, sizeof *fk, cmp_key);
        for (uint32_t i = 0; i < m->nflows; i++) m->flow_by_t[i] = fk[i].idx;
        for (uint32_t r = 0; r < nr; r++) m->row_flow_first[r + 1] += m->row_flow_first[r];
        viz_free(m, fk);
    }
    if (finish_async(m, nr)) return fail_oom(err);
    if (m->span0 > m->span1) /* counters only: their samples give the span */
        for (uint32_t i = 0; i < m->nctr; i++) {
            if (m->ctr[i].ts < m->span0) m->span0 = m->ctr[i].ts;
            if (m->ctr[i].ts > m->span1) m->span1 = m->ctr[i].ts;
        }
    if (m->span0 > m->span1) { m->span0 = 0; m->span1 = 1; }
    if (m->span1 <= m->span0) m->span1 = m->span0 + 1e-3;
    if (build_groups(m)) return fail_oom(err);
    /* the raw records are no longer needed */
    viz_free(m, m->be); m->be = NULL; m->nbe = 0;
    viz_free(m, m->fe); m->fe = NULL; m->nfe = 0;
    viz_free(m, m->ae); m->ae = NULL; m->nae = 0;
    return 0;
}

/* ---- accessors ---------------------------------------------------------- */

double asc_viz_model_mhz(const AscVizModel *m) { return m->mhz; }
void asc_viz_model_span(const AscVizModel *m, double *t0, double *t1) { *t0 = m->span0; *t1 = m->span1; }
const char *asc_viz_model_str(const AscVizModel *m, uint32_t id) { return id < m->nstr ? S(m, id) : ""; }
uint32_t asc_viz_model_event_count(const AscVizModel *m) { return m->nev; }
const AscVizEvent *asc_viz_model_event(const AscVizModel *m, uint32_t i) { return i < m->nev ? &m->ev[i] : NULL; }
uint32_t asc_viz_model_row_count(const AscVizModel *m) { return m->nrows; }
uint32_t asc_viz_model_process_count(const AscVizModel *m) { return m->nprocs_shown; }
uint32_t asc_viz_model_flow_count(const AscVizModel *m) { return m->nflows; }
uint32_t asc_viz_model_async_count(const AscVizModel *m) { return m->nasync; }
const AscVizAsync *asc_viz_model_async(const AscVizModel *m, uint32_t i) { return i < m->nasync ? &m->async[i] : NULL; }
void asc_viz_model_row_async(const AscVizModel *m, uint32_t row, uint32_t *first, uint32_t *count)
{
    *first = *count = 0;
    if (row >= m->nrows || !m->row_async_first) return;
    *first = m->row_async_first[row];
    *count = m->row_async_first[row + 1] - *first;
}
const AscVizFlow *asc_viz_model_flow(const AscVizModel *m, uint32_t i) { return i < m->nflows ? &m->flows[i] : NULL; }

const char *asc_viz_model_process_name(const AscVizModel *m, uint32_t proc)
{
    return proc < m->nprocs_shown ? S(m, m->procs[m->proc_order[proc]].label) : "";
}

AscVizRowInfo asc_viz_model_row(const AscVizModel *m, uint32_t row)
{
    AscVizRowInfo ri = {"", "", 0, 0, 0, 0};
    if (row >= m->nrows) return ri;
    const VizLane *l = &m->lanes[m->row_lane[row]];
    ri.process = S(m, m->procs[l->proc].label);
    ri.lane = S(m, l->label);
    ri.proc = m->row_proc[row];
    ri.first = m->row_first[row];
    ri.count = m->row_first[row + 1] - m->row_first[row];
    ri.rgb = m->row_rgb[row];
    return ri;
}

int asc_viz_model_find_row(const AscVizModel *m, const char *process, const char *lane)
{
    for (uint32_t r = 0; r < m->nrows; r++) {
        const VizLane *l = &m->lanes[m->row_lane[r]];
        const VizProc *p = &m->procs[l->proc];
        bool pm = !strcmp(S(m, p->label), process) || !strcmp(S(m, p->pid), process);
        bool lm = !strcmp(S(m, l->label), lane) || !strcmp(S(m, l->tid), lane);
        if (pm && lm) return (int)r;
    }
    return -1;
}

/* ---- counters ----------------------------------------------------------- */

uint32_t asc_viz_model_counter_count(const AscVizModel *m) { return m->ntracks; }

AscVizCounterInfo asc_viz_model_counter(const AscVizModel *m, uint32_t c)
{
    AscVizCounterInfo ci = {"", "", 0, 0, 0, 0, 0};
    if (c >= m->ntracks) return ci;
    const VizCtrTrack *t = &m->tracks[c];
    ci.process = S(m, m->procs[t->proc].label);
    ci.name = S(m, t->name);
    ci.proc = m->procs[t->proc].order;
    ci.first = t->first;
    ci.count = t->count;
    ci.vmin = t->vmin;
    ci.vmax = t->vmax;
    return ci;
}

void asc_viz_model_counter_sample(const AscVizModel *m, uint32_t i, double *t_us, double *value)
{
    *t_us = i < m->nctr ? m->ctr[i].ts : 0;
    *value = i < m->nctr ? m->ctr[i].v : 0;
}

/* index of the first sample of track c with ts > t */
static uint32_t ctr_after(const AscVizModel *m, const VizCtrTrack *tr, double t)
{
    uint32_t lo = tr->first, hi = tr->first + tr->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->ctr[mid].ts <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

double asc_viz_model_counter_value(const AscVizModel *m, uint32_t c, double t)
{
    if (c >= m->ntracks) return 0;
    const VizCtrTrack *tr = &m->tracks[c];
    uint32_t i = ctr_after(m, tr, t);
    return i > tr->first ? m->ctr[i - 1].v : 0;
}

void asc_viz_model_counter_lod(const AscVizModel *m, uint32_t c, double t0, double t1, uint32_t ncols,
                               float *lo, float *hi, float *last)
{
    if (!ncols) return;
    if (c >= m->ntracks || !(t1 > t0)) {
        for (uint32_t k = 0; k < ncols; k++) {
            if (lo) lo[k] = 0;
            if (hi) hi[k] = 0;
            if (last) last[k] = 0;
        }
        return;
    }
    const VizCtrTrack *tr = &m->tracks[c];
    uint32_t i = tr->first, end = tr->first + tr->count, hi_i = end;
    while (i < hi_i) { /* first sample with ts >= t0 */
        uint32_t mid = i + (hi_i - i) / 2;
        if (m->ctr[mid].ts < t0) i = mid + 1;
        else hi_i = mid;
    }
    double cur = i > tr->first ? m->ctr[i - 1].v : 0, w = (t1 - t0) / ncols;
    for (uint32_t k = 0; k < ncols; k++) {
        double a = t0 + w * k, b = k + 1 == ncols ? t1 : t0 + w * (k + 1);
        /* the column [a, b) takes every sample in it; the value in force
         * before it counts unless a sample sits exactly at a */
        double mn = cur, mx = cur;
        if (i < end && m->ctr[i].ts <= a) mn = DBL_MAX, mx = -DBL_MAX;
        for (; i < end && m->ctr[i].ts < b; i++) {
            cur = m->ctr[i].v;
            if (cur < mn) mn = cur;
            if (cur > mx) mx = cur;
        }
        if (lo) lo[k] = (float)mn;
        if (hi) hi[k] = (float)mx;
        if (last) last[k] = (float)cur;
    }
}

/* ---- queries ------------------------------------------------------------ */

void asc_viz_model_window(const AscVizModel *m, uint32_t row, double t0, double t1,
                          uint32_t *first, uint32_t *last)
{
    *first = *last = 0;
    if (row >= m->nrows) return;
    uint32_t a = m->row_first[row], b = m->row_first[row + 1];
    uint32_t lo = a, hi = b; /* first i with pmax[i] >= t0 */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->pmax[mid] < t0) lo = mid + 1;
        else hi = mid;
    }
    *first = lo;
    hi = b; /* first i with t0_us > t1 */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->ev[mid].t0_us <= t1) lo = mid + 1;
        else hi = mid;
    }
    *last = lo;
}

/* measure of the union inside (-inf, x] */
static double union_upto(const VizUnion *u, double x)
{
    uint32_t lo = 0, hi = u->n; /* count of intervals with a <= x */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (u->iv[mid].a <= x) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    const VizSpan *s = &u->iv[lo - 1];
    return u->pre[lo - 1] + ((x < s->b ? x : s->b) - s->a);
}

double asc_viz_model_busy(const AscVizModel *m, uint32_t row, double t0, double t1, bool stall)
{
    if (row >= m->nrows || !(t1 > t0)) return 0;
    const VizUnion *u = stall ? &m->stall[row] : &m->busy[row];
    double v = union_upto(u, t1) - union_upto(u, t0);
    return v > 0 ? v : 0;
}

double asc_viz_model_utilisation(const AscVizModel *m, uint32_t row, double t0, double t1)
{
    if (!(t1 > t0)) return 0;
    double u = asc_viz_model_busy(m, row, t0, t1, false) / (t1 - t0);
    return u > 1 ? 1 : u;
}

void asc_viz_model_lod(const AscVizModel *m, uint32_t row, double t0, double t1, uint32_t ncols,
                       float *busy, float *stall)
{
    if (!ncols) return;
    double w = (t1 - t0) / ncols;
    for (int k = 0; k < 2; k++) {
        float *out = k ? stall : busy;
        if (!out) continue;
        if (row >= m->nrows || !(w > 0)) {
            memset(out, 0, ncols * sizeof *out);
            continue;
        }
        const VizUnion *u = k ? &m->stall[row] : &m->busy[row];
        double prev = union_upto(u, t0);
        for (uint32_t i = 0; i < ncols; i++) {
            double b = i + 1 == ncols ? t1 : t0 + w * (i + 1);
            double cur = union_upto(u, b);
            double f = (cur - prev) / w;
            out[i] = (float)(f < 0 ? 0 : f > 1 ? 1 : f);
            prev = cur;
        }
    }
}

int64_t asc_viz_model_hit(const AscVizModel *m, uint32_t row, double t, double tol)
{
    if (row >= m->nrows) return -1;
    uint32_t first, last;
    asc_viz_model_window(m, row, t - tol, t + tol, &first, &last);
    int64_t best = -1, inside = -1;
    double best_d = DBL_MAX;
    for (uint32_t i = last; i-- > first;) {
        const AscVizEvent *e = &m->ev[i];
        if (m->pmax[i] < t - tol) break;
        if (e->t1_us < t - tol) continue;
        if (e->t0_us <= t && t <= e->t1_us) {
            if (inside < 0 || e->depth > m->ev[inside].depth ||
                (e->depth == m->ev[inside].depth &&
                 e->t1_us - e->t0_us < m->ev[inside].t1_us - m->ev[inside].t0_us))
                inside = i;
            continue;
        }
        double d = e->t0_us > t ? e->t0_us - t : t - e->t1_us;
        if (d < best_d) { best_d = d; best = i; }
    }
    return inside >= 0 ? inside : best;
}

/* the event of `row` nearest to t that is a SET_FLAG (within a few neighbours) */
static int64_t near_flagged(const AscVizModel *m, uint32_t row, double t, uint8_t flag)
{
    int64_t h = asc_viz_model_hit(m, row, t, 1e-3 + fabs(t) * 1e-9);
    if (h < 0) h = asc_viz_model_hit(m, row, t, DBL_MAX / 4);
    if (h < 0 || (m->ev[h].flags & flag)) return h;
    uint32_t a = m->row_first[row], b = m->row_first[row + 1];
    int64_t best = h;
    double bd = DBL_MAX;
    for (int64_t i = h - 4; i <= h + 4; i++) {
        if (i < a || i >= b || !(m->ev[i].flags & flag)) continue;
        double d = fabs(m->ev[i].t1_us - t);
        if (d < bd) { bd = d; best = i; }
    }
    return best;
}

AscVizDeps asc_viz_model_deps(const AscVizModel *m, uint32_t ev)
{
    AscVizDeps d = {-1, -1, -1, -1};
    if (ev >= m->nev) return d;
    const AscVizEvent *e = &m->ev[ev];
    uint32_t r = e->row, a = m->row_flow_first[r], b = m->row_flow_first[r + 1];
    double eps = 2e-3 + fabs(e->t1_us) * 1e-9; /* ts carries ~3 decimals of a us */
    int64_t best = -1, bi = -1;
    for (uint32_t i = a; i < b; i++) { /* latest flow end before the event ends */
        const AscVizFlow *f = &m->flows[m->flow_by_t[i]];
        if (f->ts_t <= e->t1_us + eps) best = m->flow_by_t[i], bi = i;
        else break;
    }
    if (best < 0) return d;
    /* A flow ending right where this event ends, when a WAIT_FLAG starts
     * there, released that next wait (asc-sim puts a flow's end on its
     * release cycle, inside the wait): take the one before it, if it ends
     * inside this event. */
    uint32_t row_end = m->row_first[r + 1];
    for (uint32_t j = ev + 1; j < row_end && m->ev[j].t0_us <= e->t1_us + eps; j++) {
        if (!(m->ev[j].flags & ASC_VIZ_EV_WAITFLAG) || fabs(m->ev[j].t0_us - m->flows[best].ts_t) > eps) continue;
        if (bi > (int64_t)a && m->flows[m->flow_by_t[bi - 1]].ts_t >= e->t0_us - eps) best = m->flow_by_t[bi - 1];
        break;
    }
    const AscVizFlow *f = &m->flows[best];
    d.flow = best;
    d.wait = (e->flags & ASC_VIZ_EV_WAITFLAG) ? (int64_t)ev : near_flagged(m, r, f->ts_t, ASC_VIZ_EV_WAITFLAG);
    d.set = near_flagged(m, f->row_s, f->ts_s, ASC_VIZ_EV_SETFLAG);
    if (d.set >= 0) {
        /* the producer: the non-flag event of the source lane that ended
         * last at or before the set started (events starting together with
         * the set may sort on either side of it) */
        const AscVizEvent *s = &m->ev[d.set];
        int64_t lo = (int64_t)m->row_first[f->row_s], hi = (int64_t)m->row_first[f->row_s + 1];
        double best_t1 = -DBL_MAX;
        for (int64_t i = d.set - 64; i < d.set + 16; i++) {
            if (i < lo || i >= hi || i == d.set) continue;
            const AscVizEvent *c = &m->ev[i];
            if (c->flags & (ASC_VIZ_EV_SETFLAG | ASC_VIZ_EV_WAITFLAG)) continue;
            if (c->t1_us <= s->t0_us + eps && c->t1_us >= best_t1) {
                best_t1 = c->t1_us;
                d.producer = i;
            }
        }
    }
    return d;
}

int asc_viz_model_event_args(const AscVizModel *m, uint32_t ev, AscVizEventArgs *out)
{
    if (ev >= m->nev) return -1;
    return viz_event_args(m, &m->ev[ev], out);
}

/* ---- groups ------------------------------------------------------------- */

uint32_t asc_viz_model_group_count(const AscVizModel *m) { return m->ngroups; }

AscVizGroupInfo asc_viz_model_group(const AscVizModel *m, uint32_t g)
{
    AscVizGroupInfo gi = {"", 0, 0, 0, 0, 0, 0, 0};
    if (g >= m->ngroups) return gi;
    const VizGroup *x = &m->groups[g];
    gi.name = S(m, x->name);
    gi.first_proc = x->proc0;
    gi.nprocs = x->nproc;
    gi.first_row = x->row0;
    gi.nrows = x->nrow;
    gi.first_ctr = x->ctr0;
    gi.nctrs = x->nctr;
    gi.npipes = x->npipe;
    return gi;
}

uint32_t asc_viz_model_group_of_proc(const AscVizModel *m, uint32_t proc)
{
    return proc < m->nprocs_shown ? m->proc_group[proc] : 0;
}

const char *asc_viz_model_group_pipe(const AscVizModel *m, uint32_t g, uint32_t k)
{
    if (g >= m->ngroups || k >= m->groups[g].npipe) return "";
    return S(m, m->gpipe[m->groups[g].pipe0 + k]);
}

void asc_viz_model_group_lod(const AscVizModel *m, uint32_t g, uint32_t k, double t0, double t1, uint32_t ncols,
                             float *busy)
{
    if (!ncols) return;
    memset(busy, 0, ncols * sizeof *busy);
    double w = (t1 - t0) / ncols;
    if (g >= m->ngroups || !(w > 0)) return;
    const VizGroup *x = &m->groups[g];
    uint32_t n = 0;
    for (uint32_t r = x->row0; r < x->row0 + x->nrow; r++) {
        if (m->row_pipe[r] != k) continue;
        n++;
        const VizUnion *u = &m->busy[r];
        double prev = union_upto(u, t0);
        for (uint32_t i = 0; i < ncols; i++) {
            double b = i + 1 == ncols ? t1 : t0 + w * (i + 1), cur = union_upto(u, b);
            busy[i] += (float)((cur - prev) / w);
            prev = cur;
        }
    }
    for (uint32_t i = 0; n && i < ncols; i++) {
        float f = busy[i] / (float)n;
        busy[i] = f < 0 ? 0 : f > 1 ? 1 : f;
    }
}

double asc_viz_model_group_utilisation(const AscVizModel *m, uint32_t g, uint32_t k, double t0, double t1)
{
    if (g >= m->ngroups || !(t1 > t0)) return 0;
    const VizGroup *x = &m->groups[g];
    double sum = 0;
    uint32_t n = 0;
    for (uint32_t r = x->row0; r < x->row0 + x->nrow; r++)
        if (m->row_pipe[r] == k) sum += asc_viz_model_utilisation(m, r, t0, t1), n++;
    return n ? sum / n : 0;
}

/* ---- label elision ------------------------------------------------------ */

static bool word_end(char c)
{
    return c == '_' || c == '.' || c == ' ' || c == '/' || c == '-' || c == ',' || c == ':' || c == '(';
}

int asc_viz_elide(const char *s, int max_chars, char *out, size_t n)
{
    if (!n) return 0;
    out[0] = 0;
    if (max_chars <= 0) return 0;
    /* glyph count and the byte offsets of word ends */
    int glyphs = 0;
    for (const char *p = s; *p; p++) glyphs += ((unsigned char)*p & 0xC0) != 0x80;
    size_t len = strlen(s);
    if (glyphs <= max_chars) {
        if (len + 1 > n) len = n - 1;
        memcpy(out, s, len);
        out[len] = 0;
        return glyphs;
    }
    /* the last word end whose prefix, plus the ellipsis, fits */
    size_t best = 0;
    int best_g = 0, g = 0;
    for (size_t i = 0; i < len; i++) {
        bool start = ((unsigned char)s[i] & 0xC0) != 0x80;
        if (start && i > 0 && word_end(s[i]) && !word_end(s[i - 1])) {
            if (g + 1 > max_chars) break;
            best = i;
            best_g = g;
        }
        g += start;
    }
    if (!best || best + 4 > n) return 0;
    memcpy(out, s, best);
    memcpy(out + best, "\xe2\x80\xa6", 4); /* U+2026 and the NUL */
    return best_g + 1;
}

/* ---- step mode ---------------------------------------------------------- */

/* (t0, row, index) order of events */
static int step_cmp(const AscVizModel *m, uint32_t a, uint32_t b)
{
    const AscVizEvent *x = &m->ev[a], *y = &m->ev[b];
    if (x->t0_us != y->t0_us) return x->t0_us < y->t0_us ? -1 : 1;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return a < b ? -1 : a > b;
}

int64_t asc_viz_model_step(const AscVizModel *m, int64_t cur, int dir, const uint8_t *rows_mask)
{
    if (cur >= (int64_t)m->nev) cur = -1;
    int64_t best = -1;
    for (uint32_t r = 0; r < m->nrows; r++) {
        if (rows_mask && !rows_mask[r]) continue;
        uint32_t a = m->row_first[r], b = m->row_first[r + 1];
        if (a == b) continue;
        int64_t cand;
        if (cur < 0) {
            cand = dir > 0 ? a : (int64_t)b - 1;
        } else {
            /* events of a row are sorted by (t0, index): binary search for the
             * first one after cur (dir > 0) or the last one before it */
            uint32_t lo = a, hi = b;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (step_cmp(m, mid, (uint32_t)cur) <= 0) lo = mid + 1;
                else hi = mid;
            }
            if (dir > 0) cand = lo < b ? (int64_t)lo : -1;
            else {
                /* lo = first after cur; the one before cur is below, skipping cur itself */
                int64_t j = (int64_t)lo - 1;
                if (j >= (int64_t)a && j == cur) j--;
                cand = j >= (int64_t)a ? j : -1;
            }
        }
        if (cand < 0) continue;
        if (best < 0 || (dir > 0 ? step_cmp(m, (uint32_t)cand, (uint32_t)best) < 0
                                 : step_cmp(m, (uint32_t)cand, (uint32_t)best) > 0))
            best = cand;
    }
    return best;
}

/* Times at the cursor compare with a tolerance of 0.1 ps: far below a
 * cycle (540 ps at 1850 MHz) and the 1 ps of a trace's 6-decimal ts, far
 * above the rounding of ts + dur in doubles. */
#define STATE_EPS 1e-7

/* the event of row r covering t (t0 <= t < t1), stall or not: innermost */
static int64_t covering(const AscVizModel *m, uint32_t r, double t, bool stall)
{
    uint32_t first, last;
    asc_viz_model_window(m, r, t, t + STATE_EPS, &first, &last);
    int64_t best = -1;
    for (uint32_t i = first; i < last; i++) {
        const AscVizEvent *e = &m->ev[i];
        if (!(e->t0_us <= t + STATE_EPS && t + STATE_EPS < e->t1_us)) continue;
        if (((e->flags & ASC_VIZ_EV_STALL) != 0) != stall) continue;
        if (best < 0 || e->depth >= m->ev[best].depth) best = i;
    }
    return best;
}

int asc_viz_state_at(AscVizState *s, const AscVizModel *m, double t, int64_t group)
{
    memset(s, 0, sizeof *s);
    s->alloc = m->al;
    s->t = t;
    double te = t + STATE_EPS;
    uint32_t r0 = 0, r1 = m->nrows;
    if (group >= 0 && (uint64_t)group < m->ngroups) {
        r0 = m->groups[group].row0;
        r1 = r0 + m->groups[group].nrow;
    }
    s->pipes = viz_calloc(m, r1 - r0 + 1, sizeof *s->pipes);
    uint32_t nf = 0;
    for (uint32_t i = 0; i < m->nflows; i++) {
        const AscVizFlow *f = &m->flows[i];
        if (f->ts_s <= te && te < f->ts_t && ((f->row_s >= r0 && f->row_s < r1) || (f->row_t >= r0 && f->row_t < r1))) nf++;
    }
    s->flags = viz_calloc(m, nf + 1, sizeof *s->flags);
    s->flag_set = viz_calloc(m, nf + 1, sizeof *s->flag_set);
    if (!s->pipes || !s->flags || !s->flag_set) {
        asc_viz_state_free(s);
        return -1;
    }
    for (uint32_t i = 0; i < m->nflows; i++) {
        const AscVizFlow *f = &m->flows[i];
        if (!(f->ts_s <= te && te < f->ts_t && ((f->row_s >= r0 && f->row_s < r1) || (f->row_t >= r0 && f->row_t < r1))))
            continue;
        s->flags[s->nflags] = i;
        s->flag_set[s->nflags] = near_flagged(m, f->row_s, f->ts_s, ASC_VIZ_EV_SETFLAG);
        if (s->flag_set[s->nflags] >= 0 && !(m->ev[s->flag_set[s->nflags]].flags & ASC_VIZ_EV_SETFLAG))
            s->flag_set[s->nflags] = -1;
        s->nflags++;
    }
    for (uint32_t r = r0; r < r1; r++) {
        AscVizPipeState *p = &s->pipes[s->npipes++];
        p->row = r;
        p->running = covering(m, r, t, false);
        p->waiting = covering(m, r, t, true);
        p->release = p->waiting >= 0 ? asc_viz_model_deps(m, (uint32_t)p->waiting).flow : -1;
        p->queue_ctr = -1;
        /* the queue counter: "queue LANE" of the same process */
        const VizLane *l = &m->lanes[m->row_lane[r]];
        const char *lane = S(m, l->label);
        for (uint32_t c = 0; c < m->ntracks; c++) {
            const char *name = S(m, m->tracks[c].name);
            if (m->tracks[c].proc == l->proc && !strncmp(name, "queue ", 6) && !strcmp(name + 6, lane)) {
                p->queue_ctr = c;
                break;
            }
        }
        /* the next events to start after t, in order */
        uint32_t a = m->row_first[r], b = m->row_first[r + 1], lo = a, hi = b;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (m->ev[mid].t0_us <= te) lo = mid + 1;
            else hi = mid;
        }
        p->queue_first = lo;
        if (p->queue_ctr >= 0) {
            double v = asc_viz_model_counter_value(m, (uint32_t)p->queue_ctr, te);
            p->queued = v > 0 ? (uint32_t)llround(v) : 0;
            p->queue_len = p->queued < b - lo ? p->queued : b - lo;
        }
    }
    return 0;
}

void asc_viz_state_free(AscVizState *s)
{
    asc_free(&s->alloc, s->pipes);
    asc_free(&s->alloc, s->flags);
    asc_free(&s->alloc, s->flag_set);
    s->pipes = NULL;
    s->flags = NULL;
    s->flag_set = NULL;
    s->npipes = s->nflags = 0;
}

/* ---- search ------------------------------------------------------------- */

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n) return false;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
        if (i == n) return true;
    }
    return false;
}

typedef struct MatchKey {
    double t0;
    uint32_t row, idx;
} MatchKey;

static int cmp_match(const void *a, const void *b)
{
    const MatchKey *x = a, *y = b;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int asc_viz_search_run(AscVizSearch *s, const AscVizModel *m, const char *needle)
{
    s->items = NULL;
    s->count = 0;
    s->alloc = m->al;
    uint8_t *hit = viz_calloc(m, m->nstr + 1, 1);
    if (!hit) return -1;
    bool any = false;
    for (uint32_t i = 0; i < m->nstr; i++)
        if (contains_ci(S(m, i), needle)) hit[i] = 1, any = true;
    uint32_t n = 0;
    if (any)
        for (uint32_t i = 0; i < m->nev; i++) n += hit[m->ev[i].name];
    MatchKey *k = viz_malloc(m, (n + 1) * sizeof *k);
    s->items = viz_malloc(m, (n + 1) * sizeof *s->items);
    if (!k || !s->items) { viz_free(m, k); viz_free(m, hit); viz_free(m, s->items); s->items = NULL; return -1; }
    n = 0;
    if (any)
        for (uint32_t i = 0; i < m->nev; i++)
            if (hit[m->ev[i].name]) k[n++] = (MatchKey){m->ev[i].t0_us, m->ev[i].row, i};
    qsort(k, n, sizeof *k, cmp_match);
    for (uint32_t i = 0; i < n; i++) s->items[i] = k[i].idx;
    s->count = n;
    viz_free(m, k);
    viz_free(m, hit);
    return 0;
}

int64_t asc_viz_search_step(const AscVizSearch *s, const AscVizModel *m, double t, int dir)
{
    if (!s->count) return -1;
    uint32_t lo = 0, hi = s->count; /* first item with t0 > t */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->ev[s->items[mid]].t0_us <= t) lo = mid + 1;
        else hi = mid;
    }
    if (dir >= 0) return lo < s->count ? lo : 0;
    /* last item with t0 < t */
    lo = 0, hi = s->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->ev[s->items[mid]].t0_us < t) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 ? (int64_t)lo - 1 : (int64_t)s->count - 1;
}

void asc_viz_search_free(AscVizSearch *s)
{
    asc_free(&s->alloc, s->items);
    s->items = NULL;
    s->count = 0;
}

/* ---- the view ----------------------------------------------------------- */

/* Content height at row height rh with counters shown or not, for the
 * current collapse state. */
static int view_measure(const AscVizView *v, int rh, bool counters, int ctr_h)
{
    const AscVizModel *m = v->model;
    int y = 0;
    for (uint32_t g = 0; g < m->ngroups; g++) {
        const VizGroup *x = &m->groups[g];
        if (x->nrow && v->collapsed[g]) {
            y += rh;
            continue;
        }
        for (uint32_t p = x->proc0; p < x->proc0 + x->nproc; p++) {
            int nr = 0, nc = 0;
            for (uint32_t r = x->row0; r < x->row0 + x->nrow; r++) nr += m->row_proc[r] == p;
            for (uint32_t c = x->ctr0; c < x->ctr0 + x->nctr; c++) nc += m->procs[m->tracks[c].proc].order == p;
            if (!nr && !(nc && counters)) continue;
            y += v->header_h + nr * rh + (counters ? nc * ctr_h : 0);
        }
    }
    return y;
}

/* Place headers, rows, counter tracks and summary rows.  With fit rows
 * (desc.row_height 0) the rows share the height left by headers and
 * counter tracks, 20 to 56 px each: a few lanes fill a projected screen
 * instead of a strip at the top; many lanes keep 20 px and scroll.  A
 * collapsed group is one summary row, without headers or counters. */
static void view_layout(AscVizView *v)
{
    const AscVizModel *m = v->model;
    v->plot_x0 = v->label_w;
    v->plot_x1 = v->width - v->panel_w;
    if (v->plot_x1 < v->plot_x0 + 16) v->plot_x1 = v->plot_x0 + 16;
    v->plot_y0 = v->axis_h;
    v->plot_y1 = v->height - v->footer_h - v->bottom_h;
    if (v->plot_y1 < v->plot_y0 + 8) v->plot_y1 = v->plot_y0 + 8;
    /* the lanes come first: in auto mode counter tracks show only when they
     * fit beside rows of the minimum height (a short PNG keeps its lanes) */
    int plot_h = v->plot_y1 - v->plot_y0 - 4, min_rh = v->fixed_row_h > 0 ? v->fixed_row_h : 20;
    v->show_counters = v->counters_mode > 0 || (v->counters_mode == 0 && view_measure(v, min_rh, true, 26) <= plot_h);
    int nrows_vis = 0;
    for (uint32_t g = 0; g < m->ngroups; g++) nrows_vis += m->groups[g].nrow && v->collapsed[g] ? 1 : (int)m->groups[g].nrow;
    for (int pass = 0; pass < 2; pass++) { /* taller counter tracks when rows are tall */
        v->ctr_h = pass && v->row_h >= 40 ? 36 : 26;
        if (v->fixed_row_h > 0) {
            v->row_h = v->fixed_row_h;
        } else {
            int avail = plot_h - view_measure(v, 0, v->show_counters, v->ctr_h);
            int rh = nrows_vis ? avail / nrows_vis : 20;
            v->row_h = rh < 20 ? 20 : rh > 56 ? 56 : rh;
        }
    }
    int y = 0;
    for (uint32_t g = 0; g < m->ngroups; g++) {
        const VizGroup *x = &m->groups[g];
        bool col = x->nrow && v->collapsed[g];
        v->group_y[g] = -1;
        if (col) {
            v->group_y[g] = y;
            y += v->row_h;
        }
        uint32_t r = x->row0, c = x->ctr0;
        for (uint32_t p = x->proc0; p < x->proc0 + x->nproc; p++) {
            uint32_t r0 = r, c0 = c;
            while (r < x->row0 + x->nrow && m->row_proc[r] == p) r++;
            while (c < x->ctr0 + x->nctr && m->procs[m->tracks[c].proc].order == p) c++;
            if (col || (r == r0 && (c == c0 || !v->show_counters))) {
                v->proc_y[p] = -1;
                for (uint32_t k = r0; k < r; k++) v->row_y[k] = -1;
                for (uint32_t k = c0; k < c; k++) v->ctr_y[k] = -1;
                continue;
            }
            v->proc_y[p] = y;
            y += v->header_h;
            for (uint32_t k = r0; k < r; k++) {
                v->row_y[k] = y;
                y += v->row_h;
            }
            for (uint32_t k = c0; k < c; k++) {
                v->ctr_y[k] = v->show_counters ? y : -1;
                if (v->show_counters) y += v->ctr_h;
            }
        }
    }
    v->content_h = y;
    asc_viz_view_scroll(v, 0);
}

/* Auto collapse: when everything expanded does not fit at the minimum row
 * height (with the counter tracks that would show), collapse every group
 * with rows, then expand groups in display order while it all still fits. */
static void view_auto_collapse(AscVizView *v, int mode)
{
    const AscVizModel *m = v->model;
    for (uint32_t g = 0; g < m->ngroups; g++) v->collapsed[g] = mode > 0 && m->groups[g].nrow;
    if (mode != 0) return;
    v->plot_y1 = v->height - v->footer_h - v->bottom_h;
    int plot_h = v->plot_y1 - v->axis_h - 4, min_rh = v->fixed_row_h > 0 ? v->fixed_row_h : 20;
    bool ctr = v->counters_mode > 0;
    uint32_t with_rows = 0;
    for (uint32_t g = 0; g < m->ngroups; g++) with_rows += m->groups[g].nrow > 0;
    if (with_rows < 2 || view_measure(v, min_rh, ctr, 26) <= plot_h) return;
    for (uint32_t g = 0; g < m->ngroups; g++) v->collapsed[g] = m->groups[g].nrow > 0;
    for (uint32_t g = 0; g < m->ngroups; g++) {
        if (!m->groups[g].nrow) continue;
        v->collapsed[g] = false;
        if (view_measure(v, min_rh, v->counters_mode >= 0, 26) > plot_h) {
            v->collapsed[g] = true;
            break;
        }
    }
}

int asc_viz_view_init(AscVizView *v, const AscVizModel *m, const AscVizViewDesc *desc)
{
    AscVizViewDesc d = desc ? *desc : (AscVizViewDesc){0};
    memset(v, 0, sizeof *v);
    v->model = m;
    v->width = d.width > 0 ? d.width : 1600;
    v->height = d.height > 0 ? d.height : 900;
    v->fixed_row_h = d.row_height > 0 ? d.row_height : 0;
    v->row_h = 20;
    v->counters_mode = d.counters;
    v->label_w = d.label_width > 0 ? d.label_width : 190;
    v->panel_w = d.panel_width < 0 ? 0 : d.panel_width > 0 ? d.panel_width : 150;
    v->header_h = 18;
    v->axis_h = 60;    /* title bar 22 + axis 38 */
    v->footer_h = 26;  /* legend */
    v->nrows = m->nrows;
    v->nprocs = m->nprocs_shown;
    v->nctrs = m->ntracks;
    v->mhz = m->mhz;
    v->row_y = viz_calloc(m, m->nrows + 1, sizeof *v->row_y);
    v->proc_y = viz_calloc(m, m->nprocs_shown + 1, sizeof *v->proc_y);
    v->ctr_y = viz_calloc(m, m->ntracks + 1, sizeof *v->ctr_y);
    v->ngroups = m->ngroups;
    v->collapsed = viz_calloc(m, m->ngroups + 1, sizeof *v->collapsed);
    v->group_y = viz_calloc(m, m->ngroups + 1, sizeof *v->group_y);
    if (!v->row_y || !v->proc_y || !v->ctr_y || !v->collapsed || !v->group_y) { asc_viz_view_free(v); return -1; }
    view_auto_collapse(v, d.collapse);
    view_layout(v);
    asc_viz_view_fit(v, m);
    return 0;
}

void asc_viz_view_free(AscVizView *v)
{
    if (v->model) {
        viz_free(v->model, v->row_y);
        viz_free(v->model, v->proc_y);
        viz_free(v->model, v->ctr_y);
        viz_free(v->model, v->collapsed);
        viz_free(v->model, v->group_y);
    }
    v->row_y = v->proc_y = v->ctr_y = v->group_y = NULL;
    v->collapsed = NULL;
}

void asc_viz_view_resize(AscVizView *v, int width, int height)
{
    v->width = width > 64 ? width : 64;
    v->height = height > 64 ? height : 64;
    view_layout(v);
}

void asc_viz_view_show_counters(AscVizView *v, bool show)
{
    v->counters_mode = show ? 1 : -1;
    view_layout(v);
}

void asc_viz_view_reserve_bottom(AscVizView *v, int px)
{
    v->bottom_h = px > 0 ? px : 0;
    view_layout(v);
}

void asc_viz_view_set_window(AscVizView *v, double t0, double t1)
{
    if (!(t1 > t0)) t1 = t0 + 1e-6;
    v->t0 = t0;
    v->t1 = t1;
}

void asc_viz_view_fit(AscVizView *v, const AscVizModel *m)
{
    double pad = (m->span1 - m->span0) * 0.01;
    asc_viz_view_set_window(v, m->span0 - pad, m->span1 + pad);
}

void asc_viz_view_zoom(AscVizView *v, double factor, int x)
{
    if (!(factor > 0)) return;
    double w = v->t1 - v->t0, nw = w / factor;
    double minw = 1e-4 * (double)(v->plot_x1 - v->plot_x0) / 100.0; /* ~1 ns per pixel */
    if (nw < minw) nw = minw;
    if (x < v->plot_x0) x = v->plot_x0;
    if (x > v->plot_x1) x = v->plot_x1;
    double fx = (double)(x - v->plot_x0) / (double)(v->plot_x1 - v->plot_x0);
    double t = v->t0 + fx * w;
    asc_viz_view_set_window(v, t - fx * nw, t - fx * nw + nw);
}

void asc_viz_view_pan(AscVizView *v, int dx)
{
    double d = (double)dx * (v->t1 - v->t0) / (double)(v->plot_x1 - v->plot_x0);
    v->t0 -= d;
    v->t1 -= d;
}

void asc_viz_view_scroll(AscVizView *v, int dy)
{
    int maxs = v->content_h - (v->plot_y1 - v->plot_y0);
    if (maxs < 0) maxs = 0;
    v->scroll_y += dy;
    if (v->scroll_y > maxs) v->scroll_y = maxs;
    if (v->scroll_y < 0) v->scroll_y = 0;
}

double asc_viz_view_x_of_time(const AscVizView *v, double t)
{
    return v->plot_x0 + (t - v->t0) / (v->t1 - v->t0) * (double)(v->plot_x1 - v->plot_x0);
}

double asc_viz_view_time_of_x(const AscVizView *v, double x)
{
    return v->t0 + (x - v->plot_x0) / (double)(v->plot_x1 - v->plot_x0) * (v->t1 - v->t0);
}

int asc_viz_view_x_of_cycle(const AscVizView *v, double cycle)
{
    if (!(v->mhz > 0)) return -1;
    double x = floor(asc_viz_view_x_of_time(v, cycle / v->mhz));
    if (x < v->plot_x0 || x >= v->plot_x1) return -1;
    return (int)x;
}

bool asc_viz_view_row_band(const AscVizView *v, uint32_t row, int *y0, int *y1)
{
    if (row >= v->nrows || v->row_y[row] < 0) return false;
    int a = v->plot_y0 + v->row_y[row] - v->scroll_y, b = a + v->row_h;
    *y0 = a;
    *y1 = b;
    return b > v->plot_y0 && a < v->plot_y1;
}

bool asc_viz_view_counter_band(const AscVizView *v, uint32_t c, int *y0, int *y1)
{
    if (c >= v->nctrs || v->ctr_y[c] < 0) return false;
    int a = v->plot_y0 + v->ctr_y[c] - v->scroll_y, b = a + v->ctr_h;
    *y0 = a;
    *y1 = b;
    return b > v->plot_y0 && a < v->plot_y1;
}

int asc_viz_view_counter_at(const AscVizView *v, int y)
{
    if (y < v->plot_y0 || y >= v->plot_y1) return -1;
    for (uint32_t c = 0; c < v->nctrs; c++) {
        int y0, y1;
        if (asc_viz_view_counter_band(v, c, &y0, &y1) && y >= y0 && y < y1) return (int)c;
    }
    return -1;
}

int asc_viz_view_row_at(const AscVizView *v, int y)
{
    if (y < v->plot_y0 || y >= v->plot_y1) return -1;
    int cy = y - v->plot_y0 + v->scroll_y;
    /* rows of collapsed groups have row_y -1; shown rows keep their order */
    for (uint32_t r = 0; r < v->nrows; r++)
        if (v->row_y[r] >= 0 && cy >= v->row_y[r] && cy < v->row_y[r] + v->row_h) return (int)r;
    return -1;
}

int64_t asc_viz_view_hit(const AscVizView *v, const AscVizModel *m, int x, int y)
{
    if (x < v->plot_x0 || x >= v->plot_x1) return -1;
    int r = asc_viz_view_row_at(v, y);
    if (r < 0) return -1;
    double px = (v->t1 - v->t0) / (double)(v->plot_x1 - v->plot_x0);
    return asc_viz_model_hit(m, (uint32_t)r, asc_viz_view_time_of_x(v, x + 0.5), 3 * px);
}

void asc_viz_view_collapse(AscVizView *v, uint32_t g, int state)
{
    if (g >= v->ngroups || !v->model->groups[g].nrow) return;
    v->collapsed[g] = state < 0 ? !v->collapsed[g] : state > 0;
    view_layout(v);
}

void asc_viz_view_collapse_all(AscVizView *v, bool collapse)
{
    for (uint32_t g = 0; g < v->ngroups; g++) v->collapsed[g] = collapse && v->model->groups[g].nrow;
    view_layout(v);
}

bool asc_viz_view_group_band(const AscVizView *v, uint32_t g, int *y0, int *y1)
{
    if (g >= v->ngroups || v->group_y[g] < 0) return false;
    int a = v->plot_y0 + v->group_y[g] - v->scroll_y, b = a + v->row_h;
    *y0 = a;
    *y1 = b;
    return b > v->plot_y0 && a < v->plot_y1;
}

int asc_viz_view_group_at(const AscVizView *v, int y)
{
    if (y < v->plot_y0 || y >= v->plot_y1) return -1;
    for (uint32_t g = 0; g < v->ngroups; g++) {
        int y0, y1;
        if (asc_viz_view_group_band(v, g, &y0, &y1) && y >= y0 && y < y1) return (int)g;
    }
    const AscVizModel *m = v->model;
    for (uint32_t p = 0; p < v->nprocs; p++) {
        if (v->proc_y[p] < 0) continue;
        int a = v->plot_y0 + v->proc_y[p] - v->scroll_y;
        if (y >= a && y < a + v->header_h) return (int)m->proc_group[p];
    }
    return -1;
}

bool asc_viz_view_group_shown(const AscVizView *v, uint32_t g)
{
    if (g >= v->ngroups) return false;
    const VizGroup *x = &v->model->groups[g];
    int top = INT32_MAX, bot = -1;
    if (v->group_y[g] >= 0) top = v->group_y[g], bot = v->group_y[g] + v->row_h;
    for (uint32_t p = x->proc0; p < x->proc0 + x->nproc; p++)
        if (v->proc_y[p] >= 0 && v->proc_y[p] < top) top = v->proc_y[p];
    for (uint32_t r = x->row0; r < x->row0 + x->nrow; r++)
        if (v->row_y[r] >= 0 && v->row_y[r] + v->row_h > bot) bot = v->row_y[r] + v->row_h;
    for (uint32_t c = x->ctr0; c < x->ctr0 + x->nctr; c++)
        if (v->ctr_y[c] >= 0 && v->ctr_y[c] + v->ctr_h > bot) bot = v->ctr_y[c] + v->ctr_h;
    if (bot < 0) return false;
    int a = v->plot_y0 + top - v->scroll_y, b = v->plot_y0 + bot - v->scroll_y;
    return a >= v->plot_y0 && b <= v->plot_y1;
}

int asc_viz_view_full_height(const AscVizView *v)
{
    return v->axis_h + v->content_h + 4 + v->footer_h + v->bottom_h;
}
