/* image.h -- the kernel binary in memory, and its ELF64 file form.
 *
 * The assembler fills an AscImage and asks the loader to write it; the
 * simulator, asc-objdump and Python read a file back into an AscImage.  The
 * reader checks every header field, section bound, table entry and
 * instruction word, and names the failed check in a BAD_BINARY diagnostic
 * ("bad kernel binary: .text size 6 is not a multiple of 4").
 *
 * File layout (docs/binary.md has every byte):
 *   ELF64 LE, e_machine EM_NONE-free value ASC_ELF_MACHINE, ET_EXEC
 *   .text          instruction words (pc = byte offset into .text)
 *   .rodata        read-only data, placed in GM at ASC_GM_RODATA_BASE
 *   .symtab/.strtab one FUNC symbol per kernel program entry
 *   .asc.kernels   kernel kinds, entries, arguments, buffer use, target
 *   .asc.lines     pc -> file:line:col
 *   .shstrtab
 *
 * Ownership: every pointer in an AscImage is owned by it and freed by
 * asc_image_free with the image's allocator. */
#ifndef ASC_IMAGE_H
#define ASC_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asc/alloc.h"
#include "asc/config.h" /* ASC_TARGET_NAME_MAX */
#include "asc/diag.h"
#include "asc/isa.h"    /* ASC_MAX_ARGS, ASC_GM_RODATA_BASE */
#include "asc/outfile.h"

#define ASC_NAME_MAX 64          /* kernel and argument names, with the NUL */
#define ASC_ELF_MACHINE 0x4153   /* 'AS': not a registered machine, so no tool mistakes it */
#define ASC_BINARY_VERSION 1     /* file format version, in e_flags; a mismatch names the side to upgrade */

typedef enum AscKernelKind { ASC_KERNEL_AIV = 0, ASC_KERNEL_AIC = 1, ASC_KERNEL_MIX = 2 } AscKernelKind;
typedef enum AscArgKind { ASC_ARG_GM = 0, ASC_ARG_INT = 1, ASC_ARG_FLOAT = 2 } AscArgKind;
/* Index of a kernel's programs: a mix kernel has both, others one. */
typedef enum AscPart { ASC_PART_AIV = 0, ASC_PART_AIC = 1, ASC_PART_COUNT = 2 } AscPart;

typedef struct AscArgInfo {
    char name[ASC_NAME_MAX];
    uint8_t kind;  /* AscArgKind */
    uint8_t dtype; /* AscDtype of the elements a gm pointer points at; NONE for int/float */
} AscArgInfo;

typedef struct AscKernelInfo {
    char name[ASC_NAME_MAX];
    uint8_t kind;                    /* AscKernelKind */
    uint32_t entry[ASC_PART_COUNT];  /* byte offset into .text of each program */
    uint32_t size[ASC_PART_COUNT];   /* byte size of each program; 0 = absent */
    uint32_t nargs;
    AscArgInfo args[ASC_MAX_ARGS];
    uint32_t ub_bytes, l1_bytes;     /* declared static buffer use (.uses); 0 = not declared */
} AscKernelInfo;

typedef struct AscLineEntry {
    uint32_t pc;   /* byte offset into .text; entries sorted by pc, one per instruction */
    uint32_t file; /* index into files */
    uint32_t line, col;
} AscLineEntry;

typedef struct AscImage {
    AscAlloc alloc;
    char target[ASC_TARGET_NAME_MAX]; /* profile the binary was assembled for */
    uint32_t *text;
    uint32_t text_words;
    uint8_t *rodata;
    uint32_t rodata_size;
    AscKernelInfo *kernels;
    uint32_t nkernels;
    char **files;
    uint32_t nfiles;
    AscLineEntry *lines;
    uint32_t nlines;
} AscImage;

void asc_image_init(AscImage *img, const AscAlloc *alloc);
void asc_image_free(AscImage *img);

/* Semantic checks shared by writer and reader: entries inside .text and
 * 4-aligned, programs not overlapping, every word decodes, names valid,
 * line entries sorted and pointing at existing files.  Reports BAD_BINARY /
 * BAD_INSN_WORD and returns false on the first broken rule. */
bool asc_image_validate(const AscImage *img, AscDiags *d);

/* Serialise to an ELF file in memory; *out is allocated with img->alloc. */
bool asc_image_write(const AscImage *img, uint8_t **out, size_t *len, AscDiags *d);
/* Write to a path: to a temporary file renamed into place, so an error never
 * leaves a half-written output. */
bool asc_image_write_file(const AscImage *img, const char *path, AscDiags *d);
/* The same into an output set (asc/outfile.h): renamed into place when the
 * set commits; out NULL commits at once. */
bool asc_image_write_to(const AscImage *img, const char *path, AscOutSet *out, AscDiags *d);

/* Parse and validate; `buf` stays owned by the caller.  `img` must be
 * initialised; on failure it is left empty. */
bool asc_image_read(AscImage *img, const uint8_t *buf, size_t len, AscDiags *d);
bool asc_image_read_file(AscImage *img, const char *path, AscDiags *d);

/* One section header of a kernel binary, for asc-objdump -h. */
typedef struct AscSectionInfo {
    char name[16];
    uint32_t type; /* SHT_* */
    uint64_t offset, size, addr;
} AscSectionInfo;
/* The section headers of a file (one asc_image_read accepted), index 0 being
 * the null section.  Stores at most `cap`; returns the number of sections,
 * 0 when the ELF header or the section table is unreadable.  Never reads
 * outside buf[0, len). */
uint32_t asc_image_sections(const uint8_t *buf, size_t len, AscSectionInfo *out, uint32_t cap);

/* ---- text forms (loader/disasm.c) ----------------------------------------
 * The library prints nothing: text goes to `out`, `len` bytes at a time (not
 * NUL-terminated), and source lines come from `source_line`. */
typedef void (*AscTextFn)(void *ud, const char *text, size_t len);
typedef struct AscDisasmDesc {
    AscTextFn out;               /* required */
    void *out_ud;
    bool lines;                  /* -l: before each instruction whose source position changes,
                                    "; file:line:col | source text" */
    AscSourceLineFn source_line; /* text of a line of a file; NULL = positions only */
    void *source_ud;
} AscDisasmDesc;

/* The canonical disassembly (asc-objdump -d): .target, each program's
 * kernel directives in .text order, one instruction per line with a
 * `; PC: WORD` comment, .rodata as .byte lines.  asc-as assembles it back
 * to the same .text.  `img` is one the reader or validator accepted.
 * Returns false (OOM in `d`, which may be NULL) only without memory. */
bool asc_image_disasm(const AscImage *img, const AscDisasmDesc *desc, AscDiags *d);
/* The header listing (asc-objdump -h): `name`, the section table `sec`
 * from asc_image_sections (nsec 0 = none shown), then every kernel with
 * its programs, arguments and declared buffer use. */
void asc_image_describe(const AscImage *img, const char *name, const AscSectionInfo *sec, uint32_t nsec,
                        const AscDisasmDesc *desc);

const AscKernelInfo *asc_image_kernel(const AscImage *img, const char *name); /* NULL name: the only/first */
const AscLineEntry *asc_image_line_at(const AscImage *img, uint32_t pc);      /* NULL when none */
const char *asc_kernel_kind_name(unsigned kind);                              /* "aiv" */
const char *asc_arg_kind_name(unsigned kind);                                 /* "gm" */

#endif
