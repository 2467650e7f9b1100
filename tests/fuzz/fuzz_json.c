/* fuzz_json.c -- libFuzzer harness of the JSON string writer (asc/json.h,
 * isa/json.c), which every JSON output of the tools goes through.
 *
 * Input: any bytes, cut at the first NUL (the writer takes C strings).
 *
 * Invariants checked (abort = a finding):
 *   - asc_json_quote gives a text cJSON parses as exactly one string;
 *   - the string read back is valid UTF-8 (asc_utf8_valid);
 *   - valid UTF-8 input reads back byte for byte; invalid input reads back
 *     with every byte that starts no well-formed sequence as U+FFFD, so the
 *     length is the input's plus 2 per such byte;
 *   - asc_json_put writes the same bytes (with and without the quotes). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/json.h"

#define FUZZ_CHECK(c, msg)                                                                          \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s: %s\n", __FILE__, __LINE__, #c, msg); \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = 0;
    size_t len = strlen(s);
    char *q = asc_json_quote(s, NULL);
    FUZZ_CHECK(q != NULL, "quote failed (out of memory?)");
    cJSON *v = cJSON_Parse(q);
    FUZZ_CHECK(v && cJSON_IsString(v), "the quoted text is not one JSON string");
    const char *back = v->valuestring;
    FUZZ_CHECK(asc_utf8_valid(back), "the string read back is not UTF-8");
    if (asc_utf8_valid(s)) {
        FUZZ_CHECK(strcmp(back, s) == 0, "valid UTF-8 did not read back unchanged");
    } else {
        FUZZ_CHECK(strlen(back) > len || strstr(back, "\xEF\xBF\xBD"), "invalid UTF-8 not replaced by U+FFFD");
        FUZZ_CHECK((strlen(back) - len) % 2 == 0, "each replaced byte adds 2 bytes");
    }
    /* asc_json_put: the same bytes through a stream */
    char *buf = NULL;
    size_t bl = 0;
    FILE *f = open_memstream(&buf, &bl);
    FUZZ_CHECK(f && asc_json_put(f, s, true) && asc_json_put(f, s, false), "put failed");
    fclose(f);
    size_t ql = strlen(q);
    FUZZ_CHECK(bl == 2 * ql - 2 && memcmp(buf, q, ql) == 0 && memcmp(buf + ql, q + 1, ql - 2) == 0,
               "asc_json_put differs from asc_json_quote");
    free(buf);
    cJSON_Delete(v);
    free(q);
    free(s);
    return 0;
}
