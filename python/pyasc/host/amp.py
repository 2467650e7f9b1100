"""pyasc.autocast(dtype=...): eager operators inside the scope run in a 16-bit type.

Users: `with pyasc.autocast(dtype=np.float16): y = pyasc.matmul(a, b)` (docs/pyasc.md "Host
runtime"), pyasc.host.ops and pyasc.host.nn (which import this module as `autocast` and call
`operand` and `result`),
tests/python/test_host_nn.py.

Rules (after torch.autocast's op lists, reduced to the operators pyasc has):
  * every float32 tensor operand of an eager operator is converted to the scope's dtype on the
    device first (cast.cast_kernel) and the operator runs on the 16-bit data;
  * matmul and conv2d accumulate in float32 (their cube kernels keep the partial sums in L0C in
    float32) and give the scope's dtype (one rounding of the float32 result, cast kernel);
  * softmax, layernorm, rmsnorm and batch_norm compute in float32 internally on 16-bit data
    (their kernels widen exactly and round once at the end) and give the 16-bit dtype;
    batch_norm's statistics and affine vectors stay float32 (the kernel takes them so);
  * float16 operands and integer tensors are left as they are.
Only float16: numpy has no bfloat16 dtype for host tensors (the kernel library passes bf16 as
uint16 bits), so dtype=bfloat16 is refused with a DTypeError rather than silently run in f16.
"""
import contextlib

import numpy as np

from .errors import DTypeError

_stack = []
_F32 = np.dtype(np.float32)


def current():
    """The active autocast dtype, or None."""
    return _stack[-1] if _stack else None


@contextlib.contextmanager
def autocast(dtype=np.float16, enabled=True):
    if isinstance(dtype, str):
        name = dtype
    else:
        name = getattr(dtype, "__name__", None) or str(dtype)
    if "bfloat16" in str(name) or name == "bf16":
        raise DTypeError("pyasc.autocast: bfloat16 has no host tensor dtype (numpy has none); use float16")
    dt = np.dtype(dtype)
    if dt != np.dtype(np.float16):
        raise DTypeError(f"pyasc.autocast: dtype must be float16, got {dt.name}")
    _stack.append(dt if enabled else None)
    try:
        yield dt
    finally:
        _stack.pop()


def operand(x):
    """x converted to the autocast dtype when a scope is active and x is a float32 tensor."""
    from .tensor import AscendTensor
    dt = current()
    if dt is None or not isinstance(x, AscendTensor) or x.dtype != _F32:
        return x
    from . import nn
    return nn.cast(x, dt)


def result(y):
    """An accumulating operator's float32 result, rounded to the autocast dtype in a scope."""
    dt = current()
    if dt is None or y.dtype != _F32:
        return y
    from . import nn
    return nn.cast(y, dt)
