"""Helpers shared by the passes: the scalar op set, 64-bit wrap-around, operand constants.

Input/output IR: none (no pass of its own).
"""
from __future__ import annotations

import struct

from .. import ir
from ..errors import CompileError

SCALAR_BIN = {"add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "sra", "min", "max",
               "slt", "sge", "seq", "sne"}


def def_counts(fn):
    counts = {}
    for op in ir.walk(fn.body):
        if op.result is not None:
            counts[op.result.id] = counts.get(op.result.id, 0) + 1
        if isinstance(op, ir.For):
            counts[op.var.id] = counts.get(op.var.id, 0) + 2
    return counts


def wrap(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def mkey(o):
    if isinstance(o, ir.Const):
        return o.value
    if isinstance(o, ir.Value):
        return ("v", o.id)
    return repr(o)


def const_of(o):
    if isinstance(o, ir.Sym):
        if o.resolved is None:
            raise CompileError(f"internal: unresolved {o}")
        return o.resolved
    if isinstance(o, ir.Const):
        return f32_bits(o.value) if o.ty == "f32" else int(o.value)
    if isinstance(o, int):
        return o
    raise CompileError(f"internal: not a constant: {o!r}")


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]
