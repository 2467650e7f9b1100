/* fuzz_config.c -- libFuzzer harness of the target profile parser
 * (asc_config_parse, --config) and of --set (asc_config_set).
 *
 * Input: a profile JSON text, parsed whole; the same bytes are then split
 * into lines, and every line is applied as a "key=value" override (the
 * text is cut at its first '=' by asc_config_set) to the built-in teach
 * profile.
 *
 * Invariants checked (abort = a finding):
 *   - a failing call leaves at least one new error; a successful one none;
 *   - parsing twice gives the same config and diagnostics (determinism);
 *   - an accepted profile that passes asc_config_check has every key in its
 *     declared range, a terminated name and description, and its JSON form
 *     (asc_config_to_json) parses back to the same config and text;
 *   - after a successful --set the key lies in its range. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/config.h"

#define FUZZ_CHECK(c, msg)                                                                          \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s: %s\n", __FILE__, __LINE__, #c, msg); \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

static void check_ranges(const AscConfig *cfg)
{
    for (int k = 0; k < ASC_KEY_COUNT; k++) {
        if (cfg->v[k] < asc_config_keys[k].lo || cfg->v[k] > asc_config_keys[k].hi) {
            fprintf(stderr, "key %s = %lld outside [%lld, %lld]\n", asc_config_keys[k].key, (long long)cfg->v[k],
                    (long long)asc_config_keys[k].lo, (long long)asc_config_keys[k].hi);
            FUZZ_CHECK(0, "a checked config has a key outside its range");
        }
    }
    FUZZ_CHECK(memchr(cfg->name, 0, sizeof cfg->name) != NULL, "name not terminated");
    FUZZ_CHECK(memchr(cfg->description, 0, sizeof cfg->description) != NULL, "description not terminated");
}

/* The JSON form parses back to the same config and the same text. */
static void check_json_roundtrip(const AscConfig *cfg)
{
    char *j1 = asc_config_to_json(cfg, NULL);
    FUZZ_CHECK(j1 != NULL, "asc_config_to_json failed");
    AscConfig back;
    AscDiags d;
    asc_diags_init(&d, NULL);
    memset(&back, 0, sizeof back);
    bool ok = asc_config_parse(&back, "roundtrip.json", j1, strlen(j1), &d);
    if (!ok) fprintf(stderr, "---- json ----\n%s\n---- error ----\n%s\n", j1, d.count ? d.items[0].msg : "?");
    FUZZ_CHECK(ok, "the JSON form of an accepted config does not parse");
    FUZZ_CHECK(memcmp(back.v, cfg->v, sizeof cfg->v) == 0, "the JSON form reads back different values");
    FUZZ_CHECK(strcmp(back.name, cfg->name) == 0, "the JSON form reads back a different name");
    FUZZ_CHECK(strcmp(back.description, cfg->description) == 0, "the JSON form reads back a different description");
    char *j2 = asc_config_to_json(&back, NULL);
    FUZZ_CHECK(j2 != NULL && strcmp(j1, j2) == 0, "to_json -> parse -> to_json changed the text");
    free(j1);
    free(j2);
    asc_diags_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* ---- the whole input as a profile ---- */
    AscConfig c1, c2;
    AscDiags d1, d2;
    asc_diags_init(&d1, NULL);
    asc_diags_init(&d2, NULL);
    memset(&c1, 0, sizeof c1);
    memset(&c2, 0, sizeof c2);
    bool ok1 = asc_config_parse(&c1, "fuzz.json", (const char *)data, size, &d1);
    bool ok2 = asc_config_parse(&c2, "fuzz.json", (const char *)data, size, &d2);
    FUZZ_CHECK(ok1 == ok2 && d1.nerrors == d2.nerrors && d1.count == d2.count, "two parses disagree");
    for (uint32_t i = 0; i < d1.count; i++)
        FUZZ_CHECK(strcmp(d1.items[i].msg, d2.items[i].msg) == 0, "two parses give different messages");
    if (ok1) {
        FUZZ_CHECK(d1.nerrors == 0, "asc_config_parse succeeded with errors");
        FUZZ_CHECK(memcmp(c1.v, c2.v, sizeof c1.v) == 0 && strcmp(c1.name, c2.name) == 0,
                   "two parses give different configs");
        uint32_t before = d1.nerrors;
        if (asc_config_check(&c1, &d1)) {
            check_ranges(&c1);
            check_json_roundtrip(&c1);
        } else {
            FUZZ_CHECK(d1.nerrors > before, "asc_config_check failed without an error");
        }
    } else {
        FUZZ_CHECK(d1.nerrors >= 1 || d1.oom, "asc_config_parse failed without an error");
    }
    asc_diags_free(&d1);
    asc_diags_free(&d2);

    /* ---- every line as --set key=value on the teach profile ---- */
    AscConfig cfg;
    AscDiags d;
    asc_diags_init(&d, NULL);
    FUZZ_CHECK(asc_config_builtin(&cfg, "teach", &d), "the teach profile does not load");
    char *line = malloc(size + 1);
    FUZZ_CHECK(line != NULL, "host out of memory");
    size_t start = 0;
    int nsets = 0;
    while (start <= size && nsets < 64) {
        size_t end = start;
        while (end < size && data[end] != '\n') end++;
        memcpy(line, data + start, end - start);
        line[end - start] = 0;
        uint32_t before = d.nerrors;
        AscConfig saved = cfg;
        if (asc_config_set(&cfg, line, &d)) {
            FUZZ_CHECK(d.nerrors == before, "asc_config_set succeeded with an error");
            for (int k = 0; k < ASC_KEY_COUNT; k++)
                if (cfg.v[k] != saved.v[k])
                    FUZZ_CHECK(cfg.v[k] >= asc_config_keys[k].lo && cfg.v[k] <= asc_config_keys[k].hi,
                               "--set stored a value outside the key's range");
        } else {
            FUZZ_CHECK(d.nerrors > before || d.oom, "asc_config_set failed without an error");
        }
        nsets++;
        start = end + 1;
    }
    free(line);
    uint32_t before = d.nerrors;
    if (asc_config_check(&cfg, &d)) {
        check_ranges(&cfg);
        check_json_roundtrip(&cfg);
    } else {
        FUZZ_CHECK(d.nerrors > before, "asc_config_check failed without an error");
    }
    asc_diags_free(&d);
    return 0;
}
