/* pool.c -- host worker threads for the pure arithmetic of exec functions
 * (AscSimDesc.threads; docs/internals.md §Host threads).
 *
 * Users: sim.c (create, join all, free), exec functions through
 * AscExecCtx.defer and AscExecCtx.on_buf (exec_check.c).
 *
 * The scheduler stays single-threaded and deterministic: the heap, every
 * cycle, every check and every AscExecStats are computed on the thread that
 * calls asc_sim_run, in (cycle, agent) order, exactly as with one thread.
 * Only a job an exec function hands over (mmad's unpack and multiply, which
 * touch the core's L0A, L0B and L0C; a vector instruction's data pass, which
 * touches the core's UB) runs elsewhere.  A core has at
 * most one job; it is joined before any later exec function of that core
 * checks a buffer the job uses, before the core takes another job, and
 * before asc_sim_run returns.  No other code reads a core's local buffers
 * while it runs (other cores cannot, the observer and the inspection
 * functions read none), so every output bit is the same as inline.
 *
 * Invariants: job_state of every core and the queue are only touched with
 * `mu` held; job_pending (main thread only) is true iff the core's job is
 * queued, running or done but not yet joined.  While waiting for a job a
 * worker is running, the main thread runs the newest queued job itself. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim_internal.h"

enum { JOB_NONE = 0, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct AscPool {
    AscSim *sim;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    pthread_t *th;
    uint32_t nth;
    uint32_t *queue; /* core indices, oldest first */
    uint32_t nq, cap;
    bool stop;
};

static uint32_t job_parts(const AscCore *c) { return c->job.parts > 1 ? c->job.parts : 1; }

/* Remove core index ci from the queue (mu held). */
static void dequeue(AscPool *pl, uint32_t ci)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < pl->nq; i++)
        if (pl->queue[i] != ci) pl->queue[j++] = pl->queue[i];
    pl->nq = j;
}

/* Take the next part of queued core c's job (mu held): the core leaves the queue and its job
 * is RUNNING once its last part is taken. */
static uint32_t take(AscPool *pl, AscCore *c)
{
    uint32_t p = c->job_next++;
    if (c->job_next == job_parts(c)) {
        dequeue(pl, c->index);
        c->job_state = JOB_RUNNING;
    }
    return p;
}

/* Run part p of c's job without the mutex, then count it (mu held again): DONE after the last. */
static void run_part(AscPool *pl, AscCore *c, uint32_t p)
{
    pthread_mutex_unlock(&pl->mu);
    if (job_parts(c) > 1) c->job.run_part(&c->job, p);
    else c->job.run(&c->job);
    pthread_mutex_lock(&pl->mu);
    if (--c->job_left == 0) {
        c->job_state = JOB_DONE;
        pthread_cond_broadcast(&pl->done);
    }
}

static void *worker(void *arg)
{
    AscPool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        while (!pl->stop && pl->nq == 0) pthread_cond_wait(&pl->work, &pl->mu);
        if (pl->nq == 0) break; /* stop, nothing left */
        AscCore *c = &pl->sim->cores[pl->queue[0]];
        run_part(pl, c, take(pl, c));
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

void asc_pool_join(AscCore *c)
{
    if (!c->job_pending) return;
    AscPool *pl = c->sim->pool;
    pthread_mutex_lock(&pl->mu);
    while (c->job_state != JOB_DONE) {
        AscCore *o = c->job_state == JOB_QUEUED ? c : NULL;
        if (!o && pl->nq) o = &pl->sim->cores[pl->queue[pl->nq - 1]]; /* help: the newest queued job */
        if (!o) {
            pthread_cond_wait(&pl->done, &pl->mu);
            continue;
        }
        run_part(pl, o, take(pl, o));
    }
    c->job_state = JOB_NONE;
    pthread_mutex_unlock(&pl->mu);
    c->job_pending = false;
}

void asc_pool_join_all(AscSim *sim)
{
    if (!sim->pool) return;
    for (uint32_t i = 0; i < sim->ncores; i++) asc_pool_join(&sim->cores[i]);
}

static void on_buf(void *ud, AscBuf buf)
{
    AscCore *c = ud;
    if (c->job_pending && (c->job.bufs >> buf & 1u)) asc_pool_join(c);
}

static bool defer(void *ud, const AscExecJob *job)
{
    AscCore *c = ud;
    AscPool *pl = c->sim->pool;
    asc_pool_join(c);
    c->job = *job;
    if (c->job.parts > 1 && !c->job.run_part) c->job.parts = 1;
    pthread_mutex_lock(&pl->mu);
    pl->queue[pl->nq++] = c->index;
    c->job_state = JOB_QUEUED;
    c->job_next = 0;
    c->job_left = job_parts(c);
    if (c->job_left > 1) pthread_cond_broadcast(&pl->work);
    else pthread_cond_signal(&pl->work);
    pthread_mutex_unlock(&pl->mu);
    c->job_pending = true;
    return true;
}

bool asc_pool_run_parts(AscSim *sim, AscExecJob *job, uint32_t parts)
{
    if (!sim->pool || sim->ncores == 0 || parts < 2 || !job->run_part) return false;
    AscCore *c = &sim->cores[0]; /* its job slot: joined first, joined again before returning */
    job->parts = parts;
    defer(c, job);
    asc_pool_join(c);
    return true;
}

bool asc_pool_new(AscSim *sim, uint32_t threads)
{
    /* one simulated core too: its arithmetic job runs beside the engine (DMA, scalar unit) */
    if (threads < 2) return true; /* inline */
    AscPool *pl = asc_calloc(&sim->alloc, 1, sizeof *pl);
    if (!pl) return false;
    pl->sim = sim;
    pl->cap = sim->ncores;
    pl->queue = asc_calloc(&sim->alloc, pl->cap, sizeof *pl->queue);
    pl->th = asc_calloc(&sim->alloc, threads - 1, sizeof *pl->th);
    bool ok = false; /* a failure below: out of memory, or no thread (then run inline) */
    if (!pl->queue || !pl->th) goto fail_mem;
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
    uint32_t cube = 0;
    for (uint32_t i = 0; i < sim->ncores; i++) {
        AscCore *c = &sim->cores[i];
        c->ctx.on_buf = on_buf;
        c->ctx.defer = defer;
        c->ctx.pool_ud = c;
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
    asc_free(&sim->alloc, pl->queue);
    asc_free(&sim->alloc, pl->th);
    asc_free(&sim->alloc, pl);
    sim->pool = NULL;
}
