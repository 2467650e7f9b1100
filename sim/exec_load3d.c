/* exec_load3d.c -- load3dv2: LoadData3D v2, the image-to-column load of an
 * NC1HWC0 feature map in L1 into L0A (ZZ) or L0B (ZN).
 *
 * Users: the engine's generated dispatch (FAM column LOAD3D).
 *
 * Sources (read, not copied): cannmirror/asc-devkit
 * impl/basic_api/dav_c220/kernel_operator_mm_impl.h (LoadData3DV2L12L0ACal /
 * L0BCal -> img2colv2_cbuf_to_ca / _cb; Load3DSetFMatrixCal -> set_fmatrix,
 * Load3DSetPaddingCal -> set_padding, SetLoadDataRepeatCal -> set_l3d_rpt,
 * SetLoadDataBoundaryCal -> set_l1_3d_size), its documentation page
 * docs/zh/api/SIMD-API/.../LoadData_3D.md (constraints, ZZ/ZN layouts on
 * A2/A3) and its reference model
 * examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/load_data_l12l0/scripts/load3d.py
 * (nc1hwc0_im2col, move_to_l0a, move_to_l0b).
 *
 * Semantics.  Element size es (config esize), C0 = 32 / es.  The feature map
 * at L1 rs1 is C1 = channel / C0 planes of l1H x l1W pixels of C0 elements:
 * element (c1, h, w, c0) at rs1 + ((c1*l1H + h)*l1W + w)*32 + c0*es.  With
 * the pads of SPR fmatrix (left, right, top, bottom), the dilated filter
 * KW = (filterW-1)*dilW + 1 (KH alike), Wout = (l1W + pl + pr - KW)/strideW + 1
 * and Hout alike, the im2col matrix has M = Hout*Wout rows and
 * K = C1*filterH*filterW*C0 columns:
 *   row m = ho*Wout + wo, column k = (c1*filterH*filterW + i*filterW + j)*C0 + c0
 *   value = fm(c1, ho*strideH - pt + i*dilH, wo*strideW - pl + j*dilW, c0),
 *           or the padding value (low es bytes of SPR padding) outside the map.
 * The window [mstart, mstart+mext) x [kstart, kstart+kext) is written as
 * Mf = ceil(mext/16) x Kf = kext/C0 fractals of 16 x C0 (512 B), window
 * element (r, c):
 *   L0A:            fractal (r/16)*Kf + c/C0, element (r%16)*C0 + c%C0 (ZZ, what mmad reads)
 *   L0A transposed: fractal (c/C0)*Mf + r/16, element (c%C0)*16 + r%16 (b16 only)
 *   L0B:            fractal (r/16)*Kf + c/C0, element (c%C0)*16 + r%16 (ZN with K = the
 *                   window rows, N = its columns; always transposed, b16 only here)
 * Rows r >= mext of the last row of fractals are left untouched.
 * SPR l1_3d_size (boundary, bytes): 0 = none; otherwise every source address
 * is taken modulo it ("reads continue from the start of L1").
 *
 * No-ops, as the documentation lists them: l1W, l1H, channel, kext, mext,
 * filterW or filterH 0.  Faults (a clear message, nothing written): reserved
 * bits, stride or dilation 0, channel not a multiple of C0 (the small-channel
 * modes 4, 8, N*C0+4 ... are not modelled), kstart not a multiple of C0, kext
 * not a multiple of C0 or mext of 16 unless the window reaches the last
 * column / row, a window past M or K, a map smaller than the dilated filter,
 * b8 or b32 into L0B or transposed (b8: not on dav_c220; b32: not modelled),
 * repeatTime > 1 (not modelled), a boundary below 1024 or not a multiple of
 * 32 or at most rs1, and any source row or the destination outside its buffer.
 *
 * Cost: F_DMA with latency class L0 and no bursts, exactly like
 * load_l1_to_l0a_2d: setup, then the bytes written (mext rows of Kf*32 B) at
 * the L1 -> L0 rate (sim/core.c start_transfer).  A 16 x 144 f16 window
 * (4608 B) and load_l1_to_l0a_2d repeat=9 both take 29 + 20 cycles on
 * ascend910b (asc-sim run of a one-instruction kernel).
 *
 * Invariant: every check before any write; no allocation. */
#include <string.h>

#include "exec_internal.h"

typedef struct L3d {
    uint64_t kext, mext, kstart, mstart;
    bool l0b, transpose;
    uint64_t sw, sh, fw, fh, dw, dh, es, c0, channel;
    uint64_t l1w, l1h, pad[4]; /* left, right, top, bottom */
    uint64_t wout, hout, mf, kf;
    uint64_t src, dst, bnd;
} L3d;

/* L1 address of window row r (absolute m = mstart + r), column block b
 * (absolute kstart/C0 + b); false when it falls in the padding. */
static bool l3d_src(const L3d *p, uint64_t r, uint64_t b, uint64_t *addr)
{
    uint64_t m = p->mstart + r, kb = p->kstart / p->c0 + b, taps = p->fh * p->fw;
    uint64_t c1 = kb / taps, pos = kb % taps, i = pos / p->fw, j = pos % p->fw;
    int64_t h = (int64_t)((m / p->wout) * p->sh + i * p->dh) - (int64_t)p->pad[2];
    int64_t w = (int64_t)((m % p->wout) * p->sw + j * p->dw) - (int64_t)p->pad[0];
    if (h < 0 || w < 0 || (uint64_t)h >= p->l1h || (uint64_t)w >= p->l1w) return false;
    uint64_t a = p->src + ((c1 * p->l1h + (uint64_t)h) * p->l1w + (uint64_t)w) * 32;
    *addr = p->bnd ? a % p->bnd : a;
    return true;
}

/* Byte offset in the destination of window element (r, block b, lane e). */
static uint64_t l3d_dst(const L3d *p, uint64_t r, uint64_t b, uint64_t e)
{
    if (!p->l0b && !p->transpose) return ((r / 16) * p->kf + b) * 512 + ((r % 16) * p->c0 + e) * p->es;
    uint64_t frac = p->l0b ? (r / 16) * p->kf + b : b * p->mf + r / 16;
    return frac * 512 + (e * 16 + r % 16) * p->es;
}

ASC_EXEC_FN(LOAD3D)
{
    (void)dt0, (void)dt1;
    uint64_t ext = q->rs2, flt = q->rs3, fm = q->l3d[0], rpt = q->l3d[2];
    if (!asc_exec_check_cfg(ctx, ASC_CFG_L3DX, ext)) return false;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_L3DF, flt)) return false;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_L3DRPT, rpt)) return false;
    L3d p = {
        .kext = ext & 0xffff, .mext = (ext >> 16) & 0xffff, .kstart = (ext >> 32) & 0xffff,
        .mstart = (ext >> 48) & 0x7fff, .l0b = (ext >> 63) & 1,
        .sw = flt & 0x3f, .sh = (flt >> 6) & 0x3f, .fw = (flt >> 12) & 0xff, .fh = (flt >> 20) & 0xff,
        .dw = (flt >> 28) & 0xff, .dh = (flt >> 36) & 0xff, .transpose = (flt >> 46) & 1,
        .channel = (flt >> 48) & 0xffff,
        .l1w = fm & 0xffff, .l1h = (fm >> 16) & 0xffff,
        .pad = {(fm >> 32) & 0xff, (fm >> 40) & 0xff, (fm >> 48) & 0xff, (fm >> 56) & 0xff},
        .src = q->rs1, .dst = q->rd, .bnd = q->l3d[3],
    };
    AscBuf dbuf = p.l0b ? ASC_BUF_L0B : ASC_BUF_L0A;
    st->src_buf = ASC_BUF_L1;
    st->dst_buf = (uint8_t)dbuf;
    unsigned esize = (unsigned)((flt >> 44) & 3);
    if (esize == 3) return asc_exec_fault(ctx, "load3dv2 esize 3 is reserved: 0 b8, 1 b16, 2 b32");
    p.es = 1ull << esize;
    p.c0 = 32 / p.es;
    if (!p.l1w || !p.l1h || !p.channel || !p.kext || !p.mext || !p.fw || !p.fh) return true; /* documented no-op */
    if (((rpt >> 16) & 0xff) > 1)
        return asc_exec_fault(ctx, "load3dv2 with l3d_rpt repeatTime %u: repeats beyond 1 are not modelled "
                                   "(set_load_data_repeat with repeat_time 0 or 1)",
                              (unsigned)((rpt >> 16) & 0xff));
    if (!p.sw || !p.sh || !p.dw || !p.dh)
        return asc_exec_fault(ctx, "load3dv2 stride %llux%llu / dilation %llux%llu: each must be at least 1",
                              (unsigned long long)p.sw, (unsigned long long)p.sh, (unsigned long long)p.dw,
                              (unsigned long long)p.dh);
    if (p.channel % p.c0)
        return asc_exec_fault(ctx, "load3dv2 channelSize %llu is not a multiple of C0 = %llu (b%u): the "
                                   "small-channel modes are not modelled; pad the channels to C1*C0 in L1",
                              (unsigned long long)p.channel, (unsigned long long)p.c0, (unsigned)(8 * p.es));
    if (p.es != 2 && (p.l0b || p.transpose))
        return asc_exec_fault(ctx, "load3dv2 of b%u %s: only b16 is modelled there (b8 is not supported on "
                                   "dav_c220, b32 is not modelled)",
                              (unsigned)(8 * p.es), p.l0b ? "into L0B" : "with transpose");
    uint64_t kw = (p.fw - 1) * p.dw + 1, kh = (p.fh - 1) * p.dh + 1;
    uint64_t wp = p.l1w + p.pad[0] + p.pad[1], hp = p.l1h + p.pad[2] + p.pad[3];
    if (wp < kw || hp < kh)
        return asc_exec_fault(ctx, "load3dv2 dilated filter %llux%llu (HxW) is larger than the padded feature map "
                                   "%llux%llu",
                              (unsigned long long)kh, (unsigned long long)kw, (unsigned long long)hp,
                              (unsigned long long)wp);
    p.wout = (wp - kw) / p.sw + 1;
    p.hout = (hp - kh) / p.sh + 1;
    uint64_t mtot = p.hout * p.wout, ktot = p.channel * p.fh * p.fw;
    if (p.kstart % p.c0)
        return asc_exec_fault(ctx, "load3dv2 kStartPt %llu is not a multiple of C0 = %llu",
                              (unsigned long long)p.kstart, (unsigned long long)p.c0);
    if (p.mstart + p.mext > mtot || p.kstart + p.kext > ktot)
        return asc_exec_fault(ctx, "load3dv2 window rows [%llu, %llu) x columns [%llu, %llu) leaves the im2col "
                                   "matrix of %llu x %llu (Hout %llu x Wout %llu, K = channels*filterH*filterW)",
                              (unsigned long long)p.mstart, (unsigned long long)(p.mstart + p.mext),
                              (unsigned long long)p.kstart, (unsigned long long)(p.kstart + p.kext),
                              (unsigned long long)mtot, (unsigned long long)ktot, (unsigned long long)p.hout,
                              (unsigned long long)p.wout);
    if (p.kext % p.c0)
        return asc_exec_fault(ctx, "load3dv2 kExtension %llu is not a multiple of C0 = %llu",
                              (unsigned long long)p.kext, (unsigned long long)p.c0);
    if (p.mext % 16 && p.mstart + p.mext != mtot)
        return asc_exec_fault(ctx, "load3dv2 mExtension %llu is not a multiple of 16 and the window does not "
                                   "reach the last row (%llu)",
                              (unsigned long long)p.mext, (unsigned long long)mtot);
    p.mf = (p.mext + 15) / 16;
    p.kf = p.kext / p.c0;
    if (p.bnd && (p.bnd < 1024 || p.bnd % 32 || p.src >= p.bnd))
        return asc_exec_fault(ctx, "load3dv2 boundary l1_3d_size %llu: it must be 0 or a multiple of 32 of at "
                                   "least 1024 above the source address 0x%llx",
                              (unsigned long long)p.bnd, (unsigned long long)p.src);
    if (p.src > UINT64_MAX / 2 || p.dst > UINT64_MAX / 2)
        return asc_exec_fault(ctx, "load3dv2 address 0x%llx / 0x%llx is out of range", (unsigned long long)p.src,
                              (unsigned long long)p.dst);
    uint64_t dspan = p.mf * p.kf * 512;
    if (!asc_exec_check_local(ctx, ASC_BUF_L1, "src", false, p.src, p.src + 32, true)) return false;
    if (!asc_exec_check_local(ctx, dbuf, "dst", true, p.dst, p.dst + dspan, true)) return false;
    for (uint64_t r = 0; r < p.mext; r++)
        for (uint64_t b = 0; b < p.kf; b++) {
            uint64_t a;
            if (l3d_src(&p, r, b, &a) && !asc_exec_check_local(ctx, ASC_BUF_L1, "src pixel", false, a, a + 32, false))
                return false;
        }

    const uint8_t *l1 = ctx->mem[ASC_BUF_L1].data;
    uint8_t *d = ctx->mem[dbuf].data + p.dst, pad[4];
    for (unsigned i = 0; i < 4; i++) pad[i] = (uint8_t)(q->l3d[1] >> (8 * i)); /* little-endian bit pattern */
    for (uint64_t r = 0; r < p.mext; r++)
        for (uint64_t b = 0; b < p.kf; b++) {
            uint64_t a;
            bool in = l3d_src(&p, r, b, &a);
            if (in && ctx->on_access) ctx->on_access(ctx->access_ud, ASC_BUF_L1, a, a + 32, false);
            if (ctx->def) { /* initcheck: the definedness of the bytes written (padding is defined) */
                uint8_t u[32] = {0};
                if (in) ctx->def->l1(ctx->access_ud, a, a + 32, u);
                if (!p.l0b && !p.transpose) {
                    uint64_t o = p.dst + l3d_dst(&p, r, b, 0);
                    ctx->def->put(ctx->access_ud, dbuf, o, o + 32, u);
                } else {
                    for (uint64_t e = 0; e < p.c0; e++) {
                        uint64_t o = p.dst + l3d_dst(&p, r, b, e);
                        ctx->def->put(ctx->access_ud, dbuf, o, o + p.es, u + e * p.es);
                    }
                }
            }
            if (!p.l0b && !p.transpose) {
                uint8_t *row = d + l3d_dst(&p, r, b, 0);
                if (in)
                    memcpy(row, l1 + a, 32);
                else
                    for (uint64_t e = 0; e < p.c0; e++) memcpy(row + e * p.es, pad, p.es);
                continue;
            }
            for (uint64_t e = 0; e < p.c0; e++) memcpy(d + l3d_dst(&p, r, b, e), in ? l1 + a + e * p.es : pad, p.es);
        }
    if (ctx->on_access) ctx->on_access(ctx->access_ud, dbuf, p.dst, p.dst + dspan, true);
    /* no bursts: one command, costed as load2d (setup, then bytes at the L1 -> L0 rate) */
    st->bytes = p.mext * p.kf * 32;
    return true;
}
