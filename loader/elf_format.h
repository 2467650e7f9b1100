/* elf_format.h -- private to loader/: the byte layout of the kernel binary.
 *
 * Users: elf_write.c (produces it), elf_read.c (checks and parses it),
 * validate.c (the semantic checks both share).  docs/binary.md describes
 * every byte; the numbers here are the single source for the code.
 *
 * Invariants: every multi-byte field is little-endian and fixed-width; the
 * files hold no pointers; every padding or reserved byte is zero (the writer
 * allocates the output zero-filled, the reader rejects non-zero reserved
 * bytes), so the same AscImage always gives the same bytes. */
#ifndef ASC_LOADER_ELF_FORMAT_H
#define ASC_LOADER_ELF_FORMAT_H

#include <stdint.h>

#include "asc/image.h"

/* ---- ELF64 constants (System V gABI) ------------------------------------ */
#define ELF_EHDR_SIZE 64u
#define ELF_SHDR_SIZE 64u
#define ELF_SYM_SIZE 24u
#define ELFCLASS64 2u
#define ELFDATA2LSB 1u
#define EV_CURRENT 1u
#define ET_EXEC 2u
#define SHT_NULL 0u
#define SHT_PROGBITS 1u
#define SHT_SYMTAB 2u
#define SHT_STRTAB 3u
#define SHF_ALLOC 0x2u
#define SHF_EXECINSTR 0x4u
#define STB_GLOBAL 1u
#define STT_FUNC 2u
#define SYM_INFO_GLOBAL_FUNC ((STB_GLOBAL << 4) | STT_FUNC) /* 0x12 */

/* ---- the sections, in the order the writer emits them ------------------- */
enum {
    SEC_NULL = 0,
    SEC_TEXT,
    SEC_RODATA,
    SEC_KERNELS,
    SEC_LINES,
    SEC_SYMTAB,
    SEC_STRTAB,
    SEC_SHSTRTAB,
    SEC_COUNT /* e_shnum of every asc binary: 8 */
};

/* What every header field of a known section must hold.  `link_sec` and
 * `info` are section indexes resolved by name in the file (-1 = must be 0;
 * info for .symtab is the literal first-global index 1). */
typedef struct SecSpec {
    const char *name;
    uint32_t type;
    uint64_t flags;
    uint64_t addr;
    uint64_t align;
    uint64_t entsize;
    int link_sec; /* SEC_* whose file index sh_link names, or -1 for 0 */
    uint32_t info;
} SecSpec;

static const SecSpec sec_specs[SEC_COUNT] = {
    [SEC_NULL] = {"", SHT_NULL, 0, 0, 0, 0, -1, 0},
    [SEC_TEXT] = {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 4, 0, -1, 0},
    [SEC_RODATA] = {".rodata", SHT_PROGBITS, SHF_ALLOC, ASC_GM_RODATA_BASE, 16, 0, -1, 0},
    [SEC_KERNELS] = {".asc.kernels", SHT_PROGBITS, 0, 0, 8, 0, -1, 0},
    [SEC_LINES] = {".asc.lines", SHT_PROGBITS, 0, 0, 8, 0, -1, 0},
    [SEC_SYMTAB] = {".symtab", SHT_SYMTAB, 0, 0, 8, ELF_SYM_SIZE, SEC_STRTAB, 1},
    [SEC_STRTAB] = {".strtab", SHT_STRTAB, 0, 0, 1, 0, -1, 0},
    [SEC_SHSTRTAB] = {".shstrtab", SHT_STRTAB, 0, 0, 1, 0, -1, 0},
};

/* ---- .asc.kernels --------------------------------------------------------
 *   header (40 bytes): target[32] NUL-padded, u32 nkernels, u32 reserved 0
 *   nkernels records of KREC_SIZE bytes, each:
 *     0   name[64] NUL-padded
 *     64  u32 kind            (AscKernelKind)
 *     68  u32 nargs           (<= ASC_MAX_ARGS)
 *     72  u32 aiv_entry, 76 u32 aiv_size
 *     80  u32 aic_entry, 84 u32 aic_size
 *     88  u32 ub_bytes,  92 u32 l1_bytes
 *     96  16 argument slots of AREC_SIZE bytes:
 *           0 name[64] NUL-padded, 64 u8 kind, 65 u8 dtype, 66..71 reserved 0
 *         slots >= nargs are all zero */
#define KHDR_SIZE 40u
#define KHDR_TARGET 0u
#define KHDR_NKERNELS 32u
#define KHDR_RESERVED 36u
#define KREC_NAME 0u
#define KREC_KIND 64u
#define KREC_NARGS 68u
#define KREC_AIV_ENTRY 72u
#define KREC_AIV_SIZE 76u
#define KREC_AIC_ENTRY 80u
#define KREC_AIC_SIZE 84u
#define KREC_UB 88u
#define KREC_L1 92u
#define KREC_ARGS 96u
#define AREC_NAME 0u
#define AREC_KIND 64u
#define AREC_DTYPE 65u
#define AREC_RESERVED 66u
#define AREC_SIZE 72u
#define KREC_SIZE (KREC_ARGS + ASC_MAX_ARGS * AREC_SIZE) /* 1248 */

/* ---- .asc.lines ----------------------------------------------------------
 *   header (16 bytes): u32 nfiles, u32 nlines, u32 files_bytes, u32 reserved 0
 *   nlines records of 16 bytes: u32 pc, u32 file, u32 line, u32 col
 *   files_bytes bytes: nfiles non-empty NUL-terminated paths, back to back */
#define LHDR_SIZE 16u
#define LREC_SIZE 16u

/* Suffixes of the two symbols of a mix kernel (bisheng's naming). */
#define MIX_AIC_SUFFIX "_mix_aic"
#define MIX_AIV_SUFFIX "_mix_aiv"
#define SYM_NAME_MAX (ASC_NAME_MAX + 8) /* name + suffix + NUL fits */
/* .symtab holds, for each kernel in table order, its AIC program's symbol
 * then its AIV program's (each only when the program exists). */
static const AscPart sym_part_order[2] = {ASC_PART_AIC, ASC_PART_AIV};

/* ---- little-endian access ----------------------------------------------- */
static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }
static inline void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void wr64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The validation shared by writer and reader; `origin` (a path, or NULL)
 * goes into the diagnostics' loc.file and must outlive them. */
bool asc_loader_validate(const AscImage *img, const char *origin, AscDiags *d);

/* Name of kernel `k`'s symbol for part `part` into buf[SYM_NAME_MAX]. */
void asc_loader_symbol_name(const AscKernelInfo *k, AscPart part, char *buf);

/* The entry of the first program (lowest pc) of kernel 0, or 0 without
 * kernels: what e_entry holds. */
uint32_t asc_loader_entry(const AscImage *img);

#endif
