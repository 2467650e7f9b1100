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
bfloat16 (dtype=pyasc.bfloat16, "bfloat16" or "bf16"; numpy has none, so bf16 tensors are uint16
bits, pyasc.host.bf16): the vector unit has no bf16 arithmetic, so
  * element-wise and row operators (add, sub, mul, div, relu, sigmoid, tanh, gelu, erf, softmax,
    layernorm, rmsnorm) compute in float32 on bf16 values: a float32 operand is rounded to bf16
    on the device (cast.cast_bf16, RNE) and widened back exactly, a bf16 operand widened; a
    Python number is rounded to bf16 on the host; the float32 result is rounded to bf16 (RNE)
    once.  That is each operator's exact result rounded to float32, then to bf16;
  * matmul takes the bf16 operands to the cube (mmad.bf16f32, float32 accumulation in L0C,
    kernels/pyasc/matmul.py, any M, N, K) and rounds the float32 result to bf16 once;
  * conv2d takes bf16 operands to the cube as matmul does (img2col moves the 16-bit patterns),
    a bias is added to the float32 result, which is rounded to bf16 once; a float16 operand is
    a DTypeError there;
  * batch_norm, max_pool2d and avg_pool2d compute in float32 on bf16 values (the pools with the
    scope suspended, so avg's sum is not rounded per add) and round to bf16 once.
Inside a fusion scope a bf16 result is rounded per operator too (each rounding is a launch), so
the fused chain computes what the unfused one does.
"""
import contextlib

import numpy as np

from . import bf16
from .errors import DTypeError

_stack = []
_F32 = np.dtype(np.float32)


def current():
    """The active autocast dtype, or None."""
    return _stack[-1] if _stack else None


@contextlib.contextmanager
def autocast(dtype=np.float16, enabled=True):
    if bf16.is_bf16_name(dtype):
        dt = bf16.DTYPE
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise DTypeError(f"pyasc.autocast: dtype must be float16 or bfloat16, got {dtype!r}") from None
        if dt != np.dtype(np.float16) or bf16.is_bf16(dt):
            raise DTypeError(f"pyasc.autocast: dtype must be float16 or bfloat16, got {dt.name}")
    _stack.append(dt if enabled else None)
    try:
        yield dt
    finally:
        _stack.pop()


def is_bf16():
    """True inside an autocast(dtype=bfloat16) scope."""
    dt = current()
    return dt is not None and bf16.is_bf16(dt)


def operand(x):
    """x converted to the autocast dtype when a scope is active and x is a float32 tensor.  In a
    bf16 scope: a float32 tensor of bf16 values (float32 rounded to bf16 and widened, bf16
    widened; done once per tensor), a Python number rounded to bf16."""
    from .tensor import AscendTensor
    dt = current()
    if dt is None:
        return x
    from . import nn
    if bf16.is_bf16(dt):
        if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
            return bf16.round_value(x)
        if not isinstance(x, AscendTensor) or getattr(x, "_bf16_values", False):
            return x
        if bf16.is_bf16(x.dtype):
            y = nn.cast(x, _F32)
        elif x.dtype == _F32:
            y = nn.cast(nn.cast(x, bf16.DTYPE), _F32)
        else:
            return x
        y._bf16_values = True
        return y
    if not isinstance(x, AscendTensor) or x.dtype != _F32:
        return x
    return nn.cast(x, dt)


def cube_operand(x):
    """A matmul operand: in a bf16 scope a bf16 tensor (float32 rounded on the device), else
    operand(x)."""
    from .tensor import AscendTensor
    if not is_bf16():
        return operand(x)
    if isinstance(x, AscendTensor) and x.dtype == _F32 and not bf16.is_bf16(x.dtype):
        from . import nn
        return nn.cast(x, bf16.DTYPE)
    return x


def result(y):
    """An operator's float32 result rounded to the autocast dtype in a scope (f16: the
    accumulating operators call it; bf16: every operator does, its float32 compute)."""
    dt = current()
    if dt is None or y.dtype != _F32 or bf16.is_bf16(y.dtype):
        return y
    from . import nn
    return nn.cast(y, dt)
