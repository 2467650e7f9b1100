"""Pass 2, alloc_events: event ids for the TQue flags, per HardEvent, avoiding ids the kernel
uses by hand and id 6 (reserved for the system); 7 is the last resort, as in TPipe.

Input IR: IR whose TQue set_flag/wait_flag ops name their event by an unresolved Sym
(fn.events), with fn.manual_events holding the ids the kernel uses itself.
Output IR: the same IR with every event Sym resolved to an id.
"""
from __future__ import annotations

from .. import ir
from ..errors import CompileError

def alloc_events(fn: ir.Function, target: dict) -> ir.Function:
    n = target["event_ids"]
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
