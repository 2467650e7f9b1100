/* exec_vgather.c -- the vector gathers: vgather.b16/.b32 (one element per
 * lane from a byte offset) and vgatherb (one 32 B block per offset).
 *
 * Users: the engine's generated dispatch (asc_exec_VGATHER, asc_exec_VGATHERB).
 * Semantics from Ascend C Gather / Gatherb on dav_c220 (cannmirror/asc-devkit
 * impl/basic_api/dav_c220/kernel_operator_vec_gather_impl.h: vgather(dst,
 * offsets, src + srcBaseOffset, dstRepStride, repeat) under the vector mask;
 * vgatherb(dst, offsets, src, dstRepStride, dstBlkStride, repeat) after
 * ResetMask; the count form of impl/basic_api/kernel_operator_vec_gather_intf_impl.h
 * splits into full repeats of 128 (16-bit) / 64 (32-bit) lanes and one tail).
 *
 * vgather: dst = rd, offsets = rs1 (u32 byte offsets), base = rs2 (a UB
 * byte address), config = rs3 (VEC: repeat, dst block and repeat strides).
 * Lane i of repeat r (lanes = 256 / size):
 *   dst  addr = rd + r*rep0*32 + (i/epb)*blk0*32 + (i%epb)*size
 *   off  = u32 at rs1 + 4*(r*lanes + i)
 *   src  addr = rs2 + off   (must lie in UB, a multiple of size)
 * Normal and counter mask modes as every vector instruction; inactive lanes
 * are neither read (offset, source) nor written.
 * vgatherb: block j < 8 of repeat r of dst (rd + r*rep0*32 + j*blk0*32)
 * = the 32 B at rs2 + u32 at rs1 + 4*(8r + j) (a multiple of 32); no mask;
 * a dst block stride of 0 is taken as 1.
 *
 * Cost: each repeat is one vector repeat of the UB bank model, reading the
 * offset blocks and every distinct 32 B source row a lane touches (at most
 * ASC_BANK_MAX_BLOCKS counted), writing the dst blocks.
 *
 * Invariants as exec_vector.c: every check (config bits, every offset and
 * address, no dst block of a repeat holding an offset of a later one) runs
 * before any write; all sources of a repeat are read before
 * its dst is written; no allocation. */
#include <string.h>

#include "exec_internal.h"

static bool lane_on(const uint64_t m[2], uint32_t i) { return (m[i >> 6] >> (i & 63)) & 1; }

static uint32_t rd_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

typedef struct GPlan {
    uint32_t lanes, size, repeats;
    uint64_t full[2], last[2];
    uint64_t blk, rep; /* dst strides, bytes */
} GPlan;

/* repeats and active lanes from the config register and the mask (counter
 * mode: mask0 elements, the last repeat partial) */
static bool plan_masks(AscExecCtx *ctx, const AscIssued *q, uint64_t cfg, GPlan *p, bool use_mask)
{
    uint64_t all[2] = {p->lanes >= 64 ? ~0ull : ((1ull << p->lanes) - 1), p->lanes > 64 ? ~0ull : 0};
    bool counter = (q->ctrl >> ASC_CTRL_COUNTER_BIT) & 1;
    p->blk = (cfg & 0xff) * 32;
    p->rep = ((cfg >> 24) & 0xff) * 32;
    if (!use_mask) {
        p->repeats = (uint32_t)(cfg >> 56);
        memcpy(p->full, all, sizeof all);
        memcpy(p->last, all, sizeof all);
    } else if (counter) {
        uint64_t count = q->mask0;
        if (count > UINT32_MAX)
            return asc_exec_fault(ctx, "counter-mode element count %llu (mask0) exceeds 2^32 - 1", (unsigned long long)count);
        p->repeats = (uint32_t)((count + p->lanes - 1) / p->lanes);
        memcpy(p->full, all, sizeof all);
        uint64_t tail = count - (count ? (uint64_t)(p->repeats - 1) * p->lanes : 0);
        p->last[0] = tail >= 64 ? ~0ull : ((1ull << tail) - 1);
        p->last[1] = tail >= 128 ? ~0ull : tail > 64 ? ((1ull << (tail - 64)) - 1) : 0;
    } else {
        p->repeats = (uint32_t)(cfg >> 56);
        p->full[0] = q->mask0 & all[0];
        p->full[1] = q->mask1 & all[1];
        memcpy(p->last, p->full, sizeof p->full);
    }
    return true;
}

static void bank_add(AscBankRepeat *br, bool write, uint64_t addr)
{
    addr &= ~31ull;
    if (write) {
        for (uint32_t i = 0; i < br->nwrite; i++)
            if (br->write[i] == addr) return;
        if (br->nwrite < ASC_BANK_MAX_BLOCKS) br->write[br->nwrite++] = addr;
    } else {
        for (uint32_t i = 0; i < br->nread; i++)
            if (br->read[i] == addr) return;
        if (br->nread < ASC_BANK_MAX_BLOCKS) br->read[br->nread++] = addr;
    }
}

static void report_repeat(AscExecCtx *ctx, const AscBankRepeat *br, AscExecStats *st)
{
    if (!ctx->no_bank_cost) asc_ubbank_account(ctx->cfg, br, st);
    if (ctx->on_access) {
        for (uint32_t i = 0; i < br->nread; i++)
            ctx->on_access(ctx->access_ud, ASC_BUF_UB, br->read[i], br->read[i] + 32, false);
        for (uint32_t i = 0; i < br->nwrite; i++)
            ctx->on_access(ctx->access_ud, ASC_BUF_UB, br->write[i], br->write[i] + 32, true);
    }
}

/* Repeats run one after another, so a dst block of repeat r that holds an
 * offset of a later repeat would change that offset after the checks above
 * validated it (and the source it names would go unchecked).  Such an
 * instruction faults before any write: false when a dst block of a repeat
 * before `later` meets the offset bytes [olo, ohi) of repeat `later`. */
static bool check_offsets_kept(AscExecCtx *ctx, const char *op, const AscIssued *q, const GPlan *p, uint32_t later,
                               uint64_t olo, uint64_t ohi)
{
    if (ohi <= q->rd || olo >= q->rd + (later - 1) * p->rep + 7 * p->blk + 32) return true; /* clear of every one */
    for (uint32_t r = 0; r < later; r++)
        for (uint32_t b = 0; b < 8; b++) {
            uint64_t da = q->rd + r * p->rep + b * p->blk;
            if (da < ohi && olo < da + 32)
                return asc_exec_fault(ctx, "%s: dst block %u of repeat %u [0x%llx, 0x%llx) overlaps the offsets of "
                                      "later repeat %u [0x%llx, 0x%llx): an offset must not be written before it is read",
                                      op, b, r, (unsigned long long)da, (unsigned long long)(da + 32), later,
                                      (unsigned long long)olo, (unsigned long long)ohi);
        }
    return true;
}

static bool check_base(AscExecCtx *ctx, const char *what, uint64_t a)
{
    const AscMem *ubm = &ctx->mem[ASC_BUF_UB];
    if (a > UINT32_MAX)
        return asc_exec_fault(ctx, "UB %s address 0x%llx is outside UB (0x%x bytes usable)", what, (unsigned long long)a,
                              (unsigned)ubm->size);
    if (ubm->align > 1 && a % ubm->align)
        return asc_exec_fault(ctx, "UB %s at 0x%llx is misaligned: start address is not a multiple of %u B", what,
                              (unsigned long long)a, (unsigned)ubm->align);
    return true;
}

ASC_EXEC_FN(VGATHER)
{
    (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_VEC, q->rs3)) return false;
    GPlan p;
    memset(&p, 0, sizeof p);
    p.size = asc_dtype_size(dt0);
    p.lanes = 256 / p.size;
    if (!plan_masks(ctx, q, q->rs3, &p, true)) return false;
    if (p.repeats == 0) return true;
    if (!check_base(ctx, "dst", q->rd) || !check_base(ctx, "offset", q->rs1)) return false;
    if (q->rs2 > UINT32_MAX) return asc_exec_fault(ctx, "vgather source base 0x%llx is outside UB", (unsigned long long)q->rs2);
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    uint32_t epb = 32 / p.size;
    /* check every active lane's offset, source and dst before any write */
    for (uint32_t r = 0; r < p.repeats; r++) {
        const uint64_t *m = r + 1 == p.repeats ? p.last : p.full;
        for (uint32_t i = 0; i < p.lanes; i++) {
            if (!lane_on(m, i)) continue;
            uint64_t oa = q->rs1 + 4ull * ((uint64_t)r * p.lanes + i);
            if (!asc_exec_check_local(ctx, ASC_BUF_UB, "offset", false, oa, oa + 4, false)) return false;
            uint64_t da = q->rd + r * p.rep + (i / epb) * p.blk + (i % epb) * p.size;
            if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst", true, da, da + p.size, false)) return false;
            uint32_t off = rd_u32(ub + oa);
            uint64_t sa = q->rs2 + off;
            if (sa % p.size)
                return asc_exec_fault(ctx, "vgather lane %u of repeat %u: source 0x%llx (base 0x%llx + offset %u) is not a "
                                      "multiple of the element size %u B", i, r, (unsigned long long)sa,
                                      (unsigned long long)q->rs2, off, p.size);
            if (!asc_exec_check_local(ctx, ASC_BUF_UB, "src", false, sa, sa + p.size, false)) return false;
        }
        uint32_t first = p.lanes, last = 0; /* the active offset lanes of repeat r */
        for (uint32_t i = 0; i < p.lanes; i++)
            if (lane_on(m, i)) first = first < i ? first : i, last = i;
        uint64_t obase = q->rs1 + 4ull * r * p.lanes;
        if (r && first < p.lanes && !check_offsets_kept(ctx, "vgather", q, &p, r, obase + 4ull * first, obase + 4ull * (last + 1)))
            return false;
    }
    uint8_t buf[256];
    for (uint32_t r = 0; r < p.repeats; r++) {
        const uint64_t *m = r + 1 == p.repeats ? p.last : p.full;
        AscBankRepeat br;
        br.nread = br.nwrite = 0;
        uint32_t active = 0;
        for (uint32_t i = 0; i < p.lanes; i++) {
            if (!lane_on(m, i)) continue;
            uint64_t oa = q->rs1 + 4ull * ((uint64_t)r * p.lanes + i);
            uint64_t sa = q->rs2 + rd_u32(ub + oa);
            memcpy(buf + i * p.size, ub + sa, p.size);
            bank_add(&br, false, oa);
            bank_add(&br, false, sa);
            active++;
        }
        for (uint32_t i = 0; i < p.lanes; i++) {
            if (!lane_on(m, i)) continue;
            uint64_t da = q->rd + r * p.rep + (i / epb) * p.blk + (i % epb) * p.size;
            memcpy(ub + da, buf + i * p.size, p.size);
            bank_add(&br, true, da);
        }
        report_repeat(ctx, &br, st);
        st->bytes += (uint64_t)active * (p.size + 4);
    }
    st->repeats = p.repeats;
    return true;
}

ASC_EXEC_FN(VGATHERB)
{
    (void)dt0;
    (void)dt1;
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    if (!asc_exec_check_cfg(ctx, ASC_CFG_VEC, q->rs3)) return false;
    GPlan p;
    memset(&p, 0, sizeof p);
    p.size = 4;
    p.lanes = 64;
    if (!plan_masks(ctx, q, q->rs3, &p, false)) return false;
    if (p.blk == 0) p.blk = 32; /* "dstBlkStride 0 is taken as 1" (Ascend C Gatherb documentation) */
    if (p.repeats == 0) return true;
    if (!check_base(ctx, "dst", q->rd) || !check_base(ctx, "offset", q->rs1) || !check_base(ctx, "src", q->rs2))
        return false;
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data;
    uint64_t olo = q->rs1, ohi = q->rs1 + 32ull * p.repeats;
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, "offset", false, olo, ohi, false)) return false;
    for (uint32_t r = 0; r < p.repeats; r++)
        for (uint32_t j = 0; j < 8; j++) {
            uint32_t off = rd_u32(ub + q->rs1 + 4ull * (8ull * r + j));
            uint64_t sa = q->rs2 + off;
            if (off % 32)
                return asc_exec_fault(ctx, "vgatherb block %u of repeat %u: offset %u is not a multiple of 32 B", j, r, off);
            if (!asc_exec_check_local(ctx, ASC_BUF_UB, "src", false, sa, sa + 32, false)) return false;
            uint64_t da = q->rd + r * p.rep + j * p.blk;
            if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dst", true, da, da + 32, false)) return false;
        }
    for (uint32_t r = 1; r < p.repeats; r++)
        if (!check_offsets_kept(ctx, "vgatherb", q, &p, r, q->rs1 + 32ull * r, q->rs1 + 32ull * (r + 1))) return false;
    uint8_t buf[256];
    for (uint32_t r = 0; r < p.repeats; r++) {
        AscBankRepeat br;
        br.nread = br.nwrite = 0;
        bank_add(&br, false, q->rs1 + 32ull * r);
        for (uint32_t j = 0; j < 8; j++) {
            uint64_t sa = q->rs2 + rd_u32(ub + q->rs1 + 4ull * (8ull * r + j));
            memcpy(buf + 32 * j, ub + sa, 32);
            bank_add(&br, false, sa);
        }
        for (uint32_t j = 0; j < 8; j++) {
            uint64_t da = q->rd + r * p.rep + j * p.blk;
            memcpy(ub + da, buf + 32 * j, 32);
            bank_add(&br, true, da);
        }
        report_repeat(ctx, &br, st);
        st->bytes += 256 + 32;
    }
    st->repeats = p.repeats;
    return true;
}
