"""sync_check: the pipe races of a kernel compiled without insert_sync, found at compile time.

A kernel that places its LocalTensors itself (asc.LocalTensor(dtype, pos, addr, size)) and does
not ask for insert_sync gets no flags from the compiler, as in real pyasc (python/asc/runtime/
compiler.py runs its insert-sync pass only when insert_sync is set or LocalTensorAuto is used).
Its data copies and vector ops then run on different pipes with nothing ordering them: on the
card, and in the simulator, a vector op can read a UB tile before the MTE2 load that fills it has
landed (a kernel loading x, y and z and adding x + y gets x + 0, and the MTE3 store sees stale
bytes).  That is a wrong answer with no fault, so this check names it before the run.

Method: insert_sync's own analysis (vector clocks over the pipes, the kernel's hand-written
set_flag/wait_flag/bar counted as ordering) runs on a copy of the function; every wait_flag or
barrier it would have to add is an access pair nothing orders.  The function itself is unchanged.
Run only on vector kernels with no TQue/TBuf/LocalTensorAuto buffers (driver._lower): the
analysis does not credit a TQue's own enque/deque flags, and named M -> FIX pairs of cube kernels
the run-time race check (check_races) finds ordered, so it would warn on correct kernels there.

Input IR: IR with buffers placed and event Syms resolved (after place_buffers, alloc_events).
Output: a list of 'file:line:col: warning: ...' strings, one per consumer line, in program order.
"""
from __future__ import annotations

import copy

from .. import ir
from .insert_sync import insert_sync



def _waits(block):
    """Auto wait_flags whose consumer is a plain op of the same block.  A wait put before a
    nested loop or branch is skipped: the analysis starts a nested block with an empty history,
    so flags inside the loop that do order the pair are not credited there."""
    ops = block.ops
    for i, op in enumerate(ops):
        if op.name == "wait_flag" and op.attrs.get("auto"):
            nxt = next((o for o in ops[i + 1:] if o.name not in ("set_flag", "wait_flag", "bar")), None)
            if nxt is not None and not ir.sub_blocks(nxt):
                yield op
        for b in ir.sub_blocks(op):
            yield from _waits(b)


def unordered_accesses(fn, target) -> list:
    work = copy.deepcopy(fn)
    insert_sync(work, target)
    seen, out = set(), []
    for op in _waits(work.body):
        # only the straight-line pairs: a loop's fallback barrier is conservative (it also
        # stands for orderings the analysis cannot prove), so it is not named
        if op.loc is None:
            continue
        what = f"pipe {op.attrs['dst'].upper()} here may use bytes pipe {op.attrs['src'].upper()} " \
               f"has not finished with"
        key = (op.loc.file, op.loc.line, op.loc.col, what)
        if key in seen:
            continue
        seen.add(key)
        out.append(f"{op.loc}: warning: {what}, and no set_flag/wait_flag or barrier orders them: the "
                   f"pipes race on the card and here (compile with @asc.jit(insert_sync=True), or add "
                   f"asc.set_flag/asc.wait_flag)")
    return out
