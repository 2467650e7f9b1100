/* exec_internal.h -- helpers shared by the exec part (exec_vector.c,
 * exec_cube.c, exec_dma.c, exec_check.c, ubbank.c); not a public header.
 *
 * Users: only the exec_* files.  Every helper that can fail writes a
 * message into ctx->fault naming the rule, the address range [lo, hi) in
 * hex, the buffer and its limit, and returns false; it never prints and
 * never allocates.  Addresses are 64-bit byte offsets; ranges are half open. */
#ifndef ASC_EXEC_INTERNAL_H
#define ASC_EXEC_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "sim_exec.h"

/* "UB", "L1", ... for messages. */
const char *asc_exec_buf_name(AscBuf buf);

/* printf into ctx->fault; always returns false so callers can
 * `return asc_exec_fault(ctx, ...)`. */
bool asc_exec_fault(AscExecCtx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The buffer exists on this core, [lo, hi) lies inside it, and lo is a
 * multiple of its alignment (when check_align).  `what` names the operand
 * ("src0", "dst", "cmpmask"); `write` picks "read"/"write" in messages. */
bool asc_exec_check_local(AscExecCtx *ctx, AscBuf buf, const char *what, bool write, uint64_t lo, uint64_t hi,
                          bool check_align);

/* As asc_exec_check_local, for an access that touches nothing of `buf` outside [lo, hi):
 * a pending host job of the core is then joined only when its range overlaps (sim/pool.c). */
bool asc_exec_check_span(AscExecCtx *ctx, AscBuf buf, const char *what, bool write, uint64_t lo, uint64_t hi,
                         bool check_align);

/* [lo, hi) lies inside GM; lo is a multiple of align_bytes (1 = any). */
bool asc_exec_check_gm(AscExecCtx *ctx, const char *what, bool write, uint64_t lo, uint64_t hi, uint32_t align_bytes);

/* Config register bits outside every key of `layout` must be zero. */
bool asc_exec_check_cfg(AscExecCtx *ctx, AscCfgLayout layout, uint64_t cfg);

/* GM copies after the range was checked: a failure now means host memory
 * for GM pages ran out, reported as such. */
bool asc_exec_gm_read(AscExecCtx *ctx, uint64_t addr, void *dst, size_t n);
bool asc_exec_gm_write(AscExecCtx *ctx, uint64_t addr, const void *src, size_t n);

/* A DMA or fixpipe write to GM under the store atomic config `st_atomic`
 * (SPR st_atomic at issue, exec_atomic.c): type 0 is a plain write; otherwise
 * every element of [addr, addr+n) becomes op(GM, src).  Faults on a reserved
 * bit, an unknown type or op, or an addr/n that is not a multiple of the
 * element size. */
bool asc_exec_gm_store(AscExecCtx *ctx, uint64_t st_atomic, uint64_t addr, const void *src, size_t n);

/* mov_out_to_l1 with config bit 15 set: DataCopy with Nd2NzParams
 * (exec_nd2nz.c); fills st like every DMA copy. */
/* d(c, r) = s(r, c) for a 16 x 16 fractal of 2-byte elements (exec_dma.c; no overlap) */
void asc_frac_transpose16(uint8_t *d, const uint8_t *s);
bool asc_exec_nd2nz(AscExecCtx *ctx, const AscIssued *q, AscExecStats *st);

/* ---- f16 -> f32 widening: the one definition (asc_f16_to_f32 in fp16.c
 * returns it), inline so the cube unpacks its operands without a call.
 * Exact, subnormals included; inf stays inf; NaNs come out quiet, payload
 * kept.  Normal numbers (the common case) are a shift and an add. */
static inline float asc_f16_widen(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    uint32_t u;
    float f;
    if (e != 0 && e != 0x1f) {
        u = sign | ((e - 15 + 127) << 23) | (m << 13);
    } else if (e == 0x1f) {
        u = sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0); /* inf / quiet NaN */
    } else {
        f = (float)m * 0x1p-24f; /* zero or subnormal: m * 2^-24, exact in f32 */
        return sign ? -f : f;
    }
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- f32 -> f16, round to nearest even: the one definition (asc_f32_to_f16
 * in fp16.c returns it), inline for the vector lanes.  Results that are
 * normal f16 numbers take an integer fast path (checked against the general
 * rounder by the unit tests); the rest go to asc_f32_to_f16_rnd. */
static inline uint16_t asc_f16_narrow(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x38800000u && a < 0x477ff000u) {
        uint32_t r = a - 0x38000000u;
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(((u >> 16) & 0x8000u) | (r >> 13));
    }
    return asc_f32_to_f16_rnd(f, ASC_RND_RINT);
}

/* ---- roundings beyond sim_exec.h (fp16.c) -------------------------------- */
float asc_f64_to_f32_rnd(double d, AscRnd rnd);
/* Round to an integral value; NONE and RINT are ties-to-even. */
double asc_round_integral(double d, AscRnd rnd);
/* Round by rnd, saturate to [lo, hi], NaN -> 0. */
int64_t asc_float_to_int_sat(double d, AscRnd rnd, int64_t lo, int64_t hi);

/* ---- UB bank conflicts (ubbank.c) ----------------------------------------
 * One vector repeat's accesses: the start address of every 32 B block read
 * or written.  A block is counted once per operand that touches it. */
#define ASC_BANK_MAX_BLOCKS 64

typedef struct AscBankRepeat {
    uint32_t nread, nwrite;
    uint64_t read[ASC_BANK_MAX_BLOCKS];
    uint64_t write[ASC_BANK_MAX_BLOCKS];
} AscBankRepeat;

typedef struct AscBankCost {
    uint32_t r, w, rw; /* worst multiplicities (rw: 0 when no bank is both read and written) */
    uint32_t beats;    /* base_beats * max(1, r, w, rw) */
} AscBankCost;

/* The cost of one repeat under the config's bank model. */
AscBankCost asc_ubbank_cost(const AscConfig *cfg, const AscBankRepeat *rep);
/* Adds one repeat's cost into the stats (beats, conflict counts). */
void asc_ubbank_account(const AscConfig *cfg, const AscBankRepeat *rep, AscExecStats *st);
/* Adds a cost computed before (a repeat with the same cost, exec_vector.c). */
void asc_ubbank_add(const AscConfig *cfg, AscBankCost c, AscExecStats *st);
/* For the instructions that gather one repeat's UB blocks themselves (exec_vsort.c,
 * exec_vreducev2.c, exec_vnchwconv.c): adds the 32 B block of addr to the repeat (once per
 * block, at most ASC_BANK_MAX_BLOCKS), and ends the repeat (its bank cost into st unless
 * ctx->no_bank_cost, each block to ctx->on_access, st->repeats + 1). */
void asc_ubbank_block(AscBankRepeat *br, bool write, uint64_t addr);
void asc_ubbank_flush(AscExecCtx *ctx, AscBankRepeat *br, AscExecStats *st);

#endif
