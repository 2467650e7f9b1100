"""init_soc_state (Ascend C InitSocState: cannmirror/asc-devkit impl/basic_api/kernel_utils_base.h,
InitSocStateImpl; real pyasc python/asc/language/basic/common.py).

On dav_c220 (__NPU_ARCH__ 2201) it resets the core state a previous operator may have left:
set_atomic_none (GM writes plain again), set_mask_norm (the vector mask in normal mode) and, on a
vector core, set_vector_mask(-1, -1) (every lane); on a cube core set_l1_3d_size(0) and
set_padding(0), the LoadData3D registers, which asc does not model (docs/pyasc.md), so that half
has no effect here.  Each part is the existing instruction: mtspr st_atomic, set_mask_norm and
mtspr mask0 / mask1."""
from __future__ import annotations


def make(ops):
    @ops.intrinsic
    def init_soc_state(*, _b):
        b = _b
        ops.set_atomic_none(_b=b)
        ops.set_mask_norm(_b=b)
        if not ops.ascend_is_aic(_b=b):
            ops.set_vector_mask(-1, -1, _b=b)

    return init_soc_state
