"""pyasc.AscendTensor: an n-d array in the simulated device memory (pyasc.host.memory).

A tensor is (allocation, byte offset, shape, element strides, dtype).  Slicing with basic
indexes (ints, slices, None, Ellipsis) gives a view sharing the allocation; operators need
contiguous operands and make a contiguous device copy of a strided view with the gather kernel
(pyasc.host.kernels).  Data moves host -> device only in from_numpy/zeros/ones/randn (which fill
on the host and upload: they are inputs, not results) and device -> host only in .numpy().
"""
import operator

import numpy as np

from . import memory
from .errors import AscendError, DeviceMemoryError, ShapeError


class AscendTensor:
    __array_priority__ = 1000      # numpy defers a + t, a * t to AscendTensor

    def __init__(self, alloc, shape, dtype, offset=0, strides=None):
        self._alloc = alloc
        self._shape = tuple(int(s) for s in shape)
        self._dtype = _device_dtype(dtype)
        self._offset = offset                      # bytes from the allocation's start
        self._strides = tuple(strides) if strides is not None else _contig(self._shape)
        self._pinned = False
        self._ready = None                         # streams.Pending of the op producing it

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def empty(cls, shape, dtype=np.float32, target=None, device=None):
        """device: a memory.Device (a rank of pyasc.distributed); else the profile's device."""
        shape = _shape(shape)
        dtype = _device_dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        a = device.alloc(n) if device is not None else memory.allocate(n, target)
        t = cls(a, shape, dtype)
        memory.attach(t, a)
        return t

    @classmethod
    def from_numpy(cls, a, target=None, device=None):
        """A new device tensor holding a copy of numpy array `a` (64-byte aligned allocation)."""
        a = np.asarray(a)
        if a.dtype == object or a.dtype.kind not in "biuf":
            raise AscendError(f"from_numpy: dtype {a.dtype} cannot be placed in device memory")
        t = cls.empty(a.shape, a.dtype, target, device)
        t._host_view()[...] = a        # a big-endian array's values, converted to little-endian
        return t

    # ---- properties -----------------------------------------------------------------------
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ndim = property(lambda self: len(self._shape))
    size = property(lambda self: int(np.prod(self._shape, dtype=np.int64)))
    nbytes = property(lambda self: self.size * self._dtype.itemsize)
    device = property(lambda self: self._alloc.device)

    @property
    def data_ptr(self):
        """The device address of element 0 (allocation address + view offset)."""
        return self._alloc.addr + self._offset

    def is_contiguous(self):
        return self._strides == _contig(self._shape) or self.size <= 1

    def pin_memory(self):
        """Marks the tensor pinned and returns it.  The model does not time host<->device copies
        (they are not launches), so pinning changes no figure; it exists for API parity."""
        self._pinned = True
        return self

    def is_pinned(self):
        return self._pinned

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __repr__(self):
        md = self._dtype.metadata or {}
        return (f"AscendTensor(shape={self._shape}, dtype={md.get('pyasc', self._dtype.name)}, device={self.device.target}, "
                f"addr={self.data_ptr:#x})")

    # ---- device <-> host --------------------------------------------------------------------
    def _check_alive(self):
        if self._alloc.freed:
            raise DeviceMemoryError("the tensor's device memory was freed")

    def _host_view(self):
        """numpy view of the bytes in the allocation (no copy); internal."""
        self._check_alive()
        it = self._dtype.itemsize
        base = self._alloc.buf
        return np.lib.stride_tricks.as_strided(base[self._offset:].view(self._dtype) if self.size else
                                               base[:it].view(self._dtype),
                                               self._shape, tuple(s * it for s in self._strides))

    def _flat(self):
        """The contiguous tensor's elements as a flat numpy view of device memory (kernel argument)."""
        assert self.is_contiguous()
        self._check_alive()
        n = self.nbytes
        return self._alloc.buf[self._offset:self._offset + n].view(self._dtype)

    def numpy(self):
        """A numpy copy (waits for the stream work producing this tensor)."""
        from . import streams
        streams.wait_for(self)
        return np.array(self._host_view(), copy=True)

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        return self.numpy().item()

    # ---- views ----------------------------------------------------------------------------
    def __getitem__(self, key):
        """Basic indexing gives a view of the same device memory; other indexing is an error."""
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            # a bool is numpy's boolean (advanced) index, not the int 0/1: t[1, True] gave a wrong view
            if not (k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer))) or isinstance(k, bool):
                raise AscendError(f"AscendTensor indexing takes ints, slices, None and ...; got "
                                  f"{type(k).__name__} (advanced indexing has no device kernel)")
        it = self._dtype.itemsize
        proto = np.lib.stride_tricks.as_strided(np.zeros(1, self._dtype), self._shape,
                                                tuple(s * it for s in self._strides))
        # with an Ellipsis numpy gives a (0-d) view even when every axis has an integer index;
        # without one it gives a scalar copy, whose address is not in proto's memory
        v = proto[keys if any(k is Ellipsis for k in keys) else keys + (Ellipsis,)]
        off = v.__array_interface__["data"][0] - proto.__array_interface__["data"][0] if v.size else 0
        t = AscendTensor(self._alloc, v.shape, self._dtype, self._offset + off, tuple(s // it for s in v.strides))
        t._base = self
        t._ready = self._ready
        return t

    def reshape(self, *shape):
        shape = _shape(shape[0] if len(shape) == 1 else shape, reshape=True)
        if shape.count(-1) > 1 or any(s < -1 for s in shape):
            raise ShapeError(f"reshape: {shape} may have one -1 and no other negative size")
        if -1 in shape:
            known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
            if known == 0 or self.size % known:     # numpy: -1 is undefined next to a 0 size
                raise ShapeError(f"reshape: cannot reshape {self._shape} ({self.size} elements) to {shape}")
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        if int(np.prod(shape, dtype=np.int64)) != self.size:
            raise ShapeError(f"reshape: cannot reshape {self._shape} ({self.size} elements) to {shape}")
        src = self if self.is_contiguous() else self.contiguous()
        t = AscendTensor(src._alloc, shape, self._dtype, src._offset)
        t._base = src
        t._ready = src._ready
        return t

    view = reshape

    def flatten(self):
        return self.reshape(-1)

    def contiguous(self):
        if self.is_contiguous():
            return self
        from . import ops
        return ops.contiguous(self)

    # ---- operators ------------------------------------------------------------------------
    def __add__(self, o):
        from . import ops
        return ops.add(self, o)

    def __radd__(self, o):
        from . import ops
        return ops.add(o, self)

    def __sub__(self, o):
        from . import ops
        return ops.sub(self, o)

    def __rsub__(self, o):
        from . import ops
        return ops.sub(o, self)

    def __mul__(self, o):
        from . import ops
        return ops.mul(self, o)

    def __rmul__(self, o):
        from . import ops
        return ops.mul(o, self)

    def __truediv__(self, o):
        from . import ops
        return ops.div(self, o)

    def __rtruediv__(self, o):
        from . import ops
        return ops.div(o, self)

    def __matmul__(self, o):
        from . import ops
        return ops.matmul(self, o)

    def __neg__(self):
        from . import ops
        return ops.mul(self, -1.0)


def _device_dtype(dtype):
    """The dtype a tensor holds in device memory: the device is little-endian, so a big-endian
    numpy dtype ('>f4') is taken as its little-endian twin (from_numpy converts the values; the
    bytes as given would read as other numbers)."""
    dtype = np.dtype(dtype)
    return dtype.newbyteorder("<") if dtype.byteorder == ">" else dtype


def _contig(shape):
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


def _shape(shape, reshape=False):
    """A shape as numpy takes one: an integer or a sequence of integers (operator.index, so a
    float or a str is an error, never truncated: (2.5, 3) is not (2, 3)), none negative (reshape:
    -1 may stand for one size, which reshape checks)."""
    try:
        dims = (operator.index(shape),)
    except TypeError:
        try:
            dims = tuple(operator.index(s) for s in shape)
        except TypeError:
            raise ShapeError(f"a shape is an integer or a sequence of integers, got {shape!r}") from None
    if not reshape and any(d < 0 for d in dims):
        raise ShapeError(f"negative dimensions are not allowed, got the shape {dims}")
    return dims


def from_numpy(a, target=None):
    return AscendTensor.from_numpy(a, target)


def empty(shape, dtype=np.float32, target=None):
    """Uninitialised in the API's sense; the model's memory is zero-filled."""
    return AscendTensor.empty(shape, dtype, target)


def zeros(shape, dtype=np.float32, target=None):
    return AscendTensor.empty(shape, dtype, target)


def ones(shape, dtype=np.float32, target=None):
    t = AscendTensor.empty(shape, dtype, target)
    t._host_view()[...] = 1
    return t


def full(shape, value, dtype=np.float32, target=None, device=None):
    t = AscendTensor.empty(shape, dtype, target, device)
    t._host_view()[...] = value
    return t


def randn(*shape, dtype=np.float32, seed=None, target=None):
    """Standard normal samples drawn on the host (numpy default_rng(seed)) and uploaded."""
    shape = _shape(shape[0] if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)) else shape)
    t = AscendTensor.empty(shape, dtype, target)
    t._host_view()[...] = np.random.default_rng(seed).standard_normal(shape)
    return t


def numpy(t):
    """pyasc.utils.numpy(t): t as a numpy array (a copy for a device tensor)."""
    if isinstance(t, AscendTensor):
        return t.numpy()
    return np.asarray(t)
