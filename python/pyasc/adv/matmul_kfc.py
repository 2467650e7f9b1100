"""The Matmul of a mix kernel: the AIVs are clients, the AIC serves them (Ascend C's "KFC":
cannmirror/asc-devkit impl/basic_api/dav_c220/kfc/kfc_comm_client.h and kfc_comm.h, the server
loop of impl/adv_api/detail/matmul/kfc/matmul_server_impl_c220.h; real pyasc tutorials
03_matmul_mix and 05_matmul_leakyrelu call a Matmul from the AIV this way).

In Ascend C a mix kernel's AIC enters the server loop at REGIST_MATMUL_OBJ and never runs the
rest of the kernel body; each AIV's Matmul object posts a 128-byte message into the GM workspace
per call and, for a synchronous call, waits for the AIC's NotifyEvent (mode 2 on PIPE_FIX).
The c220 server finds messages by polling GM; here the request is a cross-core flag instead, so
the race checker sees every hand-off.  Cross-core flags are joins (asc-devkit
docs/zh/api/SIMD-API/基础API/同步控制/核间同步/关键特性说明.md; docs/timing.md): mode 2 from the
AIVs raises the AIC's counter once every AIV of the AI core has set the id, so the request is one
shared id, every AIV sets it once per round and the AIC waits once per round.  Lowered here, all
through the ISA:

  workspace  128-byte message of AIV i (i = its block_idx) at word 16 i (int64 words):
             0 function, 1 A address, 2 B address, 3 C address, 4 tail M, 5 tail N, 6 tile index,
             7 done, 8 bias address (ITERATE_ALL with set_bias; 0 none), 9 the Matmul object (when
             register_matmul registered several, at most MAX_OBJS), 10 batch_a, 11 batch_b,
             12 / 13 A's / B's matrix stride in elements, 14 batch loops (BATCH, NBATCH; bit 32:
             notified per batch), 15 the sibling's progress notifications to drain;
             its C tile (base_m x base_n f32, rows base_n apart) at byte 8192 + i * S, S the largest
             base_m * base_n * 4 of the registered objects
  AIV        scalar stores the message, cross_core_set_flag(REQ = 0, mode 2, PIPE_MTE2)
             (the set fires after the AIV's earlier reads of its C tile), and for a synchronous
             call cross_core_wait_flag(0); get_tensor_c then copies the tile GM -> UB (MTE2) and
             adds the bias row in UB when set_bias was called (see below)
  AIC        the server loop: rounds until every AIV has sent QUIT (at the end of its kernel); in a
             round it waits once on REQ (the join of every AIV's request), reads each message with scalar loads and
             runs it (ITERATE_ALL: every tile into C in GM; TILE: one tile into the AIV's
             workspace tile), then cross_core_set_flag(0, mode 2, PIPE_FIX) once: the response
             reaches both AIVs, each having sent one request in the round
The AIC serves in rounds: one message from every AIV, then one response to both.  An AIV that
has quit keeps sending QUIT, one per round, and taking the round's response, until the AIC, in
the round in which the last AIV quits, sets word 7 of every message (after it has waited for
their messages of that round, so the stores are ordered after the AIVs' last reads): no response
piles up on an AIV's counter however uneven the AIVs' work (real c220 KFC answers each AIV on its
own flag id, which mode 2 delivers to both AIVs, and the other AIV's count piles up).
Flag id 0 is the Matmul's (requests on the AIC's counter, responses on the AIVs'), inside the
[0, 2 N - 1] Ascend C reserves for N Matmul objects.
The bias (set_bias) is added by the client AIV in UB after get_tensor_c's copy (the cube's bias
table is not modelled): C = A x B + bias in f32, the same sums as the cube's; for iterate_all into
GM the AIC adds it (matmul.py _bias_init, C = bias + A x B rounded once) from the address in word 8,
on a path the server compiles when the tiling has is_bias (host enable_bias(True)): a run-time
branch on that word picks the tiles with or without the bias.
Asynchronous calls (sync=False; matmul_client.h IterateAll<false>, Iterate<false>, GetTensorC<false>):
the AIV posts and goes on, a run-time register (kfc_pending) remembers that the round's response is
still to come, and drain() takes it: in wait_iterate_all, in the first get_tensor_c(sync=False), and
before any later message (the AIV's message slot is free only once the AIC has answered).  ITERATE
(function 4) computes every tile into the set_workspace buffer at word 3, tile k at byte
k * base_m * base_n * 4 (the order c220's StartIterate writes them, offset += base size).
BATCH (5) runs IterateBatch's loop (matmul.py _batch_emit) with the counts and strides of words
10..13 as run-time values, C at word 3; NBATCH (6) runs it word 14 times, batch l's C at word 3 +
l * max(batch_a, batch_b) * M * N * 4 (the set_workspace buffer get_batch_tensor_c reads).  As
c220's server, the AIC compiles them only for an A MatmulType with a layout (IterateBatch) and a
MatmulConfig with isNBatch (IterateNBatch).
Per-tile progress of ITERATE (c220's Iterate: a notification after each of the first 13 tiles and
one at the end when there are 14 or more, INC_PROCESS_CHECK = 14; the client's GetTensorC<false>
waits for each of its first 14 fetches): the AIC sets flag PROG[sub] (1 for AIV sub 0, 2 for sub 1;
mode 2 on PIPE_FIX after the tile's fixpipe), the AIV's get_tensor_c(sync=False) waits on it.  A mode
2 set reaches both AIVs of the AI core, so the AIC also writes the count, min(tiles, 14), into word 15
of the sibling's message, and in a kernel that compiles an iterate(sync=False) every AIV, after each
wait for a round's response, waits that many times on the sibling's id and clears word 15, and takes
the notifications of its own that its fetches left (_patch_progress).  IterateNBatch<false> without
waitIterateBatch (bit 32 of word 14) notifies per batch the same way, get_batch_tensor_c waits for them.
register_matmul inside a run-time branch or loop: the AIC serves from the kernel's top level
(_top_level), the AIVs' registers are set at the kernel's entry (_at_entry) and every AIV quits.
"""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from ..compiler.errors import CompileError
from ..language import dtype as dt
from ..language import block_sync as _block_sync
from ..language import ops as _ops
from ..language.enums import HardEvent, PipeID, TPosition
from ..language.tensor import GlobalTensor, LocalTensor
from ..language.types import BinaryRepeatParams, DataCopyExtParams, DataCopyParams

F_QUIT, F_ALL, F_TILE, F_ITER, F_BATCH, F_NBATCH = 1, 2, 3, 4, 5, 6
MSG_WORDS = 16
MAX_OBJS = 4              # Matmul objects one register_matmul serves (word 9 of the message names one)
TILE_AREA = 64 * MSG_WORDS * 8   # bytes of messages before the C tiles (64 AIVs)
REQ = 0                   # AIVs -> AIC: mode 2 join of every AIV of the AI core (the AIC's counter 0)
RESP = 0                  # AIC -> AIVs: mode 2 broadcast (each AIV's counter 0)
PROG = (1, 2)             # AIC -> AIVs: iterate(sync=False)'s per-tile progress of AIV sub 0 / 1
INC_PROCESS_CHECK = 14    # asc-devkit impl/basic_api/dav_c220/kfc/kfc_comm.h: notified tiles
_WAIT_CC = _ops.cross_core_wait_flag.__wrapped__
_SET_CC = _ops.cross_core_set_flag.__wrapped__


def role(m) -> str:
    """'direct' (the AIC computes where it stands), 'server' or 'client' for a Matmul of this
    compilation (module text)."""
    b = m.b
    opt = b.fn.options or {}
    kt = opt.get("kernel_type")
    cube_only = (kt is None and opt.get("matmul_cube_only")) or (kt is not None and int(kt) in (1, 5))
    vec_only = kt is not None and int(kt) in (0, 4)
    asked = getattr(b, "asks_core_kind", False)
    if b.fn.kernel_kind == "aic":
        return "direct" if cube_only or asked else "server"
    if cube_only:
        return "direct"
    if vec_only:
        raise CompileError("asc.adv.Matmul in an AIV-only kernel: the AIC that computes it runs only in a mix "
                           "kernel (leave kernel_type out, or KernelType.MIX_AIC_1_2)", b.loc)
    if asked:
        raise CompileError("asc.adv.Matmul on the AIV side of a kernel that branches on asc.ascend_is_aic/aiv: "
                           "create and call the Matmul outside the core-kind branches (the AIC serves the "
                           "AIVs' calls) or inside `if asc.ascend_is_aic():` only", b.loc)
    return "client"


def _ratio(b):
    kt = (b.fn.options or {}).get("kernel_type")
    return 1 if kt is not None and int(kt) == 6 else 2


def _ws(m):
    w = m.workspace
    if w is None or not hasattr(w, "base"):
        raise CompileError("asc.adv.Matmul in a mix kernel needs the workspace (a GlobalAddress) given to "
                           "asc.adv.register_matmul: the AIVs' messages and C tiles live there", m.b.loc)
    g = GlobalTensor(dt.int64, _b=m.b)
    g.addr, g.size, g.gm = w.base, None, getattr(w, "name", None) or None
    return g


def _if(b, cond, then, els=None):
    op = ir.If(name="if", cond=cond, loc=b.loc)
    b.push(op.then)
    then()
    b.pop()
    if els is not None:
        b.push(op.els)
        els()
        b.pop()
    b.emit(op)


def _addr(g):
    return g.addr if g is not None else 0


# ---- the AIV side ---------------------------------------------------------------------------
def drain(m):
    """A call issued with sync=False has its response still to come: take it (run-time, since the
    call may sit in a loop or a branch).  Before the next message (the slot is free once the AIC
    has answered the round), in wait_iterate_all and before the first async get_tensor_c."""
    b = m.b
    pend = m.kfc_pend

    def take():
        _resp_wait(b)
        b.mov_into(pend, 0)
    _if(b, ("ne", pend, b.reg(0)), take)


def _resp_wait(b):
    """The AIV's wait for the round's response; where it stands is kept (_patch_progress)."""
    _WAIT_CC(RESP, _b=b)
    if b.blocks[-1].ops:
        b.__dict__.setdefault("kfc_resp_sites", []).append((b.blocks[-1], b.blocks[-1].ops[-1]))


def _wait_prog(b, own):
    """Wait on this AIV's progress id (own) or its sibling's: PROG[sub] (sub_block_idx run-time)."""
    sub = _ops.get_sub_block_idx.__wrapped__(_b=b)

    def w(i):
        _WAIT_CC(PROG[i], _b=b)
        if b.blocks[-1].ops:
            b.__dict__.setdefault("kfc_prog_ops", set()).add(id(b.blocks[-1].ops[-1]))
    _if(b, ("eq", b.reg(sub), b.reg(0)), lambda: w(0 if own else 1), lambda: w(1 if own else 0))


def _check_prog_ids(b):
    """The progress ids are the Matmul's in a kernel that has them: the kernel's own cross-core
    flags must use others (a shared id would release the wrong wait)."""
    mine = b.__dict__.get("kfc_prog_ops", set())
    for op in ir.walk(b.fn.body):
        a = op.attrs if isinstance(op.attrs, dict) else {}
        if op.name == "xcore" and id(op) not in mine and a.get("ops") and a["ops"][-1] in PROG:
            raise CompileError(f"asc.cross_core_set_flag / cross_core_wait_flag with flag id {a['ops'][-1]} in a "
                               f"kernel whose AIVs call a Matmul with sync=False (iterate, iterate_n_batch): ids "
                               f"{PROG[0]} and {PROG[1]} carry the AIC's per-tile progress notifications here "
                               f"(adv/matmul_kfc.py); use another id", op.loc)


def wait_progress(m, k):
    """Fetch k (run-time) of a notified call: matmul_client.h GetTensorC<false> waits while
    curProcess < INC_PROCESS_CHECK (GetBatchTensorC the same per batch)."""
    b = m.b

    def progress():
        _wait_prog(b, True)
        b.mov_into(m.kfc_prog, b.binop("sub", RVal(b, m.kfc_prog), 1))
    _if(b, ("lt", b.reg(k), b.reg(INC_PROCESS_CHECK)), progress)


def _patch_progress(m):
    """At the kernel's end, when it compiled an iterate(sync=False): after every wait for a round's
    response the AIV takes the progress notifications left on its counters, the ones its own
    fetches did not take (kfc_prog_left) and its sibling's (word 15 of its message, written by the
    AIC in the round: a mode 2 set reaches both AIVs).  A kernel without iterate(sync=False) gets
    no progress notifications and none of this code."""
    b = m.b
    if not getattr(b, "kfc_async_iter", False):
        return
    _check_prog_ids(b)
    ratio = _ratio(b)
    for blk, op in b.__dict__.get("kfc_resp_sites", []):
        tmp = ir.Block()
        b.push(tmp)
        left = RVal(b, m.kfc_prog)
        _for(b, left, lambda i: _wait_prog(b, True))
        b.mov_into(m.kfc_prog, 0)
        if ratio > 1:
            ws = _ws(m)
            w15 = _ops.get_block_idx.__wrapped__(_b=b) * MSG_WORDS + 15
            cnt = ws.get_value(w15)

            def sib():
                _for(b, cnt, lambda i: _wait_prog(b, False))
                ws.set_value(w15, 0)
            _if(b, ("ne", b.reg(cnt), b.reg(0)), sib)
        b.pop()
        i = blk.ops.index(op)
        blk.ops[i + 1:i + 1] = tmp.ops


def send(m, func, c_addr=0, tile=0, wait=True, async_=False, batch=None):
    """Post a message of function `func`.  wait: a synchronous call (take the round's response
    now); async_: sync=False (the response is taken later by drain); neither: the quit path,
    which takes its responses itself.  batch: (batch_a, batch_b, stride_a, stride_b, loops) of
    iterate_batch / iterate_n_batch (words 10..14)."""
    b = m.b
    drain(m)
    idx = _ops.get_block_idx.__wrapped__(_b=b)
    ws = _ws(m)
    base = idx * MSG_WORDS
    tm, tn = _tails(m)
    bias = _addr(m.bias_gm) if func in (F_ALL, F_BATCH, F_NBATCH) else 0
    if func in (F_ALL, F_BATCH, F_NBATCH) and m.bias_gm is not None and not int(m.tiling.is_bias):
        raise CompileError("asc.adv.Matmul.set_bias with iterate_all into GM in a mix kernel: the AIC serving the "
                           "call adds the bias only when the tiling has is_bias (host enable_bias(True))", b.loc)
    words = [(1, _addr(m.ta)), (2, _addr(m.tb)), (3, c_addr), (4, tm), (5, tn), (6, tile), (7, 0), (8, bias)]
    if len(getattr(b, "kfc_objs", ())) > 1:
        words.append((9, b.kfc_objs.index(m)))
    if batch is not None:
        words += [(10 + i, v) for i, v in enumerate(batch)]
    for w, v in words + [(0, func)]:
        ws.set_value(base + w, v)
    _SET_CC(REQ, 2, PipeID.PIPE_MTE2, _b=b)
    if wait:
        _resp_wait(b)
    elif async_:
        b.mov_into(m.kfc_pend, 1)


def slot_bytes(b):
    """Bytes of each AIV's C tile slot (get_tensor_c): the largest base_m x base_n float32 tile of
    the registered objects."""
    return max(int(o.tiling.base_m) * int(o.tiling.base_n) * 4 for o in b.kfc_objs)


def client_register(objs):
    """The AIV side of register_matmul: the objects share the AIV's message slot, so one pending
    register (a sync=False call of any of them is taken before the next message) and one QUIT."""
    b = objs[0].b
    pend = b.new_value(hint="kfc_pending.")   # 1: a sync=False call's response is still to come
    for m in objs:
        m.kfc_pend = pend
        m.kfc_k = b.new_value(hint="kfc_async_tile.")   # the next tile get_tensor_c(sync=False) fetches
    # set at the kernel's entry: the QUIT at its end runs whether or not a run-time branch around
    # register_matmul was taken (the AIC serves until every AIV has quit, register_matmul's
    # branch or not: serve)
    prog = b.new_value(hint="kfc_progress.")   # progress notifications of the AIV's iterate(sync=False) not taken
    for o in objs:
        o.kfc_prog = prog
    _at_entry(b, lambda: [b.mov_into(v, 0) for v in [pend, prog] + [o.kfc_k for o in objs]])
    m = objs[0]

    def quit_(b):
        # after QUIT the AIV still takes part in every round (a QUIT message, one response) until
        # the AIC marks word 7 of its message: no response piles up on its counter
        send(m, F_QUIT, wait=False)
        ws = _ws(m)
        base = _ops.get_block_idx.__wrapped__(_b=b) * MSG_WORDS
        loop = ir.While(name="while", loc=b.loc)
        b.push(loop.head)
        _resp_wait(b)
        d = ws.get_value(base + 7)
        zero = b.reg(0)
        b.pop()
        loop.cond = ("eq", d.v, zero)
        b.push(loop.body)
        send(m, F_QUIT, wait=False)     # still here: take part in the next round
        b.pop()
        b.emit(loop)
    b.at_end.append(quit_)
    b.at_end.append(lambda b: _patch_progress(m))


def _tails(m):
    t = m.tiling
    tm, tn = (m.tail or (-1, -1, -1))[:2]
    tm = int(t.single_core_m) if is_static(tm) and tm <= 0 else tm
    tn = int(t.single_core_n) if is_static(tn) and tn <= 0 else tn
    return tm, tn


def _tile_mn(t, k, tm, tn):
    """Tile k of a tm x tn single-core output in base blocks, M first (iterate_order 0) or N
    first, as the server's Iterate walks them (the client's count is the same k)."""
    bm, bn = int(t.base_m), int(t.base_n)
    if int(t.iterate_order) == 1:
        nt = (tn + bn - 1) // bn
        return k // nt, k % nt
    mt = (tm + bm - 1) // bm
    return k % mt, k // mt


def n_tiles(m):
    t = m.tiling
    bm, bn = int(t.base_m), int(t.base_n)
    tm, tn = _tails(m)
    return ((tm + bm - 1) // bm) * ((tn + bn - 1) // bn)


def _tile_to_ub(b, dst, slot, elems):
    """Copy one float32 tile of `elems` elements GM `slot` -> UB `dst` on MTE2, after dst's earlier
    readers (its copy out on MTE3, the vector) are done."""
    setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
    setf(HardEvent.MTE3_MTE2, 0, _b=b)
    waitf(HardEvent.MTE3_MTE2, 0, _b=b)
    setf(HardEvent.V_MTE2, 0, _b=b)
    waitf(HardEvent.V_MTE2, 0, _b=b)
    _ops.data_copy.__wrapped__(dst, slot, DataCopyParams(1, elems * 4 // 32, 0, 0), _b=b)


def get_tensor_c(m, dst, tile):
    """The AIV's synchronous GetTensorC of tile `tile` (the iterate loop's count) into UB."""
    b = m.b
    t = m.tiling
    bm, bn = int(t.base_m), int(t.base_n)
    _check_dst(m, dst, "get_tensor_c")
    send(m, F_TILE, tile=tile)
    ws = _ws(m)
    idx = _ops.get_block_idx.__wrapped__(_b=b)
    slot = GlobalTensor(dt.float32, _b=b)
    slot.addr, slot.gm = ws.addr + TILE_AREA + idx * slot_bytes(b), ws.gm
    _tile_to_ub(b, dst, slot, bm * bn)
    setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
    bias = None
    if m.bias_gm is not None:
        tm, tn = _tails(m)
        _, ni = _tile_mn(t, tile, tm, tn)
        n_eff = tn - ni * bn
        if not is_static(n_eff):
            n_eff = b.binop("min", n_eff, bn)
        else:
            n_eff = min(n_eff, bn)
        bias = LocalTensor(dt.float32, TPosition.VECCALC, b.target_capacity("UB") - bn * 4, bn, _b=b)
        # the tile's columns of the bias row, byte-exact (a tail tile must not read past the row)
        _ops.data_copy_pad.__wrapped__(bias, m.bias_gm[ni * bn:], DataCopyExtParams(1, n_eff * 4, 0, 0, 0), _b=b)
    setf(HardEvent.MTE2_V, 0, _b=b)
    waitf(HardEvent.MTE2_V, 0, _b=b)
    if bias is not None:
        rs = bn * 4 // 32
        for c0 in range(0, bn, 64):
            for r0 in range(0, bm, 255):
                rows = min(255, bm - r0)
                d = dst[r0 * bn + c0:]
                _ops.add.__wrapped__(d, d, bias[c0:], min(64, bn - c0), rows,
                                     BinaryRepeatParams(1, 1, 1, rs, rs, 0), _b=b)
        setf(HardEvent.V_MTE2, 0, _b=b)     # the next copy into bias waits for these adds
        waitf(HardEvent.V_MTE2, 0, _b=b)


def iterate_async(m):
    """Iterate<false> (c220 MatmulClient::Iterate, MatmulService::StartIterate): one ITERATE
    message; the AIC computes every tile of the single-core output into the set_workspace buffer,
    tile k (the iterate order's k-th) at byte k * base_m * base_n * 4, rows base_n apart, while the
    AIV goes on; the AIC notifies its progress per tile as c220 does (module text), the round's
    response comes after the last tile."""
    b = m.b
    if m.bias_gm is not None:
        raise CompileError("asc.adv.Matmul.iterate(sync=False) with set_bias in a mix kernel is not implemented "
                           "(the bias is added by the AIV in get_tensor_c's synchronous path); use iterate() "
                           "or iterate_all(sync=False) into GM", b.loc)
    t = m.tiling
    bm, bn = max(1, int(t.base_m)), max(1, int(t.base_n))
    need = -(-int(t.single_core_m) // bm) * -(-int(t.single_core_n) // bn) * bm * bn * 4
    if m.cache_bytes is not None and is_static(m.cache_bytes) and m.cache_bytes < need:
        raise CompileError(f"asc.adv.Matmul.set_workspace: the buffer holds {m.cache_bytes} B; iterate(sync=False) "
                           f"writes every base_m x base_n float32 tile of the single-core output there, {need} B",
                           b.loc)
    send(m, F_ITER, c_addr=m.cache.addr, wait=False, async_=True)
    b.mov_into(m.kfc_k, 0)
    n = n_tiles(m)
    b.mov_into(m.kfc_prog, min(n, INC_PROCESS_CHECK) if is_static(n) else b.binop("min", n, INC_PROCESS_CHECK))
    b.kfc_async_iter = True


def get_tensor_c_async(m, dst):
    """GetTensorC<false>(LocalTensor) / AsyncGetTensorC after iterate(sync=False): each of the
    first INC_PROCESS_CHECK fetches waits for the AIC's progress notification of its tile (the 14th
    for the end of all), each copies the next tile GM -> UB on MTE2 without waiting for it: wait_get_tensor_c (MTE2 -> V) comes before the vector
    reads dst (a read before it is a race the checker reports)."""
    b = m.b
    t = m.tiling
    bm, bn = int(t.base_m), int(t.base_n)
    _check_dst(m, dst, "get_tensor_c(sync=False)")
    k = RVal(b, m.kfc_k)

    wait_progress(m, k)
    slot = GlobalTensor(dt.float32, _b=b)
    slot.addr, slot.gm = m.cache.addr + k * (bm * bn * 4), getattr(m.cache, "gm", None)
    _tile_to_ub(b, dst, slot, bm * bn)
    b.mov_into(m.kfc_k, b.binop("add", k, 1))


def wait_get_tensor_c(m):
    """WaitGetTensorC (matmul_client.h): SetFlag/WaitFlag MTE2 -> V."""
    _ops.set_flag.__wrapped__(HardEvent.MTE2_V, 0, _b=m.b)
    _ops.wait_flag.__wrapped__(HardEvent.MTE2_V, 0, _b=m.b)


def _check_dst(m, dst, what):
    b = m.b
    t = m.tiling
    bm, bn = int(t.base_m), int(t.base_n)
    if dst.dtype.name != "float32":
        raise CompileError(f"asc.adv.Matmul.{what}: C is float32 here (mmad f16/bf16 -> f32), the "
                           f"destination is {dst.dtype.name}", b.loc)
    if dst.size is not None and is_static(dst.size) and dst.size < bm * bn:
        raise CompileError(f"asc.adv.Matmul.{what}: the destination holds {dst.size} elements, a "
                           f"{bm} x {bn} tile needs {bm * bn}", b.loc)


# ---- the AIC side ---------------------------------------------------------------------------
def serve(objs):
    """The server loop (module text) for the registered objects (word 9 of a message picks one
    when there are several); everything the kernel emits after it is dropped."""
    m0 = objs[0]
    b = m0.b
    if len(b.blocks) > 1:
        _top_level(b, objs)
        blocks, b.blocks = b.blocks, [b.fn.body]
        try:
            serve(objs)
        finally:
            b.blocks = blocks
        return
    _drop_vector_queue_flags(b.fn.body)
    ratio = _ratio(b)
    ws = _ws(m0)
    core = _ops.get_block_idx.__wrapped__(_b=b)
    act = b.new_value(hint="kfc_active.")
    b.mov_into(act, (1 << ratio) - 1)
    loop = ir.While(name="while", loc=b.loc)
    b.push(loop.head)
    zero = b.reg(0)
    b.pop()
    loop.cond = ("ne", act, zero)
    b.push(loop.body)
    _WAIT_CC(REQ, _b=b)     # the join: every AIV of this AI core has posted its message of the round
    sv = b.new_value(hint="kfc_sub.")
    fo = ir.For(name="for", var=sv, lo=ir.Const(0), hi=ir.Const(ratio), step=1, loc=b.loc)
    b.nonneg.add(sv.id)
    b.push(fo.body)
    s = RVal(b, sv)
    idx = core * ratio + s
    base = idx * MSG_WORDS
    f = ws.get_value(base)

    def quit_():
        b.mov_into(act, b.binop("and", RVal(b, act), b.binop("xor", b.binop("shl", 1, s), -1)))
    _if(b, ("eq", b.reg(f), b.reg(F_QUIT)), quit_)
    if len(objs) == 1:
        _serve_obj(m0, ws, idx, base, f, s)
    else:
        j = ws.get_value(base + 9)
        for k, m in enumerate(objs):
            _if(b, ("eq", b.reg(j), b.reg(k)), lambda m=m: _serve_obj(m, ws, idx, base, f, s))
    b.pop()
    b.emit(fo)

    def done():     # every AIV has quit: mark word 7 of each message, the last response ends them
        for k in range(ratio):
            ws.set_value((core * ratio + k) * MSG_WORDS + 7, 1)
    _if(b, ("eq", act, b.reg(0)), done)
    _SET_CC(RESP, 2, PipeID.PIPE_FIX, _b=b)
    b.pop()
    b.emit(loop)
    _ops.pipe_barrier.__wrapped__(PipeID.PIPE_ALL, _b=b)
    b.dead = True


def _serve_obj(m, ws, idx, base, f, sub):
    """The server's paths of one Matmul object: a run-time `if` on the message's function (sub:
    the AIV of the message, 0 or 1)."""
    b = m.b
    t = m.tiling
    bm, bn = int(t.base_m), int(t.base_n)

    def load_ab():
        m.ta = _gt(b, m.a_type, ws.get_value(base + 1))
        m.tb = _gt(b, m.b_type, ws.get_value(base + 2))
        m.tail = (ws.get_value(base + 4), ws.get_value(base + 5), -1)
        m._prepare()

    def all_():
        load_ab()
        c = GlobalTensor(dt.float32, _b=b)
        c.addr = ws.get_value(base + 3)

        def tiles():
            for ti in m._tiles():
                m._tile(ti, c)
        if not int(t.is_bias):
            tiles()
            return
        ba = ws.get_value(base + 8)

        def with_bias():
            m.bias_gm = GlobalTensor(dt.float32, _b=b)
            m.bias_gm.addr = ba
            m._serve_bias = True
            tiles()
            m.bias_gm, m._serve_bias = None, False
        _if(b, ("ne", b.reg(ba), b.reg(0)), with_bias, tiles)

    def tile_():
        load_ab()
        tt = ws.get_value(base + 6)
        tm, tn = m.tails
        mi, ni = _tile_mn(t, tt, tm, tn)
        m_eff = _max0(b, b.binop("min", bm, tm - mi * bm))
        n_eff = _max0(b, b.binop("min", bn, tn - ni * bn))
        c = GlobalTensor(dt.float32, _b=b)
        c.addr = ws.addr + TILE_AREA + idx * slot_bytes(b)
        m._tile_body(mi, ni, m_eff, n_eff, bm, bn, c, c_at=(0, bn))

    def iter_():     # every tile, tile k at word 3 + k * base_m * base_n * 4 (iterate_async)
        load_ab()
        tm, tn = m.tails
        cw = ws.get_value(base + 3)
        nt_m = _ceil_div(b, tm, bm)
        nt_n = _ceil_div(b, tn, bn)

        def one_tile(k):
            mi, ni = _tile_mn(t, k, tm, tn)
            m_eff = _max0(b, b.binop("min", bm, tm - mi * bm))
            n_eff = _max0(b, b.binop("min", bn, tn - ni * bn))
            c = GlobalTensor(dt.float32, _b=b)
            c.addr = cw + k * (bm * bn * 4)
            m._tile_body(mi, ni, m_eff, n_eff, bm, bn, c, c_at=(0, bn))
            # c220 Iterate: a notification after each of the first INC_PROCESS_CHECK - 1 tiles (on
            # FIX, after the tile's fixpipe), to the AIV's progress id
            _if(b, ("lt", b.reg(k), b.reg(INC_PROCESS_CHECK - 1)), lambda: _notify(b, sub))

        nt = b.binop("mul", nt_m, nt_n)
        _for(b, nt, one_tile)
        _notify_end(b, ws, idx, sub, nt)

    def batch_(loops):
        """IterateBatch (one batch, C at word 3) or IterateNBatch (word 14 batches, batch l's C at
        word 3 + l * max(batch_a, batch_b) * M * N * 4: the set_workspace buffer), the counts and
        the matrix strides (elements, resolved by the client) from words 10..13."""
        if int(t.is_bias):      # the bias address in word 8 (0: none), as for ITERATE_ALL
            bw = ws.get_value(base + 8)

            def with_bias():
                m.bias_gm = GlobalTensor(dt.float32, _b=b)
                m.bias_gm.addr = bw
                m._serve_bias = True
                batch_body(loops)
                m.bias_gm, m._serve_bias = None, False
            _if(b, ("ne", b.reg(bw), b.reg(0)), with_bias, lambda: batch_body(loops))
            return
        batch_body(loops)

    def batch_body(loops):
        load_ab()
        c = GlobalTensor(dt.float32, _b=b)
        c.addr = ws.get_value(base + 3)
        ba, bb = ws.get_value(base + 10), ws.get_value(base + 11)
        sa, sb = ws.get_value(base + 12), ws.get_value(base + 13)
        M, N = m.dims[0], m.dims[1]
        if not loops:
            m._batch_emit(c, ba, bb, sa, sb, M * N)
            return
        nb = b.binop("max", ba, bb)
        w14 = ws.get_value(base + 14)      # the loop count, and bit 32: notified per batch (sync=False
        loops_n = b.binop("and", w14, 0xffffffff)     # without wait_iterate_batch); one scalar GM load
        prog = b.binop("shr", w14, 32)

        def one(lp, notified):
            m._batch_emit(c, ba, bb, sa, sb, M * N,
                          first=(b.binop("mul", lp, ba), b.binop("mul", lp, bb), b.binop("mul", lp, nb)))
            if notified:    # StartIterateNBatch: a notification after each of the first 13 batches
                _if(b, ("lt", b.reg(lp), b.reg(INC_PROCESS_CHECK - 1)), lambda: _notify(b, sub))

        def with_progress():
            _for(b, loops_n, lambda lp: one(lp, True))
            _notify_end(b, ws, idx, sub, loops_n)
        # two copies of the loop: the synchronous one has no per-batch branch
        _if(b, ("ne", b.reg(prog), b.reg(0)), with_progress, lambda: _for(b, loops_n, lambda lp: one(lp, False)))

    _if(b, ("eq", b.reg(f), b.reg(F_ITER)), iter_)
    _if(b, ("eq", b.reg(f), b.reg(F_ALL)), all_)
    _if(b, ("eq", b.reg(f), b.reg(F_TILE)), tile_)
    # compiled as Ascend C's server does (matmul_server_impl_c220.h IterateBatch returns at once
    # for A's layout NONE, IterateNBatch without MatmulConfig isNBatch): the client rejects the
    # calls those paths do not serve (matmul.py _client_batch)
    if serves_batch(m):
        _if(b, ("eq", b.reg(f), b.reg(F_BATCH)), lambda: batch_(False))
    if serves_batch(m) and serves_n_batch(m):
        _if(b, ("eq", b.reg(f), b.reg(F_NBATCH)), lambda: batch_(True))


def _notify(b, sub):
    """A progress notification to AIV `sub` (run-time 0 / 1): flag PROG[sub], mode 2 on PIPE_FIX
    (after the fixpipes before it)."""
    _if(b, ("eq", b.reg(sub), b.reg(0)), lambda: _SET_CC(PROG[0], 2, PipeID.PIPE_FIX, _b=b),
        lambda: _SET_CC(PROG[1], 2, PipeID.PIPE_FIX, _b=b))


def _notify_end(b, ws, idx, sub, n):
    """After n tiles (or batches): one more notification when n >= INC_PROCESS_CHECK (c220's Iterate
    and IterateNBatch), and min(n, INC_PROCESS_CHECK), the notifications the sibling AIV's counter
    took too, into word 15 of the sibling's message (module text)."""
    _if(b, ("ge", b.reg(n), b.reg(INC_PROCESS_CHECK)), lambda: _notify(b, sub))
    if _ratio(b) > 1:
        ws.set_value(b.binop("add", idx, b.binop("sub", 1, b.binop("mul", sub, 2))) * MSG_WORDS + 15,
                     b.binop("min", n, INC_PROCESS_CHECK))


def serves_batch(m):
    """A's MatmulType has a layout, and on the AIC its layouts are usable (else the client's call
    is rejected with _batch_layout's reason)."""
    lay = m.a_type.layout if m.a_type is not None else None
    if lay is None or int(lay) == 0:
        return False
    if m.role != "server":
        return True
    t = m.tiling
    m.dims, m._batch_counts = (int(t.m), int(t.n), int(t.k_a), int(t.k_b)), None
    try:
        m._batch_layout("a", t, None)
        m._batch_layout("b", t, None)
    except CompileError:
        return False
    return True


def serves_n_batch(m):
    c = m.config
    return c is not None and bool(getattr(c, "is_n_batch", False) or getattr(c, "batch_loop", False))


def _drop_vector_queue_flags(block):
    """The kernel's TQue set-up before register_matmul pre-sets flags of pipes the AIC does not
    have (a VECOUT queue's MTE3 -> V frees): on the AIC, which returns into the server loop, that
    set-up is nothing (Ascend C's TPipe on the cube core has no UB), so those flags go."""
    keep = []
    for op in block.ops:
        a = op.attrs if isinstance(op.attrs, dict) else {}
        if op.name in ("set_flag", "wait_flag") and ({a.get("src"), a.get("dst")} & {"v", "mte3"}):
            continue
        for sub in ir.sub_blocks(op):
            _drop_vector_queue_flags(sub)
        keep.append(op)
    block.ops[:] = keep


def _at_entry(b, emit):
    """emit()'s ops at the start of the kernel body."""
    blk = ir.Block()
    b.push(blk)
    emit()
    b.pop()
    b.fn.body.ops[:0] = blk.ops


def _top_level(b, objs):
    """register_matmul inside run-time branches (or loops): the AIC serves from the kernel's top
    level, where it stands, whichever way the branches go on it (its block_idx is not its AIVs'),
    as its AIVs take part until they quit at the end of the kernel whether or not they registered.
    The server reads only the workspace address, a kernel argument then, and compile-time values."""
    w = objs[0].workspace
    base = getattr(getattr(w, "base", None), "v", None)
    if base is None or not any(a.value is base for a in b.fn.args):
        raise CompileError("asc.adv.register_matmul inside a run-time branch or loop of a mix kernel takes the "
                           "workspace as the kernel argument itself (the AIC serves from the kernel's top level, "
                           "before the branch: a GM address computed in it is not known there)", b.loc)


def _ceil_div(b, x, d):
    return (x + d - 1) // d if is_static(x) else b.binop("div", b.binop("add", x, d - 1), d)


def _for(b, hi, body):
    """for k in range(hi): body(k), a run-time loop."""
    _block_sync._for(b, hi, body, hint="kfc_k.")


def _max0(b, x):
    return max(0, x) if is_static(x) else b.binop("max", x, 0)


def _gt(b, mtype, addr):
    g = GlobalTensor(mtype.dtype if mtype is not None and mtype.dtype is not None else dt.float16, _b=b)
    g.addr = addr
    return g
