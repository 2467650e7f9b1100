/* isa.h -- the asc instruction set: enums, the instruction info table, and
 * encode / decode / print, all generated from isa/asc_isa.def.
 *
 * Every instruction is one 32-bit little-endian word:
 *
 *   31        24 23   19 18   14 13    9 8     4 3      0
 *  +------------+-------+-------+-------+-------+--------+
 *  |   opcode   |  rd   |  rs1  |  rs2  |  rs3  |  ....  |   R4 (R3, R2: fewer regs)
 *  +------------+-------+-------+-------+-------+--------+
 *  |   opcode   |  rd   |  rs1  |   imm14 (signed)       |   RI, MEM
 *  |   opcode   |  rs1  |  rs2  |   off14 (words)        |   BR
 *  |   opcode   |           off24 (words, signed)        |   J
 *  |   opcode   |  rd   |r|hw |       uimm16             |   MOVW
 *  |   opcode   | psrc |pdst |event|     reserved        |   FLAG
 *  +------------+----------------------------------------+
 *
 * asc_fmt.def has the exact fields of every format.  Any bit that is neither
 * opcode nor a field of the format is reserved and must be zero: the decoder
 * rejects the word otherwise, so every word has exactly one meaning and
 * decode -> encode is the identity.
 *
 * Users: the assembler (encode, parse tables), the loader (decode every
 * word), asc-objdump (print), the simulator (decode once at load, dispatch
 * on AscOp), gen_isa (docs/isa.md, isa.json). */
#ifndef ASC_ISA_H
#define ASC_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum AscOp {
    ASC_OP_INVALID = 0,
#define ASC_INSN(id, mn, opc, fmt, pipe, lat, fam, dt0, dt1, cfg, flags, sem) ASC_OP_##id,
#include "asc_isa.def"
#undef ASC_INSN
    ASC_OP_COUNT
} AscOp;

typedef enum AscFmt {
#define F(k, lo, w)
#define F0
#define ASC_FMT(id, syn, a, b, c, d, e, where) ASC_FMT_##id,
#include "asc_fmt.def"
#undef ASC_FMT
#undef F
#undef F0
    ASC_FMT_COUNT
} AscFmt;

typedef enum AscFieldKind {
#define ASC_FK(id, name, sgn, scale, what) ASC_FK_##id,
#include "asc_fmt.def"
#undef ASC_FK
    ASC_FK_COUNT
} AscFieldKind;

typedef enum AscPipe {
#define ASC_PIPE(id, name, val, lane) ASC_PIPE_##id = val,
#include "asc_enums.def"
#undef ASC_PIPE
    ASC_PIPE_COUNT = 11,
    ASC_PIPE_DYN = 15 /* table only: the pipe is an operand (sync ops) */
} AscPipe;

typedef enum AscDtype {
#define ASC_DTYPE(id, name, size, isf, sgn) ASC_DT_##id,
#include "asc_enums.def"
#undef ASC_DTYPE
    ASC_DT_COUNT
} AscDtype;

typedef enum AscSpr {
#define ASC_SPR(id, name, val, wr, what) ASC_SPR_##id = val,
#include "asc_enums.def"
#undef ASC_SPR
    ASC_SPR_COUNT
} AscSpr;

typedef enum AscCond {
#define ASC_COND(id, name, val) ASC_COND_##id = val,
#include "asc_enums.def"
#undef ASC_COND
    ASC_COND_COUNT
} AscCond;

typedef enum AscRnd {
#define ASC_RND(id, name, val) ASC_RND_##id = val,
#include "asc_enums.def"
#undef ASC_RND
    ASC_RND_COUNT
} AscRnd;

typedef enum AscCvp {
#define ASC_CVP(id, name, val, op, src, dst, rnd) ASC_CVP_##id = val,
#include "asc_enums.def"
#undef ASC_CVP
    ASC_CVP_COUNT
} AscCvp;

typedef enum AscLat {
#define ASC_LAT(id, key, what) ASC_LAT_##id,
#include "asc_enums.def"
#undef ASC_LAT
    ASC_LAT_COUNT
} AscLat;

typedef enum AscCfgLayout {
#define ASC_CFG(id, what) ASC_CFG_##id,
#include "asc_cfg.def"
#undef ASC_CFG
    ASC_CFG_COUNT
} AscCfgLayout;

/* Notes an instruction raises where the hardware silently changes what a
 * kernel asked for (the simulator lists them: asc_sim_note_get). */
typedef enum AscNoteKind {
    ASC_NOTE_NONE = 0,
    ASC_NOTE_TRUNC = 1, /* a DataCopy burst of a bytes moved only b (rounded down to 32 B) */
    ASC_NOTE_PAD = 2,   /* a DataCopyPad burst of a bytes took b bytes of UB (dummy bytes written) */
    ASC_NOTE_CMPMASK = 3,  /* a whole-repeat vcmp/vcmps ignored a mask of a active lanes: compared all b */
    ASC_NOTE_CMPCOUNT = 4, /* a whole-repeat vcmp/vcmps in counter mode compared b of a elements */
    ASC_NOTE_RDOWN = 5,    /* a DataCopy count (DMA config bit 12, rdown) moved b bytes, its last 1..31 dropped */
    ASC_NOTE_GMREAD = 6,   /* a GM read of a bytes at b ran outside the allocation it starts in, or lies in none
                            * (memcheck off: the card reads whatever is there; --sanitize=memcheck names it) */
    ASC_NOTE_COUNT
} AscNoteKind;

/* Flags column of asc_isa.def. */
enum {
    K_AIV = 1u << 0,   /* legal on a vector core (split targets) */
    K_AIC = 1u << 1,   /* legal on a cube core (split targets) */
    K_BOTH = K_AIV | K_AIC,
    F_END = 1u << 2,
    F_BRANCH = 1u << 3,
    F_LOAD = 1u << 4,
    F_STORE = 1u << 5,
    F_SYNC = 1u << 6,
    F_DMA = 1u << 7,
    F_VEC = 1u << 8,   /* vector instruction: mask, repeat, strides */
    F_SPRW = 1u << 9,
    /* Rounding modes a format-R3R instruction takes (Ascend C Cast on dav_c220: the RoundMode
     * cases of cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h;
     * a mode outside them is rejected by the assembler and the decoder) */
    F_RNDNONE = 1u << 10, /* one bit per mode: bit 10 + the mode's ASC_RND value */
    F_RNDRINT = 1u << 11,
    F_RNDFLOOR = 1u << 12,
    F_RNDCEIL = 1u << 13,
    F_RNDROUND = 1u << 14,
    F_RNDTRUNC = 1u << 15,
    F_RNDODD = 1u << 16,
    F_RNDDIR = F_RNDRINT | F_RNDFLOOR | F_RNDCEIL | F_RNDROUND | F_RNDTRUNC
};

#define ASC_OPCODE_SHIFT 24
#define ASC_NUM_REGS 32
#define ASC_REG_AT 31      /* assembler temporary, clobbered by named-field forms */
#define ASC_MAX_FIELDS 5

/* The kernel ABI (docs/isa.md, generated): arguments arrive in registers
 * x0..x(ASC_MAX_ARGS-1) in .arg order; .rodata sits in GM from
 * ASC_GM_RODATA_BASE. */
#define ASC_MAX_ARGS 16          /* arguments arrive in x0..x15 */
#define ASC_GM_RODATA_BASE 0x10000ull /* GM address of .rodata byte 0 */

typedef struct AscField {
    uint8_t kind; /* AscFieldKind */
    uint8_t lo;   /* lowest bit */
    uint8_t width;
} AscField;

typedef struct AscFmtInfo {
    const char *name;
    const char *syntax; /* e.g. "%rd, %imm(%rs1)" */
    AscField fields[ASC_MAX_FIELDS]; /* unused slots have width 0 */
    const char *where;
} AscFmtInfo;

typedef struct AscFieldKindInfo {
    const char *name;
    bool is_signed;
    uint8_t scale;
    const char *what;
} AscFieldKindInfo;

typedef struct AscInsnInfo {
    const char *id;       /* "VADD_F16" */
    const char *mnemonic; /* "vadd.f16" */
    uint8_t opcode;
    uint8_t fmt;    /* AscFmt */
    uint8_t pipe;   /* AscPipe, or ASC_PIPE_DYN */
    uint8_t lat;    /* AscLat */
    const char *fam;      /* semantic family, "VADD" */
    uint8_t dt0, dt1;     /* AscDtype */
    uint8_t cfg;          /* AscCfgLayout */
    uint32_t flags;
    const char *semantics;
} AscInsnInfo;

typedef struct AscCfgField {
    uint8_t layout;  /* AscCfgLayout */
    const char *key;
    uint8_t lo, width, count, step;
    uint32_t def;
    const char *what;
} AscCfgField;

/* A decoded instruction.  Only the fields of its format are meaningful;
 * the rest are zero.  `off` is in bytes. */
typedef struct AscInsn {
    uint16_t op; /* AscOp */
    uint8_t rd, rs1, rs2, rs3;
    uint8_t spr, psrc, pdst, pipe, event, cond, rnd, mode, xid, cvp;
    uint8_t hw;      /* chunk shift in bits: 0, 16, 32, 48 */
    int32_t imm;     /* IMM (signed) or UIMM */
    int32_t off;     /* branch offset in bytes */
} AscInsn;

extern const AscInsnInfo asc_insn_info[ASC_OP_COUNT];
extern const AscFmtInfo asc_fmt_info[ASC_FMT_COUNT];
extern const AscFieldKindInfo asc_field_kind_info[ASC_FK_COUNT];
extern const AscCfgField asc_cfg_fields[];
extern const unsigned asc_cfg_field_count;

/* Names; NULL for a value out of range. */
const char *asc_pipe_name(unsigned pipe);       /* "mte2" */
const char *asc_pipe_lane(unsigned pipe);       /* "MTE2" */
const char *asc_dtype_name(unsigned dt);        /* "f16" */
unsigned asc_dtype_size(unsigned dt);
bool asc_dtype_is_float(unsigned dt);
bool asc_dtype_is_signed(unsigned dt);
const char *asc_spr_name(unsigned spr);
bool asc_spr_writable(unsigned spr);
const char *asc_cond_name(unsigned cond);
const char *asc_rnd_name(unsigned rnd);
/* Whether instruction `op` takes rounding mode `rnd` (its F_RND* flags); true for every mode
 * when op has no rounding field.  asc_insn_rnds writes the legal names, comma-separated. */
bool asc_insn_rnd_ok(unsigned op, unsigned rnd);
void asc_insn_rnds(unsigned op, char *buf, size_t size);
/* Type pairs of the pair-operand conversions vconv.x and cvt (asc_enums.def ASC_CVP): name,
 * source and destination types, the instruction that takes it (asc_cvp_op), and whether the pair
 * takes rounding mode rnd; asc_cvp_rnds as asc_insn_rnds.  An instruction's own
 * rounding check, by its pair when it has one: asc_rnd_ok. */
const char *asc_cvp_name(unsigned cvp);
unsigned asc_cvp_src(unsigned cvp);
unsigned asc_cvp_dst(unsigned cvp);
unsigned asc_cvp_op(unsigned cvp);
bool asc_cvp_rnd_ok(unsigned cvp, unsigned rnd);
void asc_cvp_rnds(unsigned cvp, char *buf, size_t size);
int asc_cvp_lookup(const char *name, size_t len);
bool asc_insn_has_field(unsigned op, unsigned kind);
bool asc_rnd_ok(const AscInsn *in);
const char *asc_lat_key(unsigned lat);
const char *asc_cfg_layout_name(unsigned layout);

/* Lookups by name; return -1 when unknown. */
int asc_op_lookup(const char *mnemonic, size_t len);
int asc_pipe_lookup(const char *name, size_t len);
int asc_dtype_lookup(const char *name, size_t len);
int asc_spr_lookup(const char *name, size_t len);
int asc_cond_lookup(const char *name, size_t len);
int asc_rnd_lookup(const char *name, size_t len);

unsigned asc_fmt_nfields(AscFmt fmt);
uint32_t asc_fmt_field_mask(AscFmt fmt); /* bits covered by the format's fields */

/* Field access by kind (the one place that maps kinds to AscInsn members). */
int64_t asc_insn_get(const AscInsn *in, AscFieldKind k);
void asc_insn_set(AscInsn *in, AscFieldKind k, int64_t v);

/* The range a field of this format accepts, in operand units (bytes for
 * offsets, bits for shifts).  Returns the step too (4 for offsets). */
void asc_field_range(const AscField *f, int64_t *lo, int64_t *hi, int64_t *step);

/* Encode a decoded instruction.  Returns false when a field value does not
 * fit (the assembler checks ranges first, so this is a programming error
 * there, and a reported error here). */
bool asc_encode(const AscInsn *in, uint32_t *word);

/* Decode one word.  On failure returns false and, when `why` is not NULL,
 * a static string naming the rule the word breaks. */
bool asc_decode(uint32_t word, AscInsn *out, const char **why);

/* Print the canonical form "vadd.f16 x1, x2, x3, x4".  Branch targets print
 * as a byte offset ".+8" / ".-12" unless `target_label` gives a name.
 * Returns the length that the full text needs (snprintf semantics). */
int asc_insn_print(const AscInsn *in, char *buf, size_t size);

/* Bit mask and match of an instruction: a word w is this instruction iff
 * (w & mask) == match (reserved bits are part of the mask). */
uint32_t asc_insn_mask(AscOp op);
uint32_t asc_insn_match(AscOp op);

/* The config register value of a layout with every key at its default. */
uint64_t asc_cfg_pack_default(AscCfgLayout layout);
/* Set value `v` of key index `field` (into asc_cfg_fields), slot `slot`.
 * Returns false when v does not fit the field's width. */
bool asc_cfg_set(uint64_t *cfg, unsigned field, unsigned slot, uint64_t v);
uint64_t asc_cfg_get(uint64_t cfg, unsigned field, unsigned slot);
/* Index into asc_cfg_fields of `key` in `layout`, or -1. */
int asc_cfg_lookup(AscCfgLayout layout, const char *key, size_t len);
/* Bits of a layout that no key covers (must be zero). */
uint64_t asc_cfg_reserved_mask(AscCfgLayout layout);

#endif
