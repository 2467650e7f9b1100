/* viz_png.c -- a small PNG writer and reader for asc-viz.
 *
 * Users: asc_viz_render_png (headless screenshots), the scripted session's
 * `screenshot`, and tests that read pixels back.  Writes 8-bit RGB,
 * filter 0 on every row, zlib level 6: the same pixels always give the same
 * bytes.  The file appears atomically (written to a temp file in the same
 * directory, then renamed).  The reader handles 8-bit RGB/RGBA,
 * non-interlaced images with any filter: enough for our own files. */
#include "asc/viz.h"
#include "asc/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int png_err(AscVizError *err, const char *fmt, const char *a, const char *b)
{
    if (err) {
        snprintf(err->msg, sizeof err->msg, fmt, a, b);
        err->offset = -1;
        err->line = err->col = 0;
    }
    return -1;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int chunk(FILE *f, const char *type, const uint8_t *data, uint32_t n)
{
    uint8_t hdr[8];
    put32(hdr, n);
    memcpy(hdr + 4, type, 4);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    if (n) crc = crc32(crc, data, n);
    uint8_t c[4];
    put32(c, (uint32_t)crc);
    return fwrite(hdr, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
                   fwrite(c, 1, 4, f) == 4 ? 0 : -1;
}

int asc_viz_png_write(const char *path, const uint8_t *rgba, int w, int h, int stride,
                      AscVizError *err)
{
    if (w <= 0 || h <= 0) return png_err(err, "cannot write '%s': empty image%s", path, "");
    size_t rowb = (size_t)w * 3 + 1, rawn = rowb * (size_t)h;
    uint8_t *raw = malloc(rawn);
    uLongf zn = compressBound((uLong)rawn);
    uint8_t *z = malloc(zn);
    if (!raw || !z) {
        free(raw); free(z);
        return png_err(err, "cannot write '%s': out of memory%s", path, "");
    }
    for (int y = 0; y < h; y++) {
        uint8_t *o = raw + rowb * (size_t)y;
        const uint8_t *s = rgba + (size_t)stride * (size_t)y;
        *o++ = 0;
        for (int x = 0; x < w; x++, s += 4) { *o++ = s[0]; *o++ = s[1]; *o++ = s[2]; }
    }
    int zr = compress2(z, &zn, raw, (uLong)rawn, 6);
    free(raw);
    if (zr != Z_OK) {
        free(z);
        return png_err(err, "cannot write '%s': zlib failed%s", path, "");
    }
    /* an exclusive temporary beside path, renamed into place (asc/outfile.h) */
    AscOutSet *out = asc_out_new(NULL);
    FILE *f = out ? asc_out_open(out, path, NULL) : NULL;
    if (!f) {
        int e = out ? errno : ENOMEM;
        free(z); asc_out_free(out);
        return png_err(err, "cannot write '%s': %s", path, strerror(e ? e : EIO));
    }
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put32(ihdr, (uint32_t)w);
    put32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* RGB */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    int bad = fwrite(sig, 1, 8, f) != 8 || chunk(f, "IHDR", ihdr, 13) ||
              chunk(f, "IDAT", z, (uint32_t)zn) || chunk(f, "IEND", NULL, 0);
    free(z);
    if (!asc_out_close(out, f, NULL)) bad = 1;
    if (bad || !asc_out_commit(out, NULL)) {
        int e = errno;
        asc_out_free(out);
        return png_err(err, "cannot write '%s': %s", path, strerror(e ? e : EIO));
    }
    asc_out_free(out);
    return 0;
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

int asc_viz_png_read(const char *path, uint8_t **out, int *wout, int *hout, AscVizError *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return png_err(err, "cannot open '%s': %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f); free(buf);
        return png_err(err, "cannot read '%s'%s", path, "");
    }
    fclose(f);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 8 + 25 || memcmp(buf, sig, 8) != 0) {
        free(buf);
        return png_err(err, "'%s' is not a PNG (bad signature)%s", path, "");
    }
    uint32_t w = 0, h = 0;
    int ch = 0;
    uint8_t *idat = NULL;
    size_t idn = 0;
    bool end = false;
    for (size_t p = 8; p + 12 <= (size_t)n && !end;) {
        uint32_t len = get32(buf + p);
        if (len > (size_t)n - p - 12) break;
        const uint8_t *type = buf + p + 4, *data = buf + p + 8;
        if ((uint32_t)crc32(crc32(0, type, 4), data, len) != get32(data + len)) {
            free(buf); free(idat);
            return png_err(err, "'%s' is not a valid PNG (chunk CRC mismatch)%s", path, "");
        }
        if (!memcmp(type, "IHDR", 4) && len == 13) {
            w = get32(data);
            h = get32(data + 4);
            if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0 || w == 0 || h == 0 ||
                w > 1 << 15 || h > 1 << 15) {
                free(buf);
                return png_err(err, "'%s': only 8-bit RGB/RGBA non-interlaced PNGs are supported%s", path, "");
            }
            ch = data[9] == 2 ? 3 : 4;
        } else if (!memcmp(type, "IDAT", 4)) {
            uint8_t *q = realloc(idat, idn + len + 1);
            if (!q) { free(buf); free(idat); return png_err(err, "'%s': out of memory%s", path, ""); }
            idat = q;
            memcpy(idat + idn, data, len);
            idn += len;
        } else if (!memcmp(type, "IEND", 4)) {
            end = true;
        }
        p += 12 + len;
    }
    free(buf);
    if (!ch || !idat || !end) {
        free(idat);
        return png_err(err, "'%s' is not a valid PNG (missing IHDR, IDAT or IEND)%s", path, "");
    }
    size_t rowb = (size_t)w * (size_t)ch + 1;
    uLongf rawn = (uLongf)(rowb * h);
    uint8_t *raw = malloc(rawn);
    uint8_t *img = malloc((size_t)w * h * 4);
    if (!raw || !img || uncompress(raw, &rawn, idat, (uLong)idn) != Z_OK || rawn != rowb * h) {
        free(raw); free(img); free(idat);
        return png_err(err, "'%s' is not a valid PNG (bad image data)%s", path, "");
    }
    free(idat);
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *row = raw + rowb * y + 1, *prev = y ? raw + rowb * (y - 1) + 1 : NULL;
        int ft = row[-1];
        for (size_t i = 0; i < rowb - 1; i++) {
            int a = i >= (size_t)ch ? row[i - (size_t)ch] : 0, b = prev ? prev[i] : 0;
            int c = prev && i >= (size_t)ch ? prev[i - (size_t)ch] : 0;
            int v = row[i];
            switch (ft) {
            case 0: break;
            case 1: v += a; break;
            case 2: v += b; break;
            case 3: v += (a + b) / 2; break;
            case 4: v += paeth(a, b, c); break;
            default:
                free(raw); free(img);
                return png_err(err, "'%s' is not a valid PNG (bad filter type)%s", path, "");
            }
            row[i] = (uint8_t)v;
        }
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *o = img + ((size_t)y * w + x) * 4;
            o[0] = row[x * (size_t)ch];
            o[1] = row[x * (size_t)ch + 1];
            o[2] = row[x * (size_t)ch + 2];
            o[3] = ch == 4 ? row[x * (size_t)ch + 3] : 255;
        }
    }
    free(raw);
    *out = img;
    *wout = (int)w;
    *hout = (int)h;
    return 0;
}
