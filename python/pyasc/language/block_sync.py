"""Inter-block synchronisation through GM: ib_set / ib_wait (Ascend C IBSet / IBWait) and
wait_pre_block / notify_next_block (WaitPreBlock / NotifyNextBlock, with
init_determine_compute_workspace for their UB counter).

Sources: cannmirror/asc-devkit impl/basic_api/kernel_operator_block_sync_intf_impl.h (IBSet,
IBWait) and impl/basic_api/dav_c220/kernel_operator_determine_compute_sync_impl.h (the determine-
compute trio); real pyasc python/asc/language/basic/block_sync.py and determine_compute_sync.py.

The protocol and its memory are Ascend C's:
  ib_set(gm, ub, i, e)    waits until the int32 flag gm[block_num * 8 * e + i * 8] is 0, then sets
                          it to 1 (ub[0] is left 1);
  ib_wait(gm, ub, i, e)   waits until that flag is 1, then clears it to 0 (ub[0] is left 0);
  wait_pre_block(gm, ub)  core i waits until gm[j * 8] == r for every j < i and == 0 for j >= i,
                          r being this core's round counter ub[block_num * 8];
  notify_next_block       core i writes r to gm[i * 8] (the last core instead clears every gm[j * 8]),
                          then counts its round: ub[block_num * 8] = r + 1;
  init_determine_compute_workspace  block 0 clears gm[0, block_num * 8); every core sets its round
                          counter ub[block_num * 8] = 1.
Each one starts and ends with pipe_barrier(PIPE_ALL), as Ascend C's do, so the core's earlier GM
writes have landed before it signals and its later copies start after its wait.

The lowering differs from Ascend C's in one way: the flag words are read and written by the scalar
unit (ld.w / st.w, spinning in a run-time loop) where Ascend C moves the 32-byte block through the
UB workspace with DataCopy and MTE2_S / S_MTE3 flags; the other words of ub are not written here.
A scalar GM access of asc is uncached (asc models no data cache), so no dcci is needed for one core
to see another's store; each spin costs the scalar GM load latency instead of a DMA round trip.
A wait that nothing satisfies spins until the launch's cycle limit (max_cycles), which ends the run
with the limit's diagnostics.  is_aiv_only has no effect, as in real pyasc (whose ib_set/ib_wait
pass is_aiv_only=True on both paths): the flags are indexed by get_block_num()."""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal
from ..compiler.errors import CompileError
from . import dtype as dt
from .tensor import GlobalTensor, LocalTensor, tensor_type_name


def _check(b, name, gm, ub, *ints):
    if not isinstance(ub, LocalTensor) or ub.dtype is not dt.int32 or ub.buf != "UB":
        raise CompileError(f"asc.{name}: ub_workspace must be an int32 LocalTensor in UB (VECIN/VECOUT/VECCALC), "
                           f"got {tensor_type_name(ub)}", b.loc)
    for what, x in ints:
        _int(b, name, what, x)
    if not isinstance(gm, GlobalTensor) or gm.dtype is not dt.int32:
        raise CompileError(f"asc.{name}: gm_workspace must be a GlobalTensor of int32, got {tensor_type_name(gm)}",
                           b.loc)
    gm._check()


def _int(b, name, what, x):
    if isinstance(x, RVal) and x.ty == "i64" or isinstance(x, int) and not isinstance(x, bool):
        return x
    raise CompileError(f"asc.{name}: {what} must be an integer, got {tensor_type_name(x)}", b.loc)


def _bar_all(b):
    b.emit(ir.Op("bar", None, [], {"pipe": "all", "bpipe": "all"}))


def _ld(b, addr):
    r = b.new_value()
    b.emit(ir.Op("ld", r, [b.reg(addr)], {"mnem": "ld.w"}))
    return RVal(b, r)


def _st(b, addr, value):
    b.emit(ir.Op("st", None, [b.reg(value), b.reg(addr)], {"mnem": "st.w"}))


def _spin_until(b, addr, want):
    """while GM int32 at addr != want: spin (a run-time loop of scalar loads)."""
    a, w = b.reg(addr), b.reg(want)
    loop = ir.While(name="while", loc=b.loc)
    b.push(loop.head)
    v = _ld(b, RVal(b, a))
    loop.cond = ("ne", v.v, w)
    b.pop()
    b.emit(loop)


def _flag_addr(b, gm, block_idx, event_id):
    return gm.addr + (b.spr("block_num") * 8 * event_id + block_idx * 8) * 4


def ib_set(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only=True, *, _b):
    b = _b
    _check(b, "ib_set", gm_workspace, ub_workspace, ("block_idx", block_idx), ("event_id", event_id))
    i, e = block_idx, event_id
    addr = _flag_addr(b, gm_workspace, i, e)
    _bar_all(b)
    _spin_until(b, addr, 0)
    _st(b, addr, 1)
    ub_workspace.set_value(0, 1)
    _bar_all(b)


def ib_wait(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only=True, *, _b):
    b = _b
    _check(b, "ib_wait", gm_workspace, ub_workspace, ("block_idx", block_idx), ("event_id", event_id))
    i, e = block_idx, event_id
    addr = _flag_addr(b, gm_workspace, i, e)
    _bar_all(b)
    _spin_until(b, addr, 1)
    _st(b, addr, 0)
    ub_workspace.set_value(0, 0)
    _bar_all(b)


def _for(b, hi, body, hint="j."):
    """for j in range(hi): body(j), a run-time loop (its variable named after `hint`)."""
    var = b.new_value(hint=hint)
    loop = ir.For(name="for", var=var, lo=ir.Const(0), hi=b.reg(hi), step=1, loc=b.loc)
    b.push(loop.body)
    b.nonneg.add(var.id)
    body(RVal(b, var))
    b.pop()
    b.emit(loop)


def init_determine_compute_workspace(gm_workspace, ub_workspace, *, _b):
    b = _b
    _check(b, "init_determine_compute_workspace", gm_workspace, ub_workspace)
    n = b.spr("block_num")
    _bar_all(b)
    first = ir.If(name="if", cond=("eq", b.reg(b.spr("block_idx")), b.reg(0)), loc=b.loc)
    b.push(first.then)
    _for(b, n * 8, lambda j: _st(b, gm_workspace.addr + j * 4, 0))
    b.pop()
    b.emit(first)
    ub_workspace.set_value(n * 8, 1)
    _bar_all(b)


def wait_pre_block(gm_workspace, ub_workspace, *, _b):
    b = _b
    _check(b, "wait_pre_block", gm_workspace, ub_workspace)
    n, i = b.spr("block_num"), b.spr("block_idx")
    _bar_all(b)
    r = ub_workspace.get_value(n * 8)
    bad = b.new_value(hint="mismatch.")      # words not yet as wanted, recounted every spin
    b.emit(ir.Op("li", bad, [ir.Const(1)]))
    loop = ir.While(name="while", loc=b.loc)
    loop.cond = ("ne", bad, b.reg(0))
    b.push(loop.body)
    b.emit(ir.Op("li", bad, [ir.Const(0)]))

    def check(j):
        want = b.materialize(b.compare("lt", j, i)) * r          # r for j < i, 0 for j >= i
        miss = b.materialize(b.compare("ne", _ld(b, gm_workspace.addr + j * 32), want))
        b.mov_into(bad, RVal(b, bad) + miss)
    _for(b, n, check)
    b.pop()
    b.emit(loop)
    _bar_all(b)


def notify_next_block(gm_workspace, ub_workspace, *, _b):
    b = _b
    _check(b, "notify_next_block", gm_workspace, ub_workspace)
    n, i = b.spr("block_num"), b.spr("block_idx")
    _bar_all(b)
    r = ub_workspace.get_value(n * 8)
    last = ir.If(name="if", cond=("eq", b.reg(i + 1), b.reg(n)), loc=b.loc)
    b.push(last.then)
    _for(b, n, lambda j: _st(b, gm_workspace.addr + j * 32, 0))
    b.pop()
    b.push(last.els)
    _st(b, gm_workspace.addr + i * 32, r)
    b.pop()
    b.emit(last)
    ub_workspace.set_value(n * 8, r + 1)
    _bar_all(b)


NAMES = ("ib_set", "ib_wait", "init_determine_compute_workspace", "wait_pre_block", "notify_next_block")
