/* asm.h -- the assembler: assembly text -> AscImage.
 *
 * Syntax: docs/assembly.md.  All errors of a run are collected (up to the
 * diagnostics cap) with file:line:col and a span; nothing is written by the
 * library, the CLI writes the image only when there was no error.
 *
 * Files are read through `read_file` (a swappable "file server", so tests
 * assemble from memory); NULL means the real file system.  The AscAsm keeps
 * every file it read until asc_asm_free, so diagnostics can quote them. */
#ifndef ASC_ASM_H
#define ASC_ASM_H

#include <stdbool.h>
#include <stddef.h>

#include "asc/alloc.h"
#include "asc/diag.h"
#include "asc/image.h"

/* Return a buffer allocated with `alloc` holding the file, or NULL with
 * *err set to a static reason ("No such file or directory"); the reason
 * "out of memory" is reported as OOM rather than as an unreadable file. */
/* The largest source file (the main file or one .include) the assembler
 * reads: 16 MiB, far past any kernel (the biggest we ship is under 10 KB).
 * Larger files, and anything but a regular file (a device such as
 * /dev/zero, a FIFO, a directory), are errors naming the rule. */
#define ASC_ASM_MAX_FILE (16u << 20)
typedef char *(*AscReadFileFn)(void *ud, const AscAlloc *alloc, const char *path, size_t *len, const char **err);

typedef struct AscAsmDesc {
    const char *target;      /* NULL = the default target profile */
    AscReadFileFn read_file; /* NULL = real files */
    void *read_ud;
    const AscAlloc *alloc;   /* NULL = malloc */
    bool werror;             /* warnings become errors */
    uint32_t max_errors;     /* 0 = 50 */
} AscAsmDesc;

typedef struct AscAsm AscAsm;

AscAsm *asc_asm_new(const AscAsmDesc *desc); /* NULL on out of memory */
void asc_asm_free(AscAsm *as);

/* Assemble a file, or a string given a name for diagnostics.  Return true
 * when there was no error; `out` (initialised by the caller) is filled only
 * then. */
bool asc_asm_file(AscAsm *as, const char *path, AscImage *out);
bool asc_asm_string(AscAsm *as, const char *name, const char *text, size_t len, AscImage *out);

AscDiags *asc_asm_diags(AscAsm *as);
/* An AscSourceLineFn for asc_diags_print: `ud` is the AscAsm. */
const char *asc_asm_source_line(void *ud, const char *file, uint32_t line, uint32_t *len);
/* The i-th file the last assembly read (the main file, then each .include
 * as first read); NULL past the last.  asc-as checks its output against them. */
const char *asc_asm_input(const AscAsm *as, uint32_t i);

#endif
