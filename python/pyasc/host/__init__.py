"""pyasc's host runtime: device tensors, eager operators, streams, profiler, custom operators,
errors (docs/pyasc.md "Host runtime").

Users: `import pyasc` (pyasc/__init__.py exports these names), tests/python/test_host_*.py.
Modules: errors (AscendError), memory (the simulated device memory, memory_allocator), tensor
(AscendTensor, zeros/ones/randn/empty), kernels (finding the kernel library, the gather layout
kernel), ops (eager operators, register_op), nn (conv2d, batch_norm, cast, pooling), fusion
(pyasc.fuse), amp (pyasc.autocast), distributed (pyasc.distributed: several simulated devices),
streams (streams, events, simulated time), profiler, log (PYASC_DEBUG).
"""
import functools

from . import amp, bf16, distributed, errors, fusion, kernels, log, memory, ops, profiler, streams, tensor  # noqa: F401
from .errors import (AscendError, DeviceMemoryError, DTypeError, KernelLaunchError,  # noqa: F401
                     KernelNotFound, ShapeError, StreamError)
from .memory import memory_allocator  # noqa: F401
from .tensor import AscendTensor, empty, from_numpy, full, ones, randn, zeros  # noqa: F401
from .ops import register_op  # noqa: F401
from .fusion import fuse  # noqa: F401
from .amp import autocast  # noqa: F401,E402

EAGER = ("add", "sub", "mul", "div", "matmul", "mm", "relu", "sigmoid", "tanh", "gelu", "erf", "softmax",
         "layernorm", "layer_norm", "rmsnorm", "batch_norm", "conv2d", "max_pool2d", "avg_pool2d", "cast")


def dual(kernel_fn, host_fn):
    """One name for both meanings (seeds/README.md): inside an @asc.jit kernel the frontend calls
    the kernel-language intrinsic (with its builder as `_b=`); on the host it is the eager op."""
    @functools.wraps(kernel_fn)
    def f(*args, _b=None, **kwargs):
        if _b is not None:
            return kernel_fn(*args, _b=_b, **kwargs)
        return host_fn(*args, **kwargs)
    f.eager = host_fn
    return f


def export(ns):
    """Put the eager operators in namespace `ns` (pyasc's globals), as duals where ns already has
    a kernel intrinsic of the same name."""
    for name in EAGER:
        host_fn = getattr(ops, name)
        cur = ns.get(name)
        if cur is not None and getattr(cur, "_asc_builder", False):
            ns[name] = dual(cur, host_fn)
        else:
            ns[name] = host_fn


class _Utils:
    numpy = staticmethod(tensor.numpy)
    to_bfloat16 = staticmethod(bf16.to_bfloat16)       # float32 -> bf16 bits (uint16), RNE
    from_bfloat16 = staticmethod(bf16.from_bfloat16)   # bf16 bits -> float32, exact


utils = _Utils()
