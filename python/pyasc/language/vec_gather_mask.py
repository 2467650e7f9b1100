"""asc.gather_mask: Ascend C GatherMask, the vreducev2.b16/.b32 instruction (sim/exec_vreducev2.c).

Semantics as on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_gather_mask_impl.h,
docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/GatherMask.md; real pyasc
python/asc/language/basic/vec_gather_mask.py and docs/python-api/language/generated/asc.language.basic.gather_mask.md):
- gather_mask(dst, src0, src1_pattern, reduce_mode, mask, params, gather_mask_mode=GatherMaskMode.DEFAULT)
  keeps the src0 elements whose gather-mask bit is 1 and writes them one after the other from dst; it
  returns rsvdCnt, how many were kept (SPR rsvd_cnt, Ascend C get_rsvd_cnt / GetGatherMaskRemainCount);
- src1_pattern: an int 1..7 (built-in: 1 even elements, 2 odd, 3..6 element 0..3 of every 4, 7 all) or a
  uint16 (16-bit data) / uint32 (32-bit data) LocalTensor whose bit i selects element i of a repeat;
- reduce_mode False (normal mode): each repeat covers 256 B, mask is ignored; True (counter mode): each
  repeat covers `mask` elements (on Atlas A2 the page's "config method 1": repeat_times * mask in all);
- params = GatherMaskParams(src0_block_stride=1, repeat_times=1, src0_repeat_stride=0, src1_repeat_stride=0),
  strides in 32 B blocks; src1_repeat_stride only moves a user pattern.
Reading rsvdCnt waits for every pipe (`bar all`, as asc.get_mrg_sort_result does), then reads the register.
Afterwards the mask mode is normal, as GatherMaskImpl leaves it.
"""
from __future__ import annotations

from enum import IntEnum

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from . import dtype as dt
from .ops import _cfgval, _int_arg, _mask_spec, _need_local, _same_dtype, intrinsic
from .tensor import LocalTensor, tensor_type_name
from .types import _Params

__all__ = ["gather_mask", "GatherMaskMode", "GatherMaskParams"]


class GatherMaskMode(IntEnum):
    """Real pyasc GatherMaskMode: only DEFAULT (reserved for later modes)."""
    DEFAULT = 0


class GatherMaskParams(_Params):
    """Real pyasc GatherMaskParams(src0_block_stride=1, repeat_times=1, src0_repeat_stride=0,
    src1_repeat_stride=0); strides in 32 B blocks."""
    _fields = ("src0_block_stride", "repeat_times", "src0_repeat_stride", "src1_repeat_stride")
    _defaults = (1, 1, 0, 0)


_TYPES = ("float16", "bfloat16", "uint16", "int16", "float32", "uint32", "int32")
_NAMES = ("src1_pattern", "reduce_mode", "mask", "params", "gather_mask_mode")


def _field(b, what, v, hi):
    _int_arg(b, f"asc.gather_mask: {what}", v)
    if is_static(v) and not 0 <= v <= hi:
        raise b.error(f"asc.gather_mask: {what} must be in [0, {hi}], got {v}")
    return _cfgval(b, v)


@intrinsic
def gather_mask(dst, src0, *rest, _b, **kwargs):
    b = _b
    vals = dict(zip(_NAMES, rest))
    if len(rest) > len(_NAMES):
        raise b.error("asc.gather_mask(dst, src0, src1_pattern, reduce_mode, mask, params, gather_mask_mode) "
                      "takes at most 7 arguments")
    for k in list(kwargs):
        if k not in _NAMES or k in vals:
            raise b.error(f"asc.gather_mask: unexpected or repeated argument '{k}'")
        vals[k] = kwargs.pop(k)
    missing = [k for k in _NAMES[:4] if k not in vals]
    if missing:
        raise b.error(f"asc.gather_mask: missing argument(s) {', '.join(missing)} (dst, src0, src1_pattern, "
                      f"reduce_mode, mask, params[, gather_mask_mode])")
    pattern, reduce_mode, mask, p = (vals[k] for k in _NAMES[:4])
    mode = vals.get("gather_mask_mode", GatherMaskMode.DEFAULT)
    if mode != GatherMaskMode.DEFAULT:
        raise b.error(f"asc.gather_mask: gather_mask_mode must be GatherMaskMode.DEFAULT, got {mode!r}")
    _need_local(b, "gather_mask", dst)
    _need_local(b, "gather_mask", src0, "src0")
    _same_dtype(b, "gather_mask", dst, src0)
    if dst.dtype.name not in _TYPES:
        raise b.error(f"asc.gather_mask on {dst.dtype.name} is not supported (Ascend C GatherMask on dav_c220 "
                      f"takes {', '.join(_TYPES)})")
    size = dst.dtype.sizeof()
    lanes = 256 // size
    if isinstance(pattern, LocalTensor):
        _need_local(b, "gather_mask", pattern, "src1_pattern")
        want = dt.uint16 if size == 2 else dt.uint32
        if pattern.dtype is not want:
            raise b.error(f"asc.gather_mask: for {dst.dtype.name} data the src1_pattern tensor must be "
                          f"{want.name}, got {pattern.dtype.name}")
        pmode = 0
    elif isinstance(pattern, int) and not isinstance(pattern, bool):
        if not 1 <= pattern <= 7:
            raise b.error(f"asc.gather_mask: a built-in src1_pattern must be in [1, 7], got {pattern}")
        pmode = pattern
    else:
        raise b.error(f"asc.gather_mask: src1_pattern must be a LocalTensor or a literal 1..7, got "
                      f"{tensor_type_name(pattern) if not isinstance(pattern, RVal) else 'a run-time value'}")
    if reduce_mode not in (True, False):
        raise b.error(f"asc.gather_mask: reduce_mode must be a literal True or False, got {reduce_mode!r}")
    if not isinstance(p, GatherMaskParams):
        raise b.error(f"asc.gather_mask: params must be GatherMaskParams, got {type(p).__name__}")
    rt = _field(b, "repeat_times", p.repeat_times, 65535)
    blk = _field(b, "src0_block_stride", p.src0_block_stride, 255)
    rep = _field(b, "src0_repeat_stride", p.src0_repeat_stride, 65535)
    rep1 = _field(b, "src1_repeat_stride", p.src1_repeat_stride, 255)
    if reduce_mode:
        _int_arg(b, "asc.gather_mask: mask", mask)
        if is_static(mask) and not 1 <= mask <= 0xffffffff:
            raise b.error(f"asc.gather_mask: in counter mode (reduce_mode=True) mask is the element count of a "
                          f"repeat, in [1, 2^32-1], got {mask}")
        m = ("count", b.operand(mask))
        n = mask
    else:
        m = _mask_spec(b, lanes, dst.dtype)   # normal mode; the instruction ignores the mask
        n = lanes
    stat = all(is_static(v) for v in (p.repeat_times, p.src0_block_stride, p.src0_repeat_stride,
                                      p.src1_repeat_stride, n))
    src_bytes = pat_bytes = dst_bytes = None
    if stat and p.repeat_times >= 1:
        epb = 32 // size
        nblk = (n + epb - 1) // epb
        src_bytes = 32 * ((p.repeat_times - 1) * p.src0_repeat_stride + (nblk - 1) * p.src0_block_stride) + \
            ((n - 1) % epb + 1) * size
        pat_bytes = 32 * p.src1_repeat_stride * (p.repeat_times - 1) + (n + 7) // 8
        dst_bytes = _bi_min(p.repeat_times * n * size, dst.nbytes()) if is_static(dst.nbytes()) else None
    reads = [src0.access(src_bytes)]
    args = [b.operand(dst.addr), b.operand(src0.addr)]
    if pmode == 0:
        reads.append(pattern.access(pat_bytes))
        args.append(b.operand(pattern.addr))
    else:
        args.append(b.operand(0))
    cfg = {"repeat": [rt], "src0blk": [blk], "src0rep": [rep], "src1rep": [rep1], "pattern": [pmode]}
    op = ir.Op("vec", None, args, {"mnem": f"vreducev2.b{size * 8}", "pipe": "v", "layout": "GMASK", "cfg": cfg,
                                   "mask": m}, reads=reads, writes=[dst.access(dst_bytes)])
    b.uses_vector = True
    b.emit(op)
    b.emit(ir.Op("bar", None, [], {"pipe": "all", "bpipe": "all"}))   # rsvdCnt is ready when V is done
    return b.spr("rsvd_cnt")


def _bi_min(a, c):
    return a if a < c else c
