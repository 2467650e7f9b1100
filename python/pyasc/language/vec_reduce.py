"""asc.block_reduce_sum/max/min, asc.pair_reduce_sum, asc.repeat_reduce_sum: vcgadd / vcgmax / vcgmin,
vcpadd and vcadd (isa/asc_isa.def; vsem_VCG* / vsem_VCPADD / vsem_VCADD of sim/exec_vector.c).

Ascend C BlockReduceSum/Max/Min, PairReduceSum and RepeatReduceSum on dav_c220 (cannmirror/asc-devkit
impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h): one instruction each, the mask set first.
- block_reduce_*(dst, src, repeat, mask, dst_rep_stride, src_blk_stride, src_rep_stride): repeat r
  writes 8 elements, element k the reduction of block k (pairwise tree), at dst + r*dst_rep_stride*8
  elements (the stride counts one repeat's 8 results: 16 B for half, 32 B for float).
- pair_reduce_sum(...same...): element j = src[2j] + src[2j+1]; repeat r at dst + r*dst_rep_stride*128 B
  (a repeat's results are half its length).
- repeat_reduce_sum(dst, src, repeat_time, mask, dst_blk_stride, src_blk_stride, dst_rep_stride,
  src_rep_stride): vcadd with a continuous mask; dst_blk_stride is ignored (as documented) and
  dst_rep_stride counts elements.
A block or pair with no active lane leaves its destination element unchanged.  half and float only.
Real pyasc: docs/python-api/language/generated/asc.language.basic.{block_reduce_sum,pair_reduce_sum,
repeat_reduce_sum}.md.
"""
from __future__ import annotations

from ..compiler.builder import is_static
from .ops import _emit_vec, _int_arg, _need_local, _same_dtype, _set_mask_flag, intrinsic

__all__ = ["block_reduce_sum", "block_reduce_max", "block_reduce_min", "pair_reduce_sum", "repeat_reduce_sum"]

_TYPES = ("float16", "float32")


def _check(b, name, dst, src):
    _need_local(b, name, dst)
    _need_local(b, name, src, "source")
    _same_dtype(b, name, dst, src)
    if dst.dtype.name not in _TYPES:
        raise b.error(f"asc.{name} on {dst.dtype.name} is not supported (Ascend C {name} takes half and float)")


def _stride(b, name, what, v):
    _int_arg(b, f"asc.{name}: {what}", v)
    if is_static(v) and not 0 <= v <= 255:
        raise b.error(f"asc.{name}: {what} must be in [0, 255] (the asc config register holds 8 bits), got {v}")
    return v


_NAMES = ("repeat", "mask", "dst_rep_stride", "src_blk_stride", "src_rep_stride")


def _group(name, base, pair):
    @intrinsic
    def op(dst, src, *args, _b, **kw):
        b = _b
        _set_mask_flag(b, name, kw)
        if len(args) == 6 and isinstance(args[5], bool):
            _set_mask_flag(b, name, {"is_set_mask": args[5]})
            args = args[:5]
        if "repeat_time" in kw or "repeat_times" in kw:
            kw["repeat"] = kw.pop("repeat_time", None) if "repeat_time" in kw else kw.pop("repeat_times")
        if len(args) > 5:
            raise b.error(f"asc.{name}: too many arguments")
        vals = dict(zip(_NAMES, args))
        for k in list(kw):
            if k in _NAMES and k not in vals:
                vals[k] = kw.pop(k)
        if kw:
            raise b.error(f"asc.{name}: unexpected keyword argument(s) {', '.join(kw)}")
        missing = [k for k in _NAMES if k not in vals]
        if missing:
            raise b.error(f"asc.{name}: missing argument(s) {', '.join(missing)}")
        _check(b, name, dst, src)
        size = dst.dtype.sizeof()
        mnem = f"{base}.{dst.dtype.isa}"
        rt = vals["repeat"]
        drs = _stride(b, name, "dst_rep_stride", vals["dst_rep_stride"])
        sbs = _stride(b, name, "src_blk_stride", vals["src_blk_stride"])
        srs = _stride(b, name, "src_rep_stride", vals["src_rep_stride"])
        group = 128 if pair else 8 * size            # dst bytes of one repeat's results
        nbd = ((rt - 1) * drs * group + group if rt else 0) if is_static(rt) and is_static(drs) else None
        _emit_vec(b, name, mnem, dst, [src], mask=vals["mask"], repeat_times=rt, blk=(1, sbs), rep=(drs, srs),
                  dst_bytes=nbd)
    op.__name__ = name
    return op


block_reduce_sum = _group("block_reduce_sum", "vcgadd", False)
block_reduce_max = _group("block_reduce_max", "vcgmax", False)
block_reduce_min = _group("block_reduce_min", "vcgmin", False)
pair_reduce_sum = _group("pair_reduce_sum", "vcpadd", True)

_RNAMES = ("repeat_time", "mask", "dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride")


@intrinsic
def repeat_reduce_sum(dst, src, *args, _b, **kw):
    b = _b
    _set_mask_flag(b, "repeat_reduce_sum", kw)
    if len(args) == 7 and isinstance(args[6], bool):
        _set_mask_flag(b, "repeat_reduce_sum", {"is_set_mask": args[6]})
        args = args[:6]
    if "repeat_times" in kw:
        kw["repeat_time"] = kw.pop("repeat_times")
    if len(args) > 6:
        raise b.error("asc.repeat_reduce_sum: too many arguments")
    vals = dict(zip(_RNAMES, args))
    for k in list(kw):
        if k in _RNAMES and k not in vals:
            vals[k] = kw.pop(k)
    if kw:
        raise b.error(f"asc.repeat_reduce_sum: unexpected keyword argument(s) {', '.join(kw)}")
    missing = [k for k in _RNAMES if k not in vals]
    if missing:
        raise b.error(f"asc.repeat_reduce_sum: missing argument(s) {', '.join(missing)}")
    _check(b, "repeat_reduce_sum", dst, src)
    mask = vals["mask"]
    if isinstance(mask, (list, tuple)):
        raise b.error("asc.repeat_reduce_sum takes a continuous mask only (an element count; Ascend C "
                      "RepeatReduceSum has no bit-mask form: use asc.whole_reduce_sum)")
    rt = vals["repeat_time"]
    _int_arg(b, "asc.repeat_reduce_sum: dst_blk_stride", vals["dst_blk_stride"])  # ignored, as on the card
    sbs = _stride(b, "repeat_reduce_sum", "src_blk_stride", vals["src_blk_stride"])
    drs = _stride(b, "repeat_reduce_sum", "dst_rep_stride", vals["dst_rep_stride"])
    srs = _stride(b, "repeat_reduce_sum", "src_rep_stride", vals["src_rep_stride"])
    size = dst.dtype.sizeof()
    nbd = ((rt - 1) * drs * size + size if rt else 0) if is_static(rt) and is_static(drs) else None
    _emit_vec(b, "repeat_reduce_sum", f"vcadd.{dst.dtype.isa}", dst, [src], mask=mask, repeat_times=rt,
              blk=(1, sbs), rep=(drs, srs), dst_bytes=nbd)
