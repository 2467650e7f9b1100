"""asc.select with a sel_mask tensor, by sel_mode, as Ascend C Select runs on dav_c220
(cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_cmpsel_impl.h: VselImpl,
VselIntrinsicsImplPre, VselIntrinsicsImpl; docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/Select.md):

- SELMODE.VSEL_CMPMASK_SPR (0): set_cmpmask(sel_mask), then vsel by the CMPMASK register: the
  first 256/sizeof(T) bits of sel_mask, the same bits in every repeat (VEC config bit 49, cmpreg).
  The CMPMASK register keeps those bits afterwards, as on the card.
- SELMODE.VSEL_TENSOR_SCALAR_MODE (1): dst[i] = bit ? src0[i] : src1 with src1 a scalar; the mask
  is consumed from UB, 256/sizeof(T) bits per repeat, repeat after repeat (config bit 50, sels; SPR
  cmpmask holds the mask's address).
- SELMODE.VSEL_TENSOR_TENSOR_MODE (2): two tensors, the mask consumed from UB per repeat as in 1.
- Modes 1 and 2 leave the CMPMASK register overwritten (Ascend C set_cmpmask's a Duplicate of the
  scalar, mode 1, or of the sel mask's UB address as uint32, mode 2, before the vsel): the
  simulator's vsel does that (docs/semantics.md 2.5), so a later select by the register sees it.
Both forms (count, and mask / repeat_times / BinaryRepeatParams) follow the same rule."""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from .tensor import LocalTensor
from .types import BinaryRepeatParams


def select_by_mask(ops, b, dst, sel_mask, src0, src1, sel_mode, rest, kwargs):
    if not is_static(sel_mode) or isinstance(sel_mode, bool) or int(sel_mode) not in (0, 1, 2):
        raise b.error(f"asc.select: sel_mode must be a constant SELMODE (0, 1 or 2), got {sel_mode!r}")
    mode = int(sel_mode)
    for t in (dst, sel_mask, src0):
        ops._need_local(b, "select", t)
    scalar = None
    if mode == 1:
        if isinstance(src1, LocalTensor):
            raise b.error("asc.select: sel_mode SELMODE.VSEL_TENSOR_SCALAR_MODE (1) takes a scalar src1, "
                          "got a LocalTensor (modes 0 and 2 select between two tensors)")
        if not (is_static(src1) or isinstance(src1, RVal)):
            raise b.error(f"asc.select: sel_mode 1 takes a scalar src1, got {ops.tensor_type_name(src1)}")
        ops._same_dtype(b, "select", dst, src0)
        scalar = ops._scalar_for(b, dst.dtype, src1)
    else:
        if not isinstance(src1, LocalTensor):
            raise b.error(f"asc.select: sel_mode {mode} selects between two tensors; a scalar src1 needs "
                          f"SELMODE.VSEL_TENSOR_SCALAR_MODE (1)")
        ops._need_local(b, "select", src1)
        ops._same_dtype(b, "select", dst, src0, src1)
    mnem = ops._suffix(b, "select", "vsel", dst.dtype)
    if mode == 0:   # set_cmpmask(sel) (16 bytes into the CMPMASK register), then vsel by the register
        b.uses_vector = True
        b.emit(ir.Op("vec", None, [b.operand(sel_mask.addr)], {"mnem": "set_cmpmask", "pipe": "v"},
                     reads=[sel_mask.access(16)], writes=[]))
    else:           # the mask in UB at SPR cmpmask, consumed per repeat
        b.emit(ir.Op("mtspr", None, [b.operand(sel_mask.addr)], {"spr": "cmpmask"}))
    count, mask, rt, p = ops._split_form(b, "select", rest, kwargs, BinaryRepeatParams)
    srcs = [src0] if mode == 1 else [src0, src1]
    args = None
    if mode == 1:
        args = [b.operand(dst.addr), b.operand(src0.addr), b.operand(scalar)]
    if count is not None:
        op = ops._emit_vec(b, "select", mnem, dst, srcs, count=count, args_override=args)
    else:
        op = ops._emit_vec(b, "select", mnem, dst, srcs, mask=mask, repeat_times=rt,
                           blk=(p.dst_blk_stride, p.src0_blk_stride, p.src1_blk_stride),
                           rep=(p.dst_rep_stride, p.src0_rep_stride, p.src1_rep_stride), args_override=args)
    if mode == 0:
        op.attrs["cfg"]["cmpreg"] = [1]
    else:
        if mode == 1:
            op.attrs["cfg"]["sels"] = [1]
        op.reads.append(sel_mask.access())
    return op
