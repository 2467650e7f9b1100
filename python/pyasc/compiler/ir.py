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

from dataclasses import dataclass, field
from typing import Any


class Value:
    __slots__ = ("id", "ty", "hint")

    def __init__(self, vid: int, ty: str = "i64", hint: str = ""):
        self.id, self.ty, self.hint = vid, ty, hint

    def __repr__(self):
        return f"%{self.hint}{self.id}" if self.hint else f"%{self.id}"


@dataclass(frozen=True)
class Const:
    value: Any
    ty: str = "i64"

    def __repr__(self):
        return f"{self.value}" if self.ty == "i64" else f"{self.value}f"


class Sym:
    """A constant chosen by a later pass (buffer placement, event-id allocation)."""
    __slots__ = ("kind", "key", "offset", "resolved")

    def __init__(self, kind: str, key: Any, offset: int = 0):
        self.kind, self.key, self.offset, self.resolved = kind, key, offset, None

    def __repr__(self):
        if self.resolved is not None:
            return f"{self.resolved}"
        off = f"+{self.offset}" if self.offset else ""
        return f"@{self.kind}({self.key}){off}"


Operand = Value | Const | Sym


@dataclass
class Loc:
    file: str
    line: int
    col: int

    def __str__(self):
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Access:
    """Bytes of a local buffer (or GM) an op reads or writes."""
    buf: str                 # UB, L1, L0A, L0B, L0C, GM
    addr: Operand            # byte address (GM: absolute)
    nbytes: int | None       # None: unknown (run-time size)
    root: Any = None         # identity of the allocation (queue slot, TBuf, static tensor)
    desc: str = ""           # type text for the dump: LocalTensor[float32,VECIN]

    def __repr__(self):
        n = "?" if self.nbytes is None else self.nbytes
        return f"{self.desc or self.buf}@{self.buf}[{self.addr}, +{n}]"


@dataclass
class Op:
    name: str
    result: Value | None = None
    args: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    loc: Loc | None = None
    reads: list = field(default_factory=list)    # Access
    writes: list = field(default_factory=list)   # Access

    @property
    def pipe(self) -> str:
        return self.attrs.get("pipe", "s")


@dataclass
class Block:
    ops: list = field(default_factory=list)


@dataclass
class For(Op):
    var: Value | None = None
    lo: Operand | None = None
    hi: Operand | None = None
    step: int = 1
    body: Block = field(default_factory=Block)


@dataclass
class If(Op):
    cond: tuple = ()         # (cmp, a, b) with cmp in lt le gt ge eq ne
    then: Block = field(default_factory=Block)
    els: Block = field(default_factory=Block)


@dataclass
class While(Op):
    head: Block = field(default_factory=Block)   # computes the condition operands
    cond: tuple = ()
    body: Block = field(default_factory=Block)


@dataclass
class Arg:
    name: str
    kind: str          # gm, int, float
    dtype: Any         # DataType for gm
    value: Value


@dataclass
class Function:
    name: str
    file: str
    args: list
    body: Block
    kernel_kind: str = "aiv"
    target: str = "ascend910b"
    buffers: list = field(default_factory=list)  # placement requests (passes.BufferReq)
    fixed: list = field(default_factory=list)    # (buf, lo, hi, loc) of tensors the kernel placed itself
    events: list = field(default_factory=list)   # event Syms to allocate
    manual_events: set = field(default_factory=set)  # (src, dst, id) used by the kernel itself
    options: dict = field(default_factory=dict)


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
