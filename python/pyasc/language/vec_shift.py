"""asc.shift_left / asc.shift_right: vshl / vshr (isa/asc_isa.def, vsem_VSHL/VSHR of sim/exec_vector.c).

Ascend C ShiftLeft / ShiftRight on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/
kernel_operator_vec_binary_scalar_impl.h): uint16/int16/uint32/int32, the amount in [0, width];
ShiftRight is arithmetic for signed types, logical for unsigned (real pyasc's shift_right has no
round_en, i.e. roundEn false).  Forms as every scalar vector op: (dst, src, scalar, count) and
(dst, src, scalar, mask, repeat_times, repeat_params).  Real pyasc:
python/asc/language/basic/vec_binary_scalar.py.
"""
from __future__ import annotations

from ..compiler.builder import is_static
from .ops import _emit_vec, _need_local, _same_dtype, _scalar_for, _split_form, intrinsic
from .types import UnaryRepeatParams

__all__ = ["shift_left", "shift_right"]

_TYPES = ("uint16", "int16", "uint32", "int32")


def _shift(name, base):
    @intrinsic
    def op(dst, src, scalar, *rest, _b, **kwargs):
        b = _b
        _need_local(b, name, dst)
        _need_local(b, name, src, "source")
        _same_dtype(b, name, dst, src)
        d = dst.dtype
        if d.name not in _TYPES:
            raise b.error(f"asc.{name} on {d.name} is not supported (Ascend C {name} takes {', '.join(_TYPES)})")
        w = 8 * d.sizeof()
        if is_static(scalar) and (isinstance(scalar, float) and scalar != int(scalar)):
            raise b.error(f"asc.{name}: the shift amount must be an integer, got {scalar!r}")
        if is_static(scalar) and not 0 <= int(scalar) <= w:
            raise b.error(f"asc.{name}: the shift amount must be in [0, {w}] for {d.name}, got {scalar}")
        amount = _scalar_for(b, d, int(scalar) if is_static(scalar) else scalar)
        sfx = d.isa if base == "vshr" else f"u{w}"     # a left shift is the same for signed and unsigned
        mnem = f"{base}.{sfx}"
        count, mask, rt, p = _split_form(b, name, rest, kwargs, UnaryRepeatParams)
        if count is not None:
            return _emit_vec(b, name, mnem, dst, [src], count=count, scalar=amount)
        return _emit_vec(b, name, mnem, dst, [src], mask=mask, repeat_times=rt, scalar=amount,
                         blk=(p.dst_blk_stride, p.src_blk_stride), rep=(p.dst_rep_stride, p.src_rep_stride))
    op.__name__ = name
    return op


shift_left = _shift("shift_left", "vshl")
shift_right = _shift("shift_right", "vshr")
