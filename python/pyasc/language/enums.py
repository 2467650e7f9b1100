"""Enumerations of the kernel language, with real pyasc's numeric values
(python/asc/language/core/enums.py upstream; docs/sources.md §pyasc enums).

Users: kernels (`asc.HardEvent.MTE2_V`), the compiler (pipe names of events).  Invariant: the
numbers never change; the compiler maps them to ISA names through the tables at the bottom.
"""
from enum import IntEnum

from .. import abi as _abi
from ..compiler import events as _events


# Each enumeration is made on its first use (module __getattr__, PEP 562; `from .enums import X`
# goes through it too), then bound in this module like any class: making an IntEnum costs
# 50-400 us (the 35 members of HardEvent most), and a launch served from the compile cache uses
# two of the thirteen (TPosition for language.tensor's defaults, KernelType for runtime.config).
# The compiler tables at the bottom are made on first use the same way.  Each _Name() below
# holds the class exactly as it was written at module level.


def _TPosition():
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
    TPosition.__qualname__ = "TPosition"   # (made in this function: named as at module level)
    return TPosition


def _PipeID():
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
    PipeID.__qualname__ = "PipeID"   # (made in this function: named as at module level)
    return PipeID


def _HardEvent():
    # The names and numbers are compiler.events.HARD_EVENTS (the one list the compiler reads too).
    return IntEnum("HardEvent", list(_events.HARD_EVENTS.items()), module=__name__, qualname="HardEvent")


def _Hardware():
    class Hardware(IntEnum):
        GM = 0
        UB = 1
        L1 = 2
        L0A = 3
        L0B = 4
        L0C = 5
        BIAS = 6
        FIXBUF = 7
    Hardware.__qualname__ = "Hardware"   # (made in this function: named as at module level)
    return Hardware


def _CubeFormat():
    class CubeFormat(IntEnum):
        ND = 0
        NZ = 1
    CubeFormat.__qualname__ = "CubeFormat"   # (made in this function: named as at module level)
    return CubeFormat


def _MaskMode():
    class MaskMode(IntEnum):
        NORMAL = 0
        COUNTER = 1
    MaskMode.__qualname__ = "MaskMode"   # (made in this function: named as at module level)
    return MaskMode


def _RoundMode():
    class RoundMode(IntEnum):
        CAST_NONE = 0
        CAST_RINT = 1
        CAST_FLOOR = 2
        CAST_CEIL = 3
        CAST_ROUND = 4
        CAST_TRUNC = 5
        CAST_ODD = 6
    RoundMode.__qualname__ = "RoundMode"   # (made in this function: named as at module level)
    return RoundMode


def _CMPMODE():
    class CMPMODE(IntEnum):
        """Comparison of asc.compare (Ascend C CMPMODE order)."""
        LT = 0
        GT = 1
        EQ = 2
        LE = 3
        GE = 4
        NE = 5
    CMPMODE.__qualname__ = "CMPMODE"   # (made in this function: named as at module level)
    return CMPMODE


def _SELMODE():
    class SELMODE(IntEnum):
        VSEL_CMPMASK_SPR = 0
        VSEL_TENSOR_SCALAR_MODE = 1
        VSEL_TENSOR_TENSOR_MODE = 2
    SELMODE.__qualname__ = "SELMODE"   # (made in this function: named as at module level)
    return SELMODE


def _AtomicDtype():
    class AtomicDtype(IntEnum):
        """The store atomic config's type field (Ascend C AtomicDtype, real pyasc core/enums.py)."""
        ATOMIC_NONE = 0
        ATOMIC_F32 = 1
        ATOMIC_F16 = 2
        ATOMIC_S16 = 3
        ATOMIC_S32 = 4
        ATOMIC_S8 = 5
        ATOMIC_BF16 = 6
    AtomicDtype.__qualname__ = "AtomicDtype"   # (made in this function: named as at module level)
    return AtomicDtype


def _AtomicOp():
    class AtomicOp(IntEnum):
        """The store atomic config's op field: ATOMIC_SUM is real pyasc's; MAX and MIN are asc's
    numbering of what SetAtomicMax/SetAtomicMin select."""   # (indented as __doc__ was)
        ATOMIC_SUM = 0
        ATOMIC_MAX = 1
        ATOMIC_MIN = 2
    AtomicOp.__qualname__ = "AtomicOp"   # (made in this function: named as at module level)
    return AtomicOp


def _LayoutMode():
    class LayoutMode(IntEnum):
        """Real pyasc asc.LayoutMode (python/asc/language/core/enums.py): Ascend C's batch Matmul layouts."""
        NONE = 0
        NORMAL = 1
        BSNGD = 2
        SBNGD = 3
        BNGS1S2 = 4
    LayoutMode.__qualname__ = "LayoutMode"   # (made in this function: named as at module level)
    return LayoutMode


def _KernelType():
    class KernelType(IntEnum):
        AIV_ONLY = 0
        AIC_ONLY = 1
        MIX_AIV_HARD_SYNC = 2
        MIX_AIC_HARD_SYNC = 3
        MIX_AIV_1_0 = 4
        MIX_AIC_1_0 = 5
        MIX_AIC_1_1 = 6
        MIX_AIC_1_2 = 7
    KernelType.__qualname__ = "KernelType"   # (made in this function: named as at module level)
    return KernelType


# ---- compiler tables (made on first use, see __getattr__) ------------------------------------
def _PIPE_ISA():
    # PipeID's numbers are real pyasc's, which are AscPipe's: the ISA name of each comes from abi.json
    return {p: _abi.enum_names("AscPipe")[p.value] for p in _get("PipeID")}


def event_pipes(ev) -> tuple[str, str]:
    """(source pipe, destination pipe) ISA names of a HardEvent: MTE2_V -> ('mte2', 'v')."""
    return _events.pipes_of(ev.name)


def event_of(src: str, dst: str):
    """The HardEvent joining two ISA pipes."""
    return _get("HardEvent")[_events.name_of(src, dst)]


def _CMP_ISA():
    CMPMODE = _get("CMPMODE")
    return {CMPMODE.LT: "lt", CMPMODE.GT: "gt", CMPMODE.EQ: "eq", CMPMODE.LE: "le", CMPMODE.GE: "ge",
            CMPMODE.NE: "ne"}


def _RND_ISA():
    RoundMode = _get("RoundMode")
    return {RoundMode.CAST_NONE: "none", RoundMode.CAST_RINT: "rint", RoundMode.CAST_FLOOR: "floor",
            RoundMode.CAST_CEIL: "ceil", RoundMode.CAST_ROUND: "round", RoundMode.CAST_TRUNC: "trunc",
            RoundMode.CAST_ODD: "odd"}


def _POSITION_BUFFER():
    # Physical buffer of each logical position on split (2201) targets (ASCDK 通用说明和约束).
    TPosition = _get("TPosition")
    return {TPosition.VECIN: "UB", TPosition.VECOUT: "UB", TPosition.VECCALC: "UB",
            TPosition.A1: "L1", TPosition.B1: "L1", TPosition.C1: "L1", TPosition.A2: "L0A",
            TPosition.B2: "L0B", TPosition.CO1: "L0C", TPosition.GM: "GM", TPosition.CO2: "GM"}


# name -> the function making it, in the order the module used to define them
_MAKE = {n: globals()["_" + n] for n in ("TPosition", "PipeID", "HardEvent", "Hardware", "CubeFormat", "MaskMode", "RoundMode", "CMPMODE", "SELMODE", "AtomicDtype", "AtomicOp", "LayoutMode", "KernelType", "PIPE_ISA", "CMP_ISA", "RND_ISA", "POSITION_BUFFER")}


def _get(name):
    v = globals().get(name)
    if v is None:
        # setdefault: two threads making one at once both get the one bound
        v = globals().setdefault(name, _MAKE[name]())
    return v


def __getattr__(name):
    if name in _MAKE:
        return _get(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_MAKE))


# what `from pyasc.language.enums import *` took when every name was bound at import (it reads
# __all__ through __getattr__, making them)
__all__ = sorted({n for n in globals() if not n.startswith("_")} | set(_MAKE))
