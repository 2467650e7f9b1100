/* exec_scalar_ub.c -- the scalar unit's loads and stores of UB (ld.ub.*, st.ub.*).
 *
 * Ascend C's LocalTensor GetValue/SetValue read and write UB from the scalar unit: they are
 * `__inout_pipe__(S)` (cannmirror/asc-devkit docs/zh/api/SIMD-API/.../LocalTensor/GetValue.md
 * and SetValue.md) and the scalar unit does not wait for the pipes, so kernels order
 * them with flags or PipeBarrier (e.g. impl/basic_api/dav_c220/
 * kernel_operator_determine_compute_sync_impl.h: SetValue, then PipeBarrier<PIPE_ALL> before
 * the DMA that reads it).  The simulator does the same: the access happens when the scalar
 * unit executes it, against UB as the pipes have written it so far (a pipe applies its data
 * when it starts, sim_exec.h); a kernel without the flag reads whatever the pipes left there,
 * which on the card may be older data.  --check-races does not see these accesses (the race
 * checker follows the pipes' queues only).
 * Cost: lat.scalar_load / lat.scalar_store, the latencies of the scalar GM access. */
#include "exec_internal.h"
#include "sim_internal.h"

static bool ub_addr(AscExecCtx *ctx, const AscIssued *q, unsigned size, bool write, uint64_t *addr)
{
    AscCore *c = (AscCore *)(void *)ctx; /* ctx is AscCore's first member */
    *addr = c->x[q->in.rs1] + (uint64_t)(int64_t)q->in.imm;
    if (*addr % size)
        return asc_exec_fault(ctx, "scalar UB %s of %u bytes at 0x%llx is misaligned (must be a multiple of %u)",
                              write ? "store" : "load", size, (unsigned long long)*addr, size);
    return asc_exec_check_local(ctx, ASC_BUF_UB, write ? "scalar store" : "scalar load", write, *addr,
                                *addr + size, false);
}

ASC_EXEC_FN(LDUB)
{
    (void)dt1, (void)st;
    AscCore *c = (AscCore *)(void *)ctx;
    unsigned size = asc_dtype_size(dt0);
    uint64_t addr, raw = 0;
    if (!ub_addr(ctx, q, size, false, &addr)) return false;
    const uint8_t *p = ctx->mem[ASC_BUF_UB].data + addr;
    for (unsigned i = 0; i < size; i++) raw |= (uint64_t)p[i] << (8 * i);
    if (asc_dtype_is_signed(dt0) && size < 8) {
        uint64_t sign = 1ull << (8 * size - 1);
        raw = (raw ^ sign) - sign;
    }
    c->x[q->in.rd] = raw;
    c->scost = c->sim->lat_load;
    return true;
}

ASC_EXEC_FN(STUB)
{
    (void)dt1, (void)st;
    AscCore *c = (AscCore *)(void *)ctx;
    unsigned size = asc_dtype_size(dt0);
    uint64_t addr, v = c->x[q->in.rd];
    if (!ub_addr(ctx, q, size, true, &addr)) return false;
    uint8_t *p = ctx->mem[ASC_BUF_UB].data + addr;
    for (unsigned i = 0; i < size; i++) p[i] = (uint8_t)(v >> (8 * i));
    c->scost = c->sim->lat_store;
    return true;
}
