"""Double buffering as an optimisation (-O2 and up, docs/pyasc.md "Optimisation levels").

Users: language/tensor.py (TPipe.init_buffer asks `depth`), compiler.driver (the fallback).

A TQue that the kernel gives one buffer (`pipe.init_buffer(q, 1, len)`) and whose producer and
consumer are different pipes (so it has flags: VECIN filled by MTE2, VECOUT drained by MTE3, the
cube's A1/B1/...) gets two at -O2 and -O3: alloc_tensor then alternates between the two slots,
each with its own pair of event ids, so MTE2 fills tile t+1 while V computes tile t and MTE3
stores tile t-1 (the frontend unrolls the loop by the buffer count, as for a kernel that asks
for two).  Ascend C leaves a slot's contents undefined at AllocTensor, so no kernel may read
what an earlier iteration left in a slot; results do not change.

Legality is "the kernel still compiles": two buffers must fit in the position's memory (place
_buffers), the event ids must suffice (alloc_events), and the loops must keep every queue's
slot static (a run-time trip count whose tail leaves a queue in an unknown slot is an error for
later queue operations).  When a compile with promoted queues fails, driver.compile_kernel
compiles again without promotion (option `double_buffer=False`, which a kernel may also give
itself), so a kernel that compiles at -O1 compiles at -O2.

The kernel's own limits stay those of the buffers it asked for (TQue.asked in language/tensor.py):
a second enque on a one-buffer queue is still "enque on a full TQue", vacant_in_que and
has_idle_buffer answer for one buffer, and holding two allocated tensors of it at once (which as
written waits for a free that never comes) fails the promoted compile, so it is compiled as
written: the extra buffer never turns a kernel that hangs or is refused into one that runs.
"""
from __future__ import annotations


def depth(b, que, num: int) -> int:
    """The buffer count init_buffer gives `que` (a TQue with flags) that asked for `num`."""
    opts = b.fn.options
    if num != 1 or not que.prod or que.prod == que.cons:
        return num
    if opts.get("opt_level", 2) < 2 or opts.get("double_buffer") is False:
        return num
    b.promoted_queues = getattr(b, "promoted_queues", 0) + 1
    return 2
