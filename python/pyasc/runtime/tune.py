"""-O3 tiling search: `@asc.jit(tune={"tile": (1024, 2048, 4096)})` (docs/pyasc.md "Optimisation levels").

Users: runtime.jit (_Launcher, at opt_level 3 only), kernels/pyasc (the library's vector kernels),
pyasc.simt (the tile of per-element kernels), tests/python/test_opt_levels.py.

A kernel whose ConstExpr parameter is a free tiling choice (any candidate computes the same
numbers; the kernel author says so by listing it in `tune`) is, on its first -O3 launch for a
given argument signature (array dtypes and sizes, scalar values, the other constants), compiled
and run once per candidate on the simulator, on copies of its arrays; the candidate with the
fewest simulated cycles is kept (ties: the one the caller passed, else the first listed) and the
real launch runs with it.  The choice is remembered per signature on the JITFunction
(`last_tuning`: the parameter, the chosen value, and the cycles of every candidate).

Checks: a candidate that does not compile (a tile whose buffers do not fit the UB) is skipped;
every candidate's arrays after the run must equal the first candidate's byte for byte, else a
LaunchError names the parameter and both values (the kernel is then not tile-generic, and a
silent wrong answer would follow); the arrays named in the entry "scratch" of `tune` (a kernel's
workspace, whose contents depend on the tiling) are not compared.  The search is deterministic: the simulator's cycle counts are.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..compiler.errors import CompileError, LaunchError


@contextlib.contextmanager
def trial_runs():
    """Candidate runs are not launches of the program: the launch recorders (the native plan of a
    numpy bundle, pyasc.script.native) do not see them."""
    from . import launch
    saved = list(launch.RECORDERS)
    launch.RECORDERS.clear()
    try:
        yield
    finally:
        launch.RECORDERS[:] = saved


def _sig(specs, values):
    """The tuning key: everything a launch passes except the tuned constants' values."""
    parts = []
    vals = iter(values)
    for s in specs:
        if s.kind == "const":
            parts.append((s.name, "const", repr(s.value)))
            continue
        v = next(vals)
        if isinstance(v, np.ndarray):
            parts.append((s.name, "gm", v.dtype.str, v.size))
        else:
            parts.append((s.name, s.kind, repr(v)))
    return tuple(parts)


def search(jf, specs, values, core_num, launch_run, run_kw):
    """The specs with every tuned constant set to its best candidate (jf.options['tune'])."""
    tune = dict(jf.options.get("tune") or {})
    scratch = set(tune.pop("scratch", ()))
    names = [s.name for s in specs if s.kind == "const" and s.name in tune]
    if not names:
        return specs
    key = _sig([s for s in specs if s.name not in names], values) + (core_num, jf._options().get("target"))
    memo = jf.__dict__.setdefault("_tuned", {})
    if key in memo:
        choice = memo[key]
        jf.last_tuning = choice["report"]
        return [_with(s, choice["values"]) for s in specs]
    chosen = {s.name: s.value for s in specs if s.name in names}
    report = {}
    for name in names:                       # one parameter at a time, in signature order
        cands = list(tune[name])
        given = chosen[name]
        cycles, ref = {}, None
        for cand in cands:
            trial = dict(chosen, **{name: cand})
            sp = [_with(s, trial) for s in specs]
            try:
                c = jf.compile(*sp)
            except CompileError:
                continue                     # this tile does not fit (UB, queue events): not a candidate
            once = {}                        # an array passed twice is one copy, as it is one GM buffer
            copies = [once.setdefault(id(v), np.array(v, copy=True)) if isinstance(v, np.ndarray) else v
                      for v in values]
            with trial_runs():
                res = launch_run(c, copies, core_num, **run_kw)
            outs = [v for v, sp in zip(copies, [s for s in specs if s.kind != "const"])
                    if isinstance(v, np.ndarray) and sp.name not in scratch]
            if ref is None:
                ref = (cand, outs)
            else:
                for a, b in zip(ref[1], outs):
                    if a.tobytes() != b.tobytes():
                        raise LaunchError(f"{jf.__name__}: tune parameter '{name}' = {cand!r} gives other numbers "
                                          f"than {ref[0]!r}: a tuned parameter must not change the result "
                                          f"(remove it from @asc.jit(tune=...))")
            cycles[cand] = res.cycles
        if not cycles:
            raise LaunchError(f"{jf.__name__}: no candidate of tune parameter '{name}' "
                              f"({', '.join(map(repr, cands))}) compiles")
        best = min(cycles.values())
        pick = given if cycles.get(given) == best else next(c for c in cands if cycles.get(c) == best)
        chosen[name] = pick
        report[name] = {"chosen": pick, "cycles": cycles}
    memo[key] = {"values": chosen, "report": report}
    jf.last_tuning = report
    return [_with(s, chosen) for s in specs]


def _with(spec, values):
    if spec.kind == "const" and spec.name in values:
        from ..compiler.driver import ArgSpec
        return ArgSpec(spec.name, "const", value=values[spec.name])
    return spec
