/* test_exec_cube_dma.c -- DMA bursts, LOAD2D, MMAD, FIXPIPE and GM.
 *
 * References are written here from docs/semantics.md (burst formula,
 * fractal layouts, naive triple loop in double, ref rounding of
 * exec_ref.h), never by calling the simulator's helpers.  The f16 matmuls
 * go the whole way a kernel goes: ND -> L1 NZ (packed by the test) ->
 * load_l1_to_l0a/b_2d -> mmad -> fix_l0c_to_out -> GM. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "exec_ref.h"
#include "check_main.h"

typedef struct Env {
    AscConfig cfg;
    AscExecCtx ctx;
    uint8_t *buf[ASC_BUF_COUNT];
    uint64_t seed;
} Env;

static uint64_t rnd(Env *e)
{
    e->seed ^= e->seed >> 12;
    e->seed ^= e->seed << 25;
    e->seed ^= e->seed >> 27;
    return e->seed * 2685821657736338717ull;
}

static void env_init(Env *e)
{
    memset(e, 0, sizeof *e);
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_config_builtin(&e->cfg, "ascend910b", &d));
    asc_diags_free(&d);
    const AscConfig *c = &e->cfg;
    struct { AscBuf b; int64_t size, align; } t[] = {
        {ASC_BUF_UB, c->v[ASC_KEY_UB_BYTES] - c->v[ASC_KEY_UB_RESERVED_BYTES], c->v[ASC_KEY_UB_ALIGN]},
        {ASC_BUF_L1, c->v[ASC_KEY_L1_BYTES], c->v[ASC_KEY_L1_ALIGN]},
        {ASC_BUF_L0A, c->v[ASC_KEY_L0A_BYTES], c->v[ASC_KEY_L0AB_ALIGN]},
        {ASC_BUF_L0B, c->v[ASC_KEY_L0B_BYTES], c->v[ASC_KEY_L0AB_ALIGN]},
        {ASC_BUF_L0C, c->v[ASC_KEY_L0C_BYTES], c->v[ASC_KEY_L0C_ALIGN]},
    };
    for (size_t i = 0; i < 5; i++) {
        e->buf[t[i].b] = calloc((size_t)t[i].size, 1);
        e->ctx.mem[t[i].b] = (AscMem){e->buf[t[i].b], (uint32_t)t[i].size, (uint32_t)t[i].align};
    }
    /* mmad's scratch, as sim.c gives a cube core (sim_exec.h) */
    e->ctx.mm_scratch_bytes = 4 * ((size_t)e->ctx.mem[ASC_BUF_L0A].size + e->ctx.mem[ASC_BUF_L0B].size);
    e->ctx.mm_scratch = malloc(e->ctx.mm_scratch_bytes);
    ck_assert(e->ctx.mm_scratch != NULL);
    e->ctx.cfg = &e->cfg;
    e->ctx.gm = asc_gm_new(NULL, (uint64_t)c->v[ASC_KEY_GM_BYTES]);
    ck_assert(e->ctx.gm != NULL);
    e->seed = 0x1234567887654321ull;
}

static void env_free(Env *e)
{
    for (int i = 0; i < ASC_BUF_COUNT; i++) free(e->buf[i]);
    free(e->ctx.mm_scratch);
    asc_gm_free(e->ctx.gm);
}

static AscIssued issue(AscOp op, uint64_t rd, uint64_t rs1, uint64_t rs2, uint64_t rs3)
{
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = (uint16_t)op;
    q.rd = rd;
    q.rs1 = rs1;
    q.rs2 = rs2;
    q.rs3 = rs3;
    return q;
}

static bool run(Env *e, const AscIssued *q, AscExecStats *st)
{
    const AscInsnInfo *ii = &asc_insn_info[q->in.op];
    memset(st, 0, sizeof *st);
    e->ctx.fault[0] = 0;
    AscDtype d0 = (AscDtype)ii->dt0, d1 = (AscDtype)ii->dt1;
    if (!strcmp(ii->fam, "DMA")) return asc_exec_DMA(&e->ctx, q, d0, d1, st);
    if (!strcmp(ii->fam, "LOAD2D")) return asc_exec_LOAD2D(&e->ctx, q, d0, d1, st);
    if (!strcmp(ii->fam, "MMAD")) return asc_exec_MMAD(&e->ctx, q, d0, d1, st);
    if (!strcmp(ii->fam, "FIXPIPE")) return asc_exec_FIXPIPE(&e->ctx, q, d0, d1, st);
    ck_abort_msg("not a cube/dma op: %s", ii->mnemonic);
    return false;
}

static uint64_t dma_cfg(uint64_t nburst, uint64_t len, uint64_t srcgap, uint64_t dstgap)
{
    return nburst | len << 16 | srcgap << 32 | dstgap << 48;
}

static void expect_fault(Env *e, const AscIssued *q, const char *needle)
{
    AscExecStats st;
    ck_assert_msg(!run(e, q, &st), "expected a fault containing '%s'", needle);
    ck_assert_msg(strstr(e->ctx.fault, needle) != NULL, "fault '%s' lacks '%s'", e->ctx.fault, needle);
}

/* ---- DMA ------------------------------------------------------------------ */

START_TEST(dma_bursts)
{
    Env e;
    env_init(&e);
    uint8_t src[8192], back[8192];
    for (unsigned i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 7 + 3);
    ck_assert(asc_gm_write(e.ctx.gm, 0x100000, src, sizeof src));
    /* 3 bursts of 2 blocks, srcgap 1, dstgap 3 */
    memset(e.buf[ASC_BUF_UB], 0xcc, 4096);
    AscIssued q = issue(ASC_OP_MOV_OUT_TO_UB, 0x200, 0x100000, dma_cfg(3, 2, 1, 3), 0);
    AscExecStats st;
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert_uint_eq(st.bytes, 3 * 64);
    ck_assert_uint_eq(st.bursts, 3);
    ck_assert_uint_eq(st.src_buf, ASC_BUF_GM);
    ck_assert_uint_eq(st.dst_buf, ASC_BUF_UB);
    ck_assert(st.gm_unaligned); /* bursts 1 and 2 start at +96 and +192: not 512 B aligned */
    for (unsigned k = 0; k < 3; k++) {
        /* burst k: src 0x100000 + k*(2+1)*32, dst 0x200 + k*(2+3)*32, 64 bytes */
        ck_assert(memcmp(e.buf[ASC_BUF_UB] + 0x200 + k * 160, src + k * 96, 64) == 0);
        if (k < 2) ck_assert_uint_eq(e.buf[ASC_BUF_UB][0x200 + k * 160 + 64], 0xcc); /* gap untouched */
    }
    ck_assert_uint_eq(e.buf[ASC_BUF_UB][0x1ff], 0xcc);
    /* and back out with the gaps swapped: GM gaps 1 block */
    q = issue(ASC_OP_MOV_UB_TO_OUT, 0x200020, 0x200, dma_cfg(3, 2, 3, 1), 0);
    ck_assert(run(&e, &q, &st));
    ck_assert(st.gm_unaligned); /* 0x200020 is only 32 B aligned */
    ck_assert_uint_eq(st.dst_buf, ASC_BUF_GM);
    ck_assert(asc_gm_read(e.ctx.gm, 0x200020, back, 96 * 3));
    for (unsigned k = 0; k < 3; k++) ck_assert(memcmp(back + k * 96, src + k * 96, 64) == 0);
    ck_assert_uint_eq(back[64], 0); /* never written GM reads as zero */
    /* GM -> L1 -> UB -> L1 and UB -> UB */
    q = issue(ASC_OP_MOV_OUT_TO_L1, 0x40, 0x100000, dma_cfg(1, 256, 0, 0), 0);
    ck_assert(run(&e, &q, &st));
    ck_assert(memcmp(e.buf[ASC_BUF_L1] + 0x40, src, 8192) == 0);
    ck_assert(!st.gm_unaligned); /* one burst at 0x100000: 512 B aligned */
    q = issue(ASC_OP_MOV_L1_TO_UB, 0x4000, 0x40, dma_cfg(2, 4, 4, 0), 0);
    ck_assert(run(&e, &q, &st));
    ck_assert(memcmp(e.buf[ASC_BUF_UB] + 0x4000, src, 128) == 0);
    ck_assert(memcmp(e.buf[ASC_BUF_UB] + 0x4080, src + 256, 128) == 0);
    q = issue(ASC_OP_MOV_UB_TO_UB, 0x4020, 0x4000, dma_cfg(1, 8, 0, 0), 0); /* overlapping: memmove */
    ck_assert(run(&e, &q, &st));
    ck_assert(memcmp(e.buf[ASC_BUF_UB] + 0x4020, src, 128) == 0);
    q = issue(ASC_OP_MOV_UB_TO_L1, 0x10000, 0x4020, dma_cfg(1, 1, 0, 0), 0);
    ck_assert(run(&e, &q, &st));
    ck_assert(memcmp(e.buf[ASC_BUF_L1] + 0x10000, src, 32) == 0);
    /* no-ops */
    memset(e.buf[ASC_BUF_UB], 0x77, 256);
    q = issue(ASC_OP_MOV_OUT_TO_UB, 0, 0x100000, dma_cfg(0, 4, 0, 0), 0);
    ck_assert(run(&e, &q, &st));
    q = issue(ASC_OP_MOV_OUT_TO_UB, 0, 0x100000, dma_cfg(4, 0, 0, 0), 0);
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert_uint_eq(e.buf[ASC_BUF_UB][0], 0x77);
    env_free(&e);
}
END_TEST

/* ---- DataCopy GM -> L1 with Nd2NzParams (mov_out_to_l1, config bit 15) ----
 * The reference is the documented formula (docs/semantics.md §ND2NZ), one
 * element at a time into a copy of L1; bytes the copy must not touch keep
 * their fill. */
static uint64_t nd2nz_cfg(uint64_t nvalue, uint64_t dvalue, uint64_t srcd, uint64_t c0s)
{
    return nvalue | 1ull << 15 | dvalue << 16 | srcd << 32 | c0s << 48;
}

static uint64_t nd2nz_para(uint64_t ndnum, uint64_t elog, uint64_t sms, uint64_t dms, uint64_t ns)
{
    return ndnum | elog << 12 | sms << 16 | dms << 32 | ns << 47 | 1ull << 63;
}

static void nd2nz_case(Env *e, uint64_t elog, uint64_t nd, uint64_t n, uint64_t d, uint64_t srcd, uint64_t c0s,
                       uint64_t ns, uint64_t sms, uint64_t dms)
{
    const uint64_t gm = 0x200000, l1 = 0x400;
    uint64_t es = 1ull << elog, c0 = 32 / es, blocks = (d + c0 - 1) / c0;
    size_t src_n = (size_t)(((nd - 1) * sms + (n - 1) * srcd + d) * es);
    uint8_t *src = malloc(src_n), *want = malloc(0x40000);
    for (size_t i = 0; i < src_n; i++) src[i] = (uint8_t)rnd(e);
    ck_assert(asc_gm_write(e->ctx.gm, gm, src, src_n));
    memset(e->buf[ASC_BUF_L1], 0xab, 0x40000);
    memcpy(want, e->buf[ASC_BUF_L1], 0x40000);
    for (uint64_t i = 0; i < nd; i++)
        for (uint64_t r = 0; r < n; r++)
            for (uint64_t c = 0; c < blocks * c0; c++) {
                uint64_t dof = l1 + i * dms * es + r * ns * 32 + (c / c0) * c0s * 32 + (c % c0) * es;
                for (uint64_t k = 0; k < es; k++)
                    want[dof + k] = c < d ? src[(i * sms + r * srcd + c) * es + k] : 0;
            }
    AscIssued q = issue(ASC_OP_MOV_OUT_TO_L1, l1, gm, nd2nz_cfg(n, d, srcd, c0s), 0);
    q.nd2nz_para = nd2nz_para(nd, elog, sms, dms, ns);
    AscExecStats st;
    ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    ck_assert(memcmp(e->buf[ASC_BUF_L1], want, 0x40000) == 0);
    ck_assert_uint_eq(st.bursts, nd * n);   /* one GM burst per row (timing, docs/timing.md) */
    ck_assert_uint_eq(st.bytes, nd * n * d * es);
    ck_assert_uint_eq(st.src_buf, ASC_BUF_GM);
    ck_assert_uint_eq(st.dst_buf, ASC_BUF_L1);
    free(src);
    free(want);
}

START_TEST(dma_nd2nz)
{
    Env e;
    env_init(&e);
    /* f16: 19 x 37 (tails in both), row stride 45, 2 matrices; NZ blocks of 32 rows */
    nd2nz_case(&e, 1, 2, 19, 37, 45, 32, 1, 19 * 45 + 3, 32 * 3 * 16);
    /* f16 as the matmul uses it: one 128 x 64 tile of a 1024-column matrix */
    nd2nz_case(&e, 1, 1, 128, 64, 1024, 128, 1, 0, 0);
    /* b8 (C0 = 32) and b32 (C0 = 8) with a row stride of 2 blocks, odd sizes */
    nd2nz_case(&e, 0, 1, 5, 33, 70, 12, 2, 0, 0);
    nd2nz_case(&e, 2, 3, 7, 9, 9, 8, 1, 63, 8 * 2 * 8);
    /* no-ops: ndNum, nValue or dValue 0 move nothing */
    memset(e.buf[ASC_BUF_L1], 0x5a, 64);
    AscIssued q = issue(ASC_OP_MOV_OUT_TO_L1, 0, 0x200000, nd2nz_cfg(0, 16, 16, 1), 0);
    q.nd2nz_para = nd2nz_para(1, 1, 0, 0, 1);
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    q.rs2 = nd2nz_cfg(4, 16, 16, 4);
    q.nd2nz_para = nd2nz_para(0, 1, 0, 0, 1);
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert_uint_eq(e.buf[ASC_BUF_L1][0], 0x5a);
    /* faults */
    q.nd2nz_para = 0;
    expect_fault(&e, &q, "nd2nz_para unset");
    q.nd2nz_para = nd2nz_para(1, 3, 0, 0, 1);
    expect_fault(&e, &q, "esize is 3");
    q.nd2nz_para = nd2nz_para(1, 1, 0, 0, 0);
    expect_fault(&e, &q, "dstNzNStride 0 is out of range [1, 16384]");
    q.nd2nz_para = nd2nz_para(1, 1, 0, 0, 1);
    q.rs2 = nd2nz_cfg(4, 16, 16, 0);
    expect_fault(&e, &q, "dstNzC0Stride 0 is out of range");
    q.rs2 = nd2nz_cfg(4, 16, 16, 4);
    q.rd = 0x10;
    expect_fault(&e, &q, "L1 write of dst");
    q.rd = 0;
    q.rs1 = 0x200001;
    expect_fault(&e, &q, "not a multiple of the element size 2");
    q.rs1 = 0x200000;
    q.rd = 0x80000 - 64; /* 4 rows x 1 block = 128 B from 64 B below the end of L1 */
    expect_fault(&e, &q, "outside L1");
    q = issue(ASC_OP_MOV_OUT_TO_UB, 0, 0x200000, nd2nz_cfg(4, 16, 16, 4), 0);
    expect_fault(&e, &q, "exists only on mov_out_to_l1");
    env_free(&e);
}
END_TEST

/* ---- GM writes under the store atomic config (sim/exec_atomic.c) ----------
 * st_atomic = type | op << 3 (type 1 f32, 2 f16, 4 s32, 5 s8; op 0 add,
 * 1 max, 2 min); the reference is plain C arithmetic (f16: the f32 sum
 * rounded once to half, docs/semantics.md). */
START_TEST(dma_atomic)
{
    Env e;
    env_init(&e);
    enum { N = 40 }; /* 160 B of f32: 5 blocks */
    float gm0[N], ub0[N], back[N];
    for (unsigned i = 0; i < N; i++) {
        gm0[i] = (float)((int)(rnd(&e) % 2001) - 1000) / 8.0f;
        ub0[i] = (float)((int)(rnd(&e) % 2001) - 1000) / 8.0f;
    }
    const uint64_t g = 0x300000, u = 0x800;
    AscExecStats st;
    for (unsigned op = 0; op < 3; op++) {
        ck_assert(asc_gm_write(e.ctx.gm, g, gm0, sizeof gm0));
        memcpy(e.buf[ASC_BUF_UB] + u, ub0, sizeof ub0);
        AscIssued q = issue(ASC_OP_MOV_UB_TO_OUT, g, u, dma_cfg(1, 5, 0, 0), 0);
        q.st_atomic = 1 | op << 3;
        ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
        ck_assert(asc_gm_read(e.ctx.gm, g, back, sizeof back));
        for (unsigned i = 0; i < N; i++) {
            float want = op == 0 ? gm0[i] + ub0[i] : op == 1 ? (ub0[i] > gm0[i] ? ub0[i] : gm0[i])
                                                             : (ub0[i] < gm0[i] ? ub0[i] : gm0[i]);
            ck_assert_msg(back[i] == want, "op %u elem %u: %g, want %g", op, i, (double)back[i], (double)want);
        }
    }
    /* three "cores" accumulate into one output: split-K */
    ck_assert(asc_gm_write(e.ctx.gm, g, gm0, sizeof gm0));
    for (unsigned k = 0; k < 3; k++) {
        memcpy(e.buf[ASC_BUF_UB] + u, ub0, sizeof ub0);
        AscIssued q = issue(ASC_OP_MOV_UB_TO_OUT, g, u, dma_cfg(1, 5, 0, 0), 0);
        q.st_atomic = 1;
        ck_assert(run(&e, &q, &st));
    }
    ck_assert(asc_gm_read(e.ctx.gm, g, back, sizeof back));
    for (unsigned i = 0; i < N; i++) ck_assert(back[i] == ((gm0[i] + ub0[i]) + ub0[i]) + ub0[i]);
    /* s32 add wraps; s8 add wraps per byte */
    int32_t a32[8] = {INT32_MAX, -5, 7, 0, INT32_MIN, 1, 2, 3}, b32[8] = {1, 5, -9, 0, -1, 1, 1, 1}, r32[8];
    ck_assert(asc_gm_write(e.ctx.gm, g, a32, 32));
    memcpy(e.buf[ASC_BUF_UB] + u, b32, 32);
    AscIssued q = issue(ASC_OP_MOV_UB_TO_OUT, g, u, dma_cfg(1, 1, 0, 0), 0);
    q.st_atomic = 4;
    ck_assert(run(&e, &q, &st));
    ck_assert(asc_gm_read(e.ctx.gm, g, r32, 32));
    for (unsigned i = 0; i < 8; i++) ck_assert_int_eq(r32[i], (int32_t)((uint32_t)a32[i] + (uint32_t)b32[i]));
    int8_t a8[32], b8[32], r8[32];
    for (unsigned i = 0; i < 32; i++) a8[i] = (int8_t)(rnd(&e) & 0xff), b8[i] = (int8_t)(rnd(&e) & 0xff);
    ck_assert(asc_gm_write(e.ctx.gm, g, a8, 32));
    memcpy(e.buf[ASC_BUF_UB] + u, b8, 32);
    q.st_atomic = 5 | 1 << 3; /* s8 max */
    ck_assert(run(&e, &q, &st));
    ck_assert(asc_gm_read(e.ctx.gm, g, r8, 32));
    for (unsigned i = 0; i < 32; i++) ck_assert_int_eq(r8[i], b8[i] > a8[i] ? b8[i] : a8[i]);
    /* f16 add */
    uint16_t h0[16], h1[16], hr[16];
    for (unsigned i = 0; i < 16; i++) {
        h0[i] = ref_to_half((double)((int)(rnd(&e) % 20001) - 10000) / 1024.0, 0);
        h1[i] = ref_to_half((double)((int)(rnd(&e) % 20001) - 10000) / 1024.0, 0);
    }
    ck_assert(asc_gm_write(e.ctx.gm, g, h0, 32));
    memcpy(e.buf[ASC_BUF_UB] + u, h1, 32);
    q.st_atomic = 2;
    ck_assert(run(&e, &q, &st));
    ck_assert(asc_gm_read(e.ctx.gm, g, hr, 32));
    for (unsigned i = 0; i < 16; i++)
        ck_assert_uint_eq(hr[i], ref_to_half(ref_to_f32(ref_from_half(h0[i]) + ref_from_half(h1[i]), 0), 0));
    /* the pad variant writes exactly len bytes, atomically: 3 f32 */
    float p0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, p1[8] = {10, 20, 30, 40, 50, 60, 70, 80}, pr[8];
    ck_assert(asc_gm_write(e.ctx.gm, g, p0, 32));
    memcpy(e.buf[ASC_BUF_UB] + u, p1, 32);
    q = issue(ASC_OP_MOV_UB_TO_OUT_PAD, g, u, 1 | 12ull << 12, 0);
    q.st_atomic = 1;
    ck_assert_msg(asc_exec_DMAPAD(&e.ctx, &q, ASC_DT_NONE, ASC_DT_NONE, &st), "%s", e.ctx.fault);
    ck_assert(asc_gm_read(e.ctx.gm, g, pr, 32));
    for (unsigned i = 0; i < 8; i++) ck_assert(pr[i] == (i < 3 ? p0[i] + p1[i] : p0[i]));
    /* faults: reserved bits, unknown type/op, partial elements */
    q = issue(ASC_OP_MOV_UB_TO_OUT, g, u, dma_cfg(1, 1, 0, 0), 0);
    q.st_atomic = 1u << 5;
    expect_fault(&e, &q, "reserved bits");
    q.st_atomic = 7;
    expect_fault(&e, &q, "type 7 does not exist");
    q.st_atomic = 1 | 3 << 3;
    expect_fault(&e, &q, "op 3 does not exist");
    q = issue(ASC_OP_MOV_UB_TO_OUT_PAD, g + 2, u, 1 | 12ull << 12, 0);
    q.st_atomic = 1;
    ck_assert(!asc_exec_DMAPAD(&e.ctx, &q, ASC_DT_NONE, ASC_DT_NONE, &st));
    ck_assert_msg(strstr(e.ctx.fault, "aligned 4-byte elements") != NULL, "%s", e.ctx.fault);
    env_free(&e);
}
END_TEST

START_TEST(dma_faults)
{
    Env e;
    env_init(&e);
    AscIssued q = issue(ASC_OP_MOV_OUT_TO_UB, 0x2df00, 0, dma_cfg(1, 16, 0, 0), 0);
    expect_fault(&e, &q, "UB write of dst [0x2df00, 0x2e100) is outside UB (0x2e000 bytes usable)");
    q = issue(ASC_OP_MOV_OUT_TO_UB, 0x10, 0, dma_cfg(1, 1, 0, 0), 0);
    expect_fault(&e, &q, "UB write of dst [0x10, 0x30) is misaligned: UB addresses must be multiples of 32 B");
    q = issue(ASC_OP_MOV_OUT_TO_UB, 0, 0xfffffff0ull, dma_cfg(1, 1, 0, 0), 0);
    expect_fault(&e, &q, "GM read of src [0xfffffff0, 0x100000010) is outside GM (0x100000000 bytes)");
    q = issue(ASC_OP_MOV_UB_TO_OUT, 0xffffffe0ull, 0, dma_cfg(2, 1, 0, 0), 0);
    expect_fault(&e, &q, "GM write of dst [0xffffffe0, 0x100000020) is outside GM");
    q = issue(ASC_OP_MOV_OUT_TO_L1, 0x7ffe0, 0, dma_cfg(1, 2, 0, 0), 0);
    expect_fault(&e, &q, "L1 write of dst [0x7ffe0, 0x80020) is outside L1 (0x80000 bytes usable)");
    q = issue(ASC_OP_MOV_OUT_TO_UB, 0, 0, dma_cfg(1, 1, 0, 0) | (1ull << 13), 0);
    expect_fault(&e, &q, "reserved bits 0x0000000000002000 of the DMA layout");
    {   /* bit 12 (rdown): the copy moves len*32 bytes as without it and notes RDOWN, even at len 0 */
        AscExecStats st;
        memset(e.buf[ASC_BUF_UB], 0x5a, 64);
        memset(e.buf[ASC_BUF_UB] + 0x1000, 0, 64);
        q = issue(ASC_OP_MOV_UB_TO_UB, 0x1000, 0, dma_cfg(1, 1, 0, 0) | (1ull << 12), 0);
        ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
        ck_assert_uint_eq(st.note, ASC_NOTE_RDOWN);
        ck_assert_uint_eq(st.note_b, 32);
        for (unsigned k = 0; k < 64; k++) ck_assert_uint_eq(e.buf[ASC_BUF_UB][0x1000 + k], k < 32 ? 0x5a : 0);
        q = issue(ASC_OP_MOV_UB_TO_UB, 0x1000, 0, dma_cfg(1, 0, 0, 0) | (1ull << 12), 0);
        ck_assert(run(&e, &q, &st));
        ck_assert_uint_eq(st.note, ASC_NOTE_RDOWN);
        ck_assert_uint_eq(st.note_b, 0);
    }
    e.ctx.mem[ASC_BUF_L1].size = 0;
    q = issue(ASC_OP_MOV_UB_TO_L1, 0, 0, dma_cfg(1, 1, 0, 0), 0);
    expect_fault(&e, &q, "this core has no L1");
    e.ctx.mem[ASC_BUF_L1].size = (uint32_t)e.cfg.v[ASC_KEY_L1_BYTES];
    env_free(&e);
}
END_TEST

/* ---- LOAD2D --------------------------------------------------------------- */

static uint64_t l2d_cfg(uint64_t start, uint64_t repeat, uint64_t srcstride, uint64_t dstgap, uint64_t transpose)
{
    return start | repeat << 16 | srcstride << 24 | dstgap << 40 | transpose << 56;
}

START_TEST(load2d)
{
    Env e;
    env_init(&e);
    uint8_t *l1 = e.buf[ASC_BUF_L1], *l0a = e.buf[ASC_BUF_L0A], *l0b = e.buf[ASC_BUF_L0B];
    for (unsigned i = 0; i < 16384; i++) l1[i] = (uint8_t)rnd(&e);
    /* fractals 1, 4, 7 of L1 into L0A 0, 2, 4 (dstgap 1) */
    AscIssued q = issue(ASC_OP_LOAD_L1_TO_L0A_2D, 0, 0, l2d_cfg(1, 3, 3, 1, 0), 0);
    AscExecStats st;
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert_uint_eq(st.bytes, 1536);
    for (unsigned i = 0; i < 3; i++) ck_assert(memcmp(l0a + i * 1024, l1 + (1 + 3 * i) * 512, 512) == 0);
    /* transposed into L0B */
    q = issue(ASC_OP_LOAD_L1_TO_L0B_2D, 512, 0, l2d_cfg(2, 2, 1, 0, 1), 0);
    ck_assert(run(&e, &q, &st));
    for (unsigned f = 0; f < 2; f++)
        for (unsigned r = 0; r < 16; r++)
            for (unsigned c = 0; c < 16; c++)
                ck_assert(memcmp(l0b + 512 + f * 512 + (c * 16 + r) * 2, l1 + (2 + f) * 512 + (r * 16 + c) * 2, 2) == 0);
    /* faults */
    q = issue(ASC_OP_LOAD_L1_TO_L0A_2D, 0xfe00, 0, l2d_cfg(0, 2, 1, 0, 0), 0);
    expect_fault(&e, &q, "L0A write of dst fractal [0x10000, 0x10200) is outside L0A (0x10000 bytes usable)");
    q = issue(ASC_OP_LOAD_L1_TO_L0A_2D, 0x100, 0, l2d_cfg(0, 1, 1, 0, 0), 0);
    expect_fault(&e, &q, "misaligned: L0A addresses must be multiples of 512 B");
    q = issue(ASC_OP_LOAD_L1_TO_L0B_2D, 0, 0x7fe00, l2d_cfg(0, 2, 1, 0, 0), 0);
    expect_fault(&e, &q, "L1 read of src fractal [0x80000, 0x80200) is outside L1");
    q = issue(ASC_OP_LOAD_L1_TO_L0A_2D, 0, 0, l2d_cfg(0, 0, 1, 0, 0), 0);
    expect_fault(&e, &q, "repeat is 0");
    q = issue(ASC_OP_LOAD_L1_TO_L0A_2D, 0, 0, l2d_cfg(0, 1, 1, 0, 0) | (1ull << 60), 0);
    expect_fault(&e, &q, "reserved bits");
    env_free(&e);
}
END_TEST

/* ---- MMAD and FIXPIPE -------------------------------------------------- */

static uint64_t mmad_cfg(uint64_t m, uint64_t k, uint64_t n, uint64_t init)
{
    return m | k << 12 | n << 24 | init << 63;
}

static uint64_t fix_cfg(uint64_t n, uint64_t relu, uint64_t m, uint64_t srcstride, uint64_t dststride)
{
    return n | relu << 15 | m << 16 | srcstride << 32 | dststride << 48;
}

static unsigned cdiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

/* Random inputs of the mmad type as raw bytes and exact doubles. */
static void rand_matrix(Env *e, unsigned dt, unsigned count, uint8_t *raw, double *val)
{
    unsigned sz = asc_dtype_size(dt);
    for (unsigned i = 0; i < count; i++) {
        double v = ((double)(int)(rnd(e) % 2001) - 1000) / 256.0;
        if (dt == ASC_DT_F16) {
            uint16_t h = ref_to_half(v, 1);
            memcpy(raw + i * sz, &h, 2);
            val[i] = ref_from_half(h);
        } else if (dt == ASC_DT_BF16) {
            uint16_t h = ref_to_bf16(v, 1);
            memcpy(raw + i * sz, &h, 2);
            val[i] = ref_from_bf16(h);
        } else if (dt == ASC_DT_F32) {
            float f = (float)(v * 1.37);
            memcpy(raw + i * sz, &f, 4);
            val[i] = f;
        } else {
            int8_t s = (int8_t)rnd(e);
            raw[i] = (uint8_t)s;
            val[i] = s;
        }
    }
}

/* Read C(r, c) back from L0C using the NZ formula of the docs. */
static const uint8_t *l0c_at(Env *e, uint64_t base, unsigned m, unsigned r, unsigned c)
{
    unsigned mf = cdiv(m, 16);
    return e->buf[ASC_BUF_L0C] + base + ((c / 16) * mf + r / 16) * 1024 + ((r % 16) * 16 + c % 16) * 4;
}

/* Packs A and B straight into L0A/L0B (documented ZZ / ZN formulas), runs
 * mmad twice (init, then accumulate) and checks C against a triple loop. */
static void mmad_direct(Env *e, AscOp op, unsigned m, unsigned k, unsigned n)
{
    const AscInsnInfo *ii = &asc_insn_info[op];
    unsigned dt = ii->dt0, sz = asc_dtype_size(dt), k0 = 32 / sz;
    unsigned kf = cdiv(k, k0), nf = cdiv(n, 16);
    uint8_t *ra = malloc((size_t)m * k * 4), *rb = malloc((size_t)k * n * 4);
    double *va = malloc(sizeof(double) * m * k), *vb = malloc(sizeof(double) * k * n);
    rand_matrix(e, dt, m * k, ra, va);
    rand_matrix(e, dt, k * n, rb, vb);
    memset(e->buf[ASC_BUF_L0A], 0xee, e->ctx.mem[ASC_BUF_L0A].size); /* padding garbage must not matter */
    memset(e->buf[ASC_BUF_L0B], 0xee, e->ctx.mem[ASC_BUF_L0B].size);
    memset(e->buf[ASC_BUF_L0C], 0xab, e->ctx.mem[ASC_BUF_L0C].size);
    for (unsigned r = 0; r < m; r++)
        for (unsigned c = 0; c < k; c++)
            memcpy(e->buf[ASC_BUF_L0A] + ((r / 16) * kf + c / k0) * 512 + ((r % 16) * k0 + c % k0) * sz,
                   ra + (r * k + c) * sz, sz);
    for (unsigned r = 0; r < k; r++)
        for (unsigned c = 0; c < n; c++)
            memcpy(e->buf[ASC_BUF_L0B] + ((r / k0) * nf + c / 16) * 512 + ((c % 16) * k0 + r % k0) * sz,
                   rb + (r * n + c) * sz, sz);
    AscExecStats st;
    for (unsigned pass = 0; pass < 2; pass++) {
        AscIssued q = issue(op, 0, 0, 0, mmad_cfg(m, k, n, pass == 0));
        ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    }
    ck_assert_uint_eq(st.flops, 2ull * m * n * k);
    uint64_t k0cfg = dt == ASC_DT_S8 ? 32 : dt == ASC_DT_F32 ? 8 : 16;
    ck_assert_uint_eq(st.cube_steps, (uint64_t)cdiv(m, 16) * cdiv(n, 16) * cdiv(k, (unsigned)k0cfg));
    for (unsigned r = 0; r < m; r++)
        for (unsigned c = 0; c < n; c++) {
            const uint8_t *p = l0c_at(e, 0, m, r, c);
            if (dt == ASC_DT_S8) {
                int64_t s = 0;
                for (unsigned j = 0; j < k; j++) s += (int64_t)va[r * k + j] * (int64_t)vb[j * n + c];
                int32_t got;
                memcpy(&got, p, 4);
                ck_assert_int_eq(got, (int32_t)(2 * s));
            } else {
                double s = 0;
                for (unsigned j = 0; j < k; j++) s += va[r * k + j] * vb[j * n + c];
                float once = (float)s, want = (float)((double)once + s);
                float got;
                memcpy(&got, p, 4);
                ck_assert_msg(got == want, "%s %ux%ux%u C(%u,%u) = %g, want %g", ii->mnemonic, m, k, n, r, c, got,
                              want);
            }
        }
    /* padding of partial C fractals is untouched */
    if (m % 16) {
        uint32_t w;
        memcpy(&w, l0c_at(e, 0, m, m, 0), 4);
        ck_assert_uint_eq(w, 0xabababab);
    }
    free(ra);
    free(rb);
    free(va);
    free(vb);
}

START_TEST(mmad_types)
{
    Env e;
    env_init(&e);
    mmad_direct(&e, ASC_OP_MMAD_F16F32, 64, 64, 64);
    mmad_direct(&e, ASC_OP_MMAD_F16F32, 30, 70, 40);
    mmad_direct(&e, ASC_OP_MMAD_BF16F32, 30, 70, 40);
    mmad_direct(&e, ASC_OP_MMAD_BF16F32, 32, 16, 48);
    mmad_direct(&e, ASC_OP_MMAD_S8S32, 30, 70, 40);
    mmad_direct(&e, ASC_OP_MMAD_S8S32, 16, 64, 16);
    mmad_direct(&e, ASC_OP_MMAD_F32F32, 30, 70, 40);
    mmad_direct(&e, ASC_OP_MMAD_F32F32, 17, 9, 33);
    AscExecStats st;
    AscIssued q = issue(ASC_OP_MMAD_F16F32, 0, 0, 0, mmad_cfg(0, 16, 16, 1)); /* m = 0: no-op */
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.flops, 0);
    /* 128x256x64 f16 is 512 cube steps */
    q = issue(ASC_OP_MMAD_F16F32, 0, 0, 0, mmad_cfg(128, 64, 256, 1));
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    ck_assert_uint_eq(st.cube_steps, 512);
    env_free(&e);
}
END_TEST

/* mmad's fast host paths (F16C widening, AVX-512F or AVX2 fused multiply-add, where
 * the host has them) against its portable C path (ctx.mm_portable): the same
 * triple-loop checks with both, on shapes with partial row tiles (m % 8),
 * partial panels (n % 16) and partial k fractals; the AVX2 path's 6-row tiles
 * (rows below m / 12 * 12) then 4-row tiles: m = 12 and 24 (6-row tiles only),
 * 30, 17, 40 and 128 (both), 8 and 1 (4-row tiles only). */
START_TEST(mmad_portable_and_fast)
{
    Env e;
    env_init(&e);
    static const unsigned shapes[][3] = {{128, 128, 128}, {30, 70, 40}, {17, 9, 33}, {8, 16, 16}, {1, 1, 1},
                                         {12, 24, 20},    {24, 16, 9},  {40, 33, 16}};
    static const AscOp ops[] = {ASC_OP_MMAD_F16F32, ASC_OP_MMAD_BF16F32, ASC_OP_MMAD_F32F32};
    for (int portable = 0; portable < 2; portable++) {
        e.ctx.mm_portable = portable;
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                mmad_direct(&e, ops[o], shapes[s][0], shapes[s][1], shapes[s][2]);
    }
    env_free(&e);
}
END_TEST

/* One mmad's arithmetic in parts (ctx.mm_parts threads, two column-panel parts
 * each, A unpacked once, as sim/pool.c sets for a run with fewer cube cores
 * than host threads), here run one after another on this thread: every dtype
 * and path gives the triple loop's bits for 2, 3 and 5 threads (4, 6 and 10
 * parts, at most Nf), with more parts than panels (n = 9) and uneven splits
 * (Nf = 5 into 4; Nf = 3 into 3). */
START_TEST(mmad_parts)
{
    Env e;
    env_init(&e);
    static const unsigned shapes[][3] = {{128, 128, 128}, {30, 70, 40}, {17, 9, 33}, {40, 48, 80}, {1, 1, 1}};
    static const AscOp ops[] = {ASC_OP_MMAD_F16F32, ASC_OP_MMAD_BF16F32, ASC_OP_MMAD_F32F32, ASC_OP_MMAD_S8S32};
    static const uint32_t parts[] = {2, 3, 5};
    for (int portable = 0; portable < 2; portable++)
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            e.ctx.mm_portable = portable;
            e.ctx.mm_parts = parts[p];
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                    mmad_direct(&e, ops[o], shapes[s][0], shapes[s][1], shapes[s][2]);
        }
    env_free(&e);
}
END_TEST

/* Every one of the 65536 f16 values through mmad (k = 1, B = 1.0: C = 0 + a):
 * the fast and the portable widening give the same C bits, NaNs included,
 * and each non-NaN result is the value itself. */
START_TEST(mmad_f16_all_values)
{
    Env e;
    env_init(&e);
    const unsigned m = 1024, n = 16; /* A: 64 fractals of 16 rows x 16 (k = 1 used) */
    uint32_t *got[2];
    for (int portable = 0; portable < 2; portable++) {
        e.ctx.mm_portable = portable;
        got[portable] = malloc(65536 * 4);
        for (unsigned base = 0; base < 65536; base += m) {
            memset(e.buf[ASC_BUF_L0A], 0, 64 * 512);
            memset(e.buf[ASC_BUF_L0B], 0, 512);
            for (unsigned r = 0; r < m; r++) {
                uint16_t h = (uint16_t)(base + r);
                memcpy(e.buf[ASC_BUF_L0A] + (r / 16) * 512 + (r % 16) * 16 * 2, &h, 2);
            }
            for (unsigned c = 0; c < n; c++) {
                uint16_t one = 0x3c00;
                memcpy(e.buf[ASC_BUF_L0B] + c * 16 * 2, &one, 2); /* B(0, c) */
            }
            AscExecStats st;
            AscIssued q = issue(ASC_OP_MMAD_F16F32, 0, 0, 0, mmad_cfg(m, 1, n, 1));
            ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
            for (unsigned r = 0; r < m; r++) memcpy(&got[portable][base + r], l0c_at(&e, 0, m, r, 5), 4);
        }
    }
    for (unsigned h = 0; h < 65536; h++) {
        ck_assert_msg(got[0][h] == got[1][h], "f16 0x%04x: fast 0x%08x, portable 0x%08x", h, got[0][h], got[1][h]);
        float f, want = asc_f16_to_f32((uint16_t)h);
        memcpy(&f, &got[0][h], 4);
        if (want == want) ck_assert_msg(f == want, "f16 0x%04x: %g, want %g", h, f, want);
    }
    free(got[0]);
    free(got[1]);
    env_free(&e);
}
END_TEST

/* The kernel path: ND in GM -> (test packs NZ into L1) -> LOAD2D -> MMAD ->
 * FIXPIPE -> ND f32 in GM, compared with a double triple loop. */
static void f16_pipeline(Env *e, unsigned m, unsigned k, unsigned n)
{
    unsigned mf = cdiv(m, 16), kf = cdiv(k, 16), nf = cdiv(n, 16);
    uint16_t *a = calloc((size_t)m * k, 2), *b = calloc((size_t)k * n, 2);
    double *va = malloc(sizeof(double) * m * k), *vb = malloc(sizeof(double) * k * n);
    rand_matrix(e, ASC_DT_F16, m * k, (uint8_t *)a, va);
    rand_matrix(e, ASC_DT_F16, k * n, (uint8_t *)b, vb);
    uint8_t *l1 = e->buf[ASC_BUF_L1];
    memset(l1, 0, e->ctx.mem[ASC_BUF_L1].size);
    /* L1 NZ: element (r, c) of an R x C matrix at ((c/16)*R_pad + r)*16 + c%16 */
    uint64_t a_l1 = 0, b_l1 = (uint64_t)mf * kf * 512;
    for (unsigned r = 0; r < m; r++)
        for (unsigned c = 0; c < k; c++)
            memcpy(l1 + a_l1 + (((c / 16) * mf * 16 + r) * 16 + c % 16) * 2, &a[r * k + c], 2);
    for (unsigned r = 0; r < k; r++)
        for (unsigned c = 0; c < n; c++)
            memcpy(l1 + b_l1 + (((c / 16) * kf * 16 + r) * 16 + c % 16) * 2, &b[r * n + c], 2);
    AscExecStats st;
    /* A: row of fractals i = L1 fractals i, i+Mf, ... (srcstride Mf) */
    for (unsigned i = 0; i < mf; i++) {
        AscIssued q = issue(ASC_OP_LOAD_L1_TO_L0A_2D, (uint64_t)i * kf * 512, a_l1, l2d_cfg(i, kf, mf, 0, 0), 0);
        ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    }
    /* B: fractal (kk, j) of L1 is at j*Kf + kk, row-major; L0B wants it at
     * kk*Nf + j, column-major: transpose on the way */
    for (unsigned kk = 0; kk < kf; kk++) {
        AscIssued q = issue(ASC_OP_LOAD_L1_TO_L0B_2D, (uint64_t)kk * nf * 512, b_l1, l2d_cfg(kk, nf, kf, 0, 1), 0);
        ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    }
    AscIssued q = issue(ASC_OP_MMAD_F16F32, 0, 0, 0, mmad_cfg(m, k, n, 1));
    ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    q = issue(ASC_OP_FIX_L0C_TO_OUT_F32, 0x1000000, 0, fix_cfg(n, 0, m, 0, 0), 0);
    ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    ck_assert_uint_eq(st.bytes, (uint64_t)m * n * 4);
    float *out = malloc(sizeof(float) * m * n);
    ck_assert(asc_gm_read(e->ctx.gm, 0x1000000, out, sizeof(float) * m * n));
    for (unsigned r = 0; r < m; r++)
        for (unsigned c = 0; c < n; c++) {
            double s = 0;
            for (unsigned j = 0; j < k; j++) s += va[r * k + j] * vb[j * n + c];
            double err = fabs(out[r * n + c] - s);
            ck_assert_msg(err <= 1e-6 * fabs(s) + 1e-30, "%ux%ux%u (%u,%u): %g vs %g", m, k, n, r, c, out[r * n + c], s);
        }
    free(out);
    free(a);
    free(b);
    free(va);
    free(vb);
}

START_TEST(f16_matmul_pipeline)
{
    Env e;
    env_init(&e);
    f16_pipeline(&e, 64, 64, 64);
    f16_pipeline(&e, 30, 70, 40);
    env_free(&e);
}
END_TEST

START_TEST(fixpipe)
{
    Env e;
    env_init(&e);
    unsigned m = 20, n = 37, S = 32; /* srcstride 32 rows (>= m) */
    uint8_t *l0c = e.buf[ASC_BUF_L0C];
    float vals[20][37];
    for (unsigned r = 0; r < m; r++)
        for (unsigned c = 0; c < n; c++) {
            float v = (float)(((double)(int)(rnd(&e) % 200001) - 100000) / 1000.7);
            if (r == 1 && c == 1) v = 70000.0f;             /* overflows f16 */
            if (r == 2 && c == 2) v = 1.0f + 0x1p-11f;      /* f16 tie */
            if (r == 3 && c == 3) v = -0.0f;
            vals[r][c] = v;
            memcpy(l0c + 0x400 + (((c / 16) * S + r) * 16 + c % 16) * 4, &v, 4);
        }
    const AscOp ops[] = {ASC_OP_FIX_L0C_TO_OUT_F32, ASC_OP_FIX_L0C_TO_OUT_F16, ASC_OP_FIX_L0C_TO_OUT_BF16};
    for (unsigned k = 0; k < 3; k++)
        for (unsigned relu = 0; relu < 2; relu++) {
            unsigned D = 50, osz = k == 0 ? 4 : 2;
            uint64_t dst = 0x2000000 + (k * 2 + relu) * 0x10000;
            AscIssued q = issue(ops[k], dst, 0x400, fix_cfg(n, relu, m, S, D), 0);
            AscExecStats st;
            ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
            ck_assert_uint_eq(st.bytes, (uint64_t)m * n * osz);
            for (unsigned r = 0; r < m; r++)
                for (unsigned c = 0; c < D; c++) {
                    uint8_t got[4] = {0}, want[4] = {0};
                    ck_assert(asc_gm_read(e.ctx.gm, dst + (r * D + c) * osz, got, osz));
                    if (c < n) {
                        double v = vals[r][c];
                        if (relu && !(v > 0)) v = 0.0;
                        uint16_t h;
                        float f = (float)v;
                        if (k == 0) memcpy(want, &f, 4);
                        if (k == 1) { h = ref_to_half(v, 1); memcpy(want, &h, 2); }
                        if (k == 2) { h = ref_to_bf16(v, 1); memcpy(want, &h, 2); }
                    }
                    ck_assert_msg(memcmp(got, want, osz) == 0, "%s relu %u (%u,%u)", asc_insn_info[ops[k]].mnemonic,
                                  relu, r, c);
                }
        }
    /* the coupled path into UB */
    AscIssued q = issue(ASC_OP_MOV_L0C_TO_UB_F16, 0x100, 0x400, fix_cfg(n, 0, m, S, 0), 0);
    AscExecStats st;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.dst_buf, ASC_BUF_UB);
    uint16_t h;
    memcpy(&h, e.buf[ASC_BUF_UB] + 0x100 + (2 * n + 2) * 2, 2);
    ck_assert_uint_eq(h, 0x3c00);
    memcpy(&h, e.buf[ASC_BUF_UB] + 0x100 + (1 * n + 1) * 2, 2);
    ck_assert_uint_eq(h, 0x7c00);
    /* faults */
    q = issue(ASC_OP_FIX_L0C_TO_OUT_F16, 0x3000001, 0x400, fix_cfg(n, 0, m, S, 0), 0);
    expect_fault(&e, &q, "GM write of dst [0x3000001, 0x30005c9) is misaligned: must be a multiple of the element size 2 B");
    q = issue(ASC_OP_FIX_L0C_TO_OUT_F32, 0xfffffff0ull, 0x400, fix_cfg(n, 0, m, S, 0), 0);
    expect_fault(&e, &q, "is outside GM (0x100000000 bytes)");
    q = issue(ASC_OP_FIX_L0C_TO_OUT_F32, 0, 0x420, fix_cfg(n, 0, m, S, 0), 0);
    expect_fault(&e, &q, "misaligned: L0C addresses must be multiples of 64 B");
    q = issue(ASC_OP_FIX_L0C_TO_OUT_F32, 0, 0x1f000, fix_cfg(32, 0, 64, 0, 0), 0);
    expect_fault(&e, &q, "L0C read of src [0x1f000, 0x21000) is outside L0C (0x20000 bytes usable)");
    q = issue(ASC_OP_FIX_L0C_TO_OUT_F32, 0, 0, fix_cfg(16, 0, 16, 0, 0) | (1ull << 12), 0);
    expect_fault(&e, &q, "fixpipe config field quant is 1: quantisation is fix_l0c_to_out.q's (0 here)");
    q = issue(ASC_OP_FIX_L0C_TO_OUT_F32, 0, 0, fix_cfg(16, 0, 32, 16, 0), 0);
    expect_fault(&e, &q, "srcstride 16 is below m = 32");
    env_free(&e);
}
END_TEST

START_TEST(mmad_faults)
{
    Env e;
    env_init(&e);
    /* 256 rows x 64 k of f16 = 16 x 4 fractals = 32 KB at 0x8200: past L0A's end */
    AscIssued q = issue(ASC_OP_MMAD_F16F32, 0, 0x8200, 0, mmad_cfg(256, 64, 16, 1));
    expect_fault(&e, &q, "L0A read of A [0x8200, 0x10200) is outside L0A (0x10000 bytes usable)");
    q = issue(ASC_OP_MMAD_F16F32, 0, 0, 0x100, mmad_cfg(16, 16, 16, 1));
    expect_fault(&e, &q, "L0B read of B [0x100, 0x300) is misaligned: L0B addresses must be multiples of 512 B");
    q = issue(ASC_OP_MMAD_F16F32, 0x20, 0, 0, mmad_cfg(16, 16, 16, 1));
    expect_fault(&e, &q, "L0C write of C [0x20, 0x420) is misaligned");
    q = issue(ASC_OP_MMAD_F32F32, 0x1fc00, 0, 0, mmad_cfg(32, 8, 16, 1));
    expect_fault(&e, &q, "L0C write of C [0x1fc00, 0x20400) is outside L0C");
    q = issue(ASC_OP_MMAD_F16F32, 0, 0, 0, mmad_cfg(16, 16, 16, 1) | (1ull << 40));
    expect_fault(&e, &q, "reserved bits 0x0000010000000000 of the MMAD layout");
    env_free(&e);
}
END_TEST

/* ---- GM -------------------------------------------------------------------- */

typedef struct CountAlloc {
    int calls, fail_after;
} CountAlloc;

static void *count_alloc(void *ud, size_t size)
{
    CountAlloc *c = ud;
    if (c->fail_after >= 0 && c->calls >= c->fail_after) return NULL;
    c->calls++;
    return malloc(size);
}

static void count_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

START_TEST(gm_lazy)
{
    AscGm *gm = asc_gm_new(NULL, 4ull << 30);
    ck_assert_uint_eq(asc_gm_size(gm), 4ull << 30);
    ck_assert_uint_eq(asc_gm_backed_bytes(gm), 0);
    uint8_t x = 0x5a, y = 1;
    ck_assert(asc_gm_write(gm, 900ull << 20, &x, 1));
    ck_assert_uint_le(asc_gm_backed_bytes(gm), 65536);
    ck_assert(asc_gm_read(gm, 900ull << 20, &y, 1));
    ck_assert_uint_eq(y, 0x5a);
    /* reading 1 GB of never-written space allocates nothing */
    static uint8_t chunk[1 << 20];
    for (uint64_t a = 0; a < (1ull << 30); a += sizeof chunk) ck_assert(asc_gm_read(gm, a + (2ull << 30), chunk, sizeof chunk));
    ck_assert_uint_eq(chunk[0], 0);
    ck_assert_uint_le(asc_gm_backed_bytes(gm), 65536);
    /* a write across a page boundary backs two pages */
    uint8_t buf[64];
    memset(buf, 7, sizeof buf);
    ck_assert(asc_gm_write(gm, 0x1ffe0, buf, sizeof buf));
    ck_assert_uint_eq(asc_gm_backed_bytes(gm), 3 * 65536);
    ck_assert(!asc_gm_write(gm, (4ull << 30) - 1, buf, 2));
    ck_assert(!asc_gm_read(gm, 4ull << 30, buf, 1));
    ck_assert(asc_gm_read(gm, (4ull << 30) - 1, buf, 1));
    asc_gm_free(gm);
    /* host allocation failures are reported, not crashes */
    CountAlloc c0 = {0, 0}; /* the first allocation fails */
    AscAlloc a0 = {count_alloc, count_free, &c0};
    ck_assert(asc_gm_new(&a0, 1ull << 32) == NULL);
    CountAlloc c = {0, 2}; /* gm + top level succeed, the leaf fails */
    AscAlloc a = {count_alloc, count_free, &c};
    AscGm *g = asc_gm_new(&a, 1ull << 32);
    ck_assert(g != NULL);
    ck_assert(!asc_gm_write(g, 0, &x, 1));
    ck_assert_uint_eq(asc_gm_backed_bytes(g), 0);
    asc_gm_free(g);
}
END_TEST

/* Big writes: asc_gm_reserve then writes of disjoint pieces (as sim.c fills a tensor in parts)
 * give the bytes of one write, with the default allocator (huge-page slabs on Linux) and a
 * caller's allocator (whole pages not zeroed first); untouched bytes of the edge pages and
 * pages around them read as zero. */
START_TEST(gm_reserve_parts)
{
    CountAlloc c = {0, 1000000};
    AscAlloc ca = {count_alloc, count_free, &c};
    const size_t n = 3 * 65536 + 1000;
    uint8_t *src = malloc(n), *got = malloc(n + 2 * 65536);
    for (size_t i = 0; i < n; i++) src[i] = (uint8_t)(i * 7 + 3);
    for (int mode = 0; mode < 2; mode++) {
        AscGm *gm = asc_gm_new(mode ? &ca : NULL, 1ull << 30);
        ck_assert(gm != NULL);
        uint64_t at = (5ull << 20) + 12345; /* neither page- nor slab-aligned */
        ck_assert(asc_gm_reserve(gm, at, n));
        ck_assert_uint_eq(asc_gm_backed_bytes(gm), 4 * 65536); /* as asc_gm_write would back */
        const size_t cut[] = {0, 1, 65536, 100000, n};
        for (int p = 3; p >= 0; p--) ck_assert(asc_gm_write(gm, at + cut[p], src + cut[p], cut[p + 1] - cut[p]));
        ck_assert_uint_eq(asc_gm_backed_bytes(gm), 4 * 65536);
        ck_assert(asc_gm_read(gm, at - 65536, got, n + 2 * 65536));
        for (size_t i = 0; i < 65536; i++) ck_assert_uint_eq(got[i], 0);
        ck_assert(memcmp(got + 65536, src, n) == 0);
        for (size_t i = 65536 + n; i < n + 2 * 65536; i++) ck_assert_uint_eq(got[i], 0);
        ck_assert(!asc_gm_reserve(gm, (1ull << 30) - 10, 11)); /* outside GM */
        asc_gm_free(gm);
    }
    free(src);
    free(got);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_cube_dma");
    TCase *tc = tcase_create("exec_cube_dma");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, dma_bursts);
    tcase_add_test(tc, dma_faults);
    tcase_add_test(tc, dma_atomic);
    tcase_add_test(tc, dma_nd2nz);
    tcase_add_test(tc, load2d);
    tcase_add_test(tc, mmad_types);
    tcase_add_test(tc, mmad_portable_and_fast);
    tcase_add_test(tc, mmad_parts);
    tcase_add_test(tc, mmad_f16_all_values);
    tcase_add_test(tc, f16_matmul_pipeline);
    tcase_add_test(tc, fixpipe);
    tcase_add_test(tc, mmad_faults);
    tcase_add_test(tc, gm_lazy);
    tcase_add_test(tc, gm_reserve_parts);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
