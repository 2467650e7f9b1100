/* sim_exec.h -- the contract between the simulator engine (sim.c & co:
 * scalar unit, queues, flags, timing, cores, HBM) and the data semantics of
 * queued instructions (exec_vector.c, exec_cube.c, exec_dma.c, gm.c).
 *
 * The engine decodes each instruction once, and when the scalar unit issues
 * a non-scalar instruction it captures everything the instruction will read
 * from the scalar side (register values, vector mask, CTRL, cmpmask) into an
 * AscIssued, so later scalar writes cannot change a queued instruction.
 *
 * When the instruction STARTS on its pipe, the engine calls the family's
 * exec function (generated dispatch: asc_exec_<FAM> from the FAM column of
 * isa/asc_isa.def).  The exec function checks every access (bounds,
 * alignment, reserved config bits, parameter ranges), applies the whole data
 * effect at once, and fills AscExecStats, from which the engine computes the
 * duration with the target config.  Applying data at start is exact for
 * kernels synchronised with flags and barriers; an unsynchronised kernel is
 * racy on real hardware too (--check-races reports such accesses).
 *
 * With race checking on, exec functions also report each range they read
 * or write through ctx->on_access (see AscAccessFn).
 *
 * Exec functions never allocate, never print; on a fault they return false
 * with a message in `fault` naming the rule, the address range and the
 * buffer, e.g. "UB write [0x2e000, 0x2e100) is outside UB (0x2e000 bytes
 * usable)"; the engine adds core, pipe, pc, instruction and source line. */
#ifndef ASC_SIM_EXEC_H
#define ASC_SIM_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asc/config.h"
#include "asc/isa.h"

/* A local buffer of one core.  size 0 = the core has no such buffer. */
typedef struct AscMem {
    uint8_t *data;
    uint32_t size;  /* bytes addressable (UB: ub_bytes - ub_reserved_bytes) */
    uint32_t align; /* required address alignment, bytes */
} AscMem;

/* GM: a lazily backed address space shared by all cores (gm.c).  Pages are
 * allocated on first write; reading a never-written byte gives 0.  Page
 * allocation is the one allocation allowed while running (it happens on data,
 * not per step); failure is a fault ("out of host memory backing GM"). */
typedef struct AscGm AscGm;
AscGm *asc_gm_new(const AscAlloc *alloc, uint64_t size_bytes);
void asc_gm_free(AscGm *gm);
uint64_t asc_gm_size(const AscGm *gm);
/* Copy out / in; false when [addr, addr+n) leaves GM or memory runs out. */
bool asc_gm_read(AscGm *gm, uint64_t addr, void *dst, size_t n);
bool asc_gm_write(AscGm *gm, uint64_t addr, const void *src, size_t n);
/* Allocates every page [addr, addr + n) touches, as asc_gm_write(addr, .., n) would, without
 * writing (pages inside the range are left uninitialised: the caller writes all of [addr,
 * addr + n) next).  Afterwards asc_gm_write inside the range allocates nothing, so writers of
 * disjoint parts may run on different threads (sim.c asc_sim_gm_write).  false = out of memory. */
bool asc_gm_reserve(AscGm *gm, uint64_t addr, size_t n);
/* Host threads (sim/pool.c): `sync(ud, lo, hi, write)` runs at the start of every asc_gm_read
 * (write false) and asc_gm_write (write true) and of asc_gm_sync: it waits for every job on a
 * worker whose GM range overlaps [lo, hi) and writes it (or reads it, when `write`).  The
 * _nosync copies skip it: only such a job itself uses them, on ranges the engine synchronised
 * and whose pages exist (read: asc_gm_backed; write: asc_gm_reserve), so they allocate nothing. */
void asc_gm_set_sync(AscGm *gm, void (*sync)(void *ud, uint64_t lo, uint64_t hi, bool write, bool collect),
                     void *ud);
/* asc_gm_sync: for a job about to be deferred; between AscExecCtx.deps_begin and the defer, the
 * conflicting jobs become the new job's predecessors instead of being waited for */
void asc_gm_sync(AscGm *gm, uint64_t lo, uint64_t hi, bool write);
bool asc_gm_read_nosync(AscGm *gm, uint64_t addr, void *dst, size_t n);
bool asc_gm_write_nosync(AscGm *gm, uint64_t addr, const void *src, size_t n);
/* The host memory of GM byte addr when its page exists, and in *run the bytes from there
 * that are contiguous in host memory (to the end of its page, or further when the next pages
 * follow it), at most max; NULL when the page was never written (*run: the bytes to its end,
 * at most max, which read as zero). */
uint8_t *asc_gm_host_run(AscGm *gm, uint64_t addr, size_t max, size_t *run);
/* true when every page [addr, addr + n) touches is allocated (and in range) */
bool asc_gm_backed(const AscGm *gm, uint64_t addr, size_t n);
/* Written marks, per 64 KiB page: every asc_gm_write(_nosync) marks the pages it touches.
 * asc_gm_written: true when a page overlapping [addr, addr + n) is marked (after the sync hook
 * waited for pending writers of the range); false for n 0 or a range outside GM.
 * asc_gm_set_written marks (or clears) the allocated pages overlapping the range: sim.c clears
 * what the host copies in before the kernel starts and marks what asc_sim_gm_fill writes after. */
bool asc_gm_written(AscGm *gm, uint64_t addr, uint64_t n);
void asc_gm_set_written(AscGm *gm, uint64_t addr, uint64_t n, bool written);
/* Bytes of host memory backing GM (for tests of laziness). */
uint64_t asc_gm_backed_bytes(const AscGm *gm);

/* What the scalar unit captured when it issued the instruction. */
typedef struct AscIssued {
    AscInsn in;
    uint32_t pc;
    uint64_t rd, rs1, rs2, rs3; /* values of the register operands at issue */
    uint64_t mask0, mask1;      /* vector mask at issue */
    uint64_t ctrl;              /* CTRL at issue (bit 56: counter mode) */
    uint64_t cmpmask;           /* SPR cmpmask at issue (vsel) */
    uint64_t st_atomic;         /* SPR st_atomic at issue (GM writes; exec_atomic.c) */
    uint64_t nd2nz_para;        /* SPR nd2nz_para at issue (ND2NZ copies; exec_nd2nz.c) */
    uint64_t pad_val;           /* SPR pad_val at issue (DataCopyPad GM -> UB; exec_dmapad.c) */
    uint64_t deqscale;          /* SPR deqscale at issue (vconv_deq; exec_vector.c) */
    uint64_t data_exp[4];       /* SPRs data_exp_0..3 at issue (UB access checks; exec_check.c) */
    uint64_t l3d[4];            /* SPRs fmatrix, padding, l3d_rpt, l1_3d_size at issue (load3dv2; exec_load3d.c) */
    uint64_t quant_pre, fpc;    /* SPRs quant_pre and fpc at issue (fix_l0c_to_out.q; exec_cube.c; fpc[15:8] an FB address) */
} AscIssued;

#define ASC_CTRL_COUNTER_BIT 56
#define ASC_CTRL_HF32_BIT 46 /* bit 46: mmad.f32 rounds inputs to HF32; bit 47: toward zero (else RNE) */

/* Reports one access of the instruction being executed: bytes [lo, hi) of
 * `buf` (GM: GM addresses) are read or written.  Called after every check
 * passed, any number of times per instruction; ranges of one instruction
 * may overlap.  Precision: whole 32 B blocks are enough (the race checker
 * keeps 32 B granules), but strided accesses report each block or burst,
 * never one covering range, so interleaved accesses do not look
 * overlapping. */
typedef void (*AscAccessFn)(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write);

/* initcheck through the cube path (sim/san.c), AscExecCtx.def, NULL unless initcheck is on:
 * the L1 -> L0A / L0B loads, mmad and the L0C readouts say exactly which bytes they move or
 * read, so that definedness follows the data instead of being checked at the loads.  All take
 * AscExecCtx.access_ud.  undef masks hold one byte per data byte, 0xff = not defined.
 *   l1: mask of L1 [lo, hi) (a byte is defined when its 32 B granule was written).
 *   put: L0A / L0B [lo, hi) was just written with definedness mask (NULL: all defined).
 *   mmad: C (m x n at c, NZ) = A (m x k at a, ZZ) x B (k x n at b, ZN), elements of esize
 *         bytes (exec_cube.c's layouts): an output is defined when every A(r, 0..k-1) and
 *         B(0..k-1, c) is, and with init 0 the old C(r, c) too.
 *   read: a read of exactly [lo, hi) of L0C: an error when any byte is not defined. */
typedef struct AscDefOps {
    void (*l1)(void *ud, uint64_t lo, uint64_t hi, uint8_t *undef);
    void (*put)(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, const uint8_t *undef);
    void (*mmad)(void *ud, uint64_t a, uint64_t b, uint64_t c, uint32_t m, uint32_t k, uint32_t n, uint32_t esize,
                 bool init);
    void (*read)(void *ud, AscBuf buf, uint64_t lo, uint64_t hi);
} AscDefOps;

/* The data work an exec function hands to a host worker thread (sim/pool.c,
 * `threads` of AscSimDesc).  The exec function has already checked every
 * access and filled AscExecStats; `run` only reads and writes its footprint: the core's
 * local buffers whose AscBuf bits are in `bufs`, or the ranges below (GM only there, with the
 * _nosync copies; never the ctx), and frees `scratch` (malloc'd by the exec function, may be
 * NULL).  A later conflicting access waits for the job, or a later conflicting job follows it
 * (AscExecCtx.on_buf, deps_begin, the GM hook), and asc_sim_run joins every job before it
 * returns, so nothing observes a result early.  run computes the same bits on any thread. */
typedef struct AscExecJob {
    void (*run)(const struct AscExecJob *j);
    /* optional: parts > 1 pieces run_part(j, 0..parts-1) that may run at the same time on
     * different threads, all of them together doing what run does (sim/pool.c runs them
     * instead of run; exec_cube.c's mmad splits its column panels) */
    void (*run_part)(const struct AscExecJob *j, uint32_t part);
    uint32_t parts;
    uint32_t bufs;         /* 1u << AscBuf of every buffer run may touch anywhere */
    /* a footprint in ranges instead (DMA copies, bufs 0): run touches [llo, lhi) of local
     * buffer lbuf (writing it when lwrite) and, when gm, [glo, ghi) of GM (writing when gwrite);
     * it may read and write GM with the _nosync copies there, and nothing outside */
    uint8_t lbuf;          /* AscBuf; an empty [llo, lhi) (zeroed) is no local range */
    bool lwrite, gm, gwrite;
    uint64_t llo, lhi, glo, ghi;
    void *scratch;
    const uint8_t *in0, *in1;
    uint8_t *out;
    uint32_t u[12];
    bool flag;
    _Alignas(8) unsigned char blob[480]; /* the exec function's own job state (exec_vector.c) */
} AscExecJob;

/* The core's data state an exec function may touch. */
/* exec_vector.c: a memo of the timing accounting of recent vector instructions of one
 * core (bytes, flops, repeats and the UB bank beats: a pure function of the operands'
 * addresses, strides, masks, repeat count and the bank config when no race is checked).
 * A zeroed table is empty. */
#define ASC_VEC_ACCT_SLOTS 64 /* sets of ASC_VEC_ACCT_WAYS slots, the least recently used replaced */
#define ASC_VEC_ACCT_WAYS 4
#define ASC_VEC_ACCT_KEY 22
typedef struct AscVecAcct {
    uint64_t key[ASC_VEC_ACCT_KEY]; /* key[0] bit 0 is set in every used slot */
    uint64_t bytes, flops;
    uint64_t used; /* the core's memo clock (vec_acct_clock) at its last use */
    uint32_t repeats, beats, conflict_beats, rr, ww, rw;
} AscVecAcct;

/* exec_vector.c: a memo of whole vector instructions of one core, by pc: an instruction whose
 * opcode, register values, mask, CTRL, DEQSCALE and the core's UB and bank config equal a recent
 * one's at the same pc has the same plan (operands, repeats, masks), the same checks passed, the
 * same UB spans to order after pending jobs and the same AscExecStats.  A zeroed table is empty. */
#define ASC_VEC_PLAN_SETS 16
#define ASC_VEC_PLAN_WAYS 4
#define ASC_VEC_PLAN_KEY 15
typedef struct AscVecPlan {
    uint64_t key[ASC_VEC_PLAN_KEY]; /* key[0] bit 0 is set in every used slot */
    uint64_t used;                  /* vec_acct_clock at its last use */
    uint64_t lo[4], hi[4];          /* the UB spans its operand checks gave asc_exec_check_span */
    uint8_t nspan, wmask, empty;    /* wmask bit k: span k is a write; empty: no repeat */
    _Alignas(8) unsigned char st[96];   /* the AscExecStats it produced from zero */
    _Alignas(8) unsigned char job[480]; /* its job state (exec_vector.c's VJob) */
} AscVecPlan;

typedef struct AscExecCtx {
    const AscConfig *cfg;
    AscMem mem[ASC_BUF_COUNT]; /* mem[ASC_BUF_GM] unused: GM goes through gm */
    AscGm *gm;
    char fault[256];           /* set when an exec function returns false */
    bool no_bank_cost;         /* --functional: no timing, so skip the UB bank model (10% of a vadd) */
    AscAccessFn on_access;     /* NULL unless races are checked: then no access is reported, at no cost */
    void *access_ud;
    const AscDefOps *def;      /* initcheck's cube path (AscDefOps); NULL unless initcheck is on */
    /* memcheck (san.c): a GM access [lo, hi) that passed the GM size check; false = fault
     * (message in fault).  NULL when no allocation was placed and memcheck is off. */
    bool (*on_gm)(void *ud, bool write, uint64_t lo, uint64_t hi);
    void *gm_ud;
    /* host threads (sim/pool.c); both NULL with one thread.  on_buf: called by
     * asc_exec_check_local (all of `buf`) and asc_exec_check_span ([lo, hi)) before an exec
     * function touches local buffer `buf` (joins every pending job of this core that uses
     * it: whole buffers in AscExecJob.bufs, or an overlapping range one of the two writes).
     * defer: takes a copy of *job to run on a worker; false = not taken, the caller runs it
     * inline. */
    void (*on_buf)(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write);
    bool (*defer)(void *ud, const AscExecJob *job);
    void *pool_ud;
    /* deps_begin: until the next defer or deps_join, asc_exec_check_span and asc_gm_sync do
     * not wait for the conflicting jobs they find: the next deferred job follows them on the
     * workers.  deps_join: waits for them (before the exec function touches the data itself).
     * Only exec functions whose data pass is deferred or runs after deps_join use them (DMA,
     * DMAPAD, the vector families); asc_exec_check_local and every GM read or write of the
     * calling thread still wait at once. */
    void (*deps_begin)(void *ud);
    void (*deps_join)(void *ud);
    /* mmad's unpacked operands (exec_cube.c), allocated once with the cube buffers (sim.c):
     * 4 x (L0A + L0B) bytes bound every dtype; a core's next mmad joins the job using it first */
    void *mm_scratch;
    size_t mm_scratch_bytes;
    /* mmad's arithmetic in this many parts (AscExecJob.parts, 0/1 = one) when the scratch holds
     * that many copies of A (sim/pool.c sets it and the scratch for 1-core-per-thread runs) */
    uint32_t mm_parts;
    /* true: mmad's arithmetic takes the portable C path even where the host has F16C or
     * AVX-512F (the unit tests compare both; zero-initialised contexts take the fast path) */
    bool mm_portable;
    /* the host's fast paths for mmad (exec_cube.c mm_host): 0 until the first mmad asks the
     * CPU, once per context (cpuid is slow, and traps to the hypervisor in a VM) */
    uint32_t mm_host;
    /* VMS4_SR: per-list counts the last vmrgsort4 consumed (exec_vsort.c), read by mfspr vms4_sr */
    uint64_t vms4_sr;
    /* the CMPMASK register, 128 bits (exec_cmpmask.c: set_cmpmask / get_cmpmask; vsel cmpreg) */
    uint8_t cmpmask_reg[16];
    /* RSVD_CNT: elements the last vreducev2 kept (exec_vreducev2.c), read by mfspr rsvd_cnt */
    uint64_t rsvd_cnt;
    /* VA0..VA3, 8 UB byte addresses each (setva / vldva, read by vnchwconv: exec_vnchwconv.c) */
    uint64_t va[32];
    /* CheckLocalMemoryIA (exec_check.c): the data_exp_0..3 words of the instruction being
     * executed and its unit (0 scalar, 1 vector, 2 MTE, 3 none), set by asc_dispatch */
    uint64_t data_exp[4];
    uint8_t ia_unit;
    AscVecAcct vec_acct[ASC_VEC_ACCT_SLOTS]; /* exec_vector.c's accounting memo */
    AscVecPlan vec_plan[ASC_VEC_PLAN_SETS * ASC_VEC_PLAN_WAYS]; /* exec_vector.c's instruction memo */
    uint64_t vec_acct_clock;
    int8_t exp_fma; /* exec_vector.c: vexp.f32's vector expf matches the host's expf: 1 yes, -1 no, 0 not checked */
    int8_t f16c;    /* exec_vector.c: the host's F16C conversions match asc_f16_widen / asc_f16_narrow: 1, -1, 0 */
} AscExecCtx;

/* What the timing model needs to know about one executed instruction. */
typedef struct AscExecStats {
    /* vector */
    uint32_t repeats;        /* repeats executed (counter mode: derived) */
    uint32_t beats;          /* sum over repeats of beats(repeat), including conflicts */
    uint32_t conflict_beats; /* beats - repeats * vec.base_beats */
    uint32_t rr_conflicts, ww_conflicts, rw_conflicts; /* repeats with each kind */
    /* data movement */
    uint8_t src_buf, dst_buf; /* AscBuf */
    uint64_t bytes;           /* bytes moved (DMA/load/fixpipe) or read by vector/cube */
    uint32_t bursts;          /* DMA bursts */
    bool gm_unaligned;        /* a GM burst start not aligned to dma.gm_align_fast */
    /* cube */
    uint64_t cube_steps;      /* ceil(m/m0) * ceil(n/n0) * ceil(k/k0) */
    uint64_t flops;           /* 2*m*n*k for mmad; element ops for vector */
    /* a note for the run's note list (AscNoteKind; 0 = none), e.g. a DataCopy that drops bytes */
    uint8_t note;
    uint64_t note_a, note_b;
} AscExecStats;

/* One exec function per FAM of the data-moving and computing families.
 * dt0/dt1 are the DT0/DT1 columns of the table row. */
#define ASC_EXEC_FN(fam) \
    bool asc_exec_##fam(AscExecCtx *ctx, const AscIssued *q, AscDtype dt0, AscDtype dt1, AscExecStats *st)
ASC_EXEC_FN(DMA);
ASC_EXEC_FN(LOAD2D);
ASC_EXEC_FN(DMAPAD);
ASC_EXEC_FN(FIXPIPE);
ASC_EXEC_FN(MMAD);
/* scalar loads and stores of UB, run by the scalar unit (exec_scalar_ub.c) */
ASC_EXEC_FN(LDUB);
ASC_EXEC_FN(STUB);
/* the device print channel, run by the scalar unit (exec_print.c) */
ASC_EXEC_FN(PRINT);
/* the vector families of sim/asc_vfam.def, and vtranspose */
#define ASC_VFAM(fam, shape, dtypes, flops) ASC_EXEC_FN(fam);
#include "asc_vfam.def"
#undef ASC_VFAM
ASC_EXEC_FN(VTRANSPOSE);
/* the gathers (exec_vgather.c) */
ASC_EXEC_FN(VGATHER);
ASC_EXEC_FN(VGATHERB);
/* the sorts (exec_vsort.c) */
ASC_EXEC_FN(VBITSORT);
ASC_EXEC_FN(VMRGSORT4);
/* the CMPMASK register transfers (exec_cmpmask.c) */
ASC_EXEC_FN(CMPMASK);
/* the gather mask (exec_vreducev2.c) */
ASC_EXEC_FN(VREDUCEV2);
/* the address registers and vnchwconv (exec_vnchwconv.c) */
ASC_EXEC_FN(SETVA);
ASC_EXEC_FN(VNCHWCONV);
/* the constant fill of L1 / L0A / L0B (exec_cmatrix.c) */
ASC_EXEC_FN(CMATRIX);
/* LoadData3D v2, im2col L1 -> L0A / L0B (exec_load3d.c) */
ASC_EXEC_FN(LOAD3D);
/* LoadDataWithTranspose, L1 -> L0A / L0B (exec_load2dt.c) */
ASC_EXEC_FN(LOAD2DT);
/* L1 -> fixpipe buffer (exec_fbuf.c) */
ASC_EXEC_FN(FBCOPY);

/* IEEE half and bfloat16 conversions, round to nearest even (fp16.c). */
float asc_f16_to_f32(uint16_t h);
uint16_t asc_f32_to_f16(float f);          /* RNE, overflow -> inf, NaN kept quiet */
uint16_t asc_f32_to_f16_rnd(float f, AscRnd rnd);
float asc_bf16_to_f32(uint16_t b);
uint16_t asc_f32_to_bf16(float f);         /* RNE */
uint16_t asc_f32_to_bf16_rnd(float f, AscRnd rnd);

#endif
