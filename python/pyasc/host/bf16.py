"""bfloat16 on the host: numpy has no bfloat16 dtype, so a bf16 tensor is stored as uint16 bits.

Users: pyasc.host.amp (autocast(dtype=bfloat16)), pyasc.host.nn (cast), pyasc.utils
(to_bfloat16 / from_bfloat16), tests/python/test_host_bf16.py.

DTYPE is numpy's uint16 with the metadata {"pyasc": "bfloat16"}: an AscendTensor of that dtype
holds bf16 bit patterns (the kernels read them as asc.bfloat16 through reinterpret_cast, the
kernel library's convention: kernels/pyasc/matmul.py, cast.py).  numpy compares dtypes without
their metadata, so `is_bf16` is the test to use; `.numpy()` of such a tensor gives the bits.
The host conversions (for inputs and for reading results; the device converts with
kernels/pyasc/cast.py cast_bf16):
  to_bfloat16(x)   float32 -> bf16 bits, round to nearest, ties to even (as vconv.f32.bf16,
                   docs/semantics.md §7): add 0x7FFF plus the lowest kept bit, drop 16 bits;
                   NaN -> the quiet NaN 0x7FC0 (sign kept), overflow -> inf;
  from_bfloat16(b) bf16 bits -> float32, exact (the bits become the top half).
"""
import numpy as np

DTYPE = np.dtype(np.uint16, metadata={"pyasc": "bfloat16"})
NAMES = ("bfloat16", "bf16")


def is_bf16(dt):
    md = getattr(np.dtype(dt), "metadata", None) if not isinstance(dt, str) else None
    return bool(md) and md.get("pyasc") == "bfloat16"


def is_bf16_name(dtype):
    """True for the spellings of bfloat16 a caller may pass: "bfloat16"/"bf16", asc.bfloat16
    (the kernel DataType, also pyasc.bfloat16) and DTYPE."""
    if isinstance(dtype, str):
        return dtype in NAMES
    if getattr(dtype, "name", None) == "bfloat16":
        return True
    try:
        return is_bf16(dtype)
    except TypeError:
        return False


def to_bfloat16(x):
    """float32 (or anything numpy converts to it) -> bf16 bits (uint16 array of DTYPE)."""
    f = np.asarray(x, np.float32)
    shape = f.shape
    f = f.reshape(-1)
    u = f.view(np.uint32).astype(np.uint64)
    s16, one = np.uint64(16), np.uint64(1)
    r = ((u + np.uint64(0x7FFF) + ((u >> s16) & one)) >> s16).astype(np.uint16)
    nan = ((u >> s16) & np.uint64(0x8000)).astype(np.uint16) | np.uint16(0x7FC0)
    return np.where(np.isnan(f), nan, r).astype(DTYPE).reshape(shape)


def from_bfloat16(b):
    """bf16 bits (uint16) -> float32, exact."""
    u = np.asarray(b).astype(np.uint16)
    return (u.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(u.shape)


def round_value(v):
    """A Python number rounded to the nearest bf16 value (a float): the host constant rule."""
    return float(from_bfloat16(to_bfloat16(np.float32(v))))
