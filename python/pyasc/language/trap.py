"""asc.trap: the trap instruction (sim/scalar.c, ASC_FAULT_TRAP).

Ascend C Trap on dav_c220 is TrapImpl() { trap(); } (cannmirror/asc-devkit
impl/basic_api/dav_c220/kernel_operator_sys_var_impl.h); its documentation
(docs/zh/api/SIMD-API/基础API/调试接口/异常检测/Trap.md) says it interrupts the AI Core
("NPU模式下会中断AI Core的运行").  Here the scalar unit stops the launch with a fault of kind
trap that names core, pc, the instruction and the kernel's Python line; the launch raises
KernelFault.  Real pyasc: docs/python-api/language/generated/asc.language.basic.trap.md.
"""
from __future__ import annotations

from ..compiler import ir
from .ops import intrinsic

__all__ = ["trap"]


@intrinsic
def trap(*, _b):
    _b.emit(ir.Op("prt", None, [], {"mnem": "trap"}))   # a scalar instruction without operands, as printf
