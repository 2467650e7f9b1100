/* viz_internal.h -- the AscVizModel layout shared by viz_json.c (loading)
 * and viz_model.c (indexes and queries).  Not a public header.
 *
 * Invariants after a successful load:
 *   - ev[] is sorted by (row, t0_us, seq); row r owns [row_first[r], row_first[r+1]).
 *   - pmax[i] is the running max of t1_us over its row's events up to i, so
 *     the first event overlapping a window is a binary search away.
 *   - busy/stall unions are disjoint sorted intervals with prefix sums. */
#ifndef ASC_VIZ_INTERNAL_H
#define ASC_VIZ_INTERNAL_H

#include "asc/alloc.h"
#include "asc/viz.h"

#include <stdio.h>
#include <stdlib.h>

#define VIZ_NONE 0xffffffffu

typedef struct VizProc {
    uint32_t pid;      /* string id of the pid as written */
    uint32_t label;    /* process_name, else pid */
    int64_t sort;      /* process_sort_index */
    bool has_sort;
    uint32_t seq;      /* order of first appearance */
    uint32_t order;    /* display index after sorting */
} VizProc;

typedef struct VizLane {
    uint32_t proc, tid, label;
    int64_t sort;
    bool has_sort;
    uint32_t seq;
    uint32_t row;      /* VIZ_NONE when the lane shows nothing */
    uint32_t nev;      /* events + flow ends, to drop empty lanes */
} VizLane;

/* A B or E record waiting to be paired. */
typedef struct VizBE {
    double ts;
    uint64_t off;
    uint32_t lane, name, seq, rgb;
    uint8_t begin, flags;
} VizBE;

typedef struct VizFlowEnd {
    double ts;
    uint64_t off;
    uint32_t lane, id, cat, seq;
    char ph;
} VizFlowEnd;

/* A "b" or "e" async record waiting to be paired. */
typedef struct VizAsyncEnd {
    double ts;
    int64_t c0, c1;
    uint32_t lane, proc, id, cat, name, seq;
    uint8_t begin, cycles;
} VizAsyncEnd;

/* One counter sample ("C" event, one numeric args key). */
typedef struct VizCtrSample {
    double ts, v;
    uint32_t track, seq;
} VizCtrSample;

/* A counter series: (process, name) or (process, "name key") when the C
 * events of that name carry several numeric keys. */
typedef struct VizCtrTrack {
    uint32_t proc, name, seq;
    uint32_t first, count;  /* into ctr[] after viz_model_finish */
    double vmin, vmax;
} VizCtrTrack;

/* A group of processes (a chip's core): see asc_viz_model_group. */
typedef struct VizGroup {
    uint32_t name;                 /* string id */
    uint32_t proc0, nproc, row0, nrow, ctr0, nctr;
    uint32_t pipe0, npipe;         /* into gpipe[] */
} VizGroup;

typedef struct VizSpan {
    double a, b;
} VizSpan;

typedef struct VizUnion {
    VizSpan *iv;       /* disjoint, sorted */
    double *pre;       /* pre[k] = total length of iv[0..k) */
    uint32_t n;
} VizUnion;

struct AscVizModel {
    /* every allocation below goes through al (zero = malloc/free) */
    AscAlloc al;

    /* input, kept for lazily re-parsed args */
    char *buf;
    size_t len;
    bool mapped;

    /* interned strings: ids index str_off; text in pool, NUL-terminated */
    char *pool;
    size_t pool_len, pool_cap;
    uint32_t *str_off;
    uint32_t nstr, str_cap;
    uint32_t *shash;   /* open addressing: id+1, 0 = empty */
    uint32_t shash_cap;

    VizProc *procs;
    uint32_t nprocs, procs_cap;
    VizLane *lanes;
    uint32_t nlanes, lanes_cap;
    uint64_t *lhash;   /* (proc << 32 | tid) + 1 keyed, value in lhash_v */
    uint32_t *lhash_v;
    uint32_t lhash_cap;

    AscVizEvent *ev;   /* src_off doubles as the file-order tie-break */
    uint32_t nev, ev_cap;
    VizBE *be;
    uint32_t nbe, be_cap;
    VizFlowEnd *fe;
    uint32_t nfe, fe_cap;
    VizAsyncEnd *ae;
    uint32_t nae, ae_cap;
    AscVizAsync *async;   /* sorted by (row, t0_us, seq) */
    uint32_t nasync;
    uint32_t *row_async_first; /* nrows + 1 */

    /* counters: samples sorted by (track, ts, seq) after finishing; tracks
     * in display order (process, then msOpProf lane order of the name's
     * last word, then first appearance) */
    VizCtrSample *ctr;
    uint32_t nctr, ctr_cap;
    VizCtrTrack *tracks;
    uint32_t ntracks, tracks_cap;
    uint64_t *thash;   /* (proc << 32 | name) + 1 keyed, value in thash_v */
    uint32_t *thash_v;
    uint32_t thash_cap;

    double file_mhz, mhz;
    uint32_t seq;

    /* built by viz_model_finish */
    uint32_t nrows;
    uint32_t *row_lane;   /* row -> lane */
    uint32_t *row_first;  /* nrows + 1 */
    uint32_t *row_rgb;
    uint32_t *proc_order; /* display index -> proc */
    uint32_t nprocs_shown;
    uint32_t *row_proc;   /* row -> display process index */
    double *pmax;
    VizUnion *busy, *stall;
    AscVizFlow *flows;
    uint32_t nflows;
    uint32_t *flow_by_t;  /* flow ids sorted by (row_t, ts_t) */
    uint32_t *row_flow_first; /* nrows + 1, into flow_by_t */
    double span0, span1;
    VizGroup *groups;
    uint32_t ngroups;
    uint32_t *proc_group; /* display process -> group */
    uint32_t *gpipe;      /* lane label string ids, per group from pipe0 */
    uint32_t *row_pipe;   /* row -> pipe index inside its group */
};

/* Allocation through m->al: a zero AscAlloc means libc (and a real
 * realloc); a caller's allocator gets asc_realloc (alloc + copy + free). */
static inline bool viz_custom_alloc(const AscVizModel *m)
{
    return m->al.alloc && m->al.free;
}
static inline void *viz_malloc(const AscVizModel *m, size_t n)
{
    return viz_custom_alloc(m) ? m->al.alloc(m->al.ud, n ? n : 1) : malloc(n ? n : 1);
}
static inline void *viz_calloc(const AscVizModel *m, size_t n, size_t size)
{
    return viz_custom_alloc(m) ? asc_calloc(&m->al, n ? n : 1, size ? size : 1) : calloc(n ? n : 1, size ? size : 1);
}
static inline void *viz_realloc(const AscVizModel *m, void *p, size_t old_n, size_t new_n)
{
    return viz_custom_alloc(m) ? asc_realloc(&m->al, p, old_n, new_n ? new_n : 1) : realloc(p, new_n ? new_n : 1);
}
static inline void viz_free(const AscVizModel *m, void *p)
{
    if (!p) return;
    if (viz_custom_alloc(m)) m->al.free(m->al.ud, p);
    else free(p);
}

/* viz_json.c */
uint32_t viz_intern(AscVizModel *m, const char *s, size_t n); /* VIZ_NONE = out of memory */
int viz_parse(AscVizModel *m, AscVizError *err);
void viz_error_at(AscVizError *err, const char *base, size_t len, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int viz_event_args(const AscVizModel *m, const AscVizEvent *e, AscVizEventArgs *out);
uint32_t viz_cname_rgb(const char *s, size_t n, bool *found);
uint32_t viz_lane_rgb(const char *lane, bool *found);

/* viz_model.c */
int viz_model_finish(AscVizModel *m, AscVizError *err);

#endif
