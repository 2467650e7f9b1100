"""Pass 0 of the AIV program of a MIX_AIC_1_1 kernel (one AIV per AIC): runs before const_fold.

Input IR: the frontend's IR of the AIV program.  Output IR: the same program behind a guard that
ends the second (and any further) AIV of each AI core at once, with block_idx and block_num read
as one AIV per AI core: block_idx is the AI core's index (the hardware gives i * aiv_per_core + j,
docs/timing.md), block_num the number of AI cores.  The AIV count per AI core is read at run time
(sub_block_num), never assumed.
"""
from __future__ import annotations

from .. import ir


def mix_one_aiv(fn: ir.Function) -> ir.Function:
    nxt = [max([op.result.id for op in ir.walk(fn.body) if op.result is not None] +
               [op.var.id for op in ir.walk(fn.body) if isinstance(op, ir.For)] +
               [a.value.id for a in fn.args] + [0])]

    def new(hint):
        nxt[0] += 1
        return ir.Value(nxt[0], "i64", hint)

    def fix(block):
        out = []
        for op in block.ops:
            for sub in ir.sub_blocks(op):
                fix(sub)
            if op.name == "mfspr" and op.attrs.get("spr") in ("block_idx", "block_num"):
                raw, per = new("hw."), new("aivs.")
                out.append(ir.Op("mfspr", raw, [], dict(op.attrs), loc=op.loc))
                out.append(ir.Op("mfspr", per, [], {"spr": "sub_block_num"}, loc=op.loc))
                out.append(ir.Op("div", op.result, [raw, per], loc=op.loc))
                continue
            out.append(op)
        block.ops = out

    fix(fn.body)
    sub, zero = new("sub."), new("zero.")
    guard = ir.If(name="if", cond=("eq", sub, zero), then=ir.Block(fn.body.ops))
    fn.body.ops = [ir.Op("mfspr", sub, [], {"spr": "sub_block_idx"}), ir.Op("li", zero, [ir.Const(0)]), guard]
    return fn
