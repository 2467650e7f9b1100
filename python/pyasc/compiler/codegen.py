"""Codegen: lowered IR -> asc assembly text (docs/assembly.md syntax), with `.loc` source lines.

Users: compiler.driver.  Steps: linearise the structured IR into instructions over virtual
registers and labels; compute live intervals (a value live into a loop stays live to its end);
colour them with the allocatable registers of compiler/abi.py (kernel arguments pinned to the
argument registers where they arrive; the assembler keeps its temporary); print.  Config registers whose fields are all static use the assembler's named
form (`vadd.f32 x3, x1, x2, repeat=8, blk=1,1,1, rep=8,8,8`), so the listing reads like a
hand-written kernel.  A kernel needing more live scalars than registers is allocated again by
compiler.regalloc, which spills to a per-block GM stack area (a hidden `__pyasc_stack` argument).
"""
from __future__ import annotations

from . import abi, ir, isa, regalloc
from .errors import CompileError

_NREGS = len(abi.ALLOCATABLE)  # every register but the assembler's (compiler/abi.py)
_ARGS_END = abi.FIRST_ARG_REG + abi.ARG_REGS  # registers past the argument window are taken first
_INV = {"lt": ("bge", False), "ge": ("blt", False), "gt": ("bge", True), "le": ("blt", True),
        "eq": ("bne", False), "ne": ("beq", False)}
_IMM = {"add": "addi", "and": "andi", "or": "ori", "xor": "xori", "shl": "shli", "shr": "shri",
        "sra": "srai", "mul": "muli", "slt": "slti"}


class _Ins:
    __slots__ = ("op", "ops", "loc", "label")

    def __init__(self, op, ops=(), loc=None, label=None):
        self.op, self.ops, self.loc, self.label = op, list(ops), loc, label


class _Lin:
    def __init__(self, prefix=""):
        self.prefix = prefix    # label prefix: the AIV program of a mix kernel uses "V"
        self.code: list[_Ins] = []
        self.loops = []   # (start, end) index ranges
        self.n = 0

    def label(self, base):
        self.n += 1
        return f"{self.prefix}L{self.n}_{base}"

    def emit(self, op, ops=(), loc=None):
        self.code.append(_Ins(op, ops, loc))

    def put_label(self, name):
        self.code.append(_Ins(None, (), None, name))

    def block(self, block):
        for op in block.ops:
            self.op(op)

    def op(self, op):
        loc = op.loc
        if isinstance(op, ir.For):
            head, end = self.label("for"), self.label("endfor")
            if isinstance(op.lo, ir.Value):
                self.emit("mov", [op.var, op.lo], loc)
            else:
                self.emit("li", [op.var, op.lo.value], loc)
            start = len(self.code)
            if op.step > 0:
                self.emit("bge", [op.var, op.hi, end], loc)
            else:
                self.emit("bge", [op.hi, op.var, end], loc)
            self.put_label(head)
            self.block(op.body)
            self.emit("addi", [op.var, op.var, op.step], loc)
            if op.step > 0:
                self.emit("blt", [op.var, op.hi, head], loc)
            else:
                self.emit("blt", [op.hi, op.var, head], loc)
            self.put_label(end)
            self.loops.append((start, len(self.code)))
            return
        if isinstance(op, ir.If):
            els, end = self.label("else"), self.label("endif")
            cmp, a, b = op.cond
            mn, swap = _INV[cmp]
            self.emit(mn, [b, a, els] if swap else [a, b, els], loc)
            self.block(op.then)
            if op.els.ops:
                self.emit("j", [end], loc)
                self.put_label(els)
                self.block(op.els)
                self.put_label(end)
            else:
                self.put_label(els)
            return
        if isinstance(op, ir.While):
            head, end = self.label("while"), self.label("endwhile")
            start = len(self.code)
            self.put_label(head)
            self.block(op.head)
            cmp, a, b = op.cond
            mn, swap = _INV[cmp]
            self.emit(mn, [b, a, end] if swap else [a, b, end], loc)
            self.block(op.body)
            self.emit("j", [head], loc)
            self.put_label(end)
            self.loops.append((start, len(self.code)))
            return
        n = op.name
        if n == "li":
            self.emit("li", [op.result, op.args[0].value], loc)
        elif n == "mov":
            self.emit("mov", [op.result, op.args[0]], loc)
        elif n in _IMM and isinstance(op.args[1], ir.Const):
            self.emit(_IMM[n], [op.result, op.args[0], op.args[1].value], loc)
        elif n in ("add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "sra", "min", "max",
                   "slt", "sge", "seq", "sne"):
            self.emit(n, [op.result] + op.args, loc)
        elif n == "sbit":       # scalar bit counts / cvt (language/ops.py scalar_*)
            tail = [op.attrs[k] for k in ("cvp", "rnd") if k in op.attrs]      # cvt: type pair, rounding
            self.emit(op.attrs["mnem"], [op.result] + op.args + tail, loc)
        elif n == "mfspr":
            self.emit("mfspr", [op.result, op.attrs["spr"]], loc)
        elif n == "mtspr":
            self.emit("mtspr", [op.attrs["spr"], op.args[0]], loc)
        elif n == "prt":        # device print channel (language/debug.py)
            self.emit(op.attrs["mnem"], op.args, loc)
        elif n == "la":         # the GM address of a .rodata label (language/debug.py strings)
            self.emit("la", [op.result, op.attrs["sym"]], loc)
        elif n == "xcore":      # cross-core flags (language/ops.py cross_core_set/wait_flag)
            self.emit(op.attrs["mnem"], op.attrs["ops"], loc)
        elif n in ("set_mask_count", "set_mask_norm", "sync_all"):
            self.emit(n, [], loc)
        elif n in ("set_flag", "wait_flag"):
            self.emit(n, [op.attrs["src"], op.attrs["dst"], op.attrs["event"]], loc)
        elif n == "bar":
            self.emit("bar", [op.attrs["bpipe"]], loc)
        elif n == "ld":
            self.emit(op.attrs["mnem"], [op.result, ("mem", op.args[0])], loc)
        elif n == "st":
            self.emit(op.attrs["mnem"], [op.args[0], ("mem", op.args[1])], loc)
        elif n in ("vec", "dma", "load2d", "mmad", "fix"):
            mn = op.attrs["mnem"]
            ops = list(op.args)
            tail = []
            if "cfg_reg" in op.attrs:
                ops.append(op.attrs["cfg_reg"])
            elif "cfg_word" in op.attrs:
                tail.append(("cfg", op.attrs["layout"], op.attrs["cfg"]))
            if "cond" in op.attrs:
                tail.append(op.attrs["cond"])
            if "cvp" in op.attrs:          # vconv.x's type pair, before its rounding mode
                tail.append(op.attrs["cvp"])
            if "rnd" in op.attrs:
                tail.append(op.attrs["rnd"])
            self.emit(mn, ops + tail, loc)
        else:
            raise CompileError(f"internal: no code for IR op '{n}'", loc)


def _fmt_cfg(layout, cfg):
    slots = isa.field_slots(layout)
    parts = []
    for k, vals in cfg.items():
        defaults = [d for (_, _, d) in slots[k]]
        vals = list(vals) + defaults[len(vals):]
        if vals == defaults and k != "repeat":
            continue
        parts.append(f"{k}=" + ",".join(str(v) for v in vals))
    if not parts and cfg:
        # every field at its default (e.g. a DataCopyParams with block_len 0, an ISA no-op): the
        # assembler still wants the operand, so spell out the first field
        k, vals = next(iter(cfg.items()))
        defaults = [d for (_, _, d) in slots[k]]
        parts.append(f"{k}=" + ",".join(str(v) for v in list(vals) + defaults[len(vals):]))
    return ", ".join(parts)


def intervals(lin: _Lin, args: list):
    """Live intervals (first, last instruction index) of every value; arguments start at 0, and a
    value live into a loop stays live to the loop's end."""
    first, last = {}, {}
    for i, ins in enumerate(lin.code):
        for o in ins.ops:
            v = o[1] if isinstance(o, tuple) and o and o[0] == "mem" else o
            if isinstance(v, ir.Value):
                first.setdefault(v.id, i)
                last[v.id] = i
    for a in args:
        first[a.value.id] = 0
        last.setdefault(a.value.id, 0)
    changed = True
    while changed:
        changed = False
        for (ls, le) in lin.loops:
            for vid in first:
                s, e = first[vid], last[vid]
                if s < ls <= e < le or (s < ls and ls <= e and e < le):
                    last[vid] = le
                    changed = True
    return first, last


def allocate(lin: _Lin, args: list, first: dict, last: dict) -> dict | None:
    """Linear scan over the allocatable registers without spilling; None when some value finds no free register."""
    pinned = {}
    for idx, a in enumerate(args):
        pinned[a.value.id] = idx
    order = sorted(first, key=lambda v: (first[v], v))
    assign = dict(pinned)
    busy_until = {}
    for vid, r in pinned.items():
        busy_until[r] = last[vid]
    for vid in order:
        if vid in assign:
            continue
        s = first[vid]
        free = [r for r in range(_NREGS) if busy_until.get(r, -1) < s]
        if not free:
            return None
        # prefer registers above the argument window to keep arguments' home registers free
        hi = [r for r in free if r >= _ARGS_END]
        r = hi[0] if hi else free[0]
        assign[vid] = r
        busy_until[r] = last[vid]
    return assign


def _program(fn: ir.Function, need_stack: bool = False, mix: bool = False, prefix: str = ""):
    """Allocate and print one program: (allocated Lin, regs, body lines).  need_stack adds the
    spill area argument even when this program does not spill (the other program of a mix kernel
    does: both take the same arguments).  In a mix kernel the AIC and its AIVs have overlapping
    block_idx ranges, so the spill frame is indexed by core_id (the launcher places one frame per
    core, runtime/launch.py)."""
    lin = _Lin(prefix)
    lin.block(fn.body)
    lin.emit("end", [], None)
    first, last = intervals(lin, fn.args)
    regs = allocate(lin, fn.args, first, last)
    if regs is None:   # more live values than registers: spill to the GM stack area (compiler.regalloc)
        stack = ir.Value(max([0] + list(first)) + 1, "i64", "stack")
        try:
            regs, lin.code = regalloc.allocate_with_spills(lin, fn.args, first, last, stack)
        except CompileError as e:
            if e.loc is not None:
                raise
            # the whole kernel is at fault: name its first line
            raise CompileError(e.msg, next((i.loc for i in lin.code if getattr(i, "loc", None)), None)) from None
        fn.args.append(ir.Arg(regalloc.STACK_ARG, "stack", None, stack))
        if mix:
            assert lin.code[0].op == "mfspr" and lin.code[0].ops[1] == "block_idx"
            lin.code[0].ops[1] = "core_id"
    elif need_stack and not any(a.kind == "stack" for a in fn.args):
        fn.args.append(ir.Arg(regalloc.STACK_ARG, "stack", None, None))
    return _body(lin, regs)


def _arg_lines(fn: ir.Function) -> list:
    out = []
    for a in fn.args:
        if a.kind == "gm":
            out.append(f".arg {a.name}, gm, {a.dtype.isa}")
        elif a.kind in ("stack", "sysws"):       # sysws: language/sys_workspace.py
            out.append(f".arg {a.name}, gm, u8")
        else:
            out.append(f".arg {a.name}, {a.kind}")
    return out


def emit_asm(fn: ir.Function) -> str:
    body = _program(fn)
    out = [f"; generated by pyasc from {fn.file}",
           f".target {fn.target}",
           f".kernel {fn.name}, {fn.kernel_kind}"] + _arg_lines(fn)
    return "\n".join(out + body + _rodata(fn)) + "\n"


def emit_asm_mix(aic: ir.Function, aiv: ir.Function) -> str:
    """One `.kernel NAME, mix` with its `.aic` then `.aiv` program (docs/assembly.md); both
    programs take the same arguments."""
    b_aic = _program(aic, mix=True)
    b_aiv = _program(aiv, need_stack=any(a.kind == "stack" for a in aic.args), mix=True, prefix="V")
    if any(a.kind == "stack" for a in aiv.args) and not any(a.kind == "stack" for a in aic.args):
        aic.args.append(ir.Arg(regalloc.STACK_ARG, "stack", None, None))
    out = [f"; generated by pyasc from {aic.file}",
           f".target {aic.target}",
           f".kernel {aic.name}, mix"] + _arg_lines(aic) + [".aic"] + b_aic + [".aiv"] + b_aiv
    return "\n".join(out + _rodata(aic) + _rodata(aiv)) + "\n"


def _rodata(fn: ir.Function) -> list:
    """The kernel's .rodata strings (language/debug.py printf formats), one label each."""
    out = []
    for label, data in fn.options.get("rodata", []):
        out += [".rodata", f"{label}:", "        .byte " + ", ".join(str(x) for x in data)]
    return out


# A conditional branch's inverse (the short branch that skips the long `j` of its relaxed form).
_NEG = {"beq": "bne", "bne": "beq", "blt": "bge", "bge": "blt", "bltu": "bgeu", "bgeu": "bltu"}
_LI_WORDS = 4       # `li` expands to at most 4 words, a named-config form to that `li` + 1 (docs/assembly.md §5, §6)


def _words_max(ins: _Ins) -> int:
    """An upper bound of the words a line assembles to (0 for a label)."""
    if ins.label:
        return 0
    if ins.op == "li":
        return _LI_WORDS
    if any(isinstance(o, tuple) and o and o[0] == "cfg" for o in ins.ops):
        return _LI_WORDS + 1
    return 1


def relax_branches(lin: _Lin) -> None:
    """A conditional branch whose target may lie past its format's reach (isa.json formats.BR.off,
    from isa/asc_fmt.def) becomes its inverse over a `j` (24-bit reach): `blt a, b, L` ->
    `bge a, b, Lskip; j L; Lskip:`.  Distances are bounded from above (_words_max), so a branch
    that stays short is certainly in range; a kernel whose branches all fit assembles as before.
    Repeated to a fixed point, as each relaxed branch lengthens the code around it."""
    lo, hi = isa.table()["formats"]["BR"]["off"]
    while True:
        pos, at = [], 0
        for ins in lin.code:
            pos.append(at)
            at += 4 * _words_max(ins)
        where = {ins.label: pos[i] for i, ins in enumerate(lin.code) if ins.label}
        far = []
        for i, ins in enumerate(lin.code):
            # every line between a branch and its target takes at most its bound, so the bounds'
            # difference bounds the real offset (same sign, at least as far)
            if ins.op in _NEG and isinstance(ins.ops[2], str) and ins.ops[2] in where \
                    and not lo <= where[ins.ops[2]] - pos[i] <= hi:
                far.append(i)
        if not far:
            return
        for i in reversed(far):
            ins = lin.code[i]
            skip = lin.label("near")
            lin.code[i:i + 1] = [_Ins(_NEG[ins.op], ins.ops[:2] + [skip], ins.loc),
                                 _Ins("j", [ins.ops[2]], ins.loc), _Ins(None, (), None, skip)]


def _body(lin: _Lin, regs: dict) -> list:
    relax_branches(lin)
    out = []
    cur = None

    def r(o):
        if isinstance(o, ir.Value):
            return f"x{regs[o.id]}"
        if isinstance(o, tuple) and o[0] == "mem":
            return f"{o[2] if len(o) > 2 else 0}({r(o[1])})"
        if isinstance(o, tuple) and o[0] == "cfg":
            return _fmt_cfg(o[1], o[2])
        if isinstance(o, int) and o == -(1 << 63):
            return "0x8000000000000000"     # the assembler reads -9223372036854775808 as -(2**63), which overflows
        return str(o)

    for ins in lin.code:
        if ins.label:
            out.append(f"{ins.label}:")
            continue
        if ins.loc is not None and (cur is None or (ins.loc.file, ins.loc.line, ins.loc.col) != cur):
            cur = (ins.loc.file, ins.loc.line, ins.loc.col)
            out.append(f'.loc "{ins.loc.file}", {ins.loc.line}, {ins.loc.col}')
        if ins.op == "mov" and isinstance(ins.ops[0], ir.Value) and isinstance(ins.ops[1], ir.Value) and \
                regs[ins.ops[0].id] == regs[ins.ops[1].id]:
            continue
        ops = ", ".join(x for x in (r(o) for o in ins.ops) if x != "")
        out.append(f"        {ins.op:<13} {ops}".rstrip())
    return out
