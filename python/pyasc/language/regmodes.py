"""Register-controlled modes of the AI core (ISA engineer B's block): calls that on the card only
write a control register or an SPR which later instructions read.

- set_pad_value: SPR pad_val, the MTE pad value of DataCopyPad GM -> UB (Ascend C
  SetPadValue -> set_mov_pad_val: cannmirror/asc-devkit impl/basic_api/dav_c220/
  kernel_operator_reg_others_impl.h SetMovPadVal, kernel_operator_data_copy_impl.h
  DataCopyPadGm2UBImpl; real pyasc python/asc/language/basic/data_copy.py set_pad_value).
- set_hf32_mode / set_hf32_trans_mode: CTRL bits 46 / 47 (cannmirror/asc-devkit
  impl/basic_api/kernel_macros.h HF32_MODE_BIT, HF32_TRANS_MODE_BIT), read by mmad.f32.

- set_deq_scale / cast_deq: SPR deqscale (Ascend C set_deqscale, docs/zh/api
  SetDeqScale: bits 15:0 a half scale for s32 -> f16; bits 31:0 f32 scale, 45:37 offset, 46 sign
  mode for s16 -> b8) read by vconv_deq.s32.f16 (cannmirror/asc-devkit
  impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h MakeDeqScaleConfig, CastDeqImpl).

The simulator side: sim/exec_dmapad.c (pad_val), sim/exec_cube.c (HF32), sim/exec_cmpmask.c and
sim/exec_vector.c (CMPMASK, vconv_deq)."""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from .enums import TPosition

PAD_VAL_SET = 1 << 63   # bit 63 of pad_val: the register has been written
HF32_MODE_BIT = 46      # CTRL bit: mmad.f32 rounds its L0A/L0B inputs to HF32
HF32_TRANS_BIT = 47     # CTRL bit: that rounding is toward zero (else to nearest even)


def pad_reg(bits):
    """The pad_val word for a value's bit pattern (at most 32 bits)."""
    return (int(bits) & 0xffffffff) | PAD_VAL_SET


def emit_pad_val(b, ops, bits):
    b.emit(ir.Op("mtspr", None, [b.operand(ops._s64(pad_reg(bits)))], {"spr": "pad_val"}))


def make(ops):
    from . import dtype as dt

    @ops.intrinsic
    def set_pad_value(padding_value, pos=TPosition.MAX, *, dtype=None, _b):
        """Real pyasc set_pad_value(padding_value, pos=TPosition.MAX): the value later
        data_copy_pad GM -> UB copies with is_pad=False pad with.  Like real pyasc, the value's type
        is int32 for an int and float32 for a float (its bit pattern goes to the register; a copy
        of n-byte elements pads with the low n bytes); `dtype=` (an asc extension) picks the type,
        e.g. dtype=asc.float16 for an f16 copy."""
        b = _b
        if pos not in (TPosition.MAX, TPosition.VECIN, TPosition.VECOUT):
            raise b.error("asc.set_pad_value: pos must be one of TPosition.MAX, TPosition.VECIN, TPosition.VECOUT")
        if not is_static(padding_value) or isinstance(padding_value, bool):
            raise b.error("asc.set_pad_value: the padding value must be a compile-time int or float")
        if dtype is None:
            dtype = dt.float32 if isinstance(padding_value, float) else dt.int32
        if not isinstance(dtype, dt.DataType) or dtype.sizeof() > 4:
            raise b.error(f"asc.set_pad_value: dtype must be a 1-, 2- or 4-byte asc dtype, got {dtype!r}")
        if not dtype.is_float and isinstance(padding_value, float) and not padding_value.is_integer():
            raise b.error(f"asc.set_pad_value: non-integral value {padding_value!r} for integer dtype {dtype.name}")
        pad = ops.DataCopyPadExtParams(dtype, True, 0, 0, padding_value)
        emit_pad_val(b, ops, ops._pad_word(b, dtype, pad))

    def _ctrl_bit(name, bit):
        @ops.intrinsic
        def f(mode, *, _b):
            b = _b
            if is_static(mode):
                if not isinstance(mode, (bool, int)) or int(mode) not in (0, 1):
                    raise b.error(f"asc.{name}: the mode must be a bool, got {mode!r}")
                m = int(mode)
            else:
                m = b.binop("sne", mode, 0)
            ctrl = b.spr("ctrl") & ~(1 << bit)
            val = ctrl | (m << bit if is_static(m) else b.binop("shl", m, bit))
            b.emit(ir.Op("mtspr", None, [b.operand(val)], {"spr": "ctrl"}))
        f.__name__ = name
        return f

    set_hf32_mode = _ctrl_bit("set_hf32_mode", HF32_MODE_BIT)
    set_hf32_mode.__doc__ = ("Real pyasc set_hf32_mode(hf32_mode): CTRL bit 46; while set, mmad of f32 "
                             "rounds each L0A/L0B input to HF32 (1-8-10 bits) first.")
    set_hf32_trans_mode = _ctrl_bit("set_hf32_trans_mode", HF32_TRANS_BIT)
    set_hf32_trans_mode.__doc__ = ("Real pyasc set_hf32_trans_mode(trans_mode): CTRL bit 47; True rounds "
                                   "to HF32 toward zero, False to nearest even (only with HF32 mode on).")
    @ops.intrinsic
    def set_cmp_mask(src, *, _b):
        """Real pyasc set_cmp_mask(src): Ascend C SetCmpMask, set_cmpmask on the vector pipe: the
        CMPMASK register <- the first 16 bytes (128 bits) of src (a copy: later writes of src do
        not change it).  select(dst, src0, src1, repeat_times, repeat_params, sel_mode) selects
        by it."""
        return _xfer(_b, "set_cmp_mask", src, False)

    @ops.intrinsic
    def get_cmp_mask(dst, *, _b):
        """Real pyasc get_cmp_mask(dst): Ascend C GetCmpMask, get_cmpmask: the 16 bytes of the
        CMPMASK register -> the start of dst (the docs ask for a dst of at least 128 bytes)."""
        return _xfer(_b, "get_cmp_mask", dst, True)

    def _xfer(b, name, t, write):
        ops._need_local(b, name, t)
        b.uses_vector = True
        mnem = "get_cmpmask" if write else "set_cmpmask"
        acc = [t.access(16)]
        b.emit(ir.Op("vec", None, [b.operand(t.addr)], {"mnem": mnem, "pipe": "v"},
                     reads=[] if write else acc, writes=acc if write else []))

    return set_pad_value, set_hf32_mode, set_hf32_trans_mode, set_cmp_mask, get_cmp_mask


def select_by_register(ops, b, dst, src0, src1, repeat_times, params, sel_mode, mask):
    """Real pyasc select(dst, src0, src1, repeat_times, repeat_params, sel_mode): vsel by the
    CMPMASK register (set_cmp_mask), the same 128 bits in every repeat (VEC config bit 49,
    cmpreg).  Only sel_mode VSEL_CMPMASK_SPR (0) keeps mask bits in the register; mask is all
    lanes unless `mask=` is given."""
    if int(sel_mode) != 0:
        raise b.error(f"asc.select without a sel_mask selects by the CMPMASK register's bits: sel_mode must be "
                      f"SELMODE.VSEL_CMPMASK_SPR (0), got {int(sel_mode)}")
    for t in (dst, src0, src1):
        ops._need_local(b, "select", t)
    ops._same_dtype(b, "select", dst, src0, src1)
    mnem = ops._suffix(b, "select", "vsel", dst.dtype)
    if mask is None:
        mask = 256 // dst.dtype.sizeof()
    p = params
    op = ops._emit_vec(b, "select", mnem, dst, [src0, src1], mask=mask, repeat_times=repeat_times,
                       blk=(p.dst_blk_stride, p.src0_blk_stride, p.src1_blk_stride),
                       rep=(p.dst_rep_stride, p.src0_rep_stride, p.src1_rep_stride))
    op.attrs["cfg"]["cmpreg"] = [1]
    return op


def make_deq(ops):
    import numpy as np
    from . import dtype as dt
    from .types import UnaryRepeatParams

    @ops.intrinsic
    def set_deq_scale(*args, _b, **kwargs):
        """Real pyasc set_deq_scale(scale) (Ascend C SetDeqScale(half): the f16 bits of scale in
        DEQSCALE bits 15:0, read by cast_deq / s32 -> f16) or set_deq_scale(scale, offset,
        sign_mode) (MakeDeqScaleConfig: f32 scale bits 31:0, offset & 0x1ff in 45:37, sign mode
        bit 46; the s16 -> b8 CastDequant, cast_deq with is_vec_deq=False, reads that form) or
        set_deq_scale(vdeq, vdeq_info) (the table of 16 such words and its address; _set_vdeq)."""
        b = _b
        from .tensor import LocalTensor
        from .types import VdeqInfo
        if (args and isinstance(args[0], LocalTensor)) or "vdeq" in kwargs:
            vals = list(args) + [kwargs.pop(n) for n in ("vdeq", "vdeq_info")[len(args):] if n in kwargs]
            if kwargs or len(vals) != 2:
                raise b.error("asc.set_deq_scale takes (vdeq, vdeq_info) for vector dequantisation")
            return _set_vdeq(b, *vals)
        names = ("scale", "offset", "sign_mode")
        vals = list(args) + [kwargs.pop(n) for n in names[len(args):] if n in kwargs]
        if kwargs or not 1 <= len(vals) <= 3 or len(vals) == 2:
            raise b.error("asc.set_deq_scale takes (scale), (scale, offset, sign_mode) or (vdeq, vdeq_info)")
        for v in vals:
            if not is_static(v) or isinstance(v, str):
                raise b.error("asc.set_deq_scale: the parameters must be compile-time numbers")
        if len(vals) == 1:
            word = int(np.array([vals[0]], np.float16).view(np.uint16)[0])
        else:
            scale, offset, sign = vals
            if isinstance(offset, float) or not -256 <= int(offset) <= 255:
                raise b.error(f"asc.set_deq_scale: offset must be an integer in [-256, 255] (9 bits), got {offset!r}")
            word = (int(np.array([scale], np.float32).view(np.uint32)[0]) | (int(offset) & 0x1ff) << 37
                    | int(bool(sign)) << 46)
        b.emit(ir.Op("mtspr", None, [b.operand(ops._s64(word))], {"spr": "deqscale"}))

    def _set_vdeq(b, vdeq, info):
        """Real pyasc set_deq_scale(vdeq, vdeq_info) = Ascend C SetDeqScaleImpl(vdeq, vdeqInfo) on
        dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h):
        vdeq.SetValue(i, MakeDeqScaleConfig(scale[i], offset[i], signMode[i])) for i < 16 (scalar
        stores to UB, st.ub.d), then set_deqscale(vdeq.GetPhyAddr() >> 5): DEQSCALE holds the
        table's UB address in 32 B units (SetDeqScale.md: vdeqAddr, bits 13:0)."""
        from .tensor import LocalTensor
        from .types import VdeqInfo
        if not isinstance(vdeq, LocalTensor) or vdeq.buf != "UB" or vdeq.dtype != dt.uint64:
            raise b.error("asc.set_deq_scale(vdeq, vdeq_info): vdeq must be a uint64 LocalTensor in UB "
                          "(VECIN/VECOUT/VECCALC; Ascend C SetDeqScale<uint64_t>)")
        if not isinstance(info, VdeqInfo):
            raise b.error(f"asc.set_deq_scale(vdeq, vdeq_info): vdeq_info must be an asc.VdeqInfo, got "
                          f"{type(info).__name__}")
        if vdeq.size is not None and is_static(vdeq.size) and int(vdeq.size) < 16:
            raise b.error(f"asc.set_deq_scale(vdeq, vdeq_info): vdeq holds {vdeq.size} uint64 elements; the table "
                          f"is 16 (128 bytes, CastDequant.md)")
        for i, (scale, offset, sign) in enumerate(zip(info.scale, info.offset, info.sign_mode)):
            for v in (scale, offset, sign):
                if not is_static(v) or isinstance(v, str):
                    raise b.error(f"asc.set_deq_scale(vdeq, vdeq_info): parameter set {i} must be compile-time "
                                  f"numbers")
            if isinstance(offset, float) or not -256 <= int(offset) <= 255:
                raise b.error(f"asc.set_deq_scale(vdeq, vdeq_info): offset {i} must be an integer in [-256, 255] "
                              f"(9 bits), got {offset!r}")
            word = (int(np.array([scale], np.float32).view(np.uint32)[0]) | (int(offset) & 0x1ff) << 37
                    | int(bool(sign)) << 46)
            vdeq.set_value(i, word)
        if isinstance(vdeq.addr, int):
            reg = vdeq.addr >> 5
        else:
            reg = b.binop("sra", RVal(b, b.reg(vdeq.addr)) if isinstance(vdeq.addr, ir.Sym) else vdeq.addr, 5)
        b.emit(ir.Op("mtspr", None, [b.operand(reg)], {"spr": "deqscale"}))

    @ops.intrinsic
    def cast_deq(dst, src, *rest, _b, **kwargs):
        """Real pyasc cast_deq(dst, src, count | mask, repeat_times, repeat_params, ...): int32 ->
        float16 is dst = Cast(src * scale), scale the half of set_deq_scale(scale), rint
        (vconv_deq.s32.f16; Ascend C CastDeqImpl issues vconv_deq for 4-byte sources and ignores
        is_vec_deq / half_block there).  int16 -> int8 / uint8 with is_vec_deq=False is
        dst = saturate(rint(src * scale + offset)) with set_deq_scale(scale, offset, sign_mode)'s
        parameters (CastDeqIntrinsicsImpl: vconv_deqs162b8h / l = vconv.x s16.b8h / s16.b8l): the
        16 results of each 32-byte source block fill the upper (half_block=True) or lower 16 bytes
        of the matching destination block, whose other half keeps its bytes.  is_vec_deq=True (the
        default; CastVDeqIntrinsicsImpl: vconv_vdeqs162b8h / l = vconv.x s16.vb8h / s16.vb8l) takes
        the parameters from the 16-word UB table of set_deq_scale(vdeq, vdeq_info): the element at
        position j of its 32-byte source block uses set j."""
        b = _b
        rest = list(rest)
        flags = []
        while rest and isinstance(rest[-1], bool):   # positional is_set_mask / is_vec_deq / half_block
            flags.insert(0, rest.pop())
        names = ("is_vec_deq", "half_block") if len(rest) <= 1 else ("is_set_mask", "is_vec_deq", "half_block")
        opts = {"is_vec_deq": True, "half_block": True}          # real pyasc's defaults
        opts.update({k: v for k, v in zip(names, flags) if k in opts})
        for k in list(opts):
            if k in kwargs:
                opts[k] = kwargs.pop(k)
        ops._need_local(b, "cast_deq", dst)
        ops._need_local(b, "cast_deq", src, "source")
        if (src.dtype, dst.dtype) in ((dt.int16, dt.int8), (dt.int16, dt.uint8)):
            return _cast_deq_b8(b, dst, src, rest, kwargs, bool(opts["half_block"]), bool(opts["is_vec_deq"]))
        if (src.dtype, dst.dtype) != (dt.int32, dt.float16):
            raise b.error(f"asc.cast_deq from {src.dtype.name} to {dst.dtype.name} is not supported: Ascend C "
                          f"CastDequant converts int32 -> float16 and int16 -> int8 / uint8")
        count, mask, rt, p = ops._split_form(b, "cast_deq", rest, kwargs, UnaryRepeatParams)
        mnem = "vconv_deq.s32.f16"
        if count is not None:
            op = ops._emit_vec(b, "cast_deq", mnem, dst, [src], count=count, rep=(4, 8, 8))
            op.reads[0].nbytes = count * 4 if is_static(count) else None
            return op
        ops._emit_vec(b, "cast_deq", mnem, dst, [src], mask=mask, repeat_times=rt,
                      blk=(p.dst_blk_stride, p.src_blk_stride), rep=(p.dst_rep_stride, p.src_rep_stride),
                      dst_dtype=dt.int32)

    def _cast_deq_b8(b, dst, src, rest, kwargs, half, vec):
        count, mask, rt, p = ops._split_form(b, "cast_deq", rest, kwargs, UnaryRepeatParams)
        # is_vec_deq (CastVDeqIntrinsicsImpl: vconv_vdeqs162b8h / l): the 16 parameter sets of the
        # UB table at DEQSCALE, element j of each 32 B source block using set j
        extra = {"cvp": ("s16.vb8" if vec else "s16.b8") + ("h" if half else "l"), "rnd": "none"}
        if count is not None:            # 128 lanes a repeat: 8 source blocks, 8 half destination blocks
            dst_bytes = -(-count // 16) * 32 if is_static(count) else None
            op = ops._emit_vec(b, "cast_deq", "vconv.x", dst, [src], count=count, extra=extra, rep=(8, 8, 8),
                               dst_bytes=dst_bytes)
            op.reads[0].nbytes = count * 2 if is_static(count) else None
            return op
        ops._emit_vec(b, "cast_deq", "vconv.x", dst, [src], mask=mask, repeat_times=rt, extra=extra,
                      blk=(p.dst_blk_stride, p.src_blk_stride), rep=(p.dst_rep_stride, p.src_rep_stride),
                      dst_dtype=dt.int16)

    return set_deq_scale, cast_deq
