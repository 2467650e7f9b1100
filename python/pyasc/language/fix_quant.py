"""The fixpipe quantisation of dav_c220: real pyasc's asc.QuantModes, FixpipeParamsV220's quant_pre and
deq_scalar, asc.fixpipe's cbuf_workspace form and asc.set_fix_pipe_pre_quant_flag (Ascend C QuantMode_t,
SetFixpipePreQuantFlag; cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_fixpipe_impl.h and
docs .../矩阵计算的搬出/关键特性说明/随路量化.md).

Lowering: the readout is `fix_l0c_to_out.q` (config FIX, its field `quant` the mode, sim/exec_cube.c
states the arithmetic); a scalar mode first writes SPR quant_pre (Ascend C set_quant_pre), a vector mode
SPR fpc with the L1 address of the cbuf_workspace (one u64 per column).  Real dav_c220 copies that
vector L1 -> fixpipe buffer (copy_cbuf_to_fbuf) and points FPC[15:8] at it; the fixpipe buffer is not
modelled: the fixpipe reads the vector from L1 (the copy's few cycles are not counted).
Users: language/ops.py fixpipe, adv/matmul.py (set_quant_scalar / set_quant_vector)."""
from __future__ import annotations

from enum import IntEnum

from ..compiler import ir
from ..compiler.builder import RVal, is_static

__all__ = ["QuantModes", "set_fix_pipe_pre_quant_flag"]

FPC_SET = 1 << 63   # bit 63 of SPR fpc: the register has been written


class QuantModes(IntEnum):
    """Real pyasc asc.QuantModes (python/asc/language/core/enums.py): Ascend C QuantMode_t."""
    NoQuant = 0
    F322F16 = 1
    F322BF16 = 2
    DEQF16 = 3
    VDEQF16 = 4
    QF322B8_PRE = 5
    VQF322B8_PRE = 6
    REQ8 = 7
    VREQ8 = 8


# QuantModes -> (field quant of fix_l0c_to_out.q, L0C dtype, destination dtypes, per column)
_MODES = {QuantModes.DEQF16: (1, "int32", ("float16",), False),
          QuantModes.VDEQF16: (2, "int32", ("float16",), True),
          QuantModes.QF322B8_PRE: (3, "float32", ("int8", "uint8"), False),
          QuantModes.VQF322B8_PRE: (4, "float32", ("int8", "uint8"), True),
          QuantModes.REQ8: (5, "int32", ("int8", "uint8"), False),
          QuantModes.VREQ8: (6, "int32", ("int8", "uint8"), True)}


def mode_for(l0c: str, dst: str, vector: bool):
    """Ascend C's Matmul choice (MatmulQuantProcessor::SetQuantScalar / SetQuantVectorMode in
    impl/adv_api/detail/matmul/stage/copy_cube_out/quant/quant_processor_fixpipe.h): the mode of an
    L0C dtype and a C dtype, or None."""
    for m, (_, src, dsts, vec) in _MODES.items():
        if src == l0c and dst in dsts and vec == vector:
            return m
    return None


def _s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def emit_quant_pre(b, value):
    """mtspr quant_pre, value (a compile-time int or a run-time integer)."""
    if isinstance(value, RVal):
        op = b.operand(value)
    elif is_static(value) and isinstance(value, int) and not isinstance(value, bool):
        op = b.operand(_s64(value))
    else:
        raise b.error(f"the fixpipe quantisation parameter (deq_scalar / quant_scalar) must be an integer (the "
                      f"u64 bits: the f32 scale in bits 31:0), got {value!r}")
    b.emit(ir.Op("mtspr", None, [op], {"spr": "quant_pre"}))


def emit_fpc(b, l1_tensor):
    addr = l1_tensor.addr
    if is_static(addr):
        b.emit(ir.Op("mtspr", None, [b.operand(_s64(int(addr) | FPC_SET))], {"spr": "fpc"}))
    else:
        v = b.binop("or", addr, _s64(FPC_SET))
        b.emit(ir.Op("mtspr", None, [b.operand(v)], {"spr": "fpc"}))


def lower(b, dst, src, p, workspace, cfgval):
    """asc.fixpipe(dst_gm, src_co1[, cbuf_workspace], params) with a quantising quant_pre, or an int32
    L0C read out as int32 (NoQuant): one fix_l0c_to_out.q."""
    from .tensor import GlobalTensor, LocalTensor
    if not isinstance(dst, GlobalTensor):
        raise b.error("asc.fixpipe with quantisation (quant_pre) or an int32 L0C writes a GlobalTensor (CO1 -> GM; "
                      "the CO1 -> A1 / UB paths with quantisation are not modelled)")
    if not b.target["split"]:
        raise b.error(f"asc.fixpipe with quantisation: {b.fn.target} has coupled cores, whose L0C readout goes "
                      f"through UB (mov_l0c_to_ub); fix_l0c_to_out.q is the split AIC's")
    qp = p.quant_pre
    if not is_static(qp):
        raise b.error("FixpipeParamsV220.quant_pre must be a compile-time asc.QuantModes value")
    try:
        qp = QuantModes(int(qp))
    except ValueError:
        raise b.error(f"FixpipeParamsV220.quant_pre {qp!r} is not an asc.QuantModes value (0..8)") from None
    if qp == QuantModes.NoQuant:
        mode, l0c, dsts, vec = 0, "int32", ("int32",), False
    elif qp in _MODES:
        mode, l0c, dsts, vec = _MODES[qp]
    else:
        raise b.error(f"asc.fixpipe: quant_pre {qp.name} casts a float32 L0C; with {src.dtype.name} it does not apply")
    if vec:
        if not isinstance(workspace, LocalTensor) or workspace.buf != "L1" or workspace.dtype.name != "uint64":
            raise b.error(f"asc.fixpipe: quant_pre {qp.name} quantises per column: pass the uint64 quantisation "
                          f"vector in L1 (a TPosition.A1/B1/C1 LocalTensor) as cbuf_workspace, "
                          f"asc.fixpipe(dst, src, cbuf_workspace, params)")
        emit_fpc(b, workspace)
    elif workspace is not None:
        raise b.error(f"asc.fixpipe: cbuf_workspace is the per-column vector of VDEQF16 / VQF322B8_PRE / VREQ8; "
                      f"quant_pre is {qp.name}")
    elif mode and getattr(p, "deq_scalar", None) is not None:
        # deq_scalar omitted: SPR quant_pre as asc.set_fix_pipe_pre_quant_flag left it (Ascend C's Fixpipe
        # writes its deq_scalar, default 0, every time; the flag serves its DataCopy CO1 -> GM, not in asc)
        emit_quant_pre(b, p.deq_scalar)
    if src.dtype.name != l0c or dst.dtype.name not in dsts:
        raise b.error(f"asc.fixpipe: quant_pre {qp.name} reads a {l0c} L0C and writes {' or '.join(dsts)}; got "
                      f"{src.dtype.name} -> {dst.dtype.name}")
    dst._check()
    cfg = {"n": [cfgval(b, p.n_size)], "quant": [mode], "relu": [cfgval(b, p.relu_en)], "m": [cfgval(b, p.m_size)],
           "srcstride": [cfgval(b, p.src_stride)], "dststride": [cfgval(b, p.dst_stride)]}
    reads = [src.access()] + ([workspace.access(None)] if vec else [])
    b.emit(ir.Op("fix", None, [b.operand(dst.addr), b.operand(src.addr)],
                 {"mnem": "fix_l0c_to_out.q", "pipe": "fix", "layout": "FIX", "cfg": cfg},
                 reads=reads, writes=[dst.access(None)]))


def _make():
    from .ops import intrinsic

    @intrinsic
    def set_fix_pipe_pre_quant_flag(config, *, _b):
        """Real pyasc set_fix_pipe_pre_quant_flag(config): the scalar quantisation parameter (Ascend C
        SetFixpipePreQuantFlag -> set_quant_pre, SPR quant_pre) that a later scalar-mode fixpipe uses."""
        emit_quant_pre(_b, config)
    return set_fix_pipe_pre_quant_flag


set_fix_pipe_pre_quant_flag = _make()
