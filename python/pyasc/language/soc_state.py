"""init_soc_state (Ascend C InitSocState: cannmirror/asc-devkit impl/basic_api/kernel_utils_base.h,
InitSocStateImpl; real pyasc python/asc/language/basic/common.py).

On dav_c220 (__NPU_ARCH__ 2201) it resets the core state a previous operator may have left:
set_atomic_none (GM writes plain again), set_mask_norm (the vector mask in normal mode) and, on a
vector core, set_vector_mask(-1, -1) (every lane); on a cube core set_l1_3d_size(0) and
set_padding(0), the LoadData3D registers (SPRs l1_3d_size and padding, language/load3d.py).  Each
part is the existing instruction: mtspr st_atomic, set_mask_norm, mtspr mask0 / mask1 and, on the
cube core, mtspr l1_3d_size / padding."""
from __future__ import annotations


def make(ops):
    @ops.intrinsic
    def init_soc_state(*, _b):
        b = _b
        ops.set_atomic_none(_b=b)
        if not ops.ascend_is_aic(_b=b):
            ops.set_mask_norm(_b=b)
            ops.set_vector_mask(-1, -1, _b=b)
        else:       # set_mask_norm is a vector-core instruction in asc's ISA: nothing reads the mode on AIC
            for spr in ("l1_3d_size", "padding"):
                b.emit(ops.ir.Op("mtspr", None, [b.operand(0)], {"spr": spr}))

    return init_soc_state
