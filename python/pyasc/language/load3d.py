"""LoadData3D v2 (im2col) of real pyasc: asc.load_data(dst, src, asc.LoadData3DParamsV2(...)),
asc.set_load_data_padding_value, asc.set_load_data_repeat, asc.set_load_data_boundary; the
load3dv2 instruction and the SPRs fmatrix, padding, l3d_rpt, l1_3d_size
(sim/exec_load3d.c has the semantics).

Sources: real pyasc python/asc/language/core/types.py (LoadData3DParamsV2, LoadDataRepeatParam
fields and defaults), python/asc/language/basic/mm.py (load_data, set_load_data_*) and
docs/python-api/language/generated/asc.language.basic.load_data.md; Ascend C (cannmirror/asc-devkit)
impl/basic_api/kernel_operator_mm_base_impl.h LoadDataImpl(LoadData3DParamsV2): with the default
IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true} every such LoadData first writes the feature map
register (Load3DSetFMatrixCal: l1W, l1H, padList) and the padding register (Load3DSetPaddingCal:
the padValue of the params), so here too each load_data writes fmatrix and padding before the
load, and asc.set_load_data_padding_value only matters for code that reads the register later;
impl/basic_api/dav_c220/kernel_operator_mm_impl.h (img2colv2_cbuf_to_ca / _cb, set_l3d_rpt,
set_l1_3d_size); docs/zh/api/.../LoadData_3D.md (ranges, channelSize rule, ZZ / ZN layouts).
"""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from .ops import _cfgval, _int_arg, _s64, intrinsic
from .tensor import LocalTensor, _float_bits, tensor_type_name
from .types import _Params

__all__ = ["LoadData3DParamsV2", "LoadDataRepeatParam", "set_load_data_padding_value", "set_load_data_repeat",
           "set_load_data_boundary"]


class LoadData3DParamsV2(_Params):
    """Real pyasc LoadData3DParamsV2(pad_list, l1_h, l1_w, channel_size, k_extension, m_extension,
    k_start_pt, m_start_pt, stride_w, stride_h, filter_w, filter_h, dilation_filter_w,
    dilation_filter_h, en_transpose, pad_value, filter_size_w, filter_size_h, f_matrix_ctrl)."""
    _fields = ("pad_list", "l1_h", "l1_w", "channel_size", "k_extension", "m_extension", "k_start_pt",
               "m_start_pt", "stride_w", "stride_h", "filter_w", "filter_h", "dilation_filter_w",
               "dilation_filter_h", "en_transpose", "pad_value", "filter_size_w", "filter_size_h", "f_matrix_ctrl")
    _defaults = ((0, 0, 0, 0), 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, False, 0, False, False, False)


class LoadDataRepeatParam(_Params):
    """Real pyasc LoadDataRepeatParam(repeat_time=1, repeat_stride=0, repeat_mode=0)."""
    _fields = ("repeat_time", "repeat_stride", "repeat_mode")
    _defaults = (1, 0, 0)


def _ranged(b, what, v, lo, hi):
    _int_arg(b, f"asc.load_data (LoadData3DParamsV2): {what}", v)
    if is_static(v) and not lo <= v <= hi:
        raise b.error(f"asc.load_data (LoadData3DParamsV2): {what} must be in [{lo}, {hi}], got {v}")
    return v


def _static(b, what, v, lo, hi):
    if not is_static(v):
        raise b.error(f"asc.load_data (LoadData3DParamsV2): {what} must be a compile-time value")
    return _ranged(b, what, v, lo, hi)


def _word(b, parts):
    """The 64-bit word of (value, shift, width) fields; run-time values are masked to their width,
    shifted and or-ed on the scalar unit."""
    out = _s64(sum(int(v) << sh for v, sh, _w in parts if is_static(v)))
    for v, sh, w in parts:
        if not is_static(v):
            piece = v & ((1 << w) - 1)
            piece = piece << sh if sh else piece
            out = piece if (not isinstance(out, RVal) and out == 0) else piece | out
    return out


def _mtspr(b, spr, value):
    b.emit(ir.Op("mtspr", None, [b.operand(value)], {"spr": spr}))


def _value_bits(b, dtype, v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise b.error(f"{what}: the padding value must be a compile-time number, got {type(v).__name__}")
    size = dtype.sizeof()
    if dtype.is_float:
        import math
        import numpy as np
        top = {"f16": float(np.finfo(np.float16).max), "f32": float(np.finfo(np.float32).max)}.get(dtype.isa, 3.3895313892515355e38)
        if math.isfinite(float(v)) and abs(float(v)) > top:
            raise b.error(f"{what}: padding value {v} overflows {dtype.name}")
        return _float_bits(dtype, float(v))
    if isinstance(v, float) and not v.is_integer():
        raise b.error(f"{what}: padding value {v!r} is not an integer but the tensor is {dtype.name}")
    lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size)) - 1)
    if not lo <= int(v) <= hi:
        raise b.error(f"{what}: padding value {v} does not fit in {dtype.name}")
    return int(v) & ((1 << (8 * size)) - 1)


def emit_load3d(b, dst, src, p):
    """asc.load_data(dst, src, LoadData3DParamsV2): fmatrix and padding registers, then load3dv2."""
    b.uses_cube = True
    if not (isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and src.buf == "L1"
            and dst.buf in ("L0A", "L0B")):
        def where(t):
            return f"a {t.pos.name} tensor" if isinstance(t, LocalTensor) else tensor_type_name(t)
        raise b.error(f"asc.load_data with LoadData3DParamsV2 moves an A1/B1 (L1) tensor into A2 (L0A) or B2 (L0B); "
                      f"got {where(src)} -> {where(dst)}")
    if src.dtype is not dst.dtype:
        raise b.error(f"asc.load_data (LoadData3DParamsV2) between {src.dtype.name} and {dst.dtype.name}: "
                      f"dtypes must match")
    es = dst.dtype.sizeof()
    l0b = dst.buf == "L0B"
    if es not in (1, 2, 4):
        raise b.error(f"asc.load_data (LoadData3DParamsV2) of {dst.dtype.name}: the element must be 1, 2 or 4 bytes")
    if p.f_matrix_ctrl:
        raise b.error("asc.load_data (LoadData3DParamsV2): f_matrix_ctrl=True (the right matrix's feature map "
                      "register) is not modelled; Ascend C documents only false")
    if p.filter_size_w or p.filter_size_h:
        raise b.error("asc.load_data (LoadData3DParamsV2): filter_size_w / filter_size_h (filter + 256) are not "
                      "modelled")
    transpose = p.en_transpose
    if not is_static(transpose):
        raise b.error("asc.load_data (LoadData3DParamsV2): en_transpose must be a compile-time bool")
    if l0b:
        transpose = False        # L0B always transposes (LoadData_3D.md: enTranspose has no effect there)
    if es != 2 and (l0b or transpose):
        raise b.error(f"asc.load_data (LoadData3DParamsV2) of {dst.dtype.name} "
                      f"{'into B2 (L0B)' if l0b else 'with en_transpose'}: only 16-bit types are modelled there "
                      f"(8-bit types are not supported by dav_c220, 32-bit ones are not modelled)")
    c0 = 32 // es
    pads = p.pad_list
    if not isinstance(pads, (list, tuple)) or len(pads) != 4:
        raise b.error("asc.load_data (LoadData3DParamsV2): pad_list must be [left, right, top, bottom]")
    for i, v in enumerate(pads):
        _static(b, f"pad_list[{i}]", v, 0, 255)
    l1h = _ranged(b, "l1_h", p.l1_h, 0, 32767)
    l1w = _ranged(b, "l1_w", p.l1_w, 0, 32767)
    ch = _static(b, "channel_size", p.channel_size, 0, 65535)
    if ch % c0:
        raise b.error(f"asc.load_data (LoadData3DParamsV2): channel_size {ch} is not a multiple of {c0} "
                      f"({dst.dtype.name}): the hardware's small-channel modes (4, 8, N*{c0}+4, ...) are not "
                      f"modelled; pad the channels to a multiple of {c0} in L1 (NC1HWC0) and pass that")
    kext = _ranged(b, "k_extension", p.k_extension, 0, 65535)
    mext = _ranged(b, "m_extension", p.m_extension, 0, 65535)
    kst = _ranged(b, "k_start_pt", p.k_start_pt, 0, 65535)
    mst = _ranged(b, "m_start_pt", p.m_start_pt, 0, 32767)
    sw, sh = (_static(b, k, getattr(p, k), 1, 63) for k in ("stride_w", "stride_h"))
    fw, fh = (_static(b, k, getattr(p, k), 0, 255) for k in ("filter_w", "filter_h"))
    dw, dh = (_static(b, k, getattr(p, k), 1, 255) for k in ("dilation_filter_w", "dilation_filter_h"))
    for what, v in (("k_start_pt", kst), ("k_extension", kext)):
        if is_static(v) and v % c0:
            raise b.error(f"asc.load_data (LoadData3DParamsV2): {what} {v} must be a multiple of {c0} "
                          f"({dst.dtype.name}: 32 bytes of elements)")
    nbytes = None
    if all(is_static(v) for v in (l1h, l1w, kext, mext, kst, mst)) and all((l1h, l1w, ch, kext, mext, fw, fh)):
        kw, kh = (fw - 1) * dw + 1, (fh - 1) * dh + 1
        wp, hp = l1w + pads[0] + pads[1], l1h + pads[2] + pads[3]
        if wp < kw or hp < kh:
            raise b.error(f"asc.load_data (LoadData3DParamsV2): the dilated filter {kh}x{kw} (HxW) is larger than "
                          f"the padded feature map {hp}x{wp}")
        hout, wout = (hp - kh) // sh + 1, (wp - kw) // sw + 1
        mtot, ktot = hout * wout, ch * fh * fw
        if mst + mext > mtot or kst + kext > ktot:
            raise b.error(f"asc.load_data (LoadData3DParamsV2): the window rows [{mst}, {mst + mext}) x columns "
                          f"[{kst}, {kst + kext}) leaves the im2col matrix of {mtot} x {ktot} "
                          f"(Hout {hout} x Wout {wout}; K = channel_size * filter_h * filter_w)")
        if mext % 16 and mst + mext != mtot:
            raise b.error(f"asc.load_data (LoadData3DParamsV2): m_extension {mext} must be a multiple of 16 unless "
                          f"the window reaches the last row ({mtot})")
        nbytes = -(-mext // 16) * (kext // c0) * 512
        if is_static(dst.size) and nbytes > dst.nbytes():
            raise b.error(f"asc.load_data (LoadData3DParamsV2): the window fills {nbytes} bytes of fractals but the "
                          f"destination tensor has {dst.nbytes()}")
    what = "asc.load_data (LoadData3DParamsV2)"
    _mtspr(b, "fmatrix", _word(b, [(l1w, 0, 16), (l1h, 16, 16)] + [(pads[i], 32 + 8 * i, 8) for i in range(4)]))
    _mtspr(b, "padding", _value_bits(b, dst.dtype, p.pad_value, what))
    ext = _word(b, [(kext, 0, 16), (mext, 16, 16), (kst, 32, 16), (mst, 48, 15), (int(l0b), 63, 1)])
    cfg = {"stridew": [sw], "strideh": [sh], "filterw": [fw], "filterh": [fh], "dilw": [dw], "dilh": [dh],
           "esize": [{1: 0, 2: 1, 4: 2}[es]], "transpose": [int(bool(transpose))], "channel": [_cfgval(b, ch)]}
    b.emit(ir.Op("load2d", None, [b.operand(dst.addr), b.operand(src.addr), b.operand(ext)],
                 {"mnem": "load3dv2", "pipe": "mte1", "layout": "L3DF", "cfg": cfg},
                 reads=[src.access()], writes=[dst.access(nbytes)]))


@intrinsic
def set_load_data_padding_value(pad_value, *, dtype=None, _b):
    """Real pyasc set_load_data_padding_value(pad_value): Ascend C SetLoadDataPaddingValue<T> writes the
    value's bit pattern to the padding register (Load3DSetPaddingCal; 8-bit values are doubled), T being
    the value's type: int32 for an int, float32 for a float, as real pyasc passes them.  A 16-bit load
    reads the low 16 bits, so on an f16 map `set_load_data_padding_value(2.0)` pads with 0.0 (the low
    half of 2.0f), as on the card; `dtype=` (an asc extension) converts to that type first.  A later
    asc.load_data with LoadData3DParamsV2 writes its own pad_value over it (isSetPadding is true)."""
    b = _b
    from . import dtype as dt
    if not is_static(pad_value) or isinstance(pad_value, bool) or not isinstance(pad_value, (int, float)):
        raise b.error("asc.set_load_data_padding_value: the value must be a compile-time int or float")
    if dtype is None:
        dtype = dt.float32 if isinstance(pad_value, float) else dt.int32
    if not isinstance(dtype, dt.DataType) or dtype.sizeof() > 4:
        raise b.error(f"asc.set_load_data_padding_value: dtype must be a 1-, 2- or 4-byte asc dtype, got {dtype!r}")
    bits = _value_bits(b, dtype, pad_value, "asc.set_load_data_padding_value")
    if dtype.sizeof() == 1:
        bits = bits | (bits << 8)
    b.uses_cube = True
    _mtspr(b, "padding", bits)


@intrinsic
def set_load_data_repeat(param, *, _b):
    """Real pyasc set_load_data_repeat(LoadDataRepeatParam): the l3d_rpt register (Ascend C
    SetLoadDataRepeatCal: repeatStride | repeatTime << 16 | repeatMode << 24).  The simulator models one
    move per load (repeat_time 0 or 1); a load3dv2 issued with more faults."""
    b = _b
    if not isinstance(param, LoadDataRepeatParam):
        raise b.error(f"asc.set_load_data_repeat needs an asc.LoadDataRepeatParam, got {type(param).__name__}")
    rt = _int_arg(b, "asc.set_load_data_repeat: repeat_time", param.repeat_time)
    rs = _int_arg(b, "asc.set_load_data_repeat: repeat_stride", param.repeat_stride)
    rm = _int_arg(b, "asc.set_load_data_repeat: repeat_mode", param.repeat_mode)
    for what, v, hi in (("repeat_time", rt, 255), ("repeat_stride", rs, 65535), ("repeat_mode", rm, 1)):
        if is_static(v) and not 0 <= v <= hi:
            raise b.error(f"asc.set_load_data_repeat: {what} must be in [0, {hi}], got {v}")
    if is_static(rt) and rt > 1:
        raise b.error(f"asc.set_load_data_repeat: repeat_time {rt}: load3d repeats (several moves per load) are "
                      f"not modelled; use repeat_time 1 and one load_data per block")
    b.uses_cube = True
    _mtspr(b, "l3d_rpt", _word(b, [(rs, 0, 16), (rt, 16, 8), (rm, 24, 1)]))


@intrinsic
def set_load_data_boundary(boundary, *, _b):
    """Real pyasc set_load_data_boundary(boundary): the l1_3d_size register (Ascend C
    SetLoadDataBoundaryCal -> set_l1_3d_size), in bytes for load3d v2: 0 = no boundary; otherwise at
    least 1024, and a source address at or past it wraps to the start of L1 (taken modulo it)."""
    b = _b
    v = _int_arg(b, "asc.set_load_data_boundary: boundary", boundary)
    if is_static(v) and v and (v < 1024 or v % 32 or v >= 1 << 32):
        raise b.error(f"asc.set_load_data_boundary: boundary {v} must be 0 (none) or a multiple of 32 bytes in "
                      f"[1024, 2^32) for load3d v2")
    b.uses_cube = True
    _mtspr(b, "l1_3d_size", v)
