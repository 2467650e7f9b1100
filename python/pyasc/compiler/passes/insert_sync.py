"""Pass 4, insert_sync: set_flag/wait_flag pairs for LocalTensor code, placed so that pipes
overlap (run when insert_sync=True, or any LocalTensorAuto is in the kernel).

Input IR: IR with buffers placed and event Syms resolved (after place_buffers, alloc_events).
Output IR: the same IR plus set_flag/wait_flag/bar ops (attrs auto=True) ordering every
conflicting pair of accesses on different pipes.

Model.  Every op with a pipe (dma, vec, load2d, mmad, fix) is an *item* of its pipe; a pipe runs
its items in order, so only dependencies between different pipes need flags.  Two accesses
conflict when one of them writes and their byte ranges may overlap: local buffers by placed
address range (a run-time address covers its whole TQue/TBuf/LocalTensorAuto slot, or the whole
buffer for a static LocalTensor), GM by kernel argument (each GlobalAddress is its own GM
allocation; offsets inside one are not compared).

Happens-before is tracked with vector clocks: know[Q][P] = k means every P item up to the k-th
has completed before Q's next item starts.  A wait on Q for a set placed on P after P's item a
gives Q everything P knew at a, plus a.  A full barrier gives every pipe everything.

Synthesis, per structured block (straight-line code; nested For/If/While are single items that
occupy every pipe they use):
* for each item B and each other pipe P holding an unordered conflicting access: one flag P->Q,
  its set_flag right after the last such P item (the producer), its wait_flag right before B.
* event ids per HardEvent: ids the kernel uses by hand, TQue ids, and 6 (system) are never used;
  an id is reused only when its previous wait provably completed before the new set (setting a
  set flag faults), else a later set position is tried, and last a full barrier.
* a nested block starts with an empty history: dependencies from outside are waited for right
  before it; dependencies out of it get sets right after it.
* loops: the body is synthesised, then simulated twice in a row to find the loop-carried
  dependencies (iteration i -> i+1) not already ordered; each gets the double-buffering pattern:
  set before the loop, wait before the consumer, set after the producer, wait after the loop.
  The result is simulated over three iterations and checked (every conflict ordered, no set
  on a set flag, nothing left set); if the check fails, or ids run out, the loop falls back to
  a full barrier at the end of its body.
"""
from __future__ import annotations

from collections import defaultdict

from .. import events, ir

PIPES = ("mte1", "mte2", "mte3", "v", "m", "fix", "s")
_SYNC = ("set_flag", "wait_flag", "bar")


def _is_item(op):
    return op.pipe not in ("s", "all") and op.name not in _SYNC and not ir.sub_blocks(op)


def _walk_sub(op):
    for b in ir.sub_blocks(op):
        yield from ir.walk(b)


def _int(o):
    if isinstance(o, ir.Const) and o.ty == "i64":
        return int(o.value)
    if isinstance(o, ir.Sym) and isinstance(o.resolved, int):
        return o.resolved
    if isinstance(o, int):
        return o
    return None


def _overlap(s1, s2):
    if s1[0] != s2[0]:
        return False
    if s1[0] == "GM" and s1[1] and s2[1] and s1[1] != s2[1]:
        return False
    if s1[2] is None or s2[2] is None:
        return True
    return s1[2] < s2[3] and s2[2] < s1[3]


def _set(P, Q, e, loc):
    return ir.Op("set_flag", None, [], {"src": P, "dst": Q, "event": e, "pipe": P, "auto": True}, loc=loc)


def _wait(P, Q, e, loc):
    return ir.Op("wait_flag", None, [], {"src": P, "dst": Q, "event": e, "pipe": Q, "auto": True}, loc=loc)


def _bar(loc):
    return ir.Op("bar", None, [], {"pipe": "all", "bpipe": "all", "auto": True}, loc=loc)


class _Ctx:
    def __init__(self, fn, target):
        self._event_of = events.name_of
        n = target["event_ids"]
        self.order = [i for i in range(n) if i != 6]
        self.taken = set()
        for op in ir.walk(fn.body):
            if op.name in ("set_flag", "wait_flag") and not op.attrs.get("auto"):
                ev = op.attrs["event"]
                ev = ev.resolved if isinstance(ev, ir.Sym) else ev
                self.taken.add((op.attrs["src"], op.attrs["dst"], ev))
        self.roots = {}
        for r in fn.buffers:
            if r.addrs is not None:
                for s, a in enumerate(r.addrs):
                    self.roots[repr((r.key, s))] = (a, a + r.nbytes)
        self.summaries = {}
        self.fallbacks = 0
        self.loops = 0

    def ids(self, P, Q, forbid):
        try:
            self._event_of(P, Q)
        except KeyError:
            return None
        return [e for e in self.order if (P, Q, e) not in self.taken and (P, Q, e) not in forbid]

    def span(self, a):
        if a.buf == "GM":
            r = a.root[1] if isinstance(a.root, tuple) and len(a.root) == 2 and a.root[0] == "gm" else None
            return ("GM", r, None, None)
        lo = _int(a.addr)
        if lo is not None and a.nbytes is not None:
            return (a.buf, None, lo, lo + a.nbytes)
        rng = self.roots.get(repr(a.root))
        if rng is not None:
            return (a.buf, None) + rng
        return (a.buf, None, None, None)

    def accs(self, op):
        """(pipe, kind, span) of an item, or of every item inside a structured op."""
        ops = [op] if not ir.sub_blocks(op) else [o for o in _walk_sub(op)]
        out = []
        for o in ops:
            if _is_item(o):
                out += [(o.pipe, "r", self.span(a)) for a in o.reads]
                out += [(o.pipe, "w", self.span(a)) for a in o.writes]
        return out

    def pipes(self, op):
        if not ir.sub_blocks(op):
            return {op.pipe}
        return {o.pipe for o in _walk_sub(op) if _is_item(o)}


class _State:
    """Vector-clock happens-before over one block.  check=True: flags are taken as written
    (sets at their program position) and unordered conflicts are recorded, not fixed."""

    def __init__(self):
        self.cnt = {}
        self.know = defaultdict(dict)
        self.snap = {}
        self.hist = []
        self.lastwait = {}
        self.pending = {}
        self.bad = []

    def k(self, q, p):
        return self.know[q].get(p, 0)

    def needs(self, accs):
        need = {}
        for (P, a, k1, s1, tag) in self.hist:
            for (Q, k2, s2) in accs:
                if P == Q or (k1 == "r" and k2 == "r") or self.k(Q, P) >= a or not _overlap(s1, s2):
                    continue
                cur = need.get((P, Q))
                if cur is None or a > cur[0]:
                    need[(P, Q)] = (a, tag)
        return need

    def acquire(self, Q, snap):
        kq = self.know[Q]
        for p, v in snap.items():
            if v > kq.get(p, 0):
                kq[p] = v

    def barall(self):
        for X in sorted(set(PIPES) | set(self.cnt) | set(self.know)):   # sorted: not in str-hash order
            self.know[X] = dict(self.cnt)

    def now_snap(self, P):
        s = dict(self.know[P])
        s[P] = self.cnt.get(P, 0)
        return s

    def safe(self, key, snapP):
        lw = self.lastwait.get(key)
        return lw is None or snapP.get(key[1], 0) >= lw

    def add_item(self, pipes, accs, tag, ids=()):
        idx = {}
        pipes = set(pipes) | {k[0] for k in ids} | {k[1] for k in ids}
        for p in sorted(pipes):
            s0 = dict(self.know[p])
            for key in ids:   # a structured op's own flags start on P at its start
                if key[0] == p and not self.safe(key, s0):
                    self.bad.append(("unsafe id", key))
            i = self.cnt[p] = self.cnt.get(p, 0) + 1
            idx[p] = i
            s0[p] = i
            self.snap[(p, i)] = s0
            self.know[p][p] = i
        for (Q, kind, span) in accs:
            self.hist.append((Q, idx[Q], kind, span, tag))
        for key in ids:
            self.lastwait[key] = idx[key[1]]
        return idx

    # check mode: flags as written
    def set(self, P, Q, e, auto):
        key = (P, Q, e)
        s = self.now_snap(P)
        if auto and (key in self.pending or not self.safe(key, s)):
            self.bad.append(("set of a set flag", key))
        self.pending[key] = s

    def wait(self, P, Q, e):
        key = (P, Q, e)
        s = self.pending.pop(key, None)
        if s is not None:
            self.acquire(Q, s)
        self.lastwait[key] = self.cnt.get(Q, 0) + 1


def _event(op):
    ev = op.attrs["event"]
    return ev.resolved if isinstance(ev, ir.Sym) else ev


def _simulate(ctx, seq, st=None):
    """Run `seq` (ops, tagged (tag, op)) through a checking _State; return it."""
    st = st or _State()
    for tag, op in seq:
        if op.name == "set_flag":
            st.set(op.attrs["src"], op.attrs["dst"], _event(op), op.attrs.get("auto"))
        elif op.name == "wait_flag":
            st.wait(op.attrs["src"], op.attrs["dst"], _event(op))
        elif op.name == "bar":
            if op.attrs.get("bpipe") == "all":
                st.barall()
        elif _is_item(op) or ir.sub_blocks(op):
            summ = ctx.summaries.get(id(op), (ctx.pipes(op), ctx.accs(op), set()))
            if not summ[0] and not summ[2]:
                continue
            for (P, Q), (a, ptag) in st.needs(summ[1]).items():
                st.bad.append(("unordered", P, Q, ptag, tag))
            st.add_item(summ[0], summ[1], tag, summ[2])
    return st


def _sync_block(ctx, block, forbid):
    """Synthesise flags for one block; returns the set of (P, Q, id) it used."""
    st = _State()
    ops = block.ops
    before = [[] for _ in ops]
    after = [[] for _ in ops]
    tail = [[] for _ in ops]
    where = {}            # (pipe, idx) -> op position
    used = set()
    user_pending = {}

    def alloc(P, Q, a, B_loc):
        """An id for a flag P->Q set after P's item a: (id, set position) or None."""
        ids = ctx.ids(P, Q, forbid)
        if ids is None:
            return None
        for pos in dict.fromkeys((a, st.cnt.get(P, 0))):
            snap = st.snap[(P, pos)]
            for e in ids:
                if st.safe((P, Q, e), snap):
                    return e, pos
        return None

    def sync_into(i, accs, Qpipes_loc):
        need = st.needs(accs)
        if not need:
            return
        plan = []
        for (P, Q), (a, _tag) in sorted(need.items()):
            got = alloc(P, Q, a, Qpipes_loc)
            if got is None:
                plan = None
                break
            plan.append((P, Q, got[0], got[1]))
            # reserve: pretend this wait already happened for the next allocations
            st.lastwait[(P, Q, got[0])] = st.cnt.get(Q, 0) + 1
        if plan is None:
            before[i].append(_bar(Qpipes_loc))
            st.barall()
            ctx.fallbacks += 1
            return
        for P, Q, e, pos in plan:
            j = where[(P, pos)]
            after[j].append(_set(P, Q, e, ops[j].loc))
            before[i].append(_wait(P, Q, e, ops[i].loc))
            s = dict(st.snap[(P, pos)])
            st.acquire(Q, s)
            used.add((P, Q, e))

    for i, op in enumerate(ops):
        if op.name == "set_flag":
            user_pending[(op.attrs["src"], op.attrs["dst"], _event(op))] = st.now_snap(op.attrs["src"])
            continue
        if op.name == "wait_flag":
            s = user_pending.pop((op.attrs["src"], op.attrs["dst"], _event(op)), None)
            if s is not None:
                st.acquire(op.attrs["dst"], s)
            continue
        if op.name == "bar":
            if op.attrs.get("bpipe") == "all":
                st.barall()
            continue
        subs = ir.sub_blocks(op)
        if subs:
            pipes, accs = ctx.pipes(op), ctx.accs(op)
            if not pipes:
                continue
            sync_into(i, accs, op.loc)
            child = set(forbid)
            for key, lw in st.lastwait.items():
                if st.know[key[0]].get(key[1], 0) < lw:
                    child.add(key)
            inner = set()
            if isinstance(op, ir.If):
                inner |= _sync_block(ctx, op.then, child)
                inner |= _sync_block(ctx, op.els, child)
            elif isinstance(op, ir.While) and any(_is_item(o) or ir.sub_blocks(o) for o in op.head.ops):
                inner |= _sync_block(ctx, op.head, child)
                inner |= _sync_block(ctx, op.body, child)
                op.head.ops.append(_bar(op.loc))
                op.body.ops.append(_bar(op.loc))
                ctx.fallbacks += 1
            else:
                inner |= _sync_block(ctx, op.body, child)
                pre, post, lc = _loop_carried(ctx, op.body, child | inner, op.loc)
                before[i] += pre
                tail[i] += post
                inner |= lc
            ctx.summaries[id(op)] = (pipes, accs, inner)
            idx = st.add_item(pipes, accs, i, inner)
            for p, k in idx.items():
                where[(p, k)] = i
            used |= inner
            continue
        if not _is_item(op):
            continue
        accs = ctx.accs(op)
        sync_into(i, accs, op.loc)
        idx = st.add_item({op.pipe}, accs, i)
        where[(op.pipe, idx[op.pipe])] = i
    out = []
    for i, op in enumerate(ops):
        out += before[i]
        out.append(op)
        out += tail[i]
        out += after[i]
    block.ops[:] = out
    return used


def _loop_carried(ctx, body, forbid, loc):
    """Flags for the dependencies from iteration i to i+1 of a synthesised loop body; edits the
    body in place and returns (ops before the loop, ops after it, ids used)."""
    ops = list(body.ops)
    if not any(_is_item(o) or ir.sub_blocks(o) for o in ops):
        return [], [], set()
    ctx.loops += 1
    st = _simulate(ctx, [((c, j), o) for c in (0, 1) for j, o in enumerate(ops)])
    groups = {}
    ok = True
    for b in st.bad:
        if b[0] != "unordered":
            continue      # id reuse across the back edge: the three-iteration check decides
        _, P, Q, (ca, ja), (cb, jb) = b
        if not (ca == 0 and cb == 1):
            ok = False
            break
        key = (P, Q, ja)
        groups[key] = min(groups.get(key, jb), jb)
    if ok and groups:
        taken = set()
        for op in ops:
            if op.name in ("set_flag", "wait_flag"):
                taken.add((op.attrs["src"], op.attrs["dst"], _event(op)))
        plan = []
        for (P, Q, ja), jb in sorted(groups.items()):
            ids = ctx.ids(P, Q, forbid | taken)
            if not ids:
                ok = False
                break
            taken.add((P, Q, ids[0]))
            plan.append((P, Q, ids[0], ja, jb))
        if ok:
            bef = [[] for _ in ops]
            aft = [[] for _ in ops]
            pre, post = [], []
            for P, Q, e, ja, jb in plan:
                pre.append(_set(P, Q, e, loc))
                aft[ja].append(_set(P, Q, e, ops[ja].loc))
                bef[jb].append(_wait(P, Q, e, ops[jb].loc))
                post.append(_wait(P, Q, e, loc))
            new = []
            for j, op in enumerate(ops):
                new += bef[j] + [op] + aft[j]
            seq = [(("pre", j), o) for j, o in enumerate(pre)]
            seq += [((c, j), o) for c in range(3) for j, o in enumerate(new)]
            seq += [(("post", j), o) for j, o in enumerate(post)]
            chk = _simulate(ctx, seq)
            if not chk.bad and not any(k for k in chk.pending if (k[0], k[1], k[2]) in
                                       {(p[0], p[1], p[2]) for p in plan}):
                body.ops[:] = new
                return pre, post, {(p[0], p[1], p[2]) for p in plan}
            ok = False
    if ok and not groups:
        # still check the body's own ids across the back edge
        chk = _simulate(ctx, [((c, j), o) for c in range(3) for j, o in enumerate(ops)])
        if not chk.bad:
            return [], [], set()
    body.ops.append(_bar(loc))
    ctx.fallbacks += 1
    return [], [], set()


def insert_sync(fn, target):
    ctx = _Ctx(fn, target)
    _sync_block(ctx, fn.body, set())
    fn.sync_stats = {"loops": ctx.loops, "fallbacks": ctx.fallbacks}
    return fn
