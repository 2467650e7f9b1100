"""The typed IR of the pyasc compiler, and its text dump.

Users: the frontend builds it, the passes rewrite it, codegen linearises it.
Shape: a Function holds a Block of Ops.  Control flow is structured (For, If, While own their
Blocks), so every pass can recurse without a CFG.  Scalar values are virtual registers (Value,
typed i64 or f32); a Value may be written several times (`mov`), like machine IR, which keeps
loop-carried Python variables simple.  Operands are Value, Const (a literal) or Sym (a constant
a later pass decides: buffer addresses, event ids).  Tensor operands of machine ops carry an
Access describing the bytes touched, for sync insertion and for the dump.

Invariant: after the `lower` pass, machine ops take only Values and fully-static config fields;
after codegen nothing of the IR is needed any more.
"""
from __future__ import annotations

import reprlib

# The IR's records (Const, Loc, Access, Op and its structured kinds, Block, Arg, Function) are
# written out as the classes @dataclasses.dataclass made of them, method for method: the same
# __init__ parameters and defaults (a default factory gives a new list, dict or Block per object;
# an explicit None is kept), the generated __repr__ where the class has none of its own, __eq__
# on the fields of the exact same class, unhashable (Const: frozen and hashed on its fields).
# The decorator built them with exec() at import, ~5 ms of every process that imports this module
# (every launch does, for Loc); tests/python/test_ir_records.py checks them against the dataclass
# definitions they replace.  No __slots__: copy.deepcopy (passes/sync_check.py) and the frontend
# copy them through __dict__ as before.
_FACTORY = object()    # "not given": the parameter's default factory makes the value


class _Record:
    """__repr__ and __eq__ as a dataclass generates them, over the class's _FIELDS."""
    _FIELDS = ()
    __hash__ = None

    @reprlib.recursive_repr()
    def __repr__(self):
        return self.__class__.__qualname__ + "(" + ", ".join(
            f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return tuple(getattr(self, f) for f in self._FIELDS) == tuple(getattr(other, f) for f in other._FIELDS)
        return NotImplemented


class Value:
    __slots__ = ("id", "ty", "hint")

    def __init__(self, vid: int, ty: str = "i64", hint: str = ""):
        self.id, self.ty, self.hint = vid, ty, hint

    def __repr__(self):
        return f"%{self.hint}{self.id}" if self.hint else f"%{self.id}"


class Const(_Record):
    """A literal operand (frozen: hashed on its fields, assigning a field raises
    dataclasses.FrozenInstanceError)."""
    _FIELDS = __match_args__ = ("value", "ty")

    def __init__(self, value, ty: str = "i64"):
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "ty", ty)

    def __repr__(self):
        return f"{self.value}" if self.ty == "i64" else f"{self.value}f"

    def __hash__(self):
        return hash((self.value, self.ty))

    def __setattr__(self, name, value):
        raise _frozen(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise _frozen(f"cannot delete field {name!r}")


def _frozen(text):
    """The dataclasses.FrozenInstanceError a frozen dataclass raised, with its wording: a compiler
    bug's error (nothing of a kernel assigns to an IR constant), so no docs/errors.md row."""
    from dataclasses import FrozenInstanceError   # only on this error
    return FrozenInstanceError(text)


class Sym:
    """A constant chosen by a later pass (buffer placement, event-id allocation)."""
    __slots__ = ("kind", "key", "offset", "resolved")

    def __init__(self, kind: str, key, offset: int = 0):
        self.kind, self.key, self.offset, self.resolved = kind, key, offset, None

    def __repr__(self):
        if self.resolved is not None:
            return f"{self.resolved}"
        off = f"+{self.offset}" if self.offset else ""
        return f"@{self.kind}({self.key}){off}"


Operand = Value | Const | Sym


class Loc(_Record):
    """file:line:col of the Python source."""
    _FIELDS = __match_args__ = ("file", "line", "col")

    def __init__(self, file: str, line: int, col: int):
        self.file, self.line, self.col = file, line, col

    def __str__(self):
        return f"{self.file}:{self.line}:{self.col}"


class Access(_Record):
    """Bytes of a local buffer (or GM) an op reads or writes."""
    _FIELDS = __match_args__ = ("buf", "addr", "nbytes", "root", "desc")

    def __init__(self, buf: str, addr: Operand, nbytes: int | None, root=None, desc: str = ""):
        self.buf = buf          # UB, L1, L0A, L0B, L0C, GM
        self.addr = addr        # byte address (GM: absolute)
        self.nbytes = nbytes    # None: unknown (run-time size)
        self.root = root        # identity of the allocation (queue slot, TBuf, static tensor)
        self.desc = desc        # type text for the dump: LocalTensor[float32,VECIN]

    def __repr__(self):
        n = "?" if self.nbytes is None else self.nbytes
        return f"{self.desc or self.buf}@{self.buf}[{self.addr}, +{n}]"


class Op(_Record):
    """One IR operation: name, result Value, operands, attributes, source place, the Accesses it
    reads and writes."""
    _FIELDS = __match_args__ = ("name", "result", "args", "attrs", "loc", "reads", "writes")

    def __init__(self, name: str, result: Value | None = None, args: list = _FACTORY, attrs: dict = _FACTORY,
                 loc: Loc | None = None, reads: list = _FACTORY, writes: list = _FACTORY):
        self.name = name
        self.result = result
        self.args = [] if args is _FACTORY else args
        self.attrs = {} if attrs is _FACTORY else attrs
        self.loc = loc
        self.reads = [] if reads is _FACTORY else reads      # Access
        self.writes = [] if writes is _FACTORY else writes   # Access

    @property
    def pipe(self) -> str:
        return self.attrs.get("pipe", "s")


class Block(_Record):
    """A list of ops."""
    _FIELDS = __match_args__ = ("ops",)

    def __init__(self, ops: list = _FACTORY):
        self.ops = [] if ops is _FACTORY else ops


class For(Op):
    """for var = lo to hi step step: body."""
    _FIELDS = __match_args__ = Op._FIELDS + ("var", "lo", "hi", "step", "body")

    def __init__(self, name: str, result: Value | None = None, args: list = _FACTORY, attrs: dict = _FACTORY,
                 loc: Loc | None = None, reads: list = _FACTORY, writes: list = _FACTORY,
                 var: Value | None = None, lo: Operand | None = None, hi: Operand | None = None, step: int = 1,
                 body: Block = _FACTORY):
        Op.__init__(self, name, result, args, attrs, loc, reads, writes)
        self.var = var
        self.lo = lo
        self.hi = hi
        self.step = step
        self.body = Block() if body is _FACTORY else body


class If(Op):
    """if cond: then, else: els."""
    _FIELDS = __match_args__ = Op._FIELDS + ("cond", "then", "els")

    def __init__(self, name: str, result: Value | None = None, args: list = _FACTORY, attrs: dict = _FACTORY,
                 loc: Loc | None = None, reads: list = _FACTORY, writes: list = _FACTORY,
                 cond: tuple = (), then: Block = _FACTORY, els: Block = _FACTORY):
        Op.__init__(self, name, result, args, attrs, loc, reads, writes)
        self.cond = cond         # (cmp, a, b) with cmp in lt le gt ge eq ne
        self.then = Block() if then is _FACTORY else then
        self.els = Block() if els is _FACTORY else els


class While(Op):
    """while (head; cond): body."""
    _FIELDS = __match_args__ = Op._FIELDS + ("head", "cond", "body")

    def __init__(self, name: str, result: Value | None = None, args: list = _FACTORY, attrs: dict = _FACTORY,
                 loc: Loc | None = None, reads: list = _FACTORY, writes: list = _FACTORY,
                 head: Block = _FACTORY, cond: tuple = (), body: Block = _FACTORY):
        Op.__init__(self, name, result, args, attrs, loc, reads, writes)
        self.head = Block() if head is _FACTORY else head   # computes the condition operands
        self.cond = cond
        self.body = Block() if body is _FACTORY else body


class Arg(_Record):
    """A kernel argument: name, kind (gm, int, float), dtype (DataType for gm), its Value."""
    _FIELDS = __match_args__ = ("name", "kind", "dtype", "value")

    def __init__(self, name: str, kind: str, dtype, value: Value):
        self.name, self.kind, self.dtype, self.value = name, kind, dtype, value


class Function(_Record):
    """A kernel: its arguments, body and what the passes need to place and synchronise it."""
    _FIELDS = __match_args__ = ("name", "file", "args", "body", "kernel_kind", "target", "buffers", "fixed",
                                "events", "manual_events", "options")

    def __init__(self, name: str, file: str, args: list, body: Block, kernel_kind: str = "aiv",
                 target: str = "ascend910b", buffers: list = _FACTORY, fixed: list = _FACTORY,
                 events: list = _FACTORY, manual_events: set = _FACTORY, options: dict = _FACTORY):
        self.name = name
        self.file = file
        self.args = args
        self.body = body
        self.kernel_kind = kernel_kind
        self.target = target
        self.buffers = [] if buffers is _FACTORY else buffers    # placement requests (passes.BufferReq)
        self.fixed = [] if fixed is _FACTORY else fixed          # (buf, lo, hi, loc) of tensors the kernel placed itself
        self.events = [] if events is _FACTORY else events       # event Syms to allocate
        self.manual_events = set() if manual_events is _FACTORY else manual_events  # (src, dst, id) used by the kernel itself
        self.options = {} if options is _FACTORY else options


def walk(block: Block):
    """Every op of a block, depth first, structured ops before their bodies."""
    for op in block.ops:
        yield op
        for b in sub_blocks(op):
            yield from walk(b)


def sub_blocks(op: Op):
    if isinstance(op, For):
        return [op.body]
    if isinstance(op, If):
        return [op.then, op.els]
    if isinstance(op, While):
        return [op.head, op.body]
    return []


def operands(op: Op):
    """Every operand an op reads (including the bounds of structured ops)."""
    out = list(op.args)
    if isinstance(op, For):
        out += [op.lo, op.hi]
    elif isinstance(op, (If, While)):
        out += list(op.cond[1:])
    for v in op.attrs.get("cfg", {}).values():
        out.append(v)
    m = op.attrs.get("mask")
    if m:
        out += list(m[1:])
    for a in op.reads + op.writes:
        out.append(a.addr)
    return out


# ---- text dump -------------------------------------------------------------------------
def _fmt_attrs(op: Op) -> str:
    parts = []
    for k, v in op.attrs.items():
        if k in ("pipe",):
            continue
        if k == "cfg":
            parts.append("cfg{" + ", ".join(f"{a}={b}" for a, b in v.items()) + "}")
        else:
            parts.append(f"{k}={v}")
    return " ".join(parts)


def dump_block(block: Block, indent: int, out: list):
    pad = "  " * indent
    for op in block.ops:
        loc = f"  ; {op.loc.line}:{op.loc.col}" if op.loc else ""
        if isinstance(op, For):
            out.append(f"{pad}for {op.var}:i64 = {op.lo} to {op.hi} step {op.step} {{{loc}")
            dump_block(op.body, indent + 1, out)
            out.append(f"{pad}}}")
        elif isinstance(op, If):
            c, a, b = op.cond
            out.append(f"{pad}if {a} {c} {b} {{{loc}")
            dump_block(op.then, indent + 1, out)
            if op.els.ops:
                out.append(f"{pad}}} else {{")
                dump_block(op.els, indent + 1, out)
            out.append(f"{pad}}}")
        elif isinstance(op, While):
            out.append(f"{pad}while {{{loc}")
            dump_block(op.head, indent + 1, out)
            c, a, b = op.cond
            out.append(f"{pad}}} cond {a} {c} {b} do {{")
            dump_block(op.body, indent + 1, out)
            out.append(f"{pad}}}")
        else:
            res = f"{op.result}:{op.result.ty} = " if op.result is not None else ""
            args = ", ".join(repr(a) for a in op.args)
            pipe = f" [{op.pipe}]" if op.pipe != "s" else ""
            acc = ""
            if op.writes:
                acc += " writes " + ", ".join(map(repr, op.writes))
            if op.reads:
                acc += " reads " + ", ".join(map(repr, op.reads))
            at = _fmt_attrs(op)
            out.append(f"{pad}{res}{op.name}{pipe} {args}{(' ' + at) if at else ''}{acc}{loc}".rstrip())


def dump(fn: Function) -> str:
    out = [f"; pyasc IR of {fn.name} ({fn.file}), kernel kind {fn.kernel_kind}, target {fn.target}"]
    sig = ", ".join(f"{a.value}:{'GlobalAddress[' + a.dtype.name + ']' if a.kind == 'gm' else ('i64' if a.kind == 'int' else 'f32')} {a.name}"
                    for a in fn.args)
    out.append(f"func @{fn.name}({sig}) {{")
    for b in fn.buffers:
        out.append(f"  ; buffer {b}")
    dump_block(fn.body, 1, out)
    out.append("}")
    return "\n".join(out) + "\n"
