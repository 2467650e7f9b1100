/* gen_abi.c -- asc-gen-abi writes python/pyasc/abi.json: what the Python
 * side must know of libasc's binary interface, taken from the C headers so
 * it can never drift from them (schema: docs/internals.md §abi.json).
 *
 *   config keys (name, type, default, min, max, meaning), built-in profile
 *   names, buffers (id, name, size/reserved/align keys), lanes (AscPipe ->
 *   trace lane name and tid), the register ABI, enum values Python repeats,
 *   and sizeof/offsetof of every field of every struct pyasc mirrors with
 *   ctypes (python/pyasc/_libasc.py).
 *
 * A tool of the top layer (docs/internals.md §Layers): it includes every
 * public header.  Output is deterministic (table order, no timestamps).
 * scripts/regen.sh writes the checked-in copy; ctest abi_json_current fails
 * when it is stale. */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/asm.h"
#include "asc/config.h"
#include "asc/diag.h"
#include "asc/image.h"
#include "asc/isa.h"
#include "asc/json.h"
#include "asc/outfile.h"
#include "asc/run.h"
#include "asc/sim.h"

static void json_str(FILE *f, const char *s) { asc_json_put(f, s ? s : "", true); } /* asc/json.h */

static const char *core_kind_name(unsigned k) { return asc_core_kind_name((AscCoreKind)k); }
static const char *fault_kind_name(unsigned k) { return asc_fault_kind_name((AscFaultKind)k); }
static void key_or_null(FILE *f, AscConfigKey k)
{
    if (k < ASC_KEY_COUNT) json_str(f, asc_config_keys[k].key);
    else fputs("null", f);
}

/* ---- struct layouts ------------------------------------------------------------ */

typedef struct Field {
    const char *name;
    size_t offset, size;
} Field;
typedef struct Layout {
    const char *name, *header;
    size_t size, align;
    const Field *fields;
    size_t nfields;
} Layout;

#define F(S, f) {#f, offsetof(S, f), sizeof(((S *)0)->f)}
#define LAYOUT(S, hdr, ...)                                                                                           \
    static const Field fields_##S[] = {__VA_ARGS__};                                                                 \
    static const Layout layout_##S = {#S, hdr, sizeof(S), alignof(S), fields_##S,                                     \
                                      sizeof fields_##S / sizeof fields_##S[0]};

LAYOUT(AscAlloc, "include/asc/alloc.h", F(AscAlloc, alloc), F(AscAlloc, free), F(AscAlloc, ud))
LAYOUT(AscLoc, "include/asc/diag.h", F(AscLoc, file), F(AscLoc, line), F(AscLoc, col), F(AscLoc, len))
LAYOUT(AscDiag, "include/asc/diag.h", F(AscDiag, id), F(AscDiag, sev), F(AscDiag, loc), F(AscDiag, msg))
LAYOUT(AscDiags, "include/asc/diag.h", F(AscDiags, alloc), F(AscDiags, items), F(AscDiags, count), F(AscDiags, cap),
       F(AscDiags, nerrors), F(AscDiags, nwarnings), F(AscDiags, max_errors), F(AscDiags, werror), F(AscDiags, oom))
LAYOUT(AscAsmDesc, "include/asc/asm.h", F(AscAsmDesc, target), F(AscAsmDesc, read_file), F(AscAsmDesc, read_ud),
       F(AscAsmDesc, alloc), F(AscAsmDesc, werror), F(AscAsmDesc, max_errors))
LAYOUT(AscArgInfo, "include/asc/image.h", F(AscArgInfo, name), F(AscArgInfo, kind), F(AscArgInfo, dtype))
LAYOUT(AscKernelInfo, "include/asc/image.h", F(AscKernelInfo, name), F(AscKernelInfo, kind), F(AscKernelInfo, entry),
       F(AscKernelInfo, size), F(AscKernelInfo, nargs), F(AscKernelInfo, args), F(AscKernelInfo, ub_bytes),
       F(AscKernelInfo, l1_bytes))
LAYOUT(AscLineEntry, "include/asc/image.h", F(AscLineEntry, pc), F(AscLineEntry, file), F(AscLineEntry, line),
       F(AscLineEntry, col))
LAYOUT(AscImage, "include/asc/image.h", F(AscImage, alloc), F(AscImage, target), F(AscImage, text),
       F(AscImage, text_words), F(AscImage, rodata), F(AscImage, rodata_size), F(AscImage, kernels),
       F(AscImage, nkernels), F(AscImage, files), F(AscImage, nfiles), F(AscImage, lines), F(AscImage, nlines))
LAYOUT(AscConfig, "include/asc/config.h", F(AscConfig, name), F(AscConfig, description), F(AscConfig, v))
LAYOUT(AscSimObserver, "include/asc/sim.h", F(AscSimObserver, ud), F(AscSimObserver, on_insn),
       F(AscSimObserver, on_flag), F(AscSimObserver, on_counter))
LAYOUT(AscSimDesc, "include/asc/sim.h", F(AscSimDesc, cfg), F(AscSimDesc, image), F(AscSimDesc, kernel),
       F(AscSimDesc, blocks), F(AscSimDesc, functional), F(AscSimDesc, check_races), F(AscSimDesc, sanitize), F(AscSimDesc, alloc),
       F(AscSimDesc, observer), F(AscSimDesc, threads))
LAYOUT(AscSimInsnEvent, "include/asc/sim.h", F(AscSimInsnEvent, core), F(AscSimInsnEvent, pipe),
       F(AscSimInsnEvent, op), F(AscSimInsnEvent, pc), F(AscSimInsnEvent, seq), F(AscSimInsnEvent, issue_cycle),
       F(AscSimInsnEvent, start_cycle), F(AscSimInsnEvent, end_cycle), F(AscSimInsnEvent, done_cycle),
       F(AscSimInsnEvent, stall_cycles), F(AscSimInsnEvent, stall), F(AscSimInsnEvent, flag_src),
       F(AscSimInsnEvent, flag_dst), F(AscSimInsnEvent, flag_event), F(AscSimInsnEvent, src_buf),
       F(AscSimInsnEvent, dst_buf), F(AscSimInsnEvent, bytes), F(AscSimInsnEvent, conflict_beats),
       F(AscSimInsnEvent, hbm_extra_cycles), F(AscSimInsnEvent, flops))
LAYOUT(AscSimFlagEvent, "include/asc/sim.h", F(AscSimFlagEvent, core), F(AscSimFlagEvent, src),
       F(AscSimFlagEvent, dst), F(AscSimFlagEvent, event), F(AscSimFlagEvent, set_cycle), F(AscSimFlagEvent, set_pc),
       F(AscSimFlagEvent, wait_start_cycle), F(AscSimFlagEvent, release_cycle), F(AscSimFlagEvent, wait_pc))
LAYOUT(AscSimBlocked, "include/asc/sim.h", F(AscSimBlocked, core), F(AscSimBlocked, pipe), F(AscSimBlocked, pc),
       F(AscSimBlocked, what))
LAYOUT(AscSimFault, "include/asc/sim.h", F(AscSimFault, kind), F(AscSimFault, cycle), F(AscSimFault, core),
       F(AscSimFault, pipe), F(AscSimFault, pc), F(AscSimFault, op), F(AscSimFault, msg), F(AscSimFault, nblocked),
       F(AscSimFault, blocked))
LAYOUT(AscSimRace, "include/asc/sim.h", F(AscSimRace, kind), F(AscSimRace, buf), F(AscSimRace, core),
       F(AscSimRace, lo), F(AscSimRace, hi), F(AscSimRace, pipe), F(AscSimRace, op), F(AscSimRace, pc),
       F(AscSimRace, start_cycle), F(AscSimRace, done_cycle), F(AscSimRace, prev_pipe), F(AscSimRace, prev_op),
       F(AscSimRace, prev_pc), F(AscSimRace, prev_start_cycle), F(AscSimRace, prev_done_cycle), F(AscSimRace, count))

static const Layout *const layouts[] = {
    &layout_AscAlloc,        &layout_AscLoc,          &layout_AscDiag,         &layout_AscDiags,
    &layout_AscAsmDesc,      &layout_AscArgInfo,      &layout_AscKernelInfo,   &layout_AscLineEntry,
    &layout_AscImage,        &layout_AscConfig,       &layout_AscSimObserver,  &layout_AscSimDesc,
    &layout_AscSimInsnEvent, &layout_AscSimFlagEvent, &layout_AscSimBlocked,   &layout_AscSimFault,
    &layout_AscSimRace,
};

/* ---- enums Python repeats: NAME -> value, the name from the C identifier ------- */

typedef struct Enumerator {
    const char *name;
    long value;
} Enumerator;
#define E(prefix, id) {#id, (long)prefix##id}

static void enum_obj(FILE *f, const char *name, const Enumerator *e, size_t n, const char *sep)
{
    fprintf(f, "    ");
    json_str(f, name);
    fprintf(f, ": {");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_str(f, e[i].name);
        fprintf(f, ": %ld", e[i].value);
    }
    fprintf(f, "}%s\n", sep);
}
#define ENUM(f, name, sep, ...)                                                                                       \
    do {                                                                                                              \
        static const Enumerator e_[] = {__VA_ARGS__};                                                                 \
        enum_obj(f, name, e_, sizeof e_ / sizeof e_[0], sep);                                                         \
    } while (0)

static void write_json(FILE *f)
{
    fprintf(f, "{\n  \"version\": 1,\n  \"generator\": \"asc-gen-abi (tools/gen_abi.c)\",\n");

    /* constants */
    fprintf(f, "  \"constants\": {\"ASC_NAME_MAX\": %d, \"ASC_TARGET_NAME_MAX\": %d, \"ASC_MAX_ARGS\": %d, "
               "\"ASC_NUM_REGS\": %d, \"ASC_SIM_MAX_BLOCKED\": %d, \"ASC_SIM_MAX_RACES\": %d, "
               "\"ASC_SIM_MAX_EVENTS\": %d, \"ASC_CONFIG_VERSION\": %d, \"ASC_BINARY_VERSION\": %d, "
               "\"ASC_GM_RODATA_BASE\": %llu, \"ASC_GM_ARG_BASE\": %llu, \"ASC_GM_ARG_ALIGN\": %llu},\n",
            ASC_NAME_MAX, ASC_TARGET_NAME_MAX, ASC_MAX_ARGS, ASC_NUM_REGS, ASC_SIM_MAX_BLOCKED, ASC_SIM_MAX_RACES,
            ASC_SIM_MAX_EVENTS, ASC_CONFIG_VERSION, ASC_BINARY_VERSION, (unsigned long long)ASC_GM_RODATA_BASE,
            (unsigned long long)ASC_GM_ARG_BASE, (unsigned long long)ASC_GM_ARG_ALIGN);

    /* config keys, in table order = AscConfigKey order */
    fprintf(f, "  \"config\": {\n    \"default_target\": ");
    json_str(f, ASC_DEFAULT_TARGET);
    fprintf(f, ",\n    \"builtin_profiles\": [");
    int i = 0;
    for (const char *const *p = asc_config_builtin_names(); *p; p++, i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_str(f, *p);
    }
    fprintf(f, "],\n    \"keys\": [\n");
    for (unsigned k = 0; k < ASC_KEY_COUNT; k++) {
        const AscConfigKeyInfo *ki = &asc_config_keys[k];
        fprintf(f, "      {\"key\": ");
        json_str(f, ki->key);
        fprintf(f, ", \"index\": %u, \"type\": \"int\", \"default\": %lld, \"min\": %lld, \"max\": %lld, \"what\": ", k,
                (long long)ki->def, (long long)ki->lo, (long long)ki->hi);
        json_str(f, ki->what);
        fprintf(f, "}%s\n", k + 1 < ASC_KEY_COUNT ? "," : "");
    }
    fprintf(f, "    ]\n  },\n");

    /* buffers */
    fprintf(f, "  \"buffers\": [\n");
    for (unsigned b = 0; b < ASC_BUF_COUNT; b++) {
        const AscBufInfo *bi = &asc_buf_info[b];
        fprintf(f, "    {\"name\": ");
        json_str(f, bi->name);
        fprintf(f, ", \"id\": %u, \"size_key\": ", b);
        key_or_null(f, bi->size_key);
        fprintf(f, ", \"reserved_key\": ");
        key_or_null(f, bi->reserved_key);
        fprintf(f, ", \"align_key\": ");
        key_or_null(f, bi->align_key);
        fprintf(f, "}%s\n", b + 1 < ASC_BUF_COUNT ? "," : "");
    }
    fprintf(f, "  ],\n");

    /* lanes: how the trace writer names each pipe */
    fprintf(f, "  \"lanes\": [\n");
    for (unsigned p = 0; p < ASC_PIPE_COUNT; p++) {
        fprintf(f, "    {\"pipe\": ");
        json_str(f, asc_pipe_name(p));
        fprintf(f, ", \"value\": %u, \"lane\": ", p);
        json_str(f, asc_pipe_lane(p));
        fprintf(f, ", \"tid\": %u}%s\n", asc_trace_lane_tid(p), p + 1 < ASC_PIPE_COUNT ? "," : "");
    }
    fprintf(f, "  ],\n");

    /* register ABI */
    fprintf(f, "  \"registers\": {\n    \"count\": %d, \"width_bits\": 64, \"assembler_temporary\": %d,\n", ASC_NUM_REGS,
            ASC_REG_AT);
    fprintf(f, "    \"args\": {\"first\": 0, \"count\": %d, \"order\": \".arg order: argument i in x<i>\", "
               "\"kinds\": {",
            ASC_MAX_ARGS);
    for (unsigned k = 0; k <= ASC_ARG_FLOAT; k++) {
        fprintf(f, "%s", k ? ", " : "");
        json_str(f, asc_arg_kind_name(k));
        fprintf(f, ": {\"value\": %u, \"passed_as\": ", k);
        json_str(f, k == ASC_ARG_GM ? "GM address (placed from gm_arg_base, gm_arg_align apart)"
                    : k == ASC_ARG_INT ? "integer value"
                                       : "f32 bits in the low 32 bits");
        fputc('}', f);
    }
    fprintf(f, "},\n      \"gm_arg_base\": %llu, \"gm_arg_align\": %llu},\n", (unsigned long long)ASC_GM_ARG_BASE,
            (unsigned long long)ASC_GM_ARG_ALIGN);
    fprintf(f, "    \"rodata_base\": %llu,\n    \"special\": [", (unsigned long long)ASC_GM_RODATA_BASE);
    for (unsigned s = 0; s < ASC_SPR_COUNT; s++) {
        if (!asc_spr_name(s)) continue; /* an unassigned number */
        fprintf(f, "%s{\"name\": ", s ? ", " : "");
        json_str(f, asc_spr_name(s));
        fprintf(f, ", \"value\": %u, \"writable\": %s}", s, asc_spr_writable(s) ? "true" : "false");
    }
    fprintf(f, "]\n  },\n");

    /* enums */
    fprintf(f, "  \"enums\": {\n");
    fprintf(f, "    \"AscPipe\": {");
    asc_json_name_map(f, asc_pipe_name, 0, ASC_PIPE_COUNT, NULL);
    fprintf(f, "},\n    \"AscDtype\": {");
    asc_json_name_map(f, asc_dtype_name, 0, ASC_DT_COUNT, NULL);
    fprintf(f, "},\n    \"AscBuf\": {");
    asc_json_name_map(f, asc_buf_name, 0, ASC_BUF_COUNT, NULL);
    fprintf(f, "},\n    \"AscKernelKind\": {");
    asc_json_name_map(f, asc_kernel_kind_name, 0, ASC_KERNEL_MIX + 1, NULL);
    fprintf(f, "},\n    \"AscArgKind\": {");
    asc_json_name_map(f, asc_arg_kind_name, 0, ASC_ARG_FLOAT + 1, NULL);
    fprintf(f, "},\n    \"AscCoreKind\": {");
    asc_json_name_map(f, core_kind_name, 0, ASC_CORE_COUPLED + 1, NULL);
    fprintf(f, "},\n    \"AscFaultKind\": {");
    asc_json_name_map(f, fault_kind_name, 0, ASC_FAULT_TRAP + 1, NULL);
    fprintf(f, "},\n");
    ENUM(f, "AscSev", ",", E(ASC_SEV_, NOTE), E(ASC_SEV_, WARNING), E(ASC_SEV_, ERROR));
    ENUM(f, "AscSimStatus", ",", E(ASC_SIM_, DONE), E(ASC_SIM_, LIMIT), E(ASC_SIM_, FAULT));
    ENUM(f, "AscRaceKind", ",", E(ASC_RACE_, RAW), E(ASC_RACE_, WAR), E(ASC_RACE_, WAW));
    ENUM(f, "AscNoteKind", ",", E(ASC_NOTE_, NONE), E(ASC_NOTE_, TRUNC), E(ASC_NOTE_, PAD), E(ASC_NOTE_, CMPMASK),
         E(ASC_NOTE_, CMPCOUNT), E(ASC_NOTE_, RDOWN), E(ASC_NOTE_, GMREAD));
    _Static_assert(ASC_NOTE_COUNT == 7, "a new AscNoteKind needs its entry above (and a text in pyasc's launch.py "
                                        "and asc-sim's print_notes)");
    ENUM(f, "AscStall", "", E(ASC_STALL_, NONE), E(ASC_STALL_, FLAG), E(ASC_STALL_, BARRIER),
         E(ASC_STALL_, QUEUE_FULL), E(ASC_STALL_, XCORE), E(ASC_STALL_, SYNC_ALL), E(ASC_STALL_, DRAIN));
    fprintf(f, "  },\n");

    /* struct layouts */
    fprintf(f, "  \"structs\": {\n");
    size_t nl = sizeof layouts / sizeof layouts[0];
    for (size_t l = 0; l < nl; l++) {
        const Layout *L = layouts[l];
        fprintf(f, "    ");
        json_str(f, L->name);
        fprintf(f, ": {\"header\": ");
        json_str(f, L->header);
        fprintf(f, ", \"size\": %zu, \"align\": %zu, \"fields\": [\n", L->size, L->align);
        for (size_t k = 0; k < L->nfields; k++) {
            fprintf(f, "      {\"name\": ");
            json_str(f, L->fields[k].name);
            fprintf(f, ", \"offset\": %zu, \"size\": %zu}%s\n", L->fields[k].offset, L->fields[k].size,
                    k + 1 < L->nfields ? "," : "");
        }
        fprintf(f, "    ]}%s\n", l + 1 < nl ? "," : "");
    }
    fprintf(f, "  }\n}\n");
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "--json") != 0) {
        fprintf(stderr, "usage: asc-gen-abi --json FILE\n");
        return 1;
    }
    const char *path = argv[2];
    /* an exclusive temporary beside path, renamed into place (asc/outfile.h) */
    if (asc_out_emit(path, write_json, NULL)) return 0;
    fprintf(stderr, "asc-gen-abi: cannot write '%s'\n", path);
    return 1;
}
