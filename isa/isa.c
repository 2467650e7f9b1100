/* isa.c -- tables and encode / decode / print generated from the .def files.
 *
 * Invariants (checked by tests/unit/test_isa_table.c):
 *  - opcodes and mnemonics are unique;
 *  - a word decodes only if its opcode is known and every reserved bit of
 *    its format is zero, so decode(encode(x)) == x and encode(decode(w)) == w;
 *  - printing then parsing an instruction gives it back (asm/ tests). */
#include "asc/isa.h"

#include <stdio.h>
#include <string.h>

const AscInsnInfo asc_insn_info[ASC_OP_COUNT] = {
    [ASC_OP_INVALID] = {"INVALID", "<invalid>", 0, ASC_FMT_NONE, ASC_PIPE_S, ASC_LAT_NONE, "INVALID",
                        ASC_DT_NONE, ASC_DT_NONE, ASC_CFG_NONE, 0, "not an instruction"},
#define ASC_INSN(id, mn, opc, fmt, pipe, lat, fam, dt0, dt1, cfg, flags, sem)                     \
    [ASC_OP_##id] = {#id, mn, opc, ASC_FMT_##fmt, ASC_PIPE_##pipe, ASC_LAT_##lat, #fam, ASC_DT_##dt0, \
                     ASC_DT_##dt1, ASC_CFG_##cfg, flags, sem},
#include "asc_isa.def"
#undef ASC_INSN
};

const AscFmtInfo asc_fmt_info[ASC_FMT_COUNT] = {
#define F(k, lo, w) {ASC_FK_##k, lo, w}
#define F0 {0, 0, 0}
#define ASC_FMT(id, syn, a, b, c, d, e, where) \
    [ASC_FMT_##id] = {#id, syn, {a, b, c, d, e}, where},
#include "asc_fmt.def"
#undef ASC_FMT
#undef F
#undef F0
};

const AscFieldKindInfo asc_field_kind_info[ASC_FK_COUNT] = {
#define ASC_FK(id, name, sgn, scale, what) [ASC_FK_##id] = {name, sgn, scale, what},
#include "asc_fmt.def"
#undef ASC_FK
};

const AscCfgField asc_cfg_fields[] = {
#define ASC_CFGF(layout, key, lo, w, count, step, def, what) {ASC_CFG_##layout, key, lo, w, count, step, def, what},
#include "asc_cfg.def"
#undef ASC_CFGF
};
const unsigned asc_cfg_field_count = sizeof asc_cfg_fields / sizeof asc_cfg_fields[0];

static const char *const cfg_layout_names[ASC_CFG_COUNT] = {
#define ASC_CFG(id, what) #id,
#include "asc_cfg.def"
#undef ASC_CFG
};

/* ---- small name tables ------------------------------------------------- */

typedef struct NamedVal {
    const char *name;
    int val;
} NamedVal;

static const NamedVal pipes[] = {
#define ASC_PIPE(id, name, val, lane) {name, val},
#include "asc_enums.def"
#undef ASC_PIPE
};
static const char *const pipe_lanes[ASC_PIPE_COUNT] = {
#define ASC_PIPE(id, name, val, lane) [val] = lane,
#include "asc_enums.def"
#undef ASC_PIPE
};
static const struct {
    const char *name;
    unsigned size;
    bool isf, sgn;
} dtypes[ASC_DT_COUNT] = {
#define ASC_DTYPE(id, name, size, isf, sgn) [ASC_DT_##id] = {name, size, isf, sgn},
#include "asc_enums.def"
#undef ASC_DTYPE
};
static const struct {
    const char *name;
    bool writable;
} sprs[ASC_SPR_COUNT] = {
#define ASC_SPR(id, name, val, wr, what) [val] = {name, wr},
#include "asc_enums.def"
#undef ASC_SPR
};
static const char *const conds[ASC_COND_COUNT] = {
#define ASC_COND(id, name, val) [val] = name,
#include "asc_enums.def"
#undef ASC_COND
};
static const char *const rnds[ASC_RND_COUNT] = {
#define ASC_RND(id, name, val) [val] = name,
#include "asc_enums.def"
#undef ASC_RND
};
static const struct {
    const char *name;
    uint8_t src, dst;
    uint16_t op;
    uint32_t rnd;
} cvps[ASC_CVP_COUNT] = {
#define ASC_CVP(id, name, val, op, src, dst, rnd) [val] = {name, ASC_DT_##src, ASC_DT_##dst, ASC_OP_##op, rnd},
#include "asc_enums.def"
#undef ASC_CVP
};
static const char *const lat_keys[ASC_LAT_COUNT] = {
#define ASC_LAT(id, key, what) [ASC_LAT_##id] = key,
#include "asc_enums.def"
#undef ASC_LAT
};

const char *asc_pipe_name(unsigned pipe)
{
    for (size_t i = 0; i < sizeof pipes / sizeof pipes[0]; i++)
        if ((unsigned)pipes[i].val == pipe) return pipes[i].name;
    return NULL;
}
const char *asc_pipe_lane(unsigned pipe) { return pipe < ASC_PIPE_COUNT ? pipe_lanes[pipe] : NULL; }
const char *asc_dtype_name(unsigned dt) { return dt < ASC_DT_COUNT ? dtypes[dt].name : NULL; }
unsigned asc_dtype_size(unsigned dt) { return dt < ASC_DT_COUNT ? dtypes[dt].size : 0; }
bool asc_dtype_is_float(unsigned dt) { return dt < ASC_DT_COUNT && dtypes[dt].isf; }
bool asc_dtype_is_signed(unsigned dt) { return dt < ASC_DT_COUNT && dtypes[dt].sgn; }
const char *asc_spr_name(unsigned spr) { return spr < ASC_SPR_COUNT ? sprs[spr].name : NULL; }
bool asc_spr_writable(unsigned spr) { return spr < ASC_SPR_COUNT && sprs[spr].writable; }
const char *asc_cond_name(unsigned c) { return c < ASC_COND_COUNT ? conds[c] : NULL; }
const char *asc_rnd_name(unsigned r) { return r < ASC_RND_COUNT ? rnds[r] : NULL; }
const char *asc_cvp_name(unsigned c) { return c < ASC_CVP_COUNT ? cvps[c].name : NULL; }
unsigned asc_cvp_src(unsigned c) { return c < ASC_CVP_COUNT ? cvps[c].src : ASC_DT_NONE; }
unsigned asc_cvp_dst(unsigned c) { return c < ASC_CVP_COUNT ? cvps[c].dst : ASC_DT_NONE; }
unsigned asc_cvp_op(unsigned c) { return c < ASC_CVP_COUNT ? cvps[c].op : ASC_OP_INVALID; }
const char *asc_lat_key(unsigned lat) { return lat < ASC_LAT_COUNT ? lat_keys[lat] : NULL; }
const char *asc_cfg_layout_name(unsigned l) { return l < ASC_CFG_COUNT ? cfg_layout_names[l] : NULL; }

static bool name_eq(const char *a, const char *s, size_t len)
{
    return a && strlen(a) == len && memcmp(a, s, len) == 0;
}

int asc_op_lookup(const char *mn, size_t len)
{
    for (int op = 1; op < ASC_OP_COUNT; op++)
        if (name_eq(asc_insn_info[op].mnemonic, mn, len)) return op;
    return -1;
}
int asc_pipe_lookup(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof pipes / sizeof pipes[0]; i++)
        if (name_eq(pipes[i].name, s, len)) return pipes[i].val;
    return -1;
}
int asc_dtype_lookup(const char *s, size_t len)
{
    for (int i = 1; i < ASC_DT_COUNT; i++)
        if (name_eq(dtypes[i].name, s, len)) return i;
    return -1;
}
int asc_spr_lookup(const char *s, size_t len)
{
    for (int i = 0; i < ASC_SPR_COUNT; i++)
        if (name_eq(sprs[i].name, s, len)) return i;
    return -1;
}
int asc_cond_lookup(const char *s, size_t len)
{
    for (int i = 0; i < ASC_COND_COUNT; i++)
        if (name_eq(conds[i], s, len)) return i;
    return -1;
}
int asc_cvp_lookup(const char *s, size_t len)
{
    for (int i = 0; i < ASC_CVP_COUNT; i++)
        if (name_eq(cvps[i].name, s, len)) return i;
    return -1;
}
int asc_rnd_lookup(const char *s, size_t len)
{
    for (int i = 0; i < ASC_RND_COUNT; i++)
        if (name_eq(rnds[i], s, len)) return i;
    return -1;
}

bool asc_insn_has_field(unsigned op, unsigned kind)
{
    if (op >= ASC_OP_COUNT) return false;
    const AscFmtInfo *f = &asc_fmt_info[asc_insn_info[op].fmt];
    for (unsigned i = 0; i < asc_fmt_nfields((AscFmt)asc_insn_info[op].fmt); i++)
        if (f->fields[i].kind == kind) return true;
    return false;
}

static bool flags_take(uint32_t fl, unsigned rnd)
{
    _Static_assert(ASC_RND_NONE == 0 && ASC_RND_ODD == 6 && F_RNDODD == F_RNDNONE << 6, "F_RND* follow ASC_RND");
    return rnd < ASC_RND_COUNT && ((fl >> rnd) & F_RNDNONE) != 0;
}

static void list_rnds(uint32_t fl, char *buf, size_t size)
{
    size_t used = 0;
    if (size) buf[0] = '\0';
    for (unsigned r = 0; r < ASC_RND_COUNT && used < size; r++)
        if (flags_take(fl, r)) used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", rnds[r]);
}

bool asc_insn_rnd_ok(unsigned op, unsigned rnd)
{
    if (op >= ASC_OP_COUNT || rnd >= ASC_RND_COUNT) return false;
    if (!asc_insn_has_field(op, ASC_FK_RND) || asc_insn_has_field(op, ASC_FK_CVP)) return true;
    return flags_take(asc_insn_info[op].flags, rnd);
}

void asc_insn_rnds(unsigned op, char *buf, size_t size)
{
    list_rnds(op < ASC_OP_COUNT ? asc_insn_info[op].flags : 0, buf, size);
}

bool asc_cvp_rnd_ok(unsigned cvp, unsigned rnd) { return cvp < ASC_CVP_COUNT && flags_take(cvps[cvp].rnd, rnd); }

void asc_cvp_rnds(unsigned cvp, char *buf, size_t size) { list_rnds(cvp < ASC_CVP_COUNT ? cvps[cvp].rnd : 0, buf, size); }

bool asc_rnd_ok(const AscInsn *in)
{
    if (asc_insn_has_field(in->op, ASC_FK_CVP)) return asc_cvp_rnd_ok(in->cvp, in->rnd);
    return asc_insn_rnd_ok(in->op, in->rnd);
}

/* ---- fields -------------------------------------------------------------- */

int64_t asc_insn_get(const AscInsn *in, AscFieldKind k)
{
    switch (k) {
    case ASC_FK_RD: return in->rd;
    case ASC_FK_RS1: return in->rs1;
    case ASC_FK_RS2: return in->rs2;
    case ASC_FK_RS3: return in->rs3;
    case ASC_FK_IMM: return in->imm;
    case ASC_FK_UIMM: return in->imm;
    case ASC_FK_HW: return in->hw;
    case ASC_FK_OFF: return in->off;
    case ASC_FK_SPR: return in->spr;
    case ASC_FK_PSRC: return in->psrc;
    case ASC_FK_PDST: return in->pdst;
    case ASC_FK_PIPE: return in->pipe;
    case ASC_FK_EVENT: return in->event;
    case ASC_FK_COND: return in->cond;
    case ASC_FK_CVP: return in->cvp;
    case ASC_FK_RND: return in->rnd;
    case ASC_FK_MODE: return in->mode;
    case ASC_FK_XID: return in->xid;
    case ASC_FK_COUNT: break;
    }
    return 0;
}

void asc_insn_set(AscInsn *in, AscFieldKind k, int64_t v)
{
    switch (k) {
    case ASC_FK_RD: in->rd = (uint8_t)v; break;
    case ASC_FK_RS1: in->rs1 = (uint8_t)v; break;
    case ASC_FK_RS2: in->rs2 = (uint8_t)v; break;
    case ASC_FK_RS3: in->rs3 = (uint8_t)v; break;
    case ASC_FK_IMM: in->imm = (int32_t)v; break;
    case ASC_FK_UIMM: in->imm = (int32_t)v; break;
    case ASC_FK_HW: in->hw = (uint8_t)v; break;
    case ASC_FK_OFF: in->off = (int32_t)v; break;
    case ASC_FK_SPR: in->spr = (uint8_t)v; break;
    case ASC_FK_PSRC: in->psrc = (uint8_t)v; break;
    case ASC_FK_PDST: in->pdst = (uint8_t)v; break;
    case ASC_FK_PIPE: in->pipe = (uint8_t)v; break;
    case ASC_FK_EVENT: in->event = (uint8_t)v; break;
    case ASC_FK_COND: in->cond = (uint8_t)v; break;
    case ASC_FK_CVP: in->cvp = (uint8_t)v; break;
    case ASC_FK_RND: in->rnd = (uint8_t)v; break;
    case ASC_FK_MODE: in->mode = (uint8_t)v; break;
    case ASC_FK_XID: in->xid = (uint8_t)v; break;
    case ASC_FK_COUNT: break;
    }
}

static unsigned fmt_nfields(const AscFmtInfo *f)
{
    unsigned n = 0;
    while (n < ASC_MAX_FIELDS && f->fields[n].width) n++;
    return n;
}

static uint32_t fmt_field_mask(const AscFmtInfo *f)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < fmt_nfields(f); i++)
        m |= (uint32_t)(((1ull << f->fields[i].width) - 1) << f->fields[i].lo);
    return m;
}

unsigned asc_fmt_nfields(AscFmt fmt) { return fmt_nfields(&asc_fmt_info[fmt]); }
uint32_t asc_fmt_field_mask(AscFmt fmt) { return fmt_field_mask(&asc_fmt_info[fmt]); }

void asc_field_range(const AscField *f, int64_t *lo, int64_t *hi, int64_t *step)
{
    const AscFieldKindInfo *k = &asc_field_kind_info[f->kind];
    int64_t s = k->scale;
    if (k->is_signed) {
        *lo = -((int64_t)1 << (f->width - 1)) * s;
        *hi = (((int64_t)1 << (f->width - 1)) - 1) * s;
    } else {
        *lo = 0;
        *hi = (((int64_t)1 << f->width) - 1) * s;
    }
    *step = s;
}

bool asc_encode(const AscInsn *in, uint32_t *word)
{
    if (in->op == ASC_OP_INVALID || in->op >= ASC_OP_COUNT) return false;
    const AscInsnInfo *ii = &asc_insn_info[in->op];
    const AscFmtInfo *f = &asc_fmt_info[ii->fmt];
    uint32_t w = (uint32_t)ii->opcode << ASC_OPCODE_SHIFT;
    for (unsigned i = 0; i < fmt_nfields(f); i++) {
        const AscField *fd = &f->fields[i];
        int64_t v = asc_insn_get(in, (AscFieldKind)fd->kind), lo, hi, step;
        asc_field_range(fd, &lo, &hi, &step);
        if (v < lo || v > hi || v % step != 0) return false;
        uint32_t raw = (uint32_t)((uint64_t)(v / step) & ((1ull << fd->width) - 1));
        w |= raw << fd->lo;
    }
    *word = w;
    return true;
}

/* Opcode -> op, built by a linear scan: the table is small and decoding
 * happens once per word at load time, never in the simulator's step loop. */
static AscOp op_for_opcode(uint8_t opcode)
{
    for (int op = 1; op < ASC_OP_COUNT; op++)
        if (asc_insn_info[op].opcode == opcode) return (AscOp)op;
    return ASC_OP_INVALID;
}

bool asc_decode(uint32_t word, AscInsn *out, const char **why)
{
    AscInsn in;
    memset(&in, 0, sizeof in);
    AscOp op = op_for_opcode((uint8_t)(word >> ASC_OPCODE_SHIFT));
    if (op == ASC_OP_INVALID) {
        if (why) *why = "unknown opcode";
        return false;
    }
    const AscFmtInfo *f = &asc_fmt_info[asc_insn_info[op].fmt];
    if (word & ~(fmt_field_mask(f) | 0xff000000u)) {
        if (why) *why = "reserved bits are not zero";
        return false;
    }
    in.op = (uint16_t)op;
    for (unsigned i = 0; i < fmt_nfields(f); i++) {
        const AscField *fd = &f->fields[i];
        const AscFieldKindInfo *k = &asc_field_kind_info[fd->kind];
        uint64_t raw = (word >> fd->lo) & ((1ull << fd->width) - 1);
        int64_t v = (int64_t)raw;
        if (k->is_signed && (raw >> (fd->width - 1)))
            v -= (int64_t)1 << fd->width;
        asc_insn_set(&in, (AscFieldKind)fd->kind, v * k->scale);
    }
    /* Enumerated fields must name a value that exists. */
    for (unsigned i = 0; i < fmt_nfields(f); i++) {
        AscFieldKind k = (AscFieldKind)f->fields[i].kind;
        int64_t v = asc_insn_get(&in, k);
        const char *bad = NULL;
        if ((k == ASC_FK_PSRC || k == ASC_FK_PDST || k == ASC_FK_PIPE) && !asc_pipe_name((unsigned)v))
            bad = "pipe field names no pipe";
        else if (k == ASC_FK_SPR && !asc_spr_name((unsigned)v))
            bad = "special register field names no register";
        else if (k == ASC_FK_COND && !asc_cond_name((unsigned)v))
            bad = "condition field names no condition";
        else if (k == ASC_FK_RND && !asc_rnd_name((unsigned)v))
            bad = "rounding field names no rounding mode";
        else if (k == ASC_FK_CVP && !asc_cvp_name((unsigned)v))
            bad = "pair field names no conversion type pair";
        else if (k == ASC_FK_CVP && asc_cvp_op((unsigned)v) != (unsigned)op)
            bad = "type pair is not one this instruction takes (docs/isa.md)";
        else if (k == ASC_FK_RND && !asc_rnd_ok(&in))
            bad = "rounding mode is not one this instruction takes (docs/isa.md)";
        else if (k == ASC_FK_MODE && v > 2)
            bad = "cross-core mode must be 0, 1 or 2";
        if (bad) {
            if (why) *why = bad;
            return false;
        }
    }
    *out = in;
    return true;
}

uint32_t asc_insn_mask(AscOp op)
{
    const AscFmtInfo *f = &asc_fmt_info[asc_insn_info[op].fmt];
    return ~fmt_field_mask(f);
}

uint32_t asc_insn_match(AscOp op) { return (uint32_t)asc_insn_info[op].opcode << ASC_OPCODE_SHIFT; }

/* ---- printing ------------------------------------------------------------ */

static int print_field(const AscInsn *in, AscFieldKind k, char *buf, size_t size)
{
    int64_t v = asc_insn_get(in, k);
    switch (k) {
    case ASC_FK_RD:
    case ASC_FK_RS1:
    case ASC_FK_RS2:
    case ASC_FK_RS3: return snprintf(buf, size, "x%d", (int)v);
    case ASC_FK_IMM: return snprintf(buf, size, "%lld", (long long)v);
    case ASC_FK_UIMM: return snprintf(buf, size, "0x%llx", (unsigned long long)v);
    case ASC_FK_HW: return snprintf(buf, size, "%d", (int)v);
    case ASC_FK_OFF: return snprintf(buf, size, ".%+lld", (long long)v);
    case ASC_FK_SPR: return snprintf(buf, size, "%s", asc_spr_name((unsigned)v));
    case ASC_FK_PSRC:
    case ASC_FK_PDST:
    case ASC_FK_PIPE: return snprintf(buf, size, "%s", asc_pipe_name((unsigned)v));
    case ASC_FK_COND: return snprintf(buf, size, "%s", asc_cond_name((unsigned)v));
    case ASC_FK_CVP: return snprintf(buf, size, "%s", asc_cvp_name((unsigned)v));
    case ASC_FK_RND: return snprintf(buf, size, "%s", asc_rnd_name((unsigned)v));
    case ASC_FK_EVENT:
    case ASC_FK_MODE:
    case ASC_FK_XID: return snprintf(buf, size, "%d", (int)v);
    case ASC_FK_COUNT: break;
    }
    return 0;
}

int asc_insn_print(const AscInsn *in, char *buf, size_t size)
{
    if (in->op == ASC_OP_INVALID || in->op >= ASC_OP_COUNT) return snprintf(buf, size, "<invalid>");
    const AscInsnInfo *ii = &asc_insn_info[in->op];
    const char *syn = asc_fmt_info[ii->fmt].syntax;
    size_t n = 0;
    char tmp[64];
#define EMIT(s, len)                                                  \
    do {                                                              \
        for (size_t i_ = 0; i_ < (size_t)(len); i_++, n++)            \
            if (n + 1 < size) buf[n] = (s)[i_];                       \
    } while (0)
    EMIT(ii->mnemonic, strlen(ii->mnemonic));
    if (*syn) EMIT(" ", 1);
    for (const char *p = syn; *p;) {
        if (*p == '%') {
            const char *q = ++p;
            while ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')) q++;
            for (int k = 0; k < ASC_FK_COUNT; k++) {
                if (name_eq(asc_field_kind_info[k].name, p, (size_t)(q - p))) {
                    int len = print_field(in, (AscFieldKind)k, tmp, sizeof tmp);
                    EMIT(tmp, len);
                    break;
                }
            }
            p = q;
        } else {
            EMIT(p, 1);
            p++;
        }
    }
#undef EMIT
    if (size) buf[n < size ? n : size - 1] = '\0';
    return (int)n;
}

/* ---- config registers ---------------------------------------------------- */

int asc_cfg_lookup(AscCfgLayout layout, const char *key, size_t len)
{
    for (unsigned i = 0; i < asc_cfg_field_count; i++)
        if (asc_cfg_fields[i].layout == layout && name_eq(asc_cfg_fields[i].key, key, len)) return (int)i;
    return -1;
}

bool asc_cfg_set(uint64_t *cfg, unsigned field, unsigned slot, uint64_t v)
{
    const AscCfgField *f = &asc_cfg_fields[field];
    if (slot >= f->count) return false;
    uint64_t m = f->width == 64 ? ~0ull : ((1ull << f->width) - 1);
    if (v > m) return false;
    unsigned lo = f->lo + slot * f->step;
    *cfg = (*cfg & ~(m << lo)) | (v << lo);
    return true;
}

uint64_t asc_cfg_get(uint64_t cfg, unsigned field, unsigned slot)
{
    const AscCfgField *f = &asc_cfg_fields[field];
    uint64_t m = f->width == 64 ? ~0ull : ((1ull << f->width) - 1);
    return (cfg >> (f->lo + slot * f->step)) & m;
}

uint64_t asc_cfg_pack_default(AscCfgLayout layout)
{
    uint64_t cfg = 0;
    for (unsigned i = 0; i < asc_cfg_field_count; i++)
        if (asc_cfg_fields[i].layout == layout)
            for (unsigned s = 0; s < asc_cfg_fields[i].count; s++) asc_cfg_set(&cfg, i, s, asc_cfg_fields[i].def);
    return cfg;
}

/* The bits of one field (count copies, step apart; counts of 1..4, asserted
 * below), as a constant expression; the untaken arms are not evaluated. */
#define CFG_BITS(lo, w) ((w) >= 64 ? ~0ull : (((1ull << (w)) - 1) << (lo)))
#define CFG_FIELD(lo, w, n, st)                                                                      \
    (CFG_BITS(lo, w) | ((n) > 1 ? CFG_BITS((lo) + (st), w) : 0ull) | ((n) > 2 ? CFG_BITS((lo) + 2 * (st), w) : 0ull) | \
     ((n) > 3 ? CFG_BITS((lo) + 3 * (st), w) : 0ull))
#define ASC_CFGF(layout, key, lo, w, count, step, def, what) _Static_assert((count) >= 1 && (count) <= 4, key ": count 1..4");
#include "asc_cfg.def"
#undef ASC_CFGF

/* The used bits of `layout`: every term folds to a constant when layout is one
 * (asc_cfg_reserved_mask calls it once per layout, so the mask of every
 * instruction's check is a table lookup, not a walk over the field table). */
static inline __attribute__((always_inline)) uint64_t cfg_used(AscCfgLayout layout)
{
    return 0ull
#define ASC_CFGF(l, key, lo, w, count, step, def, what) | (layout == ASC_CFG_##l ? CFG_FIELD(lo, w, count, step) : 0ull)
#include "asc_cfg.def"
#undef ASC_CFGF
        ;
}

uint64_t asc_cfg_reserved_mask(AscCfgLayout layout)
{
    switch (layout) {
#define ASC_CFG(id, what) \
    case ASC_CFG_##id: return ASC_CFG_##id == ASC_CFG_NONE ? 0 : ~cfg_used(ASC_CFG_##id);
#include "asc_cfg.def"
#undef ASC_CFG
    default: return ~0ull;
    }
}
