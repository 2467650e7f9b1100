"""asc.sort32, asc.mrg_sort, asc.sort, asc.get_sort_len/get_sort_offset, asc.get_mrg_sort_result,
MrgSortSrcList and MrgSort4Info: the dav_c220 sort instructions vbitsort and vmrgsort4 (sim/exec_vsort.c).

Semantics as Ascend C on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/
kernel_operator_proposal_impl.h, impl/basic_api/kernel_operator_proposal_intf_impl.h; the Sort32,
MrgSort and GetMrgSortResult documentation):
- sort32(dst, src0, src1, repeat_time): per repeat, 32 scores (float16/float32) and their uint32
  indices become 32 (score, index) pairs of 8 B in descending score order; equal scores keep input order.
- mrg_sort(dst, sort_list, element_count_list, sorted_num, valid_bit, repeat_time,
  is_exhausted_suspension=False) or mrg_sort(dst, sort_list, MrgSort4Info): merges up to 4 sorted lists
  (element counts in 8 B pairs); with exhausted suspension the merge stops when a list runs out, and
  sorted_num[k] then holds the pairs taken from list k (Ascend C reads VMS4_SR into sortedNum).
- sort(dst, concat, index, tmp, repeat_time, is_full_sort=False): Sort32, then with is_full_sort the
  4-way merge rounds of Ascend C DoFullSort (tmp as the other buffer) until one list is left in dst.
- get_sort_len(n) / get_sort_offset(n): real pyasc emits GetSortLen<float> / GetSortOffset<float>
  (hicann/pyasc include/ascir/Dialect/Asc/IR/Basic/OpProposal.td), which is n * 2 on dav_c220.
- get_mrg_sort_result(): the four 16-bit fields of VMS4_SR.  The read waits for every pipe first
  (pipe_barrier(PIPE_ALL)), so it sees the last merge's counts.
mrg_sort4, rp_sort16, proposal_concat and proposal_extract have no dav_c220 implementation (Ascend C
reports them unsupported there: impl/basic_api/dav_c220/kernel_operator_proposal_impl.h), so they are
rejected with that reason.  Real pyasc: python/asc/language/basic/proposal.py.
"""
from __future__ import annotations

import functools

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from . import dtype as dt
from .ops import _cfgval, _int_arg, _need_local, _same_dtype, _unsupported, intrinsic

__all__ = ["sort32", "mrg_sort", "sort", "get_sort_len", "get_sort_offset", "get_mrg_sort_result",
           "MrgSortSrcList", "MrgSort4Info", "mrg_sort4", "rp_sort16", "proposal_concat", "proposal_extract"]


class MrgSortSrcList:
    """Real pyasc MrgSortSrcList(src1, src2, src3, src4): the four sorted lists of a merge."""

    def __init__(self, src1, src2, src3=None, src4=None):
        self.src1, self.src2, self.src3, self.src4 = src1, src2, src3, src4

    def lists(self):
        return [self.src1, self.src2, self.src3, self.src4]


class MrgSort4Info:
    """Real pyasc MrgSort4Info(element_lengths, if_exhausted_suspension=False, valid_bit=15, repeat_times=1)."""

    def __init__(self, element_lengths=(0, 0, 0, 0), if_exhausted_suspension=False, valid_bit=15, repeat_times=1):
        self.element_lengths = list(element_lengths)
        self.if_exhausted_suspension = if_exhausted_suspension
        self.valid_bit = valid_bit
        self.repeat_times = repeat_times


_SORT_TYPES = ("float16", "float32")


def _sort_dtype(b, name, t):
    if t.dtype.name not in _SORT_TYPES:
        raise b.error(f"asc.{name} on {t.dtype.name} is not supported (Ascend C {name} on dav_c220 takes float16 and "
                      "float32)")
    return t.dtype.isa


def _repeat(b, name, rt):
    _int_arg(b, f"asc.{name}: repeat_time", rt)
    if is_static(rt) and not 0 <= rt <= 255:
        raise b.error(f"asc.{name}: repeat_time must be in [0, 255], got {rt}")
    return rt


def _emit_sort32(b, dst, src0, src1, rt):
    isa = _sort_dtype(b, "sort32", dst)
    _same_dtype(b, "sort32", dst, src0)
    if src1.dtype is not dt.uint32:
        raise b.error(f"asc.sort32: src1 (the indices) must be uint32, got {src1.dtype.name}")
    size = dst.dtype.sizeof()
    st = is_static(rt)
    op = ir.Op("vec", None, [b.operand(dst.addr), b.operand(src0.addr), b.operand(src1.addr)],
               {"mnem": f"vbitsort.{isa}", "pipe": "v", "layout": "SORT", "cfg": {"repeat": [_cfgval(b, rt)]}},
               reads=[src0.access(32 * size * rt if st else None), src1.access(128 * rt if st else None)],
               writes=[dst.access(256 * rt if st else None)])
    b.uses_vector = True
    b.emit(op)


@intrinsic
def sort32(dst, src0, src1, repeat_time, *, _b):
    b = _b
    for t, w in ((dst, "operand"), (src0, "source"), (src1, "index tensor")):
        _need_local(b, "sort32", t, w)
    _emit_sort32(b, dst, src0, src1, _repeat(b, "sort32", repeat_time))


def _pack16(vals):
    return functools.reduce(lambda acc, kv: acc | (kv[1] << (16 * kv[0])) if kv[0] else kv[1], enumerate(vals), 0)


def _emit_merge(b, name, dst, lists, lens, valid, rt, exhausted):
    """One vmrgsort4: lists = 4 LocalTensors (None: unused), lens = 4 counts (ints or RVals)."""
    isa = _sort_dtype(b, name, dst)
    if not is_static(valid) or valid not in (3, 7, 15):
        raise b.error(f"asc.{name}: valid_bit must be a literal 3, 7 or 15 (2, 3 or 4 valid lists), got {'a run-time value' if isinstance(valid, RVal) else repr(valid)}")
    nl = {3: 2, 7: 3, 15: 4}[valid]
    if exhausted not in (True, False):
        raise b.error(f"asc.{name}: is_exhausted_suspension must be a literal True or False, got {'a run-time value' if isinstance(exhausted, RVal) else repr(exhausted)}")
    if len(lens) != 4:
        raise b.error(f"asc.{name}: element_count_list needs 4 counts, got {len(lens)}")
    addrs = []
    for k in range(4):
        t = lists[k] if k < nl else None
        if t is None:
            if k < nl:
                raise b.error(f"asc.{name}: list {k + 1} is valid (valid_bit={valid}) but not given")
            addrs.append(0)
            lens[k] = 0
            continue
        _need_local(b, name, t, f"list {k + 1}")
        _same_dtype(b, name, dst, t)
        _int_arg(b, f"asc.{name}: element count {k + 1}", lens[k])
        if is_static(lens[k]) and not 0 <= lens[k] <= 4095:
            raise b.error(f"asc.{name}: element count {k + 1} must be in [0, 4095], got {lens[k]}")
        if is_static(t.addr) and t.addr % 8:
            raise b.error(f"asc.{name}: list {k + 1} starts at UB byte {t.addr}, not a multiple of 8")
        addrs.append(t.addr >> 3)
    a = _pack16(addrs)
    n = _pack16(lens)
    st = is_static(rt) and all(is_static(v) for v in lens)
    total = sum(lens) if st else None
    reads = [lists[k].access(8 * lens[k] * (1 if rt == 1 else rt * 4) if st else None) for k in range(nl)]
    cfg = {"repeat": [_cfgval(b, rt)], "valid": [valid], "exhausted": [int(exhausted)]}
    op = ir.Op("vec", None, [b.operand(dst.addr), b.operand(a), b.operand(n)],
               {"mnem": f"vmrgsort4.{isa}", "pipe": "v", "layout": "SORT", "cfg": cfg},
               reads=reads, writes=[dst.access(8 * total * rt if st else None)])
    b.uses_vector = True
    b.emit(op)


def _vms4(b):
    b.emit(ir.Op("bar", None, [], {"pipe": "all", "bpipe": "all"}))
    sr = b.spr("vms4_sr")
    return [(sr >> (16 * k)) & 0xffff if k else sr & 0xffff for k in range(4)]


@intrinsic
def mrg_sort(dst, sort_list, *args, _b, **kwargs):
    b = _b
    _need_local(b, "mrg_sort", dst)
    if not isinstance(sort_list, MrgSortSrcList):
        raise b.error(f"asc.mrg_sort: sort_list must be an asc.MrgSortSrcList, got {type(sort_list).__name__}")
    params = kwargs.pop("params", None)
    if params is None and len(args) == 1 and isinstance(args[0], MrgSort4Info):
        params = args[0]
        args = ()
    if params is not None:
        if args or kwargs:
            raise b.error("asc.mrg_sort(dst, sort_list, params) takes no further arguments")
        _emit_merge(b, "mrg_sort", dst, sort_list.lists(), list(params.element_lengths), params.valid_bit,
                    _repeat(b, "mrg_sort", params.repeat_times), params.if_exhausted_suspension)
        return None
    names = ("element_count_list", "sorted_num", "valid_bit", "repeat_time", "is_exhausted_suspension")
    vals = dict(zip(names, args))
    for k in list(kwargs):
        if k in names and k not in vals:
            vals[k] = kwargs.pop(k)
    if kwargs or len(args) > 5 or any(k not in vals for k in names[:4]):
        raise b.error("asc.mrg_sort(dst, sort_list, element_count_list, sorted_num, valid_bit, repeat_time, "
                      "is_exhausted_suspension=False) or asc.mrg_sort(dst, sort_list, params)")
    ex = vals.get("is_exhausted_suspension", False)
    _emit_merge(b, "mrg_sort", dst, sort_list.lists(), list(vals["element_count_list"]), vals["valid_bit"],
                _repeat(b, "mrg_sort", vals["repeat_time"]), ex)
    sn = vals["sorted_num"]
    if ex is True:
        if not isinstance(sn, list) or len(sn) != 4:
            raise b.error("asc.mrg_sort: sorted_num must be a list of 4 (it receives the counts taken per list)")
        sn[:] = _vms4(b)   # Ascend C MrgSort<T, true>: sortedNum[k] = VMS4_SR field k
    return None


@intrinsic
def sort(dst, concat, index, tmp, repeat_time, is_full_sort=False, *, _b):
    b = _b
    for t, w in ((dst, "operand"), (concat, "source"), (index, "index tensor"), (tmp, "tmp tensor")):
        _need_local(b, "sort", t, w)
    if is_full_sort not in (True, False):
        raise b.error(f"asc.sort: is_full_sort must be a literal True or False, got {'a run-time value' if isinstance(is_full_sort, RVal) else repr(is_full_sort)}")
    rt = _repeat(b, "sort", repeat_time)
    _emit_sort32(b, dst, concat, index, rt)
    if not is_full_sort:
        return None
    if not is_static(rt):
        raise b.error("asc.sort(is_full_sort=True): repeat_time must be a compile-time integer here (the merge "
                      "rounds are unrolled at compile time)")
    _same_dtype(b, "sort", dst, tmp)
    # DoFullSort: runs of 32 pairs, merged 4 at a time per round (a lone last run is merged with an empty
    # list, i.e. copied), alternating between dst and tmp; the last round writes dst.
    runs = [(32 * i, 32) for i in range(rt)]
    per = 8 // dst.dtype.sizeof()           # elements of T per pair
    rounds = []
    while len(runs) > 1:
        rounds.append(runs)
        runs = [(g[0][0], sum(n for _, n in g)) for g in (runs[i:i + 4] for i in range(0, len(runs), 4))]
    for i, rnd in enumerate(rounds):
        # rounds alternate so that the last one writes dst
        to_dst = (len(rounds) - i) % 2 == 1
        frm, to = (tmp, dst) if to_dst else (dst, tmp)
        if i == 0 and to_dst:
            _copy_pairs(b, tmp, dst, 32 * rt, per)
        b.emit(ir.Op("bar", None, [], {"pipe": "v", "bpipe": "v"}))
        for g in (rnd[j:j + 4] for j in range(0, len(rnd), 4)):
            nl = max(2, len(g))
            lists = [frm[s * per] for s, _ in g] + [frm[g[0][0] * per]] * (nl - len(g))
            lens = [n for _, n in g] + [0] * (4 - len(g))
            _emit_merge(b, "sort", to[g[0][0] * per], lists + [None] * (4 - nl), lens, {2: 3, 3: 7, 4: 15}[nl], 1,
                        False)
    return None


def _copy_pairs(b, to, frm, npairs, per):
    """dst -> tmp before the first merge round (Ascend C DoFullSort: DataCopy(tmp, dst)): one merge of the
    runs' total with an empty second list moves the pairs unchanged."""
    b.emit(ir.Op("bar", None, [], {"pipe": "v", "bpipe": "v"}))
    left = npairs
    off = 0
    while left:
        n = min(left, 4095)
        _emit_merge(b, "sort", to[off * per], [frm[off * per], frm[off * per], None, None], [n, 0, 0, 0], 3, 1, False)
        off += n
        left -= n


@intrinsic
def get_sort_len(elem_count, *, _b):
    _int_arg(_b, "asc.get_sort_len: elem_count", elem_count)
    return elem_count * 2


@intrinsic
def get_sort_offset(elem_offset, *, _b):
    _int_arg(_b, "asc.get_sort_offset: elem_offset", elem_offset)
    return elem_offset * 2


@intrinsic
def get_mrg_sort_result(*, _b):
    return tuple(_vms4(_b))


_C220 = ("{} has no dav_c220 implementation (Ascend C reports it unsupported on this device: "
         "cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_proposal_impl.h); use {}")
mrg_sort4 = _unsupported("mrg_sort4", _C220.format("MrgSort4 (the dav_m200 region-proposal merge)", "asc.mrg_sort"))
rp_sort16 = _unsupported("rp_sort16", _C220.format("RpSort16 (vbitsort of 16 region proposals)", "asc.sort32"))
proposal_concat = _unsupported("proposal_concat", _C220.format("ProposalConcat (vconcat)", "asc.sort32's src0/src1"))
proposal_extract = _unsupported("proposal_extract", _C220.format("ProposalExtract (vextract)", "asc.adv.extract"))
