/* sim.c -- the simulator's lifecycle and event loop: launch (cores, SPRs,
 * memories, programs), argument placement in GM, asc_sim_run, faults.
 *
 * Users: asc-sim, the Python runtime, tests, benchmarks (through asc/sim.h).
 *
 * Launch (docs/timing.md §Launch): `blocks` cores of the kernel's kind.
 * Split targets: an AIV kernel runs on N vector cores (N <= ai_cores *
 * aiv_per_core), an AIC kernel on N cube cores (N <= ai_cores), a mix kernel
 * on N AI cores, each an AIC running the AIC program and aiv_per_core AIVs
 * running the AIV program.  Coupled targets: N coupled cores (N <= ai_cores)
 * running the kernel's one program.  Every core's scalar unit starts at
 * cycle launch_cycles.
 *
 * Invariants: the event loop pops the (cycle, agent)-least agent, sets
 * sim->now to its cycle and lets it act; an agent reschedules itself and
 * anything it wakes.  When the heap is empty and a core is unfinished, the
 * kernel is deadlocked: nothing can ever happen again. */
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asc/target.h"
#include "sched.h"
#include "sim_internal.h"

/* A launch error (SIM_LAUNCH) with a printf message; d may be NULL. */
static void setup_err(AscDiags *d, const char *fmt, ...)
{
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (d) asc_diag(d, ASC_DIAG_SIM_LAUNCH, (AscLoc){0}, buf);
}

/* Decode program [entry, entry + size) of .text (byte offsets) into p. */
static bool decode_prog(AscSim *sim, AscProg *p, uint32_t entry, uint32_t size, AscDiags *d)
{
    const AscImage *img = sim->img;
    if (entry % 4 || size % 4 || (uint64_t)entry + size > (uint64_t)img->text_words * 4) {
        setup_err(d, "kernel program [0x%x, +%u) lies outside .text", entry, size);
        return false;
    }
    p->entry = entry;
    p->size = size;
    p->insn = asc_calloc(&sim->alloc, size / 4 ? size / 4 : 1, sizeof *p->insn);
    p->legal = asc_calloc(&sim->alloc, size / 4 ? size / 4 : 1, sizeof *p->legal);
    if (!p->insn || !p->legal) return false;
    for (uint32_t i = 0; i < size / 4; i++) {
        const char *why = NULL;
        if (!asc_decode(img->text[entry / 4 + i], &p->insn[i], &why)) {
            setup_err(d, "word 0x%08x at .text+0x%x is not an instruction: %s", img->text[entry / 4 + i],
                      entry + 4 * i, why ? why : "?");
            return false;
        }
        /* the target's rules, asked once per instruction and core kind
         * here rather than on every execution */
        AscTargetRule r[ASC_TARGET_MAX_BROKEN];
        for (unsigned k = ASC_CORE_AIV; k <= ASC_CORE_COUPLED; k++)
            if (!asc_target_check_insn(&sim->cfg, (AscCoreKind)k, &p->insn[i], r)) p->legal[i] |= (uint8_t)(1u << k);
    }
    return true;
}

/* Allocate local buffer b of core c: `size` bytes, accesses aligned to
 * `align` bytes (checked by the exec functions). */
static bool mem_alloc(AscSim *sim, AscCore *c, AscBuf b, int64_t size, int64_t align)
{
    AscMem *m = &c->ctx.mem[b];
    m->size = (uint32_t)size;
    m->align = (uint32_t)align;
    m->data = asc_calloc(&sim->alloc, (size_t)size, 1);
    return m->data != NULL;
}

/* Buffer b of core c, sized and aligned by its keys (target/asc_buf.def). */
static bool buf_alloc(AscSim *sim, AscCore *c, AscBuf b)
{
    const int64_t *v = sim->cfg.v;
    const AscBufInfo *bi = &asc_buf_info[b];
    int64_t bytes = v[bi->size_key] - (bi->reserved_key < ASC_KEY_COUNT ? v[bi->reserved_key] : 0);
    return mem_alloc(sim, c, b, bytes, v[bi->align_key]);
}

/* Core `index` of the launch: a core of `kind` running program `part`, as
 * block block_idx of block_num, in AI core `ai_core` as its sub-th vector
 * core of sub_num.  Only the buffers and pipes its kind has are created
 * (docs/timing.md §Memories): an AIV has UB, an AIC L1/L0A/L0B/L0C/FB, a
 * coupled core all of them.  The pipe queues hold queue_depth entries. */
static bool core_init(AscSim *sim, AscCore *c, uint32_t index, AscCoreKind kind, AscPart part, uint32_t block_idx,
                      uint32_t block_num, uint32_t ai_core, uint32_t sub, uint32_t sub_num)
{
    const int64_t *v = sim->cfg.v;
    c->sim = sim;
    c->index = index;
    c->kind = kind;
    c->part = (uint8_t)part;
    c->prog = &sim->progs[part];
    c->ai_core = ai_core;
    c->sub = sub;
    c->ctx.cfg = &sim->cfg;
    c->ctx.gm = sim->gm;
    c->ctx.no_bank_cost = sim->functional;
    bool vec = kind != ASC_CORE_AIC, cube = kind != ASC_CORE_AIV;
    if (vec && !buf_alloc(sim, c, ASC_BUF_UB)) return false;
    if (cube && (!buf_alloc(sim, c, ASC_BUF_L1) || !buf_alloc(sim, c, ASC_BUF_L0A) || !buf_alloc(sim, c, ASC_BUF_L0B) ||
                 !buf_alloc(sim, c, ASC_BUF_L0C) || !buf_alloc(sim, c, ASC_BUF_FB)))
        return false;
    if (cube) { /* mmad scratch: A and B unpacked to at most 8-byte elements from >= 2-byte ones (s8: 4 from 1) */
        c->ctx.mm_scratch_bytes = 4 * ((size_t)c->ctx.mem[ASC_BUF_L0A].size + c->ctx.mem[ASC_BUF_L0B].size);
        if (!(c->ctx.mm_scratch = asc_malloc(&sim->alloc, c->ctx.mm_scratch_bytes))) return false;
    }
    for (unsigned i = 0; i < ASC_PIPE_COUNT; i++) {
        AscPipeUnit *p = &c->pipes[i];
        p->id = (uint8_t)i;
        p->xfer = -1;
        if (i == ASC_PIPE_S) { /* the scalar unit has no queue: it fetches */
            p->present = true;
            continue;
        }
        if (!asc_config_core_has_pipe(&sim->cfg, kind, (AscPipe)i)) continue;
        p->present = true;
        p->qcap = (uint32_t)v[ASC_KEY_QUEUE_DEPTH];
        p->queue = asc_calloc(&sim->alloc, p->qcap, sizeof *p->queue);
        if (!p->queue) return false;
    }
    c->pcs = asc_calloc(&sim->alloc, c->prog->size / 4 ? c->prog->size / 4 : 1, sizeof *c->pcs);
    if (!c->pcs) return false;
    c->spr[ASC_SPR_BLOCK_IDX] = block_idx;
    c->spr[ASC_SPR_BLOCK_NUM] = block_num;
    c->spr[ASC_SPR_SUB_BLOCK_IDX] = sub;
    c->spr[ASC_SPR_SUB_BLOCK_NUM] = sub_num;
    c->spr[ASC_SPR_CORE_ID] = index;
    c->spr[ASC_SPR_MASK0] = ~0ull; /* reset: every lane on, normal mask mode */
    c->spr[ASC_SPR_MASK1] = ~0ull;
    c->pc = c->prog->entry;
    if (sim->check_races && !asc_race_core_init(sim, c)) return false;
    return asc_san_core_init(sim, c);
}

/* Copy the desc and cache the scalar and sync latencies (cycles) the hot
 * paths read.  A functional run has no timing, but every instruction still
 * takes one cycle so that the trace keeps program order. */
static void init_from_desc(AscSim *sim, const AscSimDesc *desc)
{
    sim->cfg = *desc->cfg;
    sim->img = desc->image;
    sim->obs = desc->observer;
    sim->functional = desc->functional;
    sim->san = desc->sanitize & ASC_SAN_ALL;
    sim->check_races = desc->check_races || (sim->san & ASC_SAN_RACECHECK);
    sim->blocks = desc->blocks ? desc->blocks : 1;
    sim->gm_next = ASC_GM_ARG_BASE;
    const int64_t *v = sim->cfg.v;
    sim->lat_scalar = (uint64_t)v[ASC_KEY_LAT_SCALAR];
    sim->lat_branch = (uint64_t)v[ASC_KEY_LAT_BRANCH];
    sim->lat_load = (uint64_t)v[ASC_KEY_LAT_SCALAR_LOAD];
    sim->lat_store = (uint64_t)v[ASC_KEY_LAT_SCALAR_STORE];
    sim->lat_sync = (uint64_t)v[ASC_KEY_LAT_SYNC];
    sim->lat_mask = (uint64_t)v[ASC_KEY_LAT_MASK];
    sim->release = (uint64_t)v[ASC_KEY_FLAG_RELEASE];
    if (sim->functional) {
        sim->lat_scalar = sim->lat_sync = sim->lat_mask = 1;
        sim->lat_branch = sim->lat_load = sim->lat_store = sim->release = 0;
    }
}

/* Pick the kernel to launch (desc->kernel, or the image's only/first one);
 * a wrong name lists the kernels there are. */
static bool find_kernel(AscSim *sim, const AscSimDesc *desc, AscDiags *d)
{
    sim->kernel = asc_image_kernel(desc->image, desc->kernel);
    if (sim->kernel) return true;
    if (desc->kernel) {
        char names[256] = "";
        for (uint32_t i = 0; i < desc->image->nkernels; i++) {
            if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, desc->image->kernels[i].name, sizeof names - strlen(names) - 1);
        }
        setup_err(d, "no kernel '%s' in the binary: kernels are %s", desc->kernel, names[0] ? names : "(none)");
    } else {
        setup_err(d, "the binary contains no kernel");
    }
    return false;
}

/* The launch shape (see the top of this file). */
typedef struct Launch {
    bool split;       /* split target: separate AIC and AIV cores */
    uint32_t aiv;     /* AIVs per AI core (1 on a coupled target) */
    uint32_t n;       /* blocks */
    AscPart main_part;
} Launch;

/* Can the target launch `blocks` cores of this kernel's kind? */
static bool check_launch(const AscSim *sim, Launch *l, AscDiags *d)
{
    const int64_t *v = sim->cfg.v;
    const AscKernelInfo *k = sim->kernel;
    l->split = v[ASC_KEY_SPLIT] != 0;
    l->aiv = l->split ? (uint32_t)v[ASC_KEY_AIV_PER_CORE] : 1;
    l->n = sim->blocks;
    l->main_part = k->kind == ASC_KERNEL_AIC ? ASC_PART_AIC : ASC_PART_AIV;
    uint32_t ai = (uint32_t)v[ASC_KEY_AI_CORES], maxn = ai;
    if (l->split && k->kind == ASC_KERNEL_AIV) maxn = ai * l->aiv;
    if (!l->split && k->kind == ASC_KERNEL_MIX) {
        setup_err(d, "kernel '%s' is a mix kernel (AIC + AIV programs): it needs a split target (split = 1), and "
                     "target %s is coupled", k->name, sim->cfg.name);
        return false;
    }
    if (l->n > maxn) {
        setup_err(d, "--blocks %u is too many: target %s has %u %s for an %s kernel", l->n, sim->cfg.name, maxn,
                  !l->split ? "coupled cores" : k->kind == ASC_KERNEL_AIV ? "vector cores (ai_cores * aiv_per_core)"
                                              : k->kind == ASC_KERNEL_AIC ? "cube cores" : "AI cores",
                  asc_kernel_kind_name(k->kind));
        return false;
    }
    return true;
}

/* Decode every program of the kernel once, so the scalar unit never
 * decodes while running.  *oom: the failure was out of memory. */
static bool decode_programs(AscSim *sim, const Launch *l, bool *oom, AscDiags *d)
{
    const AscKernelInfo *k = sim->kernel;
    for (unsigned part = 0; part < ASC_PART_COUNT; part++) {
        if (!k->size[part]) continue;
        if (!decode_prog(sim, &sim->progs[part], k->entry[part], k->size[part], d)) {
            *oom = true; /* decode_prog's own errors are named; else it ran out of memory */
            return false;
        }
    }
    if (!k->size[l->main_part] || (k->kind == ASC_KERNEL_MIX && !k->size[ASC_PART_AIC])) {
        setup_err(d, "kernel '%s' has no %s program", k->name, l->main_part == ASC_PART_AIC ? "AIC" : "AIV");
        return false;
    }
    return true;
}

/* GM of gm_bytes (pages allocated on first touch, gm.c) with .rodata at
 * its fixed base.  *oom: the failure was out of memory. */
static bool init_gm(AscSim *sim, bool *oom, AscDiags *d)
{
    sim->gm = asc_gm_new(&sim->alloc, (uint64_t)sim->cfg.v[ASC_KEY_GM_BYTES]);
    if (!sim->gm) {
        *oom = true;
        return false;
    }
    const AscImage *img = sim->img;
    if (img->rodata_size && !asc_gm_write(sim->gm, ASC_GM_RODATA_BASE, img->rodata, img->rodata_size)) {
        setup_err(d, ".rodata (%u bytes) does not fit in GM at 0x%llx", img->rodata_size,
                  (unsigned long long)ASC_GM_RODATA_BASE);
        return false;
    }
    asc_gm_set_written(sim->gm, ASC_GM_RODATA_BASE, img->rodata_size, false); /* the host's, not the kernel's */
    if (img->rodata_size && !asc_san_add_alloc(sim, ASC_GM_RODATA_BASE, img->rodata_size, true)) {
        *oom = true;
        return false;
    }
    return true;
}

/* Create the cores in launch order: block i of a mix kernel is one AIC
 * followed by its `aiv` AIVs, so core indices (and with them agent ids and
 * the heap's tie-break) follow the AI core. */
static bool init_cores(AscSim *sim, const Launch *l)
{
    uint32_t n = l->n, aiv = l->aiv;
    bool mix = sim->kernel->kind == ASC_KERNEL_MIX;
    sim->ncores = mix ? n * (1 + aiv) : n;
    sim->cores = asc_calloc(&sim->alloc, sim->ncores, sizeof *sim->cores);
    if (!sim->cores) return false;
    for (uint32_t i = 0, ci = 0; i < n; i++) {
        bool ok = true;
        if (mix) {
            ok = core_init(sim, &sim->cores[ci], ci, ASC_CORE_AIC, ASC_PART_AIC, i, n, i, 0, aiv);
            ci++;
            for (uint32_t j = 0; ok && j < aiv; j++, ci++)
                ok = core_init(sim, &sim->cores[ci], ci, ASC_CORE_AIV, ASC_PART_AIV, i * aiv + j, n * aiv, i, j, aiv);
        } else if (!l->split) {
            ok = core_init(sim, &sim->cores[ci], ci, ASC_CORE_COUPLED, l->main_part, i, n, i, 0, 1);
            ci++;
        } else if (sim->kernel->kind == ASC_KERNEL_AIV) {
            ok = core_init(sim, &sim->cores[ci], ci, ASC_CORE_AIV, ASC_PART_AIV, i, n, i / aiv, i % aiv, aiv);
            ci++;
        } else {
            ok = core_init(sim, &sim->cores[ci], ci, ASC_CORE_AIC, ASC_PART_AIC, i, n, i, 0, aiv);
            ci++;
        }
        if (!ok) return false;
    }
    return true;
}

/* Everything the run needs is allocated here (docs/internals.md §Conventions): programs, GM,
 * cores with their buffers and queues, the heap (one slot per agent) and
 * the HBM table (at most 3 GM transfers per core: MTE2, MTE3, FIX). */
AscSim *asc_sim_new(const AscSimDesc *desc, AscDiags *d)
{
    if (!desc || !desc->cfg || !desc->image) {
        setup_err(d, "asc_sim_new needs a config and an image");
        return NULL;
    }
    AscAlloc alloc = asc_alloc_resolve(&desc->alloc);
    AscSim *sim = asc_calloc(&alloc, 1, sizeof *sim);
    if (!sim) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    sim->alloc = alloc;
    init_from_desc(sim, desc);
    Launch l;
    bool oom = false;
    if (!find_kernel(sim, desc, d) || !check_launch(sim, &l, d) || !decode_programs(sim, &l, &oom, d) ||
        !init_gm(sim, &oom, d))
        goto fail;
    oom = true; /* from here on, every failure is out of memory */
    if (!init_cores(sim, &l)) goto fail;
    if (!asc_heap_init(&sim->heap, sim->ncores * ASC_AGENTS_PER_CORE, &sim->alloc)) goto fail;
    if (!asc_hbm_init(&sim->hbm, sim->ncores * 3, &sim->alloc)) goto fail;
    if (!asc_pool_new(sim, asc_pool_host_threads(desc->threads))) goto fail;
    return sim;

fail:
    if (oom && d && !asc_diags_has_errors(d)) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
    asc_sim_free(sim);
    return NULL;
}

void asc_sim_free(AscSim *sim)
{
    if (!sim) return;
    AscAlloc a = sim->alloc;
    asc_pool_free(sim);
    asc_san_free(sim);
    for (uint32_t i = 0; sim->cores && i < sim->ncores; i++) {
        AscCore *c = &sim->cores[i];
        for (unsigned b = 0; b < ASC_BUF_COUNT; b++) asc_free(&a, c->ctx.mem[b].data);
        asc_free(&a, c->ctx.mm_scratch);
        for (unsigned p = 0; p < ASC_PIPE_COUNT; p++) asc_free(&a, c->pipes[p].queue);
        asc_free(&a, c->pcs);
        asc_race_core_free(sim, c);
    }
    asc_free(&a, sim->cores);
    for (unsigned p = 0; p < ASC_PART_COUNT; p++) {
        asc_free(&a, sim->progs[p].insn);
        asc_free(&a, sim->progs[p].legal);
    }
    if (sim->gm) asc_gm_free(sim->gm);
    asc_heap_free(&sim->heap, &a);
    asc_hbm_free(&sim->hbm, &a);
    asc_free(&a, sim);
}

const AscKernelInfo *asc_sim_kernel(const AscSim *sim) { return sim->kernel; }
const AscConfig *asc_sim_config(const AscSim *sim) { return &sim->cfg; }
uint64_t asc_sim_cycles(const AscSim *sim) { return sim->now; }
uint64_t asc_sim_insns(const AscSim *sim) { return sim->insns; }
const AscSimFault *asc_sim_fault(const AscSim *sim) { return sim->faulted ? &sim->fault : NULL; }

/* ---- notes ----------------------------------------------------------------- */
void asc_sim_add_note(AscSim *sim, uint32_t core, uint32_t pc, uint8_t kind, uint64_t a, uint64_t b)
{
    sim->note_total++;
    for (uint32_t i = 0; i < sim->nnotes; i++)
        if (sim->notes[i][1] == pc && sim->notes[i][2] == kind) {
            sim->notes[i][3]++;
            return;
        }
    if (sim->nnotes == ASC_SIM_MAX_NOTES) return;
    uint64_t *n = sim->notes[sim->nnotes++];
    n[0] = core, n[1] = pc, n[2] = kind, n[3] = 1, n[4] = a, n[5] = b;
}

bool asc_sim_note_get(const AscSim *sim, uint32_t i, uint64_t out[6])
{
    if (i >= sim->nnotes) return false;
    memcpy(out, sim->notes[i], sizeof sim->notes[i]);
    return true;
}

uint64_t asc_sim_notes(const AscSim *sim) { return sim->note_total; }

/* ---- device print log (records written by exec_print.c) -------------------- */
uint32_t asc_sim_prints(const AscSim *sim, uint64_t *dropped)
{
    if (dropped) *dropped = sim->prints_dropped;
    return sim->nprints;
}

bool asc_sim_print_get(const AscSim *sim, uint32_t i, uint32_t *core, uint32_t *pc, const char **text)
{
    if (i >= sim->nprints) return false;
    const AscPrintRec *r = &sim->prints[i];
    *core = r->core;
    *pc = r->pc;
    *text = sim->print_text + r->off;
    return true;
}

/* ---- GM and arguments ------------------------------------------------------ */

/* Arguments are placed one after another from ASC_GM_ARG_BASE, each
 * aligned to ASC_GM_ARG_ALIGN bytes (a zero-byte argument still gets its
 * own address); there is no free: a sim serves one launch. */
bool asc_sim_gm_place(AscSim *sim, uint64_t bytes, uint64_t *addr)
{
    uint64_t a = sim->gm_next, size = asc_gm_size(sim->gm);
    if (bytes > size || a > size - bytes) return false;
    if (!asc_san_add_alloc(sim, a, bytes, false)) return false; /* ASC_SIM_MAX_ALLOCS, or no memory for initcheck */
    *addr = a;
    uint64_t end = a + asc_gm_extent(bytes); /* the next allocation starts past this one's extent */
    sim->gm_next = (end + ASC_GM_ARG_ALIGN - 1) / ASC_GM_ARG_ALIGN * ASC_GM_ARG_ALIGN;
    return true;
}

/* A big host write in parts on the host threads: the pages are allocated here first, then each
 * thread copies (and takes the page faults of) its own range.  The same bytes as one copy. */
enum { GM_FILL_MIN = 1u << 20 };

static void gm_fill_part(const AscExecJob *j, uint32_t p)
{
    uint64_t n = j->u[0] | (uint64_t)j->u[1] << 32, addr = j->u[2] | (uint64_t)j->u[3] << 32;
    uint64_t lo = n * p / j->parts, hi = n * (p + 1) / j->parts;
    (void)asc_gm_write_nosync(j->scratch, addr + lo, j->in0 + lo, hi - lo); /* reserved: cannot fail */
}

bool asc_sim_gm_write(AscSim *sim, uint64_t addr, const void *src, size_t n)
{
    bool done = false;
    if (sim->pool && n >= GM_FILL_MIN && asc_gm_reserve(sim->gm, addr, n)) {
        AscExecJob job = {.run_part = gm_fill_part, .scratch = sim->gm, .in0 = src,
                          .u = {(uint32_t)n, (uint32_t)((uint64_t)n >> 32), (uint32_t)addr, (uint32_t)(addr >> 32)}};
        done = asc_pool_run_parts(sim, &job, 2 * sim->threads);
    }
    if (!done && !asc_gm_write(sim->gm, addr, src, n)) return false;
    if (!sim->started) asc_gm_set_written(sim->gm, addr, n, false); /* before the kernel: the host's */
    asc_san_host_write(sim, addr, n);
    return true;
}

/* asc_sim_gm_fill's parts: part p fills its share of the range, run by run of contiguous
 * host memory.  scratch: the GmFill. */
typedef struct GmFill {
    AscGm *gm;
    uint64_t addr, n;
    AscGmFillFn fill;
    void *ud;
    _Atomic bool failed;
} GmFill;

static void gm_fill_run(GmFill *f, uint64_t lo, uint64_t hi)
{
    while (lo < hi && !atomic_load_explicit(&f->failed, memory_order_relaxed)) {
        size_t run;
        uint8_t *dst = asc_gm_host_run(f->gm, f->addr + lo, (size_t)(hi - lo), &run);
        if (!dst || !run || !f->fill(f->ud, dst, lo, run)) { /* !dst: cannot be, the range is reserved */
            atomic_store_explicit(&f->failed, true, memory_order_relaxed);
            return;
        }
        lo += run;
    }
}

static void gm_fill_piece(const AscExecJob *j, uint32_t p)
{
    GmFill *f = j->scratch;
    gm_fill_run(f, f->n * p / j->parts, f->n * (p + 1) / j->parts);
}

bool asc_sim_gm_fill(AscSim *sim, uint64_t addr, uint64_t n, AscGmFillFn fill, void *ud)
{
    if (!asc_gm_reserve(sim->gm, addr, (size_t)n)) return false;
    asc_gm_sync(sim->gm, addr, addr + n, true);
    GmFill f = {.gm = sim->gm, .addr = addr, .n = n, .fill = fill, .ud = ud};
    AscExecJob job = {.run_part = gm_fill_piece, .scratch = &f};
    if (!(sim->pool && n >= GM_FILL_MIN && asc_pool_run_parts(sim, &job, 2 * sim->threads))) gm_fill_run(&f, 0, n);
    if (atomic_load(&f.failed)) return false;
    if (sim->started) asc_gm_set_written(sim->gm, addr, n, true); /* written through page pointers */
    asc_san_host_write(sim, addr, n);
    return true;
}

bool asc_sim_gm_each(AscSim *sim, uint64_t addr, uint64_t n, AscGmEachFn each, void *ud)
{
    if (addr > asc_gm_size(sim->gm) || n > asc_gm_size(sim->gm) - addr) return false;
    asc_gm_sync(sim->gm, addr, addr + n, false);
    for (uint64_t off = 0; off < n;) {
        size_t run;
        const uint8_t *src = asc_gm_host_run(sim->gm, addr + off, (size_t)(n - off), &run);
        if (!run || !each(ud, src, run)) return false;
        off += run;
    }
    return true;
}

/* A big read in parts on the host threads, as asc_sim_gm_write: each thread copies (and takes
 * the page faults of) its own range of dst.  The same bytes as one copy. */
static void gm_read_part(const AscExecJob *j, uint32_t p)
{
    uint64_t n = j->u[0] | (uint64_t)j->u[1] << 32, addr = j->u[2] | (uint64_t)j->u[3] << 32;
    uint64_t lo = n * p / j->parts, hi = n * (p + 1) / j->parts;
    (void)asc_gm_read_nosync(j->scratch, addr + lo, j->out + lo, hi - lo); /* in range: cannot fail */
}

bool asc_sim_gm_read(AscSim *sim, uint64_t addr, void *dst, size_t n)
{
    if (!sim->pool || n < GM_FILL_MIN) return asc_gm_read(sim->gm, addr, dst, n);
    if (addr > asc_gm_size(sim->gm) || n > asc_gm_size(sim->gm) - addr) return false;
    asc_gm_sync(sim->gm, addr, addr + n, false); /* pending writers of the range land first */
    AscExecJob job = {.run_part = gm_read_part, .scratch = sim->gm, .out = dst,
                      .u = {(uint32_t)n, (uint32_t)((uint64_t)n >> 32), (uint32_t)addr, (uint32_t)(addr >> 32)}};
    return asc_pool_run_parts(sim, &job, 2 * sim->threads) || asc_gm_read(sim->gm, addr, dst, n);
}

bool asc_sim_gm_written(AscSim *sim, uint64_t addr, uint64_t n) { return asc_gm_written(sim->gm, addr, n); }

void asc_sim_set_arg(AscSim *sim, uint32_t i, uint64_t value)
{
    if (i < ASC_MAX_ARGS) sim->args[i] = value;
}

/* ---- faults ------------------------------------------------------------------ */

/* Record the run's fault; always false, so callers write `return
 * asc_sim_fail(..)`.  op 0: take the opcode from the program at pc. */
bool asc_sim_fail(AscSim *sim, AscFaultKind kind, AscCore *c, uint8_t pipe, uint32_t pc, uint16_t op,
                  const char *fmt, ...)
{
    if (sim->faulted) return false; /* the first fault wins */
    AscSimFault *f = &sim->fault;
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->cycle = sim->now;
    f->core = c ? c->index : 0;
    f->pipe = pipe;
    f->pc = pc;
    f->op = op;
    if (c && !op && pc >= c->prog->entry && pc < c->prog->entry + c->prog->size && !(pc & 3))
        f->op = c->prog->insn[(pc - c->prog->entry) / 4].op;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    sim->faulted = true;
    return false;
}

const char *asc_fault_kind_name(AscFaultKind k)
{
    static const char *const names[] = {"none", "access", "illegal instruction", "flag already set",
                                        "division by zero", "bad pc", "cross-core", "deadlock", "internal", "trap"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

const char *asc_sim_core_name(const AscSim *sim, uint32_t core, char *buf, size_t size)
{
    const AscCore *c = &sim->cores[core];
    if (c->kind == ASC_CORE_COUPLED) snprintf(buf, size, "core%u.aicore0", c->ai_core);
    else if (c->kind == ASC_CORE_AIC) snprintf(buf, size, "core%u.cubecore0", c->ai_core);
    else snprintf(buf, size, "core%u.veccore%u", c->ai_core, c->sub);
    return buf;
}

const char *asc_sim_source(const AscSim *sim, uint32_t pc, char *buf, size_t size)
{
    const AscLineEntry *e = asc_image_line_at(sim->img, pc);
    if (!e || e->file >= sim->img->nfiles) {
        if (size) buf[0] = 0;
    } else {
        snprintf(buf, size, "%s:%u", sim->img->files[e->file], e->line);
    }
    return buf;
}

/* "core0.veccore0 pipe v pc 0x0040 `text` (k.s:12)" */
static int unit_text(const AscSim *sim, uint32_t core, uint8_t pipe, uint32_t pc, char *buf, size_t size)
{
    char name[48], src[300], text[96] = "?";
    const AscCore *c = &sim->cores[core];
    const AscProg *p = c->prog;
    if (pc >= p->entry && pc < p->entry + p->size && !(pc & 3)) asc_insn_print(&p->insn[(pc - p->entry) / 4], text, sizeof text);
    asc_sim_source(sim, pc, src, sizeof src);
    return snprintf(buf, size, "%s pipe %s pc 0x%04x `%s`%s%s%s", asc_sim_core_name(sim, core, name, sizeof name),
                    asc_pipe_name(pipe) ? asc_pipe_name(pipe) : "?", pc, text, src[0] ? " (" : "", src,
                    src[0] ? ")" : "");
}

int asc_sim_fault_format(const AscSim *sim, char *buf, size_t size)
{
    const AscSimFault *f = &sim->fault;
    if (!sim->faulted) return snprintf(buf, size, "no fault");
    char head[512];
    int n;
    if (f->kind == ASC_FAULT_DEADLOCK) {
        n = snprintf(buf, size, "deadlock at cycle %llu: %s", (unsigned long long)f->cycle, f->msg);
        for (uint32_t i = 0; i < f->nblocked; i++) {
            const AscSimBlocked *b = &f->blocked[i];
            unit_text(sim, b->core, b->pipe, b->pc, head, sizeof head);
            n += snprintf(buf + ((size_t)n < size ? (size_t)n : size), (size_t)n < size ? size - (size_t)n : 0,
                          "\n  %s: %s", head, b->what);
        }
        return n;
    }
    unit_text(sim, f->core, f->pipe, f->pc, head, sizeof head);
    return snprintf(buf, size, "%s at cycle %llu: %s: %s", head, (unsigned long long)f->cycle,
                    asc_fault_kind_name(f->kind), f->msg);
}

int asc_sim_status_format(const AscSim *sim, AscSimStatus st, uint64_t max_cycles, char *buf, size_t size)
{
    if (st == ASC_SIM_FAULT) return asc_sim_fault_format(sim, buf, size);
    if (st == ASC_SIM_LIMIT) {
        int n;
        if (max_cycles)
            n = snprintf(buf, size, "--max-cycles %llu exceeded: the kernel was still running at cycle %llu",
                         (unsigned long long)max_cycles, (unsigned long long)sim->now);
        else
            n = snprintf(buf, size,
                         "the cycle limit max_cycles = %llu of profile %s was exceeded (raise it with --max-cycles N "
                         "or --set max_cycles=N): the kernel was still running at cycle %llu",
                         (unsigned long long)sim->cfg.v[ASC_KEY_MAX_CYCLES], sim->cfg.name,
                         (unsigned long long)sim->now);
        /* where every unfinished core is: its scalar unit's pc and line */
        char head[512];
        for (uint32_t i = 0; i < sim->ncores; i++) {
            const AscCore *c = &sim->cores[i];
            if (c->sstate == ASC_SS_DONE) continue;
            unit_text(sim, i, ASC_PIPE_S, c->pc, head, sizeof head);
            n += snprintf(buf + ((size_t)n < size ? (size_t)n : size), (size_t)n < size ? size - (size_t)n : 0,
                          "\n  %s", head);
        }
        return n;
    }
    if (size) buf[0] = 0;
    return 0;
}

/* Name one blocked unit in a deadlock fault (at most ASC_SIM_MAX_BLOCKED). */
static void add_blocked(AscSimFault *f, const AscCore *c, uint8_t pipe, uint32_t pc, const char *fmt, ...)
{
    if (f->nblocked == ASC_SIM_MAX_BLOCKED) return;
    AscSimBlocked *b = &f->blocked[f->nblocked++];
    b->core = c->index;
    b->pipe = pipe;
    b->pc = pc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->what, sizeof b->what, fmt, ap);
    va_end(ap);
}

/* A join of some group on (mode, xid) whose target is c that has a member's set but not
 * another's: true with both core names. */
static bool xcore_partial(const AscSim *sim, const AscCore *c, uint8_t xid, char *has, char *miss, size_t size)
{
    for (uint8_t m = 0; m < ASC_XCORE_MODES; m++)
        for (uint32_t i = 0; i < sim->ncores; i++) {
            const AscCore *s = &sim->cores[i];
            if (!s->xarr[m][xid] || !asc_xcore_target(s, c, m)) continue;
            for (uint32_t j = 0; j < sim->ncores; j++)
                if (asc_xcore_member(s, &sim->cores[j], m) && !sim->cores[j].xarr[m][xid]) {
                    asc_sim_core_name(sim, i, has, size);
                    asc_sim_core_name(sim, j, miss, size);
                    return true;
                }
        }
    return false;
}

/* Nothing can happen any more and some core is unfinished: list every
 * blocked unit (scalar units first, then pipes in pipe order, per core). */
static void deadlock(AscSim *sim)
{
    uint32_t unfinished = 0;
    for (uint32_t i = 0; i < sim->ncores; i++) unfinished += sim->cores[i].sstate != ASC_SS_DONE;
    asc_sim_fail(sim, ASC_FAULT_DEADLOCK, NULL, ASC_PIPE_S, 0, 0,
                 "%u of %u cores unfinished, every unit blocked and no event pending", unfinished, sim->ncores);
    AscSimFault *f = &sim->fault;
    for (uint32_t i = 0; i < sim->ncores; i++) {
        const AscCore *c = &sim->cores[i];
        switch (c->sstate) {
        case ASC_SS_WAIT_FLAG:
            add_blocked(f, c, ASC_PIPE_S, c->pc, "waits for flag %s -> s id %u, which is never set",
                        asc_pipe_name(c->swait_src), c->swait_event);
            break;
        case ASC_SS_XWAIT: {
            /* a join that would raise this counter but misses a member names both */
            char has[48], miss[48];
            if (xcore_partial(sim, c, c->swait_xid, has, miss, sizeof has))
                add_blocked(f, c, ASC_PIPE_S, c->pc, "waits for cross-core flag %u: %s set it, %s did not",
                            c->swait_xid, has, miss);
            else
                add_blocked(f, c, ASC_PIPE_S, c->pc, "waits for cross-core flag %u, whose counter stays 0",
                            c->swait_xid);
            break;
        }
        case ASC_SS_QFULL:
            add_blocked(f, c, ASC_PIPE_S, c->pc, "cannot dispatch: the queue of pipe %s is full",
                        asc_pipe_name(c->swait_pipe));
            break;
        case ASC_SS_DRAIN:
            add_blocked(f, c, ASC_PIPE_S, c->pc, "waits for every pipe of the core to drain");
            break;
        case ASC_SS_SYNC_ALL:
            add_blocked(f, c, ASC_PIPE_S, c->pc, "waits at sync_all for cores that never arrive");
            break;
        default: break;
        }
        for (unsigned p = 1; p < ASC_PIPE_COUNT; p++) {
            const AscPipeUnit *u = &c->pipes[p];
            if (!u->present || u->state != ASC_PS_WAIT) continue;
            const AscInsn *in = &u->cur.q.in;
            add_blocked(f, c, (uint8_t)p, u->cur.q.pc, "waits for flag %s -> %s id %u, which is never set",
                        asc_pipe_name(in->psrc), asc_pipe_name(in->pdst), in->event);
        }
    }
    if (f->nblocked) { /* the fault points at the first blocked unit */
        f->core = f->blocked[0].core;
        f->pipe = f->blocked[0].pipe;
        f->pc = f->blocked[0].pc;
    }
}

/* ---- the event loop ----------------------------------------------------------- *
 *
 * Why an event loop and not a cycle-by-cycle loop: most units are idle or
 * busy for many cycles at a time (a 64 KB transfer, a long wait_flag), so
 * stepping every unit every cycle would spend nearly all host time asking
 * "anything to do?".  Each agent (a core's scalar unit, or one of its pipes)
 * instead keeps one heap key, the next cycle at which it can change state,
 * and the loop only visits agents at those cycles.
 *
 * Why the heap orders by (cycle, agent): two agents acting at the same
 * cycle must act in the same order on every machine and every run (docs/internals.md
 * §Conventions), and agent = core * ASC_AGENTS_PER_CORE + pipe puts the scalar unit
 * (pipe S = 0) of a core before its pipes, and core 0 before core 1.
 *
 * An agent's key is removed before it acts: the agent sets it again (or
 * leaves it at ASC_NEVER until another agent wakes it).  asc_sim_run may
 * be called again after ASC_SIM_LIMIT: the heap holds exactly where every
 * agent stopped. */
static AscSimStatus run(AscSim *sim, uint64_t max_cycles);

/* Whatever run returns, every job handed to a worker has landed. */
AscSimStatus asc_sim_run(AscSim *sim, uint64_t max_cycles)
{
    AscSimStatus s = run(sim, max_cycles);
    asc_pool_join_all(sim);
    return s;
}

uint32_t asc_sim_threads(const AscSim *sim) { return sim->pool ? sim->threads : 1; }

static AscSimStatus run(AscSim *sim, uint64_t max_cycles)
{
    if (sim->faulted) return ASC_SIM_FAULT;
    if (sim->started && sim->finished == sim->ncores) return ASC_SIM_DONE;
    if (!sim->started) { /* the first call launches: every scalar unit at launch_cycles */
        sim->started = true;
        asc_san_launch(sim);
        uint64_t launch = (uint64_t)sim->cfg.v[ASC_KEY_LAUNCH_CYCLES];
        if (sim->functional) launch = 0;
        for (uint32_t i = 0; i < sim->ncores; i++) {
            AscCore *c = &sim->cores[i];
            memcpy(c->x, sim->args, sizeof sim->args);
            if (sim->nuser_allocs || (sim->san & ASC_SAN_MEMCHECK)) c->ctx.on_gm = asc_san_gm;
            c->stime = launch;
            asc_heap_set(&sim->heap, asc_agent(c, ASC_PIPE_S), launch);
        }
    }
    sim->limit = max_cycles ? max_cycles : (uint64_t)sim->cfg.v[ASC_KEY_MAX_CYCLES];
    uint32_t agent;
    uint64_t cycle;
    int got;
    /* the first agent is taken: out of the heap until it sets its next cycle */
    while ((got = asc_heap_take_first_inline(&sim->heap, sim->limit, &agent, &cycle)) != 0) {
        if (got < 0) { /* work at cycle N would run past a limit of N cycles */
            sim->now = sim->limit;
            return ASC_SIM_LIMIT;
        }
        sim->now = cycle;
        AscCore *c = &sim->cores[agent / ASC_AGENTS_PER_CORE];
        unsigned pipe = agent % ASC_AGENTS_PER_CORE;
        if (pipe == ASC_PIPE_S) asc_scalar_step(sim, c);
        else asc_pipe_step(sim, c, &c->pipes[pipe]);
        if (sim->heap.held != ASC_HEAP_NOT_IN) asc_heap_drop_held(&sim->heap); /* asc_heap_release */
        if (sim->faulted) return ASC_SIM_FAULT;
    }
    /* The heap is empty: either every core ended, or every unfinished one
     * waits for something no agent will ever do. */
    if (sim->finished == sim->ncores) {
        uint64_t end = 0; /* the kernel's time is its last core's end, not the last event */
        for (uint32_t i = 0; i < sim->ncores; i++)
            if (sim->cores[i].end_cycle > end) end = sim->cores[i].end_cycle;
        sim->now = end;
        return ASC_SIM_DONE;
    }
    deadlock(sim);
    return ASC_SIM_FAULT;
}

/* ---- observer ------------------------------------------------------------------ *
 * One instruction's event for the observer (trace.c, pyasc): cycles of
 * issue, start, end of occupancy and completion; the flag fields only when
 * it stalled on a flag. */

void asc_emit_insn(AscSim *sim, AscCore *c, const AscPipeUnit *p, const AscQEntry *e, const AscExecStats *st,
                   uint64_t start, uint64_t end, uint64_t done, uint64_t stall_cycles, uint8_t stall, uint8_t fsrc,
                   uint8_t fdst, uint8_t fev, uint64_t hbm_extra)
{
    /* field by field, as emit_scalar_obs (scalar.c): an initializer clears the struct first */
    _Static_assert(sizeof(AscSimInsnEvent) == 104, "asc_emit_insn sets every field of AscSimInsnEvent");
    AscSimInsnEvent ev;
    ev.core = c->index, ev.pipe = p->id, ev.op = e->q.in.op, ev.pc = e->q.pc, ev.seq = e->seq;
    ev.issue_cycle = e->issue_cycle, ev.start_cycle = start, ev.end_cycle = end, ev.done_cycle = done;
    ev.stall_cycles = stall_cycles, ev.stall = stall, ev.src_buf = st->src_buf, ev.dst_buf = st->dst_buf;
    ev.bytes = st->bytes, ev.conflict_beats = st->conflict_beats, ev.hbm_extra_cycles = hbm_extra, ev.flops = st->flops;
    ev.flag_src = ev.flag_dst = ev.flag_event = 0;
    if (stall == ASC_STALL_FLAG) {
        ev.flag_src = fsrc;
        ev.flag_dst = fdst;
        ev.flag_event = fev;
    }
    sim->obs.on_insn(sim->obs.ud, &ev);
}

/* ---- statistics ----------------------------------------------------------------- */

uint32_t asc_sim_ncores(const AscSim *sim) { return sim->ncores; }

bool asc_sim_pipe_stats(const AscSim *sim, uint32_t core, uint8_t pipe, AscSimPipeStats *out)
{
    if (core >= sim->ncores || pipe >= ASC_PIPE_COUNT || !sim->cores[core].pipes[pipe].present) return false;
    *out = sim->cores[core].pipes[pipe].stats;
    return true;
}

uint64_t asc_sim_core_end_cycle(const AscSim *sim, uint32_t core)
{
    return core < sim->ncores ? sim->cores[core].end_cycle : 0;
}

/* ---- inspection (asc/sim.h): what run/ reads ------------------------------- */

_Static_assert(ASC_PIPE_COUNT <= ASC_AGENTS_PER_CORE, "an agent id per pipe");

const AscImage *asc_sim_image(const AscSim *sim) { return sim->img; }
const AscAlloc *asc_sim_alloc(const AscSim *sim) { return &sim->alloc; }
uint32_t asc_sim_blocks(const AscSim *sim) { return sim->blocks; }
bool asc_sim_functional(const AscSim *sim) { return sim->functional; }
bool asc_sim_checks_races(const AscSim *sim) { return sim->check_races; }

bool asc_sim_add_buffer(AscSim *sim, uint8_t src, uint8_t dst, uint8_t event)
{
    if (src >= ASC_PIPE_COUNT || dst >= ASC_PIPE_COUNT || event >= ASC_MAX_EVENTS || sim->started) return false;
    for (uint32_t i = 0; i < sim->ncores; i++) {
        AscFlag *f = &sim->cores[i].flags[src][dst][event];
        f->two = true;
        f->set = true, f->set_cycle = 0, f->set_pc = 0;
    }
    return true;
}

bool asc_sim_flag_tokens(AscSim *sim, uint8_t src, uint8_t dst, uint8_t event, unsigned tokens)
{
    if (tokens < 1 || tokens > 2 || !asc_sim_add_buffer(sim, src, dst, event)) return false;
    for (uint32_t i = 0; i < sim->ncores && tokens == 2; i++) {
        AscFlag *f = &sim->cores[i].flags[src][dst][event];
        f->more = true, f->more_cycle = 0, f->more_pc = 0;
    }
    return true;
}

bool asc_sim_flag_rule(AscSim *sim, AscFlagRule kind, const uint8_t a[3], const uint8_t b[3])
{
    if (sim->started || sim->nrules == ASC_SIM_MAX_FLAG_RULES || kind > ASC_FLAG_RULE_JOIN_WAIT) return false;
    for (int k = 0; k < 3; k++)
        if (a[k] >= (k < 2 ? ASC_PIPE_COUNT : ASC_MAX_EVENTS) || b[k] >= (k < 2 ? ASC_PIPE_COUNT : ASC_MAX_EVENTS))
            return false;
    if ((kind == ASC_FLAG_RULE_MOVE_WAIT || kind == ASC_FLAG_RULE_JOIN_WAIT) && a[1] != b[1]) return false;
    /* the scalar unit's wait_flag reads its flag directly (scalar.c): no wait rule applies there */
    if ((kind == ASC_FLAG_RULE_MOVE_WAIT || kind == ASC_FLAG_RULE_JOIN_WAIT) && a[1] == ASC_PIPE_S) return false;
    sim->rules[sim->nrules].kind = (uint8_t)kind;
    memcpy(sim->rules[sim->nrules].a, a, 3);
    memcpy(sim->rules[sim->nrules].b, b, 3);
    sim->nrules++;
    return true;
}
uint64_t asc_sim_arg(const AscSim *sim, uint32_t i) { return i < ASC_MAX_ARGS ? sim->args[i] : 0; }

bool asc_sim_xcore_joins(const AscSim *sim, uint32_t from, uint32_t other, unsigned mode)
{
    if (from >= sim->ncores || other >= sim->ncores || mode > 2) return false;
    return asc_xcore_member(&sim->cores[from], &sim->cores[other], (uint8_t)mode);
}

bool asc_sim_xcore_reaches(const AscSim *sim, uint32_t from, uint32_t to, unsigned mode)
{
    if (from >= sim->ncores || to >= sim->ncores || mode > 2) return false;
    return asc_xcore_target(&sim->cores[from], &sim->cores[to], (uint8_t)mode);
}

bool asc_sim_core_info(const AscSim *sim, uint32_t core, AscSimCoreInfo *out)
{
    if (core >= sim->ncores) return false;
    const AscCore *c = &sim->cores[core];
    *out = (AscSimCoreInfo){.kind = c->kind,
                            .ai_core = c->ai_core,
                            .sub = c->sub,
                            .block_idx = c->spr[ASC_SPR_BLOCK_IDX],
                            .end_cycle = c->end_cycle,
                            .entry = c->prog->entry,
                            .size = c->prog->size};
    return true;
}

bool asc_sim_has_pipe(const AscSim *sim, uint32_t core, uint8_t pipe)
{
    return core < sim->ncores && pipe < ASC_PIPE_COUNT && sim->cores[core].pipes[pipe].present;
}

bool asc_sim_core_stats(const AscSim *sim, uint32_t core, AscSimCoreStats *out)
{
    if (core >= sim->ncores) return false;
    const AscCore *c = &sim->cores[core];
    memcpy(out->bytes, c->bytes, sizeof out->bytes);
    out->cube_flops = c->cube_flops;
    out->vec_flops = c->vec_flops;
    out->vec_bytes = c->vec_bytes;
    out->conflict_beats = c->conflict_beats;
    return true;
}

/* index of pc in core's program, or UINT32_MAX */
static uint32_t pc_index(const AscSim *sim, uint32_t core, uint32_t pc)
{
    if (core >= sim->ncores) return UINT32_MAX;
    const AscProg *p = sim->cores[core].prog;
    if (pc < p->entry || pc - p->entry >= p->size || (pc - p->entry) % 4) return UINT32_MAX;
    return (pc - p->entry) / 4;
}

const AscInsn *asc_sim_insn_at(const AscSim *sim, uint32_t core, uint32_t pc)
{
    uint32_t i = pc_index(sim, core, pc);
    return i == UINT32_MAX ? NULL : &sim->cores[core].prog->insn[i];
}

bool asc_sim_pc_stats(const AscSim *sim, uint32_t core, uint32_t pc, AscSimPcStats *out)
{
    uint32_t i = pc_index(sim, core, pc);
    if (i == UINT32_MAX) {
        *out = (AscSimPcStats){0};
        return false;
    }
    *out = sim->cores[core].pcs[i];
    return true;
}

bool asc_sim_scalar_wait(const AscSim *sim, uint32_t core, AscSimScalarWait *out)
{
    if (core >= sim->ncores) return false;
    const AscCore *c = &sim->cores[core];
    uint8_t k;
    switch (c->sstate) {
    case ASC_SS_QFULL: k = ASC_STALL_QUEUE_FULL; break;
    case ASC_SS_WAIT_FLAG: k = ASC_STALL_FLAG; break;
    case ASC_SS_XWAIT: k = ASC_STALL_XCORE; break;
    case ASC_SS_DRAIN: k = ASC_STALL_DRAIN; break;
    case ASC_SS_SYNC_ALL: k = ASC_STALL_SYNC_ALL; break;
    default: return false;
    }
    *out = (AscSimScalarWait){.stall = k, .pipe = c->swait_pipe, .pc = c->pc, .since = c->swait_since};
    return true;
}

uint64_t asc_sim_watermark(const AscSim *sim)
{
    uint64_t w = sim->now;
    for (uint32_t i = 0; i < sim->ncores; i++) {
        AscSimScalarWait sw;
        if (asc_sim_scalar_wait(sim, i, &sw) && sw.since < w) w = sw.since;
        const AscCore *c = &sim->cores[i];
        for (unsigned p = 1; p < ASC_PIPE_COUNT; p++) {
            const AscPipeUnit *u = &c->pipes[p];
            if (u->present && u->state != ASC_PS_IDLE && u->start_cycle < w) w = u->start_cycle;
        }
    }
    return w;
}
