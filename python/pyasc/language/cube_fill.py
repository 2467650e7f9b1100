"""asc.init_const_value: Ascend C InitConstValue (Fill) of an L1 (A1/B1), L0A (A2) or L0B (B2) tensor,
the create_cbuf_matrix / create_l0_matrix instructions (sim/exec_cmatrix.c).

Semantics as on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_mm_impl.h
InitL1BufferCal / InitL0ANzMatrixCal / InitL0BNzMatrixCal; impl/basic_api/kernel_operator_mm_base_impl.h
InitConstValueImpl; real pyasc docs/python-api/language/generated/asc.language.basic.init_const_value.md):
- init_const_value(dst, InitConstValueParams(repeat_times=0, block_num=0, dst_gap=0, init_value=0)):
  repeat r writes block_num blocks of init_value (a block is 32 B in A1/B1, 512 B in A2/B2) starting
  dst_gap blocks after the end of repeat r-1; repeat_times, block_num and dst_gap are in [0, 32767];
- dst: half, bfloat16, int16, uint16, float32, int32, uint32; A1/B1 start 32 B aligned, A2/B2 512 B;
- the L1 fill runs on MTE2 (Ascend C's PipeBarrier<PIPE_MTE2> after it), the L0 fill on MTE1.
"""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from .ops import _cfgval, _int_arg, intrinsic
from .tensor import LocalTensor, _float_bits, tensor_type_name
from .types import _Params

__all__ = ["init_const_value", "InitConstValueParams"]


class InitConstValueParams(_Params):
    """Real pyasc InitConstValueParams(repeat_times=0, block_num=0, dst_gap=0, init_value=0)."""
    _fields = ("repeat_times", "block_num", "dst_gap", "init_value")
    _defaults = (0, 0, 0, 0)


_TYPES = ("float16", "bfloat16", "int16", "uint16", "float32", "int32", "uint32")


def _field(b, what, v):
    _int_arg(b, f"asc.init_const_value: {what}", v)
    if is_static(v) and not 0 <= v <= 32767:
        raise b.error(f"asc.init_const_value: {what} must be in [0, 32767], got {v}")
    return _cfgval(b, v)


@intrinsic
def init_const_value(dst, init_const_value_params, *, _b):
    b = _b
    p = init_const_value_params
    if not isinstance(dst, LocalTensor) or dst.buf not in ("L1", "L0A", "L0B"):
        where = tensor_type_name(dst) if not isinstance(dst, LocalTensor) else f"a {dst.pos.name} tensor"
        raise b.error(f"asc.init_const_value fills an A1/B1 (L1), A2 (L0A) or B2 (L0B) LocalTensor, got {where}")
    if dst.dtype.name not in _TYPES:
        raise b.error(f"asc.init_const_value on {dst.dtype.name} is not supported (Ascend C InitConstValue on "
                      f"dav_c220 takes {', '.join(_TYPES)})")
    if not isinstance(p, InitConstValueParams):
        raise b.error(f"asc.init_const_value: the parameters must be InitConstValueParams, got {type(p).__name__}")
    unit = 32 if dst.buf == "L1" else 512
    if is_static(dst.addr) and dst.addr % unit:
        raise b.error(f"asc.init_const_value: a {dst.pos.name} tensor must start {unit} B aligned, got byte {dst.addr}")
    rt, bn, gap = (_field(b, k, getattr(p, k)) for k in ("repeat_times", "block_num", "dst_gap"))
    v = p.init_value
    size = dst.dtype.sizeof()
    if isinstance(v, RVal):
        if v.ty != "i64" or dst.dtype.is_float:
            raise b.error("asc.init_const_value: a run-time init_value must be an integer into an integer tensor "
                          "(the asc scalar unit has no FPU to convert it)")
        bits = v & ((1 << (8 * size)) - 1)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        if dst.dtype.is_float:
            bits = _float_bits(dst.dtype, float(v))
        else:
            if isinstance(v, float):
                raise b.error(f"asc.init_const_value: init_value {v!r} is a float but the tensor is {dst.dtype.name}")
            bits = v & ((1 << (8 * size)) - 1)
    else:
        raise b.error(f"asc.init_const_value: init_value must be a number, got {type(v).__name__}")
    nbytes = None
    if all(is_static(x) for x in (p.repeat_times, p.block_num, p.dst_gap)):
        nbytes = unit * ((p.repeat_times - 1) * (p.block_num + p.dst_gap) + p.block_num) \
            if p.repeat_times and p.block_num else 0
    l1 = dst.buf == "L1"
    cfg = {"repeat": [rt], "blocknum": [bn], "dstgap": [gap], "b32": [int(size == 4)],
           "l0b": [int(dst.buf == "L0B")] if not l1 else [0]}
    b.uses_cube = True
    b.emit(ir.Op("dma", None, [b.operand(dst.addr), b.operand(bits)],
                 {"mnem": "create_cbuf_matrix" if l1 else "create_l0_matrix", "pipe": "mte2" if l1 else "mte1",
                  "layout": "CMAT", "cfg": cfg}, writes=[dst.access(nbytes if nbytes else None)]))
