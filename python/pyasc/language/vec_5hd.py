"""asc.trans_data_to_5hd: Ascend C TransDataTo5HD, the vnchwconv.b8/.b16/.b32 instructions reading the
address registers VA0..VA3 (setva / vldva; sim/exec_vnchwconv.c).

Semantics as on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_transpose_impl.h,
docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据排布变换/TransDataTo5HD.md; real pyasc
python/asc/language/basic/vec_transpose.py and docs/python-api/language/generated/asc.language.basic.trans_data_to_5hd.md):
- trans_data_to_5hd(dst_list, src_list, params): 16 destination and 16 source 32 B blocks in UB, given as
  16 LocalTensors each (TensorList; the element type is theirs), or as 16 UB byte addresses each (AddrList:
  ints or run-time values, e.g. t[i].get_phy_addr()); Ascend C sets VA0..VA3 with set_va_reg_sb, here
  four setva instructions on the V pipe;
- trans_data_to_5hd(dst, src, params): dst and src are uint64 LocalTensors holding the 16 addresses each
  (Ascend C vld_va_reg, here vldva);
- b16: dst block j = element j of the 16 src blocks; b32: dst blocks 2j / 2j+1 = element j of src blocks
  0..7 / 8..15; b8: the low or high half (dst_high_half) of dst block j = byte j (+16 with
  src_high_half) of the 16 src blocks;
- params = TransDataTo5HDParams(dst_high_half=False, src_high_half=False, repeat_times=1, dst_rep_stride=0,
  src_rep_stride=0): repeat r adds r * stride blocks to every address, except that with repeat_times 1
  the stride is added once (the Ascend C page's rule); repeat_times 0 is a no-op.
Real pyasc infers the element type of the address forms from the get_phy_addr calls that made the
addresses; asc takes `dtype=` (asc.float16, ...), or without it the one element type of every
get_phy_addr the kernel made so far (an error when there were several or none).
"""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import is_static
from . import dtype as dt
from .ops import _cfgval, _int_arg, _need_local, intrinsic
from .tensor import LocalTensor, tensor_type_name
from .types import _Params

__all__ = ["trans_data_to_5hd", "TransDataTo5HDParams"]


class TransDataTo5HDParams(_Params):
    """Real pyasc TransDataTo5HDParams(dst_high_half=False, src_high_half=False, repeat_times=1,
    dst_rep_stride=0, src_rep_stride=0); strides in 32 B blocks."""
    _fields = ("dst_high_half", "src_high_half", "repeat_times", "dst_rep_stride", "src_rep_stride")
    _defaults = (False, False, 1, 0, 0)


_TYPES = ("int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32")


def _field(b, what, v, hi):
    _int_arg(b, f"asc.trans_data_to_5hd: {what}", v)
    if is_static(v) and not 0 <= v <= hi:
        raise b.error(f"asc.trans_data_to_5hd: {what} must be in [0, {hi}], got {v}")
    return _cfgval(b, v)


def _addresses(b, what, lst):
    """(UB byte addresses, element dtype or None, accesses) of a 16-entry list."""
    if not isinstance(lst, (list, tuple)) or len(lst) != 16:
        n = len(lst) if isinstance(lst, (list, tuple)) else tensor_type_name(lst)
        raise b.error(f"asc.trans_data_to_5hd: {what} must be 16 LocalTensors or 16 UB addresses "
                      f"(NCHW_CONV_ADDR_LIST_SIZE), got {n}")
    if all(isinstance(t, LocalTensor) for t in lst):
        for t in lst:
            _need_local(b, "trans_data_to_5hd", t, f"{what} entry")
            if t.dtype is not lst[0].dtype:
                raise b.error(f"asc.trans_data_to_5hd: the {what} tensors mix {lst[0].dtype.name} and {t.dtype.name}")
        return [t.addr for t in lst], lst[0].dtype, [t.access(None) for t in lst]
    addrs = []
    for i, a in enumerate(lst):
        if isinstance(a, LocalTensor):
            raise b.error(f"asc.trans_data_to_5hd: {what} mixes LocalTensors and addresses")
        _int_arg(b, f"asc.trans_data_to_5hd: {what}[{i}]", a)
        addrs.append(a)
    # unknown tensors: the op may touch any UB byte (insert_sync then orders it against everything)
    return addrs, None, [ir.Access("UB", b.operand(0), None, None, "UB (address list)")]


def _pack4(b, what, addrs):
    """The setva operand: 4 addresses in 32 B units, 16 bits each."""
    v = None
    for i, a in enumerate(addrs):
        if is_static(a) and (a % 32 or not 0 <= a < 32 * 65536):
            raise b.error(f"asc.trans_data_to_5hd: {what} address {a} is not a 32 B aligned UB address")
        part = (a >> 5) << (16 * i) if i else a >> 5
        v = part if v is None else (part | v if is_static(v) else v | part)
    return v


@intrinsic
def trans_data_to_5hd(dst_or_list, src_or_list, params, *, dtype=None, _b):
    b = _b
    if not isinstance(params, TransDataTo5HDParams):
        raise b.error(f"asc.trans_data_to_5hd: params must be TransDataTo5HDParams, got {type(params).__name__}")
    if isinstance(dst_or_list, LocalTensor) or isinstance(src_or_list, LocalTensor):
        for w, t in (("dst", dst_or_list), ("src", src_or_list)):
            if not isinstance(t, LocalTensor):
                raise b.error(f"asc.trans_data_to_5hd: {w} must be a uint64 LocalTensor of 16 addresses like the "
                              f"other, got {tensor_type_name(t)}")
            _need_local(b, "trans_data_to_5hd", t, f"{w} address tensor")
            if t.dtype is not dt.uint64:
                raise b.error(f"asc.trans_data_to_5hd: the {w} address tensor must be uint64, got {t.dtype.name}")
        ety = dtype
        vld = True
        reads = [dst_or_list.access(128), src_or_list.access(128),
                 ir.Access("UB", b.operand(0), None, None, "UB (address list)")]
        writes = [ir.Access("UB", b.operand(0), None, None, "UB (address list)")]
    else:
        dsts, dty, dacc = _addresses(b, "dst_list", dst_or_list)
        srcs, sty, sacc = _addresses(b, "src_list", src_or_list)
        if dty is not None and sty is not None and dty is not sty:
            raise b.error(f"asc.trans_data_to_5hd: dst_list is {dty.name} but src_list is {sty.name}")
        ety = dty or sty or dtype
        if dtype is not None and ety is not dtype:
            raise b.error(f"asc.trans_data_to_5hd: dtype={dtype.name} but the tensors are {ety.name}")
        vld = False
        reads, writes = sacc, dacc
    if ety is None:
        seen = getattr(b, "phy_addr_dtypes", None) or set()
        if len(seen) == 1:      # every get_phy_addr so far was of one element type: that one
            ety = next(iter(seen))
        else:
            raise b.error("asc.trans_data_to_5hd with addresses needs dtype= (asc.float16, asc.int8, ...) here: "
                          "real pyasc infers it from the get_phy_addr calls that made them, asc only when every "
                          f"get_phy_addr of the kernel so far was of one element type (seen: "
                          f"{', '.join(sorted(d.name for d in seen)) or 'none'})")
    if not isinstance(ety, dt.DataType) or ety.name not in _TYPES:
        raise b.error(f"asc.trans_data_to_5hd on {getattr(ety, 'name', ety)} is not supported (Ascend C "
                      f"TransDataTo5HD on dav_c220 takes {', '.join(_TYPES)})")
    for k in ("dst_high_half", "src_high_half"):
        if getattr(params, k) not in (True, False):
            raise b.error(f"asc.trans_data_to_5hd: {k} must be a literal True or False")
    if ety.sizeof() != 1 and (params.dst_high_half or params.src_high_half):
        raise b.error("asc.trans_data_to_5hd: dst_high_half/src_high_half are for int8/uint8 only")
    rt = _field(b, "repeat_times", params.repeat_times, 255)
    drep = _field(b, "dst_rep_stride", params.dst_rep_stride, 65535)
    srep = _field(b, "src_rep_stride", params.src_rep_stride, 65535)
    b.uses_vector = True
    if vld:
        b.emit(ir.Op("vec", None, [b.operand(dst_or_list.addr), b.operand(src_or_list.addr)],
                     {"mnem": "vldva", "pipe": "v"}, reads=reads[:2]))
        reads = reads[2:]
    else:
        for k, lst in enumerate((dsts[:8], dsts[8:], srcs[:8], srcs[8:])):
            lo, hi = _pack4(b, "dst_list" if k < 2 else "src_list", lst[:4]), _pack4(b, "dst_list" if k < 2 else "src_list", lst[4:])
            b.emit(ir.Op("vec", None, [b.operand(k), b.operand(lo), b.operand(hi)], {"mnem": "setva", "pipe": "v"}))
    cfg = {"repeat": [rt], "dstrep": [drep], "srcrep": [srep], "dsthigh": [int(params.dst_high_half)],
           "srchigh": [int(params.src_high_half)]}
    b.emit(ir.Op("vec", None, [], {"mnem": f"vnchwconv.b{ety.sizeof() * 8}", "pipe": "v", "layout": "NCHW",
                                   "cfg": cfg}, reads=reads, writes=writes))

