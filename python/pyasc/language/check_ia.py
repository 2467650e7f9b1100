"""asc.check_local_memory_ia(check_params) and asc.CheckLocalMemoryIAParam: Ascend C
CheckLocalMemoryIA on dav_c220 (cannmirror/asc-devkit impl/basic_api/dav_c220/
kernel_operator_common_impl.h CheckLocalMemoryIAImpl; docs/zh/api/SIMD-API/基础API/调试接口/异常检测/
CheckLocalMemoryIA(ISASI).md; real pyasc python/asc/language/core/types.py CheckLocalMemoryIAParam).

The parameters pack into one 64-bit word, as CheckLocalMemoryIAImpl does: start (32 B units) in
bits 63:48, end in 47:32, scalar read / write 31 / 30, vector read / write 29 / 28, MTE read /
write 27 / 26, enable 0; the word goes to SPR data_exp_<enable_bit> (set_data_exp_N).
The simulator then faults the first instruction whose UB access of a checked kind touches a 32 B
block b with start < b <= end (the docs' (startAddr, endAddr]), naming core, pc and the Python
line (sim/exec_check.c).  Reset with is_enable=False, as the docs ask."""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal, is_static

_FLAGS = (("is_scalar_read", 31), ("is_scalar_write", 30), ("is_vector_read", 29), ("is_vector_write", 28),
          ("is_mte_read", 27), ("is_mte_write", 26))


class CheckLocalMemoryIAParam:
    """Real pyasc CheckLocalMemoryIAParam(enable_bit, start_addr, end_addr, is_scalar_read,
    is_scalar_write, is_vector_read, is_vector_write, is_mte_read, is_mte_write, is_enable)."""

    def __init__(self, enable_bit=0, start_addr=0, end_addr=0, is_scalar_read=False, is_scalar_write=False,
                 is_vector_read=False, is_vector_write=False, is_mte_read=False, is_mte_write=False,
                 is_enable=False):
        self.enable_bit, self.start_addr, self.end_addr = enable_bit, start_addr, end_addr
        self.is_scalar_read, self.is_scalar_write = is_scalar_read, is_scalar_write
        self.is_vector_read, self.is_vector_write = is_vector_read, is_vector_write
        self.is_mte_read, self.is_mte_write, self.is_enable = is_mte_read, is_mte_write, is_enable


def make(ops):
    @ops.intrinsic
    def check_local_memory_ia(check_params, *, _b):
        b = _b
        p = check_params
        if not isinstance(p, CheckLocalMemoryIAParam):
            raise b.error(f"asc.check_local_memory_ia: check_params must be an asc.CheckLocalMemoryIAParam, "
                          f"got {type(p).__name__}")
        if not is_static(p.enable_bit) or isinstance(p.enable_bit, bool) or p.enable_bit not in (0, 1, 2, 3):
            raise b.error(f"asc.check_local_memory_ia: enable_bit must be a constant 0..3 (the check register), "
                          f"got {p.enable_bit!r}")
        word = 0
        parts = []
        for name, lo in (("start_addr", 48), ("end_addr", 32)):
            v = getattr(p, name)
            if is_static(v):
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 65535:
                    raise b.error(f"asc.check_local_memory_ia: {name} must be an integer in [0, 65535] "
                                  f"(32 B units), got {v!r}")
                word |= v << lo
            elif isinstance(v, RVal):
                parts.append(b.binop("shl", b.binop("and", v, 0xffff), lo))
            else:
                raise b.error(f"asc.check_local_memory_ia: {name} must be an integer, got {type(v).__name__}")
        for name, bit in _FLAGS + (("is_enable", 0),):
            v = getattr(p, name)
            if not is_static(v) or not isinstance(v, (bool, int)) or int(v) not in (0, 1):
                raise b.error(f"asc.check_local_memory_ia: {name} must be a constant bool, got {v!r}")
            word |= int(v) << bit
        val = ops._s64(word)
        for x in parts:
            val = b.binop("or", val, x)
        b.emit(ir.Op("mtspr", None, [b.operand(val)], {"spr": f"data_exp_{p.enable_bit}"}))

    return check_local_memory_ia
