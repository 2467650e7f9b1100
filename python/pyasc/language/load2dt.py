"""LoadDataWithTranspose of real pyasc: asc.load_data_with_transpose(dst, src,
asc.LoadData2dTransposeParams(...)), the load_l1_to_l0_2dt instruction (sim/exec_load2dt.c has
the semantics).

Sources: real pyasc python/asc/language/basic/mm.py (load_data_with_transpose: the V1 and V2
overloads), python/asc/language/core/types.py (LoadData2dTransposeParams: start_index=0,
repeat_times=1, src_stride=0, dst_gap=0, dst_frac_gap=0, addr_mode=0) and
docs/python-api/language/generated/asc.language.basic.load_data_with_transpose.md; Ascend C
(cannmirror/asc-devkit) impl/basic_api/dav_c220/kernel_operator_mm_impl.h
(LoadData2DL12L0ATransposeCal / L0BTransposeCal: load_cbuf_to_ca_transpose /
load_cbuf_to_cb_transpose with `inc`, so addr_mode has no effect on dav_c220; the V2 params
report "not supported"), docs/zh/api/.../LoadDataWithTranspose.md (units and ranges).
"""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import is_static
from .load3d import _word
from .ops import _cfgval, _int_arg, intrinsic
from .tensor import LocalTensor
from .types import _Params

__all__ = ["LoadData2dTransposeParams", "LoadData2dTransposeParamsV2", "load_data_with_transpose"]


class LoadData2dTransposeParams(_Params):
    """Real pyasc LoadData2dTransposeParams(start_index=0, repeat_times=1, src_stride=0, dst_gap=0,
    dst_frac_gap=0, addr_mode=0): start_index and src_stride in squares (b32 / b8: two fractals,
    1024 B; b16: one fractal), dst_gap and dst_frac_gap in 512 B."""
    _fields = ("start_index", "repeat_times", "src_stride", "dst_gap", "dst_frac_gap", "addr_mode")
    _defaults = (0, 1, 0, 0, 0, 0)


class LoadData2dTransposeParamsV2(_Params):
    """Real pyasc LoadData2dTransposeParamsV2 (Ascend 950 only): accepted as a value, rejected by
    asc.load_data_with_transpose (dav_c220 reports it unsupported)."""
    _fields = ("start_index", "repeat_times", "src_stride", "dst_gap", "dst_frac_gap", "src_frac_gap", "addr_mode")
    _defaults = (0, 1, 0, 0, 0, 0, 0)


_ESIZE = {1: 0, 2: 1, 4: 2}


@intrinsic
def load_data_with_transpose(dst, src, params, *, _b):
    """asc.load_data_with_transpose(dst, src, LoadData2dTransposeParams): L1 (A1 / B1) -> L0A (A2) or
    L0B (B2), each square of fractals transposed (float / int32 / uint32: two 16 x 8 fractals joined
    into 16 x 16; int8 / uint8: two 16 x 32 into 32 x 32; half / bfloat16: one 16 x 16), split into
    fractals dst_frac_gap apart: one load_l1_to_l0_2dt."""
    b = _b
    b.uses_cube = True
    what = "asc.load_data_with_transpose"
    if isinstance(params, LoadData2dTransposeParamsV2):
        raise b.error(f"{what} with LoadData2dTransposeParamsV2 is for Ascend 950 (dav_c220's "
                      f"LoadData2DL12L0BTransposeCal reports it unsupported): use LoadData2dTransposeParams")
    if not isinstance(params, LoadData2dTransposeParams):
        raise b.error(f"{what}(dst, src, params) needs asc.LoadData2dTransposeParams as its third argument")
    if not (isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and src.buf == "L1"
            and dst.buf in ("L0A", "L0B")):
        raise b.error(f"{what} moves an L1 tensor (A1/B1) into L0A (A2) or L0B (B2)")
    if src.dtype is not dst.dtype:
        raise b.error(f"{what} between {src.dtype.name} and {dst.dtype.name}: dtypes must match")
    es = dst.dtype.sizeof()
    if es not in _ESIZE:
        raise b.error(f"{what} of {dst.dtype.name}: the element type must be 1, 2 or 4 bytes (int4b_t is not "
                      f"modelled)")
    p = params
    vals = {}
    for name, hi in (("start_index", 65535), ("repeat_times", 255), ("src_stride", 65535), ("dst_gap", 65535),
                     ("dst_frac_gap", 65535)):
        v = _int_arg(b, f"{what}: {name}", getattr(p, name))
        if is_static(v) and not 0 <= v <= hi:
            raise b.error(f"{what}: {name} must be in [0, {hi}], got {v}")
        vals[name] = v
    _int_arg(b, f"{what}: addr_mode", p.addr_mode)      # no effect on dav_c220 (always inc)
    cfg = {"start": [_cfgval(b, vals["start_index"])], "repeat": [_cfgval(b, vals["repeat_times"])],
           "srcstride": [_cfgval(b, vals["src_stride"])], "dstgap": [_cfgval(b, vals["dst_gap"])],
           "esize": [_ESIZE[es]], "l0b": [int(dst.buf == "L0B")]}
    nd = None
    rep, gap, fgap = vals["repeat_times"], vals["dst_gap"], vals["dst_frac_gap"]
    if all(is_static(v) for v in (rep, gap, fgap)):
        last = 0 if es == 2 else 1 + fgap       # the last square's last fractal, from its first
        nd = 0 if rep == 0 else ((rep - 1) * (1 + gap) + last + 1) * 512
        if is_static(dst.size) and nd > dst.nbytes():
            raise b.error(f"{what}: the squares fill {nd} bytes of fractals but the destination tensor has "
                          f"{dst.nbytes()}")
    fg = _word(b, [(vals["dst_frac_gap"], 0, 16)])
    b.emit(ir.Op("load2d", None, [b.operand(dst.addr), b.operand(src.addr), b.operand(fg)],
                 {"mnem": "load_l1_to_l0_2dt", "pipe": "mte1", "layout": "L2DT", "cfg": cfg},
                 reads=[src.access()], writes=[dst.access(nd)]))
