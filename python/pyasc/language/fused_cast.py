"""add_relu_cast, sub_relu_cast, mul_cast: a binary vector op whose result is converted to a
narrower type (Ascend C AddReluCast / SubReluCast: cannmirror/asc-devkit
impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h, vaddreluconv_* / vsubreluconv_*; MulCast:
kernel_operator_vec_mulcast_impl.h, vmulconv_f162s8 / vmulconv_f162u8).

  add_relu_cast(dst, a, b)   dst = Cast(max(a + b, 0))   (src, dst) f16 -> s8, f32 -> f16, s16 -> s8
  sub_relu_cast(dst, a, b)   dst = Cast(max(a - b, 0))   the same pairs
  mul_cast(dst, a, b)        dst = Cast(a * b)           f16 -> s8, f16 -> u8

Cast is the conversion of Ascend C's CAST_NONE (its precision_conversion page: round to nearest
even where the value is not representable, saturate where it is out of range).  The operation
itself is done in the source type, rounded once there (the fused instruction's internal
precision is not published).

A lowering, not one instruction: asc's ISA has no fused convert, so each call is the existing
vaddrelu / vsubrelu / vmul in the source type into a compiler-placed UB scratch buffer laid out
as src0, then vconv (rint) from the scratch into dst (s16 -> s8 goes s16 -> f16 in place, exact
for every value that does not saturate, then f16 -> s8).  It takes two or three vector
instructions and their cycles where the card takes one, and UB room for the scratch.  Both forms of
real pyasc: (dst, src0, src1, count) and (dst, src0, src1, mask, repeat_times, BinaryRepeatParams);
the mask counts lanes of the source type, the wider one, as in Ascend C."""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import is_static
from . import dtype as dt
from .enums import RoundMode, TPosition
from .tensor import BufferReq, LocalTensor
from .types import BinaryRepeatParams, UnaryRepeatParams

_PAIRS = {
    "add_relu_cast": ("add_relu", (("float16", "int8"), ("float32", "float16"), ("int16", "int8"))),
    "sub_relu_cast": ("sub_relu", (("float16", "int8"), ("float32", "float16"), ("int16", "int8"))),
    "mul_cast": ("mul", (("float16", "int8"), ("float16", "uint8"))),
}


def _scratch(b, name, dtype, nbytes):
    key = f"q{len(b.fn.buffers)}"
    nbytes = -(-nbytes // 256) * 256
    b.fn.buffers.append(BufferReq(key, "UB", 1, nbytes, b.loc, f"{key}:asc.{name} scratch"))
    return LocalTensor._make(b, dtype, TPosition.VECCALC, ir.Sym("buf", (key, 0)), nbytes // dtype.sizeof(), (key, 0))


def make(name, ops):
    base, pairs = _PAIRS[name]

    def op(dst, src0, src1, *rest, _b, **kwargs):
        b = _b
        for t in (dst, src0, src1):
            ops._need_local(b, name, t)
        ops._same_dtype(b, name, src0, src1)
        u, t = src0.dtype, dst.dtype
        if (u.name, t.name) not in pairs:
            have = ", ".join(f"{s} -> {d}" for s, d in pairs)
            raise b.error(f"asc.{name} from {u.name} to {t.name} is not supported (Ascend C's {name} pairs on "
                          f"dav_c220: {have})")
        count, mask, rt, p = ops._split_form(b, name, rest, kwargs, BinaryRepeatParams)
        inner = getattr(ops, base)
        if count is not None:
            n = count if is_static(count) else src0.size
            if not is_static(n) or not n:
                raise b.error(f"asc.{name}: a run-time count needs source tensors of compile-time size (the "
                              "lowering's scratch buffer is placed at compile time)")
            tmp = _scratch(b, name, u, int(n) * u.sizeof())
            inner(tmp, src0, src1, count, _b=b)
            if u is dt.int16:
                tf = tmp.reinterpret_cast(dt.float16)
                ops.cast(tf, tmp, RoundMode.CAST_RINT, count, _b=b)
                tmp = tf
            ops.cast(dst, tmp, RoundMode.CAST_RINT, count, _b=b)
            return
        span = ops._span(rt, p.src0_blk_stride, p.src0_rep_stride)
        if span is None:
            raise b.error(f"asc.{name}: repeat_times and the strides must be compile-time integers (the lowering's "
                          "scratch buffer is placed at compile time)")
        tmp = _scratch(b, name, u, span)
        inner(tmp, src0, src1, mask=mask, repeat_times=rt,
              repeat_params=BinaryRepeatParams(p.src0_blk_stride, p.src0_blk_stride, p.src1_blk_stride,
                                               p.src0_rep_stride, p.src0_rep_stride, p.src1_rep_stride), _b=b)
        same = UnaryRepeatParams(p.src0_blk_stride, p.src0_blk_stride, p.src0_rep_stride, p.src0_rep_stride)
        if u is dt.int16:
            tf = tmp.reinterpret_cast(dt.float16)
            ops.cast(tf, tmp, RoundMode.CAST_RINT, mask=mask, repeat_times=rt, repeat_params=same, _b=b)
            tmp = tf
        ops.cast(dst, tmp, RoundMode.CAST_RINT, mask=mask, repeat_times=rt, _b=b,
                 repeat_params=UnaryRepeatParams(p.dst_blk_stride, p.src0_blk_stride, p.dst_rep_stride,
                                                 p.src0_rep_stride))

    op.__name__ = name
    return ops.intrinsic(op)


NAMES = tuple(_PAIRS)
