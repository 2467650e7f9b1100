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
# The compiler tables at the bottom are made on first use the same way.
#
# name -> (docstring or None, members numbered 0, 1, 2, ... in this order): the classes the
# module used to define, made by _enum with the same names, numbers, __doc__ and __qualname__.
_ENUMS = {
    # TPosition.MAX: real pyasc's "any position" (set_pad_value: VECIN or VECOUT)
    "TPosition": (None, "GM A1 A2 B1 B2 C1 C2 CO1 CO2 VECIN VECOUT VECCALC MAX"),
    "PipeID": (None, "PIPE_S PIPE_V PIPE_M PIPE_MTE1 PIPE_MTE2 PIPE_MTE3 PIPE_ALL PIPE_MTE4 PIPE_MTE5 PIPE_V2 "
                     "PIPE_FIX"),
    "Hardware": (None, "GM UB L1 L0A L0B L0C BIAS FIXBUF"),
    "CubeFormat": (None, "ND NZ"),
    "MaskMode": (None, "NORMAL COUNTER"),
    "RoundMode": (None, "CAST_NONE CAST_RINT CAST_FLOOR CAST_CEIL CAST_ROUND CAST_TRUNC CAST_ODD"),
    "CMPMODE": ("Comparison of asc.compare (Ascend C CMPMODE order).", "LT GT EQ LE GE NE"),
    "SELMODE": (None, "VSEL_CMPMASK_SPR VSEL_TENSOR_SCALAR_MODE VSEL_TENSOR_TENSOR_MODE"),
    "AtomicDtype": ("The store atomic config's type field (Ascend C AtomicDtype, real pyasc core/enums.py).",
                    "ATOMIC_NONE ATOMIC_F32 ATOMIC_F16 ATOMIC_S16 ATOMIC_S32 ATOMIC_S8 ATOMIC_BF16"),
    "AtomicOp": ("The store atomic config's op field: ATOMIC_SUM is real pyasc's; MAX and MIN are asc's\n"
                 "    numbering of what SetAtomicMax/SetAtomicMin select.", "ATOMIC_SUM ATOMIC_MAX ATOMIC_MIN"),
    "LayoutMode": ("Real pyasc asc.LayoutMode (python/asc/language/core/enums.py): Ascend C's batch Matmul layouts.",
                   "NONE NORMAL BSNGD SBNGD BNGS1S2"),
    "KernelType": (None, "AIV_ONLY AIC_ONLY MIX_AIV_HARD_SYNC MIX_AIC_HARD_SYNC MIX_AIV_1_0 MIX_AIC_1_0 "
                         "MIX_AIC_1_1 MIX_AIC_1_2"),
}


def _enum(name):
    doc, members = _ENUMS[name]
    e = IntEnum(name, [(m, i) for i, m in enumerate(members.split())], module=__name__, qualname=name)
    e.__doc__ = doc
    return e


def _HardEvent():
    # The names and numbers are compiler.events.HARD_EVENTS (the one list the compiler reads too).
    return IntEnum("HardEvent", list(_events.HARD_EVENTS.items()), module=__name__, qualname="HardEvent")


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
_MAKE = {n: (lambda n=n: _enum(n)) if n in _ENUMS else globals()["_" + n]
         for n in ("TPosition", "PipeID", "HardEvent", "Hardware", "CubeFormat", "MaskMode", "RoundMode", "CMPMODE",
                   "SELMODE", "AtomicDtype", "AtomicOp", "LayoutMode", "KernelType", "PIPE_ISA", "CMP_ISA", "RND_ISA",
                   "POSITION_BUFFER")}


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
