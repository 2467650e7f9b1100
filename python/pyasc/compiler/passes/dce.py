"""Pass 6, dce: remove scalar ops whose results nobody reads.

Input IR: lowered IR (after lower).
Output IR: the same lowered IR without dead pure scalar ops (li, mov, mfspr, arithmetic).
"""
from __future__ import annotations

from .. import ir
from .common import SCALAR_BIN

_PURE = SCALAR_BIN | {"li", "mov", "mfspr"}


def dce(fn: ir.Function) -> ir.Function:
    while True:
        used = set()
        for op in ir.walk(fn.body):
            for o in ir.operands(op):
                if isinstance(o, ir.Value):
                    used.add(o.id)
            if "cfg_reg" in op.attrs:
                used.add(op.attrs["cfg_reg"].id)
            if isinstance(op, ir.For):
                used.add(op.var.id)
        removed = False

        def sweep(block):
            nonlocal removed
            keep = []
            for op in block.ops:
                for b in ir.sub_blocks(op):
                    sweep(b)
                if op.name in _PURE and op.result is not None and op.result.id not in used:
                    removed = True
                    continue
                keep.append(op)
            block.ops[:] = keep

        sweep(fn.body)
        if not removed:
            return fn
