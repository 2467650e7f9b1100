"""Pass 1, const_fold: scalar ops whose operands are all literals become `li`.

Input IR: the frontend's IR (builder.binop already applied algebraic identities while building).
Output IR: the same IR, each foldable single-definition scalar op replaced by `li` of its value.

Folding computes what the instruction computes (isa/asc_isa.def), in exact integers on the
64-bit two's-complement values: `div` truncates toward zero and `rem` takes the dividend's sign
(real pyasc's `//` and `%` on run-time integers are arith.divsi / arith.remsi, C's `/` and `%`:
docs/pyasc.md "Integer semantics"); INT64_MIN / -1 wraps to INT64_MIN, remainder 0, as the
simulator does (sim/scalar.c).  A division by zero is left to run time (it faults there).
"""
from __future__ import annotations

from .. import ir
from .common import SCALAR_BIN, def_counts, wrap



def tdiv(a: int, b: int) -> int | None:
    """The ISA's `div` on 64-bit signed values: quotient rounded toward zero (exact integers)."""
    if b == 0:
        return None
    a, b = wrap(a), wrap(b)
    q = abs(a) // abs(b)
    return wrap(q if (a < 0) == (b < 0) else -q)


def trem(a: int, b: int) -> int | None:
    """The ISA's `rem`: a - b * div(a, b), with the sign of the dividend (0 for INT64_MIN % -1)."""
    q = tdiv(a, b)
    return None if q is None else wrap(wrap(a) - wrap(b) * q)


_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "div": tdiv, "rem": trem,
         "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
         "shl": lambda a, b: a << (b & 63), "shr": lambda a, b: (a % (1 << 64)) >> (b & 63),
         "sra": lambda a, b: a >> (b & 63), "min": min, "max": max, "slt": lambda a, b: int(a < b),
         "sge": lambda a, b: int(a >= b), "seq": lambda a, b: int(a == b), "sne": lambda a, b: int(a != b)}


def const_fold(fn: ir.Function) -> ir.Function:
    counts = def_counts(fn)
    known = {}

    def val(o):
        if isinstance(o, ir.Const) and o.ty == "i64":
            return o.value
        if isinstance(o, ir.Value) and o.id in known:
            return known[o.id]
        return None

    for op in ir.walk(fn.body):
        if op.result is None or counts.get(op.result.id, 0) != 1:
            continue
        if op.name == "li" and isinstance(op.args[0], ir.Const) and op.args[0].ty == "i64":
            known[op.result.id] = op.args[0].value
        elif op.name in SCALAR_BIN:
            a, b = (val(x) for x in op.args)
            if a is not None and b is not None:
                r = _FOLD[op.name](a, b)
                if r is not None:
                    r = wrap(r)
                    op.name, op.args = "li", [ir.Const(r)]
                    known[op.result.id] = r
    return fn
