/* viz.h -- libascviz: the asc-viz timeline viewer as a library.
 *
 * Two halves, kept apart like Tracy's server/ and profiler/:
 *   - the headless model (AscVizModel, AscVizView, PNG codec): loading a
 *     Chrome trace-event JSON file with a streaming reader, rows in msOpProf
 *     order, level-of-detail aggregation, hit testing, search, utilisation,
 *     flag-arrow matching.  No SDL; built as ascviz_model; tested by
 *     tests/unit/test_viz_model.c.
 *   - the SDL half (asc_viz_offscreen_*, asc_viz_render_png, asc_viz_run):
 *     draws a model through a view, headless onto a software surface or in a
 *     window.  Only libascviz links SDL2.
 *
 * Time inside the model is microseconds (double), as in the trace's ts/dur.
 * Cycles = us * mhz when the clock is known (otherData.clock_mhz or an
 * override); when an event carries args.start_cycle/end_cycle and the clock
 * is known, its times come from those exact cycles.
 *
 * Errors: functions return 0 on success and -1 on failure, filling an
 * AscVizError whose message states the rule that was broken; a CLI prints
 * it as "FILE:LINE:COL: error: MSG" (or "FILE: error: MSG" when offset is
 * -1, e.g. "out of memory while loading the trace").  The library never
 * prints and never exits.
 *
 * Memory: the model, its view and its searches allocate only through the
 * AscAlloc given in AscVizLoadDesc (NULL = malloc/free); a failed
 * allocation is an "out of memory ..." error, never a crash or a leak. */
#ifndef ASC_VIZ_H
#define ASC_VIZ_H

#include "asc/alloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct AscVizError {
    char msg[384];   /* "X event has no \"dur\" (...)": states the rule */
    int64_t offset;  /* byte offset into the input; -1 = not about a position */
    uint32_t line;   /* 1-based line of offset; 0 = unknown */
    uint32_t col;    /* 1-based column (bytes) of offset; 0 = unknown */
} AscVizError;

/* ---- the model ---------------------------------------------------------- */

typedef struct AscVizModel AscVizModel;

typedef struct AscVizLoadDesc {
    double mhz;             /* clock override in MHz; 0 = otherData.clock_mhz, else unknown */
    const AscAlloc *alloc;  /* copied; NULL or zeroed = malloc/free.  Used by the model,
                             * views built on it and searches run on it */
} AscVizLoadDesc;

enum {
    ASC_VIZ_EV_STALL = 1u << 0,    /* WAIT_FLAG or a non-empty args.stall */
    ASC_VIZ_EV_BANK = 1u << 1,     /* args.bank_conflict_beats > 0 */
    ASC_VIZ_EV_SETFLAG = 1u << 2,  /* name SET_FLAG / set_flag */
    ASC_VIZ_EV_WAITFLAG = 1u << 3, /* name WAIT_FLAG / wait_flag */
    ASC_VIZ_EV_CYCLES = 1u << 4,   /* args had start_cycle and end_cycle */
};

/* One duration event (an X event, or a matched B/E pair).  Events are stored
 * sorted by (row, t0_us, file order): row r owns a contiguous index range. */
typedef struct AscVizEvent {
    double t0_us, t1_us;
    int64_t c0, c1;       /* args.start_cycle / end_cycle when EV_CYCLES */
    uint64_t src_off;     /* byte offset of the event object in the input */
    uint32_t name;        /* string id */
    uint32_t row;
    uint32_t rgb;         /* 0xRRGGBB from cname, else from the lane, else the name */
    uint16_t depth;       /* nesting depth inside its row (0 = outermost) */
    uint8_t flags;        /* ASC_VIZ_EV_* */
    uint8_t pad_;
} AscVizEvent;

typedef struct AscVizRowInfo {
    const char *process;  /* process display name (process_name or pid) */
    const char *lane;     /* thread display name (thread_name or tid) */
    uint32_t proc;        /* process index in display order */
    uint32_t first, count; /* event index range [first, first+count) */
    uint32_t rgb;         /* the lane's colour (for aggregated columns and the legend) */
} AscVizRowInfo;

/* A flag arrow: flow start 's' -> end 't'/'f' with the same cat and id. */
typedef struct AscVizFlow {
    double ts_s, ts_t;
    uint32_t row_s, row_t;
    uint32_t cat;         /* string id */
} AscVizFlow;

/* What an event waited for: all -1 when nothing was found. */
typedef struct AscVizDeps {
    int64_t flow;      /* the flow whose end is at/near the event */
    int64_t wait;      /* the wait event on the destination lane (may be the event itself) */
    int64_t set;       /* the SET_FLAG (or whatever event) at the flow start */
    int64_t producer;  /* the instruction before the set on the source lane */
} AscVizDeps;

/* An async span: a "b" and the next "e" with the same (process, cat, id),
 * drawn on the lane of its "b" (asc-sim writes one per copy: its data in
 * flight from the occupancy end to where it lands, docs/traces.md).
 * Stored sorted by (row, t0_us, file order). */
typedef struct AscVizAsync {
    double t0_us, t1_us;
    int64_t c0, c1;       /* the b's args.start_cycle / end_cycle when cycles */
    uint32_t row, name;   /* name: string id */
    uint8_t cycles;
} AscVizAsync;
uint32_t asc_viz_model_async_count(const AscVizModel *m);
const AscVizAsync *asc_viz_model_async(const AscVizModel *m, uint32_t i);
/* The async spans of a row: indexes [*first, *first + *count). */
void asc_viz_model_row_async(const AscVizModel *m, uint32_t row, uint32_t *first, uint32_t *count);

/* Args of one event, re-parsed lazily from the input (for tooltips). */
typedef struct AscVizEventArgs {
    char instr[160], pc[32], source[160], stall[160];
    int64_t bytes, bank_conflict_beats; /* -1 = absent */
    char other[400];   /* other args as "key=value  " pairs, truncated */
} AscVizEventArgs;

/* Load from a file (memory-mapped, kept for lazy args) or from memory (copied). */
int asc_viz_model_load_file(AscVizModel **out, const char *path, const AscVizLoadDesc *desc,
                            AscVizError *err);
int asc_viz_model_load_mem(AscVizModel **out, const char *buf, size_t len,
                           const AscVizLoadDesc *desc, AscVizError *err);
void asc_viz_model_free(AscVizModel *m);

double asc_viz_model_mhz(const AscVizModel *m); /* 0 = unknown */
void asc_viz_model_span(const AscVizModel *m, double *t0_us, double *t1_us);
const char *asc_viz_model_str(const AscVizModel *m, uint32_t id);
uint32_t asc_viz_model_event_count(const AscVizModel *m);
const AscVizEvent *asc_viz_model_event(const AscVizModel *m, uint32_t i);
uint32_t asc_viz_model_row_count(const AscVizModel *m);
AscVizRowInfo asc_viz_model_row(const AscVizModel *m, uint32_t row);
uint32_t asc_viz_model_process_count(const AscVizModel *m);
const char *asc_viz_model_process_name(const AscVizModel *m, uint32_t proc);
/* Row of (process name or pid, lane name or tid); -1 when absent. */
int asc_viz_model_find_row(const AscVizModel *m, const char *process, const char *lane);
uint32_t asc_viz_model_flow_count(const AscVizModel *m);
const AscVizFlow *asc_viz_model_flow(const AscVizModel *m, uint32_t i);

/* Counter tracks ("C" events): one per (process, series), in display order
 * (by process, then the msOpProf lane order of the name's last word, so
 * "queue MTE2" sorts with MTE2, then first appearance).  A series is the
 * event name, or "name key" when its events carry several numeric keys. */
typedef struct AscVizCounterInfo {
    const char *process;   /* process display name */
    const char *name;      /* series name, e.g. "HBM GB/s", "queue MTE2" */
    uint32_t proc;         /* process index in display order */
    uint32_t first, count; /* sample index range */
    double vmin, vmax;     /* over the whole trace */
} AscVizCounterInfo;
uint32_t asc_viz_model_counter_count(const AscVizModel *m);
AscVizCounterInfo asc_viz_model_counter(const AscVizModel *m, uint32_t c);
/* Sample i (of any counter): its time and value. */
void asc_viz_model_counter_sample(const AscVizModel *m, uint32_t i, double *t_us, double *value);
/* The value in force at t (the last sample at or before t; 0 before the first). */
double asc_viz_model_counter_value(const AscVizModel *m, uint32_t c, double t);
/* Level of detail of a counter's step function over ncols equal columns of
 * [t0, t1]: per column the min, max and final value.  Any output may be
 * NULL.  Cost O(ncols + log n + samples in the window). */
void asc_viz_model_counter_lod(const AscVizModel *m, uint32_t c, double t0, double t1, uint32_t ncols,
                               float *lo, float *hi, float *last);

/* Events of `row` that overlap [t0, t1]: indices [*first, *last). */
void asc_viz_model_window(const AscVizModel *m, uint32_t row, double t0, double t1,
                          uint32_t *first, uint32_t *last);
/* Busy time (us) of the union of non-stall (stall=false) or stall events of
 * `row` inside [t0, t1]. */
double asc_viz_model_busy(const AscVizModel *m, uint32_t row, double t0, double t1, bool stall);
/* busy(non-stall) / (t1 - t0); 0 for an empty window. */
double asc_viz_model_utilisation(const AscVizModel *m, uint32_t row, double t0, double t1);
/* Level of detail: for ncols equal columns of [t0, t1], the busy fraction
 * (0..1) of non-stall and of stall events.  Either output may be NULL.
 * Cost O(ncols * log n), independent of the number of events visible. */
void asc_viz_model_lod(const AscVizModel *m, uint32_t row, double t0, double t1, uint32_t ncols,
                       float *busy, float *stall);
/* The event of `row` under time t (innermost one containing t; else the
 * nearest within tol_us); -1 when none. */
int64_t asc_viz_model_hit(const AscVizModel *m, uint32_t row, double t, double tol_us);
/* Follow the flag arrow ending at/near event ev back to its set and producer. */
AscVizDeps asc_viz_model_deps(const AscVizModel *m, uint32_t ev);
int asc_viz_model_event_args(const AscVizModel *m, uint32_t ev, AscVizEventArgs *out);

/* Search by mnemonic: events whose name contains `needle` (ASCII
 * case-insensitive), in (t0, row) order.  Free with asc_viz_search_free. */
typedef struct AscVizSearch {
    uint32_t *items;
    uint32_t count;
    AscAlloc alloc;  /* the model's, for asc_viz_search_free */
} AscVizSearch;
int asc_viz_search_run(AscVizSearch *s, const AscVizModel *m, const char *needle);
/* Index into s->items of the first match starting after t (dir > 0) or the
 * last one starting before t (dir < 0), wrapping; -1 when s is empty. */
int64_t asc_viz_search_step(const AscVizSearch *s, const AscVizModel *m, double t, int dir);
void asc_viz_search_free(AscVizSearch *s);

/* Groups: a chip's cores.  Consecutive processes (display order) whose
 * names share the part before the first '.' ("core3.cubecore0",
 * "core3.veccore0", "core3.veccore1" -> "core3") form one group; any other
 * process is a group of its own.  A group's pipes are the distinct lane
 * names of its rows, in msOpProf lane order.  The view can collapse a group
 * that has rows into one summary row (utilisation heat per pipe). */
typedef struct AscVizGroupInfo {
    const char *name;        /* "core3", or the process name */
    uint32_t first_proc, nprocs; /* display process range */
    uint32_t first_row, nrows;   /* row range (rows of a group are contiguous) */
    uint32_t first_ctr, nctrs;   /* counter track range */
    uint32_t npipes;
} AscVizGroupInfo;
uint32_t asc_viz_model_group_count(const AscVizModel *m);
AscVizGroupInfo asc_viz_model_group(const AscVizModel *m, uint32_t g);
uint32_t asc_viz_model_group_of_proc(const AscVizModel *m, uint32_t proc);
/* Lane name of pipe k of group g ("" when out of range). */
const char *asc_viz_model_group_pipe(const AscVizModel *m, uint32_t g, uint32_t k);
/* Level of detail of pipe k of group g: per column the busy fraction of
 * non-stall work, averaged over the group's rows of that lane (a core with
 * two vector cores at 100% and 0% MTE2 shows 50%). */
void asc_viz_model_group_lod(const AscVizModel *m, uint32_t g, uint32_t k, double t0, double t1, uint32_t ncols,
                             float *busy);
/* The same average as one number over [t0, t1]. */
double asc_viz_model_group_utilisation(const AscVizModel *m, uint32_t g, uint32_t k, double t0, double t1);

/* Label elision by whole words: the longest prefix of s made of whole words
 * (a word ends before '_', '.', ' ', '/', '-', ',', ':' or '(') that fits in
 * max_chars glyphs together with a trailing ellipsis (U+2026, one glyph), or
 * s itself when it fits; "" when not even the first word fits ("WAIT_FLAG"
 * in 4 glyphs is "", in 5 "WAIT\u2026": a mnemonic is never cut inside a
 * word).  Writes NUL-terminated UTF-8 into out (n bytes); returns the number
 * of glyphs written. */
int asc_viz_elide(const char *s, int max_chars, char *out, size_t n);

/* ---- step mode: the state of the pipes at a cursor ---------------------- */

/* The cursor moves event by event in (start time, row, index) order.  From
 * event cur (-1 = before the first / after the last), the next (dir > 0) or
 * previous (dir < 0) event; only rows with rows_mask[row] != 0 when
 * rows_mask is non-NULL.  -1 when there is none.  O(rows log n). */
int64_t asc_viz_model_step(const AscVizModel *m, int64_t cur, int dir, const uint8_t *rows_mask);

/* One pipe (row) at time t. */
typedef struct AscVizPipeState {
    uint32_t row;
    int64_t running;      /* the non-stall event with t0 <= t < t1 (innermost), or -1 */
    int64_t waiting;      /* the stall event (WAIT_FLAG, non-empty args.stall) with t0 <= t < t1, or -1 */
    int64_t release;      /* the flag arrow that ends the wait (asc_viz_model_deps), or -1 */
    int64_t queue_ctr;    /* the counter "queue LANE" of this row's process, or -1 */
    uint32_t queued;      /* its value at t (0 without a counter) */
    uint32_t queue_first; /* queued instructions: the row's events queue_first ..
                           * queue_first + queue_len - 1 (the next ones to start
                           * after t: a pipe queue is in order) */
    uint32_t queue_len;   /* min(queued, events left on the row) */
} AscVizPipeState;

/* The state at time t of the rows of group g (all rows when g < 0).  Times
 * compare with a tolerance of 0.1 ps (far below a cycle), so at an event's
 * start the event runs, samples at t count and a flow ending at t is consumed. */
typedef struct AscVizState {
    double t;
    AscVizPipeState *pipes;
    uint32_t npipes;
    uint32_t *flags;      /* flag arrows set but not consumed at t: ts_s <= t < ts_t */
    uint32_t nflags;
    int64_t *flag_set;    /* per flags[k]: its SET_FLAG event, or -1 */
    AscAlloc alloc;       /* the model's, for asc_viz_state_free */
} AscVizState;
int asc_viz_state_at(AscVizState *s, const AscVizModel *m, double t, int64_t group);
void asc_viz_state_free(AscVizState *s);

/* ---- the view: layout of rows and the time axis in pixels -------------- */

typedef struct AscVizViewDesc {
    int width, height;  /* 0 = 1600 x 900 */
    int row_height;     /* 0 = fit: rows share the plot's height, 20 to 56 px each
                         * (scroll when 20 px rows do not fit); > 0 = fixed */
    int label_width;    /* 0 = 190 */
    int panel_width;    /* 0 = 150 (the utilisation panel); < 0 = none */
    int counters;       /* counter tracks under their process: 0 = when they fit beside
                         * rows of the minimum height (lanes come first), > 0 = always,
                         * < 0 = never */
    int collapse;       /* groups: 0 = auto (when the expanded rows do not fit at 20 px,
                         * collapse every group with rows, then expand groups in
                         * order while everything still fits), > 0 = all collapsed,
                         * < 0 = all expanded */
} AscVizViewDesc;

/* Layout, top to bottom: title and axis, then per process a header, its
 * rows, its counter tracks; then the bottom reserve (details panel) and
 * the legend.  The view keeps a pointer to its model (not owned): free the
 * view first. */
typedef struct AscVizView {
    int width, height;
    int label_w, panel_w, row_h, header_h, axis_h, footer_h;
    int ctr_h;             /* height of a counter track */
    int bottom_h;          /* reserved under the rows (the details panel) */
    int fixed_row_h;       /* desc.row_height; 0 = fit */
    int counters_mode;     /* desc.counters, or +-1 after asc_viz_view_show_counters */
    bool show_counters;    /* the effective state */
    int plot_x0, plot_x1;  /* timeline columns [plot_x0, plot_x1) */
    int plot_y0, plot_y1;  /* row area rows [plot_y0, plot_y1) */
    double t0, t1;         /* visible window in us */
    int scroll_y;          /* pixels scrolled down in the row area */
    int content_h;         /* total height of headers, rows and counter tracks */
    uint32_t nrows, nprocs, nctrs;
    int *row_y;            /* top of each row's band, in content coordinates */
    int *proc_y;           /* top of each process header, in content coordinates; -1 = hidden */
    int *ctr_y;            /* top of each counter track; -1 = hidden */
    uint32_t ngroups;
    bool *collapsed;       /* per group (only groups with rows collapse) */
    int *group_y;          /* top of a collapsed group's summary row; -1 = expanded */
    double mhz;            /* copied from the model */
    const AscVizModel *model; /* not owned */
} AscVizView;

int asc_viz_view_init(AscVizView *v, const AscVizModel *m, const AscVizViewDesc *desc);
void asc_viz_view_free(AscVizView *v);
void asc_viz_view_resize(AscVizView *v, int width, int height);
void asc_viz_view_show_counters(AscVizView *v, bool show);   /* always / never; relayout */
void asc_viz_view_reserve_bottom(AscVizView *v, int px);     /* relayout; 0 = none */
void asc_viz_view_fit(AscVizView *v, const AscVizModel *m);
void asc_viz_view_set_window(AscVizView *v, double t0_us, double t1_us);
void asc_viz_view_zoom(AscVizView *v, double factor, int x); /* factor > 1 zooms in around x */
void asc_viz_view_pan(AscVizView *v, int dx_px);              /* content moves right by dx */
void asc_viz_view_scroll(AscVizView *v, int dy_px);
double asc_viz_view_x_of_time(const AscVizView *v, double t_us);
double asc_viz_view_time_of_x(const AscVizView *v, double x);
/* Pixel column of a cycle (needs a clock); -1 when out of the plot. */
int asc_viz_view_x_of_cycle(const AscVizView *v, double cycle);
/* Screen band [*y0, *y1) of a row; false when scrolled out of the plot. */
bool asc_viz_view_row_band(const AscVizView *v, uint32_t row, int *y0, int *y1);
int asc_viz_view_row_at(const AscVizView *v, int y); /* -1 = none */
/* Screen band of a counter track; false when hidden or scrolled out. */
bool asc_viz_view_counter_band(const AscVizView *v, uint32_t c, int *y0, int *y1);
int asc_viz_view_counter_at(const AscVizView *v, int y); /* -1 = none */
int64_t asc_viz_view_hit(const AscVizView *v, const AscVizModel *m, int x, int y);
/* Collapse (1), expand (0) or toggle (-1) group g; relayout. */
void asc_viz_view_collapse(AscVizView *v, uint32_t g, int state);
void asc_viz_view_collapse_all(AscVizView *v, bool collapse);
/* Screen band of a collapsed group's summary row; false when expanded or scrolled out. */
bool asc_viz_view_group_band(const AscVizView *v, uint32_t g, int *y0, int *y1);
/* The group whose summary row or process header is at y; -1 = none. */
int asc_viz_view_group_at(const AscVizView *v, int y);
/* Whether group g is fully inside the plot: its summary row, or its headers,
 * rows and shown counter tracks. */
bool asc_viz_view_group_shown(const AscVizView *v, uint32_t g);
/* Height of a frame that shows everything of the current layout at the
 * current row height (title, axis, headers, rows, tracks, legend). */
int asc_viz_view_full_height(const AscVizView *v);

/* ---- PNG (RGB, 8 bit, zlib) ------------------------------------------- */

/* Write rgba (4 bytes a pixel, alpha ignored) as an RGB PNG, atomically
 * (temp file + rename).  Same pixels, same bytes. */
int asc_viz_png_write(const char *path, const uint8_t *rgba, int w, int h, int stride,
                      AscVizError *err);
/* Decode a PNG (8-bit RGB or RGBA, non-interlaced) into a malloc'd RGBA
 * buffer (stride w*4); the caller frees it. */
int asc_viz_png_read(const char *path, uint8_t **rgba, int *w, int *h, AscVizError *err);

/* ---- the SDL half (libascviz) ----------------------------------------- */

/* What the user has done: hover, selection, search, overlays. */
typedef struct AscVizUi {
    int64_t hover, selected; /* event or -1 */
    int mouse_x, mouse_y;
    AscVizDeps deps;         /* of the selected event */
    int64_t hover_counter;   /* counter track under the mouse or -1 */
    bool help;
    bool searching;          /* the search bar is open for typing */
    char search[64];
    const AscVizSearch *matches;
    int64_t match_cur;       /* index into matches->items or -1 */
    const char *title;       /* file name shown in the title bar; may be NULL */
    int64_t step;            /* step mode: the cursor event, or -1 (off) */
    const AscVizState *state; /* step mode: the state at the cursor (the window owns it) */
} AscVizUi;
void asc_viz_ui_init(AscVizUi *ui);

typedef struct AscVizOffscreen AscVizOffscreen;
/* font_path NULL = $ASC_VIZ_FONT, else Debian's DejaVuSansMono. */
AscVizOffscreen *asc_viz_offscreen_create(int w, int h, const char *font_path, AscVizError *err);
void asc_viz_offscreen_draw(AscVizOffscreen *o, const AscVizModel *m, const AscVizView *v,
                            const AscVizUi *ui);
const uint8_t *asc_viz_offscreen_pixels(const AscVizOffscreen *o, int *stride); /* RGBA */
void asc_viz_offscreen_free(AscVizOffscreen *o);

typedef struct AscVizRenderDesc {
    int width, height;        /* 0 = 1600 x 900 */
    bool has_cycles;          /* window in cycles (needs a clock) */
    double c0, c1;
    bool has_us;              /* window in us */
    double t0_us, t1_us;
    const char *font_path;    /* NULL = default */
    const char *title;
} AscVizRenderDesc;
int asc_viz_render_png(const AscVizModel *m, const AscVizRenderDesc *desc, const char *path,
                       AscVizError *err);
/* What a render showed.  With desc.height 0 the height is picked: 900, or
 * taller (up to 16384) until every group with rows (collapsed when needed)
 * and the shown counter tracks fit.  groups_left_out lists the groups with
 * rows that are not fully in the image ("core20, core21, ..."), empty when
 * every core is shown. */
typedef struct AscVizRenderInfo {
    int width, height;
    uint32_t ngroups, groups_shown;   /* groups with rows; of them fully shown */
    char groups_left_out[512];        /* truncated with "..." */
} AscVizRenderInfo;
int asc_viz_render_png_info(const AscVizModel *m, const AscVizRenderDesc *desc, const char *path,
                            AscVizRenderInfo *info, AscVizError *err);

typedef struct AscVizRunDesc {
    int width, height;        /* 0 = 1400 x 800 */
    const char *script;       /* replay this script file, then quit; NULL = interactive */
    const char *font_path;
    const char *title;
} AscVizRunDesc;
int asc_viz_run(const AscVizModel *m, const AscVizRunDesc *desc, AscVizError *err);

#endif
