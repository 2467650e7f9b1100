/* test_isa_table.c -- tests of the ISA table itself (Spike's opcode checks).
 *  - opcodes and mnemonics are unique;
 *  - no two encodings overlap: (ma & mb & (xa ^ xb)) != 0 for every pair;
 *  - every bit of every format is a field, the opcode, or reserved-zero, and
 *    fields do not overlap each other or the opcode;
 *  - for every instruction and many operand values, encode -> decode gives
 *    the instruction back and decode -> encode gives the word back;
 *  - reserved bits set make a word undecodable;
 *  - the checked-in docs/isa.md and python/pyasc/isa.json are current.
 * (encode -> decode -> print -> parse is in test_asm.c, which has the parser.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/isa.h"
#include "check_main.h"

START_TEST(opcodes_and_mnemonics_unique)
{
    for (int a = 1; a < ASC_OP_COUNT; a++)
        for (int b = a + 1; b < ASC_OP_COUNT; b++) {
            ck_assert_msg(asc_insn_info[a].opcode != asc_insn_info[b].opcode, "%s and %s share opcode 0x%02x",
                          asc_insn_info[a].mnemonic, asc_insn_info[b].mnemonic, asc_insn_info[a].opcode);
            ck_assert_msg(strcmp(asc_insn_info[a].mnemonic, asc_insn_info[b].mnemonic) != 0, "duplicate mnemonic %s",
                          asc_insn_info[a].mnemonic);
        }
    ck_assert_int_eq(asc_op_lookup("vadd.f16", 8), ASC_OP_VADD_F16);
    ck_assert_int_eq(asc_op_lookup("vadd", 4), -1);
}
END_TEST

START_TEST(no_overlapping_encodings)
{
    for (int a = 1; a < ASC_OP_COUNT; a++)
        for (int b = a + 1; b < ASC_OP_COUNT; b++) {
            uint32_t ma = asc_insn_mask((AscOp)a), mb = asc_insn_mask((AscOp)b);
            uint32_t xa = asc_insn_match((AscOp)a), xb = asc_insn_match((AscOp)b);
            ck_assert_msg((ma & mb & (xa ^ xb)) != 0, "%s and %s overlap", asc_insn_info[a].mnemonic,
                          asc_insn_info[b].mnemonic);
        }
}
END_TEST

START_TEST(every_bit_accounted_for)
{
    for (int i = 0; i < ASC_FMT_COUNT; i++) {
        const AscFmtInfo *f = &asc_fmt_info[i];
        uint32_t seen = 0xff000000u; /* opcode */
        for (unsigned k = 0; k < asc_fmt_nfields((AscFmt)i); k++) {
            const AscField *fd = &f->fields[k];
            ck_assert_msg(fd->lo + fd->width <= 24, "format %s field %u leaves [23:0]", f->name, k);
            uint32_t m = (uint32_t)(((1ull << fd->width) - 1) << fd->lo);
            ck_assert_msg((seen & m) == 0, "format %s: field %s overlaps another", f->name,
                          asc_field_kind_info[fd->kind].name);
            seen |= m;
            /* every field appears in the syntax, so it prints and parses */
            char tok[32];
            snprintf(tok, sizeof tok, "%%%s", asc_field_kind_info[fd->kind].name);
            ck_assert_msg(strstr(f->syntax, tok) != NULL, "format %s: field %s missing from syntax", f->name, tok);
        }
        /* the reserved bits are exactly the complement: mask covers opcode + reserved */
        ck_assert_uint_eq(seen | ~asc_fmt_field_mask((AscFmt)i), 0xffffffffu);
        ck_assert_uint_eq(seen & ~asc_fmt_field_mask((AscFmt)i), 0xff000000u);
    }
}
END_TEST

/* Deterministic pseudo-random values for fields (xorshift). */
static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A valid random value of field `fd`. */
static int64_t field_value(const AscField *fd, uint64_t *s)
{
    int64_t lo, hi, step;
    asc_field_range(fd, &lo, &hi, &step);
    switch (fd->kind) {
    case ASC_FK_PSRC:
    case ASC_FK_PDST:
    case ASC_FK_PIPE: return (int64_t)(rng(s) % ASC_PIPE_COUNT);
    case ASC_FK_SPR: { /* an assigned number (the numbering has gaps) */
        unsigned v = (unsigned)(rng(s) % ASC_SPR_COUNT);
        while (!asc_spr_name(v)) v = (v + 1) % ASC_SPR_COUNT;
        return (int64_t)v;
    }
    case ASC_FK_COND: return (int64_t)(rng(s) % ASC_COND_COUNT);
    case ASC_FK_RND: return (int64_t)(rng(s) % ASC_RND_COUNT);
    case ASC_FK_CVP: return (int64_t)(rng(s) % ASC_CVP_COUNT);
    case ASC_FK_MODE: return (int64_t)(rng(s) % 3);
    default: break;
    }
    int64_t n = (hi - lo) / step + 1;
    switch (rng(s) % 4) { /* favour the edges */
    case 0: return lo;
    case 1: return hi;
    default: return lo + (int64_t)(rng(s) % (uint64_t)n) * step;
    }
}

START_TEST(encode_decode_identity)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int op = 1; op < ASC_OP_COUNT; op++) {
        const AscFmtInfo *f = &asc_fmt_info[asc_insn_info[op].fmt];
        for (int trial = 0; trial < 200; trial++) {
            AscInsn in, out;
            memset(&in, 0, sizeof in);
            in.op = (uint16_t)op;
            for (unsigned k = 0; k < asc_fmt_nfields((AscFmt)asc_insn_info[op].fmt); k++)
                asc_insn_set(&in, (AscFieldKind)f->fields[k].kind, field_value(&f->fields[k], &s));
            while (asc_insn_has_field((unsigned)op, ASC_FK_CVP) && asc_cvp_op(in.cvp) != (unsigned)op)
                in.cvp = (uint8_t)((in.cvp + 1) % ASC_CVP_COUNT);
            while (!asc_rnd_ok(&in)) in.rnd = (uint8_t)((in.rnd + 1) % ASC_RND_COUNT);
            uint32_t w, w2;
            ck_assert_msg(asc_encode(&in, &w), "%s: encode failed", asc_insn_info[op].mnemonic);
            const char *why = NULL;
            ck_assert_msg(asc_decode(w, &out, &why), "%s: 0x%08x does not decode: %s", asc_insn_info[op].mnemonic, w,
                          why);
            ck_assert_msg(memcmp(&in, &out, sizeof in) == 0, "%s: decode(encode(x)) != x", asc_insn_info[op].mnemonic);
            ck_assert(asc_encode(&out, &w2));
            ck_assert_uint_eq(w, w2);
            char buf[128];
            int n = asc_insn_print(&out, buf, sizeof buf);
            ck_assert_int_gt(n, 0);
            ck_assert_int_lt(n, (int)sizeof buf);
            ck_assert_msg(strncmp(buf, asc_insn_info[op].mnemonic, strlen(asc_insn_info[op].mnemonic)) == 0, "%s", buf);
        }
    }
}
END_TEST

/* Every instruction with a rounding field takes some mode (its F_RND* flags), and the decoder
 * refuses the others: vconv.f16.f32 (exact) takes none only; cvt's pair f32.s32 takes rint, floor,
 * ceil and round (ScalarCast, kernel_scalar.h CastF322S32Impl), f32.f16 odd only; a pair of
 * another instruction is refused. */
START_TEST(rounding_modes_per_instruction)
{
    for (int op = 1; op < ASC_OP_COUNT; op++) {
        bool any = false;
        for (unsigned r = 0; r < ASC_RND_COUNT; r++) any |= asc_insn_rnd_ok((unsigned)op, r);
        ck_assert_msg(any, "%s takes no rounding mode", asc_insn_info[op].mnemonic);
    }
    AscInsn in = {.op = ASC_OP_VCONV_F16_F32, .rd = 1, .rs1 = 2, .rs2 = 3, .rnd = ASC_RND_RINT}, out;
    uint32_t w;
    const char *why = NULL;
    ck_assert(asc_encode(&in, &w));
    ck_assert(!asc_decode(w, &out, &why));
    ck_assert_str_eq(why, "rounding mode is not one this instruction takes (docs/isa.md)");
    in.rnd = ASC_RND_NONE;
    ck_assert(asc_encode(&in, &w) && asc_decode(w, &out, &why));
    ck_assert(!asc_cvp_rnd_ok(ASC_CVP_F32_S32, ASC_RND_NONE) && !asc_cvp_rnd_ok(ASC_CVP_F32_S32, ASC_RND_TRUNC));
    ck_assert(asc_cvp_rnd_ok(ASC_CVP_F32_S32, ASC_RND_ROUND) && !asc_cvp_rnd_ok(ASC_CVP_F32_F16, ASC_RND_RINT));
    AscInsn c = {.op = ASC_OP_CVT, .rd = 1, .rs1 = 2, .cvp = ASC_CVP_S64_F32, .rnd = ASC_RND_RINT};
    ck_assert(asc_encode(&c, &w));
    ck_assert(!asc_decode(w, &out, &why));
    ck_assert_str_eq(why, "type pair is not one this instruction takes (docs/isa.md)");
    c.cvp = ASC_CVP_F32_F16;
    ck_assert(asc_encode(&c, &w) && !asc_decode(w, &out, &why));
    c.rnd = ASC_RND_ODD;
    ck_assert(asc_encode(&c, &w) && asc_decode(w, &out, &why));
    ck_assert(asc_insn_rnd_ok(ASC_OP_VCONV_F32_F16, ASC_RND_ODD) && !asc_insn_rnd_ok(ASC_OP_VCONV_S32_F32, ASC_RND_ODD));
    char buf[64];
    asc_insn_rnds(ASC_OP_VCONV_S16_F16, buf, sizeof buf);
    ck_assert_str_eq(buf, "none, rint, floor, ceil, round, trunc");
}
END_TEST

START_TEST(reserved_bits_rejected)
{
    for (int op = 1; op < ASC_OP_COUNT; op++) {
        uint32_t reserved = ~asc_fmt_field_mask((AscFmt)asc_insn_info[op].fmt) & 0x00ffffffu;
        for (int bit = 0; bit < 24; bit++) {
            if (!(reserved & (1u << bit))) continue;
            AscInsn out;
            const char *why = NULL;
            uint32_t w = asc_insn_match((AscOp)op) | (1u << bit);
            ck_assert_msg(!asc_decode(w, &out, &why), "%s with reserved bit %d decoded", asc_insn_info[op].mnemonic, bit);
            ck_assert_str_eq(why, "reserved bits are not zero");
        }
    }
    AscInsn out;
    const char *why = NULL;
    ck_assert(!asc_decode(0x00000000u, &out, &why));
    ck_assert_str_eq(why, "unknown opcode");
    ck_assert(!asc_decode(0xff000000u, &out, &why));
}
END_TEST

START_TEST(encode_rejects_out_of_range)
{
    AscInsn in;
    uint32_t w;
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_ADDI;
    in.imm = 8191;
    ck_assert(asc_encode(&in, &w));
    in.imm = 8192;
    ck_assert(!asc_encode(&in, &w));
    in.imm = -8192;
    ck_assert(asc_encode(&in, &w));
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_BEQ;
    in.off = 6; /* not a multiple of 4 */
    ck_assert(!asc_encode(&in, &w));
    in.op = ASC_OP_MOVK;
    in.off = 0;
    in.hw = 8; /* shift must be a multiple of 16 */
    ck_assert(!asc_encode(&in, &w));
}
END_TEST

START_TEST(print_canonical_forms)
{
    AscInsn in;
    char buf[128];
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_VADD_F16;
    in.rd = 1, in.rs1 = 2, in.rs2 = 3, in.rs3 = 31;
    asc_insn_print(&in, buf, sizeof buf);
    ck_assert_str_eq(buf, "vadd.f16 x1, x2, x3, x31");
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_LD_W, in.rd = 4, in.rs1 = 5, in.imm = -8;
    asc_insn_print(&in, buf, sizeof buf);
    ck_assert_str_eq(buf, "ld.w x4, -8(x5)");
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_SET_FLAG, in.psrc = ASC_PIPE_MTE2, in.pdst = ASC_PIPE_V, in.event = 3;
    asc_insn_print(&in, buf, sizeof buf);
    ck_assert_str_eq(buf, "set_flag mte2, v, 3");
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_BNE, in.rs1 = 1, in.rs2 = 0, in.off = -12;
    asc_insn_print(&in, buf, sizeof buf);
    ck_assert_str_eq(buf, "bne x1, x0, .-12");
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_MOVK, in.rd = 7, in.imm = 0xbeef, in.hw = 48;
    asc_insn_print(&in, buf, sizeof buf);
    ck_assert_str_eq(buf, "movk x7, 0xbeef, 48");
    memset(&in, 0, sizeof in);
    in.op = ASC_OP_END;
    asc_insn_print(&in, buf, sizeof buf);
    ck_assert_str_eq(buf, "end");
    /* truncation keeps snprintf semantics */
    in.op = ASC_OP_VADD_F16;
    int n = asc_insn_print(&in, buf, 5);
    ck_assert_int_eq(n, (int)strlen("vadd.f16 x0, x0, x0, x0"));
    ck_assert_str_eq(buf, "vadd");
}
END_TEST

START_TEST(config_register_layouts)
{
    uint64_t c = asc_cfg_pack_default(ASC_CFG_VEC);
    /* blk 1,1,1; rep 8,8,8; repeat 1 */
    ck_assert_uint_eq(c, 0x0100080808010101ull);
    int rep = asc_cfg_lookup(ASC_CFG_VEC, "repeat", 6);
    ck_assert_int_ge(rep, 0);
    ck_assert(asc_cfg_set(&c, (unsigned)rep, 0, 255));
    ck_assert(!asc_cfg_set(&c, (unsigned)rep, 0, 256));
    ck_assert_uint_eq(asc_cfg_get(c, (unsigned)rep, 0), 255);
    ck_assert_uint_eq(asc_cfg_reserved_mask(ASC_CFG_VEC), 0x00f8000000000000ull); /* bit 48: vcmp `whole`, 49: vsel `cmpreg`, 50: vsel `sels` */
    /* the assembler keeps one bit per field index for duplicate keys (asm_insn.c parse_named) */
    ck_assert_uint_le(asc_cfg_field_count, 256);
    for (int l = 1; l < ASC_CFG_COUNT; l++) {
        /* keys of one layout never overlap */
        uint64_t seen = 0;
        for (unsigned i = 0; i < asc_cfg_field_count; i++) {
            const AscCfgField *f = &asc_cfg_fields[i];
            if (f->layout != l) continue;
            for (unsigned s = 0; s < f->count; s++) {
                ck_assert_uint_le(f->lo + s * f->step + f->width, 64);
                uint64_t m = ((1ull << f->width) - 1) << (f->lo + s * f->step);
                ck_assert_msg((seen & m) == 0, "layout %s key %s overlaps", asc_cfg_layout_name((unsigned)l), f->key);
                seen |= m;
            }
        }
    }
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = 0;
    *len = (size_t)n;
    return b;
}

static void assert_same_file(const char *generated, const char *checked_in)
{
    size_t la, lb;
    char *a = slurp(generated, &la), *b = slurp(checked_in, &lb);
    ck_assert_msg(a != NULL, "cannot read %s", generated);
    ck_assert_msg(b != NULL, "cannot read %s", checked_in);
    ck_assert_msg(la == lb && memcmp(a, b, la) == 0,
                  "%s is stale: it differs from the table's output %s; run scripts/regen.sh", checked_in, generated);
    free(a);
    free(b);
}

START_TEST(generated_docs_current)
{
    assert_same_file(ASC_BINARY_DIR "/isa.md", ASC_SOURCE_DIR "/docs/isa.md");
    assert_same_file(ASC_BINARY_DIR "/isa.json", ASC_SOURCE_DIR "/python/pyasc/isa.json");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("isa_table");
    TCase *tc = tcase_create("table");
    tcase_set_timeout(tc, 60); /* ~0.7 s of CPU; the 4 s default is too short on a loaded machine */
    tcase_add_test(tc, opcodes_and_mnemonics_unique);
    tcase_add_test(tc, no_overlapping_encodings);
    tcase_add_test(tc, every_bit_accounted_for);
    tcase_add_test(tc, encode_decode_identity);
    tcase_add_test(tc, reserved_bits_rejected);
    tcase_add_test(tc, rounding_modes_per_instruction);
    tcase_add_test(tc, encode_rejects_out_of_range);
    tcase_add_test(tc, print_canonical_forms);
    tcase_add_test(tc, config_register_layouts);
    tcase_add_test(tc, generated_docs_current);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
