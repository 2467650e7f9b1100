"""asc.add_deq_relu(dst, src0, src1, count | mask, repeat_times, repeat_params[, is_set_mask]):
Ascend C AddDeqRelu on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/
kernel_operator_vec_binary_impl.h AddDeqReluImpl / AddDeqReluCompute; real pyasc
docs/python-api/language/generated/asc.language.basic.add_deq_relu.md): int32 src0 + src1 ->
float16 dst = max(f16(((f32(sum) * 2^-17) * scale) * 2^17), 0), scale the half of
set_deq_scale(scale).  One instruction here, vadddeqrelu.s32.f16 (opcode 0x67, sim/exec_vector.c
vsem_VADDDEQ), that rounds at every step as the card's vector sequence does.

Differences, said here: the card's sequence uses src0 and src1 as scratch (src0 ends holding the
f32 products, src1 the f16 values) and an 8 KB temporary UB region; here src0 and src1 are left as
they were.  Masks beyond the 64 int32 lanes of one repeat (a continuous mask > 64, or mask[1] != 0)
are rejected: on the card those lanes of the f16 steps read the next repeat's data."""
from __future__ import annotations

from . import dtype as dt
from .types import BinaryRepeatParams


def make(ops):
    @ops.intrinsic
    def add_deq_relu(dst, src0, src1, *rest, _b, **kwargs):
        b = _b
        ops._need_local(b, "add_deq_relu", dst)
        ops._need_local(b, "add_deq_relu", src0, "source")
        ops._need_local(b, "add_deq_relu", src1, "source")
        if (src0.dtype, src1.dtype, dst.dtype) != (dt.int32, dt.int32, dt.float16):
            raise b.error(f"asc.add_deq_relu: src0 and src1 must be int32 and dst float16 (AddDeqRelu), got "
                          f"{src0.dtype.name} + {src1.dtype.name} -> {dst.dtype.name}")
        count, mask, rt, p = ops._split_form(b, "add_deq_relu", rest, kwargs, BinaryRepeatParams)
        mnem = "vadddeqrelu.s32.f16"
        if count is not None:
            return ops._emit_vec(b, "add_deq_relu", mnem, dst, [src0, src1], count=count, rep=(4, 8, 8))
        if isinstance(mask, (list, tuple)):
            wide = len(mask) == 2 and ops.is_static(mask[1]) and mask[1] != 0
        else:
            wide = ops.is_static(mask) and not 0 <= mask <= 64
        if wide:
            raise b.error(f"asc.add_deq_relu: the mask must select lanes of one 64-lane int32 repeat "
                          f"(a continuous mask 0..64, or mask[1] == 0), got {mask!r}")
        ops._emit_vec(b, "add_deq_relu", mnem, dst, [src0, src1], mask=mask, repeat_times=rt,
                      blk=(p.dst_blk_stride, p.src0_blk_stride, p.src1_blk_stride),
                      rep=(p.dst_rep_stride, p.src0_rep_stride, p.src1_rep_stride), dst_dtype=dt.int32)

    return add_deq_relu
