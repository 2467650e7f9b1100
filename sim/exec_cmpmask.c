/* exec_cmpmask.c -- the CMPMASK register transfers (asc_exec_CMPMASK:
 * set_cmpmask, get_cmpmask).
 *
 * Users: the engine's generated dispatch (FAM column CMPMASK).
 *
 * The CMPMASK register is 128 bits of the vector unit (ctx->cmpmask_reg,
 * bit i = bit i % 64 of word i / 64, i.e. UB byte i / 8, bit i % 8, as the
 * packed masks vcmp writes).  Ascend C SetCmpMask / GetCmpMask on dav_c220
 * (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h:
 * set_cmpmask(src), get_cmpmask(dst)) move it from and to UB on the vector
 * pipe (Select mode 0 issues set_cmpmask(sel) then PipeBarrier<PIPE_V>,
 * kernel_operator_vec_cmpsel_impl.h).  set_cmpmask copies: a later write of
 * the UB source does not change the register.  vsel with config bit 49
 * (cmpreg) reads the register captured when it executes (exec_vector.c).
 *
 * Both move 16 bytes at a 32-byte aligned UB address, costed as one vector
 * repeat touching one 32 B block. */
#include <string.h>

#include "exec_internal.h"

ASC_EXEC_FN(CMPMASK)
{
    (void)dt0;
    (void)dt1;
    bool set = q->in.op == ASC_OP_SET_CMPMASK;
    if (!set && q->in.op != ASC_OP_GET_CMPMASK)
        return asc_exec_fault(ctx, "instruction %u is not a CMPMASK transfer", (unsigned)q->in.op);
    uint64_t a = q->rs1;
    const char *what = set ? "src" : "dst";
    st->src_buf = ASC_BUF_UB;
    st->dst_buf = ASC_BUF_UB;
    if (a > UINT64_MAX / 2) return asc_exec_fault(ctx, "%s address 0x%llx out of range", what, (unsigned long long)a);
    if (!asc_exec_check_local(ctx, ASC_BUF_UB, what, !set, a, a + 16, true)) return false;
    if (ctx->on_access) ctx->on_access(ctx->access_ud, ASC_BUF_UB, a, a + 16, !set);
    uint8_t *ub = ctx->mem[ASC_BUF_UB].data + a;
    if (set) memcpy(ctx->cmpmask_reg, ub, 16);
    else memcpy(ub, ctx->cmpmask_reg, 16);
    AscBankRepeat br;
    br.nread = br.nwrite = 0;
    if (set) br.read[br.nread++] = a & ~31ull;
    else br.write[br.nwrite++] = a & ~31ull;
    asc_ubbank_account(ctx->cfg, &br, st);
    st->repeats = 1;
    st->bytes = 16;
    return true;
}
