"""Element data types of the kernel language (mirrors real pyasc `asc.language.core.dtype`).

Users: kernels (`asc.float32`, `x.dtype.sizeof()`), the compiler (ISA suffixes), the runtime
(numpy dtype matching).  Invariant: one DataType object per type, so `is`/`==` both work and
objects can key dicts.
"""
from __future__ import annotations

import numpy as np


class DataType:
    __slots__ = ("name", "_size", "isa", "np")

    def __init__(self, name: str, size: int, isa: str, np_name: str | None):
        self.name = name
        self._size = size
        self.isa = isa            # suffix used by the ISA: f16, f32, s32, ...
        self.np = np.dtype(np_name) if np_name else None

    def sizeof(self) -> int:
        """Size of one element in bytes (pyasc `dtype.sizeof()`)."""
        return self._size

    @property
    def is_float(self) -> bool:
        return self.isa in ("f16", "bf16", "f32")

    def __repr__(self):
        return self.name

    def __reduce__(self):
        return (by_name, (self.name,))


float16 = DataType("float16", 2, "f16", "float16")
half = float16
bfloat16 = DataType("bfloat16", 2, "bf16", None)
float32 = DataType("float32", 4, "f32", "float32")
float = float32  # noqa: A001  (pyasc exposes asc.float too)
int8 = DataType("int8", 1, "s8", "int8")
int16 = DataType("int16", 2, "s16", "int16")
int32 = DataType("int32", 4, "s32", "int32")
int64 = DataType("int64", 8, "s64", "int64")
uint8 = DataType("uint8", 1, "u8", "uint8")
uint16 = DataType("uint16", 2, "u16", "uint16")
uint32 = DataType("uint32", 4, "u32", "uint32")
uint64 = DataType("uint64", 8, "u64", "uint64")
bool_ = DataType("bool", 1, "u8", "bool")

ALL = [float16, bfloat16, float32, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_]
_BY_NAME = {d.name: d for d in ALL}


def by_name(name: str) -> DataType:
    return _BY_NAME[name]


def from_numpy(dt) -> DataType:
    """The DataType of a numpy (or torch) dtype; TypeError when the type has no kernel equivalent."""
    if isinstance(dt, type) and issubclass(dt, np.generic):
        dt = np.dtype(dt)
    if (getattr(dt, "metadata", None) or {}).get("pyasc") == "bfloat16":
        return bfloat16      # numpy has no bfloat16: uint16 bits tagged so (pyasc/host/bf16.py)
    s = str(dt).replace("torch.", "")
    aliases = {"half": "float16", "float": "float32", "bool": "bool", "bfloat16": "bfloat16"}
    s = aliases.get(s, s)
    if s in _BY_NAME:
        return _BY_NAME[s]
    if isinstance(dt, np.dtype) and dt.byteorder == ">" and str(dt.newbyteorder("<")) in _BY_NAME:
        # the device is little-endian: a big-endian array's bytes would be read as other numbers
        raise TypeError(f"arrays of dtype {dt} are big-endian and the device is little-endian: pass "
                        f"a.astype('{dt.newbyteorder('<').str}') (and read an output back from that array)")
    raise TypeError(f"arrays of dtype {dt} cannot be passed to a kernel")


def isa_of(dt: DataType) -> str:
    return dt.isa
