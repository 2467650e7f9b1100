/* scalar.c -- the scalar unit of a core: in-order fetch and execute of
 * scalar instructions, dispatch of every other instruction into its pipe's
 * queue, and the instructions that stall the scalar unit itself (wait_flag
 * on S, wait_flag_dev, bar all, sync_all, end).  Also the one X-macro
 * dispatch of instruction effects generated from isa/asc_isa.def.
 *
 * Users: sim.c (run loop calls asc_scalar_step), core.c (asc_dispatch when
 * a queued instruction starts).
 *
 * Timing (docs/timing.md §Scalar): an instruction costs lat.scalar cycles;
 * a taken branch adds lat.branch, a GM load lat.scalar_load, a GM store
 * lat.scalar_store; mask-mode instructions cost lat.mask; set/wait flags
 * executed on S cost lat.sync.  A dispatched instruction enters its queue at
 * the cycle it is issued.  Invariant: the scalar unit runs ahead without
 * returning to the event loop only while its time stays below the next
 * event of every other agent, so the (cycle, core, pipe) order holds. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asc/target.h"
#include "exec_internal.h"
#include "sched.h"
#include "sim_internal.h"

#define CORE_OF(ctx) ((AscCore *)(void *)(ctx)) /* ctx is AscCore's first member */

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

void asc_capture(const AscCore *c, const AscInsn *in, uint32_t pc, AscIssued *q)
{
    q->in = *in;
    q->pc = pc;
    q->rd = c->x[in->rd];
    q->rs1 = c->x[in->rs1];
    q->rs2 = c->x[in->rs2];
    q->rs3 = c->x[in->rs3];
    q->mask0 = c->spr[ASC_SPR_MASK0];
    q->mask1 = c->spr[ASC_SPR_MASK1];
    q->ctrl = c->spr[ASC_SPR_CTRL];
    q->cmpmask = c->spr[ASC_SPR_CMPMASK];
    q->st_atomic = c->spr[ASC_SPR_ST_ATOMIC];
    q->nd2nz_para = c->spr[ASC_SPR_ND2NZ_PARA];
    q->pad_val = c->spr[ASC_SPR_PAD_VAL];
    q->deqscale = c->spr[ASC_SPR_DEQSCALE];
    for (int k = 0; k < 4; k++) q->data_exp[k] = c->spr[ASC_SPR_DATA_EXP_0 + k];
    q->l3d[0] = c->spr[ASC_SPR_FMATRIX];
    q->l3d[1] = c->spr[ASC_SPR_PADDING];
    q->l3d[2] = c->spr[ASC_SPR_L3D_RPT];
    q->l3d[3] = c->spr[ASC_SPR_L1_3D_SIZE];
    q->quant_pre = c->spr[ASC_SPR_QUANT_PRE];
    q->fpc = c->spr[ASC_SPR_FPC];
}

static bool xfail(AscExecCtx *ctx, AscFaultKind k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->fault, sizeof ctx->fault, fmt, ap);
    va_end(ap);
    CORE_OF(ctx)->xfault = (uint8_t)k;
    return false;
}

/* ---- scalar families (the data families live in sim/exec_*.c) ------------- */

static ASC_EXEC_FN(NOP)
{
    (void)ctx, (void)q, (void)dt0, (void)dt1, (void)st;
    return true;
}

/* rd = f(rs1, rs2 | imm).  Signed arithmetic wraps (done on uint64_t).
 * Reads only registers and the instruction (no captured operands), so the
 * run-ahead loop calls it directly (exec_on_scalar). */
static inline bool alu(AscExecCtx *ctx, const AscInsn *in)
{
    AscCore *c = CORE_OF(ctx);
    uint64_t a = c->x[in->rs1], b = c->x[in->rs2], imm = (uint64_t)(int64_t)in->imm, r = 0;
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (in->op) {
    case ASC_OP_ADD: r = a + b; break;
    case ASC_OP_SUB: r = a - b; break;
    case ASC_OP_MUL: r = a * b; break;
    case ASC_OP_DIV:
    case ASC_OP_DIVU:
    case ASC_OP_REM:
    case ASC_OP_REMU:
        if (b == 0)
            return xfail(ctx, ASC_FAULT_DIV_ZERO, "division by zero: x%u is 0", in->rs2);
        if (in->op == ASC_OP_DIVU) r = a / b;
        else if (in->op == ASC_OP_REMU) r = a % b;
        else if (sa == INT64_MIN && sb == -1) r = in->op == ASC_OP_DIV ? a : 0; /* wraps, as RISC-V */
        else r = in->op == ASC_OP_DIV ? (uint64_t)(sa / sb) : (uint64_t)(sa % sb);
        break;
    case ASC_OP_AND: r = a & b; break;
    case ASC_OP_OR: r = a | b; break;
    case ASC_OP_XOR: r = a ^ b; break;
    case ASC_OP_SHL: r = a << (b & 63); break;
    case ASC_OP_SHR: r = a >> (b & 63); break;
    case ASC_OP_SRA: r = (uint64_t)(sa >> (b & 63)); break;
    case ASC_OP_MIN: r = sa < sb ? a : b; break;
    case ASC_OP_MAX: r = sa > sb ? a : b; break;
    case ASC_OP_MINU: r = a < b ? a : b; break;
    case ASC_OP_MAXU: r = a > b ? a : b; break;
    case ASC_OP_SEQ: r = a == b; break;
    case ASC_OP_SNE: r = a != b; break;
    case ASC_OP_SLT: r = sa < sb; break;
    case ASC_OP_SLTU: r = a < b; break;
    case ASC_OP_SGE: r = sa >= sb; break;
    case ASC_OP_SGEU: r = a >= b; break;
    /* bit counts of the Ascend C scalar intrinsics clz, bcnt1, sflbits, sff1
     * (cannmirror/asc-devkit impl/basic_api/kernel_scalar.h) */
    case ASC_OP_CLZ: r = a ? (uint64_t)__builtin_clzll(a) : 64; break;
    case ASC_OP_POPC: r = (uint64_t)__builtin_popcountll(a); break;
    case ASC_OP_CLS: r = (uint64_t)__builtin_clrsbll(sa); break;
    case ASC_OP_SFF1: r = a ? (uint64_t)__builtin_ctzll(a) : UINT64_MAX; break;
    case ASC_OP_CVT: { /* ScalarCast<float, int32_t / half, mode> (kernel_scalar.h: conv_f322s32r/f/c/a, conv_f322f16o) */
        uint32_t bits = (uint32_t)a;
        float f;
        memcpy(&f, &bits, 4);
        AscRnd rnd = (AscRnd)in->rnd; /* a mode the pair takes: the decoder checked it */
        if (in->cvp == ASC_CVP_F32_F16) { /* the f16 value, widened exactly back to f32 bits */
            float h = asc_f16_to_f32(asc_f32_to_f16_rnd(f, rnd));
            uint32_t hb;
            memcpy(&hb, &h, 4);
            r = hb;
        } else {
            r = (uint64_t)asc_float_to_int_sat((double)f, rnd, INT32_MIN, INT32_MAX);
        }
        break;
    }
    case ASC_OP_ADDI: r = a + imm; break;
    case ASC_OP_ANDI: r = a & imm; break;
    case ASC_OP_ORI: r = a | imm; break;
    case ASC_OP_XORI: r = a ^ imm; break;
    case ASC_OP_SHLI: r = a << (imm & 63); break;
    case ASC_OP_SHRI: r = a >> (imm & 63); break;
    case ASC_OP_SRAI: r = (uint64_t)(sa >> (imm & 63)); break;
    case ASC_OP_MULI: r = a * imm; break;
    case ASC_OP_SLTI: r = sa < (int64_t)imm; break;
    case ASC_OP_MOVZ: r = ((uint64_t)(uint16_t)in->imm) << in->hw; break;
    case ASC_OP_MOVN: r = ~(((uint64_t)(uint16_t)in->imm) << in->hw); break;
    case ASC_OP_MOVK:
        r = (c->x[in->rd] & ~(0xffffull << in->hw)) | (((uint64_t)(uint16_t)in->imm) << in->hw);
        break;
    default: return xfail(ctx, ASC_FAULT_ILLEGAL, "'%s' is not an ALU instruction", asc_insn_info[in->op].mnemonic);
    }
    c->x[in->rd] = r;
    return true;
}

static ASC_EXEC_FN(ALU)
{
    (void)dt0, (void)dt1, (void)st;
    return alu(ctx, &q->in);
}

/* mfspr / mtspr and the mask modes read only registers, the instruction and
 * its pc (as alu), so exec_on_scalar calls them directly too. */
static inline bool spr(AscExecCtx *ctx, const AscInsn *in, uint32_t pc)
{
    AscCore *c = CORE_OF(ctx);
    if (in->spr >= ASC_SPR_COUNT) return xfail(ctx, ASC_FAULT_ILLEGAL, "special register %u does not exist", in->spr);
    if (in->op == ASC_OP_MFSPR) {
        c->x[in->rd] = in->spr == ASC_SPR_PC ? pc : in->spr == ASC_SPR_VMS4_SR ? ctx->vms4_sr
                       : in->spr == ASC_SPR_RSVD_CNT ? ctx->rsvd_cnt : c->spr[in->spr];
        return true;
    }
    if (!asc_spr_writable(in->spr))
        return xfail(ctx, ASC_FAULT_ILLEGAL,
                     "special register '%s' is read-only (docs/isa.md marks the writable ones)",
                     asc_spr_name(in->spr));
    c->spr[in->spr] = c->x[in->rs1];
    return true;
}

static ASC_EXEC_FN(SPR)
{
    (void)dt0, (void)dt1, (void)st;
    return spr(ctx, &q->in, q->pc);
}

static inline void maskmode(AscCore *c, const AscInsn *in)
{
    if (in->op == ASC_OP_SET_MASK_COUNT) c->spr[ASC_SPR_CTRL] |= 1ull << ASC_CTRL_COUNTER_BIT;
    else c->spr[ASC_SPR_CTRL] &= ~(1ull << ASC_CTRL_COUNTER_BIT);
}

static ASC_EXEC_FN(MASKMODE)
{
    (void)dt0, (void)dt1, (void)st;
    maskmode(CORE_OF(ctx), &q->in);
    return true;
}

/* Scalar GM access at x[rs1] + imm, naturally aligned. */
static bool gm_addr(AscExecCtx *ctx, const AscInsn *in, unsigned size, const char *what, uint64_t *addr)
{
    AscCore *c = CORE_OF(ctx);
    *addr = c->x[in->rs1] + (uint64_t)(int64_t)in->imm;
    if (*addr % size)
        return xfail(ctx, ASC_FAULT_ACCESS, "scalar GM %s of %u bytes at 0x%llx is misaligned (must be a multiple of %u)",
                     what, size, (unsigned long long)*addr, size);
    return true;
}

static ASC_EXEC_FN(LOAD)
{
    (void)dt1, (void)st;
    AscCore *c = CORE_OF(ctx);
    unsigned size = asc_dtype_size(dt0);
    uint64_t addr, raw = 0;
    uint8_t b[8] = {0};
    if (!gm_addr(ctx, &q->in, size, "load", &addr)) return false;
    if (addr <= asc_gm_size(ctx->gm) - size) { /* else the read below names the GM size */
        if (ctx->on_gm && !ctx->on_gm(ctx->gm_ud, false, addr, addr + size)) return false;
        if (c->sim->san & ASC_SAN_INITCHECK) asc_san_scalar_gm(c, addr, addr + size, false);
        if (c->race && c->race->gm) asc_race_gm_scalar(c, addr, addr + size, false);
    }
    if (!asc_gm_read(ctx->gm, addr, b, size))
        return xfail(ctx, ASC_FAULT_ACCESS, "scalar GM load [0x%llx, 0x%llx) is outside GM (%llu bytes)",
                     (unsigned long long)addr, (unsigned long long)(addr + size),
                     (unsigned long long)asc_gm_size(ctx->gm));
    for (unsigned i = 0; i < size; i++) raw |= (uint64_t)b[i] << (8 * i);
    if (asc_dtype_is_signed(dt0) && size < 8) {
        uint64_t sign = 1ull << (8 * size - 1);
        raw = (raw ^ sign) - sign;
    }
    c->x[q->in.rd] = raw;
    c->scost = c->sim->lat_load;
    return true;
}

static ASC_EXEC_FN(STORE)
{
    (void)dt1, (void)st;
    AscCore *c = CORE_OF(ctx);
    unsigned size = asc_dtype_size(dt0);
    uint64_t addr, v = c->x[q->in.rd];
    uint8_t b[8];
    if (!gm_addr(ctx, &q->in, size, "store", &addr)) return false;
    if (addr <= asc_gm_size(ctx->gm) - size) {
        if (ctx->on_gm && !ctx->on_gm(ctx->gm_ud, true, addr, addr + size)) return false;
        if (c->sim->san & ASC_SAN_INITCHECK) asc_san_scalar_gm(c, addr, addr + size, true);
        if (c->race && c->race->gm) asc_race_gm_scalar(c, addr, addr + size, true);
    }
    for (unsigned i = 0; i < size; i++) b[i] = (uint8_t)(v >> (8 * i));
    if (!asc_gm_write(ctx->gm, addr, b, size))
        return xfail(ctx, addr + size <= asc_gm_size(ctx->gm) ? ASC_FAULT_INTERNAL : ASC_FAULT_ACCESS,
                     "scalar GM store [0x%llx, 0x%llx) failed: outside GM (%llu bytes) or out of host memory",
                     (unsigned long long)addr, (unsigned long long)(addr + size),
                     (unsigned long long)asc_gm_size(ctx->gm));
    c->scost = c->sim->lat_store;
    return true;
}

/* reads registers and the instruction only (as alu) */
static inline bool branch_taken(const AscCore *c, const AscInsn *in)
{
    uint64_t a = c->x[in->rs1], b = c->x[in->rs2];
    bool taken;
    switch (in->op) {
    case ASC_OP_BEQ: taken = a == b; break;
    case ASC_OP_BNE: taken = a != b; break;
    case ASC_OP_BLT: taken = (int64_t)a < (int64_t)b; break;
    case ASC_OP_BGE: taken = (int64_t)a >= (int64_t)b; break;
    case ASC_OP_BLTU: taken = a < b; break;
    case ASC_OP_BGEU: taken = a >= b; break;
    case ASC_OP_BEQZ: taken = a == 0; break;
    case ASC_OP_BNEZ: taken = a != 0; break;
    default: taken = true; break; /* J */
    }
    return taken;
}

static inline void branch(AscCore *c, const AscInsn *in, uint32_t pc)
{
    if (branch_taken(c, in)) {
        c->npc = (uint32_t)((int64_t)pc + in->off);
        c->scost = c->sim->lat_branch;
    }
}

static ASC_EXEC_FN(BRANCH)
{
    (void)dt0, (void)dt1, (void)st;
    branch(CORE_OF(ctx), &q->in, q->pc);
    return true;
}

/* The synchronisation families are state machines of the engine
 * (asc_scalar_step and core.c); their table entries only keep the dispatch
 * exhaustive, so that every FAM of the table has a function. */
#define SYNC_FAMILY(fam)                                   \
    static ASC_EXEC_FN(fam)                                \
    {                                                      \
        (void)ctx, (void)q, (void)dt0, (void)dt1, (void)st; \
        return true;                                       \
    }
SYNC_FAMILY(END)
SYNC_FAMILY(SET_FLAG)
SYNC_FAMILY(WAIT_FLAG)
SYNC_FAMILY(BAR)
SYNC_FAMILY(XSET)
SYNC_FAMILY(XWAIT)
SYNC_FAMILY(SYNC_ALL)

/* trap (Ascend C Trap on dav_c220: "interrupts the AI Core"): the core stops with a fault of kind
 * trap; the engine adds core, pc, instruction and source line.  Earlier queued work is not drained. */
static ASC_EXEC_FN(TRAP)
{
    (void)q, (void)dt0, (void)dt1, (void)st;
    return xfail(ctx, ASC_FAULT_TRAP, "the kernel executed trap (Ascend C Trap)");
}

bool asc_dispatch(AscCore *c, const AscIssued *q, AscExecStats *st)
{
    AscExecCtx *ctx = &c->ctx;
    unsigned pipe = asc_insn_info[q->in.op].pipe;
    ctx->ia_unit = pipe == ASC_PIPE_S ? 0 : pipe == ASC_PIPE_V ? 1
                   : pipe == ASC_PIPE_MTE1 || pipe == ASC_PIPE_MTE2 || pipe == ASC_PIPE_MTE3 ? 2 : 3;
    memcpy(ctx->data_exp, q->data_exp, sizeof ctx->data_exp);
    switch ((AscOp)q->in.op) {
#define ASC_INSN(id, mn, opc, fmt, pipe, lat, fam, dt0, dt1, cfg, flags, sem) \
    case ASC_OP_##id: return asc_exec_##fam(ctx, q, ASC_DT_##dt0, ASC_DT_##dt1, st);
#include "asc_isa.def"
#undef ASC_INSN
    default: break;
    }
    return xfail(ctx, ASC_FAULT_ILLEGAL, "opcode %u is not an instruction", q->in.op);
}

/* The exec function of every opcode (the same table as asc_dispatch's switch):
 * exec_on_scalar compares with it to run ALU and branch instructions without
 * capturing operands (alu and branch read only registers, the instruction and
 * its pc) or the dispatch switch. */
typedef bool ExecFn(AscExecCtx *ctx, const AscIssued *q, AscDtype dt0, AscDtype dt1, AscExecStats *st);
static ExecFn *const exec_fn[ASC_OP_COUNT] = {
#define ASC_INSN(id, mn, opc, fmt, pipe, lat, fam, dt0, dt1, cfg, flags, sem) [ASC_OP_##id] = asc_exec_##fam,
#include "asc_isa.def"
#undef ASC_INSN
};

/* ---- the scalar unit -------------------------------------------------------- *
 *
 * The scalar unit is one agent of the event heap (sim_internal.h), but it
 * does not return to the event loop after every instruction: a loop of ALU
 * instructions would then cost a heap operation each.  Instead it runs ahead
 * in its own local time `t` (cycles) for as long as that is safe, and the
 * rule is: S may execute an instruction at t only while t stays below the
 * next event of every other agent (`horizon`) and below the run's cycle
 * limit.  Nothing else can act before the horizon, so nothing S reads (a
 * flag, a queue slot, a counter) can change behind its back, and the trace
 * still comes out in (cycle, core, pipe) order.  An instruction at t ==
 * sim->now is always allowed: that is the event the loop handed to us.
 *
 * Stalls are states (AscScalarState).  A stalled unit sleeps in the heap,
 * either until a known cycle (a flag becomes visible, the last completion of
 * a drain lands) or at ASC_NEVER until someone wakes it (asc_wake_scalar: a
 * flag set, a queue pop, a cross-core set, the last core reaching
 * sync_all).  When it runs again it re-checks its condition first: a wake
 * is a hint, not a promise. */

/* Account one executed instruction of S (per-pc and pipe statistics, in
 * cycles) and hand it to the observer.  start..end is the time S spent on
 * it, `stall` of which it was blocked for the reason `why` (AscStall). */
static void emit_scalar_obs(AscSim *sim, AscCore *c, AscPipeUnit *s, const AscInsn *in, uint64_t start, uint64_t end,
                            uint64_t stall, uint8_t why);

static inline void emit_scalar(AscSim *sim, AscCore *c, const AscInsn *in, uint64_t start, uint64_t end, uint64_t stall,
                               uint8_t why)
{
    AscPipeUnit *s = &c->pipes[ASC_PIPE_S];
    AscPcStats *ps = &c->pcs[(c->pc - c->prog->entry) / 4];
    ps->count++;
    ps->cycles += end - start;
    s->stats.insns++;
    s->stats.busy_cycles += (end - start) - stall;
    s->stats.last_end_cycle = end;
    if (sim->obs.on_insn) emit_scalar_obs(sim, c, s, in, start, end, stall, why);
}

/* the observer's half of emit_scalar, out of the run-ahead loop's way */
static void emit_scalar_obs(AscSim *sim, AscCore *c, AscPipeUnit *s, const AscInsn *in, uint64_t start, uint64_t end,
                            uint64_t stall, uint8_t why)
{
    /* the event asc_emit_insn builds from a queue entry and zero statistics, built here
     * directly (an AscQEntry and AscExecStats cleared per scalar instruction cost more),
     * field by field: an initializer clears the whole struct first (rep stos, ~25 host
     * instructions an event); the assert catches a new field this would miss */
    _Static_assert(sizeof(AscSimInsnEvent) == 104, "emit_scalar_obs sets every field of AscSimInsnEvent");
    AscSimInsnEvent ev;
    ev.core = c->index, ev.pipe = s->id, ev.op = in->op, ev.pc = c->pc, ev.seq = c->seq;
    ev.issue_cycle = start, ev.start_cycle = start, ev.end_cycle = end, ev.done_cycle = end;
    ev.stall_cycles = stall, ev.stall = why;
    ev.flag_src = ev.flag_dst = ev.flag_event = 0;
    if (why == ASC_STALL_FLAG) {
        ev.flag_src = in->psrc;
        ev.flag_dst = in->pdst;
        ev.flag_event = in->event;
    }
    ev.src_buf = ev.dst_buf = 0;
    ev.bytes = 0, ev.conflict_beats = 0, ev.hbm_extra_cycles = 0, ev.flops = 0;
    sim->obs.on_insn(sim->obs.ud, &ev);
}

/* Every pipe of c idle: *when = the cycle the last completion lands. */
static bool drained(const AscCore *c, uint64_t *when)
{
    uint64_t w = 0;
    for (unsigned i = 1; i < ASC_PIPE_COUNT; i++) {
        const AscPipeUnit *p = &c->pipes[i];
        if (!p->present) continue;
        if (!asc_pipe_idle(p)) return false;
        w = max64(w, p->done_cycle);
    }
    *when = w;
    return true;
}

/* Is `in` (the instruction at c->pc) legal on this core?  Fault with the
 * rule's words if not.  asc_target_check_insn decides; its answer was
 * cached per instruction at decode (AscProg.legal); the first broken rule
 * is reported. */
static bool illegal(AscSim *sim, AscCore *c, const AscInsn *in);

static inline bool check_legal(AscSim *sim, AscCore *c, const AscInsn *in, uint32_t idx)
{
    if ((c->prog->legal[idx] >> c->kind) & 1) return true;
    return illegal(sim, c, in);
}

static bool illegal(AscSim *sim, AscCore *c, const AscInsn *in)
{
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    if (!asc_target_check_insn(&sim->cfg, c->kind, in, r)) return true;
    char why[200];
    asc_target_rule_text(&r[0], why, sizeof why);
    return asc_sim_fail(sim, ASC_FAULT_ILLEGAL, c, ASC_PIPE_S, c->pc, in->op, "%s", why);
}

/* Issue `in` into `pipe`'s queue at t; false when the queue is full.  The
 * operands are captured now (docs/timing.md §Scalar): later scalar
 * instructions may overwrite the registers before the pipe starts it. */
static bool issue(AscSim *sim, AscCore *c, const AscInsn *in, uint8_t pipe, uint64_t t)
{
    const AscPipeUnit *p = &c->pipes[pipe];
    if (p->qcount == p->qcap) return false; /* asc_pipe_push's own test, before the capture it would waste */
    AscQEntry e;
    asc_capture(c, in, c->pc, &e.q);
    e.issue_cycle = t;
    e.seq = c->seq;
    return asc_pipe_push(sim, c, pipe, &e);
}

/* Park the scalar unit in the heap until cycle t (ASC_NEVER: until woken).
 * Always false ("not running"), so a stall check reads `return sleep_until(..)`. */
static bool sleep_until(AscSim *sim, AscCore *c, uint64_t t)
{
    c->stime = t;
    asc_heap_set_inline(&sim->heap, asc_agent(c, ASC_PIPE_S), t);
    return false;
}

/* Enter stall `s` at cycle t; the stall's cycles are counted from t. */
static void stall_on(AscCore *c, AscScalarState s, uint64_t t)
{
    c->sstate = s;
    c->swait_since = t;
}

/* The instruction at the scalar unit's pc (the one a stall is about). */
static const AscInsn *cur_insn(const AscCore *c)
{
    return &c->prog->insn[(c->pc - c->prog->entry) / 4];
}

/* The stalled instruction at pc is released at t: it took `stall` cycles
 * blocked for `why`, then costs lat.sync; S moves past it and runs.
 * Returns S's new time.  (t goes by value here and in set_on_scalar: a
 * pointer into the run-ahead loop would keep t out of a register.) */
static uint64_t finish_stalled(AscSim *sim, AscCore *c, uint64_t t, uint64_t stall, uint8_t why)
{
    emit_scalar(sim, c, cur_insn(c), c->swait_since, t + sim->lat_sync, stall, stall ? why : ASC_STALL_NONE);
    c->pc += 4;
    c->sstate = ASC_SS_RUN;
    return t + sim->lat_sync;
}

/* Every core that has not ended waits at sync_all: release them all at t
 * and open the next generation (a core compares its sync_gen to see it). */
static void release_sync_all(AscSim *sim, uint64_t t)
{
    sim->sync_arrived = 0;
    sim->sync_gen++;
    for (uint32_t i = 0; i < sim->ncores; i++)
        if (sim->cores[i].sstate == ASC_SS_SYNC_ALL) asc_wake_scalar(sim, &sim->cores[i], t);
}

static void sync_all_arrive(AscSim *sim, AscCore *c, uint64_t t)
{
    if (c->race && c->race->gm) asc_race_gm_sync_arrive(sim, c);
    stall_on(c, ASC_SS_SYNC_ALL, t);
    c->sync_gen = sim->sync_gen;
    if (++sim->sync_arrived < sim->ncores - sim->finished) return;
    release_sync_all(sim, t);
}

/* ---- leaving a stall: each returns true when S runs again at *t ---------- */

static bool resolve_wait_flag(AscSim *sim, AscCore *c, uint64_t *t)
{
    AscFlag *f = &c->flags[c->swait_src][ASC_PIPE_S][c->swait_event];
    if (!f->set) return sleep_until(sim, c, ASC_NEVER);
    /* a set flag is seen flag_release cycles after its set (the handoff) */
    uint64_t visible = f->set_cycle + sim->release;
    if (visible > *t) return sleep_until(sim, c, visible);
    uint64_t set_cycle = f->set_cycle;
    uint32_t set_pc = f->set_pc;
    asc_flag_consume(f); /* a wait consumes the flag */
    if (c->race) asc_race_flag_wait(c, c->swait_src, ASC_PIPE_S, c->swait_event);
    if (sim->obs.on_flag) {
        AscSimFlagEvent fe = {.core = c->index, .src = c->swait_src, .dst = ASC_PIPE_S,
                              .event = c->swait_event, .set_cycle = set_cycle, .set_pc = set_pc,
                              .wait_start_cycle = c->swait_since, .release_cycle = *t, .wait_pc = c->pc};
        sim->obs.on_flag(sim->obs.ud, &fe);
    }
    uint64_t stall = *t - c->swait_since;
    AscPipeStats *ss = &c->pipes[ASC_PIPE_S].stats;
    ss->flag_wait_cycles += stall;
    ss->flag_wait_by[c->swait_src][c->swait_event] += stall;
    *t = finish_stalled(sim, c, *t, stall, ASC_STALL_FLAG);
    return true;
}

/* wait_flag_dev: the counter is set by other cores; take one set. */
static bool resolve_xwait(AscSim *sim, AscCore *c, uint64_t *t)
{
    if (!c->xcnt[c->swait_xid]) return sleep_until(sim, c, ASC_NEVER);
    c->xcnt[c->swait_xid]--;
    if (c->race) asc_race_xwait(c, c->swait_xid);
    uint64_t stall = *t - c->swait_since;
    c->pipes[ASC_PIPE_S].stats.xcore_cycles += stall;
    *t = finish_stalled(sim, c, *t, stall, ASC_STALL_XCORE);
    return true;
}

static bool resolve_sync_all(AscSim *sim, AscCore *c, uint64_t *t)
{
    if (sim->sync_gen == c->sync_gen) return sleep_until(sim, c, ASC_NEVER);
    if (c->race && c->race->gm) asc_race_gm_sync_leave(sim, c);
    uint64_t stall = *t - c->swait_since;
    c->pipes[ASC_PIPE_S].stats.sync_all_cycles += stall;
    *t = finish_stalled(sim, c, *t, stall, ASC_STALL_SYNC_ALL);
    return true;
}

/* The core ends at t.  It no longer counts for sync_all, so its end may
 * complete a sync_all the others already wait on. */
static bool end_core(AscSim *sim, AscCore *c, uint64_t t, uint64_t stall)
{
    emit_scalar(sim, c, cur_insn(c), c->swait_since, t, stall, stall ? ASC_STALL_DRAIN : ASC_STALL_NONE);
    c->sstate = ASC_SS_DONE;
    c->end_cycle = t;
    if (sim->san & ASC_SAN_SYNCCHECK) asc_san_core_end(sim, c);
    sim->finished++;
    if (sim->sync_arrived && sim->sync_arrived >= sim->ncores - sim->finished) release_sync_all(sim, t);
    return sleep_until(sim, c, ASC_NEVER);
}

/* bar all, end and sync_all first drain the core: every pipe idle and the
 * last completion landed.  Then bar all goes on, end stops the core and
 * sync_all waits for the other cores. */
static bool resolve_drain(AscSim *sim, AscCore *c, uint64_t *t)
{
    uint64_t when;
    if (!drained(c, &when)) return sleep_until(sim, c, ASC_NEVER);
    if (when > *t) return sleep_until(sim, c, when);
    if (c->race) asc_race_drain(c);
    uint64_t stall = *t - c->swait_since;
    AscPipeStats *ss = &c->pipes[ASC_PIPE_S].stats;
    ss->drain_cycles += stall;
    if (c->sdrain_next == 1) return end_core(sim, c, *t, stall);
    if (c->sdrain_next == 2) {
        /* sync_all: the drain counts as sync_all time, from the same start */
        ss->drain_cycles -= stall;
        uint64_t since = c->swait_since;
        sync_all_arrive(sim, c, *t);
        c->swait_since = since;
        return resolve_sync_all(sim, c, t);
    }
    *t = finish_stalled(sim, c, *t, stall, ASC_STALL_DRAIN);
    return true;
}

/* A queue-full stall: the pipe's pop woke us; retry the dispatch at *t. */
static bool resolve_qfull(AscCore *c, uint64_t t)
{
    c->pipes[ASC_PIPE_S].stats.queue_full_cycles += t - c->swait_since;
    c->sstate = ASC_SS_RUN;
    return true;
}

/* S is stalled: true when it can run again at *t (which may have advanced
 * by the released instruction's cost), false when it went back to sleep. */
static bool resolve_stall(AscSim *sim, AscCore *c, uint64_t *t)
{
    switch (c->sstate) {
    case ASC_SS_RUN: return true;
    case ASC_SS_DONE: return false;
    case ASC_SS_QFULL: return resolve_qfull(c, *t);
    case ASC_SS_WAIT_FLAG: return resolve_wait_flag(sim, c, t);
    case ASC_SS_XWAIT: return resolve_xwait(sim, c, t);
    case ASC_SS_DRAIN: return resolve_drain(sim, c, t);
    case ASC_SS_SYNC_ALL: return resolve_sync_all(sim, c, t);
    }
    return false;
}

/* ---- one instruction --------------------------------------------------------- */

/* The instruction at pc (its index in *idx), or NULL after a bad-pc fault.
 * One unsigned compare of pc - entry covers both ends (entry + size fits
 * in 32 bits, as the original two compares assumed). */
static inline const AscInsn *fetch(AscSim *sim, AscCore *c, uint32_t *idx)
{
    const AscProg *prog = c->prog;
    uint32_t off = c->pc - prog->entry;
    if (off >= prog->size || (c->pc & 3)) {
        asc_sim_fail(sim, ASC_FAULT_BAD_PC, c, ASC_PIPE_S, c->pc, 0,
                     "pc 0x%04x is outside the program [0x%04x, 0x%04x): control ran off the kernel "
                     "(a missing 'end' or a bad branch)",
                     c->pc, prog->entry, prog->entry + prog->size);
        return NULL;
    }
    *idx = off / 4;
    return &prog->insn[off / 4];
}

/* set_flag S, X or set_cross_core s at t: S sets it itself, effective at
 * t + lat.sync (when the instruction completes); false after a fault. */
static bool set_on_scalar(AscSim *sim, AscCore *c, const AscInsn *in, uint64_t t)
{
    uint64_t at = t + sim->lat_sync;
    if (in->op == ASC_OP_SET_FLAG) {
        if (!asc_flag_set(sim, c, ASC_PIPE_S, in->pdst, in->event, at, c->pc)) return false;
        if (c->race) asc_race_flag_set(c, ASC_PIPE_S, in->pdst, in->event, 0);
    } else {
        if (c->race && c->race->gm) asc_race_gm_xset(c, ASC_PIPE_S, 0);
        if (!asc_xcore_set(sim, c, in->mode, in->xid, at, c->pc, ASC_PIPE_S)) return false;
        if (c->race && in->mode != 2) asc_race_xset(c, ASC_PIPE_S, in->xid, 0);
    }
    emit_scalar(sim, c, in, t, at, 0, 0);
    c->pc += 4;
    return true;
}

/* A scalar instruction (ALU, SPR, branch, GM load/store, mask mode)
 * executes here at *t; false after a fault. */
static bool exec_on_scalar(AscSim *sim, AscCore *c, const AscInsn *in, uint64_t *t)
{
    c->npc = c->pc + 4;
    c->scost = 0;
    c->xfault = ASC_FAULT_ACCESS;
    c->spr[ASC_SPR_CYCLE] = *t;
    c->xpipe = ASC_PIPE_S;
    c->xpc = c->pc;
    sim->san_exec++;
    ExecFn *fn = exec_fn[in->op];
    bool ok;
    if (fn == asc_exec_ALU) {
        ok = alu(&c->ctx, in);
    } else if (fn == asc_exec_BRANCH) {
        branch(c, in, c->pc);
        ok = true;
    } else if (fn == asc_exec_SPR) { /* asc_dispatch's setup (ia_unit, data_exp) is for data accesses */
        ok = spr(&c->ctx, in, c->pc);
    } else if (fn == asc_exec_MASKMODE) {
        maskmode(c, in);
        ok = true;
    } else {
        AscIssued q;
        asc_capture(c, in, c->pc, &q);
        ok = asc_dispatch(c, &q, NULL);
    }
    if (!ok) {
        asc_sim_fail(sim, (AscFaultKind)c->xfault, c, ASC_PIPE_S, c->pc, in->op, "%s", c->ctx.fault);
        return false;
    }
    /* scost: a taken branch's or a GM access's extra cycles, set by the exec function */
    uint64_t cost = (asc_insn_info[in->op].lat == ASC_LAT_MASK ? sim->lat_mask : sim->lat_scalar) + c->scost;
    if (sim->functional) cost = 1;
    emit_scalar(sim, c, in, *t, *t + cost, 0, 0);
    *t += cost;
    c->pc = c->npc;
    return true;
}

/* The queue of `pipe` is full: undo the fetch and sleep until the pipe
 * takes its head (start_next in core.c wakes us); the retry re-fetches. */
static void queue_full(AscSim *sim, AscCore *c, uint8_t pipe, uint64_t t)
{
    c->seq--;
    sim->insns--;
    stall_on(c, ASC_SS_QFULL, t);
    c->swait_pipe = pipe;
    sleep_until(sim, c, ASC_NEVER);
}

/* The run-ahead loop's fast path: a run of ALU and branch instructions (the
 * body of a scalar loop) with the core's state in locals.  It does exactly
 * what asc_scalar_step's general path does for them (the same checks, the
 * same horizon rule, the same per-pc and pipe statistics, the same cost),
 * and stops at the first other instruction, fault, stall-free limit or
 * observer, leaving it to the general path: without an observer there is
 * nothing to tell per instruction.  Returns false after a fault (then the
 * general path's fault was raised here, identically). */
static bool run_alu(AscSim *sim, AscCore *c, uint64_t *tp, uint64_t horizon)
{
    const AscProg *prog = c->prog;
    const uint32_t entry = prog->entry, end = prog->entry + prog->size;
    const unsigned kind = c->kind;
    const uint64_t lat_scalar = sim->functional ? 1 : sim->lat_scalar;
    const uint64_t lat_branch = sim->functional ? 0 : sim->lat_branch;
    /* counters in locals (stores to registers could alias them for the
     * compiler), written back below: nothing reads them inside the loop */
    const uint64_t limit = sim->limit;
    AscPcStats *const pcs = c->pcs;
    uint64_t t = *tp, n = 0, busy = 0, last_t = 0, now = sim->now;
    uint32_t pc = c->pc, last_pc = 0;
    bool ok = true;
    for (;;) {
        if (t > now && (t >= horizon || t >= limit)) break;
        if (pc < entry || pc >= end || (pc & 3)) break; /* the general path faults */
        uint32_t idx = (pc - entry) / 4;
        const AscInsn *in = &prog->insn[idx];
        if (!((prog->legal[idx] >> kind) & 1)) break;
        ExecFn *fn = exec_fn[in->op];
        uint64_t cost;
        uint32_t npc = pc + 4;
        if (fn == asc_exec_ALU) {
            if (asc_insn_info[in->op].lat == ASC_LAT_MASK) break; /* not an ALU latency: general path */
            c->xfault = ASC_FAULT_ACCESS;
            if (!alu(&c->ctx, in)) {
                ok = false;
                break;
            }
            cost = lat_scalar;
        } else if (fn == asc_exec_BRANCH) {
            if (asc_insn_info[in->op].lat == ASC_LAT_MASK) break;
            cost = lat_scalar;
            if (branch_taken(c, in)) {
                npc = (uint32_t)((int64_t)pc + in->off);
                cost += lat_branch;
            }
        } else {
            break;
        }
        AscPcStats *ps = &pcs[idx]; /* functional: lat_scalar 1, lat_branch 0, so cost 1 as there */
        ps->count++;
        ps->cycles += cost;
        now = t;
        n++;
        busy += cost;
        last_t = t;
        last_pc = pc;
        t += cost;
        pc = npc;
    }
    c->seq += n;
    sim->insns += n;
    sim->san_exec += n;
    sim->now = now;
    if (n || !ok) {
        AscPipeUnit *s = &c->pipes[ASC_PIPE_S];
        s->stats.insns += n;
        s->stats.busy_cycles += busy;
        if (n) { /* what exec_on_scalar leaves behind after the last one */
            s->stats.last_end_cycle = t;
            c->spr[ASC_SPR_CYCLE] = last_t;
            c->xpipe = ASC_PIPE_S;
            c->xpc = last_pc;
            if (ok) c->xfault = ASC_FAULT_ACCESS;
        }
    }
    if (!ok) { /* the faulting instruction was fetched and counted, as in the general path */
        c->seq++;
        sim->insns++;
        c->spr[ASC_SPR_CYCLE] = t;
        c->xpipe = ASC_PIPE_S;
        c->xpc = pc;
        c->pc = pc;
        sim->now = t;
        sim->san_exec++;
        const AscInsn *in = &prog->insn[(pc - entry) / 4];
        asc_sim_fail(sim, (AscFaultKind)c->xfault, c, ASC_PIPE_S, pc, in->op, "%s", c->ctx.fault);
        return false;
    }
    c->pc = pc;
    *tp = t;
    return true;
}

/* The scalar unit's turn at sim->now: leave a stall if it can, then run
 * ahead under the horizon rule above until it stalls, faults or reaches an
 * instruction it may not execute yet (then it sleeps until that cycle).
 * Each instruction either executes here, enters a stall (the waits and
 * drains aimed at S), or is dispatched into its pipe's queue; the
 * synchronisation instructions name their pipe in an operand. */
void asc_scalar_step(AscSim *sim, AscCore *c)
{
    uint64_t t = sim->now;
    uint64_t horizon = asc_heap_min_cycle_inline(&sim->heap); /* next event of any other agent */
    for (;;) {
        if (c->sstate != ASC_SS_RUN && !resolve_stall(sim, c, &t)) return;
        if (!sim->obs.on_insn && !run_alu(sim, c, &t, horizon)) return;
        if (t > sim->now && (t >= horizon || t >= sim->limit)) {
            sleep_until(sim, c, t);
            /* The run loop's next turn, when it is another scalar unit's (the cores of one
             * program step in lockstep, one instruction each in turn): taken here, as
             * asc_sim_run's loop would, without the return to it and the call back. */
            uint32_t agent;
            uint64_t cycle;
            if (sim->faulted || !asc_heap_take_scalar_inline(&sim->heap, sim->limit, &agent, &cycle)) return;
            sim->now = t = cycle;
            c = &sim->cores[agent / ASC_AGENTS_PER_CORE];
            horizon = asc_heap_min_cycle_inline(&sim->heap);
            continue;
        }
        sim->now = t;
        uint32_t idx = 0;
        const AscInsn *in = fetch(sim, c, &idx);
        if (!in || !check_legal(sim, c, in, idx)) return;
        c->seq++;
        sim->insns++;

        uint8_t target; /* pipe whose queue gets the instruction, S = none */
        switch (in->op) {
        case ASC_OP_SET_FLAG:
        case ASC_OP_SET_CROSS_CORE:
            target = in->op == ASC_OP_SET_FLAG ? in->psrc : in->pipe;
            if (target == ASC_PIPE_S) { /* S sets it itself */
                if (!set_on_scalar(sim, c, in, t)) return;
                t += sim->lat_sync;
                continue;
            }
            break;
        case ASC_OP_WAIT_FLAG:
            if (in->pdst == ASC_PIPE_S) {
                if (sim->san & ASC_SAN_SYNCCHECK) asc_san_wait(sim, c, ASC_PIPE_S, c->pc, in);
                stall_on(c, ASC_SS_WAIT_FLAG, t);
                c->swait_src = in->psrc;
                c->swait_event = in->event;
                continue;
            }
            target = in->pdst;
            break;
        case ASC_OP_BAR:
            if (in->pipe == ASC_PIPE_ALL) {
                if (sim->san & ASC_SAN_SYNCCHECK) asc_san_bar_all(sim, c);
                stall_on(c, ASC_SS_DRAIN, t);
                c->sdrain_next = 0;
                continue;
            }
            target = in->pipe;
            break;
        case ASC_OP_WAIT_FLAG_DEV:
            stall_on(c, ASC_SS_XWAIT, t);
            c->swait_xid = in->xid;
            continue;
        case ASC_OP_SYNC_ALL:
        case ASC_OP_END:
            stall_on(c, ASC_SS_DRAIN, t);
            c->sdrain_next = in->op == ASC_OP_END ? 1 : 2;
            continue;
        default: target = asc_insn_info[in->op].pipe; break;
        }

        if (target == ASC_PIPE_S) {
            if (!exec_on_scalar(sim, c, in, &t)) return;
            continue;
        }
        if (!issue(sim, c, in, target, t)) return queue_full(sim, c, target, t);
        if (sim->san & ASC_SAN_SYNCCHECK) asc_san_issue(sim, c, target, in);
        t += sim->functional ? 1 : sim->lat_scalar; /* a dispatch costs lat.scalar */
        c->pc += 4;
        horizon = asc_heap_min_cycle_inline(&sim->heap); /* the push may have woken the pipe */
    }
}
