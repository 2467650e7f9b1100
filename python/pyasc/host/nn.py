"""Eager neural-network operators of the host runtime: conv2d, batch_norm, cast, max_pool2d,
avg_pool2d (docs/pyasc.md "Host runtime"; exported as pyasc.ops.* and pyasc.*).

Users: pyasc.host.ops (which re-exports them), tests/python/test_host_nn.py.
Kernels (kernels/pyasc, found by pyasc.host.kernels; nothing is computed on the host):
  conv2d     -> conv2d.img2col_kernel (one launch: the column matrix in a device workspace
                tensor) + matmul.matmul (one cube launch per image, written into the result);
                x NCHW float16, w OIHW float16, result float32 (the library's contract);
                bias is added by a broadcast add (elementwise.vadd through pyasc.add) to the
                float32 result, also in an autocast scope (then rounded once: the cube adds
                the bias in L0C's float32 before the fixpipe conversion).
                In autocast(dtype=bfloat16): bf16 x and w (img2col moves 16-bit patterns,
                matmul.matmul takes uint16 as bf16 bits), the result rounded to bf16 once
                (pyasc.host.amp).
  batch_norm -> batchnorm.bn_kernel (inference form: running mean/var, affine gamma/beta;
                float32 statistics; result in x's dtype or `out_dtype`).  training=True needs
                a batch-statistics kernel the library does not have (KernelNotFound).
  cast       -> cast.cast_kernel (float32 <-> float16); inside pyasc.fuse() a node of the
                fused kernel (the same vconv), bf16 conversions always launch.
  max_pool2d / avg_pool2d -> the runtime's gather kernel (kernels.gather) builds, per window
                position (i, j) of the k x k window, the tensor of the elements under it
                (index tables from shapes: layout metadata), from a copy of x with a padding
                row holding the pad value (-inf for max, 0 for avg, count_include_pad=True as
                torch's default); then one fused kernel (pyasc.host.fusion) reduces the k*k
                tensors: max for max_pool2d, sum * (1/k^2) for avg_pool2d.
"""
import numpy as np

from . import amp as autocast, bf16, fusion, kernels, ops
from .errors import AscendError, DTypeError, KernelNotFound, ShapeError
from .tensor import AscendTensor, full

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _int(op, what, v, lo):
    if isinstance(v, (tuple, list)) and len(v) == 2 and v[0] == v[1]:
        v = v[0]
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < lo:
        raise ShapeError(f"pyasc.{op}: {what} must be an int >= {lo} (or a pair of equal ints), got {v!r}")
    return int(v)


def cast(x, dtype):
    """x converted to dtype (float32 <-> float16, RNE), kernel cast.cast_kernel."""
    x = ops._tensor("cast", x)
    if bf16.is_bf16_name(dtype) or bf16.is_bf16(x.dtype):
        return _cast_bf16(x, dtype)
    dt = np.dtype(dtype)
    if dt == x.dtype:
        return x
    if x.dtype not in (_F16, _F32) or dt not in (_F16, _F32):
        raise DTypeError(f"pyasc.cast: converts float16 <-> float32; got x ({ops._desc(x)}) -> {dt.name}")
    kern = kernels.function("cast", "cast", "cast")
    lib = kernels.library("cast")
    x = x.contiguous()
    if fusion.current() is not None and x.size:     # joins the fusion scope (cast_kernel's vconv)
        return fusion.record("cast", x, out_factory=lambda: ops._out(x.shape, dt, x))
    out = ops._out(x.shape, dt, x)
    if out.size:
        ops.launch("cast", lib.cast_kernel, [x], [out],
                   lambda **o: kern(x._flat(), dt, target=x.device.target, out=out._flat(), **o))
    return out


def _cast_bf16(x, dtype):
    """float32 <-> bfloat16 (uint16 bits, pyasc.host.bf16), kernel cast.cast_bf16_kernel (RNE)."""
    to = bf16.is_bf16_name(dtype)
    if to == bf16.is_bf16(x.dtype):
        return x
    dt = bf16.DTYPE if to else np.dtype(dtype)
    if (to and x.dtype != _F32) or (not to and dt != _F32):
        raise DTypeError(f"pyasc.cast: bfloat16 converts to and from float32 only; got x ({ops._desc(x)}) -> "
                         f"{'bfloat16' if to else dt.name}")
    kern = kernels.function("cast", "cast", "cast_bf16")
    lib = kernels.library("cast")
    x = x.contiguous()
    out = ops._out(x.shape, dt, x)
    if out.size:
        ops.launch("cast", lib.cast_bf16_kernel, [x], [out],
                   lambda **o: kern(x._flat().view(np.uint16) if not to else x._flat(), to, target=x.device.target,
                                    out=out._flat().view(np.uint16) if to else out._flat(), **o))
    return out


def conv2d(x, w, stride=1, padding=0, bias=None):
    """2-D convolution, NCHW float16 x, OIHW float16 w -> NCHW float32 (see the module docstring)."""
    x, w = ops._tensor("conv2d", x, "x"), ops._tensor("conv2d", w, "w")
    bfs = autocast.is_bf16()
    if bfs:                   # bf16 operands on the cube (float32 ones rounded on the device), f32 accumulation
        x, w = autocast.cube_operand(x), autocast.cube_operand(w)
        if not (bf16.is_bf16(x.dtype) and bf16.is_bf16(w.dtype)):
            raise DTypeError(f"pyasc.conv2d: inside autocast(dtype=bfloat16) x and w must be float32 or bfloat16; "
                             f"got x ({ops._desc(x)}) and w ({ops._desc(w)})")
    else:
        x, w = autocast.operand(x), autocast.operand(w)
    stride = _int("conv2d", "stride", stride, 1)
    padding = _int("conv2d", "padding", padding, 0)
    lib = kernels.library("conv2d")
    mm = kernels.library("matmul")
    kernels.function("conv2d", "conv2d", "img2col_kernel")
    if x.ndim != 4 or w.ndim != 4:
        raise ShapeError(f"pyasc.conv2d: x ({ops._desc(x)}) must be NCHW and w ({ops._desc(w)}) OIHW (4-D both)")
    if x.shape[1] != w.shape[1]:
        raise ShapeError(f"pyasc.conv2d: input channels differ: x ({ops._desc(x)}) has C={x.shape[1]}, "
                         f"w ({ops._desc(w)}) has I={w.shape[1]}")
    if not bfs and (x.dtype != _F16 or w.dtype != _F16 or bf16.is_bf16(x.dtype) or bf16.is_bf16(w.dtype)):
        raise DTypeError(f"pyasc.conv2d: the kernel (kernels/pyasc/conv2d.py) takes float16 x and w; got "
                         f"x ({ops._desc(x)}) and w ({ops._desc(w)}) (pyasc.cast them, or use pyasc.autocast)")
    if x.device is not w.device:
        raise AscendError(f"pyasc.conv2d: x on {x.device}, w on {w.device}: the operands of an operator must be on "
                          f"one device")
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    _, _, oh, ow = lib.out_shape(x.shape, w.shape, stride, padding)
    if oh < 1 or ow < 1 or 0 in x.shape or 0 in w.shape:
        raise ShapeError(f"pyasc.conv2d: kernel {kh}x{kw} does not fit x ({ops._desc(x)}) padded by {padding}")
    x, w = x.contiguous(), w.contiguous()
    k, npix = c * kh * kw, oh * ow
    col = ops._out((n * k * npix,), bf16.DTYPE if bfs else _F16, x)   # the img2col workspace, on the device
    host = np.uint16 if bfs else np.float16       # img2col moves 16-bit patterns; matmul.py: uint16 = bf16 bits
    out = ops._out((n, o, oh, ow), _F32, x)
    tgt = x.device.target

    i2c = lib.img2col_kernel_for(x.shape, kh, kw, stride, padding, tgt)
    ops.launch("conv2d.img2col", i2c, [x], [col],
               lambda **opt: lib.img2col(x._flat().view(host).reshape(x.shape), col._flat().view(host), kh, kw,
                                         stride, padding, target=tgt, **opt))
    w2 = w._flat().view(host).reshape(o, k)
    for b in range(n):
        colb = col._flat().view(host).reshape(n, k, npix)[b]
        ops.launch("conv2d.matmul", mm.matmul_kernel, [col, w], [out],
                   lambda b=b, colb=colb, **opt: mm.matmul(w2, colb, target=tgt, out=out._flat(),
                                                           out_offset=b * o * npix, **opt))
    if bias is not None:
        bias = ops._tensor("conv2d", bias, "bias")
        if bias.shape != (o,) or bias.dtype != _F32:
            raise ShapeError(f"pyasc.conv2d: bias ({ops._desc(bias)}) must be a ({o},) float32 vector")
        # The bias is added to the float32 result before any rounding, in every autocast scope
        # (float16 and bf16 alike; the scope is suspended so pyasc.add does not round its operands
        # to 16 bits first), then autocast.result rounds once.  That is what the cube does: the
        # bias sits in the bias table in L0C's float32 type and initialises the accumulator
        # (asc-devkit impl/adv_api/detail/matmul/resource/bias_buffer/c2_buffer/c2_buffer.h:
        # LocalTensor<L0cT> in TPosition::C2; mmad's cmatrixSource), and the fixpipe converts
        # the float32 sum to float16/bf16 on the way out of L0C.
        with autocast.autocast(enabled=False):
            out = ops.add(out, bias.reshape(1, o, 1, 1))
    return autocast.result(out)


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5, out_dtype=None):
    """Inference batch norm over axis 1 (torch.nn.functional.batch_norm's argument order)."""
    x = autocast.operand(ops._tensor("batch_norm", x))
    if training:
        raise KernelNotFound("pyasc.batch_norm: training=True needs batch statistics; the kernel library's "
                             "kernels/pyasc/batchnorm.py normalises with running statistics only")
    if x.ndim < 2:
        raise ShapeError(f"pyasc.batch_norm: x ({ops._desc(x)}) needs a channel axis (N, C, ...)")
    c = x.shape[1]
    ps = []
    for v, what, dflt in ((running_mean, "running_mean", None), (running_var, "running_var", None),
                          (weight, "weight", 1.0), (bias, "bias", 0.0)):
        if v is None and dflt is not None:
            v = full((c,), dflt, _F32, device=x.device)
        v = ops._tensor("batch_norm", v, what)
        if v.shape != (c,) or v.dtype != _F32:
            raise ShapeError(f"pyasc.batch_norm: {what} ({ops._desc(v)}) must be a ({c},) float32 vector; "
                             f"x is {ops._desc(x)}")
        ps.append(v.contiguous())
    # bf16 (the scope with a float32 x, or out_dtype=bfloat16): float32 compute, one rounding at the end
    to_bf16 = (autocast.is_bf16() and x.dtype == _F32) if out_dtype is None else bf16.is_bf16_name(out_dtype)
    yd = _F32 if to_bf16 else (np.dtype(out_dtype) if out_dtype is not None else x.dtype)
    if x.dtype not in (_F16, _F32) or bf16.is_bf16(x.dtype) or yd not in (_F16, _F32):
        raise DTypeError(f"pyasc.batch_norm: the kernel takes and gives float16/float32; got x ({ops._desc(x)}) "
                         f"-> {yd.name}")
    kern = kernels.function("batch_norm", "batchnorm", "batch_norm")
    lib = kernels.library("batchnorm")
    x = x.contiguous()
    out = ops._out(x.shape, yd, x)
    if out.size:
        ops.launch("batch_norm", lib.bn_kernel, [x] + ps, [out],
                   lambda **o: kern(x._flat().reshape(x.shape), *[p._flat() for p in ps], eps=eps, out_dtype=yd,
                                    target=x.device.target, out=out._flat(), **o))
    if to_bf16:
        return cast(out, bf16.DTYPE)
    return out


# ---- pooling ---------------------------------------------------------------------------------
def _pool(op, x, kernel_size, stride, padding):
    x = autocast.operand(ops._tensor(op, x))     # f16 scope: float32 -> float16; bf16: float32 of bf16 values
    k = _int(op, "kernel_size", kernel_size, 1)
    s = k if stride is None else _int(op, "stride", stride, 1)
    p = _int(op, "padding", padding, 0)
    if x.ndim != 4:
        raise ShapeError(f"pyasc.{op}: x ({ops._desc(x)}) must be NCHW")
    if x.dtype not in (_F16, _F32):
        raise DTypeError(f"pyasc.{op}: float16/float32 only; got x ({ops._desc(x)})")
    if p > k // 2:
        raise ShapeError(f"pyasc.{op}: padding {p} must be at most half the kernel size {k} (torch's rule)")
    n, c, h, w = x.shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    if oh < 1 or ow < 1:
        raise ShapeError(f"pyasc.{op}: window {k}x{k} does not fit x ({ops._desc(x)}) padded by {p}")
    return x.contiguous(), k, s, p, (n, c, oh, ow)


def _windows(x, k, s, p, shape, pad_value):
    """The k*k tensors of the elements under each window position, gathered on the device from
    x followed by one element holding pad_value (which the padding positions index)."""
    n, c, h, w = x.shape
    _, _, oh, ow = shape
    it = x.dtype.itemsize
    ext = ops._out((x.size + 1,), x.dtype, x)                  # x, then the pad element
    padv = full((1,), pad_value, x.dtype, device=x.device)
    idx_copy = np.concatenate([np.arange(x.size, dtype=np.int64), [x.size]])
    # ext = [x..., pad]: one gather from a source that is x and the pad element side by side is not
    # possible (two allocations), so copy x then the pad element, each with the gather kernel
    ops.launch("pool.copy", kernels.gather_kernel, [x], [ext],
               lambda **o: kernels.gather(x._alloc.buf[x._offset:], it, idx_copy[:-1],
                                          ext._flat()[:x.size].view(np.uint8), **o))
    ops.launch("pool.pad", kernels.gather_kernel, [padv], [ext],
               lambda **o: kernels.gather(padv._alloc.buf[padv._offset:], it, np.zeros(1, np.int64),
                                          ext._flat()[x.size:].view(np.uint8), **o))
    base = (np.arange(n)[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * (h * w)
    outs = []
    for i in range(k):
        for j in range(k):
            ih = np.arange(oh) * s + i - p
            iw = np.arange(ow) * s + j - p
            ok = (ih[:, None] >= 0) & (ih[:, None] < h) & (iw[None, :] >= 0) & (iw[None, :] < w)
            pos = np.where(ok, ih[:, None] * w + iw[None, :], -1)
            idx = np.where(pos[None, None] >= 0, base + pos[None, None], x.size).reshape(-1)
            t = ops._out(shape, x.dtype, x)
            ops.launch("pool.window", kernels.gather_kernel, [ext], [t],
                       lambda idx=idx, t=t, **o: kernels.gather(ext._flat().view(np.uint8), it, idx,
                                                                t._flat().view(np.uint8), **o))
            outs.append(t)
    return outs


def max_pool2d(x, kernel_size, stride=None, padding=0):
    """Max over k x k windows (stride defaults to k; padding counts as -inf)."""
    x, k, s, p, shape = _pool("max_pool2d", x, kernel_size, stride, padding)
    with autocast.autocast(enabled=False):
        ws = _windows(x, k, s, p, shape, -np.inf)
        with fusion.fuse():
            acc = ws[0]
            for t in ws[1:]:
                acc = fusion.record("max", acc, t, out_factory=lambda: ops._out(shape, x.dtype, x))
    return autocast.result(acc)            # bf16 scope: the float32 result rounded once (exact for max)


def avg_pool2d(x, kernel_size, stride=None, padding=0):
    """Mean over k x k windows (padding counts as 0 and is included in the count, as torch's default)."""
    x, k, s, p, shape = _pool("avg_pool2d", x, kernel_size, stride, padding)
    with autocast.autocast(enabled=False):       # the sum in x's dtype (float32 in a bf16 scope), no per-add rounding
        ws = _windows(x, k, s, p, shape, 0.0)
        with fusion.fuse():
            acc = ws[0]
            for t in ws[1:]:
                acc = ops.add(acc, t)
            acc = ops.mul(acc, 1.0 / (k * k))
    return autocast.result(acc)            # bf16 scope: rounded to bf16 once
