/* config.h -- target profiles: every number of the machine model.
 *
 * Profiles are the JSON files in configs/, compiled into libasc so no file
 * is needed at run time; `--config F.json` reads another one and `--set
 * key=value` overrides any key.  Keys, ranges and defaults: target/asc_config.def.
 * A profile file carries "version": ASC_CONFIG_VERSION; a mismatch names
 * which side to upgrade.  Resolution is one function: defaults, then the
 * profile's values, then overrides, then cross-key checks. */
#ifndef ASC_CONFIG_H
#define ASC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asc/diag.h"
#include "asc/isa.h"

#define ASC_CONFIG_VERSION 1
#define ASC_DEFAULT_TARGET "ascend910b"
#define ASC_TARGET_NAME_MAX 32 /* profile names, with the NUL */

typedef enum AscConfigKey {
#define ASC_KEY(id, key, lo, hi, def, what) ASC_KEY_##id,
#include "asc_config.def"
#undef ASC_KEY
    ASC_KEY_COUNT
} AscConfigKey;

/* GM and the local buffers (target/asc_buf.def): id, name, config keys of
 * size, reserved top and alignment (ASC_KEY_COUNT: no such key). */
typedef enum AscBuf {
#define ASC_BUF(id, name, size_key, reserved_key, align_key) ASC_BUF_##id,
#include "asc_buf.def"
#undef ASC_BUF
    ASC_BUF_COUNT
} AscBuf;
typedef struct AscBufInfo {
    const char *name;            /* "UB" */
    AscConfigKey size_key, reserved_key, align_key;
} AscBufInfo;
extern const AscBufInfo asc_buf_info[ASC_BUF_COUNT];
const char *asc_buf_name(unsigned buf); /* "UB"; "?" out of range */

typedef enum AscCoreKind { ASC_CORE_AIV = 0, ASC_CORE_AIC = 1, ASC_CORE_COUPLED = 2 } AscCoreKind;

typedef struct AscConfig {
    char name[ASC_TARGET_NAME_MAX];
    char description[128];
    int64_t v[ASC_KEY_COUNT]; /* v[ASC_KEY_UB_BYTES] ... */
} AscConfig;

typedef struct AscConfigKeyInfo {
    const char *key;
    int64_t lo, hi, def;
    const char *what;
} AscConfigKeyInfo;
extern const AscConfigKeyInfo asc_config_keys[ASC_KEY_COUNT];

/* Names of the built-in profiles, NULL-terminated. */
const char *const *asc_config_builtin_names(void);
/* "ascend910b, ascend910, teach" for messages. */
const char *asc_config_builtin_list(void);
/* One line per built-in profile, "<name padded to 12> <description>", the
 * default marked " (default)" (asc-sim targets); allocated with `alloc`.
 * NULL when out of memory or a built-in fails to load (then see d). */
char *asc_config_targets_text(const AscAlloc *alloc, AscDiags *d);

/* Load a built-in profile by name / a profile from JSON text.  `origin`
 * names the text in diagnostics (a path).  Errors: UNKNOWN_TARGET,
 * CONFIG (naming key and allowed range). */
bool asc_config_builtin(AscConfig *cfg, const char *name, AscDiags *d);
bool asc_config_parse(AscConfig *cfg, const char *origin, const char *json, size_t len, AscDiags *d);
/* Read and parse a profile file (--config); IO errors name the file.  `path`
 * is kept in diagnostics: it must outlive `d`. */
bool asc_config_read_file(AscConfig *cfg, const char *path, AscDiags *d);
/* Apply "key=value"; the key's range is checked. */
bool asc_config_set(AscConfig *cfg, const char *assignment, AscDiags *d);
/* Whether integer text a user wrote (--set key=, --arg n=) starts, after an optional sign, with
 * a 0 followed by a digit ("010", "-07"): strtoll's base 0 reads that as octal (8), where most
 * mean decimal 10, so the callers refuse it.  "0", "0x1f" and decimals are not. */
bool asc_int_text_octal(const char *s);
/* Cross-key checks (e.g. reserved UB smaller than UB); run after overrides. */
bool asc_config_check(const AscConfig *cfg, AscDiags *d);
/* Load profile `name`: the built-in one, else the file $ASC_CONFIG_DIR/<name>.json (the one place
 * the environment names custom profiles: asc-as, asc-sim, pyasc and the sweep all come here).
 * The file's "name" key must be absent (or "custom", the parser's stand-in) or `name` (images
 * record it).  A file there that takes a
 * built-in name is an error, not a silent override.  Errors name the file (in the message, with
 * line:col for JSON errors) and the key; UNKNOWN_TARGET lists the places looked in. */
bool asc_config_named(AscConfig *cfg, const char *name, AscDiags *d);
/* Resolve a profile as the CLIs do (docs/internals.md §Conventions: one function): the file
 * `path` if not NULL, else built-in `target`; then sets[0..nsets) applied
 * in order ("key=value", later wins); then asc_config_check.  Stops at the
 * first failing step.  `path` is kept in diagnostics, as in read_file. */
bool asc_config_load(AscConfig *cfg, const char *path, const char *target, const char *const *sets, unsigned nsets,
                     AscDiags *d);
/* The resolved profile as JSON with keys in table order (deterministic);
 * allocated with `alloc`. */
char *asc_config_to_json(const AscConfig *cfg, const AscAlloc *alloc);

/* Reading a profile by key name (for callers that do not compile against
 * this header: pyasc through ctypes).  Load it with asc_config_load into a
 * buffer of asc_config_size() bytes; keys are those of
 * target/asc_config.def, in table order. */
size_t asc_config_size(void);             /* sizeof (AscConfig) */
unsigned asc_config_key_count(void);      /* ASC_KEY_COUNT */
const char *asc_config_key_name(unsigned i); /* "ub_bytes"; NULL when i >= the count */
/* The key's index, or -1 when there is no such key. */
int asc_config_key_index(const char *key);
/* *out = the value of `key`; false + CONFIG_KEY diagnostic (when d) if
 * there is no such key. */
bool asc_config_get(const AscConfig *cfg, const char *key, int64_t *out, AscDiags *d);
const char *asc_config_name(const AscConfig *cfg); /* "ascend910b" */

/* The SHA-256 (64 hex digits) of the abi.json (tools/gen_abi.c) of the
 * headers this library was built from; pyasc refuses a library whose hash
 * differs from its python/pyasc/abi.json.  Defined in libasc.a and
 * libasc.so only (generated by tools/abi_hash.cmake), not in the parts. */
const char *asc_abi_hash(void);

/* Chip-level peaks derived from the keys (target/peaks.c; asc-sim config
 * --peaks).  Cube FLOP/cycle per cube-capable core for the three K0 classes
 * (s8 counts integer operations), vector FLOP/cycle per vector-capable core
 * for f16 and f32 (one operation per element). */
enum { ASC_PEAK_B16 = 0, ASC_PEAK_B8 = 1, ASC_PEAK_B32 = 2, ASC_PEAK_DTYPES = 3 };
typedef struct AscPeaks {
    int64_t clock_mhz, cube_cores, vector_cores;
    int64_t cube_flop_per_cycle[ASC_PEAK_DTYPES];
    int64_t vec_flop_per_cycle[2]; /* f16, f32 */
    int64_t hbm_bytes_per_cycle, gm_bytes_per_cycle;
} AscPeaks;
void asc_config_peaks(const AscConfig *cfg, AscPeaks *peaks);
/* The peaks as text with TFLOP/s and TB/s at the clock; allocated with
 * `alloc`, NULL when out of memory. */
char *asc_config_peaks_text(const AscConfig *cfg, const AscAlloc *alloc);

/* Questions the assembler and the loader ask of a target. */
bool asc_config_core_has_pipe(const AscConfig *cfg, AscCoreKind core, AscPipe pipe);
bool asc_config_sync_legal(const AscConfig *cfg, AscCoreKind core, AscPipe src, AscPipe dst);
bool asc_config_insn_legal(const AscConfig *cfg, AscCoreKind core, AscOp op);
const char *asc_core_kind_name(AscCoreKind core); /* "AIV", "AIC", "coupled" */

#endif
