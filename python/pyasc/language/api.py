"""The `asc` namespace of kernel code: everything a kernel may name as `asc.X`.

Users: pyasc/__init__.py re-exports it.  Mirrors real pyasc's top-level names.
"""
from builtins import range as _py_range

from .dtype import (bfloat16, bool_, float16, float32, half, int8, int16, int32, int64, uint8, uint16,  # noqa: F401
                    uint32, uint64, DataType)
from .enums import (AtomicDtype, AtomicOp, CMPMODE, SELMODE, CubeFormat, HardEvent, Hardware, KernelType, LayoutMode, MaskMode, PipeID,  # noqa: F401
                    RoundMode, TPosition)
from .ops import *  # noqa: F401,F403
from .ops import intrinsic
from .vec_gather import *  # noqa: F401,F403  (gather, gatherb: vgather/vgatherb)
from .vec_shift import *  # noqa: F401,F403  (shift_left, shift_right: vshl/vshr)
from .vec_reduce import *  # noqa: F401,F403  (block/pair/repeat reductions: vcg*, vcpadd, vcadd)
from .vec_sort import *  # noqa: F401,F403  (sort32, mrg_sort, sort, sort helpers: vbitsort/vmrgsort4)
from .trap import *  # noqa: F401,F403  (trap)
from .vec_gather_mask import *  # noqa: F401,F403  (gather_mask, GatherMaskParams, GatherMaskMode: vreducev2)
from .vec_5hd import *  # noqa: F401,F403  (trans_data_to_5hd, TransDataTo5HDParams: setva/vldva/vnchwconv)
from .cube_fill import *  # noqa: F401,F403  (init_const_value, InitConstValueParams: create_*_matrix)
from .load3d import *  # noqa: F401,F403  (LoadData3DParamsV2, set_load_data_*: load3dv2, SPRs fmatrix..l1_3d_size)
from .load2dt import *  # noqa: F401,F403  (LoadData2dTransposeParams, load_data_with_transpose: load_l1_to_l0_2dt)
from .fix_quant import *  # noqa: F401,F403  (QuantModes, set_fix_pipe_pre_quant_flag: fix_l0c_to_out.q)
from .sys_workspace import *  # noqa: F401,F403  (get_sys_workspace, set_sys_workspace: a launch-placed GM workspace)
from .tensor import (ConstExpr, GlobalAddress, GlobalTensor, LocalMemAllocator, LocalTensor,  # noqa: F401
                     LocalTensorAuto, TBuf, TBufPool, TPipe, TQue, TQueBind, get_shape_size)
from .types import (BinaryRepeatParams, BrcbRepeatParams, CopyRepeatParams, DataCopyParams,  # noqa: F401
                    DataCopyExtParams, DataCopyPadExtParams, DataCopyPadParams, Nd2NzParams,
                    FixpipeParamsV220, LoadData2DParams, MmadParams, UnaryRepeatParams)
from .types import VdeqInfo  # noqa: F401,E402  (set_deq_scale(vdeq, vdeq_info))

float = float32  # noqa: A001

# AscendC constants (asc.property(...) in real pyasc)
ONE_BLK_SIZE = 32
DEFAULT_C0_SIZE = 32
TOTAL_L1_SIZE = 524288
TOTAL_L0C_SIZE = 131072
BLOCK_CUBE = 16


def property(prop):  # noqa: A001
    return prop


def range(*args):  # noqa: A001
    """asc.range: the same as range() in a kernel (a run-time loop)."""
    return _py_range(*args)


def static_range(*args):
    """asc.static_range: a loop unrolled at compile time (bounds must be constants)."""
    return _py_range(*args)


range._asc_loop = "range"            # compiler.frontend recognises the loop iterators by these
static_range._asc_loop = "static"


@intrinsic
def get_tpipe_ptr(*, _b):
    """Ascend C GetTPipePtr: the TPipe the kernel constructed last (the TPipe constructor records
    itself as the kernel's pipe; cannmirror/asc-devkit impl/adv_api/... call GetTPipePtr()->
    FetchEventID as kernels here call pipe.fetch_event_id).  The same object, not a copy."""
    pipe = getattr(_b, "current_tpipe", None)
    if pipe is None:
        raise _b.error("asc.get_tpipe_ptr: this kernel has constructed no asc.TPipe yet (GetTPipePtr returns the "
                       "pipe the kernel created)")
    return pipe
