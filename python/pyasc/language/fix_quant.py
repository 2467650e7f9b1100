"""The fixpipe quantisation of dav_c220: real pyasc's asc.QuantModes, FixpipeParamsV220's quant_pre and
deq_scalar, asc.fixpipe's cbuf_workspace form and asc.set_fix_pipe_pre_quant_flag (Ascend C QuantMode_t,
SetFixpipePreQuantFlag; cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_fixpipe_impl.h and
docs .../矩阵计算的搬出/关键特性说明/随路量化.md).

Lowering: the readout is `fix_l0c_to_out.q` (config FIX, its field `quant` the mode, sim/exec_cube.c
states the arithmetic); a scalar mode first writes SPR quant_pre (Ascend C set_quant_pre).  A vector mode
does what Ascend C's Fixpipe with a cbuf_workspace does on dav_c220 (kernel_operator_fixpipe_impl.h
FixpipeL0C2GMImpl / CopyDeqTensorToFbuf): N in parts (GenFixpipeTiling: all of it up to 256 columns, else
128 at a time and the tail), each part's u64 vector copied L1 -> fixpipe buffer address 0
(`mov_l1_to_fb`, copy_cbuf_to_fbuf on PIPE_FIX, ceil(8 n / 128) blocks of 128 B), SPR fpc pointed at it
(FPC[15:8], 128 B units) and that part's readout; all on the FIX pipe, so in order without flags.
Users: language/ops.py fixpipe, adv/matmul.py (set_quant_scalar / set_quant_vector)."""
from __future__ import annotations

from enum import IntEnum

from ..compiler import ir
from ..compiler.builder import RVal, is_static

__all__ = ["QuantModes", "set_fix_pipe_pre_quant_flag"]

FPC_SET = 1 << 63   # bit 63 of SPR fpc: the register has been written (isa/asc_enums.def)
FB_VEC = 0          # the FB address of the vector (Ascend C GetTemporaryFbBufferAddr(0, ...))
MAX_VEC_N = 256     # parameters one readout reads from FB ("deqTensor/reluTensor in FB valid num is 256")


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


def emit_fpc(b, fb_addr):
    """mtspr fpc: FPC[15:8] = the FB address of the quantisation vector in 128 B units."""
    b.emit(ir.Op("mtspr", None, [b.operand(_s64((fb_addr // 128) << 8 | FPC_SET))], {"spr": "fpc"}))


def emit_l1_to_fb(b, ws, n, cfgval):
    """Ascend C CopyDeqTensorToFbuf: the first n u64 of L1 tensor ws -> FB[FB_VEC], in whole 128 B
    blocks (the block past the vector's end is copied too, as on the card)."""
    blocks = (n * 8 + 127) // 128 if is_static(n) else b.binop("shr", b.binop("add", n, 15), 4)
    cfg = {"nburst": [1], "len": [cfgval(b, blocks)], "srcstride": [0], "dststride": [0]}
    nbytes = blocks * 128 if is_static(blocks) else None
    fb = ir.Access("FB", b.operand(FB_VEC), nbytes, ("fb", 0), "fixpipe buffer (quantisation vector)")
    b.emit(ir.Op("dma", None, [b.operand(FB_VEC), b.operand(ws.addr)],
                 {"mnem": "mov_l1_to_fb", "pipe": "fix", "layout": "FBC", "cfg": cfg},
                 reads=[ws.access(None)], writes=[fb]))


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
    if not vec:
        _readout(b, dst, src, p, p.n_size, mode, cfgval, None)
        return
    n = p.n_size
    bound = n if is_static(n) else workspace.size      # most columns this readout can have
    if not is_static(bound):
        raise b.error(f"asc.fixpipe: quant_pre {qp.name} with a run-time n_size reads the vector in parts of at "
                      f"most {MAX_VEC_N} columns (the fixpipe buffer holds {MAX_VEC_N} parameters per readout); "
                      f"give n_size or the cbuf_workspace's length as a compile-time value")
    if is_static(n) and is_static(workspace.size) and workspace.size < n:
        raise b.error(f"asc.fixpipe: the quantisation vector (cbuf_workspace) has {workspace.size} elements, "
                      f"n_size is {n}: one u64 per column")
    if bound <= MAX_VEC_N:
        _part(b, dst, src, workspace, p, 0, n, mode, cfgval, None, None)
        return
    # in parts: their strides spelt out (srcstride 0 means ceil(m / 16) * 16 rows, dststride 0 all n)
    S, D = _nonzero(b, p.src_stride, _ceil16(b, p.m_size)), _nonzero(b, p.dst_stride, n)
    half = MAX_VEC_N // 2       # GenFixpipeTiling: up to 256 columns in one part, else 128 a part and the tail
    if is_static(n):
        parts = [(0, n)] if n <= MAX_VEC_N else [(o, min(half, n - o)) for o in range(0, n, half)]
        for off, cn in parts:
            _part(b, dst, src, workspace, p, off, cn, mode, cfgval, S, D)
        return
    _if_lt(b, n, MAX_VEC_N + 1, lambda: _part(b, dst, src, workspace, p, 0, n, mode, cfgval, S, D))

    def parts():
        for off in range(0, bound, half):
            _if_lt(b, off, n, lambda off=off: _part(b, dst, src, workspace, p, off, b.binop("min", n - off, half),
                                                    mode, cfgval, S, D))
    _if_lt(b, MAX_VEC_N, n, parts)


def _if_lt(b, lo, hi, emit):
    """emit() under a run-time `if lo < hi` (the operands may be compile-time values)."""
    if is_static(lo) and is_static(hi):
        if lo < hi:
            emit()
        return
    op = ir.If(name="if", cond=("lt", b.reg(lo), b.reg(hi)), loc=b.loc)
    b.push(op.then)
    emit()
    b.pop()
    b.emit(op)


def _ceil16(b, m):
    return -(-m // 16) * 16 if is_static(m) else b.binop("shl", b.binop("shr", b.binop("add", m, 15), 4), 4)


def _nonzero(b, v, dflt):
    """v, or dflt where v is 0 (a stride field's 0 = its default)."""
    if is_static(v):
        return v or dflt
    return v + b.materialize(b.compare("eq", v, 0)) * dflt


def _part(b, dst, src, ws, p, off, cn, mode, cfgval, S, D):
    """Columns [off, off + cn) (off a compile-time multiple of 128): the vector's part L1 -> FB, fpc,
    the readout.  Column off starts at L0C element off * S and at GM element off of row 0."""
    emit_l1_to_fb(b, ws[off:] if off else ws, cn, cfgval)
    emit_fpc(b, FB_VEC)
    _readout(b, dst[off:] if off else dst, src[b.binop("mul", S, off):] if off else src, p, cn, mode, cfgval, cn,
             S, D)


def _readout(b, dst, src, p, n, mode, cfgval, vec_n, S=None, D=None):
    """One fix_l0c_to_out.q of n columns (a vector mode: reading vec_n parameters from FB[FB_VEC])."""
    S = p.src_stride if S is None else S
    D = p.dst_stride if D is None else D
    cfg = {"n": [cfgval(b, n)], "quant": [mode], "relu": [cfgval(b, p.relu_en)], "m": [cfgval(b, p.m_size)],
           "srcstride": [cfgval(b, S)], "dststride": [cfgval(b, D)]}
    reads = [src.access()]
    if vec_n is not None:
        reads.append(ir.Access("FB", b.operand(FB_VEC), vec_n * 8 if is_static(vec_n) else None, ("fb", 0),
                               "fixpipe buffer (quantisation vector)"))
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
