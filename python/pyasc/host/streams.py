"""pyasc.stream: streams, events and the model of simulated time across launches.

Each launch is simulated alone (cycles from the simulator).  Across launches the runtime keeps,
per device, a Timeline: every stream has a clock (cycles), every AI core a busy-until time.  A
launch occupies AI cores: an AIC or MIX launch of b blocks takes b AI cores; an AIV launch of b
blocks takes ceil(b / aiv_per_core) AI cores on split targets (profile keys split,
aiv_per_core, ai_cores, read through libasc).  It takes the AI cores that are free earliest
(lowest index first among equals) and starts at the latest of: its stream's clock, the end of
the launches that produced its inputs, and the busy-until of the cores it takes; it ends
`cycles` later.  So launches on one stream never overlap, and launches on two streams overlap
when enough cores are free, on disjoint cores.  Not modelled: contention for HBM bandwidth
between launches that overlap (each was simulated with the whole chip's HBM), and launch
overheads on the host.

The default stream runs each operator at once.  A stream made by create_stream() queues its
operators (the host call returns at once with the output tensor allocated) and runs them when
synchronize() is called on it (or pyasc.stream.synchronize()), when one of its outputs is read
(.numpy()), or when another stream's work needs one of its outputs.  Events: e.record(s) marks
a point in s's queue; s2.wait_event(e) makes s2's later work start after that point in
simulated time.
"""
import contextlib

from . import memory
from .errors import AscendError, KernelLaunchError, StreamError


class Timeline:
    """One device's AI cores (busy-until per core); streams keep one clock per device."""

    def __init__(self, dev):
        self.dev = dev
        p = dev.profile
        self.ai_cores = p["ai_cores"]
        self.aiv_per_core = p["aiv_per_core"] if p["split"] else 1
        self.busy = [0] * self.ai_cores
        self.mhz = p["clock_mhz"]

    def cores_of(self, kind, blocks):
        n = -(-blocks // self.aiv_per_core) if kind == "aiv" else blocks
        return max(1, min(n, self.ai_cores))

    def place(self, stream, kind, blocks, cycles, after=0):
        n = self.cores_of(kind, blocks)
        order = sorted(range(self.ai_cores), key=lambda c: (self.busy[c], c))[:n]
        start = max([stream.clock_on(self.dev), after] + [self.busy[c] for c in order])
        end = start + cycles
        for c in order:
            self.busy[c] = end
        stream.clocks[id(self.dev)] = end
        return start, end, sorted(order)


def timeline(dev=None):
    dev = dev or memory.device()
    if dev.timeline is None:
        dev.timeline = Timeline(dev)
    return dev.timeline


class Pending:
    """One queued operator: its thunk, inputs, outputs; end cycle once run."""

    def __init__(self, stream, run, inputs):
        self.stream, self.run, self.inputs = stream, run, inputs
        self.done = False
        self.end = 0
        self.error = None          # the exception the operator raised: its outputs are poisoned


class Stream:
    """A queue of operators.  Its simulated time is kept per device (`clocks`, keyed by the
    device's id: a stream used on two simulated devices advances on each separately) with a
    floor set by wait_event; `clock` is the latest of them."""

    def __init__(self, immediate=False, index=None):
        self.index = 0 if immediate else index
        self.immediate = immediate
        self.clocks = {}
        self.floor = 0
        self.queue = []

    def clock_on(self, dev):
        return max(self.clocks.get(id(dev), 0), self.floor)

    @property
    def clock(self):
        return max([self.floor] + list(self.clocks.values()))

    def __repr__(self):
        return f"pyasc.Stream({self.index}{', default' if self.immediate else ''}, {len(self.queue)} queued)"

    def submit(self, run, inputs, outputs):
        p = Pending(self, run, inputs)
        for o in outputs:
            o._ready = p
        if self.immediate:
            self._execute(p)
        else:
            self.queue.append(p)
        return p

    def _execute(self, p):
        try:
            after = 0
            for t in p.inputs:
                q = t._ready
                if q is not None and not q.done:
                    q.stream.synchronize(upto=q)
                if q is not None:
                    check(q)
                    after = max(after, q.end)
            p.end = p.run(self, after)
        except Exception as e:
            p.error = e
            raise
        finally:
            p.done = True

    def synchronize(self, upto=None):
        """Run the queued work (up to and including `upto`); returns the stream's clock (cycles)."""
        while self.queue:
            p = self.queue.pop(0)
            self._execute(p)
            if p is upto:
                break
        return self.clock

    def wait_event(self, event):
        if not isinstance(event, Event):
            raise StreamError(f"wait_event needs a pyasc.stream.Event, got {type(event).__name__}")
        self.submit(lambda s, after: _wait(s, event), [], [])

    def __enter__(self):
        _stack.append(self)
        return self

    def __exit__(self, *exc):
        _stack.pop()


def _wait(stream, event):
    if event.stream is None:
        raise StreamError("wait_event on an event that was never recorded")
    if not event._pending.done:
        event.stream.synchronize(upto=event._pending)
    stream.floor = max(stream.floor, event.time)
    return stream.clock


class Event:
    def __init__(self):
        self.stream = None
        self.time = 0
        self._pending = None

    def record(self, stream=None):
        s = stream or current_stream()
        self.stream = s

        def mark(st, after):
            self.time = st.clock
            return st.clock
        self._pending = s.submit(mark, [], [])
        return self

    def synchronize(self):
        if self._pending is not None and not self._pending.done:
            self.stream.synchronize(upto=self._pending)

    def elapsed_us(self, other):
        """Simulated microseconds from this event to `other` (both recorded and done)."""
        self.synchronize()
        other.synchronize()
        return (other.time - self.time) / timeline().mhz


_default = Stream(immediate=True)
_stack = []
_all = []


def create_stream():
    """A new stream; streams are numbered 1, 2, ... in the order they are made (0 is the default)."""
    s = Stream(index=len(_all) + 1)
    _all.append(s)
    return s


def current_stream():
    return _stack[-1] if _stack else _default


def default_stream():
    return _default


@contextlib.contextmanager
def stream(s):
    """with pyasc.stream.stream(s): operators go to s."""
    with s:
        yield s


def synchronize():
    """Run every stream's queued work; returns the latest stream clock (cycles)."""
    for s in list(_all):
        s.synchronize()
    return max([_default.clock] + [s.clock for s in _all])


def check(p):
    """Raise if the operator of Pending p failed (its outputs hold no result)."""
    e = getattr(p, "error", None)
    if e is not None:
        cls = type(e) if isinstance(e, AscendError) else KernelLaunchError
        raise cls(f"this tensor has no value: the operator that produces it failed: "
                  f"{getattr(e, 'message', e)}") from e


def wait_for(t):
    """Run the stream work producing t; raises if that work failed."""
    from . import fusion
    fusion.materialize(t)
    p = getattr(t, "_ready", None)
    if p is not None and not p.done:
        try:
            p.stream.synchronize(upto=p)
        except Exception:
            if p.error is None:
                raise
    if p is not None:
        check(p)
