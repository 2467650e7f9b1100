/* test_exec_vector.c -- every vector instruction against the independent
 * reference of exec_ref.h on random data, strides, masks and repeats, plus
 * rounding corner cases, vcmp/vsel, vbrcb, vtranspose, the UB bank model's
 * worked examples and every vector fault.
 *
 * Method: the whole UB is filled with random data, copied, the reference
 * runs on the copy and the simulator on the original; the two UB images
 * must be equal byte for byte (which also proves masked lanes and
 * everything outside the footprint untouched).  Exceptions: two NaNs
 * compare equal whatever their payload, and exp/ln/rsqrt may differ by one
 * ulp (their documented accuracy). */
#include <check.h>
#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#endif
#include <stdio.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "exec_ref.h"
#include "check_main.h"

typedef struct Env {
    AscConfig cfg;
    AscExecCtx ctx;
    uint8_t *ub, *ref;
    uint32_t ub_bytes;
    RefLog *rlog;
    uint64_t seed;
} Env;

static uint64_t rnd(Env *e)
{
    e->seed ^= e->seed >> 12;
    e->seed ^= e->seed << 25;
    e->seed ^= e->seed >> 27;
    return e->seed * 2685821657736338717ull;
}

static uint32_t rndn(Env *e, uint32_t n) { return (uint32_t)(rnd(e) % n); }

static void env_init(Env *e, const char *target)
{
    memset(e, 0, sizeof *e);
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_config_builtin(&e->cfg, target, &d));
    asc_diags_free(&d);
    e->ub_bytes = (uint32_t)(e->cfg.v[ASC_KEY_UB_BYTES] - e->cfg.v[ASC_KEY_UB_RESERVED_BYTES]);
    e->ub = calloc(e->ub_bytes, 1);
    e->ref = calloc(e->ub_bytes, 1);
    e->rlog = calloc(1, sizeof *e->rlog);
    e->ctx.cfg = &e->cfg;
    e->ctx.mem[ASC_BUF_UB] = (AscMem){e->ub, e->ub_bytes, (uint32_t)e->cfg.v[ASC_KEY_UB_ALIGN]};
    e->seed = 0x2545f4914f6cdd1dull;
}

static void env_free(Env *e)
{
    free(e->ub);
    free(e->ref);
    free(e->rlog);
}

typedef bool (*ExecFn)(AscExecCtx *, const AscIssued *, AscDtype, AscDtype, AscExecStats *);

static ExecFn fn_of(const char *fam)
{
    static const struct { const char *fam; ExecFn fn; } t[] = {
#define ASC_VFAM(fam, shape, dtypes, flops) {#fam, asc_exec_##fam},
#include "../../sim/asc_vfam.def"
#undef ASC_VFAM
        {"VTRANSPOSE", asc_exec_VTRANSPOSE},
        {"CMPMASK", asc_exec_CMPMASK},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].fam, fam)) return t[i].fn;
    return NULL;
}

static bool run(Env *e, const AscIssued *q, AscExecStats *st)
{
    const AscInsnInfo *ii = &asc_insn_info[q->in.op];
    ExecFn fn = fn_of(ii->fam);
    ck_assert_msg(fn != NULL, "no exec function for %s", ii->fam);
    memset(st, 0, sizeof *st);
    e->ctx.fault[0] = 0;
    return fn(&e->ctx, q, (AscDtype)ii->dt0, (AscDtype)ii->dt1, st);
}

static uint64_t vcfg(unsigned repeat, const unsigned blk[3], const unsigned rep[3])
{
    uint64_t c = (uint64_t)repeat << 56;
    for (int k = 0; k < 3; k++) c |= (uint64_t)blk[k] << (8 * k) | (uint64_t)rep[k] << (24 + 8 * k);
    return c;
}

/* Random element bits of type dt suited to family fam. */
static void rand_elem(Env *e, uint8_t *p, unsigned dt, const char *fam)
{
    if (!asc_dtype_is_float(dt)) {
        uint32_t v = (uint32_t)rnd(e);
        if (!strcmp(fam, "VCONV") && rndn(e, 2)) v = (uint32_t)(int32_t)(rndn(e, 600) - 300); /* near s8/u8 ranges */
        memcpy(p, &v, asc_dtype_size(dt));
        return;
    }
    double v;
    if (!strcmp(fam, "VEXP"))
        v = ((double)rndn(e, 20000) - 10000) / 1000.0;
    else if (!strcmp(fam, "VLN") || !strcmp(fam, "VSQRT") || !strcmp(fam, "VRSQRT"))
        v = ldexp(1.0 + rndn(e, 1000) / 1000.0, (int)rndn(e, 20) - 10) * (rndn(e, 16) ? 1 : -1);
    else if (!strcmp(fam, "VCONV"))
        v = ldexp((double)(int)(rndn(e, 2000000) - 1000000) / 1000.0, (int)rndn(e, 12) - 4);
    else
        v = ldexp((double)(int)(rndn(e, 20000) - 10000) / 1000.0, (int)rndn(e, 16) - 8);
    unsigned special = rndn(e, 64);
    if (special == 0) v = 0.0;
    if (special == 1) v = -0.0;
    if (special == 2) v = INFINITY;
    if (special == 3) v = NAN;
    if (special == 4) v = ldexp(1.0, -20); /* f16 subnormal */
    uint16_t h;
    float f;
    switch (dt) {
    case ASC_DT_F16: h = ref_to_half(v, 1); memcpy(p, &h, 2); break;
    case ASC_DT_BF16: h = ref_to_bf16(v, 1); memcpy(p, &h, 2); break;
    default: f = (float)v; memcpy(p, &f, 4); break;
    }
}

/* Random data of type dt over the whole UB: 8 KB of fresh elements, then
 * copies of it at random element offsets (cheap, still irregular). */
static void fill(Env *e, unsigned dt, const char *fam)
{
    unsigned size = asc_dtype_size(dt);
    uint8_t pool[8192];
    for (uint32_t a = 0; a < sizeof pool; a += size) rand_elem(e, pool + a, dt, fam);
    for (uint32_t a = 0; a < e->ub_bytes; a += 4096) {
        uint32_t off = rndn(e, 4096 / size) * size, n = e->ub_bytes - a < 4096 ? e->ub_bytes - a : 4096;
        memcpy(e->ub + a, pool + off, n);
    }
}

static bool is_nan_bits(const uint8_t *p, unsigned dt)
{
    uint16_t h;
    uint32_t w;
    switch (dt) {
    case ASC_DT_F16: memcpy(&h, p, 2); return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    case ASC_DT_BF16: memcpy(&h, p, 2); return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
    case ASC_DT_F32: memcpy(&w, p, 4); return (w & 0x7f800000u) == 0x7f800000u && (w & 0x7fffff);
    default: return false;
    }
}

static int64_t ulp_key(const uint8_t *p, unsigned dt)
{
    uint32_t w = 0;
    memcpy(&w, p, asc_dtype_size(dt));
    uint32_t bits = asc_dtype_size(dt) * 8;
    int64_t mag = w & ((1u << (bits - 1)) - 1);
    return (w >> (bits - 1)) & 1 ? -mag : mag;
}

/* Compare the simulator's UB with the reference's. */
static void compare(Env *e, const char *what, bool approx)
{
    for (unsigned k = 0; k < e->rlog->n; k++) {
        uint64_t a = e->rlog->e[k].addr;
        unsigned dt = e->rlog->e[k].dt, sz = asc_dtype_size(dt);
        if (!asc_dtype_is_float(dt)) continue;
        bool both_nan = is_nan_bits(e->ub + a, dt) && is_nan_bits(e->ref + a, dt);
        int64_t diff = ulp_key(e->ub + a, dt) - ulp_key(e->ref + a, dt);
        if (both_nan || (approx && diff >= -1 && diff <= 1)) memcpy(e->ref + a, e->ub + a, sz);
    }
    if (memcmp(e->ub, e->ref, e->ub_bytes) == 0) return;
    uint32_t off = 0;
    while (e->ub[off] == e->ref[off]) off++;
    uint32_t lo = off & ~3u;
    ck_abort_msg("%s: UB differs at 0x%x: sim %02x%02x%02x%02x ref %02x%02x%02x%02x", what, off, e->ub[lo + 3],
                 e->ub[lo + 2], e->ub[lo + 1], e->ub[lo], e->ref[lo + 3], e->ref[lo + 2], e->ref[lo + 1], e->ref[lo]);
}

/* Highest byte + 1 an operand of this shape can touch (all lanes active). */
static uint64_t span_lanes(unsigned R, unsigned lanes, unsigned size, unsigned blk, unsigned rep)
{
    uint64_t hi = 0;
    for (unsigned i = 0; i < lanes; i++) {
        uint64_t a = ref_addr(0, R - 1, i, size, blk, rep) + size;
        uint64_t b = ref_addr(0, 0, i, size, blk, rep) + size;
        if (a > hi) hi = a;
        if (b > hi) hi = b;
    }
    return hi;
}

#define REGION 47104u /* four regions: dst, src0, src1, cmpmask */

/* One random instance of `op`; variant picks the mask flavour. */
static void random_case_q(Env *e, AscOp op, unsigned variant, bool big_repeat, AscIssued *qout, AscExecStats *stout);

static void random_case(Env *e, AscOp op, unsigned variant, bool big_repeat)
{
    AscIssued q;
    AscExecStats st;
    random_case_q(e, op, variant, big_repeat, &q, &st);
}

/* One random instance of `op` (random_case), returning the instruction and its stats. */
static void random_case_q(Env *e, AscOp op, unsigned variant, bool big_repeat, AscIssued *qout, AscExecStats *stout)
{
    const AscInsnInfo *ii = &asc_insn_info[op];
    const char *fam = ii->fam;
    unsigned dt = ii->dt0, size = asc_dtype_size(dt);
    unsigned ddt = !strcmp(fam, "VCONV") ? ii->dt1 : dt, dsize = asc_dtype_size(ddt);
    unsigned lanes = 256 / (size > dsize ? size : dsize);
    bool reduce = !strcmp(fam, "VCADD") || !strcmp(fam, "VCMAX") || !strcmp(fam, "VCMIN");
    bool group = !strcmp(fam, "VCGADD") || !strcmp(fam, "VCGMAX") || !strcmp(fam, "VCGMIN") || !strcmp(fam, "VCPADD");
    unsigned gbytes = !strcmp(fam, "VCPADD") ? 128 : 8 * size; /* dst bytes of one repeat's group */
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = (uint16_t)op;
    unsigned blk[3], rep[3], R;
    for (int tries = 0;; tries++) {
        R = big_repeat ? 255 : 1 + rndn(e, 6);
        for (int k = 0; k < 3; k++) {
            blk[k] = rndn(e, 4) == 0 ? 0 : 1 + rndn(e, 3);
            rep[k] = big_repeat ? rndn(e, 6) : rndn(e, 18);
        }
        if (reduce) rep[0] = rndn(e, 3);
        uint64_t s0 = span_lanes(R, lanes, size, blk[1], rep[1]);
        uint64_t s1 = span_lanes(R, lanes, size, blk[2], rep[2]);
        uint64_t sd = reduce ? (uint64_t)(R - 1) * rep[0] * size + size
                      : group ? (uint64_t)R * (rep[0] + 1) * gbytes : span_lanes(R, lanes, dsize, blk[0], rep[0]);
        if (s0 + 4096 < REGION && s1 + 4096 < REGION && sd + 4096 < REGION) break;
        ck_assert(tries < 1000);
    }
    uint64_t cfg = vcfg(R, blk, rep);
    uint64_t rd = rndn(e, 128) * 32, rs1 = REGION + rndn(e, 128) * 32, rs2 = 2 * REGION + rndn(e, 128) * 32;
    q.mask0 = rnd(e);
    q.mask1 = rnd(e);
    switch (variant % 7) {
    case 0: q.mask0 = q.mask1 = ~0ull; break;                           /* full */
    case 1: {                                                           /* continuous n */
        unsigned n = 1 + rndn(e, lanes);
        q.mask0 = n >= 64 ? ~0ull : (1ull << n) - 1;
        q.mask1 = n >= 128 ? ~0ull : n > 64 ? (1ull << (n - 64)) - 1 : 0;
        break;
    }
    case 2: break;                                                      /* random bits with holes */
    case 3: q.mask0 = 1; q.mask1 = 0; break;                            /* continuous 1 */
    case 4: q.mask0 = ~0ull; q.mask1 = lanes == 128 ? ~0ull : rnd(e); break; /* 128 / 64 (mask1 ignored) */
    case 5: q.mask0 = 0; q.mask1 = 0; break;                            /* nothing active */
    default:                                                            /* counter mode */
        q.ctrl = 1ull << ASC_CTRL_COUNTER_BIT;
        q.mask0 = 1 + rndn(e, lanes * R);
        q.mask1 = rnd(e);
        break;
    }
    if ((!strcmp(fam, "VCMP") || !strcmp(fam, "VCMPS")) && rndn(e, 2)) cfg |= 1ull << 48; /* whole */
    if (!strcmp(fam, "VBRCB")) { /* src is 8*R contiguous elements */
        rs1 = REGION + rndn(e, 64) * 32;
    }
    /* operands by format */
    if (!strcmp(fam, "VDUP")) {
        q.rd = rd;
        q.rs1 = rnd(e);
        if (asc_dtype_is_float(dt)) {
            float f = (float)((double)(int)rndn(e, 20000) / 77.0 - 100);
            uint32_t u;
            memcpy(&u, &f, 4);
            q.rs1 = (rnd(e) << 32) | u;
        }
        q.rs2 = cfg;
    } else if (!strcmp(fam, "VADDS") || !strcmp(fam, "VMULS") || !strcmp(fam, "VMAXS") || !strcmp(fam, "VMINS") ||
               !strcmp(fam, "VLRELU") || !strcmp(fam, "VAXPY") || !strcmp(fam, "VCMPS") || !strcmp(fam, "VSHL") ||
               !strcmp(fam, "VSHR")) {
        q.rd = rd;
        q.rs1 = rs1;
        q.rs2 = rnd(e);
        if (!strcmp(fam, "VSHL") || !strcmp(fam, "VSHR")) /* mostly in range, sometimes the width or beyond */
            q.rs2 = rndn(e, 8) ? rndn(e, 8 * size + 1) : rnd(e);
        if (asc_dtype_is_float(dt)) {
            float f = (float)((double)(int)rndn(e, 20000) / 131.0 - 70);
            uint32_t u;
            memcpy(&u, &f, 4);
            q.rs2 = (rnd(e) << 32) | u;
        }
        q.rs3 = cfg;
        q.in.cond = (uint8_t)rndn(e, 6);
    } else if (!strcmp(fam, "VADD") || !strcmp(fam, "VSUB") || !strcmp(fam, "VMUL") || !strcmp(fam, "VMAX") ||
               !strcmp(fam, "VMIN") || !strcmp(fam, "VDIV") || !strcmp(fam, "VAND") || !strcmp(fam, "VOR") ||
               !strcmp(fam, "VCMP") || !strcmp(fam, "VSEL") || !strcmp(fam, "VADDRELU") || !strcmp(fam, "VSUBRELU") ||
               !strcmp(fam, "VMADD") || !strcmp(fam, "VMADDRELU") || !strcmp(fam, "VMLA")) {
        q.rd = rd;
        q.rs1 = rs1;
        q.rs2 = rs2;
        q.rs3 = cfg;
        q.in.cond = (uint8_t)rndn(e, 6);
        q.cmpmask = 3 * REGION + rndn(e, 64) * 32;
    } else {
        q.rd = rd;
        q.rs1 = rs1;
        q.rs2 = cfg;
        q.in.rnd = (uint8_t)rndn(e, 7);
    }
    fill(e, dt, fam);
    if (!strcmp(fam, "VSEL")) /* the mask region holds random bits */
        for (uint32_t a = 3 * REGION; a < e->ub_bytes; a++) e->ub[a] = (uint8_t)rnd(e);
    memcpy(e->ref, e->ub, e->ub_bytes);
    e->rlog->n = 0;
    ref_vec(e->ref, &q, e->rlog);
    AscExecStats st;
    char what[160];
    snprintf(what, sizeof what, "%s variant %u R %u blk %u,%u,%u rep %u,%u,%u mask %llx:%llx ctrl %llx rnd %u",
             ii->mnemonic, variant % 7, R, blk[0], blk[1], blk[2], rep[0], rep[1], rep[2],
             (unsigned long long)q.mask1, (unsigned long long)q.mask0, (unsigned long long)q.ctrl, q.in.rnd);
    ck_assert_msg(run(e, &q, &st), "%s: unexpected fault: %s", what, e->ctx.fault);
    bool approx = !strcmp(fam, "VEXP") || !strcmp(fam, "VLN") || !strcmp(fam, "VRSQRT");
    compare(e, what, approx);
    unsigned want_rep = q.ctrl && strcmp(fam, "VBRCB") ? (unsigned)((q.mask0 + lanes - 1) / lanes) : R;
    if (q.ctrl && (cfg >> 48) & 1) want_rep = (unsigned)(q.mask0 / lanes); /* vcmp whole: whole repeats */
    ck_assert_msg(st.repeats == want_rep, "%s: repeats %u, want %u", what, st.repeats, want_rep);
    ck_assert(st.beats >= st.repeats * (uint32_t)e->cfg.v[ASC_KEY_VEC_BASE_BEATS]);
    *qout = q;
    *stout = st;
}

/* Instruction q once more on fresh data (the instruction memo's plan, AscExecCtx.vec_plan, when
 * it was kept): the reference's UB, and the stats `want`. */
static void rerun_case(Env *e, const AscIssued *q, const AscExecStats *want, const char *what)
{
    const AscInsnInfo *ii = &asc_insn_info[q->in.op];
    fill(e, ii->dt0, ii->fam);
    if (!strcmp(ii->fam, "VSEL"))
        for (uint32_t a = 3 * REGION; a < e->ub_bytes; a++) e->ub[a] = (uint8_t)rnd(e);
    memcpy(e->ref, e->ub, e->ub_bytes);
    e->rlog->n = 0;
    ref_vec(e->ref, q, e->rlog);
    AscExecStats st;
    ck_assert_msg(run(e, q, &st), "%s %s: unexpected fault: %s", ii->mnemonic, what, e->ctx.fault);
    compare(e, what, !strcmp(ii->fam, "VEXP") || !strcmp(ii->fam, "VLN") || !strcmp(ii->fam, "VRSQRT"));
    if (want)
        ck_assert_msg(!memcmp(&st, want, sizeof st), "%s %s: stats differ from the first run (repeats %u/%u beats %u/%u bytes %llu/%llu)",
                      ii->mnemonic, what, st.repeats, want->repeats, st.beats, want->beats,
                      (unsigned long long)st.bytes, (unsigned long long)want->bytes);
}

static bool is_vector(AscOp op)
{
    const AscInsnInfo *ii = &asc_insn_info[op];
    /* the gathers have their own test (test_exec_vgather.c), ... */
    return (ii->flags & F_VEC) && strcmp(ii->fam, "VTRANSPOSE") != 0 && strcmp(ii->fam, "VGATHER") != 0 &&
           strcmp(ii->fam, "VGATHERB") != 0 && strcmp(ii->fam, "CMPMASK") != 0 && /* CMPMASK: cmpmask_reg below */
           strcmp(ii->fam, "VDEQ") != 0 && /* VDEQ: tests/python/test_regmodes.py against numpy */
           op != ASC_OP_VCONV_X && /* vconv.x (its types are its pair operand): tests/python/test_cast_modes.py */
           strcmp(ii->fam, "VADDDEQ") != 0 && /* vadddeqrelu: tests/python/test_add_deq_relu.py against numpy */
           strcmp(ii->fam, "VBITSORT") != 0 && strcmp(ii->fam, "VMRGSORT4") != 0 && /* and the sorts (test_exec_vsort.c) */
           strcmp(ii->fam, "VREDUCEV2") != 0 && /* vreducev2: tests/python/test_gather_mask.py */
           strcmp(ii->fam, "VNCHWCONV") != 0; /* vnchwconv: tests/python/test_trans_5hd.py */
}

START_TEST(every_op_random)
{
    Env e;
    env_init(&e, "ascend910b");
    unsigned ops = 0;
    for (int op = 1; op < ASC_OP_COUNT; op++) {
        if (!is_vector((AscOp)op)) continue;
        ops++;
        for (unsigned t = 0; t < 42; t++) random_case(&e, (AscOp)op, t, false);
    }
    ck_assert_uint_ge(ops, 90);
    env_free(&e);
}
END_TEST

/* The instruction memo (exec_vector.c, AscExecCtx.vec_plan) keeps plans, never data: every
 * vector instruction run twice at its pc on fresh data gives the reference's UB and the same
 * stats; then with one mask bit or CTRL's counter bit changed at the same pc (a
 * different plan) the reference's UB again. */
START_TEST(every_op_same_pc_twice)
{
    Env e;
    env_init(&e, "ascend910b");
    for (int op = 1; op < ASC_OP_COUNT; op++) {
        if (!is_vector((AscOp)op)) continue;
        for (unsigned t = 0; t < 14; t++) {
            AscIssued q;
            AscExecStats st;
            random_case_q(&e, (AscOp)op, t, false, &q, &st);
            rerun_case(&e, &q, &st, "again");
            AscIssued m = q;
            if (q.ctrl) /* counter mode: one element fewer (or one more after a single one) */
                m.mask0 = q.mask0 > 1 ? q.mask0 - 1 : 2;
            else
                m.mask0 ^= 1ull << rndn(&e, 64);
            rerun_case(&e, &m, NULL, "one mask bit flipped");
            AscIssued c = q;
            c.ctrl ^= 1ull << ASC_CTRL_COUNTER_BIT;
            if (c.ctrl) c.mask0 = 1 + rndn(&e, 64);
            rerun_case(&e, &c, NULL, "counter mode toggled");
            rerun_case(&e, &q, &st, "first form again");
        }
    }
    env_free(&e);
}
END_TEST

/* The f16 float families through F16C (exec_vector.c f16_as_f32, VJob.f16w) give the portable
 * path's bits exactly, NaN payloads included: every f16 value as src0 against random f16 bits
 * (a quarter of them NaNs or infinities) as src1 / the dst of vaxpy, once with ctx.f16c = -1
 * (portable) and once as the host decides. */
START_TEST(f16_wide_matches_portable)
{
    static const AscOp ops[] = {ASC_OP_VADD_F16, ASC_OP_VSUB_F16, ASC_OP_VMUL_F16, ASC_OP_VDIV_F16, ASC_OP_VMAX_F16,
                                ASC_OP_VMIN_F16, ASC_OP_VADDS_F16, ASC_OP_VMULS_F16, ASC_OP_VMAXS_F16,
                                ASC_OP_VMINS_F16, ASC_OP_VLRELU_F16, ASC_OP_VAXPY_F16, ASC_OP_VEXP_F16, ASC_OP_VLN_F16,
                                ASC_OP_VSQRT_F16, ASC_OP_VRSQRT_F16, ASC_OP_VREC_F16, ASC_OP_VRELU_F16};
    Env e[2];
    env_init(&e[0], "ascend910b");
    env_init(&e[1], "ascend910b");
    e[0].ctx.f16c = -1;
    const unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const char *fam = asc_insn_info[ops[k]].fam;
        bool unary = !strcmp(fam, "VEXP") || !strcmp(fam, "VLN") || !strcmp(fam, "VSQRT") || !strcmp(fam, "VRSQRT") ||
                     !strcmp(fam, "VREC") || !strcmp(fam, "VRELU");
        bool scalar = !strcmp(fam, "VADDS") || !strcmp(fam, "VMULS") || !strcmp(fam, "VMAXS") ||
                      !strcmp(fam, "VMINS") || !strcmp(fam, "VLRELU") || !strcmp(fam, "VAXPY");
        for (uint32_t part = 0; part < 4; part++) { /* 16384 src0 values per part, 128 repeats of 128 lanes */
            uint16_t *x = (uint16_t *)(e[1].ub + 32768), *y = (uint16_t *)(e[1].ub + 65536), *z = (uint16_t *)e[1].ub;
            for (uint32_t i = 0; i < 16384; i++) {
                x[i] = (uint16_t)(part * 16384 + i);
                uint16_t r = (uint16_t)rnd(&e[1]);
                y[i] = z[i] = rndn(&e[1], 4) ? r : (uint16_t)(0x7c00u | (r & 0x83ffu)); /* inf / NaN payloads */
            }
            memcpy(e[0].ub, e[1].ub, e[1].ub_bytes);
            AscIssued q;
            memset(&q, 0, sizeof q);
            q.in.op = (uint16_t)ops[k];
            q.mask0 = q.mask1 = ~0ull;
            q.rd = 0, q.rs1 = 32768;
            uint64_t cfg = vcfg(128, blk, rep);
            if (unary) q.rs2 = cfg;
            else if (scalar) q.rs2 = 0x3e8f5c29u, q.rs3 = cfg; /* 0.28 as f32 bits, rounded to f16 */
            else q.rs2 = 65536, q.rs3 = cfg;
            for (int t = 0; t < 2; t++) {
                AscExecStats st;
                ck_assert_msg(run(&e[t], &q, &st), "%s: %s", asc_insn_info[ops[k]].mnemonic, e[t].ctx.fault);
            }
            ck_assert_msg(!memcmp(e[0].ub, e[1].ub, e[1].ub_bytes), "%s part %u: F16C path differs from the portable one",
                          asc_insn_info[ops[k]].mnemonic, part);
        }
    }
#if defined(__GNUC__) && defined(__x86_64__)
    unsigned a, b, c, d; /* a host with F16C took it (its check against the portable conversions passed) */
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C)) ck_assert_int_eq(e[1].ctx.f16c, 1);
#endif
    env_free(&e[0]);
    env_free(&e[1]);
}
END_TEST

/* vexp.f32 gives the host expf's bits on every lane (exp_lanes_fma, where it is used,
 * must equal expf): 2^20 inputs stepping through every exponent and sign, the edges of
 * its fast range (|x| near 88, the underflow range near -104) and the specials. */
START_TEST(vexp_f32_is_host_expf)
{
    Env e;
    env_init(&e, "ascend910b");
    const uint32_t R = 64, N = R * 64;
    float edge[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 88.0f, -88.0f, 88.72283f, 88.72284f, -87.33654f,
                    -103.27893f, -103.97208f, -104.0f, 1e-45f, -1e-45f, 1e-30f, 0x1p-126f, 89.0f, -150.0f};
    for (uint32_t batch = 0; batch < 256; batch++) {
        for (uint32_t i = 0; i < N; i++) {
            uint32_t u = (batch * N + i) * 4093u; /* 2^20 inputs spread over all 2^32 patterns */
            float f;
            memcpy(&f, &u, 4);
            if (batch == 0 && i < sizeof edge / sizeof edge[0]) f = edge[i];
            if (batch == 1) f = 87.0f + (float)i / 1024.0f * (i & 1 ? 1 : -1) - (i & 2 ? 191.0f : 0.0f);
            memcpy(e.ub + i * 4, &f, 4);
        }
        AscIssued q;
        memset(&q, 0, sizeof q);
        q.in.op = ASC_OP_VEXP_F32;
        q.rd = 0x10000;
        q.rs1 = 0;
        q.mask0 = ~0ull;
        q.mask1 = ~0ull;
        unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
        q.rs2 = vcfg(R, blk, rep);
        AscExecStats st;
        ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
        for (uint32_t i = 0; i < N; i++) {
            float x, y, want;
            memcpy(&x, e.ub + i * 4, 4);
            memcpy(&y, e.ub + 0x10000 + i * 4, 4);
            want = expf(x);
            ck_assert_msg(!memcmp(&y, &want, 4), "vexp.f32(%a) = %a, expf gives %a", x, y, want);
        }
    }
    env_free(&e);
}
END_TEST

START_TEST(repeat_255)
{
    Env e;
    env_init(&e, "ascend910b");
    const AscOp ops[] = {ASC_OP_VADD_F16, ASC_OP_VADD_F32, ASC_OP_VMUL_S16, ASC_OP_VCADD_F32, ASC_OP_VCONV_F16_F32,
                         ASC_OP_VCMP_F16, ASC_OP_VSEL_F32, ASC_OP_VBRCB_B16, ASC_OP_VEXP_F16};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        for (unsigned t = 0; t < 7; t++) random_case(&e, ops[k], t, true);
    env_free(&e);
}
END_TEST

/* f16 rounding corners through vadd/vmul/vdiv: each lane a chosen pair. */
START_TEST(f16_corners)
{
    Env e;
    env_init(&e, "ascend910b");
    const uint16_t a[] = {0x3c00, 0x3c00, 0x7bff, 0x0001, 0x8000, 0x7e00, 0x7c00, 0x7c00, 0x0200, 0x3c01, 0xfbff,
                          0x0000, 0x03ff, 0x8001, 0x3555};
    const uint16_t b[] = {0x1000, 0x1400, 0x5000, 0x8001, 0x8000, 0x3c00, 0xfc00, 0x3c00, 0x0200, 0x0c00, 0xd000,
                          0x8000, 0x0001, 0x0001, 0x3555};
    const AscOp ops[] = {ASC_OP_VADD_F16, ASC_OP_VSUB_F16, ASC_OP_VMUL_F16, ASC_OP_VDIV_F16, ASC_OP_VMAX_F16,
                         ASC_OP_VMIN_F16};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        memset(e.ub, 0, e.ub_bytes);
        for (unsigned i = 0; i < 128; i++) {
            memcpy(e.ub + 0x1000 + i * 2, &a[i % 15], 2);
            memcpy(e.ub + 0x2000 + i * 2, &b[i % 15], 2);
        }
        AscIssued q;
        memset(&q, 0, sizeof q);
        q.in.op = (uint16_t)ops[k];
        q.rd = 0x3000;
        q.rs1 = 0x1000;
        q.rs2 = 0x2000;
        unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
        q.rs3 = vcfg(1, blk, rep);
        q.mask0 = q.mask1 = ~0ull;
        memcpy(e.ref, e.ub, e.ub_bytes);
        e.rlog->n = 0;
        ref_vec(e.ref, &q, e.rlog);
        AscExecStats st;
        ck_assert(run(&e, &q, &st));
        compare(&e, asc_insn_info[ops[k]].mnemonic, false);
    }
    /* named results of vadd.f16 */
    memset(e.ub, 0, e.ub_bytes);
    for (unsigned i = 0; i < 15; i++) {
        memcpy(e.ub + 0x1000 + i * 2, &a[i], 2);
        memcpy(e.ub + 0x2000 + i * 2, &b[i], 2);
    }
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VADD_F16;
    q.rd = 0x3000;
    q.rs1 = 0x1000;
    q.rs2 = 0x2000;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.rs3 = vcfg(1, blk, rep);
    q.mask0 = q.mask1 = ~0ull;
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    uint16_t out[15];
    memcpy(out, e.ub + 0x3000, sizeof out);
    ck_assert_uint_eq(out[0], 0x3c00); /* 1 + 2^-11: tie, to even (down) */
    ck_assert_uint_eq(out[1], 0x3c01); /* 1 + 2^-10 exact */
    ck_assert_uint_eq(out[2], 0x7c00); /* 65504 + 32: overflow to inf */
    ck_assert_uint_eq(out[3], 0x0000); /* x + -x = +0 */
    ck_assert_uint_eq(out[4], 0x8000); /* -0 + -0 = -0 */
    ck_assert_uint_eq(out[5] & 0x7e00, 0x7e00); /* NaN propagates */
    ck_assert_uint_eq(out[6] & 0x7e00, 0x7e00); /* inf - inf = NaN */
    ck_assert_uint_eq(out[8], 0x0400); /* subnormal + subnormal = smallest normal */
    ck_assert_uint_eq(out[12], 0x0400);
    env_free(&e);
}
END_TEST

START_TEST(cmp_then_sel)
{
    Env e;
    env_init(&e, "ascend910b");
    for (unsigned i = 0; i < 256; i++) {
        float x = (float)i, y = 100.0f;
        memcpy(e.ub + 0x0 + i * 4, &x, 4);
        memcpy(e.ub + 0x1000 + i * 4, &y, 4);
    }
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VCMP_F32;
    q.in.cond = ASC_COND_LT;
    q.rd = 0x4000;
    q.rs1 = 0x0;
    q.rs2 = 0x1000;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.rs3 = vcfg(4, blk, rep);
    q.mask0 = ~0ull;
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    /* x < 100 for lanes 0..99: bytes 0..11 all ones, byte 12 = 0x0f, rest 0 */
    for (unsigned k = 0; k < 32; k++) ck_assert_uint_eq(e.ub[0x4000 + k], k < 12 ? 0xff : k == 12 ? 0x0f : 0);
    q.in.op = ASC_OP_VSEL_F32;
    q.rd = 0x2000;
    q.cmpmask = 0x4000;
    ck_assert(run(&e, &q, &st));
    for (unsigned i = 0; i < 256; i++) {
        float v;
        memcpy(&v, e.ub + 0x2000 + i * 4, 4);
        ck_assert(v == (i < 100 ? (float)i : 100.0f));
    }
    /* counter mode vcmp: bits beyond N are written 0 */
    memset(e.ub + 0x4000, 0xee, 64);
    q.in.op = ASC_OP_VCMP_F32;
    q.rd = 0x4000;
    q.ctrl = 1ull << ASC_CTRL_COUNTER_BIT;
    q.mask0 = 70;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.repeats, 2);
    ck_assert_uint_eq(e.ub[0x4000 + 8], 0x3f); /* lanes 64..69 of repeat 1 */
    ck_assert_uint_eq(e.ub[0x4000 + 9], 0);
    ck_assert_uint_eq(e.ub[0x4000 + 16], 0xee); /* untouched beyond 2 repeats */
    env_free(&e);
}
END_TEST

/* vcmp/vcmps with the `whole` config bit (Ascend C Compare on dav_c220): the mask is ignored
 * and counter mode runs count / lanes whole repeats, each difference noted. */
START_TEST(cmp_whole)
{
    Env e;
    env_init(&e, "ascend910b");
    for (unsigned i = 0; i < 256; i++) {
        float x = (float)i, y = 100.0f;
        memcpy(e.ub + i * 4, &x, 4);
        memcpy(e.ub + 0x1000 + i * 4, &y, 4);
    }
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VCMP_F32;
    q.in.cond = ASC_COND_LT;
    q.rd = 0x4000;
    q.rs2 = 0x1000;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.rs3 = vcfg(2, blk, rep) | 1ull << 48;
    q.mask0 = 0xff; /* 8 of 64 lanes asked: all 64 compared */
    memset(e.ub + 0x4000, 0xee, 32);
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.note, ASC_NOTE_CMPMASK);
    ck_assert_uint_eq(st.note_a, 8);
    ck_assert_uint_eq(st.note_b, 64);
    for (unsigned k = 0; k < 16; k++) ck_assert_uint_eq(e.ub[0x4000 + k], k < 12 ? 0xff : k == 12 ? 0x0f : 0);
    ck_assert_uint_eq(e.ub[0x4000 + 16], 0xee);
    q.mask0 = ~0ull; /* a full mask: nothing to note */
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.note, 0);
    /* counter mode, 150 elements = 2 whole repeats of 64 and 22 not compared */
    memset(e.ub + 0x4000, 0xee, 32);
    q.ctrl = 1ull << ASC_CTRL_COUNTER_BIT;
    q.mask0 = 150;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.repeats, 2);
    ck_assert_uint_eq(st.note, ASC_NOTE_CMPCOUNT);
    ck_assert_uint_eq(st.note_a, 150);
    ck_assert_uint_eq(st.note_b, 128);
    ck_assert_uint_eq(e.ub[0x4000 + 15], 0);
    ck_assert_uint_eq(e.ub[0x4000 + 16], 0xee); /* the tail's bits are left as they were */
    /* fewer elements than a repeat: nothing is compared */
    q.mask0 = 63;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.note, ASC_NOTE_CMPCOUNT);
    ck_assert_uint_eq(st.note_b, 0);
    ck_assert_uint_eq(e.ub[0x4000 + 16], 0xee);
    /* vcmps the same way */
    q.in.op = ASC_OP_VCMPS_F32;
    float s = 10.0f;
    uint32_t sb;
    memcpy(&sb, &s, 4);
    q.rs2 = sb;
    q.mask0 = 64;
    memset(e.ub + 0x4000, 0xee, 32);
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.note, 0);
    ck_assert_uint_eq(e.ub[0x4000], 0xff);
    ck_assert_uint_eq(e.ub[0x4000 + 1], 0x03);
    ck_assert_uint_eq(e.ub[0x4000 + 8], 0xee);
    /* any other family with the bit faults */
    q.in.op = ASC_OP_VADD_F32;
    q.ctrl = 0;
    q.rs2 = 0x1000;
    q.rd = 0x8000;
    ck_assert(!run(&e, &q, &st));
    ck_assert_msg(strstr(e.ctx.fault, "whole") != NULL, "%s", e.ctx.fault);
    env_free(&e);
}
END_TEST

/* set_cmpmask / get_cmpmask and vsel by the CMPMASK register (config bit 49, cmpreg): the
 * register is a copy (a later write of its UB source changes nothing), every repeat selects by
 * the same bits, get_cmpmask stores exactly 16 bytes; cmpreg on another family faults. */
START_TEST(cmpmask_register)
{
    Env e;
    env_init(&e, "ascend910b");
    for (unsigned i = 0; i < 128; i++) {
        float x = (float)i, y = -1.0f - (float)i;
        memcpy(e.ub + i * 4, &x, 4);
        memcpy(e.ub + 0x1000 + i * 4, &y, 4);
    }
    for (unsigned k = 0; k < 16; k++) e.ub[0x3000 + k] = (uint8_t)(0x5a + 37 * k);
    AscIssued q;
    memset(&q, 0, sizeof q);
    AscExecStats st;
    q.in.op = ASC_OP_SET_CMPMASK;
    q.rs1 = 0x3000;
    ck_assert(run(&e, &q, &st));
    memset(e.ub + 0x3000, 0, 16); /* the register keeps its bits */
    q.in.op = ASC_OP_VSEL_F32;
    q.rd = 0x2000;
    q.rs1 = 0;
    q.rs2 = 0x1000;
    q.cmpmask = 0x3000; /* not read with cmpreg */
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.rs3 = vcfg(2, blk, rep) | 1ull << 49;
    q.mask0 = ~0ull;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.repeats, 2);
    for (unsigned i = 0; i < 128; i++) {
        unsigned l = i % 64;
        uint8_t byte = (uint8_t)(0x5a + 37 * (l / 8));
        float want = (byte >> (l % 8)) & 1 ? (float)i : -1.0f - (float)i, got;
        memcpy(&got, e.ub + 0x2000 + i * 4, 4);
        ck_assert_msg(got == want, "lane %u: %g, want %g", i, (double)got, (double)want);
    }
    memset(e.ub + 0x3100, 0xee, 32);
    q.in.op = ASC_OP_GET_CMPMASK;
    q.rs1 = 0x3100;
    ck_assert(run(&e, &q, &st));
    for (unsigned k = 0; k < 32; k++) ck_assert_uint_eq(e.ub[0x3100 + k], k < 16 ? (uint8_t)(0x5a + 37 * k) : 0xee);
    q.in.op = ASC_OP_VADD_F32;
    q.rs1 = 0;
    ck_assert(!run(&e, &q, &st));
    ck_assert_msg(strstr(e.ctx.fault, "cmpreg") != NULL, "%s", e.ctx.fault);
    /* config bit 50 (sels): src1 is the scalar in rs2 (Select mode VSEL_TENSOR_SCALAR_MODE), the
     * mask the UB bits at SPR cmpmask, lanes/8 bytes per repeat (repeat 1 reads 0x3008..0x300f) */
    for (unsigned k = 0; k < 16; k++) e.ub[0x3000 + k] = (uint8_t)(0x3c + 91 * k);
    float sv = -2.5f;
    uint32_t sb;
    memcpy(&sb, &sv, 4);
    q.in.op = ASC_OP_VSEL_F32;
    q.rd = 0x2000;
    q.rs1 = 0;
    q.rs2 = sb;
    q.cmpmask = 0x3000;
    q.rs3 = vcfg(2, blk, rep) | 1ull << 50;
    ck_assert(run(&e, &q, &st));
    for (unsigned i = 0; i < 128; i++) {
        uint8_t byte = (uint8_t)(0x3c + 91 * (i / 8));
        float want = (byte >> (i % 8)) & 1 ? (float)i : sv, got;
        memcpy(&got, e.ub + 0x2000 + i * 4, 4);
        ck_assert_msg(got == want, "sels lane %u: %g, want %g", i, (double)got, (double)want);
    }
    q.rs3 = vcfg(2, blk, rep) | 1ull << 50 | 1ull << 49;
    ck_assert(!run(&e, &q, &st));
    ck_assert_msg(strstr(e.ctx.fault, "exclude each other") != NULL, "%s", e.ctx.fault);
    q.in.op = ASC_OP_VADD_F32;
    q.rs2 = 0x1000;
    q.rs3 = vcfg(2, blk, rep) | 1ull << 50;
    ck_assert(!run(&e, &q, &st));
    ck_assert_msg(strstr(e.ctx.fault, "sels") != NULL, "%s", e.ctx.fault);
    env_free(&e);
}
END_TEST

/* vcgadd / vcpadd worked examples: Ascend C BlockReduceSum's [60000, 60000, -30000, 100] gives
 * 35584 in f16 (65504 kept after the overflowing first add); a block with no active lane is unchanged. */
START_TEST(group_reduce_examples)
{
    Env e;
    env_init(&e, "ascend910b");
    const float in[4] = {60000.0f, 60000.0f, -30000.0f, 100.0f};
    for (unsigned i = 0; i < 128; i++) {
        uint16_t h = asc_f32_to_f16(i < 4 ? in[i] : (float)i);
        memcpy(e.ub + i * 2, &h, 2);
    }
    memset(e.ub + 0x1000, 0x11, 64);
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VCGADD_F16;
    q.rd = 0x1000;
    q.rs1 = 0;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {1, 8, 8};
    q.rs2 = vcfg(1, blk, rep);
    q.mask0 = 0xf | (0x3ull << 32); /* block 0: lanes 0..3; block 2: lanes 32, 33; the rest nothing */
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    uint16_t out[8];
    memcpy(out, e.ub + 0x1000, 16);
    /* in f16: -30000 + 100 = -29904, 65504 - 29904 = 35600, a tie rounded to even: 35584 (the
     * documentation quotes the exact 35604) */
    ck_assert_float_eq(asc_f16_to_f32(out[0]), 35584.0f);
    ck_assert_uint_eq(out[1], 0x1111);
    ck_assert_float_eq(asc_f16_to_f32(out[2]), 65.0f);
    for (unsigned k = 3; k < 8; k++) ck_assert_uint_eq(out[k], 0x1111);
    ck_assert_uint_eq(e.ub[0x1000 + 16], 0x11);
    /* vcpadd: pair j = lanes 2j + 2j+1; 2 repeats, dst stride 1 = 128 B */
    q.in.op = ASC_OP_VCPADD_F16;
    q.rs2 = vcfg(2, blk, (unsigned[3]){1, 0, 0});
    q.mask0 = ~0ull;
    q.mask1 = ~0ull;
    ck_assert(run(&e, &q, &st));
    memcpy(out, e.ub + 0x1000 + 4, 4);
    ck_assert_float_eq(asc_f16_to_f32(out[0]), 9.0f); /* 4 + 5 */
    ck_assert_float_eq(asc_f16_to_f32(out[1]), 13.0f);
    ck_assert_uint_eq(st.repeats, 2);
    env_free(&e);
}
END_TEST

START_TEST(brcb_transpose_reduce)
{
    Env e;
    env_init(&e, "ascend910b");
    for (unsigned i = 0; i < 256; i++) {
        uint16_t v = (uint16_t)(i * 3 + 1);
        memcpy(e.ub + i * 2, &v, 2);
    }
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VBRCB_B16;
    q.rd = 0x1000;
    q.rs1 = 0;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.rs2 = vcfg(2, blk, rep);
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    for (unsigned r = 0; r < 2; r++)
        for (unsigned j = 0; j < 8; j++)
            for (unsigned k = 0; k < 16; k++) {
                uint16_t v;
                memcpy(&v, e.ub + 0x1000 + r * 256 + j * 32 + k * 2, 2);
                ck_assert_uint_eq(v, (8 * r + j) * 3 + 1);
            }
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VTRANSPOSE_B16;
    q.rd = 0x2000;
    q.rs1 = 0;
    ck_assert(run(&e, &q, &st));
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++) {
            uint16_t v;
            memcpy(&v, e.ub + 0x2000 + (c * 16 + r) * 2, 2);
            ck_assert_uint_eq(v, (r * 16 + c) * 3 + 1);
        }
    /* in place equals out of place */
    memcpy(e.ref, e.ub, e.ub_bytes);
    q.rd = 0;
    ck_assert(run(&e, &q, &st));
    ck_assert(memcmp(e.ub, e.ub + 0x2000, 512) == 0);
    /* vcadd.f16 pairwise tree: 1 + 2^-11 eight times ... sums f16-rounded after every add */
    for (unsigned i = 0; i < 128; i++) {
        uint16_t h = i < 3 ? 0x6400 /* 1024 */ : 0x3c00; /* 1.0 */
        memcpy(e.ub + 0x3000 + i * 2, &h, 2);
    }
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VCADD_F16;
    q.rd = 0x3800;
    q.rs1 = 0x3000;
    q.rs2 = vcfg(1, blk, rep);
    q.mask0 = 0x7; /* lanes 0..2: (1024 + 1024) + 1024 */
    ck_assert(run(&e, &q, &st));
    uint16_t h;
    memcpy(&h, e.ub + 0x3800, 2);
    ck_assert_uint_eq(h, 0x6a00); /* 3072 */
    q.mask0 = 0;
    q.mask1 = 0; /* empty: sum 0, max -inf */
    ck_assert(run(&e, &q, &st));
    memcpy(&h, e.ub + 0x3800, 2);
    ck_assert_uint_eq(h, 0x0000);
    q.in.op = ASC_OP_VCMAX_F16;
    ck_assert(run(&e, &q, &st));
    memcpy(&h, e.ub + 0x3800, 2);
    ck_assert_uint_eq(h, 0xfc00);
    env_free(&e);
}
END_TEST

START_TEST(noops)
{
    Env e;
    env_init(&e, "ascend910b");
    memset(e.ub, 0x5a, e.ub_bytes);
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VADD_F16;
    q.rd = 0;
    q.rs1 = 0x100;
    q.rs2 = 0x200;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.rs3 = vcfg(0, blk, rep);
    q.mask0 = ~0ull;
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.repeats, 0);
    ck_assert_uint_eq(st.beats, 0);
    q.ctrl = 1ull << ASC_CTRL_COUNTER_BIT;
    q.mask0 = 0;
    ck_assert(run(&e, &q, &st));
    for (uint32_t a = 0; a < e.ub_bytes; a++) ck_assert_uint_eq(e.ub[a], 0x5a);
    env_free(&e);
}
END_TEST

/* ---- bank conflicts ------------------------------------------------------ */

static AscExecStats unary_beats(Env *e, uint64_t dst, uint64_t src, unsigned src_blk, unsigned repeats)
{
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VABS_F16;
    q.rd = dst;
    q.rs1 = src;
    unsigned blk[3] = {1, src_blk, 1}, rep[3] = {8, 8 * src_blk, 8};
    q.rs2 = vcfg(repeats, blk, rep);
    q.mask0 = q.mask1 = ~0ull;
    AscExecStats st;
    ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    return st;
}

static AscExecStats binary_beats(Env *e, uint64_t dst, uint64_t s0, uint64_t s1)
{
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VADD_F16;
    q.rd = dst;
    q.rs1 = s0;
    q.rs2 = s1;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.rs3 = vcfg(2, blk, rep);
    q.mask0 = q.mask1 = ~0ull;
    AscExecStats st;
    ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    return st;
}

START_TEST(bank_examples)
{
    Env e;
    env_init(&e, "ascend910b");
    ck_assert_int_eq(e.cfg.v[ASC_KEY_VEC_BASE_BEATS], 1);
    /* blk stride 16: 8 source blocks 512 B apart, one group -> 8 beats */
    AscExecStats st = unary_beats(&e, 0x10000, 0, 16, 1);
    ck_assert_uint_eq(st.beats, 8);
    ck_assert_uint_eq(st.conflict_beats, 7);
    ck_assert_uint_eq(st.rr_conflicts, 1);
    /* blk stride 8: groups 0 and 8 alternate -> 4 beats */
    st = unary_beats(&e, 0x10000, 0, 8, 1);
    ck_assert_uint_eq(st.beats, 4);
    /* contiguous, dst in another layer -> 1 beat per repeat */
    st = unary_beats(&e, 0x10000, 0, 1, 3);
    ck_assert_uint_eq(st.beats, 3);
    ck_assert_uint_eq(st.conflict_beats, 0);
    ck_assert_uint_eq(st.rr_conflicts + st.ww_conflicts + st.rw_conflicts, 0);
    /* in place: the same bank read and written -> 2 beats */
    st = unary_beats(&e, 0, 0, 1, 1);
    ck_assert_uint_eq(st.beats, 2);
    ck_assert_uint_eq(st.rw_conflicts, 1);
    /* binary: src0 and src1 in the same 8 groups -> 2 beats per repeat */
    st = binary_beats(&e, 0x10100, 0x0, 0x2000);
    ck_assert_uint_eq(st.beats, 4);
    ck_assert_uint_eq(st.rr_conflicts, 2);
    /* src1 256 B off: groups 8..15 -> 1 beat per repeat */
    st = binary_beats(&e, 0x20000, 0x0, 0x2100);
    ck_assert_uint_eq(st.beats, 2);
    ck_assert_uint_eq(st.conflict_beats, 0);
    /* base_beats scales every repeat */
    e.cfg.v[ASC_KEY_VEC_BASE_BEATS] = 2;
    st = unary_beats(&e, 0x10000, 0, 16, 1);
    ck_assert_uint_eq(st.beats, 16);
    ck_assert_uint_eq(st.conflict_beats, 14);
    env_free(&e);
}
END_TEST

/* The bank model's definition, spelled out pairwise (ubbank.c computes it in
 * linear time): random repeats, several group counts (power of two or not). */
static AscBankCost bank_cost_pairwise(const AscConfig *cfg, const AscBankRepeat *rep)
{
    uint64_t groups = (uint64_t)cfg->v[ASC_KEY_UB_BANK_GROUPS];
    uint64_t glo = (uint64_t)cfg->v[ASC_KEY_UB_BANK_GROUP_LO], llo = (uint64_t)cfg->v[ASC_KEY_UB_BANK_LAYER_LO];
    AscBankCost c = {0, 0, 0, 0};
    for (uint32_t side = 0; side < 2; side++) {
        const uint64_t *a = side ? rep->write : rep->read;
        uint32_t n = side ? rep->nwrite : rep->nread, worst = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t same = 0;
            for (uint32_t j = 0; j < n; j++) same += ((a[i] >> glo) % groups) == ((a[j] >> glo) % groups);
            if (same > worst) worst = same;
        }
        if (side) c.w = worst;
        else c.r = worst;
    }
    for (uint32_t i = 0; i < rep->nwrite; i++) {
        uint64_t bank = (rep->write[i] >> llo) * groups + (rep->write[i] >> glo) % groups;
        uint32_t nr = 0, nw = 0;
        for (uint32_t j = 0; j < rep->nread; j++)
            nr += (rep->read[j] >> llo) * groups + (rep->read[j] >> glo) % groups == bank;
        for (uint32_t j = 0; j < rep->nwrite; j++)
            nw += (rep->write[j] >> llo) * groups + (rep->write[j] >> glo) % groups == bank;
        if (nr && nr + nw > c.rw) c.rw = nr + nw;
    }
    uint32_t worst = 1;
    if (c.r > worst) worst = c.r;
    if (c.w > worst) worst = c.w;
    if (c.rw > worst) worst = c.rw;
    c.beats = (uint32_t)cfg->v[ASC_KEY_VEC_BASE_BEATS] * worst;
    return c;
}

START_TEST(bank_linear_matches_pairwise)
{
    Env e;
    env_init(&e, "ascend910b");
    /* powers of two only: config.c refuses any other ub_bank_groups (ubbank.c masks) */
    static const int64_t group_counts[] = {16, 1, 2, 64, 8};
    uint64_t seed = 12345;
    for (unsigned t = 0; t < 4000; t++) {
        e.cfg.v[ASC_KEY_UB_BANK_GROUPS] = group_counts[t % 5];
        AscBankRepeat rep;
        memset(&rep, 0, sizeof rep);
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        rep.nread = (uint32_t)(seed >> 33) % (ASC_BANK_MAX_BLOCKS + 1);
        rep.nwrite = (uint32_t)(seed >> 45) % (ASC_BANK_MAX_BLOCKS + 1);
        uint64_t span = (t & 1) ? 0x400 : 0x40000; /* crowded or spread over layers */
        for (uint32_t i = 0; i < rep.nread + rep.nwrite; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t a = ((seed >> 20) % span) & ~31ull;
            if (i < rep.nread) rep.read[i] = a;
            else rep.write[i - rep.nread] = a;
        }
        AscBankCost want = bank_cost_pairwise(&e.cfg, &rep), got = asc_ubbank_cost(&e.cfg, &rep);
        ck_assert_msg(got.r == want.r && got.w == want.w && got.rw == want.rw && got.beats == want.beats,
                      "case %u: r/w/rw/beats %u/%u/%u/%u, pairwise %u/%u/%u/%u", t, got.r, got.w, got.rw, got.beats,
                      want.r, want.w, want.rw, want.beats);
    }
    env_free(&e);
}
END_TEST

/* ---- faults ---------------------------------------------------------------- */

static void expect_fault(Env *e, AscIssued *q, const char *needle)
{
    AscExecStats st;
    memset(e->ub, 0x11, e->ub_bytes);
    ck_assert_msg(!run(e, q, &st), "expected a fault containing '%s'", needle);
    ck_assert_msg(strstr(e->ctx.fault, needle) != NULL, "fault '%s' lacks '%s'", e->ctx.fault, needle);
    for (uint32_t a = 0; a < e->ub_bytes; a++) ck_assert_uint_eq(e->ub[a], 0x11); /* nothing written */
}

START_TEST(vector_faults)
{
    Env e;
    env_init(&e, "ascend910b");
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VADD_F16;
    unsigned blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    q.mask0 = q.mask1 = ~0ull;
    /* dst runs past the usable UB (0x2e000 bytes) */
    q.rd = 0x2df00;
    q.rs1 = 0;
    q.rs2 = 0x1000;
    q.rs3 = vcfg(2, blk, rep);
    expect_fault(&e, &q, "UB write of dst [0x2df00, 0x2e100) is outside UB (0x2e000 bytes usable)");
    /* only active lanes count: one lane of each repeat still fits */
    q.rd = 0x2df00;
    q.rs3 = vcfg(1, blk, rep);
    q.mask0 = 1;
    q.mask1 = 0;
    AscExecStats st;
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    q.mask0 = q.mask1 = ~0ull;
    /* source past the end */
    q.rd = 0;
    q.rs1 = 0x2dff0 - 0x10;
    expect_fault(&e, &q, "UB read of src0 [0x2dfe0, 0x2e0e0) is outside UB");
    /* misaligned start */
    q.rs1 = 0x22;
    expect_fault(&e, &q, "UB read of src0 [0x22, 0x122) is misaligned: start address 0x22 is not a multiple of 32 B");
    /* reserved config bits 48..55 */
    q.rs1 = 0;
    q.rs3 = vcfg(1, blk, rep) | (1ull << 51); /* bit 50 is vsel's sels */
    expect_fault(&e, &q, "reserved bits 0x0008000000000000");
    /* counter mode with an absurd count */
    q.rs3 = vcfg(1, blk, rep);
    q.ctrl = 1ull << ASC_CTRL_COUNTER_BIT;
    q.mask0 = 1ull << 40;
    expect_fault(&e, &q, "counter-mode element count");
    /* counter mode: footprint grows with the count */
    q.mask0 = 128 * 800;
    expect_fault(&e, &q, "is outside UB");
    /* vsel's cmpmask out of range */
    q.ctrl = 0;
    q.in.op = ASC_OP_VSEL_F16;
    q.cmpmask = 0x2dff0;
    q.rs3 = vcfg(4, blk, rep);
    expect_fault(&e, &q, "UB read of cmpmask [0x2dff0, 0x2e030) is outside UB");
    /* vtranspose */
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_VTRANSPOSE_B16;
    q.rd = 0x2de00 + 0x100;
    expect_fault(&e, &q, "UB write of dst [0x2df00, 0x2e100) is outside UB");
    /* a core without UB */
    e.ctx.mem[ASC_BUF_UB].size = 0;
    q.rd = 0;
    AscExecStats st2;
    ck_assert(!run(&e, &q, &st2));
    ck_assert_msg(strstr(e.ctx.fault, "this core has no UB") != NULL, "%s", e.ctx.fault);
    e.ctx.mem[ASC_BUF_UB].size = e.ub_bytes;
    env_free(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_vector");
    TCase *tc = tcase_create("exec_vector");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_op_random);
    tcase_add_test(tc, every_op_same_pc_twice);
    tcase_add_test(tc, f16_wide_matches_portable);
    tcase_add_test(tc, repeat_255);
    tcase_add_test(tc, vexp_f32_is_host_expf);
    tcase_add_test(tc, f16_corners);
    tcase_add_test(tc, cmp_then_sel);
    tcase_add_test(tc, cmp_whole);
    tcase_add_test(tc, cmpmask_register);
    tcase_add_test(tc, group_reduce_examples);
    tcase_add_test(tc, brcb_transpose_reduce);
    tcase_add_test(tc, noops);
    tcase_add_test(tc, bank_examples);
    tcase_add_test(tc, bank_linear_matches_pairwise);
    tcase_add_test(tc, vector_faults);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
