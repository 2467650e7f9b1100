"""The IR builder and run-time scalar values, shared by the frontend and the language API.

Users: compiler.driver creates one Builder per compilation and hands it to the frontend; the
frontend passes it explicitly (keyword `_b`) to every language callable marked `_asc_builder`
(asc.add, asc.TQue, ...; see compiler.frontend), and every object those create keeps it (a
LocalTensor's `.b`, an RVal's `.b`).  There is no module-level "current builder".  RVal is a
run-time scalar: Python operators on it emit scalar IR ops through its builder, with constant
folding (int op int never reaches the IR).  RVal tracks a congruence (value = r mod m) so that
`i % BUFFER_NUM` folds to a constant in unrolled loops; that is what makes event ids and queue
slots static in double-buffered loops.

Invariant: one Builder per compilation; everything it creates is discarded with it.
"""
from __future__ import annotations

import functools
import math

from . import ir, targets
from .errors import CompileError, NeedUnroll


def type_name(x) -> str:
    """The kernel-facing type name of a value in error messages ('Tensor[float16]', 'int', ...).
    Language objects name themselves with an `_asc_type_name()` method."""
    f = getattr(type(x), "_asc_type_name", None)
    if f is not None:
        return f(x)
    if isinstance(x, RVal):
        return "int" if x.ty == "i64" else "float"
    if isinstance(x, RCond):
        return "bool (a run-time comparison)"
    return type(x).__name__


class RVal:
    """A scalar known only at run time (an i64 or f32 virtual register)."""
    __slots__ = ("b", "v", "mod", "res")

    def __init__(self, b: "Builder", v: ir.Value, mod: int = 0, res: int = 0):
        self.b, self.v, self.mod, self.res = b, v, mod, res % mod if mod else 0

    ty = property(lambda self: self.v.ty)
    __hash__ = object.__hash__

    def __repr__(self):
        return f"RVal({self.v})"

    # arithmetic: the builder folds and emits
    def __add__(self, o): return self.b.binop("add", self, o)
    def __radd__(self, o): return self.b.binop("add", o, self)
    def __sub__(self, o): return self.b.binop("sub", self, o)
    def __rsub__(self, o): return self.b.binop("sub", o, self)
    def __mul__(self, o): return self.b.binop("mul", self, o)
    def __rmul__(self, o): return self.b.binop("mul", o, self)
    def __floordiv__(self, o): return self.b.binop("div", self, o)
    def __rfloordiv__(self, o): return self.b.binop("div", o, self)
    def __mod__(self, o): return self.b.binop("rem", self, o)
    def __rmod__(self, o): return self.b.binop("rem", o, self)
    def __and__(self, o): return self.b.binop("and", self, o)
    def __rand__(self, o): return self.b.binop("and", o, self)
    def __or__(self, o): return self.b.binop("or", self, o)
    def __ror__(self, o): return self.b.binop("or", o, self)
    def __xor__(self, o): return self.b.binop("xor", self, o)
    def __rxor__(self, o): return self.b.binop("xor", o, self)
    def __lshift__(self, o): return self.b.binop("shl", self, o)
    def __rlshift__(self, o): return self.b.binop("shl", o, self)
    def __rshift__(self, o): return self.b.binop("sra", self, o)
    def __rrshift__(self, o): return self.b.binop("sra", o, self)
    def __neg__(self): return self.b.binop("sub", 0, self)
    def __invert__(self): return self.b.binop("xor", self, -1)
    def __truediv__(self, o):
        raise CompileError("'/' on run-time integers is not supported: use '//' (integer division)",
                           self.b.loc)
    __rtruediv__ = __truediv__

    def __bool__(self):
        # the frontend compiles if/while/and/or/not/x if c else y and bool() of a run-time value;
        # only an asc API that truth-tests an argument it did not check gets here (a pyasc bug)
        raise CompileError("internal: a run-time value reached a compile-time truth test (use it in an "
                           "if/while condition of the kernel)", self.b.loc)

    def __index__(self):
        raise NeedUnroll("a compile-time integer is needed here, but the value is only known at run time",
                         self.b.loc)


class RCond:
    """A run-time comparison, usable as an if/while condition or materialised as 0/1."""
    __slots__ = ("bld", "cmp", "a", "b")

    def __init__(self, bld: "Builder", cmp, a, b):
        self.bld, self.cmp, self.a, self.b = bld, cmp, a, b

    def __bool__(self):
        # as RVal.__bool__: if/while/and/or/not, bool() and int() of a comparison are compiled
        raise CompileError("internal: a run-time comparison reached a compile-time truth test",
                           self.bld.loc)

    def __repr__(self):
        return "a run-time comparison"


_FOLD = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a // b, "rem": lambda a, b: a % b, "and": lambda a, b: a & b,
    "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b, "shl": lambda a, b: a << b,
    "shr": lambda a, b: (a % (1 << 64)) >> b, "sra": lambda a, b: a >> b,
    "min": min, "max": max,
}
_CMP_FOLD = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
             "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}


def is_static(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, RVal)


def operand(x, loc=None):
    """IR operand of an int, float, RVal or Sym (`loc`: where a wrong value is reported)."""
    if isinstance(x, RVal):
        return x.v
    if isinstance(x, ir.Sym):
        return x
    if isinstance(x, bool):
        return ir.Const(int(x))
    if isinstance(x, int):
        if not -(1 << 63) <= x < (1 << 64):
            raise CompileError(f"integer constant {x} does not fit in 64 bits (the scalar registers' width)", loc)
        return ir.Const(x)
    if isinstance(x, float):
        return ir.Const(x, "f32")
    if hasattr(x, "value") and isinstance(getattr(x, "value"), int):  # IntEnum
        return ir.Const(int(x))
    raise CompileError(f"expected a scalar (an int, a float or a run-time scalar value) here, got "
                       f"{type(x).__name__}", loc)


_CHECKED = ("vec", "dma", "load2d", "mmad", "fix")


@functools.lru_cache(maxsize=None)
def _rule(target: str, mnem: str):
    return targets.check_op(target, mnem)


class Builder:
    def __init__(self, fn: ir.Function, target: dict):
        self.fn = fn
        self.target = target
        self.blocks = [fn.body]
        self.loc: ir.Loc | None = None
        self._next = 0
        self.queues = []          # TQue objects, for loop-state checks and end-of-kernel drains
        self.uses_cube = False
        self.uses_vector = False
        self.loop_depth = 0
        self.nonneg = set()       # ids of Values known >= 0 (integer semantics: see binop)
        self.dead = False         # True: emit() drops what follows (the kernel returned)
        self.at_end = []          # callables run at the end of the kernel body (Matmul clients' quit)

    # ---- target questions ----------------------------------------------------------------
    def target_capacity(self, buf: str) -> int:
        return targets.capacity(self.target, buf)

    def target_align(self, buf: str) -> int:
        return targets.align(self.target, buf)

    def new_value(self, ty="i64", hint="") -> ir.Value:
        self._next += 1
        return ir.Value(self._next, ty, hint)

    def emit(self, op: ir.Op) -> ir.Op:
        if self.dead:       # the AIC of a mix kernel after its Matmul server loop (adv/matmul_kfc.py)
            return op
        if op.loc is None:
            op.loc = self.loc
        mnem = op.attrs.get("mnem") if op.attrs else None
        if mnem and op.name in _CHECKED and getattr(self.fn, "target", None):
            # libasc's legality rules for an instruction no core kind of the profile may run (the
            # assembler checks the rest per kernel part): an error at this line, not an internal
            # compiler error when the generated code is assembled
            rule = _rule(self.fn.target, mnem)
            if rule:
                raise CompileError(rule, op.loc)
        hook = getattr(self, "emit_hook", None)
        if hook is not None:             # -O2's promoted TQue slots (compiler/dbuf.py on_op)
            msg = hook(self, op)
            if msg:
                raise CompileError(msg, op.loc)
        self.blocks[-1].ops.append(op)
        return op

    def push(self, block: ir.Block):
        self.blocks.append(block)

    def pop(self):
        self.blocks.pop()

    def error(self, msg):
        return CompileError(msg, self.loc)

    def operand(self, x):
        """IR operand of an int, float, RVal or Sym; a wrong value is reported at self.loc."""
        return operand(x, self.loc)

    def rval(self, v: ir.Value, mod: int = 0, res: int = 0) -> RVal:
        return RVal(self, v, mod, res)

    # ---- scalars -----------------------------------------------------------------------
    def binop(self, name, a, b):
        for x in (a, b):
            if not isinstance(x, (int, RVal)) or isinstance(x, float):
                if isinstance(x, float) or (isinstance(x, RVal) and x.ty == "f32"):
                    if is_static(a) and is_static(b):
                        return _FOLD[name](a, b)
                    raise self.error("floating-point arithmetic on run-time values is not supported: "
                                     "the scalar unit has integer instructions only")
                raise self.error(f"Cannot infer dtype for operation '{_PYOP.get(name, name)}' between "
                                 f"'{type_name(a)}' and '{type_name(b)}'")
        if isinstance(a, RVal) and a.ty == "f32" or isinstance(b, RVal) and b.ty == "f32":
            raise self.error("floating-point arithmetic on run-time values is not supported: "
                             "the scalar unit has integer instructions only")
        if not isinstance(a, RVal) and not isinstance(b, RVal):
            if name in ("div", "rem") and b == 0:
                raise self.error("integer division by zero")
            return _FOLD[name](int(a), int(b))
        # algebraic identities and congruences.  On run-time values // and % are the ISA's div/rem
        # (real pyasc: arith.divsi/remsi, truncating; docs/pyasc.md "Integer semantics"), so the
        # floor-style rewrites below apply only where the dividend is known non-negative
        pos = isinstance(a, RVal) and a.v.id in self.nonneg
        if name == "rem" and isinstance(b, int) and isinstance(a, RVal) and a.mod and b > 0 and a.mod % b == 0 \
                and (pos or a.res % b == 0):
            return a.res % b
        if name in ("add", "sub") and b == 0 and isinstance(a, RVal):
            return a
        if name == "add" and a == 0 and isinstance(b, RVal):
            return b
        if name == "mul" and isinstance(b, int) and b == 1:
            return a
        if name == "mul" and isinstance(a, int) and a == 1:
            return b
        if name == "mul" and (isinstance(a, int) and a == 0 or isinstance(b, int) and b == 0):
            return 0
        if name in ("div",) and isinstance(b, int) and b == 1:
            return a
        # strength reduction on powers of two (sra and the and-mask equal div/rem for a dividend >= 0;
        # passes.lower expands div/rem by 2**k of other dividends into the signed sequence)
        # (-O2 and up: docs/pyasc.md "Optimisation levels"; -O0/-O1 keep the mul/div/rem)
        if isinstance(b, int) and b > 0 and b & (b - 1) == 0 and self.fn.options.get("opt_level", 3) >= 2:
            if name == "div" and pos:
                name, b = "sra", b.bit_length() - 1
            elif name == "rem" and pos:
                name, b = "and", b - 1
            elif name == "mul":
                name, b = "shl", b.bit_length() - 1
        if name in ("div", "rem") and isinstance(b, int) and b == 0:
            raise self.error("integer division by zero")
        mod, res = self._congruence(name, a, b)
        r = self.new_value()
        if self._nonneg_result(name, a, b):
            self.nonneg.add(r.id)
        self.emit(ir.Op(name, r, [self.operand(a), self.operand(b)]))
        return RVal(self, r, mod, res)

    def _nonneg_result(self, name, a, b) -> bool:
        def nn(x):
            return x >= 0 if isinstance(x, int) else x.v.id in self.nonneg
        if name in ("add", "mul", "shl", "div", "rem", "or", "min", "max"):
            return nn(a) and nn(b)
        if name in ("sra", "shr"):
            return nn(a) or name == "shr" and isinstance(b, int) and b > 0
        if name == "and":
            return nn(a) or nn(b)
        return False

    @staticmethod
    def _congruence(name, a, b):
        def mr(x):
            return (0, x) if isinstance(x, int) else (x.mod, x.res)
        (ma, ra), (mb, rb) = mr(a), mr(b)
        if name in ("add", "sub"):
            if isinstance(a, int):
                ma = mb
            if isinstance(b, int):
                mb = ma
            m = math.gcd(ma, mb)
            return (m, (ra + rb if name == "add" else ra - rb)) if m else (0, 0)
        if name == "mul" and isinstance(b, int) and ma:
            return ma * abs(b), ra * b
        if name == "mul" and isinstance(a, int) and mb:
            return mb * abs(a), rb * a
        if name == "shl" and isinstance(b, int) and ma:
            return ma << b, ra << b
        return 0, 0

    def compare(self, cmp, a, b):
        if is_static(a) and is_static(b):
            return _CMP_FOLD[cmp](a, b)
        return RCond(self, cmp, a, b)

    def materialize(self, c):
        """0/1 value of a condition."""
        if isinstance(c, RCond):
            a, b, cmp = c.a, c.b, c.cmp
            if cmp in ("gt", "le"):
                a, b, cmp = b, a, {"gt": "lt", "le": "ge"}[cmp]
            r = self.new_value()
            name = {"lt": "slt", "ge": "sge", "eq": "seq", "ne": "sne"}[cmp]
            self.emit(ir.Op(name, r, [self.reg(a), self.reg(b)]))
            return RVal(self, r)
        return c

    def reg(self, x) -> ir.Value:
        """A Value holding x (emits li for constants)."""
        if isinstance(x, RVal):
            return x.v
        r = self.new_value("f32" if isinstance(x, float) else "i64")
        self.emit(ir.Op("li", r, [self.operand(x)]))
        return r

    def mov_into(self, home: ir.Value, x):
        self.emit(ir.Op("mov", home, [self.operand(x)]))

    def spr(self, name):
        r = self.new_value(hint="")
        self.emit(ir.Op("mfspr", r, [], {"spr": name}))
        if name in ("block_idx", "block_num", "sub_block_idx", "sub_block_num", "core_id"):
            self.nonneg.add(r.id)
        return RVal(self, r)


_PYOP = {"div": "floordiv", "rem": "mod", "shl": "lshift", "sra": "rshift"}


class GmPtr:
    """A GM address of typed elements: the value of a GlobalAddress kernel argument (the driver
    binds one per GM argument), or one plus an element offset.  `dtype` is the language's
    DataType (only its sizeof() and name are used here)."""
    _asc_typed = True   # compiler.frontend: loop-carried values must keep their dtype

    def __init__(self, base, dtype, name: str = ""):
        self.base, self.dtype, self.name = base, dtype, name

    def __add__(self, off):
        return GmPtr(self.base + off * self.dtype.sizeof(), self.dtype, self.name)

    __radd__ = __add__

    def _asc_type_name(self):
        return f"GlobalAddress[{self.dtype.name}]"

    def _carry(self):
        return [self.base]

    def _rebuild(self, vals):
        return GmPtr(vals[0], self.dtype, self.name)
