/* san.c -- the compute sanitizer (asc-sim run --sanitize=..., AscSimDesc.sanitize), after
 * CUDA's compute-sanitizer; docs/timing.md §Sanitizers.
 *
 * Users: sim.c (the allocation table, launch, the end of a run), core.c and scalar.c (the
 * hooks, each behind a test of a field that is zero when the check is off), exec_check.c
 * through AscExecCtx.on_gm.
 *
 * memcheck.  Every GM argument placed with asc_sim_gm_place is its own allocation
 * [base, base + bytes), named after the kernel argument whose register holds its base;
 * .rodata is one more, read-only.  Placement leaves the rest of each 2 MiB slot unused: the
 * red zone.  An access belongs to the allocation its first byte falls in (the simplest sound
 * rule); it is an error when it runs past that allocation's end, when its first byte is in no
 * allocation (a red zone or unplaced GM), or when it writes .rodata; a read also when it reaches
 * the extent's padding block past the data's last 32-byte block (no data there).  The check runs once per
 * instruction on the whole footprint the exec function checks against the GM size (a DMA's
 * span from its first burst to the end of its last), before any byte moves.  Out-of-allocation
 * WRITES are checked in every run that placed an allocation (they can never be right) and are
 * a fault there; out-of-allocation READS are a run note (ASC_NOTE_GMREAD: the launch's
 * warnings, asc-sim's stderr), since they give wrong numbers silently; with memcheck on, both
 * are checked and every error is listed instead (the run goes on).  No check costs a cycle.
 *
 * initcheck.  A 32 B granule of a local buffer, or of a GM allocation, is initialised once
 * any byte of it was written in this run (the host's asc_sim_gm_write of an input counts; an
 * output the host only placed does not).  A read of a granule never initialised is an error.
 * Granules make the check free of false positives (an access is reported in whole 32 B blocks,
 * sim_exec.h) at the price of missing a read of the unwritten bytes of a written granule.
 * The cube path carries definedness instead of checking it (AscDefOps, sim_exec.h): L0A, L0B
 * and L0C keep it per byte (AscCore.undef: 0 defined, 1 never written, 2 computed from bytes
 * not defined).  The L1 -> L0A/L0B loads (load2d, the transposing 2dt load, load3dv2) report
 * no read of L1: each byte written takes the definedness of the L1 byte it moves (that of its
 * granule) through the same transpose, the data's own code applied to the masks; load3dv2's
 * padding values are defined.  mmad reports nothing: it writes only C(r, c), r < m, c < n,
 * reading only A(r, 0..k-1) and B(0..k-1, c) (exec_cube.c), so C(r, c) is defined when all of
 * those are, and accumulating the old C(r, c) too.  The L0C readouts check exactly the m x n
 * elements they read and report there (a fixpipe's whole-row footprint, which racecheck gets,
 * also covers the padding columns).  Every other reader of L0A/L0B/L0C reports undefined bytes
 * in its footprint; every other writer makes its footprint defined.  So an asc.adv.Matmul tail,
 * whose loads move the never-written padding rows of an L1 tile into L0A/L0B and from there
 * only into C's padding, is clean, and never-written L1 that reaches an output is reported by
 * the instruction that makes it visible.
 *
 * synccheck (warnings).  A flag still set when its core reaches `end` (a set_flag no
 * wait_flag consumed); a wait_flag whose flag is not set or pending when it starts and that no
 * set_flag of the core's program sets (it can only deadlock); a `bar PIPE` while PIPE started
 * nothing since the start or its last barrier.
 *
 * Each finding is kept as the first ASC_SIM_MAX_SAN distinct (check, pc, what) with the text
 * of its first occurrence in full and a count of occurrences; the others are counted per check.
 *
 * Invariants: everything is allocated at asc_sim_new / asc_sim_gm_place (setup), nothing while
 * running; with every check off and no allocation placed, no hook does anything. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"
#include "sim_internal.h"

/* ---- the allocation table ------------------------------------------------------------ */

bool asc_san_add_alloc(AscSim *sim, uint64_t base, uint64_t bytes, bool rodata)
{
    if (sim->nallocs == ASC_SIM_MAX_ALLOCS) return false;
    AscGmAlloc *a = &sim->allocs[sim->nallocs];
    memset(a, 0, sizeof *a);
    a->base = base;
    /* the extent a device allocation has on the card (asc_gm_extent), so a kernel reading its
     * last 32-byte block whole stays inside it, as on hardware; accesses past the extent are
     * the errors, and messages give both sizes */
    a->req = bytes;
    a->bytes = rodata ? bytes : asc_gm_extent(bytes);
    a->rodata = rodata;
    if (rodata) snprintf(a->name, sizeof a->name, ".rodata");
    else snprintf(a->name, sizeof a->name, "gm allocation %u", sim->nallocs);
    if (sim->san & ASC_SAN_INITCHECK) {
        /* one flag per granule of the whole extent: accesses are clamped to it (init_access) */
        size_t n = (size_t)((a->bytes + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE);
        a->init = asc_calloc(&sim->alloc, n ? n : 1, 1);
        if (!a->init) return false;
        if (rodata) memset(a->init, 1, n);
    }
    if ((sim->san & ASC_SAN_RACECHECK) && !rodata && !asc_race_gm_alloc(sim, a)) {
        asc_free(&sim->alloc, a->init); /* not counted in nallocs: asc_san_free would not see it */
        a->init = NULL;
        return false;
    }
    sim->nallocs++;
    if (!rodata) sim->nuser_allocs++;
    return true;
}

void asc_san_free(AscSim *sim)
{
    for (uint32_t i = 0; i < sim->nallocs; i++) {
        asc_free(&sim->alloc, sim->allocs[i].init);
        asc_free(&sim->alloc, sim->allocs[i].race);
    }
    for (uint32_t i = 0; sim->cores && i < sim->ncores; i++)
        for (unsigned b = 0; b < ASC_BUF_COUNT; b++) {
            asc_free(&sim->alloc, sim->cores[i].init[b]);
            asc_free(&sim->alloc, sim->cores[i].undef[b]);
        }
}

/* The allocation holding byte `addr`, or -1. */
static int alloc_of(const AscSim *sim, uint64_t addr)
{
    for (uint32_t i = 0; i < sim->nallocs; i++) {
        const AscGmAlloc *a = &sim->allocs[i];
        if (addr >= a->base && addr - a->base < a->bytes) return (int)i;
    }
    return -1;
}

static void mark(uint8_t *init, uint64_t lo, uint64_t hi)
{
    if (hi <= lo) return;
    memset(init + lo / ASC_RACE_GRANULE, 1, (size_t)((hi - 1) / ASC_RACE_GRANULE - lo / ASC_RACE_GRANULE + 1));
}

/* The host wrote GM [addr, addr + n): those granules of allocations are initialised. */
void asc_san_host_write(AscSim *sim, uint64_t addr, uint64_t n)
{
    if (!(sim->san & ASC_SAN_INITCHECK)) return;
    for (uint32_t i = 0; i < sim->nallocs; i++) {
        AscGmAlloc *a = &sim->allocs[i];
        uint64_t lo = addr > a->base ? addr : a->base, hi = addr + n < a->base + a->bytes ? addr + n : a->base + a->bytes;
        if (lo < hi) mark(a->init, lo - a->base, hi - a->base);
    }
}

/* At launch: name each allocation after the gm argument whose value is its base. */
void asc_san_launch(AscSim *sim)
{
    const AscKernelInfo *k = sim->kernel;
    for (uint32_t i = 0; i < k->nargs && i < ASC_MAX_ARGS; i++) {
        if (k->args[i].kind != ASC_ARG_GM) continue;
        for (uint32_t j = 0; j < sim->nallocs; j++)
            if (!sim->allocs[j].rodata && !sim->allocs[j].named && sim->allocs[j].base == sim->args[i]) {
                snprintf(sim->allocs[j].name, sizeof sim->allocs[j].name, "argument '%s'", k->args[i].name);
                sim->allocs[j].named = true;
                break;
            }
    }
}

/* ---- findings -------------------------------------------------------------------------- */

static unsigned check_index(unsigned check)
{
    unsigned i = 0;
    while (check > 1) {
        check >>= 1;
        i++;
    }
    return i < ASC_SAN_CHECKS ? i : 0;
}

/* "MTE3 `mov_ub_to_out ...` at k.s:12 (core0.veccore0, pipe MTE3, pc 0x0040, cycle 812)";
 * without the cycle for an earlier access (race_gm.c), whose cycle is not kept. */
void asc_san_who(const AscSim *sim, const AscCore *c, uint8_t pipe, uint32_t pc, bool cycle, char *buf, size_t size)
{
    char name[48], src[300] = "", text[96] = "?", cyc[32] = "";
    const AscProg *p = c->prog;
    if (pc >= p->entry && pc < p->entry + p->size && !(pc & 3)) asc_insn_print(&p->insn[(pc - p->entry) / 4], text, sizeof text);
    asc_sim_source(sim, pc, src, sizeof src);
    if (cycle) snprintf(cyc, sizeof cyc, ", cycle %llu", (unsigned long long)sim->now);
    snprintf(buf, size, "%s `%s`%s%s (%s, pipe %s, pc 0x%04x%s)", asc_pipe_lane(pipe), text,
             src[0] ? " at " : "", src, asc_sim_core_name(sim, c->index, name, sizeof name),
             asc_pipe_name(pipe) ? asc_pipe_name(pipe) : "?", pc, cyc);
}

static void who(const AscSim *sim, const AscCore *c, uint8_t pipe, uint32_t pc, char *buf, size_t size)
{
    asc_san_who(sim, c, pipe, pc, true, buf, size);
}

/* One occurrence of a finding keyed (check, pc, what).  Only the first one of a key that is
 * listed is formatted: the caller formats into the returned buffer (NULL: counted only), so a
 * finding repeated a million times costs a million key comparisons, not a million messages. */
char *asc_san_claim(AscSim *sim, unsigned check, AscSev sev, const AscCore *c, uint8_t pipe, uint32_t pc,
                    uint32_t what)
{
    /* an occurrence = one execution of an instruction (a vector op reports block by block) */
    uint64_t ex = sim->san_exec;
    for (uint32_t i = 0; i < sim->nsan; i++) {
        AscSimSanIssue *s = &sim->san_list[i];
        if (s->check == check && s->pc == pc && sim->san_what[i] == what) {
            if (sim->san_last_exec[i] != ex) {
                sim->san_last_exec[i] = ex;
                s->count++;
                sim->san_count[check_index(check)]++;
            }
            return NULL;
        }
    }
    if (sim->nsan == ASC_SIM_MAX_SAN) {
        uint64_t key[3] = {check | (uint64_t)what << 8, pc, ex};
        if (memcmp(key, sim->san_over_key, sizeof key)) {
            memcpy(sim->san_over_key, key, sizeof key);
            sim->san_count[check_index(check)]++;
        }
        return NULL;
    }
    sim->san_count[check_index(check)]++;
    uint32_t i = sim->nsan++;
    sim->san_last_exec[i] = ex;
    AscSimSanIssue *s = &sim->san_list[i];
    memset(s, 0, sizeof *s);
    s->check = (uint8_t)check;
    s->sev = (uint8_t)sev;
    s->core = c->index;
    s->pipe = pipe;
    s->pc = pc;
    s->count = 1;
    sim->san_what[i] = what;
    return s->msg;
}

/* Format a claimed finding's message (cut at ASC_SAN_MSG when a source path is long). */
void asc_san_put(char *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, ASC_SAN_MSG, fmt, ap);
    va_end(ap);
}

/* ---- memcheck ---------------------------------------------------------------------------- */

/* Whether [lo, hi) is outside its allocation, and why (not formatted when why is NULL). */
static bool mem_violation(const AscSim *sim, bool write, uint64_t lo, uint64_t hi, char *why, size_t size, int *which)
{
    int i = alloc_of(sim, lo);
    *which = i;
    if (i >= 0) {
        const AscGmAlloc *a = &sim->allocs[i];
        if (a->rodata && write) {
            if (why) snprintf(why, size, "%s [0x%llx, 0x%llx) is read-only", a->name, (unsigned long long)a->base,
                     (unsigned long long)(a->base + a->bytes));
            return true;
        }
        /* a read may take the data's last 32-byte block whole (DataCopy moves whole blocks), not the
         * padding block of the extent past it: those bytes are no data, so a kernel using them
         * computes with whatever is there, as wrong as a read past the extent */
        uint64_t data = a->rodata ? a->bytes : (a->req + 31) / 32 * 32;
        if (!write && hi > a->base + data && hi <= a->base + a->bytes) {
            if (why) snprintf(why, size, "it starts in %s (%llu B at 0x%llx, %llu B allocated) and reads %llu B of "
                              "its padding past the data's last 32-byte block (bytes that are not data)",
                              a->name, (unsigned long long)a->req, (unsigned long long)a->base,
                              (unsigned long long)a->bytes, (unsigned long long)(hi - a->base - data));
            return true;
        }
        if (hi <= a->base + a->bytes) return false;
        if (why) snprintf(why, size, "it starts in %s (%llu B at 0x%llx, %llu B allocated) and runs %llu B past its end",
                 a->name, (unsigned long long)a->req, (unsigned long long)a->base, (unsigned long long)a->bytes,
                 (unsigned long long)(hi - a->base - a->bytes));
        return true;
    }
    /* in no allocation: name the nearest one below (its red zone) and above */
    int below = -1, above = -1;
    for (uint32_t j = 0; j < sim->nallocs; j++) {
        const AscGmAlloc *a = &sim->allocs[j];
        if (a->base + a->bytes <= lo && (below < 0 || a->base > sim->allocs[below].base)) below = (int)j;
        if (a->base >= hi && (above < 0 || a->base < sim->allocs[above].base)) above = (int)j;
    }
    *which = below >= 0 ? below : above;
    if (!why) return true;
    int n = snprintf(why, size, "it lies outside every allocation");
    if (below >= 0 && (size_t)n < size) {
        const AscGmAlloc *a = &sim->allocs[below];
        n += snprintf(why + n, size - (size_t)n, ": %llu B past the end of %s (%llu B at 0x%llx, %llu B allocated)",
                      (unsigned long long)(lo - a->base - a->bytes), a->name, (unsigned long long)a->req,
                      (unsigned long long)a->base, (unsigned long long)a->bytes);
    } else if (above >= 0 && (size_t)n < size) {
        const AscGmAlloc *a = &sim->allocs[above];
        n += snprintf(why + n, size - (size_t)n, ": %llu B before %s (%llu B at 0x%llx)",
                      (unsigned long long)(a->base - lo), a->name, (unsigned long long)a->req,
                      (unsigned long long)a->base);
    }
    return true;
}

/* AscExecCtx.on_gm and the scalar unit's GM access: false = fault (message in ctx->fault). */
bool asc_san_gm(void *ud, bool write, uint64_t lo, uint64_t hi)
{
    AscCore *c = ud;
    AscSim *sim = c->sim;
    bool full = sim->san & ASC_SAN_MEMCHECK;
    if (hi <= lo || (!full && !sim->nuser_allocs)) return true;
    char why[400];
    int which;
    if (!mem_violation(sim, write, lo, hi, NULL, 0, &which)) return true;
    const char *rw = write ? "write" : "read";
    if (!full && !write) { /* a read past an argument is a wrong input, never an error of the card: a note */
        asc_sim_add_note(sim, c->index, c->xpc, ASC_NOTE_GMREAD, hi - lo, lo);
        return true;
    }
    if (!full) {
        mem_violation(sim, write, lo, hi, why, sizeof why, &which);
        return asc_exec_fault(&c->ctx, "memcheck: GM %s of %llu B [0x%llx, 0x%llx): %s", rw,
                              (unsigned long long)(hi - lo), (unsigned long long)lo, (unsigned long long)hi, why);
    }
    char *m = asc_san_claim(sim, ASC_SAN_MEMCHECK, ASC_SEV_ERROR, c, c->xpipe, c->xpc,
                            (uint32_t)write | (uint32_t)(which + 1) << 1);
    if (!m) return true;
    mem_violation(sim, write, lo, hi, why, sizeof why, &which);
    char at[480];
    who(sim, c, c->xpipe, c->xpc, at, sizeof at);
    asc_san_put(m, "memcheck: invalid GM %s of %llu B [0x%llx, 0x%llx) by %s: %s", rw, (unsigned long long)(hi - lo),
           (unsigned long long)lo, (unsigned long long)hi, at, why);
    return true;
}

/* ---- initcheck ----------------------------------------------------------------------------- */

/* The buffers whose definedness is kept per byte (AscCore.undef): 0 defined, 1 never written,
 * 2 computed from bytes not defined (the cube path: L1 -> L0A / L0B -> mmad -> L0C). */
static bool shadowed(AscBuf b)
{
    return b == ASC_BUF_L0A || b == ASC_BUF_L0B || b == ASC_BUF_L0C;
}

/* Whether the executing instruction tells initcheck about this access exactly through
 * AscExecCtx.def (so its on_access report, whole fractals, is not checked here). */
static bool def_hooked(const AscCore *c, AscBuf buf, bool write)
{
    const AscProg *p = c->prog;
    uint32_t pc = c->xpc;
    if (pc < p->entry || pc >= p->entry + p->size || (pc & 3)) return false;
    switch (p->insn[(pc - p->entry) / 4].op) {
    case ASC_OP_LOAD_L1_TO_L0A_2D:
    case ASC_OP_LOAD_L1_TO_L0B_2D:
    case ASC_OP_LOAD_L1_TO_L0_2DT:
    case ASC_OP_LOAD3DV2: return write ? buf == ASC_BUF_L0A || buf == ASC_BUF_L0B : buf == ASC_BUF_L1;
    case ASC_OP_MMAD_F16F32:
    case ASC_OP_MMAD_BF16F32:
    case ASC_OP_MMAD_S8S32:
    case ASC_OP_MMAD_F32F32: return shadowed(buf);
    case ASC_OP_FIX_L0C_TO_OUT_F32:
    case ASC_OP_FIX_L0C_TO_OUT_F16:
    case ASC_OP_FIX_L0C_TO_OUT_BF16:
    case ASC_OP_FIX_L0C_TO_OUT_Q:
    case ASC_OP_MOV_L0C_TO_UB_F32:
    case ASC_OP_MOV_L0C_TO_UB_F16: return !write && buf == ASC_BUF_L0C;
    default: return false;
    }
}

/* A read of [lo, hi) of a shadowed buffer: an error at its first run of bytes not defined. */
static void shadow_read(AscCore *c, AscBuf buf, uint64_t lo, uint64_t hi)
{
    const uint8_t *u = c->undef[buf];
    uint64_t g = lo;
    while (g < hi && !u[g]) g++;
    if (g == hi) return;
    uint8_t why = u[g];
    uint64_t e = g;
    while (e < hi && u[e] == why) e++;
    AscSim *sim = c->sim;
    char *m = asc_san_claim(sim, ASC_SAN_INITCHECK, ASC_SEV_ERROR, c, c->xpipe, c->xpc, (uint32_t)buf);
    if (!m) return;
    char at[480];
    who(sim, c, c->xpipe, c->xpc, at, sizeof at);
    asc_san_put(m, "initcheck: %s reads %s [0x%llx, 0x%llx), %s", at, asc_exec_buf_name(buf), (unsigned long long)g,
                (unsigned long long)e,
                why == 1 ? "never written in this run"
                         : "computed from data never written in this run (initcheck follows it through the L1 -> L0A / L0B loads and mmad)");
}

/* One access of the instruction being executed (AscExecCtx.on_access with initcheck on). */
static void init_access(AscCore *c, AscBuf buf, uint64_t lo, uint64_t hi, bool write)
{
    AscSim *sim = c->sim;
    if ((buf == ASC_BUF_L1 || shadowed(buf)) && c->ctx.def && def_hooked(c, buf, write)) return;
    if (buf < ASC_BUF_COUNT && c->undef[buf]) {
        if (hi <= lo) return;
        if (write) memset(c->undef[buf] + lo, 0, (size_t)(hi - lo));
        else shadow_read(c, buf, lo, hi);
        return;
    }
    uint8_t *init = NULL;
    uint64_t off = 0;
    const char *name = asc_exec_buf_name(buf);
    char aname[sizeof sim->allocs[0].name + 8] = "";
    const AscGmAlloc *ga = NULL;
    if (buf == ASC_BUF_GM) {
        int i = alloc_of(sim, lo);
        if (i < 0) return; /* memcheck's business */
        AscGmAlloc *a = &sim->allocs[i];
        init = a->init;
        off = a->base;
        if (hi > a->base + a->bytes) hi = a->base + a->bytes;
        ga = a;
    } else if (buf < ASC_BUF_COUNT) {
        init = c->init[buf];
    }
    if (!init || hi <= lo) return;
    uint64_t g0 = (lo - off) / ASC_RACE_GRANULE, g1 = (hi - off + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE;
    if (write) {
        memset(init + g0, 1, (size_t)(g1 - g0));
        return;
    }
    uint64_t g = g0;
    while (g < g1 && init[g]) g++;
    if (g == g1) return;
    uint64_t e = g;
    while (e < g1 && !init[e]) e++;
    uint64_t blo = off + g * ASC_RACE_GRANULE, bhi = off + e * ASC_RACE_GRANULE;
    if (blo < lo) blo = lo;
    if (bhi > hi) bhi = hi;
    char *m = asc_san_claim(sim, ASC_SAN_INITCHECK, ASC_SEV_ERROR, c, c->xpipe, c->xpc, (uint32_t)buf);
    if (!m) return;
    if (ga) snprintf(aname, sizeof aname, " (%s)", ga->name);
    char at[480];
    who(sim, c, c->xpipe, c->xpc, at, sizeof at);
    asc_san_put(m, "initcheck: %s reads %s [0x%llx, 0x%llx)%s, never written in this run", at, name,
           (unsigned long long)blo, (unsigned long long)bhi, aname);
}

/* ---- initcheck through the cube path (AscDefOps, sim_exec.h) ---- */

static void def_l1(void *ud, uint64_t lo, uint64_t hi, uint8_t *undef)
{
    const AscCore *c = ud;
    const uint8_t *init = c->init[ASC_BUF_L1];
    for (uint64_t a = lo; a < hi; a++) undef[a - lo] = init && init[a / ASC_RACE_GRANULE] ? 0 : 0xff;
}

static void def_put(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, const uint8_t *undef)
{
    AscCore *c = ud;
    uint8_t *u = buf < ASC_BUF_COUNT ? c->undef[buf] : NULL;
    if (!u) return;
    for (uint64_t a = lo; a < hi; a++) u[a] = undef && undef[a - lo] ? 2 : 0;
}

static bool any_undef(const uint8_t *u, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (u[i]) return true;
    return false;
}

/* mmad reads A(r, 0..k-1) and B(0..k-1, c) and writes C(r, c) for r < m, c < n only (exec_cube.c):
 * C(r, c) is defined when all of those are (and, accumulating, the old C(r, c)). */
static void def_mmad(void *ud, uint64_t a, uint64_t b, uint64_t c, uint32_t m, uint32_t k, uint32_t n, uint32_t esize,
                     bool init)
{
    AscCore *core = ud;
    const uint8_t *ua = core->undef[ASC_BUF_L0A], *ub = core->undef[ASC_BUF_L0B];
    uint8_t *uc = core->undef[ASC_BUF_L0C];
    if (!ua || !ub || !uc || !m || !k || !n || m > 4095 || n > 4095 || !esize || esize > 32) return;
    uint32_t k0 = 32 / esize;
    uint64_t kf = (k + k0 - 1) / k0, nf = (n + 15) / 16, mf = (m + 15) / 16;
    uint8_t row[4096], col[4096];
    for (uint32_t r = 0; r < m; r++) {
        row[r] = 0;
        for (uint64_t kb = 0; kb < kf && !row[r]; kb++) {
            uint64_t cn = k - kb * k0 < k0 ? k - kb * k0 : k0;
            row[r] = any_undef(ua + a + ((r / 16) * kf + kb) * 512 + (r % 16) * 32, cn * esize);
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        col[j] = 0;
        for (uint64_t kb = 0; kb < kf && !col[j]; kb++) {
            uint64_t kn = k - kb * k0 < k0 ? k - kb * k0 : k0;
            col[j] = any_undef(ub + b + (kb * nf + j / 16) * 512 + (j % 16) * 32, kn * esize);
        }
    }
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t r = 0; r < m; r++) {
            uint8_t *e = uc + c + (((uint64_t)(j / 16) * mf * 16 + r) * 16 + j % 16) * 4;
            bool bad = row[r] || col[j] || (!init && any_undef(e, 4));
            memset(e, bad ? 2 : 0, 4);
        }
}

static void def_read(void *ud, AscBuf buf, uint64_t lo, uint64_t hi)
{
    AscCore *c = ud;
    if (buf < ASC_BUF_COUNT && c->undef[buf] && lo < hi) shadow_read(c, buf, lo, hi);
}

static const AscDefOps def_ops = {.l1 = def_l1, .put = def_put, .mmad = def_mmad, .read = def_read};

/* AscExecCtx.on_access when a sanitizer needs accesses: the race checker's, then ours. */
void asc_san_access(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write)
{
    AscCore *c = ud;
    if (c->race) asc_race_access(c, buf, lo, hi, write);
    if (c->sim->san & ASC_SAN_INITCHECK) init_access(c, buf, lo, hi, write);
}

bool asc_san_core_init(AscSim *sim, AscCore *c)
{
    if (sim->san & ASC_SAN_INITCHECK) {
        for (unsigned b = ASC_BUF_UB; b < ASC_BUF_COUNT; b++) {
            const AscMem *m = &c->ctx.mem[b];
            if (!m->size) continue;
            c->init[b] = asc_calloc(&sim->alloc, ((size_t)m->size + ASC_RACE_GRANULE - 1) / ASC_RACE_GRANULE, 1);
            if (!c->init[b]) return false;
            if (!shadowed((AscBuf)b)) continue;
            c->undef[b] = asc_calloc(&sim->alloc, (size_t)m->size, 1);
            if (!c->undef[b]) return false;
            memset(c->undef[b], 1, (size_t)m->size);
        }
        c->ctx.on_access = asc_san_access;
        c->ctx.access_ud = c;
        if (c->undef[ASC_BUF_L0A] && c->undef[ASC_BUF_L0B] && c->undef[ASC_BUF_L0C]) c->ctx.def = &def_ops;
    }
    if (sim->san & ASC_SAN_SYNCCHECK) {
        /* which flags some set_flag of the program sets (for waits that can only deadlock) */
        const AscProg *p = c->prog;
        for (uint32_t i = 0; i < p->size / 4; i++) {
            const AscInsn *in = &p->insn[i];
            if (in->op == ASC_OP_SET_FLAG && in->psrc < ASC_PIPE_COUNT && in->pdst < ASC_PIPE_COUNT &&
                in->event < ASC_MAX_EVENTS)
                c->sets_flag[in->psrc][in->pdst] |= (uint16_t)(1u << in->event);
        }
    }
    c->ctx.gm_ud = c;
    return true;
}

/* Scalar GM loads and stores report here (their exec functions are in scalar.c). */
void asc_san_scalar_gm(AscCore *c, uint64_t lo, uint64_t hi, bool write)
{
    if (c->sim->san & ASC_SAN_INITCHECK) init_access(c, ASC_BUF_GM, lo, hi, write);
}

/* ---- synccheck ------------------------------------------------------------------------------- */

/* The scalar unit dispatched `in` into the queue of `pipe` (program order). */
void asc_san_issue(AscSim *sim, AscCore *c, uint8_t pipe, const AscInsn *in)
{
    if (in->op != ASC_OP_BAR) {
        c->since_bar[pipe]++;
        return;
    }
    if (!c->since_bar[pipe]) {
        char *m = asc_san_claim(sim, ASC_SAN_SYNCCHECK, ASC_SEV_WARNING, c, pipe, c->pc, 1), at[480];
        if (m) who(sim, c, pipe, c->pc, at, sizeof at);
        if (m) asc_san_put(m, "synccheck: %s waits for nothing: pipe %s was given no instruction since %s", at, asc_pipe_name(pipe),
               c->seen_bar[pipe] ? "its last barrier" : "the start");
    }
    c->since_bar[pipe] = 0;
    c->seen_bar[pipe] = 1;
}

/* bar all: a warning when no pipe was given an instruction since the start or the last barrier. */
void asc_san_bar_all(AscSim *sim, AscCore *c)
{
    uint32_t any = 0;
    for (unsigned p = 1; p < ASC_PIPE_COUNT; p++) any |= c->since_bar[p];
    if (!any) {
        char *m = asc_san_claim(sim, ASC_SAN_SYNCCHECK, ASC_SEV_WARNING, c, ASC_PIPE_S, c->pc, 1), at[480];
        if (m) who(sim, c, ASC_PIPE_S, c->pc, at, sizeof at);
        if (m) asc_san_put(m, "synccheck: %s waits for nothing: no pipe was given an instruction since %s", at,
               c->seen_bar[0] ? "the last barrier" : "the start");
    }
    memset(c->since_bar, 0, sizeof c->since_bar);
    memset(c->seen_bar, 1, sizeof c->seen_bar);
}

void asc_san_wait(AscSim *sim, AscCore *c, uint8_t pipe, uint32_t pc, const AscInsn *in)
{
    if (in->psrc >= ASC_PIPE_COUNT || in->pdst >= ASC_PIPE_COUNT || in->event >= ASC_MAX_EVENTS) return;
    if (c->sets_flag[in->psrc][in->pdst] & (1u << in->event)) return;
    char *m = asc_san_claim(sim, ASC_SAN_SYNCCHECK, ASC_SEV_WARNING, c, pipe, pc, 2), at[480];
    if (!m) return;
    who(sim, c, pipe, pc, at, sizeof at);
    asc_san_put(m, "synccheck: %s waits for flag %s -> %s id %u, which no set_flag of the program sets", at,
           asc_pipe_name(in->psrc), asc_pipe_name(in->pdst), in->event);
}

/* The core reached `end` and drained: every flag still set is a set_flag no wait consumed. */
void asc_san_core_end(AscSim *sim, AscCore *c)
{
    for (unsigned s = 0; s < ASC_PIPE_COUNT; s++)
        for (unsigned d = 0; d < ASC_PIPE_COUNT; d++)
            for (unsigned e = 0; e < ASC_MAX_EVENTS; e++) {
                const AscFlag *f = &c->flags[s][d][e];
                if (!f->set) continue;
                char *m = asc_san_claim(sim, ASC_SAN_SYNCCHECK, ASC_SEV_WARNING, c, (uint8_t)s, f->set_pc,
                                        3 | (d << 8) | (e << 16)), at[480];
                if (!m) continue;
                who(sim, c, (uint8_t)s, f->set_pc, at, sizeof at);
                asc_san_put(m, "synccheck: flag %s -> %s id %u set by %s is still set at `end`: no wait_flag consumed it",
                       asc_pipe_name((AscPipe)s), asc_pipe_name((AscPipe)d), e, at);
            }
}

/* ---- results ------------------------------------------------------------------------------------ */

uint64_t asc_sim_san_issues(const AscSim *sim, const AscSimSanIssue **list, uint32_t *n)
{
    if (list) *list = sim->san_list;
    if (n) *n = sim->nsan;
    uint64_t t = 0;
    for (unsigned i = 0; i < ASC_SAN_CHECKS; i++) t += sim->san_count[i];
    return t;
}

uint64_t asc_sim_san_count(const AscSim *sim, unsigned check)
{
    return check && !(check & (check - 1)) ? sim->san_count[check_index(check)] : 0;
}

const char *asc_san_check_name(unsigned check)
{
    switch (check) {
    case ASC_SAN_MEMCHECK: return "memcheck";
    case ASC_SAN_INITCHECK: return "initcheck";
    case ASC_SAN_RACECHECK: return "racecheck";
    case ASC_SAN_SYNCCHECK: return "synccheck";
    default: return NULL;
    }
}

int asc_sim_san_format(const AscSim *sim, const AscSimSanIssue *s, char *buf, size_t size)
{
    (void)sim;
    if (s->count > 1)
        return snprintf(buf, size, "%s (%llu times)", s->msg, (unsigned long long)s->count);
    return snprintf(buf, size, "%s", s->msg);
}

uint64_t asc_sim_san_diag(const AscSim *sim, AscDiags *d)
{
    uint64_t errors = 0;
    char msg[sizeof sim->san_list[0].msg + 64];
    for (unsigned ci = 0; ci < ASC_SAN_CHECKS; ci++) {
        unsigned check = 1u << ci;
        uint64_t total = sim->san_count[ci], listed = 0;
        if (!total) continue;
        AscSev sev = check == ASC_SAN_SYNCCHECK ? ASC_SEV_WARNING : ASC_SEV_ERROR;
        if (sev == ASC_SEV_ERROR) errors += total;
        uint32_t distinct = 0;
        for (uint32_t i = 0; i < sim->nsan; i++) distinct += sim->san_list[i].check == check;
        snprintf(msg, sizeof msg, "%s: %llu %s (%u distinct listed below)", asc_san_check_name(check),
                 (unsigned long long)total, sev == ASC_SEV_ERROR ? "errors" : "warnings", distinct);
        if (d) asc_diag_sev(d, ASC_DIAG_SIM_SANITIZE, sev, (AscLoc){0}, msg);
        for (uint32_t i = 0; i < sim->nsan; i++) {
            const AscSimSanIssue *s = &sim->san_list[i];
            if (s->check != check) continue;
            asc_sim_san_format(sim, s, msg, sizeof msg);
            if (d) asc_diag_sev(d, ASC_DIAG_SIM_SANITIZE, sev, (AscLoc){0}, msg);
            listed += s->count;
        }
        if (total > listed && d) {
            snprintf(msg, sizeof msg, "%s: %llu more occurrences, not listed (the first %d distinct findings are)",
                     asc_san_check_name(check), (unsigned long long)(total - listed), ASC_SIM_MAX_SAN);
            asc_diag_sev(d, ASC_DIAG_SIM_SANITIZE, sev, (AscLoc){0}, msg);
        }
    }
    return errors;
}

bool asc_sim_sanitize_parse(const char *list, uint8_t *bits, char *err, size_t size)
{
    *bits = 0;
    const char *p = list ? list : "";
    if (!*p) {
        snprintf(err, size, "--sanitize takes a list of memcheck, initcheck, racecheck, synccheck or all, got ''");
        return false;
    }
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        unsigned got = 0;
        if (n == 3 && !strncmp(p, "all", 3)) got = ASC_SAN_ALL;
        for (unsigned i = 0; i < ASC_SAN_CHECKS && !got; i++) {
            const char *name = asc_san_check_name(1u << i);
            if (strlen(name) == n && !strncmp(p, name, n)) got = 1u << i;
        }
        if (!got) {
            snprintf(err, size, "--sanitize: unknown check '%.*s' (the checks are memcheck, initcheck, racecheck, "
                     "synccheck, all)", (int)(n > 64 ? 64 : n), p);
            return false;
        }
        *bits |= (uint8_t)got;
        p += n;
        if (*p == ',') p++;
    }
    return true;
}
