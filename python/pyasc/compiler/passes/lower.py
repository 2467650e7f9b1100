"""Pass 5, lower: machine form: literals into registers, run-time config registers packed
with scalar ops, vector mask / counter mode set only when it changes within a block.

Input IR: IR with every Sym resolved (after alloc_events, place_buffers, insert_sync).
Output IR: lowered IR: machine ops take only Values and fully-static config fields (named
`cfg_word` or a `cfg_reg` Value), mask changes are explicit set_mask_*/mtspr ops.
"""
from __future__ import annotations

from .. import ir, isa, targets
from ..errors import CompileError
from .common import SCALAR_BIN, const_of, f32_bits, mkey, wrap

_IMM_FORMS = {"add": "addi", "and": "andi", "or": "ori", "xor": "xori", "shl": "shli", "shr": "shri",
              "sra": "srai", "mul": "muli", "slt": "slti"}


def _pack(lay, fields, loc):
    """isa.pack, a field out of its range reported at the Python line of the op."""
    try:
        return isa.pack(lay, fields)
    except ValueError as e:
        raise CompileError(str(e), loc) from None


class _Lower:
    minimise = True

    def __init__(self, fn):
        self.fn = fn
        # vector mask state exists only on cores with the vector pipe: the ISA table says on which
        # core kinds set_mask_norm is available (an AIC kernel runs on cube cores only)
        core = "aic" if fn.kernel_kind == "aic" else "aiv"
        self.vector_mask = isa.mnemonics()["set_mask_norm"][core]
        if not self.vector_mask and not targets.load(fn.target)["split"]:
            # a coupled core (teach, ascend910) runs an AIC kernel with its vector unit: a kernel
            # that uses vector masks needs the state reset at block ends like an AIV one
            self.vector_mask = any(isinstance(op.attrs, dict) and op.attrs.get("mask") is not None
                                   for op in ir.walk(fn.body))
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
            v = const_of(o)
            if v in cache:
                return cache[v]
            r = self.new()
            out.append(ir.Op("li", r, [ir.Const(v)], loc=loc))
            cache[v] = r
            return r

        def canon(loc):
            if not self.vector_mask:
                return
            if mask[0] != "norm":
                out.append(ir.Op("set_mask_norm", None, [], loc=loc))
                mask[0] = "norm"
            for i, spr in ((1, "mask0"), (2, "mask1")):
                if mask[i] != -1:
                    out.append(ir.Op("mtspr", None, [reg(ir.Const(-1), loc)], {"spr": spr}, loc=loc))
                    mask[i] = -1

        for op in block.ops:
            if op.result is not None:
                # a value written again (a loop-carried home, a copy of an unrolled body) no
                # longer holds what the mask registers were set from
                for i in (1, 2):
                    if mask[i] == ("v", op.result.id):
                        mask[i] = "?"
            if isinstance(op, (ir.For, ir.If, ir.While)):
                canon(op.loc)
                if isinstance(op, ir.For):
                    op.lo = op.lo if isinstance(op.lo, ir.Value) else ir.Const(const_of(op.lo))
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
                if not self.minimise:        # -O0: no state carried from the previous op
                    cache.clear()
                    if op.name == "vec":
                        mask[:] = ["?", "?", "?"]
                m = op.attrs.get("mask")
                if m is not None:
                    if m[0] == "count":
                        if mask[0] != "count":
                            out.append(ir.Op("set_mask_count", None, [], loc=op.loc))
                            mask[0] = "count"
                        key = mkey(m[1])
                        if mask[1] != key:
                            out.append(ir.Op("mtspr", None, [reg(m[1], op.loc)], {"spr": "mask0"}, loc=op.loc))
                            mask[1] = key
                    else:
                        if mask[0] != "norm":
                            out.append(ir.Op("set_mask_norm", None, [], loc=op.loc))
                            mask[0] = "norm"
                        for i, spr in ((1, "mask0"), (2, "mask1")):
                            key = mkey(m[i])
                            if mask[i] != key:
                                out.append(ir.Op("mtspr", None, [reg(m[i], op.loc)], {"spr": spr}, loc=op.loc))
                                mask[i] = key
                op.args = [reg(a, op.loc) if not (isinstance(a, ir.Const) and a.ty == "f32") else
                           reg(ir.Const(f32_bits(a.value)), op.loc) for a in op.args]
                cfg = op.attrs.get("cfg")
                if cfg is not None:
                    lay = op.attrs["layout"]
                    named = all(isinstance(v, int) for vals in cfg.values() for v in vals)
                    force_reg = op.attrs["mnem"].startswith(("vcmp", "vconv")) or lay != isa.mnemonics()[op.attrs["mnem"]]["config"]
                    if named and not force_reg:
                        op.attrs["cfg_word"] = _pack(lay, {k: list(v) for k, v in cfg.items()}, op.loc)
                    else:
                        op.attrs["cfg_reg"] = self.pack_runtime(lay, cfg, out, op.loc, reg)
                out.append(op)
                continue
            if op.name in ("div", "rem") and isinstance(op.args[1], ir.Const) and 1 <= _log2(op.args[1].value) <= 62:
                self.signed_pow2(op, out, reg)
                continue
            if op.name in SCALAR_BIN:
                a, b = op.args
                if isinstance(a, (ir.Const, ir.Sym)) and op.name in ("add", "mul", "and", "or", "xor", "min", "max", "seq", "sne"):
                    a, b = b, a
                a = reg(a, op.loc)
                if isinstance(b, (ir.Const, ir.Sym)):
                    c = const_of(b)
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
                v = f32_bits(c.value) if isinstance(c, ir.Const) and c.ty == "f32" else const_of(c)
                out.append(ir.Op("li", op.result, [ir.Const(v)], loc=op.loc))
                continue
            if op.name == "li" and isinstance(op.args[0], ir.Sym):
                # the address of a placed buffer (get_value/set_value of a TQue/TBuf tensor)
                op.args = [ir.Const(const_of(op.args[0]))]
            if op.name == "li" and isinstance(op.args[0], ir.Const) and op.args[0].ty == "f32":
                op.args = [ir.Const(f32_bits(op.args[0].value))]
            if op.name in ("ld", "st"):
                op.args = [reg(a, op.loc) for a in op.args]
            out.append(op)
        if top:
            pass
        else:
            canon(None)
        block.ops[:] = out

    def signed_pow2(self, op, out, reg):
        """div/rem by 2**k of a dividend of unknown sign (the builder already turned those of
        dividends known >= 0 into sra/and): the ISA's truncating div/rem without a division,
        q = (x + ((x sra 63) shr (64 - k))) sra k,  r = x - ((x + bias) and -2**k)."""
        k = _log2(op.args[1].value)
        x = reg(op.args[0], op.loc)
        sign, bias, t = self.new(), self.new(), self.new()
        out.append(ir.Op("sra", sign, [x, ir.Const(63)], loc=op.loc))
        out.append(ir.Op("shr", bias, [sign, ir.Const(64 - k)], loc=op.loc))
        out.append(ir.Op("add", t, [x, bias], loc=op.loc))
        if op.name == "div":
            out.append(ir.Op("sra", op.result, [t, ir.Const(k)], loc=op.loc))
            return
        m = self.new()
        mask = -(1 << k)
        out.append(ir.Op("and", m, [t, ir.Const(mask) if mask >= -8192 else reg(ir.Const(mask), op.loc)],
                         loc=op.loc))
        out.append(ir.Op("sub", op.result, [x, m], loc=op.loc))

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
        word = _pack(lay, static, loc)
        acc = reg(ir.Const(wrap(word)), loc)
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


def _log2(c) -> int:
    """k when c == 2**k (k >= 0), else -1."""
    return c.bit_length() - 1 if isinstance(c, int) and c > 0 and c & (c - 1) == 0 else -1


def lower(fn: ir.Function, minimise: bool = True) -> ir.Function:
    """minimise=False (-O0): every vector/DMA op sets its mask state and loads its literals
    afresh (no state or literal register carried between ops)."""
    lw = _Lower(fn)
    lw.minimise = minimise
    lw.block(fn.body, top=True)
    return fn
