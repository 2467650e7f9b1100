"""Pass serialise (-O0 only, docs/pyasc.md "Optimisation levels"): no sync minimisation.

Input IR: IR after insert_sync (buffers placed, events resolved), before lower.
Output IR: the same IR with a full barrier (`bar all`, attrs auto=True) after every pipe item
(dma, vec, load2d, mmad, fix), so no two pipe instructions of a core ever overlap.

A barrier only adds ordering, so what the kernel computes is unchanged; it is the debugging level
where a timeline reads in program order.  Mix kernels are left alone (the driver does not run it on them): a barrier on one core
kind's pipes while the other core waits on a cross-core flag could change when that flag is set,
and the AIC/AIV hand-off is the program's own.
"""
from __future__ import annotations

from .. import ir

_ITEMS = ("dma", "vec", "load2d", "mmad", "fix")


def _block(block):
    out = []
    for op in block.ops:
        for b in ir.sub_blocks(op):
            _block(b)
        out.append(op)
        if op.name in _ITEMS and not ir.sub_blocks(op):
            out.append(ir.Op("bar", None, [], {"pipe": "all", "bpipe": "all", "auto": True}, loc=op.loc))
    block.ops[:] = out


def serialise(fn: ir.Function) -> ir.Function:
    _block(fn.body)
    return fn
