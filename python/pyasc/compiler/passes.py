"""IR passes, run in this order by compiler.driver:

1. const_fold     scalar ops whose operands are all literals become `li`; algebraic identities
                  were already applied while building (builder.binop).
2. alloc_events   event ids for the TQue flags, per HardEvent, avoiding ids the kernel uses by
                  hand and id 6 (reserved for the system); 7 is the last resort, as in TPipe.
3. place_buffers  addresses of TQue/TBuf buffers: aligned, checked against the target's capacity,
                  and skewed by 256 B so the two sources of a binary vector op sit in different
                  UB bank groups (group = address bits [8:5]).
4. insert_sync    (insert_sync=True) set/wait pairs between pipes for LocalTensor code: set after
                  the producer, wait before the consumer, loop-carried pairs pre-set (sync.py).
5. lower          machine form: literals into registers, run-time config registers packed with
                  scalar ops, vector mask / counter mode set only when it changes within a block.
6. dce            scalar ops whose results nobody reads.
Every pass takes and returns the Function; none of them changes what the kernel computes.
"""
from __future__ import annotations

import struct

from . import ir, isa
from .errors import CompileError

_SCALAR_BIN = {"add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "sra", "min", "max",
               "slt", "sge", "seq", "sne"}
_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "div": lambda a, b: int(a / b) if b else None, "rem": lambda a, b: (a - b * int(a / b)) if b else None,
         "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
         "shl": lambda a, b: a << (b & 63), "shr": lambda a, b: (a % (1 << 64)) >> (b & 63),
         "sra": lambda a, b: a >> (b & 63), "min": min, "max": max, "slt": lambda a, b: int(a < b),
         "sge": lambda a, b: int(a >= b), "seq": lambda a, b: int(a == b), "sne": lambda a, b: int(a != b)}


def _def_counts(fn):
    counts = {}
    for op in ir.walk(fn.body):
        if op.result is not None:
            counts[op.result.id] = counts.get(op.result.id, 0) + 1
        if isinstance(op, ir.For):
            counts[op.var.id] = counts.get(op.var.id, 0) + 2
    return counts


# ---- 1. constant folding ---------------------------------------------------------------------
def const_fold(fn: ir.Function) -> ir.Function:
    counts = _def_counts(fn)
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
        elif op.name in _SCALAR_BIN:
            a, b = (val(x) for x in op.args)
            if a is not None and b is not None:
                r = _FOLD[op.name](a, b)
                if r is not None:
                    r = _wrap(r)
                    op.name, op.args = "li", [ir.Const(r)]
                    known[op.result.id] = r
    return fn


def _wrap(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


# ---- 2. event ids ----------------------------------------------------------------------------
def alloc_events(fn: ir.Function, target: dict) -> ir.Function:
    n = target.get("event_ids", 8)
    order = [i for i in range(n) if i != 6] + ([6] if n > 6 else [])
    order = [i for i in order if i != 7] + ([7] if 7 in order else [])  # 7 last, 6 never
    order = [i for i in order if i != 6]
    used = {}
    for s in fn.events:
        ev = s.key[0]
        taken = used.setdefault(ev, {i for (e, i) in fn.manual_events if e == ev})
        free = [i for i in order if i not in taken]
        if not free:
            req = next((b for b in fn.buffers if b.key == s.key[1]), None)
            need = sum(1 for t in fn.events if t.key[0] == ev)
            raise CompileError(f"out of event ids for HardEvent {ev}: the TQue buffers need {need}, "
                               f"{fn.target} has {len(order)} usable ids ({', '.join(map(str, order))}; "
                               f"6 is reserved) minus {len(taken) - (need - len(free)) if False else len([i for (e, i) in fn.manual_events if e == ev])} used by hand",
                               req.loc if req else None)
        s.resolved = free[0]
        taken.add(free[0])
    return fn


# ---- 3. buffer placement -----------------------------------------------------------------------
def _capacity(target, buf):
    if buf == "UB":
        return target["ub_bytes"] - target.get("ub_reserved_bytes", 0)
    return target[{"L1": "l1_bytes", "L0A": "l0a_bytes", "L0B": "l0b_bytes", "L0C": "l0c_bytes"}[buf]]


def _align(target, buf):
    return target.get({"UB": "ub_align", "L1": "l1_align", "L0A": "l0ab_align", "L0B": "l0ab_align",
                       "L0C": "l0c_align"}[buf], 32)


def _kb(n):
    return f"{n / 1024:g}"


def place_buffers(fn: ir.Function, target: dict, avoid_bank_conflicts: bool = True) -> ir.Function:
    reqs = {b.key: b for b in fn.buffers}
    # binary vector ops reading two different queue buffers: place them in different bank groups
    for op in ir.walk(fn.body):
        if op.name == "vec" and len(op.reads) >= 2:
            k0, k1 = (a.root[0] if isinstance(a.root, tuple) and isinstance(a.root[0], str) else None
                      for a in op.reads[:2])
            if k0 in reqs and k1 in reqs and k0 != k1:
                reqs[k1].partners.add(k0)
    group_period = 32 * target.get("ub_bank_groups", 16)     # 512 B: bank group = bits [8:5]
    cursor = {}
    for req in fn.buffers:
        al = _align(target, req.buf)
        start = -(-cursor.get(req.buf, 0) // al) * al
        slot = -(-req.nbytes // al) * al
        if avoid_bank_conflicts and req.buf == "UB":
            for pk in sorted(req.partners):
                p = reqs[pk]
                if p.addrs is not None:
                    want = (p.addrs[0] + group_period // 2) % group_period
                    pad = (want - start) % group_period
                    start += pad
                    break
        req.addrs = [start + i * slot for i in range(req.num)]
        cursor[req.buf] = start + req.num * slot
        cap = _capacity(target, req.buf)
        if cursor[req.buf] > cap:
            total = cursor[req.buf] + sum(-(-r.nbytes // al) * al * r.num for r in fn.buffers
                                          if r.buf == req.buf and r.addrs is None)
            raise CompileError(f"{req.buf} capacity exceeded: requested {_kb(total)} KB, available "
                               f"{_kb(cap)} KB on {fn.target}", req.loc)
    for op in ir.walk(fn.body):
        for o in ir.operands(op):
            if isinstance(o, ir.Sym) and o.kind == "buf":
                key, s = o.key
                o.resolved = reqs[key].addrs[s] + o.offset
    return fn


# ---- 4. automatic sync for LocalTensor code ------------------------------------------------------
def insert_sync(fn: ir.Function, target: dict) -> ir.Function:
    """Flags between pipes for LocalTensor code, placed for overlap (compiler.sync)."""
    from . import sync
    return sync.insert_sync(fn, target)


# ---- 5. lowering to machine form ----------------------------------------------------------------
_IMM_FORMS = {"add": "addi", "and": "andi", "or": "ori", "xor": "xori", "shl": "shli", "shr": "shri",
              "sra": "srai", "mul": "muli", "slt": "slti"}


class _Lower:
    def __init__(self, fn):
        self.fn = fn
        self._next = max([op.result.id for op in ir.walk(fn.body) if op.result is not None] +
                         [op.var.id for op in ir.walk(fn.body) if isinstance(op, ir.For)] +
                         [a.value.id for a in fn.args] + [0]) + 1

    def new(self, hint=""):
        self._next += 1
        return ir.Value(self._next, "i64", hint)

    def block(self, block: ir.Block, top=False, parent_cache=None):
        out = []
        cache = dict(parent_cache or {})
        mask = ["?", "?", "?"] if top else ["norm", -1, -1]

        def reg(o, loc):
            if isinstance(o, ir.Value):
                return o
            v = _const_of(o)
            if v in cache:
                return cache[v]
            r = self.new()
            out.append(ir.Op("li", r, [ir.Const(v)], loc=loc))
            cache[v] = r
            return r

        def canon(loc):
            if mask[0] != "norm":
                out.append(ir.Op("set_mask_norm", None, [], loc=loc))
                mask[0] = "norm"
            for i, spr in ((1, "mask0"), (2, "mask1")):
                if mask[i] != -1:
                    out.append(ir.Op("mtspr", None, [reg(ir.Const(-1), loc)], {"spr": spr}, loc=loc))
                    mask[i] = -1

        for op in block.ops:
            if isinstance(op, (ir.For, ir.If, ir.While)):
                canon(op.loc)
                if isinstance(op, ir.For):
                    op.lo = op.lo if isinstance(op.lo, ir.Value) else ir.Const(_const_of(op.lo))
                    op.hi = reg(op.hi, op.loc)
                self.block(op.body if not isinstance(op, ir.If) else op.then, parent_cache=cache)
                if isinstance(op, ir.If):
                    self.block(op.els, parent_cache=cache)
                if isinstance(op, ir.While):
                    self.block(op.head, parent_cache=cache)
                out.append(op)
                # a loop body may have clobbered cached literal registers? No: li values are
                # single-definition and stay valid; only the mask state is reset by canon().
                continue
            if op.name in ("set_mask_count", "set_mask_norm", "mtspr") and op.attrs.get("user"):
                if op.args:
                    op.args = [reg(a, op.loc) for a in op.args]
                out.append(op)
                mask[:] = ["?", "?", "?"]
                continue
            if op.name == "mtspr":
                op.args = [reg(a, op.loc) for a in op.args]
                out.append(op)
                continue
            if op.name in ("set_flag", "wait_flag"):
                ev = op.attrs["event"]
                op.attrs["event"] = ev.resolved if isinstance(ev, ir.Sym) else ev
                out.append(op)
                continue
            if op.name in ("vec", "dma", "load2d", "mmad", "fix"):
                m = op.attrs.get("mask")
                if m is not None:
                    if m[0] == "count":
                        if mask[0] != "count":
                            out.append(ir.Op("set_mask_count", None, [], loc=op.loc))
                            mask[0] = "count"
                        key = _mkey(m[1])
                        if mask[1] != key:
                            out.append(ir.Op("mtspr", None, [reg(m[1], op.loc)], {"spr": "mask0"}, loc=op.loc))
                            mask[1] = key
                    else:
                        if mask[0] != "norm":
                            out.append(ir.Op("set_mask_norm", None, [], loc=op.loc))
                            mask[0] = "norm"
                        for i, spr in ((1, "mask0"), (2, "mask1")):
                            key = _mkey(m[i])
                            if mask[i] != key:
                                out.append(ir.Op("mtspr", None, [reg(m[i], op.loc)], {"spr": spr}, loc=op.loc))
                                mask[i] = key
                op.args = [reg(a, op.loc) if not (isinstance(a, ir.Const) and a.ty == "f32") else
                           reg(ir.Const(_f32_bits(a.value)), op.loc) for a in op.args]
                cfg = op.attrs.get("cfg")
                if cfg is not None:
                    lay = op.attrs["layout"]
                    named = all(isinstance(v, int) for vals in cfg.values() for v in vals)
                    force_reg = op.attrs["mnem"].startswith(("vcmp", "vconv"))
                    if named and not force_reg:
                        op.attrs["cfg_word"] = isa.pack(lay, {k: list(v) for k, v in cfg.items()})
                    else:
                        op.attrs["cfg_reg"] = self.pack_runtime(lay, cfg, out, op.loc, reg)
                out.append(op)
                continue
            if op.name in _SCALAR_BIN:
                a, b = op.args
                if isinstance(a, (ir.Const, ir.Sym)) and op.name in ("add", "mul", "and", "or", "xor", "min", "max", "seq", "sne"):
                    a, b = b, a
                a = reg(a, op.loc)
                if isinstance(b, (ir.Const, ir.Sym)):
                    c = _const_of(b)
                    if op.name == "sub" and -8192 <= -c <= 8191:
                        op.name, b = "add", ir.Const(-c)
                    elif op.name in _IMM_FORMS and -8192 <= c <= 8191:
                        b = ir.Const(c)
                    else:
                        b = reg(b, op.loc)
                op.args = [a, b]
                out.append(op)
                continue
            if op.name == "mov" and isinstance(op.args[0], (ir.Const, ir.Sym)):
                c = op.args[0]
                v = _f32_bits(c.value) if isinstance(c, ir.Const) and c.ty == "f32" else _const_of(c)
                out.append(ir.Op("li", op.result, [ir.Const(v)], loc=op.loc))
                continue
            if op.name == "li" and isinstance(op.args[0], ir.Const) and op.args[0].ty == "f32":
                op.args = [ir.Const(_f32_bits(op.args[0].value))]
            if op.name in ("ld", "st"):
                op.args = [reg(a, op.loc) for a in op.args]
            out.append(op)
        if top:
            pass
        else:
            canon(None)
        block.ops[:] = out

    def pack_runtime(self, lay, cfg, out, loc, reg):
        slots = isa.field_slots(lay)
        static = {}
        dyn = []
        for k, vals in cfg.items():
            sv = []
            for i, v in enumerate(vals):
                if isinstance(v, int):
                    sv.append(v)
                else:
                    sv.append(0)
                    dyn.append((slots[k][i][0], slots[k][i][1], v))
            static[k] = sv
        word = isa.pack(lay, static)
        acc = reg(ir.Const(_wrap(word)), loc)
        for lo, width, v in dyn:
            # fields are taken as in range (asc ops check the static ones); shift into place, or in
            t = v
            if lo:
                t = self.new()
                out.append(ir.Op("shl", t, [v, ir.Const(lo)], loc=loc))
            acc2 = self.new()
            out.append(ir.Op("or", acc2, [acc, t], loc=loc))
            acc = acc2
        return acc


def _mkey(o):
    if isinstance(o, ir.Const):
        return o.value
    if isinstance(o, ir.Value):
        return ("v", o.id)
    return repr(o)


def _const_of(o):
    if isinstance(o, ir.Sym):
        if o.resolved is None:
            raise CompileError(f"internal: unresolved {o}")
        return o.resolved
    if isinstance(o, ir.Const):
        return _f32_bits(o.value) if o.ty == "f32" else int(o.value)
    if isinstance(o, int):
        return o
    raise CompileError(f"internal: not a constant: {o!r}")


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


def lower(fn: ir.Function) -> ir.Function:
    lw = _Lower(fn)
    lw.block(fn.body, top=True)
    return fn


# ---- 6. dead code elimination ------------------------------------------------------------------
_PURE = _SCALAR_BIN | {"li", "mov", "mfspr"}


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
