/* bundle.c -- running an asc bundle (`asc-sim run out.om`): the JSON file
 * `pyasc compile script.py -o out.om` writes (asc's own format, not
 * Huawei's OM; docs/pyasc.md "The native launch plan").  Its "native"
 * section carries the ELF kernel binaries (base64) and the launch plan: GM
 * buffers (inputs, constants, zeroed scratch), the graph values that live in
 * them, and per step the launches (kernel, blocks, arguments).  Each launch
 * is one simulator run with its gm arguments placed in argument order, as
 * pyasc's launcher places them, so the cycles are the ones `pyasc run`
 * reports; the buffers are copied back after each launch.  Every rule the
 * file breaks is a SIM_LAUNCH diagnostic naming the bundle and the JSON
 * path ("native.steps[1].launches[0].args[3]"). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "asc/config.h"
#include "asc/json.h"
#include "asc/run.h"

typedef struct Buf {
    uint8_t *data;
    uint64_t bytes;
} Buf;

typedef struct Ctx {
    const char *path;
    AscDiags *d;
} Ctx;

static bool bad(const Ctx *c, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    asc_diag(c->d, ASC_DIAG_SIM_LAUNCH, (AscLoc){.file = c->path}, msg);
    return false;
}

static const cJSON *member(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* An integer member in [0, hi] (a JSON number, or a decimal string for values past 2^53). */
static bool uint_of(const Ctx *c, const cJSON *o, const char *k, const char *where, uint64_t hi, uint64_t *out)
{
    const cJSON *v = member(o, k);
    if (cJSON_IsString(v) && v->valuestring[0] >= '0' && v->valuestring[0] <= '9') {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v->valuestring, &end, 10);
        if (!*end && !errno && n <= hi) { /* errno: past 2^64 strtoull gives 2^64 - 1 (ERANGE) */
            *out = n;
            return true;
        }
    }
    /* (double)UINT64_MAX is 2^64, which no uint64_t holds: compare below it, convert only then */
    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 18446744073709551616.0 &&
        v->valuedouble <= (double)hi && v->valuedouble == (double)(uint64_t)v->valuedouble &&
        (uint64_t)v->valuedouble <= hi) {
        *out = (uint64_t)v->valuedouble;
        return true;
    }
    return bad(c, "%s.%s: needs an integer in [0, %llu]", where, k, (unsigned long long)hi);
}

static int b64v(int ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* Standard base64 (RFC 4648 §4, padded) into a malloc'ed buffer. */
static bool b64_decode(const Ctx *c, const char *s, const char *where, uint8_t **out, size_t *len)
{
    size_t n = strlen(s);
    if (n % 4) return bad(c, "%s: base64 text length %zu is not a multiple of 4", where, n);
    uint8_t *p = malloc(n / 4 * 3 + 1);
    if (!p) return bad(c, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int j = 0; j < 4; j++) {
            v[j] = s[i + j] == '=' && i + 4 == n && j >= 2 ? 0 : b64v((unsigned char)s[i + j]);
            if (v[j] < 0) {
                free(p);
                return bad(c, "%s: byte %zu is not base64", where, i + (size_t)j);
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        p[k++] = (uint8_t)(w >> 16);
        if (s[i + 2] != '=') p[k++] = (uint8_t)(w >> 8);
        if (s[i + 3] != '=') p[k++] = (uint8_t)w;
    }
    *out = p;
    *len = k;
    return true;
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = member(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The graph node of id, for its name and line. */
static const cJSON *node_of(const cJSON *root, uint64_t id)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, member(root, "graph"))
    {
        const cJSON *i = member(n, "id");
        if (cJSON_IsNumber(i) && (uint64_t)i->valuedouble == id) return n;
    }
    return NULL;
}

static bool shape_eq(const cJSON *shape, const uint64_t *s, uint32_t ndim, uint64_t count)
{
    int n = cJSON_GetArraySize(shape);
    if (n == 0) return count == 1 && (ndim == 0 || (ndim == 1 && s[0] == 1));
    if ((uint32_t)n != ndim) return false;
    for (int i = 0; i < n; i++)
        if ((uint64_t)cJSON_GetArrayItem(shape, i)->valuedouble != s[i]) return false;
    return true;
}

static void shape_text(const cJSON *shape, char *out, size_t size)
{
    size_t k = (size_t)snprintf(out, size, "(");
    for (int i = 0; i < cJSON_GetArraySize(shape) && k < size; i++)
        k += (size_t)snprintf(out + k, size - k, "%s%llu", i ? ", " : "",
                              (unsigned long long)cJSON_GetArrayItem(shape, i)->valuedouble);
    if (k < size) snprintf(out + k, size - k, ")");
}

/* Fill an input buffer: --arg NAME=x.npy, else the node's npy attribute (np.load in the
 * script, relative to the bundle). */
static bool load_input(const Ctx *c, const cJSON *root, const cJSON *be, const char *where, Buf *b,
                       const AscRunArg *args, uint32_t nargs)
{
    uint64_t id;
    if (!uint_of(c, be, "node", where, UINT32_MAX, &id)) return false;
    const cJSON *n = node_of(root, id);
    const char *name = n ? str_of(n, "name") : NULL;
    const char *file = NULL;
    char rel[1024];
    for (uint32_t i = 0; name && i < nargs; i++)
        if (!strcmp(args[i].name, name) && args[i].how == ASC_RUN_ARG_IN) file = args[i].path;
    if (!file && n && str_of(member(n, "attrs"), "npy")) {
        const char *slash = strrchr(c->path, '/');
        snprintf(rel, sizeof rel, "%.*s%s", slash ? (int)(slash - c->path + 1) : 0, c->path,
                 str_of(member(n, "attrs"), "npy"));
        file = rel;
    }
    if (!file)
        return bad(c, "input '%s' (line %d): give it with --arg %s=FILE.npy (the values pyasc run generates come "
                      "from numpy's generator, which asc-sim does not have)",
                   name ? name : "?", n ? (int)member(n, "line")->valuedouble : 0, name ? name : "NAME");
    AscNpy a;
    if (!asc_npy_read_file(&a, file, NULL, c->d)) return false;
    const char *want = str_of(be, "dtype");
    const cJSON *shape = member(be, "shape");
    bool ok = want && asc_dtype_name(a.dtype) && !strcmp(asc_dtype_name(a.dtype), want) &&
              cJSON_IsArray(shape) && shape_eq(shape, a.shape, a.ndim, a.count) &&
              a.count * asc_dtype_size(a.dtype) == b->bytes;
    if (!ok) {
        char s[200];
        shape_text(shape, s, sizeof s);
        bad(c, "input '%s' from %s: the bundle's launch plan was recorded for shape %s dtype %s, the file holds %s "
               "of %llu elements (other shapes inside --dynamic-dims run with pyasc run)",
            name ? name : "?", file, s, want ? want : "?", asc_dtype_name(a.dtype) ? asc_dtype_name(a.dtype) : "?",
            (unsigned long long)a.count);
    } else
        memcpy(b->data, a.data, b->bytes);
    asc_npy_free(&a, NULL);
    return ok;
}

typedef struct Plan {
    AscImage *imgs;
    char (*names)[ASC_NAME_MAX];
    int nimgs;
    Buf *bufs;
    int nbufs;
} Plan;

static void plan_free(Plan *p)
{
    for (int i = 0; i < p->nimgs; i++) asc_image_free(&p->imgs[i]);
    for (int i = 0; i < p->nbufs; i++) free(p->bufs[i].data);
    free(p->imgs);
    free(p->names);
    free(p->bufs);
}

static bool read_plan(const Ctx *c, const cJSON *root, const cJSON *nat, Plan *p, const AscRunArg *args,
                      uint32_t nargs)
{
    const cJSON *ks = member(nat, "kernels"), *bs = member(nat, "buffers");
    if (!cJSON_IsArray(ks) || !cJSON_IsArray(bs)) return bad(c, "native: needs arrays \"kernels\" and \"buffers\"");
    p->nimgs = cJSON_GetArraySize(ks);
    p->nbufs = cJSON_GetArraySize(bs);
    p->imgs = calloc((size_t)p->nimgs + 1, sizeof *p->imgs);
    p->names = calloc((size_t)p->nimgs + 1, sizeof *p->names);
    p->bufs = calloc((size_t)p->nbufs + 1, sizeof *p->bufs);
    if (!p->imgs || !p->names || !p->bufs) return bad(c, "out of memory");
    for (int i = 0; i < p->nimgs; i++) asc_image_init(&p->imgs[i], NULL);
    char where[160];
    for (int i = 0; i < p->nimgs; i++) {
        const cJSON *k = cJSON_GetArrayItem(ks, i);
        snprintf(where, sizeof where, "native.kernels[%d]", i);
        const char *name = str_of(k, "name"), *elf = str_of(k, "elf");
        if (!name || !elf || strlen(name) >= ASC_NAME_MAX)
            return bad(c, "%s: needs strings \"name\" (a kernel name) and \"elf\" (base64)", where);
        snprintf(p->names[i], ASC_NAME_MAX, "%s", name);
        uint8_t *bin;
        size_t len;
        if (!b64_decode(c, elf, where, &bin, &len)) return false;
        bool ok = asc_image_read(&p->imgs[i], bin, len, c->d);
        free(bin);
        if (!ok) return bad(c, "%s: the \"elf\" field is not a valid asc kernel binary (errors above)", where);
    }
    for (int i = 0; i < p->nbufs; i++) {
        const cJSON *be = cJSON_GetArrayItem(bs, i);
        snprintf(where, sizeof where, "native.buffers[%d]", i);
        uint64_t n;
        if (!uint_of(c, be, "bytes", where, 1ull << 40, &n)) return false;
        p->bufs[i].bytes = n;
        if (!(p->bufs[i].data = calloc(n ? n : 1, 1))) return bad(c, "out of memory");
        const char *init = str_of(be, "init");
        if (init && !strcmp(init, "zeros")) continue;
        if (init && !strcmp(init, "input")) {
            if (!load_input(c, root, be, where, &p->bufs[i], args, nargs)) return false;
            continue;
        }
        if (init && !strcmp(init, "const") && str_of(be, "data")) {
            uint8_t *bin;
            size_t len;
            if (!b64_decode(c, str_of(be, "data"), where, &bin, &len)) return false;
            if (len != n) {
                free(bin);
                return bad(c, "%s: \"data\" holds %zu bytes, \"bytes\" says %llu", where, len, (unsigned long long)n);
            }
            memcpy(p->bufs[i].data, bin, len);
            free(bin);
            continue;
        }
        return bad(c, "%s.init: must be \"zeros\", \"input\" or \"const\" (with \"data\")", where);
    }
    return true;
}

/* One launch: a simulator run; cycles added to *cycles. */
static bool launch(const Ctx *c, const AscConfig *cfg, Plan *p, const cJSON *l, const char *where, uint64_t *cycles)
{
    uint64_t k, blocks;
    if (!uint_of(c, l, "kernel", where, (uint64_t)(p->nimgs ? p->nimgs - 1 : 0), &k) || !p->nimgs ||
        !uint_of(c, l, "blocks", where, 65536, &blocks))
        return p->nimgs ? false : bad(c, "%s: the bundle has no kernels", where);
    const cJSON *args = member(l, "args");
    if (!cJSON_IsArray(args) || cJSON_GetArraySize(args) > ASC_MAX_ARGS)
        return bad(c, "%s.args: needs an array of at most %d arguments", where, ASC_MAX_ARGS);
    AscSimDesc desc = {.cfg = cfg, .image = &p->imgs[k], .kernel = p->names[k], .blocks = (uint32_t)blocks};
    AscSim *sim = asc_sim_new(&desc, c->d);
    if (!sim) return bad(c, "%s: the simulator did not start kernel '%s' (errors above)", where, p->names[k]);
    int na = cJSON_GetArraySize(args);
    uint64_t addr[ASC_MAX_ARGS] = {0}, buf[ASC_MAX_ARGS] = {0}, off[ASC_MAX_ARGS] = {0}, len[ASC_MAX_ARGS] = {0};
    bool gm[ASC_MAX_ARGS] = {0}, ok = true;
    char aw[200];
    for (int i = 0; ok && i < na; i++) {
        const cJSON *a = cJSON_GetArrayItem(args, i);
        snprintf(aw, sizeof aw, "%s.args[%d]", where, i);
        const char *kind = str_of(a, "kind");
        uint64_t v;
        if (kind && !strcmp(kind, "gm")) {
            ok = uint_of(c, a, "buffer", aw, (uint64_t)(p->nbufs ? p->nbufs - 1 : 0), &buf[i]) && p->nbufs &&
                 uint_of(c, a, "offset", aw, 1ull << 40, &off[i]) && uint_of(c, a, "bytes", aw, 1ull << 40, &len[i]);
            if (ok && off[i] + len[i] > p->bufs[buf[i]].bytes)
                ok = bad(c, "%s: bytes [%llu, %llu) lie outside buffer %llu of %llu bytes", aw,
                         (unsigned long long)off[i], (unsigned long long)(off[i] + len[i]),
                         (unsigned long long)buf[i], (unsigned long long)p->bufs[buf[i]].bytes);
            if (ok && !asc_sim_gm_place(sim, len[i] ? len[i] : 1, &addr[i]))
                ok = bad(c, "%s: %llu bytes do not fit in simulated GM", aw, (unsigned long long)len[i]);
            if (ok && len[i]) asc_sim_gm_write(sim, addr[i], p->bufs[buf[i]].data + off[i], len[i]);
            if (ok) asc_sim_set_arg(sim, (uint32_t)i, addr[i]);
            gm[i] = ok;
        } else if (kind && !strcmp(kind, "stack")) {
            ok = uint_of(c, a, "bytes", aw, 1ull << 40, &v);
            if (ok && !asc_sim_gm_place(sim, v, &addr[i]))
                ok = bad(c, "%s: the %llu-byte spill area does not fit in simulated GM", aw, (unsigned long long)v);
            if (ok) asc_sim_set_arg(sim, (uint32_t)i, addr[i]);
        } else if (kind && (!strcmp(kind, "int") || !strcmp(kind, "float"))) {
            ok = uint_of(c, a, "value", aw, UINT64_MAX, &v);
            if (ok) asc_sim_set_arg(sim, (uint32_t)i, v);
        } else
            ok = bad(c, "%s.kind: must be \"gm\", \"stack\", \"int\" or \"float\"", aw);
    }
    if (ok) {
        AscSimStatus st = asc_sim_run(sim, 0);
        if (st != ASC_SIM_DONE) {
            char msg[1 << 12];
            asc_sim_status_format(sim, st, 0, msg, sizeof msg);
            ok = bad(c, "%s: kernel '%s' did not finish: %s", where, p->names[k], msg);
        }
    }
    /* Read back what the kernel wrote, in argument order.  An argument it never wrote still holds
     * its buffer's bytes, so its copy is skipped, unless an earlier argument's read-back changed
     * bytes of the buffer it overlaps (the copy then restores them, as before). */
    bool back[ASC_MAX_ARGS] = {0};
    for (int i = 0; ok && i < na; i++) {
        if (!gm[i] || !len[i]) continue;
        back[i] = asc_sim_gm_written(sim, addr[i], len[i]);
        for (int j = 0; !back[i] && j < i; j++)
            back[i] = back[j] && buf[j] == buf[i] && off[j] < off[i] + len[i] && off[i] < off[j] + len[j];
        if (back[i]) asc_sim_gm_read(sim, addr[i], p->bufs[buf[i]].data + off[i], len[i]);
    }
    if (ok) *cycles += asc_sim_cycles(sim);
    asc_sim_free(sim);
    return ok;
}

/* Write the OUT arguments: each names an output of the bundle with its shape and dtype. */
static bool write_outputs(const Ctx *c, const cJSON *nat, Plan *p, const AscRunArg *args, uint32_t nargs)
{
    for (uint32_t i = 0; i < nargs; i++) {
        if (args[i].how != ASC_RUN_ARG_OUT) continue;
        const cJSON *o, *hit = NULL;
        cJSON_ArrayForEach(o, member(nat, "outputs"))
        if (str_of(o, "name") && !strcmp(str_of(o, "name"), args[i].name)) hit = o;
        if (!hit) return bad(c, "--arg %s: the bundle has no output of that name", args[i].name);
        uint64_t b, off;
        if (!uint_of(c, hit, "buffer", "native.outputs[]", (uint64_t)(p->nbufs ? p->nbufs - 1 : 0), &b) ||
            !uint_of(c, hit, "offset", "native.outputs[]", 1ull << 40, &off))
            return false;
        AscNpy a = {.dtype = args[i].dtype, .ndim = args[i].ndim, .count = 1};
        for (uint32_t j = 0; j < a.ndim; j++) a.count *= (a.shape[j] = args[i].shape[j]);
        const char *dt = str_of(hit, "dtype");
        if (!dt || strcmp(dt, asc_dtype_name(a.dtype)) || !shape_eq(member(hit, "shape"), a.shape, a.ndim, a.count)) {
            char s[200];
            shape_text(member(hit, "shape"), s, sizeof s);
            return bad(c, "--arg %s: the output is shape %s dtype %s", args[i].name, s, dt ? dt : "?");
        }
        uint64_t n = a.count * asc_dtype_size(a.dtype);
        if (off + n > p->bufs[b].bytes) return bad(c, "native.outputs: output '%s' lies outside its buffer", args[i].name);
        a.data = p->bufs[b].data + off;
        if (!asc_npy_write_file(&a, args[i].path, NULL, c->d)) return false;
    }
    return true;
}

static char *run_root(const Ctx *c, const cJSON *root, const char *target, const AscRunArg *args, uint32_t nargs)
{
    const char *fmt = str_of(root, "format");
    if (!fmt || strcmp(fmt, "asc-bundle")) {
        bad(c, "format: not an asc bundle (\"format\": \"asc-bundle\"); asc does not read Huawei OM files");
        return NULL;
    }
    uint64_t ver;
    if (!uint_of(c, root, "version", "bundle", 1000, &ver)) return NULL;
    if (ver != 1) {
        bad(c, "version: %llu, this asc-sim reads bundle version 1", (unsigned long long)ver);
        return NULL;
    }
    const cJSON *nat = member(root, "native"), *steps = member(root, "steps");
    if (!cJSON_IsObject(nat) || !cJSON_IsArray(member(nat, "steps")) || !cJSON_IsArray(steps)) {
        bad(c, "native: the bundle has no native launch plan (written by an older pyasc: compile it again)");
        return NULL;
    }
    const cJSON *ns = member(nat, "steps");
    for (int i = 0; i < cJSON_GetArraySize(ns); i++) {
        const cJSON *s = cJSON_GetArrayItem(ns, i);
        if (!cJSON_IsTrue(member(s, "native"))) {
            const char *why = str_of(s, "why");
            bad(c, "native.steps[%d]: step %d does not run natively: %s; run the bundle with pyasc run", i, i,
                why ? why : "(no reason given)");
            return NULL;
        }
    }
    if (!target) target = str_of(root, "target");
    AscConfig cfg;
    if (!asc_config_load(&cfg, NULL, target ? target : ASC_DEFAULT_TARGET, NULL, 0, c->d)) return NULL;
    Plan p = {0};
    char *text = NULL;
    size_t cap = 4096, len = 0;
    if (!read_plan(c, root, nat, &p, args, nargs) || !(text = malloc(cap))) goto done;
    const char *src = str_of(root, "source");
    uint64_t total = 0, lvl = 0;
    uint_of(c, root, "opt_level", "bundle", 3, &lvl);
    char line[600];
    int nrows = cJSON_GetArraySize(ns);
    char *body = calloc((size_t)nrows + 1, 300);
    if (!body) goto fail;
    for (int i = 0; i < nrows; i++) {
        const cJSON *s = cJSON_GetArrayItem(ns, i), *bstep = cJSON_GetArrayItem(steps, i);
        const cJSON *ls = member(s, "launches");
        uint64_t cyc = 0, blocks = 0;
        char where[120];
        int nl = cJSON_GetArraySize(ls);
        for (int j = 0; j < nl; j++) {
            snprintf(where, sizeof where, "native.steps[%d].launches[%d]", i, j);
            if (!launch(c, &cfg, &p, cJSON_GetArrayItem(ls, j), where, &cyc)) {
                free(body);
                goto fail;
            }
            const cJSON *bl = member(cJSON_GetArrayItem(ls, j), "blocks");
            if (cJSON_IsNumber(bl) && (uint64_t)bl->valuedouble > blocks) blocks = (uint64_t)bl->valuedouble;
        }
        total += cyc;
        char kname[80], lines[40] = "";
        snprintf(kname, sizeof kname, "%s.%s", str_of(bstep, "module") ? str_of(bstep, "module") : "?",
                 str_of(bstep, "function") ? str_of(bstep, "function") : "?");
        const cJSON *ln;
        size_t lk = 0;
        cJSON_ArrayForEach(ln, member(bstep, "lines"))
        if (lk < sizeof lines) lk += (size_t)snprintf(lines + lk, sizeof lines - lk, "%s%d", lk ? "," : "", (int)ln->valuedouble);
        snprintf(body + (size_t)i * 300, 300, "%4d  %-26s %-12s %8d %6llu %10llu\n", i, kname, lines, nl,
                 (unsigned long long)blocks, (unsigned long long)cyc);
    }
    if (!write_outputs(c, nat, &p, args, nargs)) {
        free(body);
        goto fail;
    }
    len = (size_t)snprintf(line, sizeof line, "%s at -O%llu on %s: %d operators, %llu cycles\n%4s  %-26s %-12s %8s %6s %10s\n",
                           src ? src : "?", (unsigned long long)lvl, target, nrows, (unsigned long long)total, "step",
                           "kernel", "lines", "launches", "blocks", "cycles");
    cap = len + (size_t)nrows * 300 + 1;
    char *t2 = realloc(text, cap);
    if (!t2) {
        free(body);
        goto fail;
    }
    text = t2;
    memcpy(text, line, len + 1);
    for (int i = 0; i < nrows; i++) {
        size_t k = strlen(body + (size_t)i * 300);
        memcpy(text + len, body + (size_t)i * 300, k + 1);
        len += k;
    }
    free(body);
    goto done;
fail:
    free(text);
    text = NULL;
done:
    plan_free(&p);
    return text;
}

bool asc_bundle_is_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    int ch;
    do ch = fgetc(f);
    while (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t');
    fclose(f);
    return ch == '{';
}

char *asc_bundle_run(const char *path, const char *target, const AscRunArg *args, uint32_t nargs, AscDiags *d)
{
    Ctx c = {.path = path, .d = d};
    FILE *f = fopen(path, "rb");
    if (!f) {
        bad(&c, "cannot open the bundle");
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len < cap) break;
        char *b2 = cap < (1u << 30) ? realloc(buf, cap * 2 + 1) : NULL;
        if (!b2) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b2;
        cap *= 2;
    }
    fclose(f);
    if (!buf) {
        bad(&c, "out of memory reading the bundle (or over 1 GiB)");
        return NULL;
    }
    buf[len] = 0;
    const char *err = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &err, false);
    if (!root) {
        bad(&c, "not JSON at byte %ld: an asc bundle is JSON (asc does not read Huawei OM files)",
            err ? (long)(err - buf) : 0L);
        free(buf);
        return NULL;
    }
    const char *rest = asc_json_trailing(err, buf, len);
    if (rest) {
        bad(&c, "text after the top-level JSON value at byte %ld: an asc bundle is one JSON object", (long)(rest - buf));
        cJSON_Delete(root);
        free(buf);
        return NULL;
    }
    free(buf);
    char *text = cJSON_IsObject(root) ? run_root(&c, root, target, args, nargs) : NULL;
    if (!cJSON_IsObject(root)) bad(&c, "the top level must be a JSON object (an asc bundle)");
    cJSON_Delete(root);
    return text;
}
