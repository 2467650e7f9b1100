"""Enumerations of the kernel language, with real pyasc's numeric values
(python/asc/language/core/enums.py upstream; docs/sources.md §pyasc enums).

Users: kernels (`asc.HardEvent.MTE2_V`), the compiler (pipe names of events).  Invariant: the
numbers never change; the compiler maps them to ISA names through the tables at the bottom.
"""
from enum import IntEnum

from .. import abi as _abi
from ..compiler import events as _events


class TPosition(IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    MAX = 12        # real pyasc: "any position" (set_pad_value: VECIN or VECOUT)


class PipeID(IntEnum):
    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10


# The names and numbers are compiler.events.HARD_EVENTS (the one list the compiler reads too).
HardEvent = IntEnum("HardEvent", list(_events.HARD_EVENTS.items()), module=__name__, qualname="HardEvent")


class Hardware(IntEnum):
    GM = 0
    UB = 1
    L1 = 2
    L0A = 3
    L0B = 4
    L0C = 5
    BIAS = 6
    FIXBUF = 7


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1


class MaskMode(IntEnum):
    NORMAL = 0
    COUNTER = 1


class RoundMode(IntEnum):
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6


class CMPMODE(IntEnum):
    """Comparison of asc.compare (Ascend C CMPMODE order)."""
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SELMODE(IntEnum):
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


class AtomicDtype(IntEnum):
    """The store atomic config's type field (Ascend C AtomicDtype, real pyasc core/enums.py)."""
    ATOMIC_NONE = 0
    ATOMIC_F32 = 1
    ATOMIC_F16 = 2
    ATOMIC_S16 = 3
    ATOMIC_S32 = 4
    ATOMIC_S8 = 5
    ATOMIC_BF16 = 6


class AtomicOp(IntEnum):
    """The store atomic config's op field: ATOMIC_SUM is real pyasc's; MAX and MIN are asc's
    numbering of what SetAtomicMax/SetAtomicMin select."""
    ATOMIC_SUM = 0
    ATOMIC_MAX = 1
    ATOMIC_MIN = 2


class LayoutMode(IntEnum):
    """Real pyasc asc.LayoutMode (python/asc/language/core/enums.py): Ascend C's batch Matmul layouts."""
    NONE = 0
    NORMAL = 1
    BSNGD = 2
    SBNGD = 3
    BNGS1S2 = 4


class KernelType(IntEnum):
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


# ---- compiler tables ---------------------------------------------------------------------
# PipeID's numbers are real pyasc's, which are AscPipe's: the ISA name of each comes from abi.json
PIPE_ISA = {p: _abi.enum_names("AscPipe")[p.value] for p in PipeID}


def event_pipes(ev: HardEvent) -> tuple[str, str]:
    """(source pipe, destination pipe) ISA names of a HardEvent: MTE2_V -> ('mte2', 'v')."""
    return _events.pipes_of(ev.name)


def event_of(src: str, dst: str) -> HardEvent:
    return HardEvent[_events.name_of(src, dst)]


CMP_ISA = {CMPMODE.LT: "lt", CMPMODE.GT: "gt", CMPMODE.EQ: "eq", CMPMODE.LE: "le", CMPMODE.GE: "ge",
           CMPMODE.NE: "ne"}
RND_ISA = {RoundMode.CAST_NONE: "none", RoundMode.CAST_RINT: "rint", RoundMode.CAST_FLOOR: "floor",
           RoundMode.CAST_CEIL: "ceil", RoundMode.CAST_ROUND: "round", RoundMode.CAST_TRUNC: "trunc",
           RoundMode.CAST_ODD: "odd"}
# Physical buffer of each logical position on split (2201) targets (ASCDK 通用说明和约束).
POSITION_BUFFER = {TPosition.VECIN: "UB", TPosition.VECOUT: "UB", TPosition.VECCALC: "UB",
                   TPosition.A1: "L1", TPosition.B1: "L1", TPosition.C1: "L1", TPosition.A2: "L0A",
                   TPosition.B2: "L0B", TPosition.CO1: "L0C", TPosition.GM: "GM", TPosition.CO2: "GM"}
