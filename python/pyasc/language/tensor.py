"""Tensors, pipes and queues of the kernel language, as compile-time objects.

Users: kernels (through `asc.GlobalTensor()`, `asc.TQue(...)`, ...), evaluated by the compiler
frontend; the ops in language/ops.py read their address, dtype and buffer.  Every object lives
only while one kernel is being compiled: its addresses are IR operands (ints, run-time RVals or
Syms that buffer placement resolves).

TQue semantics (ASCDK TPipe-TQue): EnQue = set_flag(producer -> consumer), DeQue = wait_flag,
AllocTensor waits until the slot's previous consumer freed it, FreeTensor sets that flag.  Each
slot has its own event id, so a slot must be known at compile time; loops over queue operations
are unrolled by the buffer count until every slot is static (compiler.frontend).  Every slot
starts free: init_buffer sets its "free" flag once, and the kernel end consumes it.

The builder: the classes a kernel instantiates are marked `_asc_builder`, so the frontend passes
the compilation's Builder as `_b`; every object keeps it as `.b` and hands it to the objects it
creates (compiler.frontend lists the other `_asc_*` markers these classes carry).
"""
from __future__ import annotations

import builtins as _bi

from ..compiler import dbuf, ir
from ..compiler.builder import GmPtr, RVal, is_static, type_name
from ..compiler.errors import CompileError
from . import dtype as dt
from . import enums as _enums
from .enums import TPosition, event_of

# HardEvent and POSITION_BUFFER are read through _enums when used, so that importing this module
# (every launch does, for the annotations) does not make HardEvent (language/enums.py); they
# stay names of this module (PEP 562):
_FROM_ENUMS = ("HardEvent", "POSITION_BUFFER")


def __getattr__(name):
    if name in _FROM_ENUMS:
        return getattr(_enums, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_FROM_ENUMS))


def tensor_type_name(x) -> str:
    """'Tensor[float16]', 'GlobalTensor[float32]', 'GlobalAddress[int32]', 'int', ..."""
    return type_name(x)


def _no_negative(b, what, v):
    """A static negative index or slice bound is an error: real pyasc passes it to Ascend C
    operator[] as an element offset (hicann/pyasc python/asc/language/core/tensor.py,
    Local/GlobalTensorSubIndexOp), pointer arithmetic before the tensor, not Python's
    count-from-the-end, so neither meaning would be safe to pick silently."""
    if is_static(v) and v < 0:
        raise CompileError(f"{what} index {v} is negative: tensor offsets count from the tensor's start "
                           "(an Ascend C operator[] offset), Python's negative indexing from the end is "
                           "not supported", b.loc)


def _outside_jit():
    return RuntimeError("this pyasc API can only be used inside an @asc.jit function")


class GlobalAddress:
    """Annotation of a kernel argument that is a GM array (`x: asc.GlobalAddress`)."""


class _ConstExprMeta(type):
    def __getitem__(cls, item):
        return cls


class ConstExpr(metaclass=_ConstExprMeta):
    """Annotation `asc.ConstExpr[int]`: the argument is a compile-time constant; each value gets
    its own compiled kernel."""


class GlobalTensor:
    _asc_builder = _asc_tensor = _asc_typed = _asc_mutable = True   # see compiler.frontend

    def __init__(self, dtype: dt.DataType | None = None, *, _b=None):
        self.b = _b
        self.dtype = dtype
        self.addr = None
        self.size = None
        self.gm = None      # the GlobalAddress argument it points into (sync: GM aliasing)

    def _asc_type_name(self):
        return f"GlobalTensor[{self.dtype.name if self.dtype else '?'}]"

    def set_global_buffer(self, ptr, size=None):
        if not isinstance(ptr, GmPtr):
            raise CompileError("set_global_buffer expects a GlobalAddress argument (plus an offset)",
                               self.b.loc)
        self.addr, self.dtype, self.size = ptr.base, ptr.dtype, size
        self.gm = ptr.name or None

    def _check(self):
        if self.addr is None:
            raise CompileError("GlobalTensor used before set_global_buffer", self.b.loc)

    def __getitem__(self, idx):
        """`gm[i:]` and `gm[i]` are both the sub-tensor starting at element i (real pyasc's
        GlobalTensorSubIndexOp; Ascend C `operator[]`); read elements with get_value."""
        self._check()
        if isinstance(idx, slice):
            if idx.step not in (None, 1):
                raise CompileError("GlobalTensor slices take no step", self.b.loc)
            idx = 0 if idx.start is None else idx.start
        if not (is_static(idx) or isinstance(idx, RVal)) or isinstance(idx, float):
            raise CompileError(f"GlobalTensor index must be an integer, got {tensor_type_name(idx)}", self.b.loc)
        _no_negative(self.b, "GlobalTensor", idx)
        g = GlobalTensor(self.dtype, _b=self.b)
        g.addr, g.size = self.addr + idx * self.dtype.sizeof(), None
        g.gm = self.gm
        return g

    def __call__(self, idx):
        return self[idx]

    def get_value(self, idx):
        self._check()
        b = self.b
        size = self.dtype.sizeof()
        if self.dtype.is_float:
            raise CompileError("get_value of floating-point GM elements is not supported (no scalar FPU)", b.loc)
        addr = b.reg(self.addr + idx * size)
        r = b.new_value()
        mn = {1: "ld.b", 2: "ld.h", 4: "ld.w", 8: "ld.d"}[size]
        if self.dtype.isa.startswith("u") and size < 8:
            mn += "u"
        b.emit(ir.Op("ld", r, [addr], {"mnem": mn}))
        return RVal(b, r)

    def set_value(self, idx, value):
        self._check()
        b = self.b
        size = self.dtype.sizeof()
        addr = b.reg(self.addr + idx * size)
        b.emit(ir.Op("st", None, [b.reg(value), addr], {"mnem": {1: "st.b", 2: "st.h", 4: "st.w", 8: "st.d"}[size]}))

    def get_phy_addr(self):
        self._check()
        return self.addr

    def get_size(self):
        """Elements given to set_global_buffer (None when none was given)."""
        self._check()
        return self.size

    def set_shape_info(self, shape_info):
        self.shape_info = shape_info

    def get_shape_info(self):
        return getattr(self, "shape_info", None)

    def set_l2_cache_hint(self, *args, **kwargs):
        """A cache hint: the simulated GM has no L2, so it changes nothing (as a hint must not)."""

    def _carry(self):
        return [self.addr]

    def _rebuild(self, vals):
        g = GlobalTensor(self.dtype, _b=self.b)
        g.addr, g.size = vals[0], self.size
        g.gm = self.gm
        return g

    def access(self, nbytes):
        return ir.Access("GM", self.b.operand(self.addr), nbytes, ("gm", self.gm) if self.gm else None,
                         tensor_type_name(self))


class LocalTensor:
    """A tensor in a local buffer.  `asc.LocalTensor(dtype, pos, addr, tile_size)` places it
    statically at byte `addr` of the position's buffer; queues and TBufs create the others."""

    _asc_builder = _asc_tensor = _asc_typed = True   # see compiler.frontend

    def __init__(self, dtype=None, pos=TPosition.VECIN, addr=0, tile_size=0, *, _root=None, _b=None):
        if _b is None:
            raise _outside_jit()
        self.b = b = _b
        if not isinstance(dtype, dt.DataType):
            raise CompileError("LocalTensor(dtype, pos, addr, tile_size): dtype must be an asc dtype", b.loc)
        self.dtype, self.pos, self.addr, self.size = dtype, TPosition(pos), addr, tile_size
        self.buf = _enums.POSITION_BUFFER[self.pos]
        self.root = _root if _root is not None else ("static", id(self))
        self.slot = None
        if _root is None and is_static(addr) and is_static(tile_size):
            cap = b.target_capacity(self.buf)
            align = b.target_align(self.buf)
            if addr % align:
                raise CompileError(f"LocalTensor address {addr} is not {align}-byte aligned ({self.buf} rule)", b.loc)
            end = addr + tile_size * dtype.sizeof()
            if end > cap:
                raise CompileError(f"LocalTensor [{addr}, {end}) exceeds {self.buf} "
                                   f"({cap} bytes usable on {b.fn.target})", b.loc)
            if end > addr:
                # placed buffers (TQue, TBuf, LocalTensorAuto) are kept clear of it
                b.fn.fixed.append((self.buf, addr, end, b.loc))

    @classmethod
    def _make(cls, b, dtype, pos, addr, size, root):
        t = cls.__new__(cls)
        t.b = b
        t.dtype, t.pos, t.addr, t.size = dtype, TPosition(pos), addr, size
        t.buf, t.root, t.slot = _enums.POSITION_BUFFER[t.pos], root, None
        return t

    def _asc_type_name(self):
        return f"Tensor[{self.dtype.name}]"

    def __getitem__(self, idx):
        """`t[i:]` and `t[i]` are both the sub-tensor starting at element i (real pyasc's
        LocalTensorSubIndexOp); `t[i:j]` also sets its length (an extension)."""
        if isinstance(idx, slice):
            if idx.step not in (None, 1):
                raise CompileError("LocalTensor slices take no step", self.b.loc)
            start = 0 if idx.start is None else idx.start
            stop = self.size if idx.stop is None else idx.stop
        elif is_static(idx) or isinstance(idx, RVal):
            start, stop = idx, self.size
        else:
            raise CompileError(f"LocalTensor index must be an integer, got {tensor_type_name(idx)}", self.b.loc)
        for v in (start, stop):
            if isinstance(v, float) or not (is_static(v) or isinstance(v, RVal) or v is None):
                raise CompileError(f"LocalTensor index must be an integer, got {tensor_type_name(v)}", self.b.loc)
            _no_negative(self.b, "LocalTensor", v)
        if is_static(start) and is_static(stop) and stop < start:
            raise CompileError(f"LocalTensor slice [{start}:{stop}] ends before it starts", self.b.loc)
        if is_static(stop) and is_static(self.size) and stop > self.size:
            raise CompileError(f"LocalTensor slice ends at element {stop}, past the tensor's {self.size} elements",
                               self.b.loc)
        t = LocalTensor._make(self.b, self.dtype, self.pos, _addr_add(self.b, self.addr, start * self.dtype.sizeof()),
                              _sub(self.b, stop, start), self.root)
        t.slot, t.gen = self.slot, getattr(self, "gen", None)
        return t

    def __call__(self, idx):
        return self[idx]

    def _ub_elem_addr(self, index, what):
        """Register holding the UB byte address of element `index` (scalar ld.ub/st.ub)."""
        b = self.b
        if self.buf != "UB":
            raise CompileError(f"LocalTensor.{what} reaches UB only (VECIN/VECOUT/VECCALC, as in Ascend C), "
                               f"got a {self.pos.name} tensor", b.loc)
        if not isinstance(index, (int, RVal)) or isinstance(index, bool):
            raise CompileError(f"LocalTensor.{what} index must be an integer, got {tensor_type_name(index)}", b.loc)
        off = index * self.dtype.sizeof()
        if isinstance(self.addr, ir.Sym):
            if is_static(off):
                return b.reg(_addr_add(b, self.addr, off))
            return b.reg(RVal(b, b.reg(self.addr)) + off)
        return b.reg(self.addr + off)

    def get_value(self, index):
        """Ascend C LocalTensor::GetValue: a scalar load of UB (ld.ub.*, docs/semantics.md 1a).  The
        scalar unit does not wait for the pipes: after a pipe wrote the element, order the read with
        asc.set_flag/wait_flag(HardEvent.V_S or MTE2_S) or asc.pipe_barrier(PIPE_ALL), as on the card.
        Integers come back sign- or zero-extended; float32 as its bits in an f32 scalar; float16 and
        bfloat16 are refused (the scalar unit has no FPU to widen them)."""
        b = self.b
        dt = self.dtype
        size = dt.sizeof()
        if dt.is_float and dt.isa != "f32":
            raise CompileError(f"LocalTensor.get_value of {dt.name} is not supported: the asc scalar unit has no "
                               "FPU to widen it to a float32 scalar (read float32 elements, or convert with asc.cast)",
                               b.loc)
        addr = self._ub_elem_addr(index, "get_value")
        stale = dbuf.on_scalar(b, self, int(index) if is_static(index) else None, False)
        if stale:                                # -O2's slots: no read before a write (compiler/dbuf.py)
            raise CompileError(stale, b.loc)
        mn = "ld.ub." + {1: "b", 2: "h", 4: "w", 8: "d"}[size]
        if (dt.is_float or dt.isa.startswith("u")) and size < 8:
            mn += "u"
        r = b.new_value("f32" if dt.is_float else "i64")
        b.emit(ir.Op("ld", r, [addr], {"mnem": mn}))
        return RVal(b, r)

    def set_value(self, index, value):
        """Ascend C LocalTensor::SetValue: a scalar store to UB (st.ub.*).  Order it before a pipe
        reads the element with asc.set_flag/wait_flag(HardEvent.S_V or S_MTE3) or a pipe barrier.
        Floats: a compile-time value is rounded to the element type (nearest even) here; a run-time
        value must be a float32 scalar into a float32 tensor."""
        b = self.b
        dt = self.dtype
        size = dt.sizeof()
        if dt.is_float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = _float_bits(dt, value)
            elif not (isinstance(value, RVal) and value.ty == "f32" and dt.isa == "f32"):
                raise CompileError(f"LocalTensor.set_value of a run-time value into {dt.name} is not supported: "
                                   "the asc scalar unit has no FPU to narrow it (store into a float32 tensor)", b.loc)
        elif isinstance(value, float) or (isinstance(value, RVal) and value.ty == "f32"):
            raise CompileError(f"LocalTensor.set_value of a float into {dt.name} is not supported (no scalar FPU)",
                               b.loc)
        addr = self._ub_elem_addr(index, "set_value")
        stale = dbuf.on_scalar(b, self, int(index) if is_static(index) else None, True)
        if stale:
            raise CompileError(stale, b.loc)
        b.emit(ir.Op("st", None, [b.reg(value), addr], {"mnem": "st.ub." + {1: "b", 2: "h", 4: "w", 8: "d"}[size]}))

    def get_phy_addr(self):
        """Byte address in the position's buffer (a placed buffer resolves at link time)."""
        # the element types whose addresses were taken: asc.trans_data_to_5hd's address forms infer
        # their type from them when there is only one, as real pyasc infers it from get_phy_addr
        phy = getattr(self.b, "phy_addr_dtypes", None)
        if phy is None:
            phy = self.b.phy_addr_dtypes = set()
        phy.add(self.dtype)
        return self.addr

    def set_size(self, size):
        """Ascend C SetSize: the element count this tensor covers from now on."""
        self.size = size

    def set_buffer_len(self, length):
        """Ascend C SetBufferLen: the length in bytes."""
        self.size = _mul_div(self.b, length, 1, self.dtype.sizeof())

    def set_addr_with_offset(self, src, offset):
        """Ascend C SetAddrWithOffset(src, offset): this tensor starts `offset` elements of this
        tensor's dtype after `src`'s start, in src's buffer."""
        t = src[0:]
        self.addr = _addr_add(self.b, t.addr, offset * self.dtype.sizeof())
        self.pos, self.buf, self.root, self.slot = src.pos, src.buf, src.root, src.slot
        self.gen = getattr(src, "gen", None)

    def set_user_tag(self, tag):
        self.user_tag = tag

    def get_user_tag(self):
        return getattr(self, "user_tag", 0)

    def set_shape_info(self, shape_info):
        self.shape_info = shape_info

    def get_shape_info(self):
        return getattr(self, "shape_info", None)

    def reinterpret_cast(self, dtype):
        t = LocalTensor._make(self.b, dtype, self.pos, self.addr,
                              _mul_div(self.b, self.size, self.dtype.sizeof(), dtype.sizeof()), self.root)
        t.slot, t.gen = self.slot, getattr(self, "gen", None)
        return t

    def get_size(self):
        return self.size

    def get_length(self):
        return self.size * self.dtype.sizeof()

    def get_position(self):
        return self.pos

    def nbytes(self):
        return self.size * self.dtype.sizeof() if is_static(self.size) else None

    def _warn(self, text):
        if self.b.loc is None:
            return
        w = f"{self.b.loc}: warning: {text}"
        ws = self.b.fn.__dict__.setdefault("sync_warnings", [])
        if w not in ws:
            ws.append(w)

    def access(self, nbytes=None):
        n = nbytes if nbytes is not None else self.nbytes()
        if not is_static(n):
            n = None
        # compiled as written (what the card does) and warned at the line (the kernel's warnings)
        slot, gen = getattr(self, "slot", None), getattr(self, "gen", None)
        if slot is not None and gen is not None and gen != slot[0].gens.get(slot[1], 0):
            # Ascend C: after FreeTensor the buffer belongs to the queue's next AllocTensor
            self._warn(f"this {self._asc_type_name()} is used after its free_tensor (at "
                       f"{slot[0].freed_at.get(slot[1], '?')}): its buffer holds whatever the queue's next "
                       f"alloc_tensor put there (this run reads that); use it before freeing it")
        have = self.nbytes()
        if n is not None and have is not None and n > have:
            self._warn(f"this operation touches {n} bytes of a {self._asc_type_name()} of {self.size} elements "
                       f"({have} bytes): the bytes past its end belong to other data (a count in bytes instead "
                       f"of elements, or a tile larger than the buffer?)")
        return ir.Access(self.buf, self.b.operand(self.addr), n, self.root,
                         f"LocalTensor[{self.dtype.name},{self.pos.name}]")

    def _carry(self):
        return [self.addr] if isinstance(self.addr, RVal) else []

    def _rebuild(self, vals):
        t = LocalTensor._make(self.b, self.dtype, self.pos, vals[0] if vals else self.addr, self.size, self.root)
        t.slot, t.gen = self.slot, getattr(self, "gen", None)
        return t


def _addr_add(b, addr, off):
    if isinstance(addr, ir.Sym) and is_static(off):
        return ir.Sym(addr.kind, addr.key, addr.offset + off)
    if isinstance(addr, ir.Sym):
        raise CompileError("a run-time offset into a queue buffer is not supported; slice with a "
                           "compile-time start", b.loc)
    return addr + off


def _sub(bld, a, b):
    return a - b if is_static(a) and is_static(b) else bld.binop("sub", a, b)


def _mul_div(bld, n, a, b):
    if is_static(n):
        return n * a // b
    return bld.binop("div", bld.binop("mul", n, a), b)


# ---- TPipe / TQue / TBuf --------------------------------------------------------------------
# (producer pipe, consumer pipe) of the data a queue at this position carries.
QUEUE_PIPES = {TPosition.VECIN: ("mte2", "v"), TPosition.VECOUT: ("v", "mte3"),
               TPosition.A1: ("mte2", "mte1"), TPosition.B1: ("mte2", "mte1"),
               TPosition.A2: ("mte1", "m"), TPosition.B2: ("mte1", "m"),
               TPosition.CO1: ("m", "fix"), TPosition.C1: ("mte2", "mte1")}


class BufferReq:
    """One init_buffer: `num` slots of `nbytes` in `buf`, placed by passes.place_buffers."""

    def __init__(self, key, buf, num, nbytes, loc, name):
        self.key, self.buf, self.num, self.nbytes, self.loc, self.name = key, buf, num, nbytes, loc, name
        self.addrs = None
        self.partners = set()   # keys of buffers read together with this one by a binary op
        self.auto = False       # a LocalTensorAuto (turns insert_sync on)

    def __repr__(self):
        where = "" if self.addrs is None else " at " + ", ".join(hex(a) for a in self.addrs)
        return f"{self.name}: {self.buf} {self.num} x {self.nbytes} B{where}"


class TPipe:
    _asc_builder = _asc_mutable = True   # see compiler.frontend

    def __init__(self, *, _b=None):
        if _b is None:
            raise _outside_jit()
        self.b = _b
        self._ev = {}      # HardEvent name -> frozenset of allocated ids (replaced, never mutated)
        _b.current_tpipe = self   # what asc.get_tpipe_ptr returns (Ascend C GetTPipePtr)

    # Event ids (real pyasc fwk/tpipe.py; Ascend C TPipe::AllocEventID): compile-time ids from
    # 0..5 per HardEvent (6 is the system's, 7 TPipe's own); TQue flags get other ids.
    def _event(self, event, what="alloc_event_id"):
        # a HardEvent member only (real pyasc fwk/tpipe.py types it `event: HardEvent`): a bare int
        # such as alloc_event_id(5) is usually a misplaced event id, not an event
        if not isinstance(event, _enums.HardEvent):
            got = "a run-time value" if isinstance(event, RVal) else f"{type(event).__name__} {event!r}"
            raise CompileError(f"TPipe.{what} needs an asc.HardEvent (e.g. asc.HardEvent.MTE2_V), got {got}",
                               self.b.loc)
        return event

    def _free_ids(self, ev):
        b = self.b
        n = min(6, b.target["event_ids"])
        taken = self._ev.get(ev.name, frozenset())
        return [i for i in range(n) if i not in taken]

    def fetch_event_id(self, event=None):
        """A free event id of `event` (default V_S), not reserved: -1 when none is free."""
        ev = self._event(_enums.HardEvent.V_S if event is None else event, "fetch_event_id")
        free = self._free_ids(ev)
        return free[0] if free else -1

    def alloc_event_id(self, event=None):
        """Reserve and return a free event id of `event` (default V_S), for set_flag/wait_flag."""
        ev = self._event(_enums.HardEvent.V_S if event is None else event)
        free = self._free_ids(ev)
        b = self.b
        if not free:
            raise CompileError(f"alloc_event_id: no free event id for HardEvent.{ev.name} (ids "
                               f"0..{min(6, b.target['event_ids']) - 1} are for kernels; release one "
                               f"with release_event_id)", b.loc)
        self._ev = {**self._ev, ev.name: self._ev.get(ev.name, frozenset()) | {free[0]}}
        b.fn.manual_events.add((ev.name, free[0]))
        return free[0]

    def release_event_id(self, id=None, event=None):  # noqa: A002  (real pyasc's keyword)
        """Give back an id from alloc_event_id."""
        ev = self._event(_enums.HardEvent.V_S if event is None else event, "release_event_id")
        b = self.b
        if not is_static(id):
            raise CompileError("release_event_id needs a compile-time event id (one from alloc_event_id)", b.loc)
        taken = self._ev.get(ev.name, frozenset())
        if int(id) not in taken:
            raise CompileError(f"release_event_id: id {id} of HardEvent.{ev.name} was not allocated", b.loc)
        self._ev = {**self._ev, ev.name: taken - {int(id)}}

    def init_buffer(self, que=None, num=0, len=0, buf=None):  # noqa: A002  (real pyasc's keyword)
        """`init_buffer(que, num, len)` for a TQue; `init_buffer(buf, num)` for a TBuf, where real
        pyasc (Ascend C InitBuffer(TBuf, len)) passes the byte length as `num`."""
        b = self.b
        length = len
        if buf is not None:
            que = buf
        if isinstance(que, TBuf):
            num, length = 1, (length or num)
        if not (is_static(num) and is_static(length)):
            raise CompileError("init_buffer needs compile-time num and len (buffer placement is static)", b.loc)
        if not isinstance(que, (TQue, TBuf)):
            raise CompileError("init_buffer expects a TQue or TBuf", b.loc)
        if que.req is not None:
            raise CompileError("init_buffer called twice for the same queue", b.loc)
        if b.loop_depth:
            raise CompileError("init_buffer inside a loop or branch is not supported: call it once, "
                               "before the loops", b.loc)
        if isinstance(que, TQue) and num > 8:
            raise CompileError(f"a TQue has at most 8 buffers (one hardware event id each), got {num}", b.loc)
        if isinstance(que, TQue) and not getattr(que, "_pooled", False):
            que.asked = int(num)              # what the kernel may use: enque/alloc limits stay this
            num = dbuf.depth(b, que, num)     # -O2: a one-buffer queue gets two (compiler/dbuf.py)
        key = f"q{_bi.len(b.fn.buffers)}"
        que.req = BufferReq(key, _enums.POSITION_BUFFER[que.pos], int(num), int(length), b.loc,
                            f"{key}:{type(que).__name__}({que.pos.name})")
        b.fn.buffers.append(que.req)
        if isinstance(que, TQue):
            que._init_slots(b)

    def init(self):
        """Ascend C TPipe::Init: nothing to do, the pipe's state is compile-time here."""

    def init_buf_pool(self, pool, length, share_pool=None):
        """Ascend C TPipe::InitBufPool(pool, len): `pool` gets `length` bytes of its position's
        buffer, from which its own init_buffer calls place their queues."""
        if not isinstance(pool, TBufPool):
            raise CompileError(f"init_buf_pool expects a TBufPool, got {tensor_type_name(pool)}", self.b.loc)
        return pool._init_pool(self, length, share_pool)

    def reset(self):
        pass

    def destroy(self):
        pass


class TQue:
    _asc_builder = True   # see compiler.frontend

    def __init__(self, pos=TPosition.VECIN, depth=1, mask=0, *, _b=None):
        if _b is None:
            raise _outside_jit()
        self.b = b = _b
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise CompileError(f"TQue depth must be a compile-time integer >= 0 (Ascend C's TQue<pos, depth> "
                               f"template parameter), got {type_name(depth) if not isinstance(depth, int) else depth}",
                               b.loc)
        self.pos, self.depth, self.req = TPosition(pos), depth, None
        self.prod, self.cons = QUEUE_PIPES.get(self.pos, (None, None))
        self.alloc_next = 0
        self.fifo = []          # slots enqueued, oldest first
        self.unknown = False    # state depends on a run-time condition
        self.asked = None       # the buffer count the kernel gave (init_buffer), when -O2 gave more
        self.live = 0           # tensors allocated and not yet freed
        self.gens = {}          # slot -> free_tensor count (a tensor of an older count is stale)
        self.freed_at = {}      # slot -> file:line of its last free_tensor
        b.queues.append(self)

    # slots and their events
    def _init_slots(self, b):
        self.num = self.req.num
        self.data_ev, self.free_ev = [], []
        for s in range(self.num):
            if self.prod:
                de = ir.Sym("event", (event_of(self.prod, self.cons).name, self.req.key, s))
                fe = ir.Sym("event", (event_of(self.cons, self.prod).name, self.req.key, s))
                b.fn.events += [de, fe]
                self.data_ev.append(de)
                self.free_ev.append(fe)
                b.emit(ir.Op("set_flag", None, [], {"src": self.cons, "dst": self.prod, "event": fe,
                                                    "pipe": self.cons, "why": f"{self.req.key} slot {s} starts free"}))

    def state(self):
        return (self.alloc_next, tuple(self.fifo), self.unknown, self.live)

    def set_state(self, st):
        self.alloc_next, self.fifo, self.unknown, self.live = st[0], list(st[1]), st[2], st[3]

    def _limit(self):
        """The buffers the kernel may hold at once: those it asked for (compiler/dbuf.py)."""
        return self.num if self.asked is None else min(self.asked, self.num)

    def _check(self, b):
        if self.req is None:
            raise CompileError("TQue used before pipe.init_buffer", b.loc)
        if self.unknown:
            raise CompileError("this TQue's slot depends on a run-time condition (a loop whose trip count "
                               "is not a multiple of the buffer count, or a branch): queue operations "
                               "after it cannot be compiled", b.loc)

    def alloc_tensor(self, dtype=None, *args, **kwargs):
        b = self.b
        self._check(b)
        dtype = dtype or dt.float16
        if self._limit() < self.num and self.live >= self._limit():
            # more tensors at once than the buffers the kernel asked for: as written it waits for
            # a free that never comes; the extra -O2 buffer must not hide that (driver falls back)
            # never shown: _limit() < num only on a queue -O2 promoted, and driver.compile_kernel
            # then compiles the kernel again as written (compiler/dbuf.py)
            raise CompileError(f"internal: alloc_tensor: {self.live} tensor(s) of this {self._limit()}-buffer "
                               f"TQue are not freed yet (the promoted compile is refused)", b.loc)
        self.live += 1
        s = self.alloc_next
        self.alloc_next = (s + 1) % self.num
        if self.prod:
            b.emit(ir.Op("wait_flag", None, [], {"src": self.cons, "dst": self.prod, "event": self.free_ev[s],
                                                 "pipe": self.prod, "why": f"alloc {self.req.key}[{s}]"}))
        if self._limit() < self.num:
            dbuf.on_alloc(b, (self.req.key, s))   # -O2's slot: no read before a write (compiler/dbuf.py)
        return self._tensor(dtype, s)

    def _tensor(self, dtype, s):
        t = LocalTensor._make(self.b, dtype, self.pos, ir.Sym("buf", (self.req.key, s)),
                              self.req.nbytes // dtype.sizeof(), (self.req.key, s))
        t.slot = (self, s)
        t.gen = self.gens.get(s, 0)      # the slot's free_tensor count when t was handed out
        return t

    def enque(self, t):
        b = self.b
        self._check(b)
        s = self._slot_of(t, b)
        if len(self.fifo) >= max(self._limit(), 1):
            raise CompileError("enque on a full TQue", b.loc)
        self.fifo.append(s)
        if self.prod:
            b.emit(ir.Op("set_flag", None, [], {"src": self.prod, "dst": self.cons, "event": self.data_ev[s],
                                                "pipe": self.prod, "why": f"enque {self.req.key}[{s}]"}))
        return True

    def deque(self, dtype=None):
        b = self.b
        self._check(b)
        if not self.fifo:
            raise CompileError("deque on an empty TQue (no enque before it on this path)", b.loc)
        s = self.fifo.pop(0)
        if self.prod:
            b.emit(ir.Op("wait_flag", None, [], {"src": self.prod, "dst": self.cons, "event": self.data_ev[s],
                                                 "pipe": self.cons, "why": f"deque {self.req.key}[{s}]"}))
        return self._tensor(dtype or dt.float16, s)

    def free_tensor(self, t):
        b = self.b
        self._check(b)
        s = self._slot_of(t, b)
        self.live = max(0, self.live - 1)
        self.gens[s] = self.gens.get(s, 0) + 1
        self.freed_at[s] = f"{b.loc.file.rsplit('/', 1)[-1]}:{b.loc.line}" if b.loc else "?"
        dbuf.on_free(b, (self.req.key, s))
        if self.prod:
            b.emit(ir.Op("set_flag", None, [], {"src": self.cons, "dst": self.prod, "event": self.free_ev[s],
                                                "pipe": self.cons, "why": f"free {self.req.key}[{s}]"}))

    def _slot_of(self, t, b):
        if not isinstance(t, LocalTensor) or t.slot is None or t.slot[0] is not self:
            raise CompileError("this tensor was not allocated from this TQue", b.loc)
        return t.slot[1]

    def vacant_in_que(self):
        return len(self.fifo) < self._limit()

    def has_idle_buffer(self):
        """A slot that is neither enqueued nor allocated can be allocated without waiting for
        an earlier free (compile-time queue state)."""
        return len(self.fifo) < self._limit()

    def free_all_event(self):
        """Ascend C FreeAllEvent: the slots' free flags are consumed at the kernel end here."""

    def has_tensor_in_que(self):
        return bool(self.fifo)

    def get_tensor_count_in_que(self):
        return len(self.fifo)

    def drain(self, b):
        """End of kernel: consume each slot's outstanding free flag."""
        if self.req is None or not self.prod:
            return
        for s in range(self.num):
            b.emit(ir.Op("wait_flag", None, [], {"src": self.cons, "dst": self.prod, "event": self.free_ev[s],
                                                 "pipe": self.prod, "why": "kernel end"}))


class TBuf:
    _asc_builder = True   # see compiler.frontend

    def __init__(self, pos=TPosition.VECCALC, *, _b=None):
        self.b = _b
        self.pos, self.req = TPosition(pos), None

    def get(self, dtype, len=None, shape=None):  # noqa: A002  (real pyasc's keyword)
        b = self.b
        if self.req is None:
            raise CompileError("TBuf used before pipe.init_buffer", b.loc)
        n = self.req.nbytes // dtype.sizeof() if not len else len
        return LocalTensor._make(b, dtype, self.pos, ir.Sym("buf", (self.req.key, 0)), n, (self.req.key, 0))

    def get_with_offset(self, size, offset, dtype):
        t = self.get(dtype)
        t2 = t[offset // dtype.sizeof():]
        t2.size = size
        return t2


class TQueBind(TQue):
    """Ascend C TQueBind<src, dst, depth>: a queue between two positions.  The producer and
    consumer pipes follow the pair (VECIN->VECOUT is a vector-only queue: no flags)."""

    _asc_builder = True

    def __init__(self, src=TPosition.VECIN, dst=TPosition.VECOUT, depth=1, mask=0, *, _b=None):
        super().__init__(src, depth, mask, _b=_b)
        self.dst_pos = TPosition(dst)
        key = (TPosition(src), self.dst_pos)
        pipes = {(TPosition.GM, TPosition.VECIN): ("mte2", "v"), (TPosition.VECOUT, TPosition.GM): ("v", "mte3"),
                 (TPosition.VECIN, TPosition.VECOUT): (None, None), (TPosition.GM, TPosition.A1): ("mte2", "mte1"),
                 (TPosition.GM, TPosition.B1): ("mte2", "mte1")}
        if key in pipes:
            self.prod, self.cons = pipes[key]
        if key[0] == TPosition.GM:
            self.pos = key[1]


class TBufPool(TBuf):
    """Ascend C TBufPool: a byte range of one position's buffer that queues and TBufs are
    placed in (init_buffer), and that reset() hands out again from its start."""

    _asc_builder = True

    def __init__(self, pos=TPosition.VECCALC, buf_num=4, *, _b=None):
        super().__init__(pos, _b=_b)
        self.length, self.used = None, 0

    def _init_pool(self, pipe, length, share=None):
        b = self.b
        if not is_static(length):
            raise CompileError("init_buf_pool needs a compile-time length", b.loc)
        self.pipe, self.length, self.used = pipe, int(length), 0
        return True

    def init_buf_pool(self, pool, length, share_pool=None):
        if not isinstance(pool, TBufPool):
            raise CompileError(f"init_buf_pool expects a TBufPool, got {tensor_type_name(pool)}", self.b.loc)
        return pool._init_pool(getattr(self, "pipe", None), length, share_pool)

    def init_buffer(self, que=None, num=0, len=0, buf=None):  # noqa: A002
        b = self.b
        if self.length is None:
            raise CompileError("TBufPool used before pipe.init_buf_pool", b.loc)
        tgt = buf if buf is not None else que
        nbytes = (len or num) if isinstance(tgt, TBuf) else num * len
        if is_static(nbytes) and self.used + nbytes > self.length:
            raise CompileError(f"TBufPool of {self.length} bytes: init_buffer needs {nbytes} more bytes, "
                               f"{self.length - self.used} are left", b.loc)
        self.used += nbytes
        if isinstance(tgt, TQue):
            tgt._pooled = True       # the pool's bytes are counted: no -O2 second buffer (compiler/dbuf.py)
        return TPipe.init_buffer(self.pipe, que, num, len, buf)

    def reset(self):
        self.used = 0


class LocalMemAllocator:
    """Real pyasc LocalMemAllocator: hands out static LocalTensors of one buffer, one after
    the other from address 0, each 32-byte aligned."""

    _asc_builder = _asc_mutable = True

    def __init__(self, hardware=None, *, _b=None):
        if _b is None:
            raise _outside_jit()
        self.b, self.addr = _b, 0
        if hardware is not None and is_static(hardware) and int(hardware) in (6, 7):   # Hardware.BIAS, FIXBUF
            # Ascend C's Alloc<pos> asserts GetPhyType(pos) == hard (kernel_tensor_impl.h); FIXBUF is
            # C2PIPE2GM and BIAS is C2, neither of which real pyasc's TPosition has
            raise CompileError(f"LocalMemAllocator(Hardware.{'BIAS' if int(hardware) == 6 else 'FIXBUF'}): no "
                               f"asc.TPosition lies there (real pyasc's TPosition has no C2PIPE2GM); the fixpipe "
                               f"buffer is filled by asc.fixpipe(dst, src, cbuf_workspace, params)", _b.loc)

    def alloc(self, pos=TPosition.VECIN, dtype=None, tile_size=0):
        if not (is_static(tile_size) and isinstance(dtype, dt.DataType)):
            raise CompileError("LocalMemAllocator.alloc(pos, dtype, tile_size) needs an asc dtype and a "
                               "compile-time size", self.b.loc)
        t = LocalTensor(dtype, pos, self.addr, tile_size, _b=self.b)
        self.addr += -(-tile_size * dtype.sizeof() // 32) * 32
        return t

    def get_cur_addr(self):
        return self.addr


def get_shape_size(shape):
    """Number of elements of a shape (a list of dims or a ShapeInfo with .shape)."""
    dims = getattr(shape, "shape", shape)
    n = 1
    for d in dims:
        n *= d
    return n


class LocalTensorAuto(LocalTensor):
    """`asc.LocalTensorAuto(dtype, shape)`: a UB tensor the compiler places (real pyasc's
    hoist_ub_allocation).  Each evaluation gets its own buffer, placed with the TQue/TBuf
    buffers (alignment, capacity); a kernel that uses one compiles with insert_sync on, as in
    real pyasc.  Also usable as a parameter annotation of helpers."""

    def __new__(cls, dtype=None, shape=None, pos=TPosition.VECCALC, *, _b=None):
        if _b is None:
            raise _outside_jit()
        b = _b
        if not isinstance(dtype, dt.DataType):
            raise CompileError("LocalTensorAuto(dtype, shape): dtype must be an asc dtype", b.loc)
        dims = list(shape) if isinstance(shape, (list, tuple)) else [shape]
        if not all(is_static(d) for d in dims):
            raise CompileError("LocalTensorAuto needs a compile-time shape (UB placement is static)", b.loc)
        n = 1
        for d in dims:
            n *= int(d)
        if n <= 0:
            raise CompileError(f"LocalTensorAuto shape must be positive, got {shape}", b.loc)
        key = f"q{_bi.len(b.fn.buffers)}"
        pos = TPosition(pos)
        req = BufferReq(key, _enums.POSITION_BUFFER[pos], 1, n * dtype.sizeof(), b.loc, f"{key}:LocalTensorAuto({pos.name})")
        req.auto = True
        b.fn.buffers.append(req)
        return LocalTensor._make(b, dtype, pos, ir.Sym("buf", (key, 0)), n, (key, 0))


def _float_bits(dt, value):
    """Bit pattern of `value` rounded to the float type dt (nearest even)."""
    import numpy as np
    if dt.isa == "f32":
        return int(np.array(value, np.float32).view(np.uint32))
    if dt.isa == "f16":
        return int(np.array(value, np.float16).view(np.uint16))
    f = np.array(value, np.float32).view(np.uint32).astype(np.uint64)   # bf16: RNE on the top 16 bits
    return int(((f + 0x7FFF + ((f >> 16) & 1)) >> 16) & 0xFFFF)


# what `from pyasc.language.tensor import *` took when HardEvent and POSITION_BUFFER were bound
# here at import (it reads __all__ through __getattr__)
__all__ = sorted({n for n in globals() if not n.startswith("_")} | set(_FROM_ENUMS))
