/* config.c -- target profiles: parse, override, check, print (asc/config.h).
 *
 * Users: asc-sim (every timing and size number), asc-as and the loader
 * (target-aware checks), pyasc (buffer capacity), asc-sim config/targets.
 * Invariants: after asc_config_builtin/parse + asc_config_set + check, every
 * key lies in its declared range; output is in table order, so printing a
 * config is deterministic. */
#include "asc/config.h"
#include "asc/json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A built-in profile: configs/<name>.json as bytes (target/CMakeLists.txt). */
typedef struct {
    const char *name;
    const char *json;
    size_t len;
} AscBuiltinProfile;
/* Generated into config_builtin.c from ASC_PROFILES in target/CMakeLists.txt,
 * the one list of built-in profiles. */
extern const AscBuiltinProfile asc_builtin_profiles[];
extern const char *const asc_builtin_profile_names[];
extern const char asc_builtin_profile_list[];

/* One row per key of asc_config.def: name, range [lo, hi], default, meaning.
 * Indexed by AscConfigKey, so cfg->v[ASC_KEY_X] needs no lookup at run time. */
const AscConfigKeyInfo asc_config_keys[ASC_KEY_COUNT] = {
#define ASC_KEY(id, key, lo, hi, def, what) [ASC_KEY_##id] = {key, lo, hi, def, what},
#include "asc_config.def"
#undef ASC_KEY
};

const AscBufInfo asc_buf_info[ASC_BUF_COUNT] = {
#define ASC_BUF(id, name, size_key, reserved_key, align_key) \
    [ASC_BUF_##id] = {name, ASC_KEY_##size_key, ASC_KEY_##reserved_key, ASC_KEY_##align_key},
#include "asc_buf.def"
#undef ASC_BUF
};

const char *asc_buf_name(unsigned buf) { return buf < ASC_BUF_COUNT ? asc_buf_info[buf].name : "?"; }

/* Keep these two in step with ASC_PROFILES in target/CMakeLists.txt. */
const char *const *asc_config_builtin_names(void) { return asc_builtin_profile_names; }

const char *asc_config_builtin_list(void) { return asc_builtin_profile_list; }

char *asc_config_targets_text(const AscAlloc *alloc, AscDiags *d)
{
    size_t cap = 0, n = 0;
    /* a line: the name padded to 12, a space, the description, " (default)\n" */
    for (const char *const *p = asc_config_builtin_names(); *p; p++)
        cap += 12 + strlen(*p) + 1 + sizeof ((AscConfig *)0)->description + 11;
    char *buf = asc_malloc(alloc, cap + 1);
    if (!buf) return NULL;
    buf[0] = 0;
    for (const char *const *p = asc_config_builtin_names(); *p; p++) {
        AscConfig c;
        if (!asc_config_builtin(&c, *p, d)) {
            asc_free(alloc, buf);
            return NULL;
        }
        n += (size_t)snprintf(buf + n, cap + 1 - n, "%-12s %s%s\n", *p, c.description,
                              strcmp(*p, ASC_DEFAULT_TARGET) ? "" : " (default)");
    }
    return buf;
}

/* A profile names only the keys it changes: every other key keeps the
 * table's default, so adding a key never breaks an older profile file. */
static void set_defaults(AscConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int k = 0; k < ASC_KEY_COUNT; k++) cfg->v[k] = asc_config_keys[k].def;
}

/* Index of key[0..len) in the table, -1 if none.  A linear scan: there are
 * a few dozen keys and lookups happen only while loading. */
static int key_lookup(const char *key, size_t len)
{
    for (int k = 0; k < ASC_KEY_COUNT; k++)
        if (strlen(asc_config_keys[k].key) == len && memcmp(asc_config_keys[k].key, key, len) == 0) return k;
    return -1;
}

/* A location naming the profile (file path or built-in name) only: cJSON
 * keeps no line numbers for values. */
static AscLoc origin_loc(const char *origin)
{
    AscLoc l = {origin, 0, 0, 0};
    return l;
}

/* Store JSON number `value` (spelled `text` in messages) into key k.  Every
 * key is an integer: 1.5 is out of range like 1e30 is. */
static bool set_key(AscConfig *cfg, int k, double value, const char *text, const char *origin, AscDiags *d)
{
    const AscConfigKeyInfo *ki = &asc_config_keys[k];
    /* range first: converting a double outside int64 to int64 is undefined */
    if (!(value >= (double)ki->lo && value <= (double)ki->hi) || value != (double)(int64_t)value) {
        asc_diag(d, ASC_DIAG_CONFIG_RANGE, origin_loc(origin), ki->key, (long long)ki->lo, (long long)ki->hi, text);
        return false;
    }
    cfg->v[k] = (int64_t)value;
    return true;
}

/* "name" and "description": at most ASC_TARGET_NAME_MAX - 1 and
 * sizeof description - 1 bytes of UTF-8 (they go into JSON outputs, which
 * are UTF-8: asc/json.h); a longer or invalid one is an error, never cut. */
static bool set_text(AscConfig *cfg, const char *key, const char *v, const char *origin, AscDiags *d)
{
    bool is_name = !strcmp(key, "name");
    char *dst = is_name ? cfg->name : cfg->description;
    size_t cap = is_name ? sizeof cfg->name : sizeof cfg->description, n = strlen(v);
    char msg[200];
    if (n >= cap) {
        snprintf(msg, sizeof msg, "config key '%s' must be at most %zu bytes, got %zu", key, cap - 1, n);
    } else if (!asc_utf8_valid(v)) {
        snprintf(msg, sizeof msg, "config key '%s' must be valid UTF-8 (JSON outputs carry it)", key);
    } else {
        memcpy(dst, v, n + 1);
        return true;
    }
    asc_diag(d, ASC_DIAG_CONFIG, origin_loc(origin), msg);
    return false;
}

/* profile := { "version": 1, ["name": str,] ["description": str,] ("key": int,)* }
 * Errors are collected, not stopped at: one run names every bad key. */
bool asc_config_parse(AscConfig *cfg, const char *origin, const char *json, size_t len, AscDiags *d)
{
    set_defaults(cfg);
    const char *at = NULL; /* not cJSON_GetErrorPtr(): that is cJSON's global */
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &at, false);
    const char *rest = root ? asc_json_trailing(at, json, len) : NULL;
    if (!root || rest) {
        /* turn cJSON's error pointer (or the first byte after the object) into line:col for the caret */
        if (rest) at = rest;
        AscLoc loc = origin_loc(origin);
        loc.line = 1, loc.col = 1, loc.len = 1;
        for (const char *q = json; at && at >= json && at <= json + len && q < at; q++) {
            if (*q == '\n') loc.line++, loc.col = 1;
            else loc.col++;
        }
        asc_diag(d, ASC_DIAG_CONFIG, loc, rest ? "config has text after its top-level JSON value: a profile is one "
                                                 "JSON object"
                                               : "config is not valid JSON: the error is at or just before this point");
        cJSON_Delete(root);
        return false;
    }
    bool ok = true;
    if (!cJSON_IsObject(root)) {
        asc_diag(d, ASC_DIAG_CONFIG, origin_loc(origin), "config must be a JSON object of \"key\": value");
        cJSON_Delete(root);
        return false;
    }
    /* docs/internals.md §Conventions: a version mismatch says which side to upgrade */
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsNumber(ver)) {
        asc_diag(d, ASC_DIAG_CONFIG, origin_loc(origin), "config has no \"version\" number (this build reads version 1)");
        ok = false;
    } else if (ver->valuedouble != ASC_CONFIG_VERSION) {
        double v = ver->valuedouble;
        if (v < -1e15 || v > 1e15 || v != (double)(long long)v) {
            asc_diag(d, ASC_DIAG_CONFIG, origin_loc(origin), "config \"version\" must be an integer (this build reads "
                                                             "version 1)");
        } else {
            asc_diag(d, ASC_DIAG_CONFIG_VERSION, origin_loc(origin), (long long)v, ASC_CONFIG_VERSION,
                     v > ASC_CONFIG_VERSION ? "upgrade asc to read it" : "upgrade the config file");
        }
        ok = false;
    }
    for (const cJSON *it = root->child; it; it = it->next) {
        const char *key = it->string;
        /* cJSON keeps both copies of a repeated key; which one wins would be
         * an accident, so it is an error (quadratic, but profiles are short) */
        for (const cJSON *prev = root->child; prev != it; prev = prev->next)
            if (!strcmp(prev->string, key)) {
                char msg[200];
                snprintf(msg, sizeof msg, "config key '%.100s' is given twice", key);
                asc_diag(d, ASC_DIAG_CONFIG, origin_loc(origin), msg);
                ok = false;
            }
        if (!strcmp(key, "version")) continue;
        if (!strcmp(key, "name") || !strcmp(key, "description")) {
            if (!cJSON_IsString(it)) {
                char msg[160];
                snprintf(msg, sizeof msg, "config key '%s' must be a string", key);
                asc_diag(d, ASC_DIAG_CONFIG, origin_loc(origin), msg);
                ok = false;
            } else {
                ok &= set_text(cfg, key, it->valuestring, origin, d);
            }
            continue;
        }
        int k = key_lookup(key, strlen(key));
        if (k < 0) {
            asc_diag(d, ASC_DIAG_CONFIG_KEY, origin_loc(origin), key);
            ok = false;
            continue;
        }
        if (!cJSON_IsNumber(it)) {
            char *txt = cJSON_PrintUnformatted(it);
            asc_diag(d, ASC_DIAG_CONFIG_RANGE, origin_loc(origin), key, (long long)asc_config_keys[k].lo,
                     (long long)asc_config_keys[k].hi, txt ? txt : "a non-number");
            free(txt);
            ok = false;
            continue;
        }
        char txt[64];
        snprintf(txt, sizeof txt, "%.15g", it->valuedouble);
        ok &= set_key(cfg, k, it->valuedouble, txt, origin, d);
    }
    cJSON_Delete(root);
    if (!cfg->name[0]) snprintf(cfg->name, sizeof cfg->name, "custom"); /* messages say "target custom" */
    return ok && asc_config_check(cfg, d);
}

bool asc_config_read_file(AscConfig *cfg, const char *path, AscDiags *d)
{
    AscLoc none = {0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        asc_diag(d, ASC_DIAG_IO, none, "open", path, strerror(errno));
        return false;
    }
    /* a profile is a few KB: anything past 1 MiB is not one */
    enum { CAP = 1 << 20 };
    char *text = malloc(CAP + 1);
    size_t n = text ? fread(text, 1, CAP + 1, f) : 0;
    bool err = ferror(f);
    fclose(f);
    if (!text) {
        asc_diag(d, ASC_DIAG_OOM, none);
        return false;
    }
    bool ok = false;
    if (err) asc_diag(d, ASC_DIAG_IO, none, "read", path, strerror(errno));
    else if (n > CAP) asc_diag(d, ASC_DIAG_CONFIG, origin_loc(path), "config file is larger than 1 MiB: not a profile");
    else ok = asc_config_parse(cfg, path, text, n, d);
    free(text);
    return ok;
}

/* Built-ins go through the same parser as files, so a bad built-in profile
 * fails the same way (and test_config checks they all load). */
bool asc_config_builtin(AscConfig *cfg, const char *name, AscDiags *d)
{
    for (const AscBuiltinProfile *p = asc_builtin_profiles; p->name; p++)
        if (!strcmp(p->name, name)) return asc_config_parse(cfg, p->name, p->json, p->len, d);
    AscLoc none = {0};
    asc_diag(d, ASC_DIAG_UNKNOWN_TARGET, none, name, asc_config_builtin_list());
    return false;
}

bool asc_int_text_octal(const char *s)
{
    if (*s == '-' || *s == '+') s++;
    return s[0] == '0' && s[1] >= '0' && s[1] <= '9';
}

/* assignment := key "=" value
 * value      := integer [k|K|m|M|g|G]   (binary multiples: 64k = 65536;
 *               the integer is decimal or 0x hex; a leading 0 before a digit is refused,
 *               since strtoll would read it as octal: asc_int_text_octal) */
bool asc_config_set(AscConfig *cfg, const char *assign, AscDiags *d)
{
    AscLoc none = {0};
    const char *eq = strchr(assign, '=');
    if (!eq || eq == assign) {
        char msg[300];
        snprintf(msg, sizeof msg, "--set takes key=value, got '%.200s'", assign);
        asc_diag(d, ASC_DIAG_CONFIG, none, msg);
        return false;
    }
    int k = key_lookup(assign, (size_t)(eq - assign));
    if (k < 0) {
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - assign) < 100 ? (int)(eq - assign) : 100, assign);
        asc_diag(d, ASC_DIAG_CONFIG_KEY, none, key);
        return false;
    }
    const char *v = eq + 1;
    if (asc_int_text_octal(v)) {
        char msg[400];
        snprintf(msg, sizeof msg, "--set %.*s=%.100s: a leading 0 would make the number octal; write it in decimal "
                 "without the leading 0, or in hex with 0x", (int)(eq - assign) < 100 ? (int)(eq - assign) : 100,
                 assign, v);
        asc_diag(d, ASC_DIAG_CONFIG, none, msg);
        return false;
    }
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 0);
    long long mul = 1;
    if (end && (*end == 'k' || *end == 'K')) mul = 1024, end++;
    else if (end && (*end == 'm' || *end == 'M')) mul = 1024 * 1024, end++;
    else if (end && (*end == 'g' || *end == 'G')) mul = 1024LL * 1024 * 1024, end++;
    const AscConfigKeyInfo *ki = &asc_config_keys[k];
    /* empty, trailing junk, or n * mul would overflow int64 */
    if (!*v || errno || !end || *end || (n != 0 && (n > INT64_MAX / mul || n < INT64_MIN / mul))) {
        asc_diag(d, ASC_DIAG_CONFIG_RANGE, none, ki->key, (long long)ki->lo, (long long)ki->hi, v);
        return false;
    }
    n *= mul;
    if (n < ki->lo || n > ki->hi) {
        asc_diag(d, ASC_DIAG_CONFIG_RANGE, none, ki->key, (long long)ki->lo, (long long)ki->hi, v);
        return false;
    }
    cfg->v[k] = n;
    return true;
}

static bool pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* Rules between keys (single-key ranges are checked on load): the UB bank
 * model of ubbank.c needs power-of-two groups and bank-group bits below the
 * layer bits; alignments are masks, so powers of two; .rodata is placed at
 * a fixed GM address, so GM must reach it.  Every broken rule is reported. */
bool asc_config_check(const AscConfig *cfg, AscDiags *d)
{
    AscLoc loc = {cfg->name, 0, 0, 0};
    bool ok = true;
    char msg[256];
#define RULE(cond, ...)                                  \
    do {                                                 \
        if (!(cond)) {                                   \
            snprintf(msg, sizeof msg, __VA_ARGS__);      \
            asc_diag(d, ASC_DIAG_CONFIG, loc, msg);      \
            ok = false;                                  \
        }                                                \
    } while (0)
    const int64_t *v = cfg->v;
    RULE(v[ASC_KEY_UB_RESERVED_BYTES] < v[ASC_KEY_UB_BYTES], "ub_reserved_bytes (%lld) must be below ub_bytes (%lld)",
         (long long)v[ASC_KEY_UB_RESERVED_BYTES], (long long)v[ASC_KEY_UB_BYTES]);
    RULE(pow2(v[ASC_KEY_UB_BANK_GROUPS]), "ub_bank_groups must be a power of two, got %lld",
         (long long)v[ASC_KEY_UB_BANK_GROUPS]);
    static const AscConfigKey aligns[] = {ASC_KEY_UB_ALIGN, ASC_KEY_L1_ALIGN, ASC_KEY_L0AB_ALIGN, ASC_KEY_L0C_ALIGN,
                                          ASC_KEY_GM_ALIGN_FAST};
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++)
        RULE(pow2(v[aligns[i]]), "%s must be a power of two, got %lld", asc_config_keys[aligns[i]].key,
             (long long)v[aligns[i]]);
    RULE(v[ASC_KEY_UB_BANK_GROUP_LO] + 63 - __builtin_clzll((unsigned long long)v[ASC_KEY_UB_BANK_GROUPS]) <=
             v[ASC_KEY_UB_BANK_LAYER_LO],
         "UB bank group bits [%lld, +log2(%lld)) must lie below the layer bits starting at %lld",
         (long long)v[ASC_KEY_UB_BANK_GROUP_LO], (long long)v[ASC_KEY_UB_BANK_GROUPS],
         (long long)v[ASC_KEY_UB_BANK_LAYER_LO]);
    int64_t per_layer = (int64_t)1 << v[ASC_KEY_UB_BANK_LAYER_LO];
    RULE(v[ASC_KEY_UB_BYTES] <= per_layer * v[ASC_KEY_UB_BANK_LAYERS],
         "ub_bytes (%lld) exceeds ub_bank_layers (%lld) x %lld bytes per layer", (long long)v[ASC_KEY_UB_BYTES],
         (long long)v[ASC_KEY_UB_BANK_LAYERS], (long long)per_layer);
    RULE(v[ASC_KEY_GM_BYTES] > (int64_t)ASC_GM_RODATA_BASE, "gm_bytes must exceed the .rodata base 0x%llx",
         (unsigned long long)ASC_GM_RODATA_BASE);
#undef RULE
    return ok;
}

/* The output is itself a valid profile (asc-sim config > my.json).  The
 * buffer is sized up front: at most 96 bytes per key line, the strings
 * quoted by the one JSON string writer (asc/json.h). */
char *asc_config_to_json(const AscConfig *cfg, const AscAlloc *alloc)
{
    char *name = asc_json_quote(cfg->name, NULL), *desc = asc_json_quote(cfg->description, NULL);
    size_t cap = 256 + 96 * ASC_KEY_COUNT + (name ? strlen(name) : 0) + (desc ? strlen(desc) : 0);
    char *buf = name && desc ? asc_malloc(alloc, cap) : NULL;
    if (buf) {
        size_t n = 0;
        n += (size_t)snprintf(buf + n, cap - n, "{\n  \"version\": %d,\n  \"name\": %s,\n  \"description\": %s,\n",
                              ASC_CONFIG_VERSION, name, desc);
        for (int k = 0; k < ASC_KEY_COUNT; k++)
            n += (size_t)snprintf(buf + n, cap - n, "  \"%s\": %lld%s\n", asc_config_keys[k].key, (long long)cfg->v[k],
                                  k + 1 < ASC_KEY_COUNT ? "," : "");
        snprintf(buf + n, cap - n, "}\n");
    }
    free(name);
    free(desc);
    return buf;
}

/* Copy the diagnostics of `from` into `to` with "path[:line:col]: " in front of each message and
 * no location: `path` is this function's buffer, which does not outlive `to`. */
static void relay_diags(AscDiags *to, const AscDiags *from, const char *path)
{
    for (uint32_t i = 0; i < from->count; i++) {
        const AscDiag *g = &from->items[i];
        char msg[1400];
        if (g->loc.line)
            snprintf(msg, sizeof msg, "%s:%u:%u: %s", path, g->loc.line, g->loc.col, g->msg ? g->msg : "?");
        else
            snprintf(msg, sizeof msg, "%s: %s", path, g->msg ? g->msg : "?");
        asc_diag_text(to, g->id, g->sev, (AscLoc){0}, msg);
    }
    if (from->nerrors > from->count) asc_diag(to, ASC_DIAG_CONFIG, (AscLoc){0}, "(further profile errors not shown)");
}

bool asc_config_named(AscConfig *cfg, const char *name, AscDiags *d)
{
    AscLoc none = {0};
    const char *dir = getenv("ASC_CONFIG_DIR");
    char path[1100], msg[1400];
    bool in_dir = false;
    size_t nlen = strlen(name);
    /* a name is one path component: no folder parts, no hidden files, fits AscConfig.name */
    bool plain = nlen > 0 && nlen < ASC_TARGET_NAME_MAX && !strchr(name, '/') && !strchr(name, '\\') && name[0] != '.';
    if (dir && *dir && plain) {
        int n = snprintf(path, sizeof path, "%s/%s.json", dir, name);
        FILE *f = n > 0 && (size_t)n < sizeof path ? fopen(path, "rb") : NULL;
        if (f) fclose(f), in_dir = true;
    }
    bool builtin = false;
    for (const AscBuiltinProfile *p = asc_builtin_profiles; p->name; p++) builtin |= !strcmp(p->name, name);
    if (builtin && in_dir) {
        snprintf(msg, sizeof msg,
                 "%s: a profile file in $ASC_CONFIG_DIR may not take the name of the built-in profile '%s': rename "
                 "the file and its \"name\" key",
                 path, name);
        asc_diag(d, ASC_DIAG_CONFIG, none, msg);
        return false;
    }
    if (builtin || !in_dir) {
        if (builtin) return asc_config_builtin(cfg, name, d);
        char list[900];
        if (dir && *dir)
            snprintf(list, sizeof list, "%s (built in), or a file <name>.json in $ASC_CONFIG_DIR (%.600s%s)",
                     asc_config_builtin_list(), dir, plain ? ": there is no such file" : "");
        else
            snprintf(list, sizeof list, "%s (built in), or a file <name>.json in the folder $ASC_CONFIG_DIR names "
                                        "(not set)", asc_config_builtin_list());
        asc_diag(d, ASC_DIAG_UNKNOWN_TARGET, none, name, list);
        return false;
    }
    AscDiags tmp;
    asc_diags_init(&tmp, &d->alloc);
    bool ok = asc_config_read_file(cfg, path, &tmp);
    relay_diags(d, &tmp, path);
    asc_diags_free(&tmp);
    if (!ok) return false;
    if (!cfg->name[0] || !strcmp(cfg->name, "custom")) { /* no "name" key: the parser's "custom" */
        memcpy(cfg->name, name, nlen + 1);
    } else if (strcmp(cfg->name, name)) {
        /* the image records the name: a different one would be run on another profile later */
        snprintf(msg, sizeof msg,
                 "%s: config key \"name\" is '%s', but the file is loaded as profile '%s': a profile in "
                 "$ASC_CONFIG_DIR must carry its file's name",
                 path, cfg->name, name);
        asc_diag(d, ASC_DIAG_CONFIG, none, msg);
        return false;
    }
    return true;
}

bool asc_config_load(AscConfig *cfg, const char *path, const char *target, const char *const *sets, unsigned nsets,
                     AscDiags *d)
{
    bool ok = path ? asc_config_read_file(cfg, path, d) : asc_config_named(cfg, target, d);
    for (unsigned i = 0; ok && i < nsets; i++) ok = asc_config_set(cfg, sets[i], d);
    return ok && asc_config_check(cfg, d);
}

/* ---- questions about the target --------------------------------------- */

const char *asc_core_kind_name(AscCoreKind core)
{
    switch (core) {
    case ASC_CORE_AIV: return "AIV";
    case ASC_CORE_AIC: return "AIC";
    case ASC_CORE_COUPLED: return "coupled";
    }
    return "?";
}

/* Pipes per core kind: an AIV is S + V + its two GM movers, an AIC the
 * cube side (M, MTE1, FIX), a coupled core (arch 1001) both but no FIX. */
bool asc_config_core_has_pipe(const AscConfig *cfg, AscCoreKind core, AscPipe pipe)
{
    (void)cfg;
    switch (core) {
    case ASC_CORE_AIV: return pipe == ASC_PIPE_S || pipe == ASC_PIPE_V || pipe == ASC_PIPE_MTE2 || pipe == ASC_PIPE_MTE3;
    case ASC_CORE_AIC:
        return pipe == ASC_PIPE_S || pipe == ASC_PIPE_M || pipe == ASC_PIPE_MTE1 || pipe == ASC_PIPE_MTE2 ||
               pipe == ASC_PIPE_MTE3 || pipe == ASC_PIPE_FIX;
    case ASC_CORE_COUPLED:
        return pipe == ASC_PIPE_S || pipe == ASC_PIPE_V || pipe == ASC_PIPE_M || pipe == ASC_PIPE_MTE1 ||
               pipe == ASC_PIPE_MTE2 || pipe == ASC_PIPE_MTE3;
    }
    return false;
}

/* Legal in-core flag pairs on arch 2201 (ASCDK 核内同步能力概述). */
static const struct {
    uint8_t src, dst;
} aiv_pairs[] = {
    {ASC_PIPE_S, ASC_PIPE_V},       {ASC_PIPE_S, ASC_PIPE_MTE2},    {ASC_PIPE_S, ASC_PIPE_MTE3},
    {ASC_PIPE_V, ASC_PIPE_S},       {ASC_PIPE_V, ASC_PIPE_MTE2},    {ASC_PIPE_V, ASC_PIPE_MTE3},
    {ASC_PIPE_MTE2, ASC_PIPE_S},    {ASC_PIPE_MTE2, ASC_PIPE_V},    {ASC_PIPE_MTE2, ASC_PIPE_MTE3},
    {ASC_PIPE_MTE3, ASC_PIPE_S},    {ASC_PIPE_MTE3, ASC_PIPE_V},    {ASC_PIPE_MTE3, ASC_PIPE_MTE2},
},
  aic_pairs[] = {
    {ASC_PIPE_M, ASC_PIPE_MTE1},    {ASC_PIPE_M, ASC_PIPE_MTE2},    {ASC_PIPE_M, ASC_PIPE_FIX},
    {ASC_PIPE_MTE1, ASC_PIPE_M},    {ASC_PIPE_MTE1, ASC_PIPE_MTE2}, {ASC_PIPE_MTE1, ASC_PIPE_MTE3},
    {ASC_PIPE_MTE1, ASC_PIPE_FIX},  {ASC_PIPE_MTE2, ASC_PIPE_M},    {ASC_PIPE_MTE2, ASC_PIPE_MTE1},
    {ASC_PIPE_MTE2, ASC_PIPE_MTE3}, {ASC_PIPE_MTE3, ASC_PIPE_MTE1}, {ASC_PIPE_MTE3, ASC_PIPE_MTE2},
    {ASC_PIPE_FIX, ASC_PIPE_M},     {ASC_PIPE_FIX, ASC_PIPE_MTE1},
    /* Table 2's "no application scenario yet" cells: the pairs exist in the hardware, and
     * Ascend C uses two of them (impl/adv_api/detail/matmul/stage/copy_cube_out/quant/
     * quant_processor_fixpipe.h: MTE2_FIX before a fixpipe reads the quant table). */
    {ASC_PIPE_MTE2, ASC_PIPE_FIX},  {ASC_PIPE_MTE3, ASC_PIPE_FIX},  {ASC_PIPE_FIX, ASC_PIPE_MTE2},
    {ASC_PIPE_FIX, ASC_PIPE_MTE3},
};

bool asc_config_sync_legal(const AscConfig *cfg, AscCoreKind core, AscPipe src, AscPipe dst)
{
    switch (core) {
    case ASC_CORE_AIV:
        for (size_t i = 0; i < sizeof aiv_pairs / sizeof aiv_pairs[0]; i++)
            if (aiv_pairs[i].src == src && aiv_pairs[i].dst == dst) return true;
        return false;
    case ASC_CORE_AIC:
        for (size_t i = 0; i < sizeof aic_pairs / sizeof aic_pairs[0]; i++)
            if (aic_pairs[i].src == src && aic_pairs[i].dst == dst) return true;
        return false;
    case ASC_CORE_COUPLED:
        /* 1001 publishes no table: any two distinct pipes of the core. */
        return src != dst && asc_config_core_has_pipe(cfg, core, src) && asc_config_core_has_pipe(cfg, core, dst);
    }
    return false;
}

/* An instruction is legal on a core when its pipe exists there and its
 * K_AIV / K_AIC flag (asc_isa.def) allows the kind; DYN-pipe instructions
 * (flags, bar) name their pipes in operands, checked by the scalar unit. */
bool asc_config_insn_legal(const AscConfig *cfg, AscCoreKind core, AscOp op)
{
    if (op <= ASC_OP_INVALID || op >= ASC_OP_COUNT) return false;
    const AscInsnInfo *ii = &asc_insn_info[op];
    if (ii->pipe != ASC_PIPE_DYN && !asc_config_core_has_pipe(cfg, core, (AscPipe)ii->pipe)) return false;
    switch (core) {
    case ASC_CORE_AIV: return (ii->flags & K_AIV) != 0;
    case ASC_CORE_AIC: return (ii->flags & K_AIC) != 0;
    case ASC_CORE_COUPLED: return true;
    }
    return false;
}

/* ---- reading by key name (asc/config.h; pyasc via ctypes) ------------------ */

size_t asc_config_size(void) { return sizeof(AscConfig); }
unsigned asc_config_key_count(void) { return ASC_KEY_COUNT; }
const char *asc_config_key_name(unsigned i) { return i < ASC_KEY_COUNT ? asc_config_keys[i].key : NULL; }
int asc_config_key_index(const char *key) { return key ? key_lookup(key, strlen(key)) : -1; }

bool asc_config_get(const AscConfig *cfg, const char *key, int64_t *out, AscDiags *d)
{
    int k = asc_config_key_index(key);
    if (k < 0) {
        if (d) asc_diag(d, ASC_DIAG_CONFIG_KEY, (AscLoc){0}, key ? key : "(null)");
        return false;
    }
    *out = cfg->v[k];
    return true;
}

const char *asc_config_name(const AscConfig *cfg) { return cfg->name; }
