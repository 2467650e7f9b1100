/* npy.c -- NumPy .npy files, and binding asc-sim's --arg list to a
 * kernel's arguments (inputs copied into GM, outputs written back).
 *
 * Users: asc-sim (asc_sim_main.c), tests (test_npy.c), Python never (it
 * passes arrays through ctypes).
 *
 * Format accepted (numpy/lib/format.py): magic "\x93NUMPY", version 1.0
 * (u16 header length) or 2.0/3.0 (u32), then a Python dict literal with
 * exactly the keys 'descr', 'fortran_order' and 'shape', then the data.
 * Only C order and little-endian (or byte-sized) dtypes; the data must be
 * exactly prod(shape) * itemsize bytes.  Every rejection names the file and
 * the broken rule.  bf16 has no numpy dtype: a bf16 argument accepts '<u2'
 * (the usual ml_dtypes-free spelling) or '|V2', and bf16 outputs are written
 * as '<u2'.  Files are written to exclusive temporaries and renamed (asc/outfile.h), so a failed run never
 * leaves a half-written output.  Only the arguments given as @out.npy are
 * written after a run; inputs are never written back. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* fallocate, FALLOC_FL_KEEP_SIZE (before any system header) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/vfs.h> /* fstatfs */
#endif

#include "asc/run.h"

/* Record diagnostic `id` (NPY: a .npy file; SIM_ARG: an --arg or binding
 * rule) with a printf message; always false, so errors read `return err(..)`. */
static bool diag_err(AscDiags *d, AscDiagId id, const char *fmt, va_list ap)
{
    char buf[640];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (d) asc_diag(d, id, (AscLoc){0}, buf);
    return false;
}

static bool npy_err(AscDiags *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_err(d, ASC_DIAG_NPY, fmt, ap);
    va_end(ap);
    return false;
}

static bool arg_err(AscDiags *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_err(d, ASC_DIAG_SIM_ARG, fmt, ap);
    va_end(ap);
    return false;
}

/* The numpy dtype strings accepted: '<' little-endian, '|' byte order not
 * applicable (1-byte types and void).  bf16_ok: the file may feed a bf16
 * argument, since numpy has no bf16 of its own. */
typedef struct Descr {
    const char *text;
    uint8_t dtype;
    bool bf16_ok;
} Descr;

static const Descr descrs[] = {
    {"<f2", ASC_DT_F16, false}, {"<f4", ASC_DT_F32, false}, {"|i1", ASC_DT_S8, false},  {"<i1", ASC_DT_S8, false},
    {"|u1", ASC_DT_U8, false},  {"<u1", ASC_DT_U8, false},  {"<i2", ASC_DT_S16, false}, {"<u2", ASC_DT_U16, true},
    {"<i4", ASC_DT_S32, false}, {"<u4", ASC_DT_U32, false}, {"<i8", ASC_DT_S64, false}, {"<u8", ASC_DT_U64, false},
    {"|V2", ASC_DT_BF16, true},
};

/* The descr written for dtype: the first row of the table with it, and
 * '<u2' for bf16 (readable everywhere, unlike '|V2'). */
const char *asc_npy_descr(unsigned dtype)
{
    if (dtype == ASC_DT_BF16) return "<u2";
    for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++)
        if (descrs[i].dtype == dtype) return descrs[i].text;
    return NULL;
}

/* ---- header parser: a Python dict literal ---------------------------------- *
 * dict  := "{" (key ":" value ",")* (key ":" value)? "}"
 * key   := 'str' | "str"
 * value := 'str' | True | False | "(" (int ",")* int? ")" */
typedef struct P {
    const char *s, *e; /* the unread rest of the header, [s, e) */
} P;

static void ws(P *p)
{
    while (p->s < p->e && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n')) p->s++;
}

/* Consume character c (after blanks) if it is next. */
static bool lit(P *p, char c)
{
    ws(p);
    if (p->s < p->e && *p->s == c) {
        p->s++;
        return true;
    }
    return false;
}

/* str := 'chars' | "chars"  (no escapes: numpy writes none in a header);
 * copied into out, truncated to size - 1. */
static bool str(P *p, char *out, size_t size)
{
    ws(p);
    if (p->s >= p->e || (*p->s != '\'' && *p->s != '"')) return false;
    char q = *p->s++;
    size_t n = 0;
    while (p->s < p->e && *p->s != q) {
        if (n + 1 < size) out[n++] = *p->s;
        p->s++;
    }
    out[n] = 0;
    if (p->s >= p->e) return false;
    p->s++;
    return true;
}

/* uint := digit+  (bounded by p->e: the header is not NUL-terminated, so no
 * strtoull; below 2^63 so products can be checked) */
static bool uint_lit(P *p, uint64_t *v)
{
    ws(p);
    const char *s0 = p->s;
    *v = 0;
    while (p->s < p->e && *p->s >= '0' && *p->s <= '9') {
        unsigned dgt = (unsigned)(*p->s++ - '0');
        if (*v > ((uint64_t)INT64_MAX - dgt) / 10) return false;
        *v = *v * 10 + dgt;
    }
    return p->s > s0;
}

/* The header of a .npy image: everything but the data; *dstart is where the
 * data starts (buf holds at least the header, len bytes of the file). */
static bool npy_header(AscNpy *out, const char *origin, const uint8_t *buf, size_t len, size_t *dstart_out,
                       AscDiags *d)
{
    memset(out, 0, sizeof *out);
    /* magic (6 bytes), major, minor, header length (u16 in 1.0, u32 later) */
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
        return npy_err(d, "%s: not a .npy file (it must start with \\x93NUMPY)", origin);
    unsigned major = buf[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return npy_err(d, "%s: truncated .npy header", origin);
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    } else {
        return npy_err(d, "%s: .npy version %u.%u is not supported (versions 1.0, 2.0 and 3.0 are)", origin, major,
                       buf[7]);
    }
    if (hlen > len - hstart) return npy_err(d, "%s: truncated .npy header (%zu bytes announced)", origin, hlen);
    P p = {(const char *)buf + hstart, (const char *)buf + hstart + hlen};
    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    char descr[32] = "";
    if (!lit(&p, '{')) return npy_err(d, "%s: malformed .npy header: it must be a dict literal", origin);
    while (!lit(&p, '}')) {
        char key[32];
        if (!str(&p, key, sizeof key) || !lit(&p, ':'))
            return npy_err(d, "%s: malformed .npy header: expected 'key': value", origin);
        if (!strcmp(key, "descr")) {
            if (!str(&p, descr, sizeof descr)) return npy_err(d, "%s: malformed .npy header: descr must be a string", origin);
            have_descr = true;
        } else if (!strcmp(key, "fortran_order")) {
            ws(&p);
            if (p.e - p.s >= 4 && !memcmp(p.s, "True", 4)) fortran = true, p.s += 4;
            else if (p.e - p.s >= 5 && !memcmp(p.s, "False", 5)) p.s += 5;
            else return npy_err(d, "%s: malformed .npy header: fortran_order must be True or False", origin);
            have_order = true;
        } else if (!strcmp(key, "shape")) {
            if (!lit(&p, '(')) return npy_err(d, "%s: malformed .npy header: shape must be a tuple", origin);
            while (!lit(&p, ')')) {
                uint64_t v;
                if (!uint_lit(&p, &v))
                    return npy_err(d, "%s: malformed .npy header: shape entries must be non-negative integers below "
                                      "2^63", origin);
                if (out->ndim == 8) return npy_err(d, "%s: more than 8 dimensions are not supported", origin);
                out->shape[out->ndim++] = v;
                if (!lit(&p, ',')) {
                    if (!lit(&p, ')')) return npy_err(d, "%s: malformed .npy header: bad shape tuple", origin);
                    break;
                }
            }
            have_shape = true;
        } else {
            return npy_err(d, "%s: unexpected key '%s' in the .npy header", origin, key);
        }
        if (!lit(&p, ',')) {
            if (!lit(&p, '}')) return npy_err(d, "%s: malformed .npy header: expected ',' or '}'", origin);
            break;
        }
    }
    if (!have_descr || !have_order || !have_shape)
        return npy_err(d, "%s: the .npy header needs 'descr', 'fortran_order' and 'shape'", origin);
    if (fortran)
        return npy_err(d, "%s: fortran_order is True: only C-order arrays are supported (use np.ascontiguousarray)",
                       origin);
    /* the header is well formed: now the rules of what we accept */
    const Descr *ds = NULL;
    for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++)
        if (!strcmp(descrs[i].text, descr)) ds = &descrs[i];
    if (!ds) {
        if (descr[0] == '>') return npy_err(d, "%s: dtype '%s' is big-endian: only little-endian data is supported", origin, descr);
        return npy_err(d, "%s: dtype '%s' is not supported (f16 '<f2', f32 '<f4', s8 '|i1', u8 '|u1', s16 '<i2', "
                          "u16/bf16 '<u2', s32 '<i4', u32 '<u4', s64 '<i8', u64 '<u8', bf16 '|V2')",
                       origin, descr);
    }
    out->dtype = ds->dtype;
    out->bf16_ok = ds->bf16_ok;
    uint64_t count = 1;
    for (uint32_t i = 0; i < out->ndim; i++) {
        if (out->shape[i] && count > UINT64_MAX / out->shape[i]) return npy_err(d, "%s: shape too large", origin);
        count *= out->shape[i];
    }
    out->count = count;
    /* exactly the bytes the shape needs: a short file is truncated, a long
     * one is not what the header says -- both are refused */
    uint64_t size = asc_dtype_size(ds->dtype);
    if (count > UINT64_MAX / size) return npy_err(d, "%s: shape too large", origin);
    *dstart_out = hstart + hlen;
    return true;
}

/* "data is N bytes but shape and dtype need M": a short file is truncated, a
 * long one is not what the header says -- both are refused. */
static bool npy_size_err(AscDiags *d, const char *origin, uint64_t have, uint64_t need)
{
    return npy_err(d, "%s: data is %llu bytes but shape and dtype need %llu (truncated or extra bytes)", origin,
                   (unsigned long long)have, (unsigned long long)need);
}

bool asc_npy_parse(AscNpy *out, const char *origin, const uint8_t *buf, size_t len, const AscAlloc *alloc,
                   AscDiags *d)
{
    size_t dstart;
    if (!npy_header(out, origin, buf, len, &dstart, d)) return false;
    uint64_t count = out->count, size = asc_dtype_size(out->dtype);
    if (count * size != len - dstart)
        return npy_size_err(d, origin, len - dstart, count * size);
    out->data = asc_malloc(alloc, count * size != 0 ? count * size : 1);
    if (!out->data) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    memcpy(out->data, buf + dstart, count * size);
    return true;
}

/* Read a whole file into memory allocated with alloc (*len bytes).  The
 * buffer doubles from 64 KB: a pipe or a file whose size changes while it
 * is read works too, as no size is asked up front. */
static uint8_t *slurp(const char *path, size_t *len, const AscAlloc *alloc, AscDiags *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "open", path, strerror(errno));
        return NULL;
    }
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            uint8_t *nb = asc_realloc(alloc, buf, cap, nc);
            if (!nb) {
                asc_free(alloc, buf);
                fclose(f);
                if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
                return NULL;
            }
            buf = nb, cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    bool err = ferror(f);
    fclose(f);
    if (err) {
        asc_free(alloc, buf);
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "read", path, strerror(errno));
        return NULL;
    }
    *len = n;
    return buf;
}

bool asc_npy_read_file(AscNpy *out, const char *path, const AscAlloc *alloc, AscDiags *d)
{
    size_t len;
    memset(out, 0, sizeof *out);
    uint8_t *buf = slurp(path, &len, alloc, d);
    if (!buf) return false;
    bool ok = asc_npy_parse(out, path, buf, len, alloc, d);
    asc_free(alloc, buf);
    return ok;
}

/* The header of `a` as numpy itself writes it (so files compare equal to
 * numpy's), padded with spaces and a newline so data starts at a multiple
 * of 64.  Returns its length (at most NPY_HDR_MAX), 0 for an unknown dtype. */
#define NPY_HDR_MAX 640

static size_t npy_header_encode(const AscNpy *a, uint8_t b[NPY_HDR_MAX])
{
    const char *descr = asc_npy_descr(a->dtype);
    if (!descr) return 0;
    char shape[8 * 24 + 8] = "";
    size_t sl = 0;
    for (uint32_t i = 0; i < a->ndim; i++)
        sl += (size_t)snprintf(shape + sl, sizeof shape - sl, "%llu,%s", (unsigned long long)a->shape[i],
                               i + 1 < a->ndim ? " " : "");
    if (a->ndim > 1) shape[--sl] = 0; /* numpy writes (4,) but (2, 3) */
    char hdr[512];
    int hl = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape);
    size_t pre = 10, total = pre + (size_t)hl + 1;
    size_t padded = (total + 63) / 64 * 64;
    bool v2 = padded - pre > 65535; /* the header length no longer fits a u16 */
    if (v2) pre = 12, total = pre + (size_t)hl + 1, padded = (total + 63) / 64 * 64;
    memcpy(b, "\x93NUMPY", 6);
    b[6] = v2 ? 2 : 1;
    b[7] = 0;
    size_t h = padded - pre;
    b[8] = (uint8_t)h, b[9] = (uint8_t)(h >> 8);
    if (v2) b[10] = (uint8_t)(h >> 16), b[11] = (uint8_t)(h >> 24);
    memcpy(b + pre, hdr, (size_t)hl);
    memset(b + pre + hl, ' ', padded - pre - (size_t)hl - 1);
    b[padded - 1] = '\n';
    return padded;
}

bool asc_npy_write(const AscNpy *a, uint8_t **out, size_t *len, const AscAlloc *alloc)
{
    uint8_t hdr[NPY_HDR_MAX];
    size_t padded = npy_header_encode(a, hdr);
    if (!padded) return false;
    size_t dbytes = a->count * asc_dtype_size(a->dtype);
    uint8_t *b = asc_malloc(alloc, padded + dbytes);
    if (!b) return false;
    memcpy(b, hdr, padded);
    if (dbytes) memcpy(b + padded, a->data, dbytes);
    *out = b;
    *len = padded + dbytes;
    return true;
}

bool asc_npy_write_file(const AscNpy *a, const char *path, const AscAlloc *alloc, AscDiags *d)
{
    uint8_t *buf;
    size_t len;
    if (!asc_npy_write(a, &buf, &len, alloc)) return npy_err(d, "%s: cannot encode the array", path);
    bool ok = asc_out_write(NULL, path, buf, len, d); /* asc/outfile.h: exclusive temporary, rename */
    asc_free(alloc, buf);
    return ok;
}

void asc_npy_free(AscNpy *a, const AscAlloc *alloc)
{
    asc_free(alloc, a->data);
    a->data = NULL;
}

/* ---- --arg NAME=... --------------------------------------------------------- */

/* shape := uint ((',' | 'x') uint)*   at most 8 sizes; the element count
 * times 8 (the widest dtype) must fit in 64 bits, so byte sizes never wrap. */
static bool parse_shape(const char *s, size_t n, uint64_t *shape, uint32_t *ndim)
{
    *ndim = 0;
    uint64_t count = 1;
    while (n) {
        if (*s < '0' || *s > '9' || *ndim == 8) return false;
        /* a size is decimal with no leading 0: "04096" and above all "0x1000" (which the 'x'
         * separator would read as 0 x 1000, an empty output) are refused, as --arg n=010 is */
        if (*s == '0' && n > 1 && s[1] >= '0' && s[1] <= '9') return false;
        if (*s == '0' && n > 1 && (s[1] == 'x' || s[1] == 'X')) return false;
        uint64_t v = 0;
        while (n && *s >= '0' && *s <= '9') {
            unsigned dgt = (unsigned)(*s++ - '0');
            n--;
            if (v > (UINT64_MAX / 8 - dgt) / 10) return false;
            v = v * 10 + dgt;
        }
        if (v && count > UINT64_MAX / 8 / v) return false;
        count *= v;
        shape[(*ndim)++] = v;
        if (n && (*s == ',' || *s == 'x') && n > 1) s++, n--;
        else if (n) return false;
    }
    return *ndim > 0;
}

/* arg := NAME "=" ( "@" path ":" shape ":" dtype    an output, written after the run
 *                  | path ending in ".npy"            an input file
 *                  | value )                          an int or float argument */
bool asc_run_arg_parse(AscRunArg *a, const char *text, AscDiags *d)
{
    memset(a, 0, sizeof *a);
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof a->name)
        return arg_err(d, "--arg '%s': expected NAME=in.npy, NAME=@out.npy:SHAPE:DTYPE or NAME=VALUE", text);
    memcpy(a->name, text, (size_t)(eq - text));
    const char *v = eq + 1;
    if (*v == '@') {
        /* @path:SHAPE:DTYPE, parsed from the right so the path may hold ':' */
        const char *c2 = strrchr(v, ':');
        const char *c1 = NULL;
        for (const char *q = v; c2 && q < c2; q++)
            if (*q == ':') c1 = q;
        if (!c1 || !c2)
            return arg_err(d, "--arg %s: an output is NAME=@out.npy:SHAPE:DTYPE, e.g. %s=@%s.npy:64,64:f16", text,
                           a->name, a->name);
        a->how = ASC_RUN_ARG_OUT;
        if ((size_t)(c1 - v - 1) >= sizeof a->path || c1 == v + 1)
            return arg_err(d, "--arg %s: bad output path", text);
        memcpy(a->path, v + 1, (size_t)(c1 - v - 1));
        if (!parse_shape(c1 + 1, (size_t)(c2 - c1 - 1), a->shape, &a->ndim))
            return arg_err(d, "--arg %s: SHAPE must be 1 to 8 decimal sizes (no leading 0, no 0x) separated by ',' "
                              "or 'x' (e.g. 4096, 64,64 or 64x64) whose product fits in 64 bits", text);
        int dt = asc_dtype_lookup(c2 + 1, strlen(c2 + 1));
        if (dt <= 0 || !asc_npy_descr((unsigned)dt))
            return arg_err(d, "--arg %s: unknown dtype '%s': dtypes are f16, bf16, f32, s8, u8, s16, u16, s32, u32, s64, u64",
                           text, c2 + 1);
        a->dtype = (uint8_t)dt;
        return true;
    }
    size_t vl = strlen(v);
    if (!vl) return arg_err(d, "--arg %s: empty value", text);
    if (vl >= 4 && !strcmp(v + vl - 4, ".npy")) {
        if (vl >= sizeof a->path) return arg_err(d, "--arg %s: path too long", text);
        a->how = ASC_RUN_ARG_IN;
        memcpy(a->path, v, vl + 1);
        return true;
    }
    if (vl >= sizeof a->value) return arg_err(d, "--arg %s: value too long", text);
    a->how = ASC_RUN_ARG_VALUE;
    memcpy(a->value, v, vl + 1);
    return true;
}

static const char *dtype_label(unsigned dt)
{
    return asc_dtype_name(dt) ? asc_dtype_name(dt) : "?";
}

/* ---- .npy files straight into GM and out of it ---------------------------
 * Inputs: the header is read and checked first, then the data: a regular file of
 * NPY_PREAD_MIN bytes or more with pread straight into its GM pages (asc_sim_gm_fill), else
 * NPY_CHUNK bytes at a time through one buffer; outputs are written straight from the GM pages
 * (asc_sim_gm_each).  Host memory beyond the tensors' GM pages is at most one chunk. */
#define NPY_CHUNK ((size_t)1 << 20)

/* Open path and read its header into *hdr (hdr->data stays NULL); on
 * success *fp is positioned at the data. */
static bool npy_open(FILE **fp, AscNpy *hdr, const char *path, const AscAlloc *alloc, AscDiags *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "open", path, strerror(errno));
        return false;
    }
    /* how long the header says it is; fewer bytes are read when the file
     * ends first, and npy_header then names what is missing */
    uint8_t pre[12];
    size_t n = fread(pre, 1, sizeof pre, f), want = n;
    if (n >= 10 && !memcmp(pre, "\x93NUMPY", 6)) {
        if (pre[6] == 1) want = 10 + ((size_t)pre[8] | (size_t)pre[9] << 8);
        else if ((pre[6] == 2 || pre[6] == 3) && n == 12)
            want = 12 + ((size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24);
    }
    size_t cap = want > n ? (want < NPY_CHUNK ? want : NPY_CHUNK) : n;
    uint8_t *buf = asc_malloc(alloc, cap ? cap : 1);
    bool ok = buf != NULL;
    if (!ok && d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
    if (ok) {
        size_t keep = n < want ? n : want; /* bytes past the header are data: give them back */
        memcpy(buf, pre, keep);
        if (keep < n && fseek(f, (long)keep, SEEK_SET) != 0) {
            if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "seek in", path, strerror(errno));
            ok = false;
        }
        n = keep;
    }
    while (ok && n < want) { /* grows only as far as the file has bytes */
        if (n == cap) {
            size_t nc = cap * 2 < want ? cap * 2 : want;
            uint8_t *nb = asc_realloc(alloc, buf, cap, nc);
            if (!nb) {
                if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
                ok = false;
                break;
            }
            buf = nb, cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (ok && ferror(f)) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "read", path, strerror(errno));
        ok = false;
    }
    size_t dstart;
    if (ok) ok = npy_header(hdr, path, buf, n, &dstart, d);
    asc_free(alloc, buf);
    if (!ok) {
        fclose(f);
        return false;
    }
    *fp = f;
    return true;
}

/* A regular file's data of NPY_PREAD_MIN bytes or more is read with pread straight into its GM
 * pages, in parts on the host threads (asc_sim_gm_fill): no buffer in between, one copy. */
#define NPY_PREAD_MIN ((uint64_t)1 << 20)

typedef struct NpyPread {
    int fd;
    off_t base;      /* file offset of the data */
    _Atomic int err; /* errno of a failed read; -1: the file ended early */
} NpyPread;

static bool npy_pread_piece(void *ud, void *dst, uint64_t off, size_t len)
{
    NpyPread *r = ud;
    uint8_t *p = dst;
    while (len) {
        ssize_t k = pread(r->fd, p, len, r->base + (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            int e = k < 0 ? errno : -1, none = 0;
            atomic_compare_exchange_strong(&r->err, &none, e);
            return false;
        }
        p += k, off += (uint64_t)k, len -= (size_t)k;
    }
    return true;
}

/* true when the pread path took the data (*ok: whether it succeeded, errors reported); false:
 * not a regular file or too small, the caller streams it. */
static bool npy_pread_to_gm(FILE *f, const char *path, AscSim *sim, uint64_t addr, uint64_t bytes, const char *arg,
                            AscDiags *d, bool *ok)
{
    struct stat sb;
    long pos = ftell(f);
    if (bytes < NPY_PREAD_MIN || pos < 0 || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) return false;
    *ok = false;
    uint64_t have = sb.st_size > pos ? (uint64_t)(sb.st_size - pos) : 0;
    if (have != bytes) return npy_size_err(d, path, have, bytes), true;
    NpyPread r = {.fd = fileno(f), .base = (off_t)pos};
    if (asc_sim_gm_fill(sim, addr, bytes, npy_pread_piece, &r)) return *ok = true;
    int e = atomic_load(&r.err);
    if (e == -1) npy_size_err(d, path, have, bytes); /* shrank while read: the size it had is all we know */
    else if (e) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "read", path, strerror(e));
    } else
        arg_err(d, "argument '%s': out of host memory backing GM", arg);
    return true;
}

/* The data of an opened file (exactly `bytes` of it) into GM at addr. */
static bool npy_read_to_gm(FILE *f, const char *path, AscSim *sim, uint64_t addr, uint64_t bytes, const char *arg,
                           AscDiags *d)
{
    bool done;
    if (npy_pread_to_gm(f, path, sim, addr, bytes, arg, d, &done)) return done;
    uint8_t *buf = asc_malloc(asc_sim_alloc(sim), NPY_CHUNK);
    if (!buf) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    bool ok = true;
    uint64_t off = 0, extra = 0;
    while (ok) {
        size_t want = bytes - off < NPY_CHUNK ? (size_t)(bytes - off) : NPY_CHUNK;
        if (want == 0) want = NPY_CHUNK; /* past the data: count what else the file holds */
        size_t r = fread(buf, 1, want, f);
        if (off < bytes) {
            if (r && !asc_sim_gm_write(sim, addr + off, buf, r)) {
                ok = arg_err(d, "argument '%s': out of host memory backing GM", arg);
                break;
            }
            off += r;
        } else {
            extra += r;
        }
        if (r < want) break;
    }
    if (ok && ferror(f)) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "read", path, strerror(errno));
        ok = false;
    }
    if (ok && (off < bytes || extra)) ok = npy_size_err(d, path, off + extra, bytes);
    asc_free(asc_sim_alloc(sim), buf);
    return ok;
}

/* Bind in the kernel's argument order, so GM placement (and with it every
 * address in a trace) depends on the kernel, not on the order of --arg. */
bool asc_sim_bind_args(AscSim *sim, const AscRunArg *args, uint32_t nargs, AscDiags *d)
{
    const AscKernelInfo *k = asc_sim_kernel(sim);
    /* "x, y, z, n" for the messages */
    char list[ASC_MAX_ARGS * (ASC_NAME_MAX + 2)] = "";
    for (uint32_t i = 0; i < k->nargs; i++) {
        if (i) strcat(list, ", ");
        strcat(list, k->args[i].name);
    }
    /* every given name must exist, once */
    for (uint32_t j = 0; j < nargs; j++) {
        bool found = false;
        for (uint32_t i = 0; i < k->nargs; i++) found |= !strcmp(k->args[i].name, args[j].name);
        if (!found)
            return arg_err(d, "unknown argument '%s': kernel '%s' takes %s", args[j].name, k->name,
                           k->nargs ? list : "no arguments");
        for (uint32_t i = 0; i < j; i++)
            if (!strcmp(args[i].name, args[j].name)) return arg_err(d, "argument '%s' is given twice", args[j].name);
    }
    for (uint32_t i = 0; i < k->nargs; i++) {
        const AscArgInfo *ai = &k->args[i];
        const AscRunArg *a = NULL;
        for (uint32_t j = 0; j < nargs; j++)
            if (!strcmp(args[j].name, ai->name)) a = &args[j];
        if (!a)
            return arg_err(d, "kernel '%s' takes %u arguments (%s): argument '%s' is missing (got %u)", k->name,
                           k->nargs, list, ai->name, nargs);
        /* a gm pointer: place the tensor in GM, pass its address */
        if (ai->kind == ASC_ARG_GM) {
            if (a->how == ASC_RUN_ARG_VALUE)
                return arg_err(d, "argument '%s' is a gm pointer to %s: give a .npy file (%s=%s.npy) or an output "
                                  "(%s=@out.npy:SHAPE:%s), not a value",
                               ai->name, dtype_label(ai->dtype), ai->name, ai->name, ai->name, dtype_label(ai->dtype));
            uint64_t bytes, addr;
            AscNpy arr;
            memset(&arr, 0, sizeof arr);
            FILE *f = NULL;
            if (a->how == ASC_RUN_ARG_IN) {
                if (!npy_open(&f, &arr, a->path, asc_sim_alloc(sim), d)) return false;
                if (arr.dtype != ai->dtype && !(ai->dtype == ASC_DT_BF16 && arr.bf16_ok)) {
                    arg_err(d, "%s holds %s ('%s') but argument '%s' of kernel '%s' is %s ('%s'%s)", a->path,
                            dtype_label(arr.dtype), asc_npy_descr(arr.dtype), ai->name, k->name,
                            dtype_label(ai->dtype), asc_npy_descr(ai->dtype),
                            ai->dtype == ASC_DT_BF16 ? " or '|V2'" : "");
                    fclose(f);
                    return false;
                }
                bytes = arr.count * asc_dtype_size(arr.dtype);
            } else {
                if (a->dtype != ai->dtype)
                    return arg_err(d, "output '%s' is declared %s but argument '%s' of kernel '%s' is %s", a->name,
                                   dtype_label(a->dtype), ai->name, k->name, dtype_label(ai->dtype));
                uint64_t count = 1;
                for (uint32_t s = 0; s < a->ndim; s++) count *= a->shape[s];
                bytes = count * asc_dtype_size(a->dtype);
            }
            /* outputs are placed too (GM starts zeroed), only not filled */
            if (!asc_sim_gm_place(sim, bytes, &addr)) {
                if (f) fclose(f);
                return arg_err(d, "argument '%s' (%llu bytes) does not fit in GM (gm_bytes = %lld)", ai->name,
                               (unsigned long long)bytes, (long long)asc_sim_config(sim)->v[ASC_KEY_GM_BYTES]);
            }
            if (f) {
                bool ok = npy_read_to_gm(f, a->path, sim, addr, bytes, ai->name, d);
                fclose(f);
                if (!ok) return false;
            }
            asc_sim_set_arg(sim, i, addr);
            continue;
        }
        /* int / float */
        if (a->how != ASC_RUN_ARG_VALUE)
            return arg_err(d, "argument '%s' is %s %s: give a value (%s=%s), not a file", ai->name,
                           ai->kind == ASC_ARG_INT ? "an" : "a", asc_arg_kind_name(ai->kind), ai->name,
                           ai->kind == ASC_ARG_INT ? "4096" : "0.5");
        char *end;
        errno = 0;
        if (ai->kind == ASC_ARG_INT) {
            if (asc_int_text_octal(a->value))
                return arg_err(d, "argument '%s' is an int: '%s' has a leading 0, which would make it octal; write it "
                                  "in decimal without the leading 0, or in hex with 0x", ai->name, a->value);
            long long v = strtoll(a->value, &end, 0);
            uint64_t bits = (uint64_t)v;
            if (!*end && errno == ERANGE && a->value[0] != '-') {
                /* 2^63 .. 2^64 - 1: the register's bit pattern, as the assembler's literals and pyasc's
                 * launch take it (0xffffffffffffffff is -1) */
                errno = 0;
                bits = strtoull(a->value, &end, 0);
            }
            if (*end || end == a->value)
                return arg_err(d, "argument '%s' is an int: '%s' is not an integer", ai->name, a->value);
            if (errno)
                return arg_err(d, "argument '%s' is an int: '%s' does not fit in 64 bits (the scalar registers' "
                                  "width): give a value in [-2^63, 2^64)", ai->name, a->value);
            asc_sim_set_arg(sim, i, bits);
        } else {
            /* a float argument travels as its f32 bits in the x register: the text rounded to the
             * nearest f32 (strtof, as the assembler's .float).  Past the f32 range, or nonzero and
             * rounding to 0, it would reach the kernel changed (inf, 0): refused.  A subnormal f32 is
             * kept, as the vector unit keeps subnormals (docs/semantics.md), with a warning: it has
             * fewer significant bits than the text may expect (strtof flags it ERANGE too). */
            float f = strtof(a->value, &end);
            if (*end || end == a->value)
                return arg_err(d, "argument '%s' is a float: '%s' is not a number", ai->name, a->value);
            if (errno == ERANGE && isinf(f))
                return arg_err(d, "argument '%s' is a float: '%s' is beyond the f32 range (largest %.9g): it "
                                  "would reach the kernel as inf", ai->name, a->value, (double)FLT_MAX);
            if (errno == ERANGE && f == 0)
                return arg_err(d, "argument '%s' is a float: '%s' is below the smallest f32 magnitude (%.9g): it "
                                  "would reach the kernel as 0", ai->name, a->value, (double)FLT_TRUE_MIN);
            if (fpclassify(f) == FP_SUBNORMAL && d) {
                char msg[400];
                snprintf(msg, sizeof msg, "argument '%s' is a float: '%.100s' is subnormal in f32 (below %.9g): it "
                         "reaches the kernel as %.9g, with fewer significant bits", ai->name, a->value,
                         (double)FLT_MIN, (double)f);
                asc_diag_sev(d, ASC_DIAG_SIM_ARG, ASC_SEV_WARNING, (AscLoc){0}, msg);
            }
            uint32_t bits;
            memcpy(&bits, &f, 4);
            asc_sim_set_arg(sim, i, bits);
        }
    }
    return true;
}

/* asc_sim_gm_each's piece of an output: its bytes, or zeros for GM never written. */
static bool npy_put(void *ud, const void *src, size_t len)
{
    static const uint8_t zeros[4096];
    FILE *f = ud;
    if (src) return fwrite(src, 1, len, f) == len;
    for (size_t k; len; len -= k) {
        k = len < sizeof zeros ? len : sizeof zeros;
        if (fwrite(zeros, 1, k, f) != k) return false;
    }
    return true;
}

/* An output of this many bytes or more gets its file blocks allocated before it is written
 * (npy_prealloc). */
#define NPY_PREALLOC_MIN ((uint64_t)1 << 20)

/* Allocate the blocks of a regular file's first `len` bytes before they are written, its size
 * unchanged (Linux fallocate, FALLOC_FL_KEEP_SIZE): ext4 then writes into allocated blocks
 * instead of reserving each page as it comes (25 MB: 6.5 ms -> 5.0 ms of write, measured).
 * Not on tmpfs, which allocates and clears the pages then, a pass the write would not make
 * (11.5 ms -> 12.1 ms there).  A hint only: where it fails (no such call, a file system
 * without it, a full disk) nothing changed, and the write itself reports every error. */
#define NPY_TMPFS_MAGIC 0x01021994 /* linux/magic.h TMPFS_MAGIC */
static void npy_prealloc(FILE *f, uint64_t len)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    struct stat sb;
    struct statfs fs;
    if (len >= NPY_PREALLOC_MIN && len <= (uint64_t)INT64_MAX && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
        fstatfs(fileno(f), &fs) == 0 && fs.f_type != NPY_TMPFS_MAGIC)
        (void)fallocate(fileno(f), FALLOC_FL_KEEP_SIZE, 0, (off_t)len);
#else
    (void)f;
    (void)len;
#endif
}

/* Write output `a` (kernel argument `i`) from GM into a temporary of `out`. */
static bool write_output_tmp(AscSim *sim, const AscRunArg *a, uint32_t i, AscOutSet *out, AscDiags *d)
{
    AscNpy arr = {.dtype = a->dtype, .ndim = a->ndim, .count = 1};
    for (uint32_t s = 0; s < a->ndim; s++) {
        arr.shape[s] = a->shape[s];
        arr.count *= a->shape[s]; /* cannot wrap: parse_shape bounds it */
    }
    uint64_t bytes = arr.count * asc_dtype_size(a->dtype);
    uint8_t hdr[NPY_HDR_MAX];
    size_t hl = npy_header_encode(&arr, hdr);
    if (!hl) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    FILE *f = asc_out_open(out, a->path, d);
    if (f) npy_prealloc(f, hl + bytes);
    bool ok = f && fwrite(hdr, 1, hl, f) == hl;
    /* straight from the GM pages (a write error stops it: ferror, which asc_out_close reports);
     * the only failure of asc_sim_gm_each itself, a range outside GM, cannot happen for a placed
     * argument */
    if (ok) (void)asc_sim_gm_each(sim, asc_sim_arg(sim, i), bytes, npy_put, f);
    if (!f) return false;
    bool closed = asc_out_close(out, f, d); /* reports a failed write */
    return ok && closed; /* false: the set's owner commits nothing (aborting its whole set here could
                            close streams another writer still holds) */
}

/* Index of the kernel argument `name`, UINT32_MAX if none. */
static uint32_t arg_index(const AscKernelInfo *k, const char *name)
{
    for (uint32_t i = 0; i < k->nargs; i++)
        if (!strcmp(k->args[i].name, name)) return i;
    return UINT32_MAX;
}

/* Two phases, so that a failure (a full disk, a missing directory) leaves
 * no output written at all: every output goes to a temporary of `out`, and
 * only when the caller commits the set (after every other output of the run
 * is complete, too) are they renamed into place. */
bool asc_sim_write_outputs_to(AscSim *sim, const AscRunArg *args, uint32_t nargs, AscOutSet *out, AscDiags *d)
{
    const AscKernelInfo *k = asc_sim_kernel(sim);
    for (uint32_t j = 0; j < nargs; j++) {
        uint32_t i = arg_index(k, args[j].name);
        if (args[j].how == ASC_RUN_ARG_OUT && i != UINT32_MAX && !write_output_tmp(sim, &args[j], i, out, d))
            return false;
    }
    return true;
}

bool asc_sim_write_outputs(AscSim *sim, const AscRunArg *args, uint32_t nargs, AscDiags *d)
{
    AscOutSet *out = asc_out_new(asc_sim_alloc(sim));
    if (!out) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    bool ok = asc_sim_write_outputs_to(sim, args, nargs, out, d) && asc_out_commit(out, d);
    asc_out_free(out);
    return ok;
}
