/* asm_insn.c -- instructions: operands parsed by walking the format's
 * syntax string from asc_fmt.def (the same string the printer uses, so
 * asc-objdump output reassembles), pseudo-instructions, named-field config
 * forms, and the target-aware checks.
 *
 * Users: asm.c calls asm_insn for every statement that is not a directive.
 *
 * Invariants: a table instruction always emits exactly one word, even when
 * an operand is wrong (0 then; the image is never written after an error),
 * so sizes never depend on semantic errors that only pass 2 can see.  The
 * size of li / la / named-field forms depends only on values known above
 * the statement (a forward reference gives the fixed 4-word li). */
#include <stdio.h>
#include <string.h>

#include "asc/target.h"
#include "asm_int.h"

/* Operands of one instruction as parsed, with the location of each field
 * for diagnostics. */
typedef struct Operands {
    AscInsn in;
    AscLoc loc[ASC_FK_COUNT];
    bool ok;          /* every operand parsed and in range */
    bool named;       /* the config register was given as key=value items */
    uint64_t packed;  /* named: the config value */
    bool packed_fwd;  /* named: uses a forward reference */
    AscLoc named_loc;
} Operands;

static const char *pipe_list = "s, v, m, mte1, mte2, mte3, all, mte4, mte5, v2, fix";

static void list_names(char *buf, size_t size, const char *(*name)(unsigned), unsigned n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && used < size; i++) {
        const char *s = name(i);
        if (!s) continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", s);
    }
}

/* reg := "x" ("0" | [1-9][0-9]?) | "at"      (value < 32) */
static bool parse_reg(Job *j, Lex *lx, uint8_t *r)
{
    Tok t = lx->t;
    char buf[80];
    if (t.kind != T_IDENT) {
        if (t.kind != T_ERR) {
            char d[90];
            snprintf(d, sizeof d, "%s%s%s", t.kind == T_EOL ? "" : "'", tok_str(&t, buf, sizeof buf),
                     t.kind == T_EOL ? "" : "'");
            job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &t), "a register (x0..x31)", d);
        }
        return false;
    }
    int v = -1;
    if (t.len == 2 && t.p[0] == 'a' && t.p[1] == 't') v = ASC_REG_AT;
    else if (t.len >= 2 && t.len <= 3 && t.p[0] == 'x' && t.p[1] >= '0' && t.p[1] <= '9' &&
             !(t.len == 3 && t.p[1] == '0')) {
        v = t.p[1] - '0';
        if (t.len == 3) v = t.p[2] >= '0' && t.p[2] <= '9' ? v * 10 + (t.p[2] - '0') : -1;
        if (v > 31) v = -1;
    }
    if (v < 0) {
        job_err(j, ASC_DIAG_BAD_REG, tok_loc(j, &t), tok_str(&t, buf, sizeof buf));
        return false;
    }
    *r = (uint8_t)v;
    lex_next(lx);
    return true;
}

/* A name from one of the small enums (pipe, spr, cond, rnd). */
static bool parse_name(Job *j, Lex *lx, const char *what, int (*lookup)(const char *, size_t), const char *allowed,
                       int *out)
{
    Tok t = lx->t;
    char buf[80], msg[200];
    int v = t.kind == T_IDENT ? lookup(t.p, t.len) : -1;
    if (v < 0) {
        if (t.kind == T_ERR) return false;
        snprintf(msg, sizeof msg, "%ss are %s", what, allowed);
        job_err(j, ASC_DIAG_BAD_OPERAND, tok_loc(j, &t), what, t.kind == T_EOL ? "" : tok_str(&t, buf, sizeof buf), msg);
        return false;
    }
    *out = v;
    lex_next(lx);
    return true;
}

static bool range_check(Job *j, const Val *x, const char *what, int64_t lo, int64_t hi)
{
    if (x->fwd && j->pass == 1) return true;
    if (x->v < lo || x->v > hi) {
        job_err(j, ASC_DIAG_IMM_RANGE, x->loc, what, (long long)lo, (long long)hi, (long long)x->v);
        return false;
    }
    return true;
}

/* ---- named config fields ----------------------------------------------------- */

/* What follows the ',' at the cursor: a new "key=" item, the last item of
 * the line, or another value. */
enum { NEXT_KEY, NEXT_LAST, NEXT_VALUE };
static int after_comma(Lex *lx)
{
    Lex s = *lx;
    s.quiet = true;
    lex_next(&s);
    Tok t1 = s.t;
    Tok t2 = lex_peek(&s);
    if (t1.kind == T_IDENT && t2.kind == T_PUNCT && t2.punct == '=') return NEXT_KEY;
    int depth = 0;
    while (s.t.kind != T_EOL && s.t.kind != T_ERR) {
        if (s.t.kind == T_PUNCT && s.t.punct == '(') depth++;
        if (s.t.kind == T_PUNCT && s.t.punct == ')') depth--;
        if (s.t.kind == T_PUNCT && s.t.punct == ',' && depth <= 0) return NEXT_VALUE;
        lex_next(&s);
    }
    return NEXT_LAST;
}

static void cfg_keys(AscCfgLayout layout, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < asc_cfg_field_count && used < size; i++)
        if (asc_cfg_fields[i].layout == layout)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", asc_cfg_fields[i].key);
}

/* named := item ("," item)*
 * item  := KEY "=" expr ("," expr)*     -- up to the key's count of values
 * When the format has an operand after the config register (vcmp's
 * condition, vconv's rounding mode), the last item of the line is that
 * operand and the cursor is left on the ',' before it. */
static bool parse_named(Job *j, Lex *lx, const AscInsnInfo *ii, bool trailing, Operands *o)
{
    AscCfgLayout layout = (AscCfgLayout)ii->cfg;
    uint64_t given[4] = {0}; /* bit per asc_cfg_fields index (< 256, test_isa_table checks) */
    bool ok = true;
    char buf[80], keys[200], what[80];
    o->packed = asc_cfg_pack_default(layout);
    o->named = true;
    uint32_t start_col = lx->t.col;
    for (;;) {
        Tok kt = lx->t;
        if (kt.kind != T_IDENT || lex_peek(lx).kind != T_PUNCT || lex_peek(lx).punct != '=') {
            if (kt.kind != T_ERR) {
                char d[90];
                snprintf(d, sizeof d, "%s", kt.kind == T_EOL ? "end of line" : tok_str(&kt, buf, sizeof buf));
                job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &kt), "a config field 'key=value'", d);
            }
            return false;
        }
        int f = asc_cfg_lookup(layout, kt.p, kt.len);
        lex_next(lx);
        lex_next(lx);
        if (f < 0) {
            cfg_keys(layout, keys, sizeof keys);
            job_err(j, ASC_DIAG_CFG_KEY, tok_loc(j, &kt), tok_str(&kt, buf, sizeof buf), ii->mnemonic, keys);
            ok = false;
        } else if (given[f / 64] & (1ull << (f % 64))) {
            job_err(j, ASC_DIAG_CFG_DUP, tok_loc(j, &kt), tok_str(&kt, buf, sizeof buf));
            ok = false;
        }
        if (f >= 0) given[f / 64] |= 1ull << (f % 64);
        const AscCfgField *cf = f >= 0 ? &asc_cfg_fields[f] : NULL;
        unsigned n = 0;
        for (;;) {
            Val x;
            if (!parse_expr(lx, &x)) return false;
            n++;
            if (x.fwd) o->packed_fwd = true;
            if (cf && n == (unsigned)cf->count + 1) {
                job_err(j, ASC_DIAG_CFG_COUNT, x.loc, cf->key, (unsigned)cf->count, n);
                ok = false;
            } else if (cf && n <= cf->count) {
                snprintf(what, sizeof what, "field '%s'", cf->key);
                int64_t hi = (int64_t)((1ull << cf->width) - 1);
                if (!range_check(j, &x, what, 0, hi)) ok = false;
                else if (!(x.fwd && j->pass == 1)) asc_cfg_set(&o->packed, (unsigned)f, n - 1, (uint64_t)x.v);
            }
            if (!lex_is(lx, ',')) break;
            int next = after_comma(lx);
            if (next == NEXT_KEY) break;
            if (next == NEXT_LAST && trailing) break;
            lex_next(lx);
        }
        if (!lex_is(lx, ',')) break;
        if (after_comma(lx) != NEXT_KEY) break; /* the trailing operand */
        lex_next(lx);
    }
    o->named_loc = job_loc(j, start_col, lx->t.col > start_col ? lx->t.col - start_col : 1);
    return ok;
}

/* ---- operands -------------------------------------------------------------- */

/* One operand of field kind `k` of format field `fd`.  `pc` is the address
 * of the word being assembled (branch offsets are relative to it). */
static bool parse_field(Job *j, Lex *lx, const AscField *fd, const AscInsnInfo *ii, uint32_t pc, Operands *o)
{
    AscFieldKind k = (AscFieldKind)fd->kind;
    uint32_t col = lx->t.col;
    int64_t lo, hi, step;
    asc_field_range(fd, &lo, &hi, &step);
    char all[200];
    Val x;
    int v;
    bool ok = true;
    switch (k) {
    case ASC_FK_RD:
    case ASC_FK_RS1:
    case ASC_FK_RS2:
    case ASC_FK_RS3: {
        uint8_t r;
        if (!parse_reg(j, lx, &r)) return false;
        asc_insn_set(&o->in, k, r);
        break;
    }
    case ASC_FK_SPR:
        list_names(all, sizeof all, asc_spr_name, ASC_SPR_COUNT);
        if (!parse_name(j, lx, "special register", asc_spr_lookup, all, &v)) return false;
        asc_insn_set(&o->in, k, v);
        break;
    case ASC_FK_PSRC:
    case ASC_FK_PDST:
    case ASC_FK_PIPE:
        if (!parse_name(j, lx, "pipe", asc_pipe_lookup, pipe_list, &v)) return false;
        asc_insn_set(&o->in, k, v);
        break;
    case ASC_FK_CVP:
    {
        Tok pt = lx->t;
        unsigned op = (unsigned)(ii - asc_insn_info);
        all[0] = '\0';
        for (unsigned c = 0, used = 0; c < ASC_CVP_COUNT; c++) /* this instruction's pairs */
            if (asc_cvp_op(c) == op && used < sizeof all)
                used += (unsigned)snprintf(all + used, sizeof all - used, "%s%s", used ? ", " : "", asc_cvp_name(c));
        if (!parse_name(j, lx, "type pair", asc_cvp_lookup, all, &v)) return false;
        if (asc_cvp_op((unsigned)v) != op) {
            char msg[260], buf[64];
            snprintf(msg, sizeof msg, "%s takes %s", ii->mnemonic, all);
            job_err(j, ASC_DIAG_BAD_OPERAND, tok_loc(j, &pt), "type pair", tok_str(&pt, buf, sizeof buf), msg);
            return false;
        }
        asc_insn_set(&o->in, k, v);
        break;
    }
    case ASC_FK_COND:
        list_names(all, sizeof all, asc_cond_name, ASC_COND_COUNT);
        if (!parse_name(j, lx, "condition", asc_cond_lookup, all, &v)) return false;
        asc_insn_set(&o->in, k, v);
        break;
    case ASC_FK_RND: {
        Tok rt = lx->t;
        unsigned op = (unsigned)(ii - asc_insn_info);
        list_names(all, sizeof all, asc_rnd_name, ASC_RND_COUNT);
        if (!parse_name(j, lx, "rounding mode", asc_rnd_lookup, all, &v)) return false;
        AscInsn t = o->in;
        t.rnd = (uint8_t)v;
        if (!asc_rnd_ok(&t)) {
            char msg[400], what[64];
            bool pair = asc_insn_has_field(op, ASC_FK_CVP);
            if (pair) asc_cvp_rnds(t.cvp, all, sizeof all);
            else asc_insn_rnds(op, all, sizeof all);
            snprintf(what, sizeof what, "%s%s%s", ii->mnemonic, pair ? " " : "", pair ? asc_cvp_name(t.cvp) : "");
            snprintf(msg, sizeof msg, "%s takes %s (Ascend C Cast on dav_c220; docs/isa.md)", what, all);
            job_err(j, ASC_DIAG_BAD_OPERAND, tok_loc(j, &rt), "rounding mode", asc_rnd_name((unsigned)v), msg);
            return false;
        }
        asc_insn_set(&o->in, k, v);
        break;
    }
    case ASC_FK_OFF: {
        if (!parse_expr(lx, &x)) return false;
        if (x.fwd && j->pass == 1) break;
        int64_t off;
        if (__builtin_sub_overflow(x.v, (int64_t)pc, &off)) off = x.v < 0 ? INT64_MIN : INT64_MAX; /* saturate */
        if (off < lo || off > hi) {
            job_err(j, ASC_DIAG_BRANCH_RANGE, x.loc, (long long)off, ii->mnemonic, (long long)lo, (long long)hi);
            ok = false;
        } else if (off % step) {
            job_err(j, ASC_DIAG_IMM_ALIGN, x.loc, "a branch offset", (unsigned)step, (long long)off);
            ok = false;
        } else {
            asc_insn_set(&o->in, k, off);
        }
        break;
    }
    case ASC_FK_HW:
        if (!parse_expr(lx, &x)) return false;
        if (!range_check(j, &x, "the shift", 0, 48)) ok = false;
        else if (x.v % 16) {
            job_err(j, ASC_DIAG_IMM_ALIGN, x.loc, "the shift (0, 16, 32 or 48)", 16u, (long long)x.v);
            ok = false;
        } else asc_insn_set(&o->in, k, x.v);
        break;
    default: {
        const char *what = k == ASC_FK_IMM ? "immediate" : k == ASC_FK_UIMM ? "a 16-bit chunk"
                         : k == ASC_FK_EVENT ? "event id" : k == ASC_FK_MODE ? "cross-core mode"
                         : "cross-core flag id";
        if (k == ASC_FK_MODE) hi = 2; /* 3 is not a mode */
        if (!parse_expr(lx, &x)) return false;
        if (!range_check(j, &x, what, lo, hi)) ok = false;
        else asc_insn_set(&o->in, k, x.v);
        break;
    }
    }
    uint32_t end = lx->t.col > col ? lx->t.col - col : 1;
    /* trim trailing spaces from the span */
    while (end > 1 && (j->line_text[col - 1 + end - 1] == ' ' || j->line_text[col - 1 + end - 1] == '\t')) end--;
    o->loc[k] = job_loc(j, col, end);
    return ok;
}

/* operands := walk of the syntax string: "%name" is an operand of that field
 * kind, spaces are optional, any other character must appear literally.
 * The config register (rs3 of R4/R4C, rs2 of R3/R3R) of an instruction with
 * a config layout may instead be a list of key=value items (parse_named). */
static bool parse_operands(Job *j, Lex *lx, AscOp op, const char *syn, uint32_t pc, bool allow_named, Operands *o)
{
    const AscInsnInfo *ii = &asc_insn_info[op];
    const AscFmtInfo *fi = &asc_fmt_info[ii->fmt];
    AscFieldKind cfg_kind = ASC_FK_COUNT;
    if (allow_named && ii->cfg != ASC_CFG_NONE)
        cfg_kind = (ii->fmt == ASC_FMT_R4 || ii->fmt == ASC_FMT_R4C) ? ASC_FK_RS3
                   : ii->fmt == ASC_FMT_R1                          ? ASC_FK_RS1 /* vnchwconv: the config alone */
                                                                    : ASC_FK_RS2;
    char buf[80];
    bool ok = true;
    o->in.op = (uint16_t)op;
    for (const char *p = syn; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (*p != '%') {
            if (!lex_is(lx, (unsigned char)*p)) {
                if (lx->t.kind != T_ERR) {
                    char want[8], d[90];
                    snprintf(want, sizeof want, "'%c'", *p);
                    snprintf(d, sizeof d, "%s%s%s", lx->t.kind == T_EOL ? "" : "'", tok_str(&lx->t, buf, sizeof buf),
                             lx->t.kind == T_EOL ? "" : "'");
                    job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &lx->t), want, d);
                }
                return false;
            }
            lex_next(lx);
            p++;
            continue;
        }
        const char *q = ++p;
        while ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')) q++;
        const AscField *fd = NULL;
        for (unsigned i = 0; i < asc_fmt_nfields((AscFmt)ii->fmt); i++)
            if (strlen(asc_field_kind_info[fi->fields[i].kind].name) == (size_t)(q - p) &&
                memcmp(asc_field_kind_info[fi->fields[i].kind].name, p, (size_t)(q - p)) == 0)
                fd = &fi->fields[i];
        p = q;
        if (!fd) { /* a pseudo's syntax names a field of a format the op does not have: a table bug */
            continue;
        }
        if (fd->kind == cfg_kind && lx->t.kind == T_IDENT && lex_peek(lx).kind == T_PUNCT && lex_peek(lx).punct == '=') {
            bool trailing = false;
            for (const char *r = p; *r; r++) trailing |= *r == '%';
            if (!parse_named(j, lx, ii, trailing, o)) ok = false;
            asc_insn_set(&o->in, (AscFieldKind)fd->kind, ASC_REG_AT);
            if (lx->t.kind == T_ERR) return false;
            continue;
        }
        if (!parse_field(j, lx, fd, ii, pc, o)) {
            ok = false;
            if (lx->t.kind == T_ERR) return false;
            /* an out-of-range value leaves the cursor after the operand: keep going */
            if (!(lex_is(lx, ',') || lex_is(lx, '(') || lex_is(lx, ')') || lx->t.kind == T_EOL)) return false;
        }
    }
    if (lx->t.kind != T_EOL) {
        if (lx->t.kind != T_ERR) {
            char d[90];
            snprintf(d, sizeof d, "'%s'", tok_str(&lx->t, buf, sizeof buf));
            job_err(j, ASC_DIAG_TRAILING, tok_loc(j, &lx->t), d);
        }
        return false;
    }
    return ok;
}

/* ---- target checks ----------------------------------------------------------- */

static AscCoreKind core_kind(Job *j)
{
    if (!j->cfg.v[ASC_KEY_SPLIT]) return ASC_CORE_COUPLED;
    const Kernel *k = &j->kernels[j->cur];
    if (k->info.kind == ASC_KERNEL_AIV) return ASC_CORE_AIV;
    if (k->info.kind == ASC_KERNEL_AIC) return ASC_CORE_AIC;
    return k->part == ASC_PART_AIC ? ASC_CORE_AIC : ASC_CORE_AIV;
}

static void check_insn(Job *j, const Operands *o, const Tok *mn)
{
    const AscInsn *in = &o->in;
    if (in->op == ASC_OP_MTSPR && !asc_spr_writable(in->spr))
        job_err(j, ASC_DIAG_SPR_READONLY, o->loc[ASC_FK_SPR], asc_spr_name(in->spr));
    if (!j->cfg_ok || j->pass != 2 || j->kernels[j->cur].any_kind) return;
    /* the target's rules: asc_target_check_insn decides, we place each
     * message under the operand it is about */
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    unsigned n = asc_target_check_insn(&j->cfg, core_kind(j), in, r);
    for (unsigned i = 0; i < n; i++) {
        AscLoc l = r[i].field == ASC_FK_COUNT ? tok_loc(j, mn) : o->loc[r[i].field];
        if (r[i].field == ASC_FK_PSRC) l.len = o->loc[ASC_FK_PDST].col + o->loc[ASC_FK_PDST].len - l.col;
        asc_target_rule_diag(&r[i], j->d, l);
    }
    uint32_t cap = j->d->max_errors ? j->d->max_errors : 50;
    if (j->d->nerrors > cap) j->stop = true;
}

/* ---- emission ------------------------------------------------------------- */

static uint32_t encode_or_zero(const AscInsn *in)
{
    uint32_t w = 0;
    return asc_encode(in, &w) ? w : 0;
}

static void emit_movw(Job *j, AscOp op, unsigned rd, unsigned chunk, unsigned shift, uint32_t col)
{
    AscInsn in = {.op = (uint16_t)op, .rd = (uint8_t)rd, .imm = (int32_t)chunk, .hw = (uint8_t)shift};
    emit_word(j, encode_or_zero(&in), col, true);
}

/* li: the shortest movz/movn + movk sequence (ties: movz), chunks low to
 * high; `fixed4` (a forward reference) always gives movz + 3 movk. */
void emit_li(Job *j, unsigned rd, uint64_t v, bool fixed4, uint32_t col)
{
    unsigned c[4], nz = 0, nf = 0;
    for (int i = 0; i < 4; i++) {
        c[i] = (unsigned)(v >> (16 * i)) & 0xffff;
        nz += c[i] != 0;
        nf += c[i] != 0xffff;
    }
    if (fixed4) {
        emit_movw(j, ASC_OP_MOVZ, rd, c[0], 0, col);
        for (int i = 1; i < 4; i++) emit_movw(j, ASC_OP_MOVK, rd, c[i], 16 * (unsigned)i, col);
        return;
    }
    bool use_z = (nz ? nz : 1) <= (nf ? nf : 1);
    unsigned skip = use_z ? 0 : 0xffff;
    int first = 0; /* the lowest chunk that is not `skip` (0 when all are) */
    while (first < 4 && c[first] == skip) first++;
    if (first == 4) first = 0;
    if (use_z) emit_movw(j, ASC_OP_MOVZ, rd, c[first], 16 * (unsigned)first, col);
    else emit_movw(j, ASC_OP_MOVN, rd, ~c[first] & 0xffff, 16 * (unsigned)first, col);
    for (int i = first + 1; i < 4; i++)
        if (c[i] != skip) emit_movw(j, ASC_OP_MOVK, rd, c[i], 16 * (unsigned)i, col);
}

static void warn_at(Job *j, const Operands *o)
{
    static const AscFieldKind regs[] = {ASC_FK_RD, ASC_FK_RS1, ASC_FK_RS2, ASC_FK_RS3};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        if (o->loc[regs[i]].line && asc_insn_get(&o->in, regs[i]) == ASC_REG_AT) {
            job_err(j, ASC_DIAG_AT_CLOBBER, o->loc[regs[i]]);
            return;
        }
}

/* ---- pseudo-instructions ---------------------------------------------------- */

typedef struct Pseudo {
    const char *name;
    AscOp op;         /* the real instruction */
    const char *syn;  /* operands of the pseudo */
    int kind;         /* how to expand */
} Pseudo;

enum { PS_LI, PS_MOV, PS_SWAP };

static const Pseudo pseudos[] = {
    {"li", ASC_OP_MOVZ, "%rd, <expr>", PS_LI},
    {"la", ASC_OP_MOVZ, "%rd, <label>", PS_LI},
    {"mov", ASC_OP_ADDI, "%rd, %rs1", PS_MOV},
    {"bgt", ASC_OP_BLT, "%rs1, %rs2, %off", PS_SWAP},
    {"ble", ASC_OP_BGE, "%rs1, %rs2, %off", PS_SWAP},
    {"bgtu", ASC_OP_BLTU, "%rs1, %rs2, %off", PS_SWAP},
    {"bleu", ASC_OP_BGEU, "%rs1, %rs2, %off", PS_SWAP},
};

/* li  xD, EXPR         la xD, EXPR
 * mov xD, xS           -> addi xD, xS, 0
 * bgt a, b, T          -> blt b, a, T      (ble -> bge, bgtu -> bltu, bleu -> bgeu) */
static void asm_pseudo(Job *j, Lex *lx, const Pseudo *ps, const Tok *mn)
{
    Operands o;
    memset(&o, 0, sizeof o);
    uint32_t col = mn->col;
    char buf[80];
    if (ps->kind == PS_LI) {
        uint8_t rd = 0;
        Val x = {0};
        bool ok = parse_reg(j, lx, &rd);
        if (ok && !lex_is(lx, ',')) {
            if (lx->t.kind != T_ERR) {
                char d[90];
                snprintf(d, sizeof d, "%s", lx->t.kind == T_EOL ? "end of line" : tok_str(&lx->t, buf, sizeof buf));
                job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &lx->t), "','", d);
            }
            ok = false;
        }
        if (ok) {
            lex_next(lx);
            ok = parse_expr(lx, &x);
        }
        if (ok && lx->t.kind != T_EOL) {
            if (lx->t.kind != T_ERR) {
                char d[90];
                snprintf(d, sizeof d, "'%s'", tok_str(&lx->t, buf, sizeof buf));
                job_err(j, ASC_DIAG_TRAILING, tok_loc(j, &lx->t), d);
            }
            ok = false;
        }
        if (!ok) {
            /* same size in both passes: a syntax error is in both; an
             * undefined symbol only in pass 2, where nothing is written */
            return;
        }
        emit_li(j, rd, (uint64_t)x.v, x.fwd, col);
        return;
    }
    bool ok = parse_operands(j, lx, ps->op, ps->syn, j->pc, false, &o);
    AscInsn in = o.in;
    if (ps->kind == PS_MOV) in.imm = 0;
    if (ps->kind == PS_SWAP) {
        in.rs1 = o.in.rs2;
        in.rs2 = o.in.rs1;
    }
    emit_word(j, ok ? encode_or_zero(&in) : 0, col, true);
}

/* ---- instructions ------------------------------------------------------------ */

/* insn := MNEMONIC operands      (operands: parse_operands) */
void asm_insn(Job *j, Lex *lx)
{
    Tok mn = lx->t;
    char buf[80];
    int op = asc_op_lookup(mn.p, mn.len);
    const Pseudo *ps = NULL;
    if (op < 0) {
        for (size_t i = 0; i < sizeof pseudos / sizeof pseudos[0]; i++)
            if (strlen(pseudos[i].name) == mn.len && memcmp(pseudos[i].name, mn.p, mn.len) == 0) ps = &pseudos[i];
        if (!ps) {
            job_err(j, ASC_DIAG_UNKNOWN_MNEMONIC, tok_loc(j, &mn), tok_str(&mn, buf, sizeof buf));
            return;
        }
    }
    if (!in_text_kernel(j, &mn)) return;
    lex_next(lx);
    if (ps) {
        asm_pseudo(j, lx, ps, &mn);
        return;
    }
    const AscInsnInfo *ii = &asc_insn_info[op];
    Operands o;
    memset(&o, 0, sizeof o);
    bool ok = parse_operands(j, lx, (AscOp)op, asc_fmt_info[ii->fmt].syntax, j->pc + 0, true, &o);
    if (o.named) {
        /* li x31, PACKED comes first, so a branch is never named: pc is right */
        emit_li(j, ASC_REG_AT, o.packed, o.packed_fwd, mn.col);
        if (ok) warn_at(j, &o);
    }
    if (ok && j->pass == 2) check_insn(j, &o, &mn);
    emit_word(j, ok ? encode_or_zero(&o.in) : 0, mn.col, true);
}
