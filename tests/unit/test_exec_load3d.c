/* test_exec_load3d.c -- load3dv2 (LoadData3D v2, im2col L1 -> L0A / L0B).
 *
 * The reference is built here the way the Ascend C reference model does it
 * (cannmirror/asc-devkit examples/.../load_data_l12l0/scripts/load3d.py):
 * pad the whole feature map with the padding value into a host array, form
 * the dense im2col matrix A[m][k] (k = (c1*FH*FW + i*FW + j)*C0 + c0), cut
 * the window, and lay it out with the fractal formulas of the mmad operands
 * (exec_cube.c header: ZZ for L0A, ZN for L0B); it never calls the
 * simulator's address helpers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../sim/exec_internal.h"
#include "check_main.h"
#include "exec_env.h"

/* One load3dv2 case: the feature map, the registers and the window. */
typedef struct Case {
    unsigned es, c1, h, w, pad[4], fh, fw, sh, sw, dh, dw;
    unsigned mstart, mext, kstart, kext;
    bool l0b, transpose;
    uint32_t padval;
    uint64_t src, dst, bnd;
} Case;

static uint64_t fmatrix(const Case *k)
{
    return (uint64_t)k->w | (uint64_t)k->h << 16 | (uint64_t)k->pad[0] << 32 | (uint64_t)k->pad[1] << 40 |
           (uint64_t)k->pad[2] << 48 | (uint64_t)k->pad[3] << 56;
}

static AscIssued issue(const Case *k)
{
    AscIssued q;
    memset(&q, 0, sizeof q);
    q.in.op = ASC_OP_LOAD3DV2;
    q.rd = k->dst;
    q.rs1 = k->src;
    unsigned c0 = 32 / k->es, lg = k->es == 1 ? 0 : k->es == 2 ? 1 : 2;
    q.rs2 = (uint64_t)k->kext | (uint64_t)k->mext << 16 | (uint64_t)k->kstart << 32 | (uint64_t)k->mstart << 48 |
            (uint64_t)k->l0b << 63;
    q.rs3 = (uint64_t)k->sw | (uint64_t)k->sh << 6 | (uint64_t)k->fw << 12 | (uint64_t)k->fh << 20 |
            (uint64_t)k->dw << 28 | (uint64_t)k->dh << 36 | (uint64_t)lg << 44 | (uint64_t)k->transpose << 46 |
            (uint64_t)(k->c1 * c0) << 48;
    q.l3d[0] = fmatrix(k);
    q.l3d[1] = k->padval;
    q.l3d[2] = 1ull << 16; /* repeatTime 1 */
    q.l3d[3] = k->bnd;
    return q;
}

static bool run(Env *e, const AscIssued *q, AscExecStats *st)
{
    memset(st, 0, sizeof *st);
    e->ctx.fault[0] = 0;
    return asc_exec_LOAD3D(&e->ctx, q, ASC_DT_NONE, ASC_DT_NONE, st);
}

/* Expected destination bytes (dst buffer image of dspan bytes, prefilled
 * with `fill`), computed from the padded map and the dense im2col matrix. */
static uint8_t *reference(const Case *k, const uint8_t *l1, uint8_t fill, size_t *span)
{
    unsigned es = k->es, c0 = 32 / es;
    unsigned hp = k->h + k->pad[2] + k->pad[3], wp = k->w + k->pad[0] + k->pad[1];
    unsigned kh = (k->fh - 1) * k->dh + 1, kw = (k->fw - 1) * k->dw + 1;
    unsigned hout = (hp - kh) / k->sh + 1, wout = (wp - kw) / k->sw + 1;
    unsigned M = hout * wout, K = k->c1 * k->fh * k->fw * c0;
    /* padded map [c1][hp][wp][c0] of elements */
    uint8_t *pm = malloc((size_t)k->c1 * hp * wp * 32);
    for (unsigned c = 0; c < k->c1; c++)
        for (unsigned y = 0; y < hp; y++)
            for (unsigned x = 0; x < wp; x++)
                for (unsigned e = 0; e < c0; e++) {
                    uint8_t *d = pm + (((size_t)c * hp + y) * wp + x) * 32 + e * es;
                    int iy = (int)y - (int)k->pad[2], ix = (int)x - (int)k->pad[0];
                    if (iy < 0 || ix < 0 || iy >= (int)k->h || ix >= (int)k->w) {
                        memcpy(d, &k->padval, es); /* little-endian host, as the buffers */
                        continue;
                    }
                    uint64_t a = k->src + (((uint64_t)c * k->h + (unsigned)iy) * k->w + (unsigned)ix) * 32 + e * es;
                    if (k->bnd) a %= k->bnd;
                    memcpy(d, l1 + a, es);
                }
    /* dense im2col A[M][K] */
    uint8_t *A = malloc((size_t)M * K * es);
    for (unsigned ho = 0; ho < hout; ho++)
        for (unsigned wo = 0; wo < wout; wo++)
            for (unsigned c = 0; c < k->c1; c++)
                for (unsigned i = 0; i < k->fh; i++)
                    for (unsigned j = 0; j < k->fw; j++)
                        for (unsigned e = 0; e < c0; e++) {
                            unsigned m = ho * wout + wo, col = ((c * k->fh + i) * k->fw + j) * c0 + e;
                            unsigned y = ho * k->sh + i * k->dh, x = wo * k->sw + j * k->dw;
                            memcpy(A + ((size_t)m * K + col) * es, pm + (((size_t)c * hp + y) * wp + x) * 32 + e * es,
                                   es);
                        }
    unsigned Mf = (k->mext + 15) / 16, Kf = k->kext / c0;
    *span = (size_t)Mf * Kf * 512;
    uint8_t *out = malloc(*span);
    memset(out, fill, *span);
    for (unsigned r = 0; r < k->mext; r++)
        for (unsigned c = 0; c < k->kext; c++) {
            size_t off;
            if (k->l0b) /* ZN: B(r, c) with K = r: fractal (r/16, c/C0) in row-major fractal order, column-major inside */
                off = ((size_t)(r / 16) * Kf + c / c0) * 512 + ((c % c0) * 16 + r % 16) * es;
            else if (k->transpose)
                off = ((size_t)(c / c0) * Mf + r / 16) * 512 + ((c % c0) * 16 + r % 16) * es;
            else /* ZZ */
                off = ((size_t)(r / 16) * Kf + c / c0) * 512 + ((r % 16) * c0 + c % c0) * es;
            memcpy(out + off, A + ((size_t)(k->mstart + r) * K + k->kstart + c) * es, es);
        }
    (void)M;
    free(A);
    free(pm);
    return out;
}

static void check_case(Env *e, const Case *k)
{
    AscBuf db = k->l0b ? ASC_BUF_L0B : ASC_BUF_L0A;
    uint8_t *l1 = e->buf[ASC_BUF_L1], *dst = e->buf[db] + k->dst;
    for (unsigned i = 0; i < 65536; i++) l1[i] = (uint8_t)rnd(e);
    size_t span;
    uint8_t *want = reference(k, l1, 0xab, &span);
    memset(dst, 0xab, span);
    AscIssued q = issue(k);
    AscExecStats st;
    ck_assert_msg(run(e, &q, &st), "%s", e->ctx.fault);
    unsigned c0 = 32 / k->es;
    ck_assert_uint_eq(st.bytes, (uint64_t)k->mext * (k->kext / c0) * 32);
    for (size_t i = 0; i < span; i++)
        ck_assert_msg(dst[i] == want[i], "byte %zu of %zu: got 0x%02x want 0x%02x", i, span, dst[i], want[i]);
    free(want);
}

START_TEST(im2col_l0a_b16)
{
    Env e;
    env_init(&e);
    /* 7x9 map, 2 channel planes (32 channels), 3x3 filter, pad 1, stride 1:
     * the whole 63 x 288 matrix (last fractal row partial) */
    Case k = {.es = 2, .c1 = 2, .h = 7, .w = 9, .pad = {1, 1, 1, 1}, .fh = 3, .fw = 3, .sh = 1, .sw = 1, .dh = 1,
              .dw = 1, .mstart = 0, .mext = 63, .kstart = 0, .kext = 288, .padval = 0x3c00, .src = 0x40,
              .dst = 512};
    check_case(&e, &k);
    /* stride 2, dilation 2 in H, asymmetric pads, an inner window */
    Case k2 = {.es = 2, .c1 = 3, .h = 7, .w = 9, .pad = {2, 0, 1, 3}, .fh = 2, .fw = 3, .sh = 2, .sw = 2, .dh = 2,
               .dw = 1, .mstart = 0, .mext = 16, .kstart = 32, .kext = 64, .padval = 0xfbff, .src = 0};
    check_case(&e, &k2);
    /* stride 2 along both, a 1x1 map, one output */
    Case k3 = {.es = 2, .c1 = 1, .h = 1, .w = 1, .pad = {1, 1, 1, 1}, .fh = 3, .fw = 3, .sh = 2, .sw = 2, .dh = 1,
               .dw = 1, .mstart = 0, .mext = 1, .kstart = 0, .kext = 144, .padval = 7, .src = 0x2000};
    check_case(&e, &k3);
    env_free(&e);
}
END_TEST

START_TEST(im2col_transposed_l0b_b8_b32)
{
    Env e;
    env_init(&e);
    Case t = {.es = 2, .c1 = 2, .h = 5, .w = 7, .pad = {1, 0, 0, 1}, .fh = 2, .fw = 2, .sh = 1, .sw = 2, .dh = 1,
              .dw = 1, .mstart = 0, .mext = 20, .kstart = 16, .kext = 96, .transpose = true, .padval = 0x1234};
    check_case(&e, &t); /* Hout 5, Wout 4: M = 20, the window reaches the last row */
    Case b = t;
    b.transpose = false;
    b.l0b = true;
    b.dst = 1024;
    check_case(&e, &b);
    Case b8 = {.es = 1, .c1 = 2, .h = 4, .w = 5, .pad = {1, 1, 1, 1}, .fh = 3, .fw = 3, .sh = 1, .sw = 1, .dh = 1,
               .dw = 1, .mstart = 0, .mext = 20, .kstart = 0, .kext = 576, .padval = 0x80};
    check_case(&e, &b8);
    Case b32 = {.es = 4, .c1 = 3, .h = 6, .w = 3, .pad = {0, 1, 1, 0}, .fh = 2, .fw = 1, .sh = 1, .sw = 1, .dh = 1,
                .dw = 1, .mstart = 16, .mext = 8, .kstart = 8, .kext = 40, .padval = 0x3f800000u};
    check_case(&e, &b32); /* Hout 6, Wout 4: M = 24, the window reaches the last row and column */
    env_free(&e);
}
END_TEST

START_TEST(im2col_boundary_wrap)
{
    Env e;
    env_init(&e);
    /* 7x9 pixels of 32 B = 2016 B per plane from 0x200: with a 1024 B
     * boundary every source address is taken modulo 1024 */
    Case k = {.es = 2, .c1 = 1, .h = 7, .w = 9, .pad = {1, 1, 1, 1}, .fh = 3, .fw = 3, .sh = 2, .sw = 1, .dh = 1,
              .dw = 1, .mstart = 0, .mext = 16, .kstart = 0, .kext = 144, .padval = 0, .src = 0x200, .bnd = 1024};
    check_case(&e, &k);
    env_free(&e);
}
END_TEST

static void expect_fault(Env *e, const AscIssued *q, const char *needle)
{
    AscExecStats st;
    ck_assert_msg(!run(e, q, &st), "expected a fault containing '%s'", needle);
    ck_assert_msg(strstr(e->ctx.fault, needle) != NULL, "fault '%s' lacks '%s'", e->ctx.fault, needle);
}

START_TEST(load3d_faults_and_noops)
{
    Env e;
    env_init(&e);
    Case k = {.es = 2, .c1 = 1, .h = 4, .w = 4, .pad = {1, 1, 1, 1}, .fh = 3, .fw = 3, .sh = 1, .sw = 1, .dh = 1,
              .dw = 1, .mstart = 0, .mext = 16, .kstart = 0, .kext = 144};
    AscIssued q = issue(&k);
    AscExecStats st;
    ck_assert_msg(run(&e, &q, &st), "%s", e.ctx.fault);
    /* source past the end of L1 (512 KiB on ascend910b) */
    q = issue(&k);
    q.rs1 = 0x7ff00;
    expect_fault(&e, &q, "L1 read of src pixel");
    /* destination past L0A */
    q = issue(&k);
    q.rd = 0xfe00;
    expect_fault(&e, &q, "outside L0A");
    q = issue(&k);
    q.rd = 0x100;
    expect_fault(&e, &q, "misaligned");
    /* channels 20: the small-channel mode */
    q = issue(&k);
    q.rs3 = (q.rs3 & 0xffffffffffffull) | 20ull << 48;
    expect_fault(&e, &q, "channelSize 20 is not a multiple of C0 = 16");
    q = issue(&k);
    q.l3d[2] = 2ull << 16;
    expect_fault(&e, &q, "repeatTime 2");
    Case w = k;
    w.mstart = 16; /* M = 16 */
    q = issue(&w);
    expect_fault(&e, &q, "leaves the im2col matrix of 16 x 144");
    w = k;
    w.kstart = 8;
    q = issue(&w);
    expect_fault(&e, &q, "kStartPt 8 is not a multiple of C0 = 16");
    w = k;
    w.bnd = 512;
    q = issue(&w);
    expect_fault(&e, &q, "boundary l1_3d_size 512");
    w = k;
    w.es = 4;
    w.l0b = true;
    q = issue(&w);
    expect_fault(&e, &q, "only b16 is modelled");
    w = k;
    w.fh = 9;
    q = issue(&w);
    expect_fault(&e, &q, "larger than the padded feature map");
    q = issue(&k);
    q.rs3 |= 1ull << 47;
    expect_fault(&e, &q, "reserved");
    /* documented no-ops: a zero width, channel or extension writes nothing */
    memset(e.buf[ASC_BUF_L0A], 0x5a, 512);
    q = issue(&k);
    q.l3d[0] &= ~0xffffull;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.bytes, 0);
    q = issue(&k);
    q.rs2 &= ~0xffffull;
    ck_assert(run(&e, &q, &st));
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert_uint_eq(e.buf[ASC_BUF_L0A][0], 0x5a);
    ck_assert_uint_eq(e.buf[ASC_BUF_L0A][511], 0x5a);
    env_free(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_load3d");
    TCase *tc = tcase_create("exec_load3d");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, im2col_l0a_b16);
    tcase_add_test(tc, im2col_transposed_l0b_b8_b32);
    tcase_add_test(tc, im2col_boundary_wrap);
    tcase_add_test(tc, load3d_faults_and_noops);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
