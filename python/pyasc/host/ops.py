"""Eager operators on AscendTensors: each one launches a kernel of the kernel library
(kernels/pyasc, found by pyasc.host.kernels) on the simulator, on the current stream; the
result is a new device tensor.  Nothing is ever computed on the host: an operator or a shape
with no kernel raises KernelNotFound naming what is missing.

Broadcasting and dtypes follow numpy: operand shapes broadcast (numpy rules); an operand whose
shape is not the result's is first materialised on the device at the result's shape by the
runtime's gather kernel (a device copy, kernels.gather).  A Python scalar takes the tensor's
dtype (numpy's rule for Python scalars) and is uploaded as a constant tensor of the result's
shape.  Two tensors of different dtypes would promote (numpy.result_type); the runtime does not
insert the conversion silently: that is a DTypeError naming both operands and pointing to
pyasc.cast (kernels/pyasc/cast.py) or pyasc.autocast.

Operators and their kernels:
  add -> elementwise.vadd, mul -> elementwise.vmul,
  sub -> elementwise.axpy(-1, b, a) (= a - b exactly: -1*b is exact, then one rounded add),
  relu, sigmoid, tanh, gelu -> elementwise.*, softmax (last axis) -> softmax.softmax,
  layernorm, rmsnorm (last axis) -> norm.*, matmul/mm -> matmul_cube.matmul (its one shape);
  div -> elementwise_ext.vdiv, erf -> elementwise_ext.erf,
  conv2d, batch_norm, cast, max_pool2d, avg_pool2d -> pyasc.host.nn (its docstring).
"""
import numpy as np

from ..compiler.errors import CompileError, KernelFault, LaunchError
from . import amp as autocast, bf16, fusion, kernels, log, memory, profiler, streams
from .errors import AscendError, DTypeError, KernelLaunchError, KernelNotFound, ShapeError
from .tensor import AscendTensor, full

_custom = {}


def _name(x, i):
    return f"{'ab'[i] if i < 2 else 'operand' + str(i)} ({_desc(x)})"


def _desc(x):
    if isinstance(x, AscendTensor):
        return f"{'bfloat16' if bf16.is_bf16(x.dtype) else x.dtype.name}{list(x.shape)}"
    return f"{type(x).__name__} {x!r}"


def _tensor(op, x, what="x"):
    if isinstance(x, AscendTensor):
        x._check_alive()
        return x
    if isinstance(x, np.ndarray):
        raise AscendError(f"pyasc.{op}: {what} is a numpy array; make it a device tensor with "
                          f"pyasc.AscendTensor.from_numpy() first")
    raise AscendError(f"pyasc.{op}: {what} must be an AscendTensor, got {type(x).__name__}")


# ---- launching -----------------------------------------------------------------------------
def _wrap(op, e):
    if isinstance(e, AscendError):
        return e
    msg = f"pyasc.{op}: {e}"
    if isinstance(e, ValueError):
        return DTypeError(msg) if "dtype" in str(e) else ShapeError(msg)
    return KernelLaunchError(msg)


def launch(op, kernel, inputs, outputs, call, on_result=None):
    """Queue `call(**launch_options)` on the current stream; `kernel` is the JITFunction whose
    last_result is the launch's LaunchResult.  Records timing and the profile; on_result(res,
    report dict) is called after the run.  Inputs still pending in a fusion scope are launched
    first (pyasc.host.fusion)."""
    dev = outputs[0].device if outputs else memory.device()
    for t in inputs:
        fusion.materialize(t)

    def run(stream, after):
        trace = profiler.trace_path()
        opts = {"trace": trace} if trace else {}
        log.debug("launch %s: kernel %s on %s, stream %d, inputs %s", op, kernel.__name__, dev.target,
                  stream.index, ", ".join(_desc(t) for t in inputs))
        try:
            call(**opts)
        except (ValueError, LaunchError, KernelFault, CompileError, RuntimeError, TypeError) as e:
            raise _wrap(op, e) from e
        res = kernel.last_result
        import json
        rep = json.loads(res.report_json) if res.report_json else {}
        tl = streams.timeline(dev)
        start, end, cores = tl.place(stream, rep.get("kind", "aiv"), rep.get("blocks", 1), res.cycles, after)
        log.debug("  compiled %s in %.3f s; ran %d cycles (%.3f us) on %d blocks, simulated [%d, %d)",
                  kernel.__name__, getattr(kernel, "compile_seconds", 0.0), res.cycles, res.microseconds,
                  rep.get("blocks", 0), start, end)
        profiler.record(op, res, stream.index, start, end, len(cores), trace, device=dev.rank)
        if on_result is not None:
            on_result(res, rep)
        return end
    return streams.current_stream().submit(run, inputs, outputs)


def _out(shape, dtype, like):
    return AscendTensor.empty(shape, dtype, device=like.device)


def contiguous(x):
    """A contiguous device copy of view x (gather kernel)."""
    x = _tensor("contiguous", x)
    it = x.dtype.itemsize
    idx = _index_table(x, x.shape)
    out = _out(x.shape, x.dtype, x)
    if x.size == 0:
        return out
    src_buf = x._alloc.buf
    launch("contiguous", kernels.gather_kernel, [x], [out],
           lambda **o: kernels.gather(src_buf, it, idx, out._flat().view(np.uint8), **o))
    return out


def _index_table(x, shape):
    """Element indexes into x's allocation for each element of x broadcast to `shape`."""
    it = x.dtype.itemsize
    if x._offset % it:
        raise AscendError("internal: a view offset that is not a whole element")
    nd = len(shape)
    st = [0] * (nd - x.ndim) + list(x._strides)
    sh = [1] * (nd - x.ndim) + list(x.shape)
    idx = np.full(shape, x._offset // it, np.int64)
    for d in range(nd):
        if sh[d] != 1:
            ax = np.arange(shape[d], dtype=np.int64) * st[d]
            idx = idx + ax.reshape([-1 if i == d else 1 for i in range(nd)])
    if idx.size and idx.max() >= 2**31:
        raise AscendError(f"gather (the copy that makes a strided view contiguous): the view reaches element "
                          f"{int(idx.max())} of its allocation, past the copy kernel's 32-bit indexes: slice the "
                          f"allocation closer to the view first, or copy it on the host")
    return idx.reshape(-1)


def broadcast_to(x, shape):
    x = _tensor("broadcast_to", x)
    shape = tuple(shape)
    if x.shape == shape and x.is_contiguous():
        return x
    try:
        ok = np.broadcast_shapes(x.shape, shape) == shape   # as np.broadcast_to: the result must be `shape`
    except ValueError:
        ok = False
    if not ok:
        raise ShapeError(f"broadcast_to: {_desc(x)} does not broadcast to {list(shape)}")
    it = x.dtype.itemsize
    idx = _index_table(x, shape)
    out = _out(shape, x.dtype, x)
    if out.size:
        src_buf = x._alloc.buf
        launch("broadcast", kernels.gather_kernel, [x], [out],
               lambda **o: kernels.gather(src_buf, it, idx, out._flat().view(np.uint8), **o))
    return out


def _operands(op, a, b):
    """(a, b, shape, dtype) with both operands device tensors of the result's shape."""
    a, b = autocast.operand(a), autocast.operand(b)
    ta, tb = isinstance(a, AscendTensor), isinstance(b, AscendTensor)
    if not ta and not tb:
        raise AscendError(f"pyasc.{op}: needs at least one AscendTensor, got {_name(a, 0)} and {_name(b, 1)}")
    for x, i in ((a, 0), (b, 1)):
        if not isinstance(x, (AscendTensor, int, float, np.integer, np.floating)) or isinstance(x, bool):
            raise AscendError(f"pyasc.{op}: {_name(x, i)} is neither an AscendTensor nor a Python number "
                              f"(operands: {_name(a, 0)} and {_name(b, 1)})")
    t = a if ta else b
    if ta and tb:
        if a.device is not b.device:
            raise AscendError(f"pyasc.{op}: operands on different devices: {_name(a, 0)} on {a.device!r}, "
                              f"{_name(b, 1)} on {b.device!r}: an operator runs on one device, so make both operands there")
        if a.dtype != b.dtype:
            r = np.result_type(a.dtype, b.dtype)
            raise DTypeError(f"pyasc.{op}: {_name(a, 0)} and {_name(b, 1)} promote to {r.name}; operators do not "
                             f"convert implicitly: pyasc.cast(t, {r.name}) the other operand (or use "
                             f"pyasc.autocast)")
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise ShapeError(f"pyasc.{op}: shapes do not broadcast: {_name(a, 0)} and {_name(b, 1)}") from None
    else:
        shape = t.shape
    dtype = t.dtype
    if dtype not in (np.dtype(np.float16), np.dtype(np.float32)):
        raise DTypeError(f"pyasc.{op}: the kernels take float16 and float32; got {_name(a, 0)} and {_name(b, 1)}")
    out = []
    for x in (a, b):
        if isinstance(x, AscendTensor):
            out.append(broadcast_to(x, shape))
        else:
            out.append(full(shape, x, dtype, device=t.device))
    return out[0], out[1], shape, dtype


def _binary(op, module, fn, a, b, pre=None, kernel_attr="ew_kernel"):
    kern = kernels.function(op, module, fn)
    a, b = autocast.operand(a), autocast.operand(b)
    if fusion.current() is not None and op in ("add", "sub", "mul"):
        r = _fused_scalar(op, a, b)
        if r is not None:
            return autocast.result(r)
    a, b, shape, dtype = _operands(op, a, b)
    if fusion.current() is not None and op in fusion.BINARY and a.size:     # div by a number: its constant tensor
        return autocast.result(fusion.record(op, a, b, out_factory=lambda: _out(shape, dtype, a)))
    lib = kernels.library(module)
    out = _out(shape, dtype, a)
    if out.size == 0:
        return out
    if pre is None:
        call = lambda **o: kern(a._flat(), b._flat(), out=out._flat(), target=out.device.target, **o)
    else:
        call = lambda **o: pre(kern, a, b, out, **o)
    launch(op, getattr(lib, kernel_attr), [a, b], [out], call)
    return autocast.result(out)      # (bf16 scope: the float32 result rounded to bf16)


def _fused_scalar(op, a, b):
    """In a fusion scope, tensor (op) Python number as one scalar instruction (adds/muls); the
    number is rounded to the tensor's dtype first, as the unfused path's constant tensor is."""
    num = (int, float, np.integer, np.floating)
    ta, tb = isinstance(a, AscendTensor), isinstance(b, AscendTensor)
    if ta == tb or isinstance(a if tb else b, bool) or not isinstance(a if tb else b, num):
        return None
    t, s = (a, b) if ta else (b, a)
    if t.dtype not in (np.dtype(np.float16), np.dtype(np.float32)) or t.size == 0:
        return None
    s = float(t.dtype.type(s))
    if op == "sub":
        fop, s = ("adds", -s) if ta else ("rsubs", s)
    else:
        fop = "adds" if op == "add" else "muls"
    return fusion.record(fop, t, scalar=s, out_factory=lambda: _out(t.shape, t.dtype, t))


def add(a, b):
    """a + b (numpy broadcasting), kernel elementwise.vadd."""
    return _binary("add", "elementwise", "vadd", a, b)


def sub(a, b):
    """a - b, kernel elementwise.axpy(-1, b, a)."""
    return _binary("sub", "elementwise", "axpy", a, b,
                   pre=lambda k, a, b, out, **o: k(-1.0, b._flat(), a._flat(), out=out._flat(),
                                                      target=out.device.target, **o))


def mul(a, b):
    """a * b, kernel elementwise.vmul."""
    return _binary("mul", "elementwise", "vmul", a, b)


def div(a, b):
    """a / b, kernel elementwise_ext.vdiv."""
    return _binary("div", "elementwise_ext", "vdiv", a, b, kernel_attr="ext_kernel")


def _unary(op, module, fn, x, kernel_attr="ew_kernel", **kw):
    kern = kernels.function(op, module, fn)
    x = autocast.operand(_tensor(op, x))
    lib = kernels.library(module)
    if x.dtype not in (np.dtype(np.float16), np.dtype(np.float32)):
        raise DTypeError(f"pyasc.{op}: the kernel takes float16 and float32; got x ({_desc(x)})")
    x = x.contiguous()
    if fusion.current() is not None and op in fusion.UNARY and x.size:
        return autocast.result(fusion.record(op, x, out_factory=lambda: _out(x.shape, x.dtype, x)))
    out = _out(x.shape, x.dtype, x)
    if out.size == 0:
        return autocast.result(out)
    launch(op, getattr(lib, kernel_attr), [x], [out],
           lambda **o: kern(x._flat().reshape(x.shape), out=out._flat(), target=x.device.target, **kw, **o))
    return autocast.result(out)


def relu(x):
    return _unary("relu", "elementwise", "relu", x)


def sigmoid(x):
    return _unary("sigmoid", "elementwise", "sigmoid", x)


def tanh(x):
    return _unary("tanh", "elementwise", "tanh", x)


def gelu(x):
    """GELU, tanh approximation (the library kernel's; torch gelu(approximate='tanh'))."""
    return _unary("gelu", "elementwise", "gelu", x)


def erf(x):
    """The error function, kernel elementwise_ext.erf (A&S 7.1.26 in float32)."""
    return _unary("erf", "elementwise_ext", "erf", x, kernel_attr="ext_kernel")


def softmax(x, dim=-1):
    """Softmax over the last axis (kernel softmax.softmax); other axes have no kernel."""
    x = _tensor("softmax", x)
    if dim not in (-1, x.ndim - 1):
        raise KernelNotFound(f"pyasc.softmax: the kernel library's softmax works on the last axis; "
                             f"dim={dim} of x ({_desc(x)}) has no kernel")
    return _unary("softmax", "softmax", "softmax", x, kernel_attr="softmax_kernel_off")


def _norm(op, fn, x, gamma, beta, eps):
    x = autocast.operand(_tensor(op, x))
    gamma, beta = autocast.operand(gamma), autocast.operand(beta)
    if x.dtype not in (np.dtype(np.float16), np.dtype(np.float32)) or bf16.is_bf16(x.dtype):
        raise DTypeError(f"pyasc.{op}: the kernel takes float16 and float32; got x ({_desc(x)})")
    w = x.shape[-1] if x.ndim else 0
    gamma = gamma if gamma is not None else full((w,), 1.0, x.dtype, device=x.device)
    args = [gamma]
    if fn == "layernorm":
        beta = beta if beta is not None else full((w,), 0.0, x.dtype, device=x.device)
        args.append(beta)
    for v, what in zip(args, ("gamma", "beta")):
        v = _tensor(op, v, what)
        if v.dtype != x.dtype or v.shape != (w,):
            raise ShapeError(f"pyasc.{op}: {what} ({_desc(v)}) must be a ({w},) vector of x's dtype; "
                             f"x is {_desc(x)}")
    kern = kernels.function(op, "norm", fn)
    lib = kernels.library("norm")
    x = x.contiguous()
    args = [v.contiguous() for v in args]
    out = _out(x.shape, x.dtype, x)
    if out.size == 0:
        return out
    launch(op, lib.norm_kernel, [x] + args, [out],
           lambda **o: kern(x._flat().reshape(x.shape), *[v._flat() for v in args], eps=eps, out=out._flat(),
                        target=x.device.target, **o))
    return autocast.result(out)


def layernorm(x, gamma=None, beta=None, eps=1e-5):
    """Layer norm over the last axis (kernel norm.layernorm); gamma/beta default to 1 and 0."""
    return _norm("layernorm", "layernorm", x, gamma, beta, eps)


layer_norm = layernorm


def rmsnorm(x, gamma=None, eps=1e-6):
    return _norm("rmsnorm", "rmsnorm", x, gamma, None, eps)


def matmul(a, b):
    """a @ b, float16 in, float32 out: matmul_cube.matmul for its one shape (its module constants
    M, K, N, 256 each), the hand-tiled matmul.matmul (any M, N, K >= 1) for the others; float32
    operands have no kernel (KernelNotFound; pyasc.autocast runs them in float16 or bfloat16)."""
    a, b = _tensor("matmul", a, "a"), _tensor("matmul", b, "b")
    if autocast.is_bf16():
        return _matmul_bf16(a, b)
    a, b = autocast.operand(a), autocast.operand(b)
    kern = kernels.function("matmul", "matmul_cube", "matmul")
    lib = kernels.library("matmul_cube")
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ShapeError(f"pyasc.matmul: shapes do not multiply: a ({_desc(a)}) and b ({_desc(b)})")
    if a.dtype != b.dtype:
        raise DTypeError(f"pyasc.matmul: a ({_desc(a)}) and b ({_desc(b)}) differ in dtype")
    want = ((lib.M, lib.K), (lib.K, lib.N), np.dtype(np.float16))
    if (a.shape, b.shape, a.dtype) != want and a.dtype == np.dtype(np.float16) and not bf16.is_bf16(b.dtype):
        return autocast.result(_matmul_tiled(a, b))
    if (a.shape, b.shape, a.dtype) != want:
        raise KernelNotFound(f"pyasc.matmul: no kernel for a ({_desc(a)}) @ b ({_desc(b)}): the kernel "
                             f"library's matmuls (kernels/pyasc/matmul_cube.py, matmul.py) take float16 (or, in "
                             f"autocast(dtype=bfloat16), bf16) operands")
    a, b = a.contiguous(), b.contiguous()
    out = _out((lib.M, lib.N), np.float32, a)
    launch("matmul", kern, [a, b], [out],
           lambda **o: kern[lib.M // lib.MT](a._flat(), b._flat(), out._flat(), **o))
    return autocast.result(out)


def _matmul_bf16(a, b):
    """a @ b inside autocast(dtype=bfloat16): bf16 operands (float32 ones rounded on the device)
    on the cube, float32 accumulation, the hand-tiled matmul.matmul (any M, N, K), the float32
    result rounded to bf16 once."""
    a, b = autocast.cube_operand(a), autocast.cube_operand(b)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ShapeError(f"pyasc.matmul: shapes do not multiply: a ({_desc(a)}) and b ({_desc(b)})")
    if not (bf16.is_bf16(a.dtype) and bf16.is_bf16(b.dtype)):
        raise DTypeError(f"pyasc.matmul: inside autocast(dtype=bfloat16) a and b must be float32 or bfloat16; "
                         f"got a ({_desc(a)}) and b ({_desc(b)})")
    return autocast.result(_matmul_tiled(a, b))


def _matmul_tiled(a, b):
    """a @ b (2-D, same dtype: float16, or bf16 bits) by matmul.matmul -> float32."""
    if a.device is not b.device:
        raise AscendError(f"pyasc.matmul: operands on different devices: a ({_desc(a)}), b ({_desc(b)})")
    kern = kernels.function("matmul", "matmul", "matmul")
    lib = kernels.library("matmul")
    a, b = a.contiguous(), b.contiguous()
    if 0 in a.shape or 0 in b.shape:
        raise ShapeError(f"pyasc.matmul: the kernel (kernels/pyasc/matmul.py) needs M, N, K >= 1; got a ({_desc(a)}) "
                         f"and b ({_desc(b)})")
    out = _out((a.shape[0], b.shape[1]), np.float32, a)
    host = np.uint16 if bf16.is_bf16(a.dtype) else np.float16      # matmul.py: uint16 arrays are bf16 bits
    if out.size:
        launch("matmul", lib.matmul_kernel, [a, b], [out],
               lambda **o: kern(a._flat().view(host).reshape(a.shape), b._flat().view(host).reshape(b.shape),
                                target=a.device.target, out=out._flat(), **o))
    return out


mm = matmul


from .nn import avg_pool2d, batch_norm, cast, conv2d, max_pool2d  # noqa: E402,F401  (pyasc.host.nn)


# ---- custom operators ------------------------------------------------------------------------
def register_op(name):
    """@pyasc.register_op("CustomGeLU") on a function of pyasc operators, with or without a
    leading `ctx` parameter (the seed documents' form); then pyasc.ops.CustomGeLU(x).  The
    function runs eagerly: every pyasc operator it calls launches its kernel."""
    import inspect

    def deco(fn):
        if not name.isidentifier():
            raise AscendError(f"register_op: {name!r} is not an identifier")
        if name in globals() and name not in _custom:
            raise AscendError(f"register_op: {name!r} is a built-in operator")
        params = list(inspect.signature(fn).parameters)
        takes_ctx = bool(params) and params[0] == "ctx"

        def op(*args, **kwargs):
            log.debug("custom op %s", name)
            return fn(OpContext(name), *args, **kwargs) if takes_ctx else fn(*args, **kwargs)
        op.__name__ = name
        op.__doc__ = fn.__doc__
        op.__wrapped__ = fn
        _custom[name] = op
        globals()[name] = op
        return fn
    return deco


class OpContext:
    def __init__(self, name):
        self.name = name
