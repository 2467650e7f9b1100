"""pyasc.profiler: per-operator cycles and microseconds between start() and stop(), an op summary
table in the manner of msprof's op_summary (one row per launch: Op Name, kernel, stream, block
dim, start, task duration), and one combined Chrome/Perfetto trace of every launch.

While profiling each launch writes its own simulator trace (docs/traces.md) to a temporary
directory; stop() merges them: every event of launch k is shifted by the launch's start in the
simulated timeline (pyasc.host.streams) and its processes renamed "op<k> <name> <core...>"
with their own pids, plus a process "operators" whose threads are the streams and whose slices
are the operators.  The result opens in asc-viz, Perfetto and chrome://tracing.
"""
import json
import os
import shutil
import tempfile

from . import log


class Record:
    def __init__(self, index, op, kernel, stream, blocks, kind, cycles, start, end, mhz, cores, trace):
        self.index, self.op, self.kernel, self.stream = index, op, kernel, stream
        self.blocks, self.kind, self.cycles, self.start, self.end = blocks, kind, cycles, start, end
        self.mhz, self.cores, self.trace = mhz, cores, trace

    @property
    def microseconds(self):
        return self.cycles / self.mhz

    def __repr__(self):
        return f"<op {self.index} {self.op}: {self.cycles} cycles on stream {self.stream}>"


class Profile:
    """What stop() returns: .records, .table(), .trace_path, .total_cycles()."""

    def __init__(self, records, trace_path):
        self.records, self.trace_path = records, trace_path

    def table(self):
        head = ("Op Name", "Kernel", "Stream", "Block Dim", "Start(us)", "Cycles", "Task Duration(us)")
        rows = [(r.op, r.kernel, str(r.stream), str(r.blocks), f"{r.start / r.mhz:.3f}", str(r.cycles),
                 f"{r.microseconds:.3f}") for r in self.records]
        w = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
        line = lambda cells: "  ".join(c.ljust(w[i]) if i < 3 else c.rjust(w[i]) for i, c in enumerate(cells))
        out = [line(head), line(["-" * x for x in w])] + [line(r) for r in rows]
        tot = sum(r.cycles for r in self.records)
        mhz = self.records[0].mhz if self.records else 1
        out.append(f"{len(self.records)} launches, {tot} cycles, {tot / mhz:.3f} us of kernel time")
        return "\n".join(out)

    def total_cycles(self):
        return sum(r.cycles for r in self.records)

    def __str__(self):
        return self.table()


class _State:
    active = False
    records = []
    spans = []
    kernel_traces = True
    tmp = None
    last = None


_s = _State()


def start(kernel_traces=True):
    """Begin profiling.  kernel_traces=False records the operators (table, operator slices of
    the combined trace) without each launch's instruction-level simulator trace, which for a
    scalar-heavy kernel is large (conv2d's img2col at 1x64x56x56 writes several GB)."""
    if _s.active:
        return
    _s.active = True
    _s.kernel_traces = bool(kernel_traces)
    _s.records = []
    _s.spans = []
    _s.tmp = tempfile.mkdtemp(prefix="pyasc-prof-")
    log.debug("profiler started (per-launch traces in %s)", _s.tmp)


def is_active():
    return _s.active


def trace_path():
    """Where the next launch writes its trace while profiling, else None."""
    if not _s.active or not _s.kernel_traces:
        return None
    return os.path.join(_s.tmp, f"op{len(_s.records):05d}.json")


def span(name, device, lane, start_cycle, end_cycle, mhz, args=None):
    """A slice that is not a launch (a link transfer of pyasc.distributed): on device `device`'s
    process in the combined trace, thread `lane`."""
    if _s.active:
        _s.spans.append((name, device, lane, start_cycle, end_cycle, mhz, dict(args or {})))


def record(op, res, stream, start_cycle, end_cycle, cores, trace, device=None):
    if not _s.active:
        return None
    rep = json.loads(res.report_json) if res.report_json else {}
    r = Record(len(_s.records), op, res.kernel, stream, rep.get("blocks", 0), rep.get("kind", "?"),
               res.cycles, start_cycle, end_cycle, rep.get("clock_mhz") or res._mhz, cores, trace)
    r.device = device
    r.gm_bytes = sum(v for k, v in (rep.get("bytes") or {}).items() if "GM" in k)
    _s.records.append(r)
    return r


def stop(trace="pyasc_trace.json", print_table=True):
    """End profiling; writes the combined trace to `trace` (None: no file), prints the table
    (print_table) and returns a Profile."""
    from . import streams
    streams.synchronize()
    _s.active = False
    recs = list(_s.records)
    path = None
    if trace:
        path = os.path.abspath(trace)
        _combine(recs, path, list(_s.spans))
    shutil.rmtree(_s.tmp, ignore_errors=True)
    p = Profile(recs, path)
    _s.last = p
    if print_table:
        print(p.table())
    return p


def _opid(device):
    """The process of a device's operators: pid 1 for the default device, 2 + rank for rank's."""
    return 1 if device is None else 2 + device


def _combine(recs, path, spans=()):
    ev = []
    procs = set()

    def proc(device):
        pid = _opid(device)
        if pid not in procs:
            procs.add(pid)
            name = "operators" if device is None else f"device {device} (rank {device}) operators"
            ev.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})
            ev.append({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid - 1}})
        return pid
    proc(None)
    streams_seen = set()
    for r in recs:
        pid = proc(getattr(r, "device", None))
        if (pid, r.stream) not in streams_seen:
            streams_seen.add((pid, r.stream))
            ev.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": r.stream,
                       "args": {"name": f"stream {r.stream}"}})
        ev.append({"name": r.op, "ph": "X", "pid": pid, "tid": r.stream, "ts": round(r.start / r.mhz, 6),
                   "dur": round(r.cycles / r.mhz, 6),
                   "args": {"kernel": r.kernel, "start_cycle": r.start, "end_cycle": r.end, "cycles": r.cycles,
                            "blocks": r.blocks, "ai_cores": r.cores}})
    lanes = {}
    for name, device, lane, start, end, mhz, args in spans:
        pid = proc(device)
        if (pid, lane) not in lanes:
            lanes[(pid, lane)] = 100 + len([k for k in lanes if k[0] == pid])
            ev.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": lanes[(pid, lane)],
                       "args": {"name": lane}})
        args = dict(args, start_cycle=start, end_cycle=end)
        ev.append({"name": name, "ph": "X", "pid": pid, "tid": lanes[(pid, lane)], "ts": round(start / mhz, 6),
                   "dur": round((end - start) / mhz, 6), "args": args})
    for r in recs:
        if r.trace is None:
            continue
        try:
            with open(r.trace, encoding="utf-8") as f:
                tr = json.load(f)
        except (OSError, ValueError):
            continue
        base = 1000 * (r.index + 1)
        shift = r.start / r.mhz
        for e in tr.get("traceEvents", []):
            e = dict(e)
            if "pid" in e:
                e["pid"] = base + e["pid"]
            if "ts" in e:
                e["ts"] = round(e["ts"] + shift, 6)
            if "id" in e:
                e["id"] = f"op{r.index}_{e['id']}"
            if e.get("ph") == "M" and e["name"] == "process_name":
                e["args"] = {"name": f"op{r.index} {r.op} {e['args'].get('name', '')}"}
            if e.get("ph") == "M" and e["name"] == "process_sort_index":
                e["args"] = {"sort_index": base + e["args"].get("sort_index", 0)}
            if isinstance(e.get("args"), dict) and "start_cycle" in e["args"]:
                a = dict(e["args"])
                for k in ("start_cycle", "end_cycle", "done_cycle"):
                    if k in a and isinstance(a[k], int):
                        a[k] += r.start
                e["args"] = a
            ev.append(e)
    mhz = recs[0].mhz if recs else 1
    out = {"schemaVersion": 2, "displayTimeUnit": "ns", "profilingType": "op",
           "otherData": {"tool": "pyasc.profiler", "clock_mhz": mhz, "launches": len(recs),
                         "total_cycles": max([r.end for r in recs] or [0])},
           "traceEvents": ev}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, separators=(",", ":"))
