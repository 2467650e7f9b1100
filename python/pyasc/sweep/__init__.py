"""Design sweeps: every point of a spec is one simulation through libasc; results go to one CSV.

Users: the asc-sweep CLI (pyasc.sweep.cli, `pyasc sweep`), tests, scripts:

    from pyasc import sweep
    stats = sweep.run("spec.json", "results.csv")                 # local processes
    stats = sweep.run("spec.json", "results.csv", scheduler="tcp://127.0.0.1:8786")   # Dask

Each point runs in-process in a worker (ctypes over libasc.so, pyasc.sweep.engine): no process
start, no file written per point, and errors come back as libasc's own diagnostics.  Points are
pure functions of their job, so a local process pool and a Dask cluster give the same rows, and
the CSV (pyasc.sweep.results) is sorted by point index with a fixed column order: the same spec
gives the same bytes whatever the worker count, the scheduler or the order of completion.
Resuming: points whose parameters already have a row in the output (written for the same
spec_digest) are not run again.  The spec format: docs/sweep.md.
"""
from __future__ import annotations

import os
import sys
import time

from . import engine, results
from .spec import SpecError, Sweep, load, read  # noqa: F401

__all__ = ["run", "load", "read", "SpecError", "Sweep"]


class Stats(dict):
    """points, done_before, simulated (this call), failed (rows not ok, all runs), written."""


def _chunks(idx, n):
    return [idx[i:i + n] for i in range(0, len(idx), n)]


def _resume(sw: Sweep, out: str):
    """{index: row} already in `out` for this spec."""
    if not os.path.exists(out):
        return {}
    try:
        hdr, rows = results.read(out)
    except (OSError, UnicodeDecodeError, results.ResultsError) as e:
        raise SpecError(f"{out}: cannot resume from it: {e}") from None
    if not hdr:
        return {}
    want = ["point", *sw.columns, *results.FIXED_TAIL]
    if hdr[:len(want)] != want:
        raise SpecError(f"{out}: its columns ({', '.join(hdr[:len(want)])}) are not this spec's "
                        f"({', '.join(want)}): remove it or write to another file")
    by_params = {tuple(sw.row_params(i).values()): i for i in range(len(sw.points))}
    done = {}
    for n, r in enumerate(rows, 2):
        if r["spec_digest"] != sw.digest:
            raise SpecError(f"{out}:{n}: written for another spec (its kernel, inputs, fixed profile or "
                            f"parameters differ: spec_digest {r['spec_digest']}, this spec {sw.digest}): remove it "
                            "or write to another file")
        key = tuple(r[c] for c in sw.columns)
        i = by_params.get(key)
        if i is None:
            raise SpecError(f"{out}:{n}: point " + ", ".join(f"{c}={v}" for c, v in zip(sw.columns, key)) +
                            " is not a point of this spec: remove the file or write to another one")
        if i in done:
            raise SpecError(f"{out}:{n}: point {i} appears twice")
        r = dict(r)
        r["point"] = str(i)
        done[i] = {k: v for k, v in r.items() if v != ""}
    return done


def _row(sw: Sweep, res: dict) -> dict:
    i = res["index"]
    row = {"point": str(i), **sw.row_params(i), "status": res["status"], "error": res["error"],
           "spec_digest": sw.digest}
    for k, v in res["figures"].items():
        row[results.figure_column(k, sw.columns)] = v
    return row


def run(spec, out: str, jobs: int | None = None, scheduler: str | None = None, max_points: int | None = None,
        flush_every: float = 1.0, log=None) -> Stats:
    """Run the points of `spec` (a path, or a Sweep) not yet in `out`; return Stats.
    jobs: local worker processes (default: the cores; 1 = in this process).  scheduler: a Dask
    scheduler address (tcp://HOST:PORT) instead.  max_points: run at most this many of the
    remaining points, then stop (re-run to go on).  flush_every: seconds between rewrites of the
    CSV while running (0 = after every point)."""
    log = log or (lambda m: print(m, file=sys.stderr))
    sw = spec if isinstance(spec, Sweep) else load(spec)
    done = _resume(sw, out)
    todo = [i for i in range(len(sw.points)) if i not in done]
    if max_points is not None:
        todo = todo[:max(0, max_points)]
    jobs_ = [sw.job(i) for i in todo]          # generates the inputs (blobs) here, once
    sw.check(todo)
    stats = Stats(points=len(sw.points), done_before=len(done), simulated=0, failed=0, written=out)
    rows = dict(done)
    where = f"Dask scheduler {scheduler}" if scheduler else \
        ("this process" if (jobs or os.cpu_count() or 1) == 1 else f"{jobs or os.cpu_count()} local processes")
    log(f"asc-sweep: {len(sw.points)} points, {len(done)} already in {out}, running {len(todo)} on {where}")
    last = [time.monotonic()]

    def take(batch):
        for res in batch:
            rows[res["index"]] = _row(sw, res)
            stats["simulated"] += 1
        if time.monotonic() - last[0] >= flush_every:
            results.write(out, sw.columns, rows)
            last[0] = time.monotonic()

    try:
        if todo:
            if scheduler:
                _run_dask(sw, jobs_, scheduler, take)
            else:
                _run_local(sw, jobs_, jobs or os.cpu_count() or 1, take)
    finally:
        results.write(out, sw.columns, rows)
    stats["failed"] = sum(1 for r in rows.values() if r.get("status") != "ok")
    return stats


def _chunk_size(n, workers):
    return max(1, min(32, n // (4 * workers) or 1))


def _run_local(sw, jobs_, workers, take):
    if workers == 1 or len(jobs_) == 1:
        for j in jobs_:
            take([engine.run_point(sw.blobs, j)])
        return
    import concurrent.futures as cf
    import multiprocessing as mp
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork"),
                                initializer=_init_worker, initargs=(sw.blobs,)) as ex:
        futs = [ex.submit(_run_chunk, c) for c in _chunks(jobs_, _chunk_size(len(jobs_), workers))]
        try:
            for f in cf.as_completed(futs):
                take(f.result())
        except BaseException:
            for f in futs:
                f.cancel()
            raise


_BLOBS = {}


def _init_worker(blobs):
    _BLOBS.update(blobs)


def _run_chunk(chunk):
    return engine.run_points(_BLOBS, chunk)


def _run_dask(sw, jobs_, address, take):
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SpecError("--scheduler needs Dask distributed: apt-get install python3-distributed "
                        "(scripts/deps.sh)") from None
    try:
        client = Client(address, timeout="20s", set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise SpecError(f"--scheduler {address}: cannot connect: {e}") from None
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        # one object: scattering the dict itself would make its keys (sha256 strings, also found in
        # the jobs) Dask keys, and Dask substitutes any argument string equal to a key
        [blobs] = client.scatter([sw.blobs], broadcast=True, hash=True)
        futs = [client.submit(engine.run_points, blobs, c, pure=False)
                for c in _chunks(jobs_, _chunk_size(len(jobs_), workers))]
        try:
            for f in as_completed(futs, loop=client.loop):
                take(f.result())
        except BaseException:
            client.cancel(futs)
            raise
    finally:
        client.close()
