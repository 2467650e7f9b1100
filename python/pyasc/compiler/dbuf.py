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

Nor does it change what a kernel computes: with one buffer every alloc_tensor hands out the same
bytes, so a kernel that reads a freshly allocated tensor before writing it (an accumulator kept
in a VECOUT slot across iterations: `z = q.alloc_tensor(); add(z, z, x)`) reads what the previous
iteration left there; with two it would read the other slot's older contents (a silent wrong
answer).  So from alloc_tensor to free_tensor the builder tracks the bytes written into each slot
of a promoted queue (on_alloc / on_op / on_free); a read of bytes not yet written there (a read
first, or a static range beyond the static writes) fails the promoted compile, which is then
compiled as written.  A read after a write of run-time size counts as covered (not provable
either way; a kernel that reads unwritten bytes of a slot relies on what Ascend C leaves
undefined).  Likewise a tensor used after its free_tensor (a Python name still holding the last
iteration's tensor): with one buffer its bytes are the next allocation's, with two they are not,
so any access to a freed slot of a promoted queue fails the promoted compile too.
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


def on_alloc(b, root) -> None:
    """alloc_tensor of a promoted queue's slot `root`: nothing written in it yet.  The builder
    then hands every op it emits to on_op (Builder.emit_hook)."""
    fresh = getattr(b, "fresh_slots", None)
    if fresh is None:
        fresh = b.fresh_slots = {}
        b.freed_slots = set()          # promoted slots freed and not allocated again
        b.emit_hook = on_op
    fresh[root] = ([], False)          # (static byte ranges written, a write of run-time range)
    b.freed_slots.discard(root)


def on_free(b, root) -> None:
    fresh = getattr(b, "fresh_slots", None)
    if fresh is not None and fresh.pop(root, None) is not None:
        b.freed_slots.add(root)


_STALE = ("a tensor of a one-buffer TQue is read before it is written since its alloc_tensor (it "
          "reads what the previous use of the buffer left): the queue keeps its one buffer")


def _range(acc):
    """The static byte range of an Access in its slot (its address a buffer Sym: kind, offset)."""
    if getattr(acc.addr, "kind", None) == "buf" and acc.nbytes is not None:
        return acc.addr.offset, acc.addr.offset + acc.nbytes
    return None


def _covered(ranges, lo, hi) -> bool:
    for a, c in sorted(ranges):
        if a <= lo < c:
            lo = c
    return lo >= hi


_FREED = ("a tensor of a one-buffer TQue is used after its free_tensor (with one buffer its bytes are "
          "those of the queue's next alloc_tensor): the queue keeps its one buffer")


def _read(b, root, r):
    if root in b.freed_slots:
        return _FREED
    st = b.fresh_slots.get(root) if isinstance(root, tuple) else None
    if st is None:
        return None
    ranges, unknown = st
    if unknown or (ranges and r is None) or (r is not None and _covered(ranges, *r)):
        return None
    return _STALE


def _write(b, root, r):
    if root in b.freed_slots:
        return _FREED
    st = b.fresh_slots.get(root) if isinstance(root, tuple) else None
    if st is None:
        return
    if r is None:
        b.fresh_slots[root] = (st[0], True)
    else:
        st[0].append(r)


def on_op(b, op):
    """An op emitted while promoted slots are tracked: the error text (the builder raises it at
    the op) when it reads bytes of a slot that nothing wrote since its alloc_tensor, else None."""
    if not b.fresh_slots and not b.freed_slots:
        return None
    for acc in op.reads:
        msg = _read(b, acc.root, _range(acc))
        if msg:
            return msg
    for acc in op.writes:
        msg = _write(b, acc.root, _range(acc))
        if msg:
            return msg
    return None


def on_scalar(b, t, index, write: bool):
    """LocalTensor.get_value / set_value (scalar ld.ub / st.ub, which carry no Access) of element
    `index` (None: a run-time index): the error text of a stale read, else None."""
    if getattr(b, "fresh_slots", None) is None:
        return None
    size = t.dtype.sizeof()
    r = None
    if getattr(t.addr, "kind", None) == "buf" and index is not None:
        r = (t.addr.offset + index * size, t.addr.offset + (index + 1) * size)
    return _write(b, t.root, r) if write else _read(b, t.root, r)
