"""ListTensorDesc / TensorDesc: a kernel's view of a GM tensor list (the descriptor the framework
passes for an operator's dynamic inputs), read with scalar GM loads (ld.d) as on the card.

Layout, as Ascend C decodes it (cannmirror/asc-devkit impl/basic_api/dav_c220/
kernel_operator_list_tensor_impl.h, ListTensorDecode / GetDesc / GetDataPtr), in 64-bit words from
the descriptor's start `data`:

  word 0                 data_ptr_offset: bytes from `data` to the data-pointer array
  word 1 + i*S           dim | i << 32      (S = 1 + dim words per tensor; dim = 0: S = 2, no shapes)
  word 2 + i*S ..        the dim extents of tensor i
  data_ptr_offset/8 + i  GM address of tensor i's data

dim is read from the first record (every tensor of a list has the same rank); the count is the
first record's high half when it is non-zero, else the last record's index + 1 (the record just
before the pointers).  pyasc.runtime.tensor_list builds this layout on the host: pass a Python list
of numpy arrays for a GlobalAddress argument.

TensorDesc.set_shape_addr takes the GM byte address (an int, a run-time int such as
GlobalTensor.get_phy_addr(), or a GlobalAddress) of `dim` uint64 words; get_desc copies the extents
there with scalar loads and stores, as GetShape does into its uint64_t array, and get_shape reads
them back.  Ascend C's ASSERTs on a malformed descriptor (length, shape_size) are debug checks
compiled out on the card; they are not checked here either."""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import GmPtr, RVal
from ..compiler.errors import CompileError
from . import dtype as dt
from .tensor import GlobalTensor, _outside_jit, tensor_type_name


def _ld(b, addr):
    """The 64-bit GM word at byte address addr (scalar ld.d)."""
    r = b.new_value()
    b.emit(ir.Op("ld", r, [b.reg(addr)], {"mnem": "ld.d"}))
    return RVal(b, r)


def _st(b, addr, value):
    b.emit(ir.Op("st", None, [b.reg(value), b.reg(addr)], {"mnem": "st.d"}))


def _index(b, what, x):
    if isinstance(x, RVal) and x.ty == "i64":
        return x
    if isinstance(x, int) and not isinstance(x, bool) and x >= 0:
        return x
    got = f"{type(x).__name__} {x!r}" if isinstance(x, (int, float)) else tensor_type_name(x)
    raise CompileError(f"{what} must be a non-negative integer, got {got}", b.loc)


def _gm_address(b, what, x):
    """A GM byte address from a GlobalAddress (GmPtr), a GlobalTensor or an integer."""
    if isinstance(x, GmPtr):
        return x.base
    if isinstance(x, GlobalTensor):
        return x.get_phy_addr()
    if isinstance(x, RVal) and x.ty == "i64" or isinstance(x, int) and not isinstance(x, bool):
        return x
    raise CompileError(f"{what} must be a GM address (a GlobalAddress, a GlobalTensor or an integer), "
                       f"got {tensor_type_name(x)}", b.loc)


class TensorDesc:
    """One tensor of a list: rank, index in the list, extents and data address (TensorDescImpl)."""
    _asc_builder = _asc_mutable = True   # see compiler.frontend

    def __init__(self, dtype=dt.float32, *, _b=None):
        if _b is None:
            raise _outside_jit()
        if not isinstance(dtype, dt.DataType):
            raise CompileError("asc.TensorDesc(dtype): dtype must be an asc dtype", _b.loc)
        self.b, self.dtype = _b, dtype
        self.dim = self.index = self.ptr = self.shape_addr = None

    def _asc_type_name(self):
        return f"TensorDesc[{self.dtype.name}]"

    def _filled(self, what):
        if self.ptr is None:
            raise CompileError(f"TensorDesc.{what} before ListTensorDesc.get_desc filled it", self.b.loc)

    def set_shape_addr(self, shape_ptr):
        self.shape_addr = _gm_address(self.b, "TensorDesc.set_shape_addr: shape_ptr", shape_ptr)

    def get_dim(self):
        self._filled("get_dim")
        return self.dim

    def get_index(self):
        self._filled("get_index")
        return self.index

    def get_shape(self, offset):
        self._filled("get_shape")
        off = _index(self.b, "TensorDesc.get_shape: offset", offset)
        return _ld(self.b, self.shape_addr + off * 8)

    def get_data_ptr(self):
        self._filled("get_data_ptr")
        return GmPtr(self.ptr, self.dtype)

    def get_data_obj(self):
        """A GlobalTensor on the data; its size is sizeof(T) * the product of the extents, as
        GetDataObj computes it (bytes, though SetGlobalBuffer counts elements there)."""
        self._filled("get_data_obj")
        b = self.b
        g = GlobalTensor(self.dtype, _b=b)
        g.set_global_buffer(GmPtr(self.ptr, self.dtype))
        g.size = None      # a run-time product: no static bound to check against
        return g


class ListTensorDesc:
    """The decoded header of a GM tensor list (ListTensorDescImpl)."""
    _asc_builder = _asc_mutable = True   # see compiler.frontend

    def __init__(self, data=None, length=0xffffffff, shape_size=0xffffffff, *, _b=None):
        if _b is None:
            raise _outside_jit()
        self.b = _b
        self.base = None
        if data is not None:
            self.init(data, length, shape_size)

    def _asc_type_name(self):
        return "ListTensorDesc"

    def init(self, data, length=0xffffffff, shape_size=0xffffffff):
        b = self.b
        for what, v in (("length", length), ("shape_size", shape_size)):
            if not (isinstance(v, RVal) and v.ty == "i64" or isinstance(v, int) and not isinstance(v, bool)):
                raise CompileError(f"ListTensorDesc.init: {what} must be an integer, got {tensor_type_name(v)}",
                                   b.loc)
        head = _gm_address(b, "ListTensorDesc.init: data", data)
        off = _ld(b, head)
        rec0 = _ld(b, head + 8)
        self.base = head
        self.shapes = head + 8                                    # shapeStart_
        self.ptrs = head + b.binop("and", off, -8)                # dataPtr_ = data + off / 8 words
        self.dim = b.binop("and", rec0, 0xffffffff)
        hi = b.binop("shr", rec0, 32)
        zero_dim = b.materialize(b.compare("eq", self.dim, 0))
        self.stride = (self.dim + 1 + zero_dim) * 8               # descStructSize_ bytes
        last = b.binop("shr", _ld(b, self.ptrs - self.stride), 32)
        hi_zero = b.materialize(b.compare("eq", hi, 0))
        self.count = hi + hi_zero * (last + 1)                    # offset != 0 ? offset : last + 1

    def _ready(self, what):
        if self.base is None:
            raise CompileError(f"ListTensorDesc.{what} before init", self.b.loc)

    def get_size(self):
        self._ready("get_size")
        return self.count

    def get_data_ptr(self, index, dtype):
        self._ready("get_data_ptr")
        if not isinstance(dtype, dt.DataType):
            raise CompileError("ListTensorDesc.get_data_ptr: dtype must be an asc dtype", self.b.loc)
        i = _index(self.b, "ListTensorDesc.get_data_ptr: index", index)
        return GmPtr(_ld(self.b, self.ptrs + i * 8), dtype)

    def get_desc(self, desc, index):
        b = self.b
        self._ready("get_desc")
        if not isinstance(desc, TensorDesc):
            raise CompileError(f"ListTensorDesc.get_desc: desc must be an asc.TensorDesc, got {tensor_type_name(desc)}",
                               b.loc)
        if desc.shape_addr is None:
            raise CompileError("ListTensorDesc.get_desc: call desc.set_shape_addr first (GetDesc writes the shape "
                               "to that address)", b.loc)
        i = _index(b, "ListTensorDesc.get_desc: index", index)
        desc.dim, desc.index = self.dim, i
        desc.ptr = _ld(b, self.ptrs + i * 8)
        src = self.shapes + i * self.stride + 8                   # targetShape
        dst = desc.shape_addr
        # GetShape: for k < dim: shape[k] = target[k]
        var = b.new_value(hint="k.")
        loop = ir.For(name="for", var=var, lo=ir.Const(0), hi=self.dim.v, step=1,
                      loc=b.loc)
        b.push(loop.body)
        k8 = b.binop("shl", RVal(b, var), 3)
        _st(b, dst + k8, _ld(b, src + k8))
        b.pop()
        b.emit(loop)
