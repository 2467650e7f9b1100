"""Pass 3, place_buffers: addresses of TQue/TBuf/LocalTensorAuto buffers: aligned, checked
against the target's capacity, and skewed by 256 B so the two sources of a binary vector op sit
in different UB bank groups (group = address bits [8:5]).

Input IR: IR whose buffer operands are unresolved `buf` Syms (fn.buffers: the requests).
Output IR: the same IR, every request given addresses and every `buf` Sym resolved; no placed
buffer overlaps a tensor the kernel placed itself at a static address (fn.fixed).
"""
from __future__ import annotations

from .. import ir
from ..errors import CompileError
from ..targets import align as _align, capacity as _capacity


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
    # one period of bank groups: 2^ub_bank_group_lo bytes a group, ub_bank_groups of them
    group_period = (1 << target["ub_bank_group_lo"]) * target["ub_bank_groups"]
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
        # keep clear of the tensors the kernel placed at fixed addresses (LocalTensor(dtype, pos,
        # addr, size), LocalMemAllocator): move past each one the slots would overlap
        moved = True
        while moved:
            moved = False
            for fb, lo, hi, _ in fn.fixed:
                if fb == req.buf and start < hi and lo < start + req.num * slot:
                    start = -(-hi // al) * al
                    moved = True
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
