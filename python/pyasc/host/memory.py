"""The simulated device memory (HBM/GM) of the host runtime, and pyasc.memory_allocator.

The model: one Device per target profile, whose GM capacity is the profile's `gm_bytes` key,
read through libasc (compiler.targets.load; nothing here copies a size).  Allocations are
first-fit ranges of the device's address space, each aligned to ALIGN = 64 bytes (the seed
documents' AscendTensor alignment) and rounded up to a multiple of it.  The bytes of an
allocation live in a host buffer owned by the allocation (the simulator's GM is per launch):
an operator's launch binds those buffers as the kernel's GM arguments, the kernel reads and
writes them in the simulator, and the results land back in the allocation, so tensors stay in
"device memory" between operators; only AscendTensor.numpy() copies out.  Addresses are the
runtime's own (the simulator places each launch's arguments itself).
"""
import bisect
import weakref

import numpy as np

from ..compiler import targets
from ..runtime import config
from . import log
from .errors import DeviceMemoryError, human

ALIGN = 64


class Allocation:
    """`nbytes` bytes at device address `addr` (a multiple of ALIGN); `buf` holds them."""

    def __init__(self, device, addr, nbytes, size):
        self.device, self.addr, self.nbytes, self.size = device, addr, nbytes, size
        self.buf = np.zeros(max(size, ALIGN), np.uint8)
        self.freed = False

    def free(self):
        if not self.freed:
            self.freed = True
            self.device.allocator._release(self)


class Allocator:
    """First-fit allocator over [0, capacity); reports allocated and peak bytes."""

    def __init__(self, capacity):
        self.capacity = capacity
        self._starts = []          # sorted starts of live ranges
        self._sizes = {}           # start -> size
        self.allocated_bytes = 0   # sum of the aligned sizes of live allocations
        self.peak_bytes = 0
        self.count = 0

    @property
    def free_bytes(self):
        return self.capacity - self.allocated_bytes

    def _fit(self, size):
        prev = 0
        for s in self._starts:
            if s - prev >= size:
                return prev
            prev = s + self._sizes[s]
        return prev if self.capacity - prev >= size else None

    def alloc(self, device, nbytes):
        size = max(ALIGN, -(-nbytes // ALIGN) * ALIGN)
        addr = self._fit(size)
        if addr is None:
            raise DeviceMemoryError(f"Device memory exceeded (requested {human(nbytes)}, available "
                                    f"{human(self.free_bytes)}) on {device.target}, whose GM is "
                                    f"{human(self.capacity)} (profile key gm_bytes)")
        bisect.insort(self._starts, addr)
        self._sizes[addr] = size
        self.allocated_bytes += size
        self.peak_bytes = max(self.peak_bytes, self.allocated_bytes)
        self.count += 1
        a = Allocation(device, addr, nbytes, size)
        log.debug("alloc %d B at %#x on %s (allocated %d, peak %d)", nbytes, addr, device.target,
                  self.allocated_bytes, self.peak_bytes)
        return a

    def _release(self, a):
        self._starts.remove(a.addr)
        self.allocated_bytes -= self._sizes.pop(a.addr)
        self.count -= 1
        log.debug("free %d B at %#x", a.nbytes, a.addr)


class Device:
    """One simulated card: its profile, GM allocator and (pyasc.host.streams) clocks."""

    def __init__(self, target, rank=None):
        self.target = target
        self.rank = rank           # its rank in a pyasc.distributed process group, else None
        prof = targets.load(target)
        self.profile = prof
        self.allocator = Allocator(prof["gm_bytes"])
        self.timeline = None       # streams.Timeline, made on first use

    def alloc(self, nbytes):
        return self.allocator.alloc(self, nbytes)

    def __repr__(self):
        return f"Device({self.target})" if self.rank is None else f"Device({self.target}, rank {self.rank})"


_devices = {}


def device(target=None):
    """The Device of profile `target` (default: the current platform's target)."""
    target = target or config.get_target()
    d = _devices.get(target)
    if d is None:
        d = _devices[target] = Device(target)
    return d


def allocate(nbytes, target=None):
    """An Allocation freed when `owner` (see AscendTensor) is garbage collected."""
    return device(target).alloc(nbytes)


def attach(owner, alloc):
    weakref.finalize(owner, alloc.free)


class _MemoryAllocator:
    """pyasc.memory_allocator: statistics of the current device's memory."""

    def _a(self):
        return device().allocator

    @property
    def allocated_bytes(self):
        return self._a().allocated_bytes

    @property
    def peak_bytes(self):
        return self._a().peak_bytes

    @property
    def free_bytes(self):
        return self._a().free_bytes

    @property
    def capacity(self):
        return self._a().capacity

    def reset_peak(self):
        a = self._a()
        a.peak_bytes = a.allocated_bytes

    def stats(self):
        a = self._a()
        return {"target": device().target, "allocated_bytes": a.allocated_bytes, "peak_bytes": a.peak_bytes,
                "free_bytes": a.free_bytes, "capacity": a.capacity, "allocations": a.count}

    def __repr__(self):
        s = self.stats()
        return (f"memory_allocator({s['target']}: allocated {human(s['allocated_bytes'])}, peak "
                f"{human(s['peak_bytes'])}, free {human(s['free_bytes'])} of {human(s['capacity'])})")


memory_allocator = _MemoryAllocator()
