/* exec_check.c -- the access checks every exec function runs before it
 * touches data: buffer present, range inside the buffer, start address
 * aligned, reserved config bits zero, GM range inside the GM size.
 *
 * Users: exec_vector.c, exec_cube.c, exec_dma.c.
 *
 * Messages follow one pattern so users learn it once:
 *   "<BUF> <read|write> of <operand> [0x<lo>, 0x<hi>) is outside <BUF> (0x<size> bytes usable)"
 *   "<BUF> <read|write> of <operand> [0x<lo>, 0x<hi>) is misaligned: <BUF> addresses must be multiples of <n> B"
 * The engine prefixes core, pipe, pc, instruction and source line. */
#include <stdio.h>

#include "exec_internal.h"

const char *asc_exec_buf_name(AscBuf buf)
{
    return asc_buf_name(buf);
}

bool asc_exec_fault(AscExecCtx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->fault, sizeof ctx->fault, fmt, ap);
    va_end(ap);
    return false;
}

static bool check_local_slow(AscExecCtx *ctx, AscBuf buf, const char *what, bool write, uint64_t lo, uint64_t hi,
                             bool check_align) __attribute__((noinline, cold));

/* The usual case here, inlined, without the names the messages need; any doubt goes to
 * check_local_slow, which checks everything again and names what fails. */
static inline bool check_local(AscExecCtx *ctx, AscBuf buf, const char *what, bool write, uint64_t lo, uint64_t hi,
                               bool check_align)
{
    const AscMem *m = &ctx->mem[buf];
    if (m->size && m->data && lo <= hi && hi <= m->size && !(check_align && m->align > 1 && lo % m->align) &&
        !(buf == ASC_BUF_UB && hi > lo && ctx->ia_unit < 3 &&
          ((ctx->data_exp[0] | ctx->data_exp[1] | ctx->data_exp[2] | ctx->data_exp[3]) & 1)))
        return true;
    return check_local_slow(ctx, buf, what, write, lo, hi, check_align);
}

bool asc_exec_check_local(AscExecCtx *ctx, AscBuf buf, const char *what, bool write, uint64_t lo, uint64_t hi,
                          bool check_align)
{
    if (ctx->on_buf) ctx->on_buf(ctx->pool_ud, buf, 0, UINT64_MAX, true); /* all of buf */
    return check_local(ctx, buf, what, write, lo, hi, check_align);
}

bool asc_exec_check_span(AscExecCtx *ctx, AscBuf buf, const char *what, bool write, uint64_t lo, uint64_t hi,
                         bool check_align)
{
    if (ctx->on_buf) ctx->on_buf(ctx->pool_ud, buf, lo, hi, write);
    return check_local(ctx, buf, what, write, lo, hi, check_align);
}

static bool check_local_slow(AscExecCtx *ctx, AscBuf buf, const char *what, bool write, uint64_t lo, uint64_t hi,
                             bool check_align)
{
    const AscMem *m = &ctx->mem[buf];
    const char *bn = asc_exec_buf_name(buf);
    const char *rw = write ? "write" : "read";
    if (m->size == 0 || !m->data)
        return asc_exec_fault(ctx, "%s %s of %s [0x%llx, 0x%llx): this core has no %s", bn, rw, what,
                              (unsigned long long)lo, (unsigned long long)hi, bn);
    if (hi < lo || hi > m->size)
        return asc_exec_fault(ctx, "%s %s of %s [0x%llx, 0x%llx) is outside %s (0x%x bytes usable)", bn, rw, what,
                              (unsigned long long)lo, (unsigned long long)hi, bn, (unsigned)m->size);
    if (check_align && m->align > 1 && lo % m->align)
        return asc_exec_fault(ctx, "%s %s of %s [0x%llx, 0x%llx) is misaligned: %s addresses must be multiples of %u B",
                              bn, rw, what, (unsigned long long)lo, (unsigned long long)hi, bn, (unsigned)m->align);
    if (buf == ASC_BUF_UB && hi > lo && ctx->ia_unit < 3) {
        /* CheckLocalMemoryIA (SPRs data_exp_0..3, Ascend C CheckLocalMemoryIAImpl on dav_c220):
         * bit 31 - (2 * unit + write) enables the check of this kind of access; the checked
         * range is the 32 B blocks b with start < b <= end (the docs' (startAddr, endAddr]) */
        static const char *const unit_name[3] = {"scalar", "vector", "MTE"};
        for (int k = 0; k < 4; k++) {
            uint64_t w = ctx->data_exp[k];
            if (!(w & 1) || !((w >> (31 - (2 * ctx->ia_unit + (write ? 1 : 0)))) & 1)) continue;
            uint64_t start = (w >> 48) & 0xffff, end = (w >> 32) & 0xffff;
            if ((hi - 1) / 32 > start && lo / 32 <= end)
                return asc_exec_fault(ctx,
                                      "%s %s %s of %s [0x%llx, 0x%llx) touches the range data_exp_%d checks "
                                      "(CheckLocalMemoryIA: 32 B blocks (%llu, %llu], UB [0x%llx, 0x%llx))",
                                      unit_name[ctx->ia_unit], bn, rw, what, (unsigned long long)lo,
                                      (unsigned long long)hi, k, (unsigned long long)start, (unsigned long long)end,
                                      (unsigned long long)(start + 1) * 32, (unsigned long long)(end + 1) * 32);
        }
    }
    return true;
}

bool asc_exec_check_gm(AscExecCtx *ctx, const char *what, bool write, uint64_t lo, uint64_t hi, uint32_t align_bytes)
{
    const char *rw = write ? "write" : "read";
    uint64_t size = asc_gm_size(ctx->gm);
    if (hi < lo || hi > size)
        return asc_exec_fault(ctx, "GM %s of %s [0x%llx, 0x%llx) is outside GM (0x%llx bytes)", rw, what,
                              (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)size);
    if (align_bytes > 1 && lo % align_bytes)
        return asc_exec_fault(ctx, "GM %s of %s [0x%llx, 0x%llx) is misaligned: must be a multiple of the element size %u B",
                              rw, what, (unsigned long long)lo, (unsigned long long)hi, (unsigned)align_bytes);
    return !ctx->on_gm || ctx->on_gm(ctx->gm_ud, write, lo, hi);
}

bool asc_exec_check_cfg(AscExecCtx *ctx, AscCfgLayout layout, uint64_t cfg)
{
    uint64_t bad = cfg & asc_cfg_reserved_mask(layout);
    if (bad)
        return asc_exec_fault(ctx, "config register 0x%016llx sets reserved bits 0x%016llx of the %s layout (they must be zero)",
                              (unsigned long long)cfg, (unsigned long long)bad, asc_cfg_layout_name(layout));
    return true;
}

bool asc_exec_gm_read(AscExecCtx *ctx, uint64_t addr, void *dst, size_t n)
{
    if (asc_gm_read(ctx->gm, addr, dst, n)) return true;
    return asc_exec_fault(ctx, "GM read [0x%llx, 0x%llx) failed", (unsigned long long)addr,
                          (unsigned long long)(addr + n));
}

bool asc_exec_gm_write(AscExecCtx *ctx, uint64_t addr, const void *src, size_t n)
{
    if (asc_gm_write(ctx->gm, addr, src, n)) return true;
    return asc_exec_fault(ctx, "GM write [0x%llx, 0x%llx): out of host memory backing GM", (unsigned long long)addr,
                          (unsigned long long)(addr + n));
}
