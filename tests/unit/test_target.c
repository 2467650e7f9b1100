/* test_target.c -- asc_target_check_insn: every rule of include/asc/target.h,
 * legal and illegal, on each core kind (AIV and AIC of the split ascend910b,
 * the coupled core of ascend910), with the rule's arguments and its words. */
#include <check.h>
#include <string.h>

#include "asc/target.h"
#include "check_main.h"

typedef struct Targets {
    AscConfig split, coupled;
} Targets;

static Targets load(void)
{
    Targets t;
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_config_builtin(&t.split, "ascend910b", &d));
    ck_assert(asc_config_builtin(&t.coupled, "ascend910", &d));
    asc_diags_free(&d);
    return t;
}

static const AscConfig *cfg_of(const Targets *t, AscCoreKind k) { return k == ASC_CORE_COUPLED ? &t->coupled : &t->split; }

/* `in` is legal on core kind k. */
static void legal(const Targets *t, AscCoreKind k, AscInsn in)
{
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    unsigned n = asc_target_check_insn(cfg_of(t, k), k, &in, r);
    char text[200] = "";
    if (n) asc_target_rule_text(&r[0], text, sizeof text);
    ck_assert_msg(n == 0, "%s on %s: %s", asc_insn_info[in.op].mnemonic, asc_core_kind_name(k), text);
}

/* `in` breaks exactly rule `id` on core kind k, with message `want` (NULL:
 * not checked); returns the rule. */
static AscTargetRule illegal(const Targets *t, AscCoreKind k, AscInsn in, AscDiagId id, AscFieldKind field,
                             const char *want)
{
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    unsigned n = asc_target_check_insn(cfg_of(t, k), k, &in, r);
    ck_assert_msg(n == 1, "%s on %s: %u rules broken", asc_insn_info[in.op].mnemonic, asc_core_kind_name(k), n);
    ck_assert_str_eq(asc_diag_id_name(r[0].id), asc_diag_id_name(id));
    ck_assert_int_eq(r[0].field, field);
    ck_assert_int_eq(r[0].core, k);
    ck_assert_int_eq(r[0].op, in.op);
    ck_assert_str_eq(r[0].target, cfg_of(t, k)->name);
    char text[200];
    int len = asc_target_rule_text(&r[0], text, sizeof text);
    ck_assert_int_eq(len, (int)strlen(text));
    if (want) ck_assert_str_eq(text, want);
    return r[0];
}

#define INSN(o, ...) ((AscInsn){.op = ASC_OP_##o, __VA_ARGS__})
#define P(x) ASC_PIPE_##x

START_TEST(insn_core)
{
    Targets t = load();
    legal(&t, ASC_CORE_AIV, INSN(VADD_F16, .rd = 1));
    legal(&t, ASC_CORE_COUPLED, INSN(VADD_F16, .rd = 1));
    illegal(&t, ASC_CORE_AIC, INSN(VADD_F16, .rd = 1), ASC_DIAG_INSN_CORE, ASC_FK_COUNT,
            "'vadd.f16' is not available on AIC cores of target ascend910b");
    legal(&t, ASC_CORE_AIC, INSN(MMAD_F16F32));
    legal(&t, ASC_CORE_COUPLED, INSN(MMAD_F16F32));
    illegal(&t, ASC_CORE_AIV, INSN(MMAD_F16F32), ASC_DIAG_INSN_CORE, ASC_FK_COUNT,
            "'mmad.f16f32' is not available on AIV cores of target ascend910b");
    /* a pipe the core kind lacks: FIX on the coupled core, MTE1 on AIV */
    legal(&t, ASC_CORE_AIC, INSN(FIX_L0C_TO_OUT_F16));
    illegal(&t, ASC_CORE_COUPLED, INSN(FIX_L0C_TO_OUT_F16), ASC_DIAG_INSN_CORE, ASC_FK_COUNT,
            "'fix_l0c_to_out.f16' is not available on coupled cores of target ascend910");
    legal(&t, ASC_CORE_COUPLED, INSN(MOV_L1_TO_UB));
    illegal(&t, ASC_CORE_AIV, INSN(MOV_L1_TO_UB), ASC_DIAG_INSN_CORE, ASC_FK_COUNT, NULL);
    illegal(&t, ASC_CORE_AIC, INSN(MOV_L1_TO_UB), ASC_DIAG_INSN_CORE, ASC_FK_COUNT, NULL);
    /* scalar instructions run everywhere; an opcode outside the table nowhere */
    for (int k = ASC_CORE_AIV; k <= ASC_CORE_COUPLED; k++) {
        legal(&t, (AscCoreKind)k, INSN(ADD, .rd = 1, .rs1 = 2, .rs2 = 3));
        illegal(&t, (AscCoreKind)k, (AscInsn){.op = ASC_OP_COUNT}, ASC_DIAG_INSN_CORE, ASC_FK_COUNT, NULL);
    }
}
END_TEST

START_TEST(event_range)
{
    Targets t = load(); /* event_ids: 8 on ascend910b, 4 on ascend910 */
    legal(&t, ASC_CORE_AIV, INSN(SET_FLAG, .psrc = P(S), .pdst = P(V), .event = 7));
    AscTargetRule r = illegal(&t, ASC_CORE_AIV, INSN(SET_FLAG, .psrc = P(S), .pdst = P(V), .event = 8),
                              ASC_DIAG_EVENT_RANGE, ASC_FK_EVENT, "event id must be in the range [0, 7] for target ascend910b");
    ck_assert_uint_eq(r.value, 8);
    ck_assert_uint_eq(r.max, 7);
    legal(&t, ASC_CORE_AIC, INSN(WAIT_FLAG, .psrc = P(M), .pdst = P(FIX), .event = 7));
    illegal(&t, ASC_CORE_AIC, INSN(WAIT_FLAG, .psrc = P(M), .pdst = P(FIX), .event = 15), ASC_DIAG_EVENT_RANGE,
            ASC_FK_EVENT, NULL);
    legal(&t, ASC_CORE_COUPLED, INSN(SET_FLAG, .psrc = P(MTE2), .pdst = P(V), .event = 3));
    r = illegal(&t, ASC_CORE_COUPLED, INSN(SET_FLAG, .psrc = P(MTE2), .pdst = P(V), .event = 4), ASC_DIAG_EVENT_RANGE,
                ASC_FK_EVENT, "event id must be in the range [0, 3] for target ascend910");
    ck_assert_uint_eq(r.max, 3);
}
END_TEST

START_TEST(sync_pair)
{
    Targets t = load();
    legal(&t, ASC_CORE_AIV, INSN(SET_FLAG, .psrc = P(MTE2), .pdst = P(V)));
    AscTargetRule r = illegal(&t, ASC_CORE_AIV, INSN(SET_FLAG, .psrc = P(M), .pdst = P(V)), ASC_DIAG_SYNC_PAIR,
                              ASC_FK_PSRC, "m -> v is not a legal flag pair on AIV cores of target ascend910b");
    ck_assert_int_eq(r.pipe, P(M));
    ck_assert_int_eq(r.pipe2, P(V));
    legal(&t, ASC_CORE_AIC, INSN(WAIT_FLAG, .psrc = P(MTE1), .pdst = P(M)));
    illegal(&t, ASC_CORE_AIC, INSN(WAIT_FLAG, .psrc = P(S), .pdst = P(M)), ASC_DIAG_SYNC_PAIR, ASC_FK_PSRC,
            "s -> m is not a legal flag pair on AIC cores of target ascend910b");
    illegal(&t, ASC_CORE_AIC, INSN(SET_FLAG, .psrc = P(V), .pdst = P(MTE2)), ASC_DIAG_SYNC_PAIR, ASC_FK_PSRC, NULL);
    /* the table's "no application scenario yet" pairs exist; FIX -> S does not */
    legal(&t, ASC_CORE_AIC, INSN(SET_FLAG, .psrc = P(MTE2), .pdst = P(FIX)));
    legal(&t, ASC_CORE_AIC, INSN(WAIT_FLAG, .psrc = P(FIX), .pdst = P(MTE3)));
    illegal(&t, ASC_CORE_AIC, INSN(SET_FLAG, .psrc = P(FIX), .pdst = P(S)), ASC_DIAG_SYNC_PAIR, ASC_FK_PSRC,
            "fix -> s is not a legal flag pair on AIC cores of target ascend910b");
    /* coupled: any two distinct pipes the core has */
    legal(&t, ASC_CORE_COUPLED, INSN(SET_FLAG, .psrc = P(M), .pdst = P(V)));
    illegal(&t, ASC_CORE_COUPLED, INSN(SET_FLAG, .psrc = P(V), .pdst = P(V)), ASC_DIAG_SYNC_PAIR, ASC_FK_PSRC,
            "v -> v is not a legal flag pair on coupled cores of target ascend910");
    illegal(&t, ASC_CORE_COUPLED, INSN(SET_FLAG, .psrc = P(M), .pdst = P(FIX)), ASC_DIAG_SYNC_PAIR, ASC_FK_PSRC, NULL);
    /* a pipe number outside the pipe table (a hand-made binary) */
    illegal(&t, ASC_CORE_COUPLED, INSN(SET_FLAG, .psrc = 12, .pdst = P(V)), ASC_DIAG_SYNC_PAIR, ASC_FK_PSRC,
            "? -> v is not a legal flag pair on coupled cores of target ascend910");
    /* both flag rules at once, event range first */
    AscInsn in = INSN(SET_FLAG, .psrc = P(M), .pdst = P(V), .event = 8);
    AscTargetRule two[ASC_TARGET_MAX_BROKEN];
    ck_assert_uint_eq(asc_target_check_insn(&t.split, ASC_CORE_AIV, &in, two), 2);
    ck_assert_int_eq(two[0].id, ASC_DIAG_EVENT_RANGE);
    ck_assert_int_eq(two[1].id, ASC_DIAG_SYNC_PAIR);
}
END_TEST

START_TEST(bar)
{
    Targets t = load();
    for (int k = ASC_CORE_AIV; k <= ASC_CORE_COUPLED; k++) {
        legal(&t, (AscCoreKind)k, INSN(BAR, .pipe = P(ALL)));
        legal(&t, (AscCoreKind)k, INSN(BAR, .pipe = P(MTE2)));
        illegal(&t, (AscCoreKind)k, INSN(BAR, .pipe = P(S)), ASC_DIAG_BAR_SCALAR, ASC_FK_PIPE,
                "bar s is illegal on every core: the scalar pipe runs in order and has nothing to wait for "
                "(AscendC PipeBarrier<PIPE_S> raises a hardware error)");
    }
    legal(&t, ASC_CORE_AIV, INSN(BAR, .pipe = P(V)));
    AscTargetRule r = illegal(&t, ASC_CORE_AIV, INSN(BAR, .pipe = P(M)), ASC_DIAG_BAR_PIPE, ASC_FK_PIPE,
                              "bar m is illegal on AIV cores of target ascend910b: the core has no m pipe");
    ck_assert_int_eq(r.pipe, P(M));
    legal(&t, ASC_CORE_AIC, INSN(BAR, .pipe = P(FIX)));
    illegal(&t, ASC_CORE_AIC, INSN(BAR, .pipe = P(V)), ASC_DIAG_BAR_PIPE, ASC_FK_PIPE,
            "bar v is illegal on AIC cores of target ascend910b: the core has no v pipe");
    legal(&t, ASC_CORE_COUPLED, INSN(BAR, .pipe = P(M)));
    illegal(&t, ASC_CORE_COUPLED, INSN(BAR, .pipe = P(FIX)), ASC_DIAG_BAR_PIPE, ASC_FK_PIPE,
            "bar fix is illegal on coupled cores of target ascend910: the core has no fix pipe");
    illegal(&t, ASC_CORE_COUPLED, INSN(BAR, .pipe = 13), ASC_DIAG_BAR_PIPE, ASC_FK_PIPE, NULL);
}
END_TEST

START_TEST(pipe_core)
{
    Targets t = load();
    legal(&t, ASC_CORE_AIV, INSN(SET_CROSS_CORE, .pipe = P(MTE3)));
    AscTargetRule r = illegal(&t, ASC_CORE_AIV, INSN(SET_CROSS_CORE, .pipe = P(M)), ASC_DIAG_PIPE_CORE, ASC_FK_PIPE,
                              "'set_cross_core' runs on pipe m, which AIV cores of target ascend910b do not have");
    ck_assert_int_eq(r.pipe, P(M));
    legal(&t, ASC_CORE_AIC, INSN(SET_CROSS_CORE, .pipe = P(FIX)));
    illegal(&t, ASC_CORE_AIC, INSN(SET_CROSS_CORE, .pipe = P(V)), ASC_DIAG_PIPE_CORE, ASC_FK_PIPE, NULL);
    legal(&t, ASC_CORE_COUPLED, INSN(SET_CROSS_CORE, .pipe = P(MTE3)));
    illegal(&t, ASC_CORE_COUPLED, INSN(SET_CROSS_CORE, .pipe = P(FIX)), ASC_DIAG_PIPE_CORE, ASC_FK_PIPE, NULL);
    /* the increment is queued on one pipe: `all` names none */
    for (int k = ASC_CORE_AIV; k <= ASC_CORE_COUPLED; k++)
        illegal(&t, (AscCoreKind)k, INSN(SET_CROSS_CORE, .pipe = P(ALL)), ASC_DIAG_PIPE_CORE, ASC_FK_PIPE, NULL);
    /* wait_flag_dev runs on S and names no pipe */
    for (int k = ASC_CORE_AIV; k <= ASC_CORE_COUPLED; k++) legal(&t, (AscCoreKind)k, INSN(WAIT_FLAG_DEV, .xid = 3));
}
END_TEST

/* The diagnostic form records the same rule ID and the same words. */
START_TEST(diag_matches_text)
{
    Targets t = load();
    AscInsn in = INSN(SET_FLAG, .psrc = P(M), .pdst = P(V), .event = 9);
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    unsigned n = asc_target_check_insn(&t.split, ASC_CORE_AIV, &in, r);
    ck_assert_uint_eq(n, 2);
    AscDiags d;
    asc_diags_init(&d, NULL);
    AscLoc loc = {"k.s", 3, 9, 4};
    for (unsigned i = 0; i < n; i++) asc_target_rule_diag(&r[i], &d, loc);
    ck_assert_uint_eq(d.count, 2);
    ck_assert_uint_eq(d.nerrors, 2);
    for (unsigned i = 0; i < n; i++) {
        char text[200];
        asc_target_rule_text(&r[i], text, sizeof text);
        ck_assert_int_eq(d.items[i].id, r[i].id);
        ck_assert_str_eq(d.items[i].msg, text);
        ck_assert_uint_eq(d.items[i].loc.line, 3);
    }
    asc_diags_free(&d);
}
END_TEST

/* asc_target_check_op (the ctypes entry point) gives the rules and texts of
 * asc_target_check_insn for the same instruction. */
START_TEST(check_op_matches_insn)
{
    Targets t = load();
    char text[200], want[200];
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    AscInsn bar_s = INSN(BAR, .pipe = P(S));
    ck_assert_uint_eq(asc_target_check_insn(&t.split, ASC_CORE_AIV, &bar_s, r), 1);
    asc_target_rule_text(&r[0], want, sizeof want);
    ck_assert_int_eq(asc_target_check_op(&t.split, ASC_CORE_AIV, "bar", P(S), 0, 0, 0, text, sizeof text), 1);
    ck_assert_str_eq(text, want);
    ck_assert_int_eq(asc_target_check_op(&t.split, ASC_CORE_AIC, "bar", P(M), 0, 0, 0, text, sizeof text), 0);
    ck_assert_str_eq(text, "");
    AscInsn sf = INSN(SET_FLAG, .psrc = P(M), .pdst = P(V), .event = 9);
    ck_assert_uint_eq(asc_target_check_insn(&t.split, ASC_CORE_AIV, &sf, r), 2);
    asc_target_rule_text(&r[0], want, sizeof want);
    ck_assert_int_eq(asc_target_check_op(&t.split, ASC_CORE_AIV, "set_flag", 0, P(M), P(V), 9, text, sizeof text), 2);
    ck_assert_str_eq(text, want);
    ck_assert_int_eq(asc_target_check_op(&t.split, ASC_CORE_AIV, "nosuch", 0, 0, 0, 0, text, sizeof text), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("target");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, insn_core);
    tcase_add_test(tc, event_range);
    tcase_add_test(tc, sync_pair);
    tcase_add_test(tc, bar);
    tcase_add_test(tc, pipe_core);
    tcase_add_test(tc, diag_matches_text);
    tcase_add_test(tc, check_op_matches_insn);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
