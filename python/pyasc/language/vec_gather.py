"""asc.gather and asc.gatherb: the vector gathers vgather.b16/.b32 and vgatherb (sim/exec_vgather.c).

Semantics as Ascend C on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/
kernel_operator_vec_gather_impl.h, impl/basic_api/kernel_operator_vec_gather_intf_impl.h):
- gather(dst, src, src_offset, src_base, count): dst[i] = the element at byte src_base + src_offset[i]
  of src, i < count (src_offset: uint32 byte offsets); Ascend C splits count into repeats of 128
  (16-bit) or 64 (32-bit) lanes and one masked tail repeat, which is what counter mode does here.
- gather(dst, src, src_offset, src_base, mask, repeat_times, dst_rep_stride): the level-0 form;
  repeat r uses offsets [r*lanes, (r+1)*lanes) and writes dst + r*dst_rep_stride*32 B.
- gatherb(dst, src0, offset, repeat_times, repeat_params): block j < 8 of repeat r of dst =
  the 32 B of src0 at byte offset[8r + j]; no mask; GatherRepeatParams(dst_blk_stride, dst_rep_stride).
Scatter has no dav_c220 implementation (Ascend C reports it unsupported there), so it stays rejected.
Real pyasc: python/asc/language/basic/vec_gather.py.
"""
from __future__ import annotations

from ..compiler.builder import is_static
from . import dtype as dt
from .ops import _emit_vec, _int_arg, _need_local, _same_dtype, _unsupported, intrinsic
from .types import _Params

__all__ = ["gather", "gatherb", "scatter", "GatherRepeatParams"]


class GatherRepeatParams(_Params):
    """Real pyasc GatherRepeatParams(dst_blk_stride=1, dst_rep_stride=8), in 32 B blocks."""
    _fields = ("dst_blk_stride", "dst_rep_stride")
    _defaults = (1, 8)


def _offsets(b, name, t):
    _need_local(b, name, t, "offset tensor")
    if t.dtype is not dt.uint32:
        raise b.error(f"asc.{name}: the offset tensor must be uint32 (byte offsets), got {t.dtype.name}")


def _stride(b, name, what, v):
    _int_arg(b, f"asc.{name}: {what}", v)
    if is_static(v) and not 0 <= v <= 255:
        raise b.error(f"asc.{name}: {what} must be in [0, 255] (the asc config register holds 8 bits), got {v}")
    return v


_GATHER_TYPES = ("float16", "bfloat16", "uint16", "int16", "float32", "uint32", "int32")


@intrinsic
def gather(dst, src, src_offset, src_base, *rest, _b, **kwargs):
    b = _b
    _need_local(b, "gather", dst)
    _need_local(b, "gather", src, "source")
    _offsets(b, "gather", src_offset)
    _same_dtype(b, "gather", dst, src)
    if dst.dtype.name not in _GATHER_TYPES:
        raise b.error(f"asc.gather on {dst.dtype.name} is not supported (Ascend C Gather on dav_c220 takes "
                      f"{', '.join(_GATHER_TYPES)})")
    _int_arg(b, "asc.gather: src_base", src_base)
    mnem = f"vgather.b{dst.dtype.sizeof() * 8}"
    lanes = 256 // dst.dtype.sizeof()
    names = ("mask", "repeat_times", "dst_rep_stride")
    if "repeat_time" in kwargs:
        kwargs["repeat_times"] = kwargs.pop("repeat_time")
    count = kwargs.pop("count", None)
    if count is None and len(rest) == 1 and not kwargs:
        count = rest[0]
    base = b.operand(src.addr + src_base)
    args = [b.operand(dst.addr), b.operand(src_offset.addr), base]
    if count is not None:
        if rest[1:] or kwargs:
            raise b.error("asc.gather(dst, src, src_offset, src_base, count) takes no further arguments")
        op = _emit_vec(b, "gather", mnem, dst, [src_offset], count=count, args_override=args)
    else:
        vals = dict(zip(names, rest))
        for k in names:
            if k in kwargs:
                vals[k] = kwargs.pop(k)
        if kwargs or len(rest) > 3 or set(vals) != set(names):
            raise b.error("asc.gather(dst, src, src_offset, src_base, mask, repeat_times, dst_rep_stride) or "
                          "asc.gather(dst, src, src_offset, src_base, count)")
        rt = vals["repeat_times"]
        rs = _stride(b, "gather", "dst_rep_stride", vals["dst_rep_stride"])
        nsrc = rt * lanes * 4 if is_static(rt) else None
        op = _emit_vec(b, "gather", mnem, dst, [src_offset], mask=vals["mask"], repeat_times=rt, blk=(1, 1),
                       rep=(rs, 8), src_bytes=nsrc, args_override=args)
    op.reads.append(src.access())   # data-dependent addresses: the whole source tensor
    return op


@intrinsic
def gatherb(dst, src0, offset, repeat_times, repeat_params=None, *, _b):
    b = _b
    _need_local(b, "gatherb", dst)
    _need_local(b, "gatherb", src0, "source")
    _offsets(b, "gatherb", offset)
    _same_dtype(b, "gatherb", dst, src0)
    if dst.dtype not in (dt.uint16, dt.uint32):
        raise b.error(f"asc.gatherb on {dst.dtype.name} is not supported (Ascend C Gatherb takes uint16 and uint32)")
    p = repeat_params if repeat_params is not None else GatherRepeatParams()
    if not isinstance(p, GatherRepeatParams):
        raise b.error(f"asc.gatherb: repeat_params must be GatherRepeatParams, got {type(p).__name__}")
    _int_arg(b, "asc.gatherb: repeat_times", repeat_times)
    if is_static(repeat_times) and not 1 <= repeat_times <= 255:
        raise b.error(f"asc.gatherb: repeat_times must be in [1, 255], got {repeat_times}")
    blk = _stride(b, "gatherb", "dst_blk_stride", p.dst_blk_stride)
    rep = _stride(b, "gatherb", "dst_rep_stride", p.dst_rep_stride)
    args = [b.operand(dst.addr), b.operand(offset.addr), b.operand(src0.addr)]
    nd = None
    if all(is_static(v) for v in (repeat_times, blk, rep)):
        nd = ((repeat_times - 1) * rep + 7 * (blk or 1) + 1) * 32
    noff = repeat_times * 32 if is_static(repeat_times) else None
    op = _emit_vec(b, "gatherb", "vgatherb", dst, [offset], mask=256 // dst.dtype.sizeof(),
                   repeat_times=repeat_times, blk=(blk, 1), rep=(rep, 8), dst_bytes=nd, src_bytes=noff,
                   args_override=args)
    op.reads.append(src0.access())
    return op


scatter = _unsupported("scatter", "Scatter has no dav_c220 implementation (Ascend C reports it unsupported: "
                                  "impl/basic_api/dav_c220/kernel_operator_vec_scatter_impl.h)")
