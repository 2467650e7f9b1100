"""The host side of a GM tensor list: the descriptor buffer a kernel reads with asc.ListTensorDesc,
built from numpy arrays as the CANN framework builds it for an operator's dynamic inputs.

Users: runtime/launch.py (a Python list or tuple of numpy arrays passed for a GlobalAddress
argument), tests.  The layout is the one language/list_tensor.py documents (Ascend C's decoder:
cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_list_tensor_impl.h): a header word
with the offset of the pointer array, one record per tensor (dim | index << 32, then its extents),
then the tensors' GM addresses.  Every tensor of a list has the same rank, as the decoder reads one
dim for all of them."""
from __future__ import annotations

import numpy as np

from ..compiler.errors import LaunchError


def check(name, arrays):
    """The arrays of a tensor-list argument, checked: non-empty, numpy, one rank >= 1, C order."""
    if not arrays:
        raise LaunchError(f"argument '{name}': a tensor list needs at least one array")
    out = []
    for i, a in enumerate(arrays):
        if not isinstance(a, np.ndarray):
            raise LaunchError(f"argument '{name}'[{i}]: a tensor list holds numpy arrays, not {type(a).__name__}")
        if a.ndim == 0:
            raise LaunchError(f"argument '{name}'[{i}]: a 0-d array has no extents to describe: reshape it to (1,)")
        if not a.flags.c_contiguous:
            raise LaunchError(f"argument '{name}'[{i}]: arrays must be C-contiguous")
        out.append(a)
    ranks = {a.ndim for a in out}
    if len(ranks) != 1:
        raise LaunchError(f"argument '{name}': every array of a tensor list must have the same rank (the "
                          f"descriptor has one dim for all of them), got ranks {sorted(ranks)}")
    return out


def descriptor(shapes, addrs):
    """The descriptor words (uint64) of tensors with these shapes at these GM addresses."""
    n, dim = len(shapes), len(shapes[0])
    rec = 1 + dim
    words = [8 * (1 + n * rec)]                  # data_ptr_offset in bytes
    for i, shape in enumerate(shapes):
        words.append(dim | i << 32)
        words += [int(e) for e in shape]
    words += [int(a) for a in addrs]
    return np.array(words, dtype=np.uint64)
