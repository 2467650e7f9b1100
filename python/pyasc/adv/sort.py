"""asc.adv.concat / asc.adv.extract: the pre- and post-processing of Ascend C Sort (real pyasc
python/asc/language/adv/sort.py; Ascend C Concat / Extract in cannmirror/asc-devkit
impl/basic_api/kernel_operator_proposal_intf_impl.h, docs/zh/api/SIMD-API/高阶API/排序操作/Extract.md).
As on dav_c220 (__NPU_ARCH__ 2201, the split profiles):

- concat(dst, src, tmp, repeat_time): `concat = src`, no instruction: the LocalTensor `dst` names
  src's buffer from there on (Sort32 on dav_c220 reads the scores directly).  In Python the object
  `dst` itself is rebound, so every name bound to that object sees src (C++ rebinds one reference).
- extract(dst_value, dst_index, sorted, repeat_time): two GatherMask calls (asc.gather_mask,
  vreducev2) with a V barrier between them, over the 8-byte (score, index) elements Sort32 and
  MrgSort write (f32: score bytes 0-3; f16: score bytes 0-1, bytes 2-3 reserved; u32 index bytes
  4-7, sim/exec_vsort.c):
    float: values  pattern 1 (even 32-bit lanes), repeat_time repeats of 256 B (32 elements each);
           indices pattern 2 (odd 32-bit lanes) of sorted as uint32, repeat_time repeats;
    half:  values  pattern 3 (lane 0 of every 4 16-bit lanes), repeat_time repeats of 256 B;
           indices pattern 2 of sorted as uint32 over 2 * repeat_time repeats, as the impl has it
           ({1, repeatTime * 2, 8, 0}).  So for half the index pass reads 512 * repeat_time bytes of
           sorted (twice the 256 * repeat_time the values come from) and writes 64 * repeat_time
           indices: the first 32 * repeat_time are the sorted elements' indices, the rest come from
           the bytes after them.  That is what the card runs; here a tensor whose compile-time size
           is smaller than these footprints is an error rather than a silent overwrite of what
           follows it in UB.
  The documented repeat_time range is [0, 255] ("64 float or 128 half elements per iteration").
The coupled profiles (modelled on Ascend 910, __NPU_ARCH__ 1001) run ProposalConcat /
ProposalExtract (vconcat / vextract) instead, which are not modelled: rejected there.
"""
from __future__ import annotations

from ..compiler.builder import is_static
from ..language import dtype as dt
from ..language.enums import PipeID
from ..language.ops import _int_arg, intrinsic, pipe_barrier
from ..language.tensor import LocalTensor, tensor_type_name
from ..language.vec_gather_mask import GatherMaskParams, gather_mask

__all__ = ["concat", "extract"]

_TYPES = ("float16", "float32")


def _check(b, name, tensors, repeat_time):
    if not b.target["split"]:
        raise b.error(f"asc.adv.{name}: on {b.fn.target} (a coupled profile, modelled on Ascend 910) Ascend C "
                      f"runs Proposal{name.capitalize()} (vconcat/vextract), which is not modelled; the dav_c220 "
                      f"form runs on the split profiles (ascend910b)")
    for t, what in tensors:
        if not isinstance(t, LocalTensor) or t.buf != "UB":
            raise b.error(f"asc.adv.{name}: {what} must be a LocalTensor in UB (VECIN/VECCALC/VECOUT), got "
                          f"{tensor_type_name(t)}")
    _int_arg(b, f"asc.adv.{name}: repeat_time", repeat_time)
    if is_static(repeat_time) and not 0 <= repeat_time <= 255:
        raise b.error(f"asc.adv.{name}: repeat_time must be in [0, 255] (Ascend C), got {repeat_time}")


def _need(b, t, what, nbytes, why):
    """A compile-time size smaller than the bytes the instruction touches is an error."""
    if nbytes is None or not is_static(t.size) or not t.size:
        return
    have = t.size * t.dtype.sizeof()
    if have < nbytes:
        raise b.error(f"asc.adv.extract: {what} holds {have} B but {why} touches {nbytes} B")


@intrinsic
def concat(dst, src, tmp, repeat_time, *, _b):
    b = _b
    _check(b, "concat", ((dst, "concat (the destination)"), (src, "src"), (tmp, "tmp")), repeat_time)
    if src.dtype.name not in _TYPES or dst.dtype != src.dtype:
        raise b.error(f"asc.adv.concat takes half or float tensors of one type (Ascend C), got "
                      f"{dst.dtype.name} and {src.dtype.name}")
    dst.__dict__.update(src.__dict__)      # concat = src (dav_c220)


@intrinsic
def extract(dst_value, dst_index, sorted_, repeat_time, *, _b):
    b = _b
    _check(b, "extract", ((dst_value, "dst_value"), (dst_index, "dst_index"), (sorted_, "sorted")), repeat_time)
    if sorted_.dtype.name not in _TYPES or dst_value.dtype != sorted_.dtype:
        raise b.error(f"asc.adv.extract takes dst_value and sorted of one type, half or float (Ascend C), got "
                      f"{dst_value.dtype.name} and {sorted_.dtype.name}")
    if dst_index.dtype != dt.uint32:
        raise b.error(f"asc.adv.extract: dst_index is uint32 (Ascend C), got {dst_index.dtype.name}")
    half = sorted_.dtype.name == "float16"
    rt = repeat_time
    if is_static(rt):
        ri = 2 * rt if half else rt
        _need(b, dst_value, "dst_value", 32 * rt * sorted_.dtype.sizeof(), f"the value pass ({rt} repeats)")
        _need(b, sorted_, "sorted", 256 * ri, f"the index pass ({ri} repeats of 256 B"
              + (", 2 * repeat_time for half as the dav_c220 impl runs it)" if half else ")"))
        _need(b, dst_index, "dst_index", 128 * ri, f"the index pass ({ri} repeats of 32 indices"
              + (", 2 * repeat_time for half as the dav_c220 impl runs it)" if half else ")"))
        ri_v = ri
    else:
        ri_v = rt * 2 if half else rt
    gm = gather_mask.__wrapped__
    gm(dst_value, sorted_, 3 if half else 1, False, 0, GatherMaskParams(1, rt, 8, 0), _b=b)
    pipe_barrier.__wrapped__(PipeID.PIPE_V, _b=b)
    gm(dst_index, sorted_.reinterpret_cast(dt.uint32), 2, False, 0, GatherMaskParams(1, ri_v, 8, 0), _b=b)
