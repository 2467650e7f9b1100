"""Register allocation with spilling, for kernels that need more than 31 live scalar values.

Users: compiler.codegen, only when its plain linear scan (no spilling) finds no free register;
a kernel that fits in registers never reaches this module, so its assembly is unchanged.

ABI (docs/pyasc.md "Register spilling"): the scalar unit's loads and stores reach GM only
(isa/asc_isa.def ld.* / st.*), so spill slots live in GM.  The compiler appends a hidden
argument `__pyasc_stack` (kind "stack" in Compiled.args, `.arg __pyasc_stack, gm, u8` in the
assembly); the launcher places SPILL_FRAME_BYTES * blocks bytes of GM for it, apart from every
kernel buffer.  Block b's frame is [stack + b * SPILL_FRAME_BYTES, +SPILL_FRAME_BYTES); x30 holds
the frame pointer from the prologue on, and the S registers below it are scratch registers for
the spilled operands of one instruction (S = the most distinct values one instruction names).

Method: the same live intervals as codegen (a value live into a loop stays live to its end);
linear scan over x0..x(29-S) where, when no register is free, the interval that ends last
(the current one or an active one) is spilled (Poletto and Sarkar's heuristic).  A spilled
value lives in its 8-byte slot everywhere: each instruction that reads it loads it into a
scratch register first (ld.d), each that writes it stores the scratch register after (st.d).
A value whose one definition is `li v, imm` (a literal the lowering keeps in a register for its
block, passes/lower.py) is rematerialised instead: it takes no slot, its `li` is dropped and each
reader gets `li scratch, imm` (1-4 scalar words, where a GM ld.d waits for GM), and such values
are spilled before any other (the unrolled asc.adv.Matmul lowering names hundreds of constant
L1 / L0 addresses: their GM reloads made it scalar bound).
"""
from __future__ import annotations

from . import abi, ir
from .errors import CompileError

SPILL_FRAME_BYTES = 8192     # one block's frame: ld.d/st.d offsets reach 0..8191 (14-bit imm)
STACK_ARG = "__pyasc_stack"
_FP = abi.ALLOCATABLE[-1]     # the frame pointer: the last allocatable register (compiler/abi.py)
_SLOTS = SPILL_FRAME_BYTES // 8
_DEFS = {"li", "mov", "mfspr", "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "sra",
         "min", "max", "slt", "sge", "seq", "sne", "addi", "andi", "ori", "xori", "shli", "shri", "srai",
         "muli", "slti", "clz", "popc", "cls", "sff1", "cvt"}


def defines(op: str) -> bool:
    """True when the instruction's first operand is the register it writes."""
    return op in _DEFS or op.startswith("ld.")


def _values(ops):
    out = []
    for o in ops:
        v = o[1] if isinstance(o, tuple) and o and o[0] == "mem" else o
        if isinstance(v, ir.Value) and all(v is not w and v.id != w.id for w in out):
            out.append(v)
    return out


def allocate_with_spills(lin, args, first, last, stack_value):
    """Registers for every value of `lin` (codegen's linearised code) with spilling.  `first` and
    `last` are codegen's live intervals (args pinned at 0).  Returns (regs, code): regs maps value
    id -> register, code is lin.code rewritten with the prologue, loads and stores."""
    nscratch = max([len(_values(ins.ops)) for ins in lin.code if ins.op] + [1])
    pool = list(range(_FP - nscratch))
    if len(args) + 1 > abi.ARG_REGS:
        raise CompileError(f"the kernel needs more than {len(abi.ALLOCATABLE)} live scalar values, so its spill "
                           f"area takes an argument register, but it already has {abi.ARG_REGS} run-time "
                           "arguments: pass fewer arguments")
    pinned = {a.value.id: i for i, a in enumerate(args)}
    pinned[stack_value.id] = len(args)
    first, last = dict(first), dict(last)
    first[stack_value.id], last[stack_value.id] = 0, 0
    ndef, remat = {}, {}
    for ins in lin.code:
        if ins.op and defines(ins.op) and ins.ops and isinstance(ins.ops[0], ir.Value):
            vid = ins.ops[0].id
            ndef[vid] = ndef.get(vid, 0) + 1
            if ins.op == "li" and len(ins.ops) == 2 and isinstance(ins.ops[1], int) and \
                    not isinstance(ins.ops[1], bool):
                remat[vid] = ins.ops[1]
    remat = {v: imm for v, imm in remat.items() if ndef[v] == 1 and v not in pinned}

    def key(o):
        return (o in remat, last[o], o)
    assign, spilled = {}, []
    owner = {}                                   # register -> value id holding it
    for vid, r in pinned.items():
        assign[vid] = r
        owner[r] = vid
    for vid in sorted(first, key=lambda v: (first[v], v)):
        if vid in pinned:
            continue
        s = first[vid]
        free = [r for r in pool if r not in owner or last[owner[r]] < s]
        if free:
            hi = [r for r in free if r >= abi.FIRST_ARG_REG + abi.ARG_REGS]
            r = hi[0] if hi else free[0]
        else:
            cand = max((o for o in owner.values() if o != stack_value.id), key=key)
            if key(cand) <= key(vid):
                spilled.append(vid)
                continue
            r = assign.pop(cand)
            spilled.append(cand)
        assign[vid] = r
        owner[r] = vid
    rm = {vid for vid in spilled if vid in remat}
    spilled = [vid for vid in spilled if vid not in rm]
    if len(spilled) > _SLOTS:
        raise CompileError(f"the kernel needs {len(spilled)} spilled scalar values at once, more than the "
                           f"{_SLOTS} slots of a {SPILL_FRAME_BYTES}-byte spill frame: simplify the scalar code")
    slot = {vid: 8 * i for i, vid in enumerate(sorted(spilled))}
    regs = {vid: r for vid, r in assign.items() if vid not in slot and vid not in rm}
    fp = ir.Value(-1, "i64", "fp")
    regs[fp.id] = _FP
    scratch = []
    for k in range(nscratch):
        v = ir.Value(-2 - k, "i64", "spill")
        regs[v.id] = _FP - nscratch + k
        scratch.append(v)
    ins_t = type(lin.code[0])
    code = [ins_t("mfspr", [fp, "block_idx"]),
            ins_t("shli", [fp, fp, SPILL_FRAME_BYTES.bit_length() - 1]),
            ins_t("add", [fp, fp, stack_value])]
    regs[stack_value.id] = pinned[stack_value.id]
    for a in args:
        if a.value.id in slot:
            home = ir.Value(-100 - pinned[a.value.id], "i64", "arg")
            regs[home.id] = pinned[a.value.id]
            code.append(ins_t("st.d", [home, ("mem", fp, slot[a.value.id])]))
    for ins in lin.code:
        if not ins.op:
            code.append(ins)
            continue
        if ins.op == "li" and ins.ops and isinstance(ins.ops[0], ir.Value) and ins.ops[0].id in rm:
            continue                    # rematerialised at each reader
        sp = [v for v in _values(ins.ops) if v.id in slot or v.id in rm]
        if not sp:
            code.append(ins)
            continue
        sub = {v.id: scratch[k] for k, v in enumerate(sp)}
        d = defines(ins.op)
        dst = ins.ops[0] if d and isinstance(ins.ops[0], ir.Value) else None
        for v in sp:
            used = any((o is v or (isinstance(o, ir.Value) and o.id == v.id)) and (i > 0 or not d)
                       or (isinstance(o, tuple) and o and o[0] == "mem" and o[1].id == v.id)
                       for i, o in enumerate(ins.ops))
            if used and v.id in rm:
                code.append(ins_t("li", [sub[v.id], remat[v.id]], ins.loc))
            elif used:
                code.append(ins_t("ld.d", [sub[v.id], ("mem", fp, slot[v.id])], ins.loc))

        def rn(o):
            if isinstance(o, ir.Value) and o.id in sub:
                return sub[o.id]
            if isinstance(o, tuple) and o and o[0] == "mem" and o[1].id in sub:
                return ("mem", sub[o[1].id]) + tuple(o[2:])
            return o
        code.append(ins_t(ins.op, [rn(o) for o in ins.ops], ins.loc))
        if dst is not None and dst.id in slot:
            code.append(ins_t("st.d", [sub[dst.id], ("mem", fp, slot[dst.id])], ins.loc))
    return regs, code
