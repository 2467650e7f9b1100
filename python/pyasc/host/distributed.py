"""pyasc.distributed: N simulated devices in one process, linked by a modelled interconnect,
and ring collectives that compute real results.

Users: `pyasc.distributed.init_process_group(backend="hccl", world_size=N)`, then
`pg.from_numpy(a, rank)` (or `pyasc.distributed.from_numpy`), `all_reduce`, `all_gather`,
`broadcast`, `reduce_scatter` on a list of one tensor per rank (docs/pyasc.md "Several devices"),
tests/python/test_host_distributed.py.

The model.  Each rank is its own memory.Device of the group's profile: its own GM allocator
(profile key gm_bytes) and its own AI cores (streams.Timeline), all on one simulated time axis
that starts at 0.  Rank r is linked to rank (r+1) % N (a ring, the order HCCL's ring algorithm
uses) by one link per direction with the profile keys `link.mbytes_per_s` (rate, MB/s = 10^6
B/s) and `link.latency_ns` (start-up of one transfer), read through libasc
(compiler.targets.load); a transfer of b bytes that is ready at time t starts when the link is
free, keeps it busy for b / rate and arrives `latency` later.  Its bytes are copied from the
sender's allocation into the receiver's (the link's DMA; no kernel runs).

all_reduce (sum) is the ring algorithm: the tensor is cut into N chunks; reduce-scatter runs N-1
steps in which rank r sends its partial sum of one chunk to rank r+1, which adds its own chunk
to it with the kernel library's vadd on its own cores (a real launch: the sum is computed by the
simulator, and its cycles occupy that device's cores); then all-gather runs N-1 steps that
forward the reduced chunks around the ring.  Each chunk moves in `pieces` parts so a piece's
add overlaps the next piece's transfer (as HCCL pipelines a ring step).  Ideal time, the
ring formula: 2 (N-1)/N * S / rate + 2 (N-1) * latency; tests check the simulated time
against it.  all_gather, reduce_scatter and broadcast are the corresponding halves (broadcast:
a pipelined chain from the source around the ring).  Only float16/float32 sums are
supported (the library's vadd).  Not modelled: the links' sharing of HBM bandwidth with kernels
running on the same device, the host's launch overheads, and the 910B server's full mesh (each
card has a link to each of the other 7, docs/sources.md HCCS910B; HCCL can use them all at
once): only the ring's neighbour links carry data, one link's rate each.
"""
import math

import numpy as np

from . import fusion, kernels, memory, ops, profiler, streams
from .errors import AscendError, ShapeError
from .tensor import AscendTensor

PIECE_BYTES = 1 << 20     # a ring step's chunk moves in pieces of at least 1 MB
MAX_PIECES = 8


def _flat(t):
    return t.reshape(-1)


class _Done:
    """A finished streams.Pending stand-in: data ready at simulated cycle `end`."""
    done = True

    def __init__(self, end):
        self.end = end


class ProcessGroup:
    def __init__(self, world_size, target, backend):
        from ..compiler import targets
        from ..runtime import config
        self.backend = backend
        self.target = target or config.get_target()
        self.world_size = world_size
        self.devices = [memory.Device(self.target, rank=r) for r in range(world_size)]
        p = targets.load(self.target)
        self.mhz = p["clock_mhz"]
        self.link_mbytes_per_s = p["link.mbytes_per_s"]
        self.link_latency_ns = p["link.latency_ns"]
        self.latency_cycles = math.ceil(self.link_latency_ns * self.mhz / 1000)
        self._link_busy = {}           # (src, dst) -> cycle the link is free
        self.last = None               # timing of the last collective (dict)

    def __repr__(self):
        return (f"ProcessGroup({self.backend}, world_size={self.world_size}, {self.target}, link "
                f"{self.link_mbytes_per_s} MB/s, {self.link_latency_ns} ns)")

    # ---- tensors ------------------------------------------------------------------------
    def from_numpy(self, a, rank):
        return AscendTensor.from_numpy(a, device=self.device(rank))

    def device(self, rank):
        if not isinstance(rank, (int, np.integer)) or not 0 <= rank < self.world_size:
            raise AscendError(f"pyasc.distributed: rank {rank!r} is not in [0, {self.world_size})")
        return self.devices[rank]

    # ---- the link model -----------------------------------------------------------------
    def transfer_cycles(self, nbytes):
        return math.ceil(nbytes * self.mhz / self.link_mbytes_per_s)

    def _send(self, src, dst, src_buf, dst_buf, ready, what):
        """Copy src_buf (rank src) into dst_buf (rank dst); returns the arrival cycle."""
        key = (src, dst)
        start = max(ready, self._link_busy.get(key, 0))
        busy = self.transfer_cycles(src_buf.nbytes)
        self._link_busy[key] = start + busy
        dst_buf[...] = src_buf
        arrive = start + busy + self.latency_cycles
        profiler.span(what, src, f"link {src}->{dst}", start, arrive, self.mhz,
                      {"bytes": int(src_buf.nbytes), "link_busy_cycles": busy})
        return arrive

    def ring_formula_us(self, nbytes, kind="all_reduce"):
        """The ideal ring time in microseconds for a tensor of `nbytes` per rank."""
        n = self.world_size
        steps = {"all_reduce": 2 * (n - 1), "all_gather": n - 1, "reduce_scatter": n - 1}[kind]
        return steps * (nbytes / n / (self.link_mbytes_per_s * 1e6) * 1e6 + self.link_latency_ns / 1000)

    # ---- collectives --------------------------------------------------------------------
    def _check(self, op, tensors, same_shape=True):
        if not isinstance(tensors, (list, tuple)) or len(tensors) != self.world_size:
            raise AscendError(f"pyasc.distributed.{op}: needs a list of {self.world_size} tensors (one per "
                              f"rank), got {type(tensors).__name__}"
                              + (f" of {len(tensors)}" if isinstance(tensors, (list, tuple)) else ""))
        for r, t in enumerate(tensors):
            if not isinstance(t, AscendTensor):
                raise AscendError(f"pyasc.distributed.{op}: tensor {r} is a {type(t).__name__}, not an AscendTensor")
            t._check_alive()
            if t.device is not self.devices[r]:
                raise AscendError(f"pyasc.distributed.{op}: tensor {r} lives on {t.device}, not on rank {r}")
            if not t.is_contiguous():
                raise AscendError(f"pyasc.distributed.{op}: tensor {r} is a strided view; make it contiguous")
            streams.wait_for(t)
            if same_shape and (t.shape != tensors[0].shape or t.dtype != tensors[0].dtype):
                raise ShapeError(f"pyasc.distributed.{op}: tensor {r} ({t.dtype.name}{list(t.shape)}) differs "
                                 f"from tensor 0 ({tensors[0].dtype.name}{list(tensors[0].shape)})")
        if op in ("all_reduce", "reduce_scatter") and tensors[0].dtype not in (np.dtype(np.float16),
                                                                               np.dtype(np.float32)):
            raise AscendError(f"pyasc.distributed.{op}: sums float16/float32 (the kernel library's vadd), "
                              f"got {tensors[0].dtype.name}")

    def _start(self, tensors):
        d = streams.default_stream()
        return max(max(d.clock_on(t.device), getattr(t._ready, "end", 0) or 0) for t in tensors)

    def _finish(self, op, nbytes, start, ends, results):
        d = streams.default_stream()
        for r, dev in enumerate(self.devices):
            d.clocks[id(dev)] = max(d.clock_on(dev), ends[r])
        for r, t in enumerate(results):
            if t is not None:
                t._ready = _Done(ends[r])
        end = max(ends)
        self.last = {"op": op, "bytes": nbytes, "world_size": self.world_size, "start_cycle": start,
                     "end_cycle": end, "cycles": end - start, "microseconds": (end - start) / self.mhz}
        return self.last

    def _pieces(self, lo, hi, itemsize):
        n = hi - lo
        p = max(1, min(MAX_PIECES, n * itemsize // PIECE_BYTES))
        b = [lo + (n * i) // p for i in range(p + 1)]
        return list(zip(b[:-1], b[1:]))

    def _chunks(self, n):
        w = self.world_size
        b = [(n * i) // w for i in range(w + 1)]
        return list(zip(b[:-1], b[1:]))

    def _add(self, rank, recv, mine, out, after):
        """out = recv + mine on rank's cores (a vadd launch after cycle `after`); returns its end."""
        ew = kernels.library("elementwise")
        recv._ready = _Done(after)
        dev = self.devices[rank]
        with streams.default_stream():
            p = ops.launch("hccl.add", ew.ew_kernel, [recv, mine], [out],
                           lambda **o: ew.vadd(recv._flat(), mine._flat(), out=out._flat(), target=dev.target,
                                               **o))
        return p.end

    def _reduce_scatter(self, tensors, results, start):
        """Ring reduce-scatter: at step k rank r sends its partial sum of chunk (r - 1 - k) % N to
        rank r + 1, which adds its own part; afterwards results[r] holds the full sum of chunk r.
        Returns (chunks, pieces, ready): ready[r][(chunk, piece)] = cycle r's data is ready."""
        n = self.world_size
        flat = [t._flat() for t in tensors]
        res = [t._flat() for t in results]
        dt, it = tensors[0].dtype, tensors[0].dtype.itemsize
        chunks = self._chunks(flat[0].size)
        pieces = {c: self._pieces(lo, hi, it) for c, (lo, hi) in enumerate(chunks)}
        ready = [{} for _ in range(n)]            # ready[r][(c, j)] cycle of r's partial piece
        for r in range(n):
            for c in range(n):
                for j in range(len(pieces[c])):
                    ready[r][(c, j)] = start
        recv = [None] * n
        for k in range(n - 1):
            for r in range(n):
                c = (r - 1 - k) % n                # r sends chunk c (its partial sum) to r+1
                dst = (r + 1) % n
                for j, (lo, hi) in enumerate(pieces[c]):
                    src_buf = flat[r][lo:hi] if k == 0 else res[r][lo:hi]
                    if recv[dst] is None or recv[dst].size < hi - lo:
                        recv[dst] = AscendTensor.empty((max(hi - lo, 1),), dt, device=self.devices[dst])
                    rv = recv[dst][:hi - lo]
                    arrive = self._send(r, dst, src_buf, rv._flat(), ready[r][(c, j)], "reduce_scatter")
                    ready[dst][(c, j)] = self._add(dst, rv, _flat(tensors[dst])[lo:hi],
                                                   _flat(results[dst])[lo:hi], arrive)
        return chunks, pieces, ready

    def _all_gather_ring(self, results, chunks, pieces, ready, owner_chunk):
        """Forward each rank's owned chunk around the ring into every rank's results."""
        n = self.world_size
        res = [t._flat() for t in results]
        ends = [0] * n
        for k in range(n - 1):
            for r in range(n):
                c = (owner_chunk(r) - k) % n
                dst = (r + 1) % n
                for j, (lo, hi) in enumerate(pieces[c]):
                    ready[dst][(c, j)] = self._send(r, dst, res[r][lo:hi], res[dst][lo:hi],
                                                    ready[r][(c, j)], "all_gather")
        for r in range(n):
            ends[r] = max(ready[r].values())
        return ends

    def all_reduce(self, tensors, op="sum"):
        """Sum the ranks' tensors in place (every tensor becomes the sum); returns the timing."""
        if op != "sum":
            raise AscendError(f"pyasc.distributed.all_reduce: op {op!r} has no kernel (sum only)")
        self._check("all_reduce", tensors)
        # in place: work still queued on a stream or pending in a pyasc.fuse() group may read these
        # tensors' memory (z = t * 2, not yet run); it runs first, else it would read the new values
        fusion.flush_all()
        streams.synchronize()
        t0 = tensors[0]
        start = self._start(tensors)
        results = [AscendTensor.empty(t0.shape, t0.dtype, device=d) for d in self.devices]
        if self.world_size == 1:
            results[0]._flat()[...] = t0._flat()
            ends = [start]
        else:
            chunks, pieces, ready = self._reduce_scatter(tensors, results, start)
            ends = self._all_gather_ring(results, chunks, pieces, ready, lambda r: r)
        for t, r in zip(tensors, results):
            # in place, into the tensor's own memory: a tensor that is a view of a larger one (and
            # every other view of that memory) sees the sum.  (Taking the result's allocation
            # instead left the base tensor and earlier views with the old values, silently.)
            t._flat()[...] = r._flat()
        return self._finish("all_reduce", t0.nbytes, start, ends, tensors)

    def reduce_scatter(self, tensors, op="sum"):
        """Rank r gets the sum of chunk r (the tensors cut along the flat order into N near-equal
        parts); returns the list of the N result tensors (1-D)."""
        if op != "sum":
            raise AscendError(f"pyasc.distributed.reduce_scatter: op {op!r} has no kernel (sum only)")
        self._check("reduce_scatter", tensors)
        t0 = tensors[0]
        n = self.world_size
        start = self._start(tensors)
        results = [AscendTensor.empty(t0.shape, t0.dtype, device=d) for d in self.devices]
        if n == 1:
            results[0]._flat()[...] = t0._flat()
            ends, chunks = [start], [(0, t0.size)]
        else:
            chunks, pieces, ready = self._reduce_scatter(tensors, results, start)
            ends = [max(v for (c, _), v in ready[r].items() if c == r) for r in range(n)]
        out = [_flat(results[r])[lo:hi] for r, (lo, hi) in enumerate(chunks)]
        self._finish("reduce_scatter", t0.nbytes, start, ends, out)
        return out

    def all_gather(self, tensors):
        """Every rank gets the concatenation (along axis 0) of the ranks' tensors."""
        self._check("all_gather", tensors)
        t0 = tensors[0]
        n = self.world_size
        start = self._start(tensors)
        shape = (n * t0.shape[0],) + t0.shape[1:] if t0.ndim else (n,)
        results = [AscendTensor.empty(shape, t0.dtype, device=d) for d in self.devices]
        m = t0.size
        chunks = [(r * m, (r + 1) * m) for r in range(n)]
        pieces = {c: self._pieces(lo, hi, t0.dtype.itemsize) for c, (lo, hi) in enumerate(chunks)}
        ready = [{} for _ in range(n)]
        for r in range(n):
            lo, hi = chunks[r]
            results[r]._flat()[lo:hi] = tensors[r]._flat()          # its own part: a local copy
            for j in range(len(pieces[r])):
                ready[r][(r, j)] = start
        ends = self._all_gather_ring(results, chunks, pieces, ready, lambda r: r) if n > 1 else [start]
        self._finish("all_gather", t0.nbytes * n, start, ends, results)
        return results

    def broadcast(self, tensors, src=0):
        """Every rank's tensor becomes rank src's (in place): a pipelined chain around the ring."""
        self._check("broadcast", tensors)
        # in place: work still queued on a stream or pending in a pyasc.fuse() group may read these
        # tensors' memory (z = t * 2, not yet run); it runs first, else it would read the new values
        fusion.flush_all()
        streams.synchronize()
        self.device(src)
        n = self.world_size
        start = self._start(tensors)
        flat = [t._flat() for t in tensors]
        pieces = self._pieces(0, flat[0].size, tensors[0].dtype.itemsize)
        ready = {(src, j): start for j in range(len(pieces))}
        ends = [start] * n
        for k in range(n - 1):
            r = (src + k) % n
            dst = (r + 1) % n
            for j, (lo, hi) in enumerate(pieces):
                ready[(dst, j)] = self._send(r, dst, flat[r][lo:hi], flat[dst][lo:hi], ready[(r, j)], "broadcast")
            ends[dst] = max(ready[(dst, j)] for j in range(len(pieces)))
        return self._finish("broadcast", tensors[0].nbytes, start, ends, tensors)


_group = None


def init_process_group(backend="hccl", world_size=1, target=None):
    """Simulate `world_size` devices of profile `target` (default: the current platform's)."""
    global _group
    if backend != "hccl":
        raise AscendError(f"pyasc.distributed.init_process_group: backend {backend!r} is not simulated "
                          f"(only 'hccl')")
    if not isinstance(world_size, int) or world_size < 1:
        raise AscendError(f"pyasc.distributed.init_process_group: world_size must be an int >= 1, got {world_size!r}")
    _group = ProcessGroup(world_size, target, backend)
    return _group


def _pg():
    if _group is None:
        raise AscendError("pyasc.distributed: call init_process_group(backend='hccl', world_size=N) first")
    return _group


def get_world_size():
    return _pg().world_size


def destroy_process_group():
    global _group
    _group = None


def is_initialized():
    return _group is not None


def from_numpy(a, rank):
    return _pg().from_numpy(a, rank)


def all_reduce(tensors, op="sum"):
    return _pg().all_reduce(tensors, op)


def all_gather(tensors):
    return _pg().all_gather(tensors)


def broadcast(tensors, src=0):
    return _pg().broadcast(tensors, src)


def reduce_scatter(tensors, op="sum"):
    return _pg().reduce_scatter(tensors, op)
