"""Fused vector ops: one vector instruction each on the card (cannmirror/asc-devkit
impl/basic_api/dav_c220/kernel_operator_vec_binary_impl.h: AddRelu -> vaddrelu, SubRelu ->
vsubrelu, FusedMulAdd -> vmadd, FusedMulAddRelu -> vmaddrelu, MulAddDst -> vmla); semantics in
sim/exec_vfused.inc.  Both forms of real pyasc's binary ops: (dst, src0, src1, count) and
(dst, src0, src1, mask, repeat_times, BinaryRepeatParams).

  add_relu(dst, a, b)            dst = max(a + b, 0)        f16, f32, s16
  sub_relu(dst, a, b)            dst = max(a - b, 0)        f16, f32, s16
  fused_mul_add(dst, a, b)       dst = a * dst + b          f16, f32 (reads dst)
  fused_mul_add_relu(dst, a, b)  dst = max(a * dst + b, 0)  f16, f32 (reads dst)
  mul_add_dst(dst, a, b)         dst = a * b + dst          f16, f32 (reads dst)
"""
from __future__ import annotations

from .types import BinaryRepeatParams


def make(name, base, reads_dst, ops):
    """The intrinsic `name` lowering to the `base`.<dtype> rows; `ops` is language/ops.py (its
    operand checks and vector emitter)."""
    def op(dst, src0, src1, *rest, _b, **kwargs):
        b = _b
        for t in (dst, src0, src1):
            ops._need_local(b, name, t)
        ops._same_dtype(b, name, dst, src0, src1)
        mnem = ops._suffix(b, name, base, dst.dtype)
        count, mask, rt, p = ops._split_form(b, name, rest, kwargs, BinaryRepeatParams)
        if count is not None:
            return ops._emit_vec(b, name, mnem, dst, [src0, src1], count=count, reads_dst=reads_dst)
        ops._emit_vec(b, name, mnem, dst, [src0, src1], mask=mask, repeat_times=rt, reads_dst=reads_dst,
                      blk=(p.dst_blk_stride, p.src0_blk_stride, p.src1_blk_stride),
                      rep=(p.dst_rep_stride, p.src0_rep_stride, p.src1_rep_stride))
    op.__name__ = name
    return ops.intrinsic(op)


FUSED = (("add_relu", "vaddrelu", False), ("sub_relu", "vsubrelu", False), ("fused_mul_add", "vmadd", True),
         ("fused_mul_add_relu", "vmaddrelu", True), ("mul_add_dst", "vmla", True))
