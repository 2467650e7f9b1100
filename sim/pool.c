/* pool.c -- host worker threads for the data work of exec functions
 * (AscSimDesc.threads; docs/internals.md §Host threads).
 *
 * Users: sim.c (create, join all, free, asc_sim_gm_fill), exec functions through
 * AscExecCtx.defer, on_buf (exec_check.c), deps_begin / deps_join, and gm.c's sync hook.
 *
 * The scheduler stays single-threaded and deterministic: the heap, every
 * cycle, every check and every AscExecStats are computed on the thread that
 * calls asc_sim_run, in (cycle, agent) order, exactly as with one thread.
 * Only a job an exec function hands over runs elsewhere: mmad's unpack and multiply (the
 * core's L0A, L0B, L0C), a vector instruction's data pass (UB), a GM <-> local copy (one
 * local range, one GM range).  A core has ASC_CORE_JOBS slots.  A later access that
 * conflicts with a pending job (same buffer for whole-buffer jobs; overlapping ranges, one of
 * them a write, for range jobs; GM ranges of any core) either waits for it (join_slot) or,
 * for a job about to be deferred (between deps_begin and defer), makes it a predecessor:
 * the new job runs only once its predecessors are done.  Everything is joined before
 * asc_sim_run returns.  No other code reads a core's local buffers or GM while a conflicting
 * job is pending (other cores' GM accesses go through gm.c's hook; the observer and the
 * inspection functions read no data), so every output bit is the same as inline.
 *
 * Invariants: state, gen, next, left and dep* of every slot and the queue are only touched
 * with `mu` held; pending (main thread only) is true iff the slot's job is queued, running
 * or done but not yet joined; a predecessor is always an older pending job, so the queue's
 * oldest job can always run once the running ones end (no deadlock).  While waiting for a
 * job, the main thread runs it, or one of its predecessors, or the newest job that may run. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_internal.h"

enum { JOB_NONE = 0, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

/* A worker with nothing to do checks the queue this many times (a pause between checks)
 * before it sleeps: a DMA copy or vector pass is a few microseconds, about what a futex
 * sleep and wake-up cost, and the engine hands one over every few microseconds. */
enum { SPIN_CHECKS = 2000 };

struct AscPool {
    AscSim *sim;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    pthread_t *th;
    uint32_t nth;
    /* queued slots, oldest first, in queue[qh, qt) (mu); a slot taken from the middle leaves a
     * NULL there (its qpos says where it is), qh skips the leading ones and an append that finds
     * no room at the end first packs the live ones to the front: O(1) to take a job */
    AscJobSlot **queue;
    uint32_t nq, qh, qt, qcap, cap; /* nq live entries; qcap = 2 * cap entries */
    _Atomic uint32_t nq_hint; /* nq, read without the mutex by spinning workers */
    uint32_t sleeping;  /* workers waiting on `work` (mu) */
    bool stop;
    AscJobSlot **gm;    /* main thread only: pending slots with a GM range */
    struct GmRange { uint64_t lo, hi; bool write; } *gr; /* gm[i]'s range, scanned by gm_sync */
    uint32_t ngm;
    AscCore *collector; /* main thread only: the core between deps_begin and its defer / deps_join */
};

static uint32_t job_parts(const AscJobSlot *s) { return s->job.parts > 1 ? s->job.parts : 1; }

/* Remove slot s from the queue (mu held). */
static void dequeue(AscPool *pl, AscJobSlot *s)
{
    pl->queue[s->qpos] = NULL;
    pl->nq--;
    while (pl->qh < pl->qt && !pl->queue[pl->qh]) pl->qh++;
    if (!pl->nq) pl->qh = pl->qt = 0;
    atomic_store_explicit(&pl->nq_hint, pl->nq, memory_order_relaxed);
}

/* Append slot s to the queue (mu held). */
static void enqueue(AscPool *pl, AscJobSlot *s)
{
    if (pl->qt == pl->qcap) { /* pack the live entries (at most cap of them) to the front */
        uint32_t j = 0;
        for (uint32_t i = pl->qh; i < pl->qt; i++)
            if (pl->queue[i]) {
                pl->queue[j] = pl->queue[i];
                pl->queue[j]->qpos = j;
                j++;
            }
        pl->qh = 0;
        pl->qt = j;
    }
    s->qpos = pl->qt;
    pl->queue[pl->qt++] = s;
    pl->nq++;
    atomic_store_explicit(&pl->nq_hint, pl->nq, memory_order_relaxed);
}

/* Take the next part of queued slot s's job (mu held): the slot leaves the queue and its job
 * is RUNNING once its last part is taken. */
static uint32_t take(AscPool *pl, AscJobSlot *s)
{
    uint32_t p = s->next++;
    if (s->next == job_parts(s)) {
        dequeue(pl, s);
        s->state = JOB_RUNNING;
    }
    return p;
}

/* Every predecessor of s is done (or its slot moved on to a later job): mu held. */
static bool runnable(const AscJobSlot *s)
{
    for (uint32_t i = 0; i < s->ndep; i++) {
        const AscJobSlot *d = s->dep[i];
        if (d->gen == s->dep_gen[i] && (d->state == JOB_QUEUED || d->state == JOB_RUNNING)) return false;
    }
    return true;
}

/* The oldest queued job that may run (mu held), NULL if none. */
static AscJobSlot *oldest_runnable(AscPool *pl)
{
    for (uint32_t i = pl->qh; i < pl->qt; i++)
        if (pl->queue[i] && runnable(pl->queue[i])) return pl->queue[i];
    return NULL;
}

/* Run part p of s's job without the mutex, then count it (mu held again): DONE after the last. */
static void run_part(AscPool *pl, AscJobSlot *s, uint32_t p)
{
    pthread_mutex_unlock(&pl->mu);
    if (job_parts(s) > 1) s->job.run_part(&s->job, p);
    else s->job.run(&s->job);
    pthread_mutex_lock(&pl->mu);
    if (--s->left == 0) {
        s->state = JOB_DONE;
        pthread_cond_broadcast(&pl->done);
        if (pl->sleeping && pl->nq) pthread_cond_signal(&pl->work); /* a follower may run now */
    }
}

static void *worker(void *arg)
{
    AscPool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        if (!pl->stop && pl->nq == 0) {
            pthread_mutex_unlock(&pl->mu);
            for (int i = 0; i < SPIN_CHECKS && !atomic_load_explicit(&pl->nq_hint, memory_order_relaxed); i++) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            }
            pthread_mutex_lock(&pl->mu);
        }
        AscJobSlot *s;
        while (!(s = oldest_runnable(pl)) && !pl->stop) {
            pl->sleeping++;
            pthread_cond_wait(&pl->work, &pl->mu);
            pl->sleeping--;
        }
        if (!s) break; /* stop, nothing left (asc_pool_free joined every job first) */
        run_part(pl, s, take(pl, s));
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

uint32_t asc_pool_host_threads(uint32_t want)
{
    if (want) return want > 256 ? 256 : want;
    /* ASC_THREADS=N: the default for every sim of the process (the test suite
     * forces 1 and 2 with it); read, never written */
    const char *env = getenv("ASC_THREADS");
    if (env && *env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (!*end && v >= 1) return v > 256 ? 256 : (uint32_t)v;
    }
    /* default: the host's online CPUs (bench/README.md measures the speed-up); results are
     * the same for any count */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (uint32_t)n;
}

/* Wait until slot s's job is done (main thread); meanwhile run its untaken parts, else the
 * newest queued job, so the calling thread never idles while work is queued. */
static void join_slot(AscPool *pl, AscJobSlot *s)
{
    if (!s->pending) return;
    pthread_mutex_lock(&pl->mu);
    while (s->state != JOB_DONE) {
        /* run s itself, else one of its predecessors, else help with the newest job that may run */
        AscJobSlot *o = s->state == JOB_QUEUED && runnable(s) ? s : NULL;
        for (uint32_t i = 0; !o && s->state == JOB_QUEUED && i < s->ndep; i++) {
            AscJobSlot *d = s->dep[i];
            if (d->gen == s->dep_gen[i] && d->state == JOB_QUEUED && runnable(d)) o = d;
        }
        for (uint32_t i = pl->qt; !o && i-- > pl->qh;)
            if (pl->queue[i] && runnable(pl->queue[i])) o = pl->queue[i];
        if (!o) {
            pthread_cond_wait(&pl->done, &pl->mu);
            continue;
        }
        run_part(pl, o, take(pl, o));
    }
    s->state = JOB_NONE;
    pthread_mutex_unlock(&pl->mu);
    s->pending = false;
    s->core->jobs_pending--;
    s->core->range_pend &= ~(1u << (s - s->core->jobs));
    if (s->job.gm)
        for (uint32_t i = 0; i < pl->ngm; i++)
            if (pl->gm[i] == s) {
                pl->gm[i] = pl->gm[--pl->ngm];
                pl->gr[i] = pl->gr[pl->ngm];
                break;
            }
}

void asc_pool_join(AscCore *c)
{
    for (uint32_t i = 0; c->jobs_pending && i < ASC_CORE_JOBS; i++) join_slot(c->sim->pool, &c->jobs[i]);
}

void asc_pool_join_all(AscSim *sim)
{
    if (!sim->pool) return;
    for (uint32_t i = 0; i < sim->ncores; i++) {
        asc_pool_join(&sim->cores[i]);
        sim->cores[i].collecting = false; /* a faulting exec function may have left it set */
        sim->cores[i].ncdep = 0;
    }
    sim->pool->collector = NULL;
}

static bool overlap(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi) { return alo < bhi && blo < ahi; }

/* An access of [lo, hi) of local buffer buf (all of it: hi = UINT64_MAX) by core c's next
 * instruction: join every pending job of c it conflicts with. */
/* Pending job s conflicts with core c's next job: c's next job follows it when c is collecting
 * (and there is room), else it is waited for now. */
static void follow_or_join(AscPool *pl, AscCore *c, AscJobSlot *s, bool collect)
{
    if (collect && c && c->collecting) {
        for (uint32_t i = 0; i < c->ncdep; i++)
            if (c->cdep[i] == s) return;
        if (c->ncdep < ASC_JOB_DEPS) {
            c->cdep[c->ncdep] = s;
            c->cdep_gen[c->ncdep++] = s->gen; /* written by this thread only: no lock to read it */
            return;
        }
    }
    join_slot(pl, s);
}

/* The pending jobs of c that use buffer b whole form one chain, each following (or having
 * joined) every older one (defer), so the newest of them stands for all: following or joining it
 * orders after every one.  NULL when no job on b is pending (older ones are then done too). */
static AscJobSlot *whole_newest(const AscCore *c, uint32_t b)
{
    AscJobSlot *s = c->whole_last[b];
    return s && s->pending && s->gen == c->whole_gen[b] ? s : NULL;
}

static void on_buf(void *ud, AscBuf buf, uint64_t lo, uint64_t hi, bool write)
{
    AscCore *c = ud;
    if (!c->jobs_pending) return;
    bool span = hi != UINT64_MAX; /* asc_exec_check_span: the caller's data pass follows the job */
    AscJobSlot *w = whole_newest(c, buf);
    if (w) follow_or_join(c->sim->pool, c, w, span);
    for (uint32_t m = c->range_pend; m; m &= m - 1) {
        AscJobSlot *s = &c->jobs[__builtin_ctz(m)];
        const AscExecJob *j = &s->job;
        if (s->pending && j->lbuf == buf && (write || j->lwrite) && overlap(lo, hi, j->llo, j->lhi))
            follow_or_join(c->sim->pool, c, s, span);
    }
}

static void deps_begin(void *ud)
{
    AscCore *c = ud;
    c->collecting = true;
    c->ncdep = 0;
    c->sim->pool->collector = c;
}

static void deps_join(void *ud)
{
    AscCore *c = ud;
    AscPool *pl = c->sim->pool;
    c->collecting = false;
    pl->collector = NULL;
    for (uint32_t i = 0; i < c->ncdep; i++)
        if (c->cdep[i]->gen == c->cdep_gen[i]) join_slot(pl, c->cdep[i]);
    c->ncdep = 0;
}

/* A GM access of [lo, hi) on the calling thread (gm.c's hook): join every pending job whose
 * GM range overlaps it and writes it, or reads it when `write`.  Jobs of every core. */
static void gm_sync(void *ud, uint64_t lo, uint64_t hi, bool write, bool collect)
{
    AscPool *pl = ud;
    for (uint32_t i = 0; i < pl->ngm;) {
        const struct GmRange *r = &pl->gr[i];
        if ((write || r->write) && overlap(lo, hi, r->lo, r->hi)) {
            uint32_t n = pl->ngm;
            follow_or_join(pl, pl->collector, pl->gm[i], collect);
            if (pl->ngm < n) continue; /* joined: gm[i] was removed, look at index i again */
        }
        i++;
    }
}

static bool defer(void *ud, const AscExecJob *job)
{
    AscCore *c = ud;
    AscPool *pl = c->sim->pool;
    /* whole-buffer jobs of one kind (vector passes, mmads sharing the scratch) stay in order:
     * the newest pending job on each of its buffers (whole_newest) */
    for (uint32_t m = c->jobs_pending ? job->bufs : 0; m; m &= m - 1) {
        AscJobSlot *o = whole_newest(c, (uint32_t)__builtin_ctz(m));
        if (o) follow_or_join(pl, c, o, true);
    }
    AscJobSlot *s = &c->jobs[c->job_rr++ % ASC_CORE_JOBS]; /* the oldest slot */
    join_slot(pl, s);
    /* the predecessors collected since deps_begin (none when not collecting) */
    uint32_t nd = 0;
    AscJobSlot *dep[ASC_JOB_DEPS];
    uint32_t dep_gen[ASC_JOB_DEPS];
    for (uint32_t i = 0; c->collecting && i < c->ncdep; i++)
        if (c->cdep[i] != s && c->cdep[i]->gen == c->cdep_gen[i]) dep[nd] = c->cdep[i], dep_gen[nd++] = c->cdep_gen[i];
    c->collecting = false;
    c->ncdep = 0;
    pl->collector = NULL;
    s->job = *job;
    if (s->job.parts > 1 && !s->job.run_part) s->job.parts = 1;
    if (s->job.gm) {
        pl->gr[pl->ngm] = (struct GmRange){s->job.glo, s->job.ghi, s->job.gwrite};
        pl->gm[pl->ngm++] = s;
    }
    pthread_mutex_lock(&pl->mu);
    enqueue(pl, s);
    s->state = JOB_QUEUED;
    s->gen++;
    memcpy(s->dep, dep, nd * sizeof *dep);
    memcpy(s->dep_gen, dep_gen, nd * sizeof *dep_gen);
    s->ndep = nd;
    s->next = 0;
    s->left = job_parts(s);
    if (pl->sleeping) {
        if (s->left > 1) pthread_cond_broadcast(&pl->work);
        else pthread_cond_signal(&pl->work);
    }
    pthread_mutex_unlock(&pl->mu);
    s->pending = true;
    c->jobs_pending++;
    for (uint32_t m = s->job.bufs; m; m &= m - 1) {
        c->whole_last[__builtin_ctz(m)] = s;
        c->whole_gen[__builtin_ctz(m)] = s->gen;
    }
    if (s->job.lhi > s->job.llo) c->range_pend |= 1u << (s - c->jobs);
    return true;
}

bool asc_pool_run_parts(AscSim *sim, AscExecJob *job, uint32_t parts)
{
    if (!sim->pool || sim->ncores == 0 || parts < 2 || !job->run_part) return false;
    AscCore *c = &sim->cores[0]; /* one of its job slots: joined before returning */
    job->parts = parts;
    job->gm = false;
    asc_pool_join(c);
    AscJobSlot *s = &c->jobs[c->job_rr % ASC_CORE_JOBS];
    defer(c, job);
    join_slot(sim->pool, s);
    return true;
}

bool asc_pool_new(AscSim *sim, uint32_t threads)
{
    /* one simulated core too: its arithmetic job runs beside the engine (DMA, scalar unit) */
    if (threads < 2) return true; /* inline */
    AscPool *pl = asc_calloc(&sim->alloc, 1, sizeof *pl);
    if (!pl) return false;
    pl->sim = sim;
    pl->cap = sim->ncores * ASC_CORE_JOBS;
    pl->qcap = 2 * (pl->cap ? pl->cap : 1);
    pl->queue = asc_calloc(&sim->alloc, pl->qcap, sizeof *pl->queue);
    pl->gm = asc_calloc(&sim->alloc, pl->cap ? pl->cap : 1, sizeof *pl->gm);
    pl->gr = asc_calloc(&sim->alloc, pl->cap ? pl->cap : 1, sizeof *pl->gr);
    pl->th = asc_calloc(&sim->alloc, threads - 1, sizeof *pl->th);
    bool ok = false; /* a failure below: out of memory, or no thread (then run inline) */
    if (!pl->queue || !pl->gm || !pl->gr || !pl->th) goto fail_mem;
    ok = true;
    if (pthread_mutex_init(&pl->mu, NULL)) goto fail_mem;
    if (pthread_cond_init(&pl->work, NULL)) goto fail_mu;
    if (pthread_cond_init(&pl->done, NULL)) goto fail_work;
    /* workers block every signal (they inherit the mask): a signal to the process then
     * reaches the calling thread, whose CLI blocks SIGINT/SIGTERM around its own critical
     * sections (run/asc_sim_main.c); a worker taking it would bypass that */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (uint32_t i = 0; i + 1 < threads; i++) {
        if (pthread_create(&pl->th[i], NULL, worker, pl)) break; /* fewer workers: still correct */
        pl->nth++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pl->nth == 0) {
        pthread_cond_destroy(&pl->done);
        goto fail_work;
    }
    sim->pool = pl;
    sim->threads = pl->nth + 1;
    asc_gm_set_sync(sim->gm, gm_sync, pl);
    uint32_t cube = 0;
    for (uint32_t i = 0; i < sim->ncores; i++) {
        AscCore *c = &sim->cores[i];
        c->ctx.on_buf = on_buf;
        c->ctx.defer = defer;
        c->ctx.pool_ud = c;
        c->ctx.deps_begin = deps_begin;
        c->ctx.deps_join = deps_join;
        for (uint32_t k = 0; k < ASC_CORE_JOBS; k++) c->jobs[k].core = c;
        cube += c->ctx.mm_scratch != NULL;
    }
    /* fewer cube cores than threads: one mmad's arithmetic is split across the threads (by
     * column panels, exec_cube.c, two parts per thread; A unpacked once into the core's scratch).
     * (bench/README.md: on the 2-vCPU host this gains little, the host lines of L0A / L0B / L0C
     * moving between the CPUs cost about what the second CPU adds) */
    for (uint32_t i = 0; cube && cube < sim->threads && i < sim->ncores; i++)
        if (sim->cores[i].ctx.mm_scratch) sim->cores[i].ctx.mm_parts = sim->threads;
    return true;
fail_work:
    pthread_cond_destroy(&pl->work);
fail_mu:
    pthread_mutex_destroy(&pl->mu);
fail_mem:
    asc_free(&sim->alloc, pl->queue);
    asc_free(&sim->alloc, pl->gm);
    asc_free(&sim->alloc, pl->gr);
    asc_free(&sim->alloc, pl->th);
    asc_free(&sim->alloc, pl);
    return ok;
}

void asc_pool_free(AscSim *sim)
{
    AscPool *pl = sim->pool;
    if (!pl) return;
    asc_pool_join_all(sim);
    pthread_mutex_lock(&pl->mu);
    pl->stop = true;
    pthread_cond_broadcast(&pl->work);
    pthread_mutex_unlock(&pl->mu);
    for (uint32_t i = 0; i < pl->nth; i++) pthread_join(pl->th[i], NULL);
    pthread_cond_destroy(&pl->done);
    pthread_cond_destroy(&pl->work);
    pthread_mutex_destroy(&pl->mu);
    asc_gm_set_sync(sim->gm, NULL, NULL);
    asc_free(&sim->alloc, pl->queue);
    asc_free(&sim->alloc, pl->gm);
    asc_free(&sim->alloc, pl->gr);
    asc_free(&sim->alloc, pl->th);
    asc_free(&sim->alloc, pl);
    sim->pool = NULL;
}
