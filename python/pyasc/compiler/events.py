"""Flag events between pipes: the HardEvent names of real pyasc with their numbers
(python/asc/language/core/enums.py upstream), and the ISA pipe names they join.

Users: language.enums builds asc.HardEvent from HARD_EVENTS; language.tensor (TQue flags) and
compiler.passes.insert_sync name events by (source pipe, destination pipe).  The one list of
which pipe pairs have an event.  Invariant: the numbers never change.
"""
from __future__ import annotations

HARD_EVENTS = {
    "MTE2_MTE1": 0, "MTE1_MTE2": 1, "MTE1_M": 2, "M_MTE1": 3, "MTE2_V": 4, "V_MTE2": 5, "MTE3_V": 6,
    "V_MTE3": 7, "M_V": 8, "V_M": 9, "V_V": 10, "MTE3_MTE1": 11, "MTE1_MTE3": 12, "MTE1_V": 13,
    "MTE2_M": 14, "M_MTE2": 15, "V_MTE1": 16, "M_FIX": 17, "FIX_M": 18, "MTE3_MTE2": 19,
    "MTE2_MTE3": 20, "S_V": 21, "V_S": 22, "S_MTE2": 23, "MTE2_S": 24, "S_MTE3": 25, "MTE3_S": 26,
    "MTE2_FIX": 27, "FIX_MTE2": 28, "FIX_S": 29, "M_S": 30, "FIX_MTE3": 31, "MTE1_FIX": 32,
    "FIX_MTE1": 33, "FIX_FIX": 34,
}
_EV_PIPE = {"MTE1": "mte1", "MTE2": "mte2", "MTE3": "mte3", "V": "v", "M": "m", "S": "s",
            "FIX": "fix"}
_PIPE_EV = {v: k for k, v in _EV_PIPE.items()}


def pipes_of(name: str) -> tuple[str, str]:
    """(source pipe, destination pipe) ISA names of an event: 'MTE2_V' -> ('mte2', 'v')."""
    src, dst = name.split("_")
    return _EV_PIPE[src], _EV_PIPE[dst]


def name_of(src: str, dst: str) -> str:
    """The event name joining two ISA pipes: ('mte2', 'v') -> 'MTE2_V'; KeyError when none."""
    name = f"{_PIPE_EV[src]}_{_PIPE_EV[dst]}"
    if name not in HARD_EVENTS:
        raise KeyError(name)
    return name
