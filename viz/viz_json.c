/* viz_json.c -- a fast streaming reader for Chrome trace-event JSON.
 *
 * Users: viz_model.c (asc_viz_model_load_*).  The reader walks the input
 * once, left to right, with a pull tokenizer; it never builds a tree.  Each
 * trace event becomes a compact record (AscVizEvent, a B/E half, a flow end
 * or metadata); everything else is validated and skipped.  Tooltip args are
 * re-parsed on demand from the event's byte offset (viz_event_args).
 *
 * Accepted input: the object form {"traceEvents":[...], "otherData":{...},
 * ...} or the bare array form [...].  Grammar (RFC 8259, strict):
 *   value  = object | array | string | number | "true" | "false" | "null"
 *   object = '{' [ string ':' value { ',' string ':' value } ] '}'
 *   array  = '[' [ value { ',' value } ] ']'
 * Every failure names its byte offset and states the rule (AscVizError). */
#include "viz_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define JR_MAX_DEPTH 512

typedef struct JR {
    const char *base, *p, *end;
    AscVizError *err;
    bool failed;
} JR;

void viz_error_at(AscVizError *err, const char *base, size_t len, int64_t off, const char *fmt, ...)
{
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->offset = off;
    err->line = err->col = 0;
    if (off >= 0 && base) {
        size_t o = (size_t)off < len ? (size_t)off : len;
        uint32_t line = 1;
        size_t line_start = 0;
        for (size_t i = 0; i < o; i++) {
            if (base[i] == '\n') {
                line++;
                line_start = i + 1;
            }
        }
        err->line = line;
        err->col = (uint32_t)(o - line_start + 1);
    }
}

static int jr_fail(JR *r, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int jr_fail(JR *r, const char *at, const char *fmt, ...)
{
    if (r->failed) return -1;
    r->failed = true;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    viz_error_at(r->err, r->base, (size_t)(r->end - r->base), (int64_t)(at - r->base), "%s", msg);
    return -1;
}

static int jr_truncated(JR *r, const char *what)
{
    return jr_fail(r, r->end, "unexpected end of input while reading %s (truncated JSON?)", what);
}

static inline void jr_ws(JR *r)
{
    const char *p = r->p, *e = r->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    r->p = p;
}

/* ws, then require one more byte */
static inline int jr_more(JR *r, const char *what)
{
    jr_ws(r);
    return r->p < r->end ? 0 : jr_truncated(r, what);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* string = '"' { unescaped | '\' ( ["\/bfnrt] | 'u' hex4 ) } '"'
 * On return *s, *n span the raw (still escaped) bytes. */
static int jr_string(JR *r, const char **s, size_t *n, bool *esc)
{
    const char *q = r->p + 1, *e = r->end;
    bool has_esc = false;
    for (;;) {
        while (q < e && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20) q++;
        if (q >= e) return jr_truncated(r, "a string");
        if (*q == '"') break;
        if (*q == '\\') {
            has_esc = true;
            if (q + 1 >= e) return jr_truncated(r, "a string");
            char c = q[1];
            if (c == 'u') {
                if (q + 6 > e) return jr_truncated(r, "a \\u escape");
                for (int i = 2; i < 6; i++)
                    if (hexval(q[i]) < 0)
                        return jr_fail(r, q, "invalid \\u escape: \\u must be followed by 4 hex digits");
                q += 6;
            } else if (strchr("\"\\/bfnrt", c) && c) {
                q += 2;
            } else {
                return jr_fail(r, q, "invalid escape '\\%c' in a string (JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                               isprint((unsigned char)c) ? c : '?');
            }
            continue;
        }
        return jr_fail(r, q, "control character 0x%02x inside a string (JSON requires it escaped)",
                       (unsigned char)*q);
    }
    *s = r->p + 1;
    *n = (size_t)(q - (r->p + 1));
    if (esc) *esc = has_esc;
    r->p = q + 1;
    return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Unescape a validated raw string into out (cap bytes, always NUL-terminated,
 * truncated if needed).  Returns the length written. */
static size_t unescape(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap;) {
        char c = s[i];
        if (c != '\\') { out[o++] = c; i++; continue; }
        char d = s[i + 1];
        i += 2;
        switch (d) {
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            uint32_t cp = 0;
            for (int k = 0; k < 4; k++) cp = cp * 16 + (uint32_t)hexval(s[i + (size_t)k]);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                uint32_t lo = 0;
                for (int k = 0; k < 4; k++) lo = lo * 16 + (uint32_t)hexval(s[i + 2 + (size_t)k]);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
            if (cp == 0) cp = 0xFFFD; /* keep strings NUL-free */
            o += put_utf8(out + o, cp);
            break;
        }
        default: out[o++] = d; break;
        }
    }
    out[o] = 0;
    return o;
}

static const double pow10tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* number = [ '-' ] ( '0' | [1-9] [0-9]* ) [ '.' [0-9]+ ] [ ( 'e' | 'E' ) [ '+' | '-' ] [0-9]+ ] */
static int jr_number(JR *r, double *out)
{
    const char *p = r->p, *e = r->end, *start = p;
    bool neg = false;
    if (p < e && *p == '-') { neg = true; p++; }
    if (p >= e) return jr_truncated(r, "a number");
    if (!isdigit((unsigned char)*p)) return jr_fail(r, p, "invalid number: a digit must follow '-'");
    uint64_t mant = 0;
    int ndig = 0, exp10 = 0;
    if (*p == '0') {
        p++;
        if (p < e && isdigit((unsigned char)*p))
            return jr_fail(r, p, "invalid number: JSON numbers have no leading zeros");
    } else {
        while (p < e && isdigit((unsigned char)*p)) {
            if (ndig < 19) { mant = mant * 10 + (uint64_t)(*p - '0'); ndig++; }
            else exp10++;
            p++;
        }
    }
    if (p < e && *p == '.') {
        p++;
        if (p >= e) return jr_truncated(r, "a number");
        if (!isdigit((unsigned char)*p)) return jr_fail(r, p, "invalid number: a digit must follow '.'");
        while (p < e && isdigit((unsigned char)*p)) {
            if (ndig < 19) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                if (mant) ndig++;
                exp10--;
            }
            p++;
        }
    }
    bool slow = ndig > 18;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        int esign = 1, ev = 0;
        if (p < e && (*p == '+' || *p == '-')) { esign = *p == '-' ? -1 : 1; p++; }
        if (p >= e) return jr_truncated(r, "a number");
        if (!isdigit((unsigned char)*p)) return jr_fail(r, p, "invalid number: a digit must follow the exponent 'e'");
        while (p < e && isdigit((unsigned char)*p)) {
            if (ev < 100000) ev = ev * 10 + (*p - '0');
            p++;
        }
        exp10 += esign * ev;
    }
    double v;
    if (!slow && exp10 >= -22 && exp10 <= 22) {
        v = (double)mant;
        v = exp10 < 0 ? v / pow10tab[-exp10] : v * pow10tab[exp10];
    } else {
        char tmp[512];
        size_t n = (size_t)(p - start);
        if (n >= sizeof tmp) return jr_fail(r, start, "number too long (more than 511 characters)");
        memcpy(tmp, start, n);
        tmp[n] = 0;
        v = strtod(tmp, NULL);
        neg = false;
    }
    if (!isfinite(v)) return jr_fail(r, start, "number out of range (overflows a double)");
    *out = neg ? -v : v;
    r->p = p;
    return 0;
}

static int jr_literal(JR *r)
{
    static const char *const lits[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lits[i]);
        if (*r->p == lits[i][0]) {
            if ((size_t)(r->end - r->p) < n) {
                if (memcmp(r->p, lits[i], (size_t)(r->end - r->p)) == 0) return jr_truncated(r, lits[i]);
                break;
            }
            if (memcmp(r->p, lits[i], n) == 0) {
                r->p += n;
                return i;
            }
            break;
        }
    }
    return jr_fail(r, r->p, "unexpected character '%c': expected a JSON value (object, array, string, number, true, false or null)",
                   isprint((unsigned char)*r->p) ? *r->p : '?');
}

/* Skip one value of any kind, validating it; iterative with a depth limit. */
static int jr_skip(JR *r)
{
    uint64_t stack[JR_MAX_DEPTH / 64] = {0}; /* bit set = object */
    int depth = 0;
    const char *s;
    size_t n;
    double num;
value:
    if (jr_more(r, "a value")) return -1;
    switch (*r->p) {
    case '{':
    case '[': {
        bool obj = *r->p == '{';
        r->p++;
        if (jr_more(r, obj ? "an object" : "an array")) return -1;
        if (*r->p == (obj ? '}' : ']')) { r->p++; goto after; }
        if (depth >= JR_MAX_DEPTH) return jr_fail(r, r->p, "JSON nested deeper than %d levels", JR_MAX_DEPTH);
        if (obj) stack[depth / 64] |= 1ull << (depth % 64);
        else stack[depth / 64] &= ~(1ull << (depth % 64));
        depth++;
        if (obj) goto key;
        goto value;
    }
    case '"':
        if (jr_string(r, &s, &n, NULL)) return -1;
        goto after;
    default:
        if (*r->p == '-' || isdigit((unsigned char)*r->p)) {
            if (jr_number(r, &num)) return -1;
        } else if (jr_literal(r) < 0) {
            return -1;
        }
        goto after;
    }
key:
    if (jr_more(r, "an object key")) return -1;
    if (*r->p != '"') return jr_fail(r, r->p, "expected a string key in an object");
    if (jr_string(r, &s, &n, NULL)) return -1;
    if (jr_more(r, "an object")) return -1;
    if (*r->p != ':') return jr_fail(r, r->p, "expected ':' after an object key");
    r->p++;
    goto value;
after:
    if (depth == 0) return 0;
    if (jr_more(r, "a container")) return -1;
    {
        bool obj = (stack[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1;
        if (*r->p == ',') {
            r->p++;
            if (obj) goto key;
            goto value;
        }
        if (*r->p == (obj ? '}' : ']')) {
            r->p++;
            depth--;
            goto after;
        }
        return jr_fail(r, r->p, obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
    }
}

/* ---- strings, processes, lanes ------------------------------------------ */

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static bool grow(const AscVizModel *m, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint32_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > UINT32_MAX / 2) return false;
        nc *= 2;
    }
    void *q = viz_realloc(m, *p, (size_t)*cap * elem, (size_t)nc * elem);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

uint32_t viz_intern(AscVizModel *m, const char *s, size_t n)
{
    if (m->nstr * 2 + 2 > m->shash_cap) {
        uint32_t nc = m->shash_cap ? m->shash_cap * 2 : 1024;
        uint32_t *h = viz_calloc(m, nc, sizeof *h);
        if (!h) return VIZ_NONE;
        for (uint32_t i = 0; i < m->nstr; i++) {
            const char *t = m->pool + m->str_off[i];
            uint32_t k = hash_bytes(t, strlen(t)) & (nc - 1);
            while (h[k]) k = (k + 1) & (nc - 1);
            h[k] = i + 1;
        }
        viz_free(m, m->shash);
        m->shash = h;
        m->shash_cap = nc;
    }
    uint32_t k = hash_bytes(s, n) & (m->shash_cap - 1);
    while (m->shash[k]) {
        const char *t = m->pool + m->str_off[m->shash[k] - 1];
        if (strncmp(t, s, n) == 0 && t[n] == 0) return m->shash[k] - 1;
        k = (k + 1) & (m->shash_cap - 1);
    }
    if (m->pool_len + n + 1 > m->pool_cap) {
        /* s may be a string of the pool itself (a prefix of a process label, build_groups):
         * keep its offset, the pool may move */
        uintptr_t ps = (uintptr_t)s, p0 = (uintptr_t)m->pool;
        bool inside = m->pool && ps >= p0 && ps < p0 + m->pool_len;
        size_t soff = inside ? (size_t)(ps - p0) : 0;
        size_t nc = m->pool_cap ? m->pool_cap : 4096;
        while (nc < m->pool_len + n + 1) nc *= 2;
        char *q = viz_realloc(m, m->pool, m->pool_cap, nc);
        if (!q) return VIZ_NONE;
        m->pool = q;
        m->pool_cap = nc;
        if (inside) s = m->pool + soff;
    }
    if (m->pool_len > UINT32_MAX - n - 1) return VIZ_NONE;
    if (!grow(m, (void **)&m->str_off, &m->str_cap, m->nstr + 1, sizeof *m->str_off)) return VIZ_NONE;
    memcpy(m->pool + m->pool_len, s, n);
    m->pool[m->pool_len + n] = 0;
    m->str_off[m->nstr] = (uint32_t)m->pool_len;
    m->pool_len += n + 1;
    m->shash[k] = m->nstr + 1;
    return m->nstr++;
}

static uint32_t proc_get(AscVizModel *m, uint32_t pid)
{
    /* few processes: a linear scan from the last hit is fast enough */
    for (uint32_t i = m->nprocs; i-- > 0;)
        if (m->procs[i].pid == pid) return i;
    if (!grow(m, (void **)&m->procs, &m->procs_cap, m->nprocs + 1, sizeof *m->procs)) return VIZ_NONE;
    VizProc *p = &m->procs[m->nprocs];
    memset(p, 0, sizeof *p);
    p->pid = p->label = pid;
    p->seq = m->seq++;
    return m->nprocs++;
}

static uint32_t lane_get(AscVizModel *m, uint32_t proc, uint32_t tid)
{
    uint64_t key = ((uint64_t)proc << 32 | tid) + 1;
    if (m->nlanes * 2 + 2 > m->lhash_cap) {
        uint32_t nc = m->lhash_cap ? m->lhash_cap * 2 : 256;
        uint64_t *h = viz_calloc(m, nc, sizeof *h);
        uint32_t *v = viz_calloc(m, nc, sizeof *v);
        if (!h || !v) { viz_free(m, h); viz_free(m, v); return VIZ_NONE; }
        for (uint32_t i = 0; i < m->nlanes; i++) {
            uint64_t k2 = ((uint64_t)m->lanes[i].proc << 32 | m->lanes[i].tid) + 1;
            uint32_t s = (uint32_t)((k2 * 0x9E3779B97F4A7C15ull) >> 40) & (nc - 1);
            while (h[s]) s = (s + 1) & (nc - 1);
            h[s] = k2;
            v[s] = i;
        }
        viz_free(m, m->lhash); viz_free(m, m->lhash_v);
        m->lhash = h; m->lhash_v = v; m->lhash_cap = nc;
    }
    uint32_t s = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (m->lhash_cap - 1);
    while (m->lhash[s]) {
        if (m->lhash[s] == key) return m->lhash_v[s];
        s = (s + 1) & (m->lhash_cap - 1);
    }
    if (!grow(m, (void **)&m->lanes, &m->lanes_cap, m->nlanes + 1, sizeof *m->lanes)) return VIZ_NONE;
    VizLane *l = &m->lanes[m->nlanes];
    memset(l, 0, sizeof *l);
    l->proc = proc;
    l->tid = l->label = tid;
    l->seq = m->seq++;
    l->row = VIZ_NONE;
    m->lhash[s] = key;
    m->lhash_v[s] = m->nlanes;
    return m->nlanes++;
}

/* The counter track of (proc, series name): created on first use. */
static uint32_t track_get(AscVizModel *m, uint32_t proc, uint32_t name)
{
    uint64_t key = ((uint64_t)proc << 32 | name) + 1;
    if (m->ntracks * 2 + 2 > m->thash_cap) {
        uint32_t nc = m->thash_cap ? m->thash_cap * 2 : 64;
        uint64_t *h = viz_calloc(m, nc, sizeof *h);
        uint32_t *v = viz_calloc(m, nc, sizeof *v);
        if (!h || !v) { viz_free(m, h); viz_free(m, v); return VIZ_NONE; }
        for (uint32_t i = 0; i < m->ntracks; i++) {
            uint64_t k2 = ((uint64_t)m->tracks[i].proc << 32 | m->tracks[i].name) + 1;
            uint32_t s = (uint32_t)((k2 * 0x9E3779B97F4A7C15ull) >> 40) & (nc - 1);
            while (h[s]) s = (s + 1) & (nc - 1);
            h[s] = k2;
            v[s] = i;
        }
        viz_free(m, m->thash); viz_free(m, m->thash_v);
        m->thash = h; m->thash_v = v; m->thash_cap = nc;
    }
    uint32_t s = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (m->thash_cap - 1);
    while (m->thash[s]) {
        if (m->thash[s] == key) return m->thash_v[s];
        s = (s + 1) & (m->thash_cap - 1);
    }
    if (!grow(m, (void **)&m->tracks, &m->tracks_cap, m->ntracks + 1, sizeof *m->tracks)) return VIZ_NONE;
    VizCtrTrack *t = &m->tracks[m->ntracks];
    memset(t, 0, sizeof *t);
    t->proc = proc;
    t->name = name;
    t->seq = m->seq++;
    m->thash[s] = key;
    m->thash_v[s] = m->ntracks;
    return m->ntracks++;
}

/* ---- colours: Chrome's reserved cnames (trace_viewer color_scheme.js) --- */

static const struct { const char *name; uint32_t rgb; } cnames[] = {
    {"thread_state_uninterruptible", 0xB67D8F}, {"thread_state_iowait", 0xFF8C00},
    {"thread_state_running", 0x7EC894},         {"thread_state_runnable", 0x85A0D2},
    {"thread_state_unknown", 0xC79B7D},         {"background_memory_dump", 0x00B4B4},
    {"light_memory_dump", 0x0000B4},            {"detailed_memory_dump", 0xB400B4},
    {"vsync_highlight_color", 0x0000FF},        {"generic_work", 0x7D7D7D},
    {"good", 0x007D00},                         {"bad", 0xB47D00},
    {"terrible", 0xB40000},                     {"black", 0x000000},
    {"grey", 0xDDDDDD},                         {"white", 0xFFFFFF},
    {"yellow", 0xFFFF00},                       {"olive", 0x646400},
    {"rail_response", 0x4387FD},                {"rail_animation", 0xF44A3F},
    {"rail_idle", 0xEE8E00},                    {"rail_load", 0x0DA861},
    {"startup", 0xE6E600},                      {"heap_dump_stack_frame", 0x808080},
    {"heap_dump_object_type", 0x0000FF},        {"heap_dump_child_node_arrow", 0xCC6600},
    {"cq_build_running", 0xFFFF77},             {"cq_build_passed", 0x99EE66},
    {"cq_build_failed", 0xEE8888},              {"cq_build_abandoned", 0xBBBBBB},
    {"cq_build_attempt_runnig", 0xDDDD00},      {"cq_build_attempt_passed", 0x75A236},
    {"cq_build_attempt_failed", 0xC43131},
};

uint32_t viz_cname_rgb(const char *s, size_t n, bool *found)
{
    for (size_t i = 0; i < sizeof cnames / sizeof cnames[0]; i++) {
        if (strlen(cnames[i].name) == n && memcmp(cnames[i].name, s, n) == 0) {
            *found = true;
            return cnames[i].rgb;
        }
    }
    *found = false;
    return 0;
}

/* msOpProf's lane colours (docs/sources.md §Trace format), for events without a cname. */
static const struct { const char *lane, *cname; } lane_cnames[] = {
    {"MTE1", "thread_state_running"},   {"MTE2", "thread_state_iowait"},
    {"MTE3", "rail_response"},          {"SCALAR", "startup"},
    {"VECTOR", "cq_build_failed"},      {"CUBE", "background_memory_dump"},
    {"FIXP", "thread_state_unknown"},   {"FLOWCTRL", "cq_build_passed"},
    {"SET_FLAG", "black"},              {"WAIT_FLAG", "yellow"},
};

uint32_t viz_lane_rgb(const char *lane, bool *found)
{
    for (size_t i = 0; i < sizeof lane_cnames / sizeof lane_cnames[0]; i++)
        if (strcmp(lane, lane_cnames[i].lane) == 0)
            return viz_cname_rgb(lane_cnames[i].cname, strlen(lane_cnames[i].cname), found);
    *found = false;
    return 0;
}

/* ---- one trace event ---------------------------------------------------- */

enum { VT_NONE, VT_STR, VT_NUM, VT_OBJ, VT_ARR, VT_BOOL, VT_NULL };

static const char *vt_name(int t)
{
    static const char *const names[] = {"nothing", "a string", "a number", "an object",
                                        "an array", "a boolean", "null"};
    return names[t];
}

typedef struct JVal {
    uint8_t type;
    bool esc;
    const char *s, *at;
    size_t n;
    double num;
} JVal;

/* Read any value; strings and numbers are kept, containers are skipped. */
static int jr_value(JR *r, JVal *v)
{
    if (jr_more(r, "a value")) return -1;
    v->at = r->p;
    char c = *r->p;
    if (c == '"') {
        v->type = VT_STR;
        return jr_string(r, &v->s, &v->n, &v->esc);
    }
    if (c == '-' || isdigit((unsigned char)c)) {
        v->type = VT_NUM;
        return jr_number(r, &v->num);
    }
    if (c == '{' || c == '[') {
        v->type = c == '{' ? VT_OBJ : VT_ARR;
        return jr_skip(r);
    }
    int lit = jr_literal(r);
    if (lit < 0) return -1;
    v->type = lit == 2 ? VT_NULL : VT_BOOL;
    return 0;
}

/* Intern a string or number value as text (pid, tid, id). */
static uint32_t intern_val(AscVizModel *m, const JVal *v)
{
    char tmp[512];
    if (v->type == VT_NUM) {
        int n;
        if (v->num == floor(v->num) && fabs(v->num) < 9e15) n = snprintf(tmp, sizeof tmp, "%.0f", v->num);
        else n = snprintf(tmp, sizeof tmp, "%.17g", v->num);
        return viz_intern(m, tmp, (size_t)n);
    }
    if (!v->esc) return viz_intern(m, v->s, v->n);
    if (v->n < sizeof tmp) {
        size_t n = unescape(v->s, v->n, tmp, sizeof tmp);
        return viz_intern(m, tmp, n);
    }
    char *big = viz_malloc(m, v->n + 8);
    if (!big) return VIZ_NONE;
    size_t n = unescape(v->s, v->n, big, v->n + 8);
    uint32_t id = viz_intern(m, big, n);
    viz_free(m, big);
    return id;
}

static bool key_is(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n == l && memcmp(s, lit, l) == 0;
}

typedef struct EvFields {
    JVal name, ph, ts, dur, pid, tid, cname, id, cat, args;
    JVal a_name, a_sort, a_stall, a_bank, a_c0, a_c1;
} EvFields;

/* args = '{' { key ':' value } '}': pick what the loader needs, skip the rest */
static int parse_args(JR *r, EvFields *f)
{
    r->p++;
    if (jr_more(r, "args")) return -1;
    if (*r->p == '}') { r->p++; return 0; }
    for (;;) {
        if (jr_more(r, "args")) return -1;
        if (*r->p != '"') return jr_fail(r, r->p, "expected a string key in an object");
        const char *k;
        size_t kn;
        if (jr_string(r, &k, &kn, NULL)) return -1;
        if (jr_more(r, "args")) return -1;
        if (*r->p != ':') return jr_fail(r, r->p, "expected ':' after an object key");
        r->p++;
        JVal v = {0};
        if (jr_value(r, &v)) return -1;
        if (key_is(k, kn, "name")) f->a_name = v;
        else if (key_is(k, kn, "sort_index")) f->a_sort = v;
        else if (key_is(k, kn, "stall")) f->a_stall = v;
        else if (key_is(k, kn, "bank_conflict_beats")) f->a_bank = v;
        else if (key_is(k, kn, "start_cycle")) f->a_c0 = v;
        else if (key_is(k, kn, "end_cycle")) f->a_c1 = v;
        if (jr_more(r, "args")) return -1;
        if (*r->p == ',') { r->p++; continue; }
        if (*r->p == '}') { r->p++; return 0; }
        return jr_fail(r, r->p, "expected ',' or '}' in an object");
    }
}

static int need_type(JR *r, const char *obj, const JVal *v, const char *key, int t1, int t2,
                     const char *what)
{
    if (v->type == VT_NONE)
        return jr_fail(r, obj, "%s has no \"%s\" (%s)", what, key,
                       "every X event needs \"ts\", \"dur\", \"pid\" and \"tid\"; B/E and flow events need \"ts\", \"pid\" and \"tid\"; C events need \"ts\" and \"pid\"");
    if (v->type != t1 && v->type != t2) {
        if (t2 != VT_NONE && t2 != t1)
            return jr_fail(r, v->at, "\"%s\" must be %s or %s, got %s", key, vt_name(t1), vt_name(t2),
                           vt_name(v->type));
        return jr_fail(r, v->at, "\"%s\" must be %s, got %s", key, vt_name(t1), vt_name(v->type));
    }
    return 0;
}

static bool name_is(const AscVizModel *m, uint32_t id, const char *a)
{
    const char *s = m->pool + m->str_off[id];
    for (; *s && *a; s++, a++)
        if (toupper((unsigned char)*s) != *a) return false;
    return !*s && !*a;
}

/* Out of memory is not about a position in the input: no offset. */
static int oom(JR *r)
{
    if (r->failed) return -1;
    r->failed = true;
    viz_error_at(r->err, NULL, 0, -1, "out of memory while loading the trace");
    return -1;
}

/* A counter event: {"ph":"C","name":N,"pid":P,"ts":T,"args":{K:number,...}}.
 * Each numeric key is one series, named N when the event has one numeric
 * key and "N K" when it has several (Chrome shows them stacked; we draw one
 * track per series).  Non-numeric values are skipped, as Chrome does. */
static int parse_counter(JR *r, AscVizModel *m, const EvFields *f, const char *obj)
{
    if (need_type(r, obj, &f->ts, "ts", VT_NUM, VT_NONE, "C event")) return -1;
    if (f->pid.type == VT_NONE) return jr_fail(r, obj, "C event has no \"pid\" (a counter belongs to a process)");
    if (f->pid.type != VT_NUM && f->pid.type != VT_STR)
        return jr_fail(r, f->pid.at, "\"pid\" must be a number or a string, got %s", vt_name(f->pid.type));
    if (f->args.type == VT_NONE || f->args.type == VT_NULL) return 0;
    if (f->args.type != VT_OBJ)
        return jr_fail(r, f->args.at, "\"args\" must be an object, got %s", vt_name(f->args.type));
    uint32_t pid = intern_val(m, &f->pid);
    if (pid == VIZ_NONE) return oom(r);
    uint32_t proc = proc_get(m, pid);
    if (proc == VIZ_NONE) return oom(r);
    /* the args object was validated by parse_args: walk it twice, counting
     * the numeric keys, then adding one sample per key */
    const char *name = f->name.type == VT_STR ? f->name.s : "";
    size_t name_n = f->name.type == VT_STR ? f->name.n : 0;
    char nbuf[256], sbuf[400];
    if (f->name.type == VT_STR && f->name.esc) name_n = unescape(f->name.s, f->name.n, nbuf, sizeof nbuf), name = nbuf;
    uint32_t nnum = 0;
    for (int pass = 0; pass < 2; pass++) {
        JR a = {r->base, f->args.at + 1, r->end, r->err, false};
        for (;;) {
            jr_ws(&a);
            if (*a.p == '}') break;
            if (*a.p == ',') { a.p++; continue; }
            const char *k;
            size_t kn;
            bool kesc;
            JVal v = {0};
            if (jr_string(&a, &k, &kn, &kesc)) return -1;
            jr_ws(&a);
            a.p++; /* ':' */
            if (jr_value(&a, &v)) return -1;
            if (v.type != VT_NUM) continue;
            if (pass == 0) { nnum++; continue; }
            uint32_t series;
            if (nnum == 1) {
                series = viz_intern(m, name, name_n);
            } else {
                char kb[128];
                size_t kl = kesc ? unescape(k, kn, kb, sizeof kb) : (kn < sizeof kb ? kn : sizeof kb - 1);
                if (!kesc) memcpy(kb, k, kl);
                int n = snprintf(sbuf, sizeof sbuf, "%.*s%s%.*s", (int)name_n, name, name_n ? " " : "", (int)kl, kb);
                series = viz_intern(m, sbuf, n < (int)sizeof sbuf ? (size_t)n : sizeof sbuf - 1);
            }
            if (series == VIZ_NONE) return oom(r);
            uint32_t t = track_get(m, proc, series);
            if (t == VIZ_NONE) return oom(r);
            if (!grow(m, (void **)&m->ctr, &m->ctr_cap, m->nctr + 1, sizeof *m->ctr)) return oom(r);
            VizCtrSample *c = &m->ctr[m->nctr];
            c->ts = f->ts.num;
            c->v = v.num;
            c->track = t;
            c->seq = m->nctr++;
        }
    }
    return 0;
}

/* event = '{' { key ':' value } '}', then dispatched on "ph" */
/* A JSON number as int64, saturating: a double outside the int64 range (or
 * NaN) must not be cast directly (undefined behaviour; found by fuzz_viz). */
static int64_t num_to_i64(double v)
{
    if (!(v == v)) return 0;
    if (v >= 9.2e18) return INT64_MAX;
    if (v <= -9.2e18) return INT64_MIN;
    return (int64_t)v;
}

static int parse_event(JR *r, AscVizModel *m)
{
    const char *obj = r->p;
    EvFields f;
    memset(&f, 0, sizeof f);
    r->p++;
    if (jr_more(r, "a trace event")) return -1;
    if (*r->p == '}') {
        r->p++;
    } else {
        for (;;) {
            if (jr_more(r, "a trace event")) return -1;
            if (*r->p != '"') return jr_fail(r, r->p, "expected a string key in an object");
            const char *k;
            size_t kn;
            if (jr_string(r, &k, &kn, NULL)) return -1;
            if (jr_more(r, "a trace event")) return -1;
            if (*r->p != ':') return jr_fail(r, r->p, "expected ':' after an object key");
            r->p++;
            JVal *dst = NULL;
            switch (kn) {
            case 2:
                if (k[0] == 'p' && k[1] == 'h') dst = &f.ph;
                else if (k[0] == 't' && k[1] == 's') dst = &f.ts;
                else if (k[0] == 'i' && k[1] == 'd') dst = &f.id;
                break;
            case 3:
                if (!memcmp(k, "dur", 3)) dst = &f.dur;
                else if (!memcmp(k, "pid", 3)) dst = &f.pid;
                else if (!memcmp(k, "tid", 3)) dst = &f.tid;
                else if (!memcmp(k, "cat", 3)) dst = &f.cat;
                break;
            case 4:
                if (!memcmp(k, "name", 4)) dst = &f.name;
                else if (!memcmp(k, "args", 4)) dst = &f.args;
                break;
            case 5:
                if (!memcmp(k, "cname", 5)) dst = &f.cname;
                break;
            }
            if (dst == &f.args) {
                if (jr_more(r, "args")) return -1;
                f.args.at = r->p;
                if (*r->p == '{') {
                    f.args.type = VT_OBJ;
                    if (parse_args(r, &f)) return -1;
                } else if (jr_value(r, &f.args)) {
                    return -1;
                }
            } else if (dst) {
                if (jr_value(r, dst)) return -1;
            } else {
                if (jr_skip(r)) return -1;
            }
            if (jr_more(r, "a trace event")) return -1;
            if (*r->p == ',') { r->p++; continue; }
            if (*r->p == '}') { r->p++; break; }
            return jr_fail(r, r->p, "expected ',' or '}' in an object");
        }
    }

    if (f.ph.type == VT_NONE)
        return jr_fail(r, obj, "trace event has no \"ph\" (every event needs a phase such as \"X\", \"B\", \"E\" or \"M\")");
    if (f.ph.type != VT_STR) return jr_fail(r, f.ph.at, "\"ph\" must be a string, got %s", vt_name(f.ph.type));
    if (f.ph.n != 1) return 0; /* unknown phase: ignored */
    char ph = f.ph.s[0];
    if (f.name.type != VT_NONE && f.name.type != VT_STR)
        return jr_fail(r, f.name.at, "\"name\" must be a string, got %s", vt_name(f.name.type));
    uint64_t off = (uint64_t)(obj - r->base);

    switch (ph) {
    case 'X':
    case 'B':
    case 'E': {
        const char *what = ph == 'X' ? "X event" : ph == 'B' ? "B event" : "E event";
        if (need_type(r, obj, &f.ts, "ts", VT_NUM, VT_NONE, what)) return -1;
        if (ph == 'X' && need_type(r, obj, &f.dur, "dur", VT_NUM, VT_NONE, what)) return -1;
        if (need_type(r, obj, &f.pid, "pid", VT_NUM, VT_STR, what)) return -1;
        if (need_type(r, obj, &f.tid, "tid", VT_NUM, VT_STR, what)) return -1;
        if (ph == 'X' && f.dur.num < 0)
            return jr_fail(r, f.dur.at, "\"dur\" must be >= 0, got %g", f.dur.num);
        if (f.cname.type != VT_NONE && f.cname.type != VT_STR)
            return jr_fail(r, f.cname.at, "\"cname\" must be a string, got %s", vt_name(f.cname.type));
        if (f.args.type != VT_NONE && f.args.type != VT_OBJ && f.args.type != VT_NULL)
            return jr_fail(r, f.args.at, "\"args\" must be an object, got %s", vt_name(f.args.type));
        uint32_t pid = intern_val(m, &f.pid), tid = intern_val(m, &f.tid);
        if (pid == VIZ_NONE || tid == VIZ_NONE) return oom(r);
        uint32_t proc = proc_get(m, pid);
        if (proc == VIZ_NONE) return oom(r);
        uint32_t lane = lane_get(m, proc, tid);
        if (lane == VIZ_NONE) return oom(r);
        uint32_t name = f.name.type == VT_STR ? intern_val(m, &f.name) : viz_intern(m, "", 0);
        if (name == VIZ_NONE) return oom(r);
        uint32_t rgb = 0xFF000000u; /* resolved from the lane after loading */
        if (f.cname.type == VT_STR) {
            bool found;
            uint32_t c = viz_cname_rgb(f.cname.s, f.cname.n, &found);
            if (found) rgb = c;
        }
        uint8_t flags = 0;
        if (name_is(m, name, "SET_FLAG")) flags |= ASC_VIZ_EV_SETFLAG;
        if (name_is(m, name, "WAIT_FLAG")) flags |= ASC_VIZ_EV_WAITFLAG | ASC_VIZ_EV_STALL;
        if (f.a_stall.type == VT_STR && f.a_stall.n > 0) flags |= ASC_VIZ_EV_STALL;
        if (f.a_bank.type == VT_NUM && f.a_bank.num > 0) flags |= ASC_VIZ_EV_BANK;
        m->lanes[lane].nev++;
        if (ph == 'X') {
            if (!grow(m, (void **)&m->ev, &m->ev_cap, m->nev + 1, sizeof *m->ev)) return oom(r);
            AscVizEvent *e = &m->ev[m->nev++];
            memset(e, 0, sizeof *e);
            e->t0_us = f.ts.num;
            e->t1_us = f.ts.num + f.dur.num;
            e->src_off = off;
            e->name = name;
            e->row = lane; /* a lane until viz_model_finish maps it to a row */
            e->rgb = rgb;
            if (f.a_c0.type == VT_NUM && f.a_c1.type == VT_NUM && f.a_c1.num >= f.a_c0.num &&
                fabs(f.a_c0.num) < 9e18 && fabs(f.a_c1.num) < 9e18) {
                e->c0 = (int64_t)f.a_c0.num;
                e->c1 = (int64_t)f.a_c1.num;
                flags |= ASC_VIZ_EV_CYCLES;
            }
            e->flags = flags;
        } else {
            if (!grow(m, (void **)&m->be, &m->be_cap, m->nbe + 1, sizeof *m->be)) return oom(r);
            VizBE *b = &m->be[m->nbe++];
            b->ts = f.ts.num;
            b->off = off;
            b->lane = lane;
            b->name = f.name.type == VT_STR ? name : VIZ_NONE;
            b->seq = m->nbe - 1;
            b->rgb = rgb;
            b->begin = ph == 'B';
            b->flags = flags;
        }
        return 0;
    }
    case 's':
    case 't':
    case 'f': {
        if (need_type(r, obj, &f.ts, "ts", VT_NUM, VT_NONE, "flow event")) return -1;
        if (need_type(r, obj, &f.pid, "pid", VT_NUM, VT_STR, "flow event")) return -1;
        if (need_type(r, obj, &f.tid, "tid", VT_NUM, VT_STR, "flow event")) return -1;
        if (f.id.type == VT_NONE) return jr_fail(r, obj, "flow event has no \"id\" (a flow's start and end share an id)");
        if (f.id.type != VT_NUM && f.id.type != VT_STR)
            return jr_fail(r, f.id.at, "\"id\" must be a string or a number, got %s", vt_name(f.id.type));
        uint32_t pid = intern_val(m, &f.pid), tid = intern_val(m, &f.tid), id = intern_val(m, &f.id);
        uint32_t cat = f.cat.type == VT_STR ? intern_val(m, &f.cat) : viz_intern(m, "", 0);
        if (pid == VIZ_NONE || tid == VIZ_NONE || id == VIZ_NONE || cat == VIZ_NONE) return oom(r);
        uint32_t proc = proc_get(m, pid);
        if (proc == VIZ_NONE) return oom(r);
        uint32_t lane = lane_get(m, proc, tid);
        if (lane == VIZ_NONE) return oom(r);
        if (!grow(m, (void **)&m->fe, &m->fe_cap, m->nfe + 1, sizeof *m->fe)) return oom(r);
        VizFlowEnd *e = &m->fe[m->nfe++];
        e->ts = f.ts.num;
        e->off = off;
        e->lane = lane;
        e->id = id;
        e->cat = cat;
        e->seq = m->nfe - 1;
        e->ph = ph;
        return 0;
    }
    case 'b':
    case 'e': {
        if (need_type(r, obj, &f.ts, "ts", VT_NUM, VT_NONE, "async event")) return -1;
        if (need_type(r, obj, &f.pid, "pid", VT_NUM, VT_STR, "async event")) return -1;
        if (need_type(r, obj, &f.tid, "tid", VT_NUM, VT_STR, "async event")) return -1;
        if (f.id.type == VT_NONE) return 0; /* id2 scoping is not read: not drawn */
        if (f.id.type != VT_NUM && f.id.type != VT_STR)
            return jr_fail(r, f.id.at, "\"id\" must be a string or a number, got %s", vt_name(f.id.type));
        uint32_t pid = intern_val(m, &f.pid), tid = intern_val(m, &f.tid), id = intern_val(m, &f.id);
        uint32_t cat = f.cat.type == VT_STR ? intern_val(m, &f.cat) : viz_intern(m, "", 0);
        uint32_t name = f.name.type == VT_STR ? intern_val(m, &f.name) : viz_intern(m, "", 0);
        if (pid == VIZ_NONE || tid == VIZ_NONE || id == VIZ_NONE || cat == VIZ_NONE || name == VIZ_NONE) return oom(r);
        uint32_t proc = proc_get(m, pid);
        if (proc == VIZ_NONE) return oom(r);
        uint32_t lane = lane_get(m, proc, tid);
        if (lane == VIZ_NONE) return oom(r);
        if (!grow(m, (void **)&m->ae, &m->ae_cap, m->nae + 1, sizeof *m->ae)) return oom(r);
        VizAsyncEnd *a = &m->ae[m->nae++];
        memset(a, 0, sizeof *a);
        a->ts = f.ts.num;
        a->lane = lane;
        a->proc = proc;
        a->id = id;
        a->cat = cat;
        a->name = name;
        a->seq = m->nae - 1;
        a->begin = ph == 'b';
        if (ph == 'b' && f.a_c0.type == VT_NUM && f.a_c1.type == VT_NUM && f.a_c1.num >= f.a_c0.num &&
            fabs(f.a_c0.num) < 9e18 && fabs(f.a_c1.num) < 9e18) {
            a->c0 = (int64_t)f.a_c0.num;
            a->c1 = (int64_t)f.a_c1.num;
            a->cycles = 1;
        }
        if (ph == 'b') m->lanes[lane].nev++;
        return 0;
    }
    case 'M': {
        if (f.name.type != VT_STR) return 0;
        bool pname = key_is(f.name.s, f.name.n, "process_name");
        bool psort = key_is(f.name.s, f.name.n, "process_sort_index");
        bool tname = key_is(f.name.s, f.name.n, "thread_name");
        bool tsort = key_is(f.name.s, f.name.n, "thread_sort_index");
        if (!pname && !psort && !tname && !tsort) return 0;
        const char *what = pname ? "process_name metadata" : psort ? "process_sort_index metadata"
                         : tname ? "thread_name metadata" : "thread_sort_index metadata";
        if (f.pid.type == VT_NONE) return jr_fail(r, obj, "%s has no \"pid\"", what);
        if (f.pid.type != VT_NUM && f.pid.type != VT_STR)
            return jr_fail(r, f.pid.at, "\"pid\" must be a number or a string, got %s", vt_name(f.pid.type));
        if ((tname || tsort) && f.tid.type == VT_NONE) return jr_fail(r, obj, "%s has no \"tid\"", what);
        if ((tname || tsort) && f.tid.type != VT_NUM && f.tid.type != VT_STR)
            return jr_fail(r, f.tid.at, "\"tid\" must be a number or a string, got %s", vt_name(f.tid.type));
        if ((pname || tname) && f.a_name.type != VT_STR)
            return jr_fail(r, f.args.type ? f.args.at : obj, "%s needs args.name (a string)", what);
        if ((psort || tsort) && f.a_sort.type != VT_NUM)
            return jr_fail(r, f.args.type ? f.args.at : obj, "%s needs args.sort_index (a number)", what);
        uint32_t pid = intern_val(m, &f.pid);
        if (pid == VIZ_NONE) return oom(r);
        uint32_t proc = proc_get(m, pid);
        if (proc == VIZ_NONE) return oom(r);
        uint32_t label = (pname || tname) ? intern_val(m, &f.a_name) : 0;
        if (label == VIZ_NONE) return oom(r);
        if (pname) m->procs[proc].label = label;
        if (psort) { m->procs[proc].sort = num_to_i64(f.a_sort.num); m->procs[proc].has_sort = true; }
        if (tname || tsort) {
            uint32_t tid = intern_val(m, &f.tid);
            if (tid == VIZ_NONE) return oom(r);
            uint32_t lane = lane_get(m, proc, tid);
            if (lane == VIZ_NONE) return oom(r);
            if (tname) m->lanes[lane].label = label;
            else { m->lanes[lane].sort = num_to_i64(f.a_sort.num); m->lanes[lane].has_sort = true; }
        }
        return 0;
    }
    case 'C':
        return parse_counter(r, m, &f, obj);
    default:
        return 0; /* instants, async, ...: not drawn */
    }
}

/* events = '[' [ event { ',' event } ] ']' */
static int parse_events(JR *r, AscVizModel *m)
{
    r->p++;
    if (jr_more(r, "the traceEvents array")) return -1;
    if (*r->p == ']') { r->p++; return 0; }
    for (;;) {
        if (jr_more(r, "the traceEvents array")) return -1;
        if (*r->p != '{') return jr_fail(r, r->p, "each trace event must be a JSON object");
        if (parse_event(r, m)) return -1;
        if (jr_more(r, "the traceEvents array")) return -1;
        if (*r->p == ',') { r->p++; continue; }
        if (*r->p == ']') { r->p++; return 0; }
        return jr_fail(r, r->p, "expected ',' or ']' after a trace event");
    }
}

/* trace = events | '{' { key ':' value } '}' with key "traceEvents" required */
int viz_parse(AscVizModel *m, AscVizError *err)
{
    JR r = {m->buf, m->buf, m->buf + m->len, err, false};
    jr_ws(&r);
    if (r.p >= r.end) return jr_fail(&r, r.p, "empty input: a trace is a JSON array or object of trace events");
    if (*r.p == '[') {
        if (parse_events(&r, m)) return -1;
    } else if (*r.p == '{') {
        const char *start = r.p;
        bool seen = false;
        r.p++;
        if (jr_more(&r, "the top-level object")) return -1;
        if (*r.p == '}') {
            r.p++;
        } else {
            for (;;) {
                if (jr_more(&r, "the top-level object")) return -1;
                if (*r.p != '"') return jr_fail(&r, r.p, "expected a string key in an object");
                const char *k;
                size_t kn;
                if (jr_string(&r, &k, &kn, NULL)) return -1;
                if (jr_more(&r, "the top-level object")) return -1;
                if (*r.p != ':') return jr_fail(&r, r.p, "expected ':' after an object key");
                r.p++;
                if (jr_more(&r, "the top-level object")) return -1;
                if (key_is(k, kn, "traceEvents")) {
                    if (*r.p != '[') return jr_fail(&r, r.p, "\"traceEvents\" must be an array");
                    if (parse_events(&r, m)) return -1;
                    seen = true;
                } else if (key_is(k, kn, "otherData") && *r.p == '{') {
                    r.p++;
                    if (jr_more(&r, "otherData")) return -1;
                    if (*r.p == '}') {
                        r.p++;
                    } else {
                        for (;;) {
                            if (jr_more(&r, "otherData")) return -1;
                            if (*r.p != '"') return jr_fail(&r, r.p, "expected a string key in an object");
                            const char *k2;
                            size_t kn2;
                            if (jr_string(&r, &k2, &kn2, NULL)) return -1;
                            if (jr_more(&r, "otherData")) return -1;
                            if (*r.p != ':') return jr_fail(&r, r.p, "expected ':' after an object key");
                            r.p++;
                            JVal v = {0};
                            if (jr_value(&r, &v)) return -1;
                            if (key_is(k2, kn2, "clock_mhz")) {
                                if (v.type != VT_NUM || !(v.num > 0))
                                    return jr_fail(&r, v.at, "otherData.clock_mhz must be a positive number");
                                m->file_mhz = v.num;
                            }
                            if (jr_more(&r, "otherData")) return -1;
                            if (*r.p == ',') { r.p++; continue; }
                            if (*r.p == '}') { r.p++; break; }
                            return jr_fail(&r, r.p, "expected ',' or '}' in an object");
                        }
                    }
                } else if (jr_skip(&r)) {
                    return -1;
                }
                if (jr_more(&r, "the top-level object")) return -1;
                if (*r.p == ',') { r.p++; continue; }
                if (*r.p == '}') { r.p++; break; }
                return jr_fail(&r, r.p, "expected ',' or '}' in an object");
            }
        }
        if (!seen) return jr_fail(&r, start, "the top-level object has no \"traceEvents\" array");
    } else {
        return jr_fail(&r, r.p, "a trace must start with '[' or '{' (Chrome trace-event JSON)");
    }
    jr_ws(&r);
    if (r.p < r.end) return jr_fail(&r, r.p, "unexpected data after the end of the trace JSON");
    return 0;
}

/* ---- lazily re-parsed args (tooltips) ----------------------------------- */

static void append(char *dst, size_t cap, const char *s)
{
    size_t n = strlen(dst);
    if (n + 1 >= cap) return;
    snprintf(dst + n, cap - n, "%s", s);
}

int viz_event_args(const AscVizModel *m, const AscVizEvent *e, AscVizEventArgs *out)
{
    memset(out, 0, sizeof *out);
    out->bytes = out->bank_conflict_beats = -1;
    if (e->src_off >= m->len) return -1;
    AscVizError err;
    JR r = {m->buf, m->buf + e->src_off, m->buf + m->len, &err, false};
    if (*r.p != '{') return -1;
    r.p++;
    for (;;) {
        if (jr_more(&r, "an event")) return -1;
        if (*r.p == '}') return 0;
        if (*r.p == ',') { r.p++; continue; }
        if (*r.p != '"') return -1;
        const char *k;
        size_t kn;
        if (jr_string(&r, &k, &kn, NULL)) return -1;
        if (jr_more(&r, "an event") || *r.p != ':') return -1;
        r.p++;
        if (jr_more(&r, "an event")) return -1;
        if (!key_is(k, kn, "args") || *r.p != '{') {
            if (jr_skip(&r)) return -1;
            continue;
        }
        r.p++;
        for (;;) {
            if (jr_more(&r, "args")) return -1;
            if (*r.p == '}') { r.p++; break; }
            if (*r.p == ',') { r.p++; continue; }
            if (*r.p != '"') return -1;
            const char *ak;
            size_t akn;
            bool akesc;
            if (jr_string(&r, &ak, &akn, &akesc)) return -1;
            if (jr_more(&r, "args") || *r.p != ':') return -1;
            r.p++;
            JVal v = {0};
            if (jr_value(&r, &v)) return -1;
            char *dst = NULL;
            size_t cap = 0;
            if (key_is(ak, akn, "instr")) { dst = out->instr; cap = sizeof out->instr; }
            else if (key_is(ak, akn, "pc")) { dst = out->pc; cap = sizeof out->pc; }
            else if (key_is(ak, akn, "source")) { dst = out->source; cap = sizeof out->source; }
            else if (key_is(ak, akn, "stall")) { dst = out->stall; cap = sizeof out->stall; }
            if (dst && v.type == VT_STR) {
                unescape(v.s, v.n, dst, cap);
                continue;
            }
            if (key_is(ak, akn, "bytes") && v.type == VT_NUM) { out->bytes = num_to_i64(v.num); continue; }
            if (key_is(ak, akn, "bank_conflict_beats") && v.type == VT_NUM) {
                out->bank_conflict_beats = num_to_i64(v.num);
                continue;
            }
            if (key_is(ak, akn, "start_cycle") || key_is(ak, akn, "end_cycle")) continue;
            char kbuf[64], vbuf[128];
            unescape(ak, akn, kbuf, sizeof kbuf);
            if (v.type == VT_STR) unescape(v.s, v.n, vbuf, sizeof vbuf);
            else if (v.type == VT_NUM) snprintf(vbuf, sizeof vbuf, "%.10g", v.num);
            else if (v.type == VT_OBJ) snprintf(vbuf, sizeof vbuf, "{...}");
            else if (v.type == VT_ARR) snprintf(vbuf, sizeof vbuf, "[...]");
            else snprintf(vbuf, sizeof vbuf, "%.*s", (int)(r.p - v.at), v.at);
            if (out->other[0]) append(out->other, sizeof out->other, "  ");
            append(out->other, sizeof out->other, kbuf);
            append(out->other, sizeof out->other, "=");
            append(out->other, sizeof out->other, vbuf);
        }
    }
}
