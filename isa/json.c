/* json.c -- the JSON string writer (include/asc/json.h): invalid UTF-8
 * replaced by U+FFFD, then cJSON's printer escapes the string. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "asc/json.h"

/* Length of the well-formed UTF-8 sequence at s, 0 if it is not one
 * (Unicode 15 Table 3-7). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!n) return 0;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F; /* no surrogates */
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F; /* at most U+10FFFF */
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

bool asc_utf8_valid(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (!n) return false;
        p += n;
    }
    return true;
}

size_t asc_json_plain(const char *s)
{
    /* eight bytes at a time while no byte of the word can be one JSON changes (each test below
     * is exact about "some byte of w": below 0x20, 0x80 or above, above 0x7e, '"', '\\'), then
     * byte by byte from the first word that may hold one */
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t len = strlen(s), k = 0;
    for (; k + 8 <= len; k += 8) {
        uint64_t w, q, b;
        memcpy(&w, s + k, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        if (((w - ones * 0x20) & ~w & highs) | (w & highs) | ((w + ones) & highs) | ((q - ones) & ~q & highs) |
            ((b - ones) & ~b & highs))
            break;
    }
    while (s[k] >= 0x20 && s[k] < 0x7f && s[k] != '"' && s[k] != '\\') k++;
    return k;
}

char *asc_json_quote(const char *s, const AscAlloc *alloc)
{
    size_t len = strlen(s);
    /* printable ASCII without '"' or '\\': cJSON writes it between quotes unchanged, so
     * write that directly (a report quotes ~17,000 short strings; the cJSON round trip
     * cost ~2,700 host instructions each) */
    if (asc_json_plain(s) == len) {
        char *out = asc_malloc(alloc, len + 3);
        if (!out) return NULL;
        out[0] = '"';
        memcpy(out + 1, s, len);
        out[len + 1] = '"';
        out[len + 2] = 0;
        return out;
    }
    char *clean = malloc(len * 3 + 1); /* each bad byte becomes 3 bytes (EF BF BD) */
    if (!clean) return NULL;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n) {
            memcpy(clean + o, p, n), o += n, p += n;
        } else {
            memcpy(clean + o, "\xEF\xBF\xBD", 3), o += 3, p++;
        }
    }
    clean[o] = 0;
    cJSON *str = cJSON_CreateStringReference(clean);
    char *txt = str ? cJSON_PrintUnformatted(str) : NULL;
    cJSON_Delete(str);
    free(clean);
    if (!txt) return NULL;
    /* hand it out through the caller's allocator */
    size_t tl = strlen(txt);
    AscAlloc a = asc_alloc_resolve(alloc);
    char *out = asc_malloc(&a, tl + 1);
    if (out) memcpy(out, txt, tl + 1);
    cJSON_free(txt);
    return out;
}

bool asc_json_put(FILE *f, const char *s, bool quotes)
{
    char *q = asc_json_quote(s, NULL);
    if (!q) return false;
    size_t n = strlen(q);
    bool ok = quotes ? fwrite(q, 1, n, f) == n : fwrite(q + 1, 1, n - 2, f) == n - 2;
    free(q);
    return ok;
}

bool asc_json_name_map(FILE *f, const char *(*name)(unsigned), unsigned from, unsigned to,
                       unsigned (*value)(unsigned))
{
    bool ok = true, first = true;
    for (unsigned i = from; i < to; i++) {
        const char *n = name(i);
        if (!n) continue; /* a gap in the numbering (special registers 14..19 are not assigned yet) */
        if (!first) ok &= fputs(", ", f) >= 0;
        first = false;
        ok &= asc_json_put(f, n, true);
        ok &= fprintf(f, ": %u", value ? value(i) : i) >= 0;
    }
    return ok;
}

const char *asc_json_trailing(const char *end, const char *json, size_t len)
{
    if (!end || end < json) return NULL;
    for (const char *q = end; q < json + len; q++) {
        if (*q == 0 && q + 1 == json + len) return NULL; /* a NUL-terminated buffer's terminator */
        if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') return q;
    }
    return NULL;
}
