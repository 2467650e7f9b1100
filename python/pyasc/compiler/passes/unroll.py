"""Pass unroll (-O3 only, docs/pyasc.md "Optimisation levels"): run-time loops unrolled by 2.

Input IR: IR with every Sym resolved (after insert_sync; before lower, so that lower carries the
vector mask state and literal registers from the first copy of the body into the second).
Output IR: the same IR where every innermost run-time `for v = lo to hi step s` (a body with no
loop in it, at most MAX_OPS ops) becomes

    for v = lo to hi - s step 2*s { body(v); body'(v + s) }     ; main loop, two iterations a trip
    if v < hi { body(v); v = v + s }                            ; the remainder (odd trip counts)

(a compile-time odd trip count runs the remainder without the `if`; a compile-time hi of a
run-time loop is put in a register for the `if`, whose operands codegen takes as registers).

body' is a copy of the body whose reads of v read a new value v + s (one `add` at its top); in it
and in the remainder's copy the values that live only inside one iteration (first written at the
body's top level, never read before that nor outside the body) are renamed, so no value is live
from one copy to another (codegen keeps a value live into a loop to the loop's end: a value shared
by the loop and the remainder would hold its register through the whole loop).
After both forms v holds the value the original loop left in it (codegen.py: the first value
past hi, or lo when the loop does not run), so code after the loop reads the same thing.
The pass changes no result: the copies run the same instructions in the same order, once per
original iteration; only the loop's own addi/blt per iteration, and the mask and literal set-up
that the second copy inherits from the first, go.  Loops whose body writes v or hi, and loops
with a compile-time trip count below 2, are left alone.  A kernel whose unrolled loops need more
live scalars than there are registers (codegen would spill them to GM) is compiled again without
this pass (driver.compile_kernel; the option `unroll=False` asks for that directly).
"""
from __future__ import annotations

from .. import ir

MAX_OPS = 400     # ops (recursively) in a body that is still copied: bounds the code growth


class _Ids:
    def __init__(self, fn):
        ids = [a.value.id for a in fn.args]
        for op in ir.walk(fn.body):
            if op.result is not None:
                ids.append(op.result.id)
            if isinstance(op, ir.For):
                ids.append(op.var.id)
            for o in ir.operands(op):
                if isinstance(o, ir.Value):
                    ids.append(o.id)
        self.next = max(ids + [0]) + 1

    def new(self, like: ir.Value) -> ir.Value:
        v = ir.Value(self.next, like.ty, like.hint)
        self.next += 1
        return v


def _sub(x, m):
    """x with every Value in m replaced (lists, tuples, dicts, Accesses and ops copied; other
    objects - Const, Sym, Loc, dtypes, buffer roots - shared)."""
    if isinstance(x, ir.Value):
        return m.get(x.id, x)
    if isinstance(x, list):
        return [_sub(y, m) for y in x]
    if isinstance(x, tuple):
        return tuple(_sub(y, m) for y in x)
    if isinstance(x, dict):
        return {k: _sub(v, m) for k, v in x.items()}
    if isinstance(x, ir.Access):
        return ir.Access(x.buf, _sub(x.addr, m), x.nbytes, x.root, x.desc)
    if isinstance(x, ir.Block):
        return ir.Block([_sub(op, m) for op in x.ops])
    if isinstance(x, ir.Op):
        kw = dict(name=x.name, result=_sub(x.result, m), args=_sub(x.args, m), attrs=_sub(x.attrs, m),
                  loc=x.loc, reads=_sub(x.reads, m), writes=_sub(x.writes, m))
        if isinstance(x, ir.For):
            return ir.For(**kw, var=_sub(x.var, m), lo=_sub(x.lo, m), hi=_sub(x.hi, m), step=x.step,
                          body=_sub(x.body, m))
        if isinstance(x, ir.If):
            return ir.If(**kw, cond=_sub(x.cond, m), then=_sub(x.then, m), els=_sub(x.els, m))
        if isinstance(x, ir.While):
            return ir.While(**kw, head=_sub(x.head, m), cond=_sub(x.cond, m), body=_sub(x.body, m))
        return ir.Op(**kw)
    return x


def _defs(block):
    out = set()
    for op in ir.walk(block):
        if op.result is not None:
            out.add(op.result.id)
        if isinstance(op, ir.For):
            out.add(op.var.id)
    return out


def _iteration_local(body, outside_uses):
    """Values whose first write in the body dominates every read of them in it (the write comes
    first, in a block that holds the read, directly or nested), never read outside the loop:
    each iteration computes them afresh, so a copy of the body may use new values instead."""
    first_def, reads, vals = {}, {}, {}
    pos = [0]

    def walk(block, path):
        for op in block.ops:
            pos[0] += 1
            here = pos[0]
            for o in (ir.operands(op) if not isinstance(op, ir.If) else list(op.cond[1:])):
                if isinstance(o, ir.Value):
                    reads.setdefault(o.id, []).append((here, path))
            if isinstance(op, ir.If):
                walk(op.then, path + (id(op.then),))
                walk(op.els, path + (id(op.els),))
            elif op.result is not None:
                vals[op.result.id] = op.result
                first_def.setdefault(op.result.id, (here, path))

    walk(body, ())
    out = []
    for vid, (at, path) in first_def.items():
        if vid in outside_uses:
            continue
        if all(r_at > at and r_path[:len(path)] == path for r_at, r_path in reads.get(vid, [])):
            out.append(vals[vid])
    return out


def _candidate(op):
    if not isinstance(op, ir.For) or op.step <= 0:
        return False
    if any(isinstance(o, (ir.For, ir.While)) for o in ir.walk(op.body)):
        return False
    if sum(1 for _ in ir.walk(op.body)) > MAX_OPS:
        return False
    written = _defs(op.body)
    if op.var.id in written or isinstance(op.hi, ir.Value) and op.hi.id in written:
        return False
    if isinstance(op.lo, ir.Const) and isinstance(op.hi, ir.Const):
        return len(range(op.lo.value, op.hi.value, op.step)) >= 2
    return isinstance(op.hi, (ir.Value, ir.Const)) and isinstance(op.lo, (ir.Value, ir.Const))


def _unroll(loop, ids, outside_uses):
    s = loop.step
    out = []
    if isinstance(loop.hi, ir.Const):
        hm = ir.Const(loop.hi.value - s)
    else:
        hm = ids.new(loop.hi)
        out.append(ir.Op("add", hm, [loop.hi, ir.Const(-s)], loc=loop.loc))
    v2 = ids.new(loop.var)
    m = {loc.id: ids.new(loc) for loc in _iteration_local(loop.body, outside_uses)}
    m[loop.var.id] = v2
    second = [ir.Op("add", v2, [loop.var, ir.Const(s)], loc=loop.loc)] + _sub(loop.body, m).ops
    main = ir.For(name="for", var=loop.var, lo=loop.lo, hi=hm, step=2 * s, loc=loop.loc,
                  body=ir.Block(list(loop.body.ops) + second))
    out.append(main)
    static = isinstance(loop.lo, ir.Const) and isinstance(loop.hi, ir.Const)
    if not static or len(range(loop.lo.value, loop.hi.value, s)) % 2:
        m3 = {loc.id: ids.new(loc) for loc in _iteration_local(loop.body, outside_uses)}
        rest = _sub(loop.body, m3).ops + [ir.Op("add", loop.var, [loop.var, ir.Const(s)], loc=loop.loc)]
        if static:
            out += rest                  # an odd compile-time trip count: the remainder always runs
            return out
        hi = loop.hi
        if isinstance(hi, ir.Const):
            # a compile-time bound of a run-time loop: a branch compares registers (lower puts
            # literals in registers for For bounds, not for If conditions)
            hi = ids.new(loop.var)
            out.insert(0, ir.Op("li", hi, [loop.hi], loc=loop.loc))
        out.append(ir.If(name="if", cond=("lt", loop.var, hi), then=ir.Block(rest), loc=loop.loc))
    return out


def unroll(fn: ir.Function) -> int:
    """Unrolls fn in place; returns the number of loops unrolled."""
    ids = _Ids(fn)
    done = [0]
    uses = {}                  # value id -> its reads in the whole function
    for op in ir.walk(fn.body):
        for o in ir.operands(op):
            if isinstance(o, ir.Value):
                uses[o.id] = uses.get(o.id, 0) + 1

    def block(b):
        new = []
        for op in b.ops:
            if _candidate(op):
                inside = {}
                for o2 in ir.walk(op.body):
                    for o in ir.operands(o2):
                        if isinstance(o, ir.Value):
                            inside[o.id] = inside.get(o.id, 0) + 1
                outside = {vid for vid, n in uses.items() if n > inside.get(vid, 0)}
                new += _unroll(op, ids, outside)
                done[0] += 1
                continue
            for sb in ir.sub_blocks(op):
                block(sb)
            new.append(op)
        b.ops[:] = new

    block(fn.body)
    return done[0]
