"""The register ABI of the target, from abi.json ("registers"): for the driver and codegen.

Kernel arguments arrive in x<FIRST_ARG_REG>.. (at most ARG_REGS of them); NUM_REGS scalar
registers exist, of which ASSEMBLER_TEMPORARY (x31, `at`) belongs to the assembler; ALLOCATABLE
lists the others.  Nothing here is written by hand.
"""
from __future__ import annotations

from .. import abi as _abi

_R = _abi.REGISTERS
NUM_REGS: int = _R["count"]
ASSEMBLER_TEMPORARY: int = _R["assembler_temporary"]
ALLOCATABLE: tuple = tuple(r for r in range(NUM_REGS) if r != ASSEMBLER_TEMPORARY)
FIRST_ARG_REG: int = _R["args"]["first"]
ARG_REGS: int = _R["args"]["count"]
SPECIAL_REGS: dict = {s["name"]: s for s in _R["special"]}   # "block_idx" -> {value, writable}
