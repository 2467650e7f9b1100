"""The kernel-language functions (asc.add, asc.data_copy, asc.set_flag, asc.mmad, ...).

Users: kernels, evaluated by the compiler frontend, which calls these functions with compile-time
objects and run-time RVals, passing the compilation's Builder as the keyword `_b` (every
function here is an `intrinsic`, marked `_asc_builder` for compiler.frontend).  Each one checks its operands (dtype,
position, forms) and emits one machine-level IR op (`vec`, `dma`, `load2d`, `mmad`, `fix`,
`set_flag`, ...) with the accesses it makes, so later passes can place buffers, insert sync and
lower masks.  Calling any of them outside @asc.jit raises.

Call forms follow real pyasc / Ascend C: the count form `asc.add(dst, a, b, count)` and the
level-0 form `asc.add(dst, a, b, mask=..., repeat_times=..., repeat_params=...)`.
"""
from __future__ import annotations

import builtins as _bi
import enum as _enum
import functools

from ..compiler import ir, isa, targets
from ..compiler.builder import RVal, is_static
from ..compiler.errors import NeedUnroll
from . import dtype as dt
from .enums import CMP_ISA, PIPE_ISA, RND_ISA, HardEvent, PipeID, TPosition, event_pipes
from .tensor import GlobalTensor, LocalTensor, _outside_jit, tensor_type_name
from .types import (BinaryRepeatParams, BrcbRepeatParams, CopyRepeatParams, DataCopyExtParams, DataCopyParams,
                    Nd2NzParams,
                    DataCopyPadExtParams, DataCopyPadParams, FixpipeParamsV220,
                    LoadData2DParams, MmadParams, UnaryRepeatParams)


def intrinsic(fn):
    """A kernel-language function: the frontend calls it with `_b=` the compilation's Builder
    (the `_asc_builder` mark); called from plain Python it raises."""
    @functools.wraps(fn)
    def wrapper(*args, _b=None, **kwargs):
        if _b is None:
            raise _outside_jit()
        return fn(*args, _b=_b, **kwargs)
    wrapper.__asc_intrinsic__ = True
    wrapper._asc_builder = True
    return wrapper


def _need_local(b, name, t, what="operand"):
    if not isinstance(t, LocalTensor):
        raise b.error(f"asc.{name}: {what} must be a LocalTensor, got {tensor_type_name(t)}")
    if t.buf != "UB":
        raise b.error(f"asc.{name}: vector operands must be in UB (VECIN/VECOUT/VECCALC), "
                   f"got a {t.pos.name} tensor")


def _suffix(b, name, base, dtype, allowed=None):
    vs = isa.variants(base)
    s = dtype.isa
    if allowed:
        s = allowed(dtype)
    if s not in vs:
        raise b.error(f"asc.{name} on {dtype.name} is not supported by the asc ISA "
                   f"({base} exists for {', '.join(vs)})")
    return f"{base}.{s}"


def _by_size(prefix):
    return lambda d: f"{prefix}{d.sizeof() * 8}"


def _u_by_size(d):
    return f"u{d.sizeof() * 8}"


def _int_arg(b, what, x):
    """x, checked to be an integer (a Python int or a run-time integer): a float or bool count,
    repeat or stride is an error at the call, never silently truncated."""
    if isinstance(x, RVal):
        if x.ty != "i64":
            raise b.error(f"{what} must be an integer, got a run-time float")
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        b.operand(x)   # 64-bit range
        return x
    got = f"{type(x).__name__} {x!r}" if isinstance(x, (bool, float)) else tensor_type_name(x)
    raise b.error(f"{what} must be an integer, got {got}")


def _mask_spec(b, mask, dtype):
    """IR mask of the normal-mode `mask` argument: an element count or [mask0, mask1] bits."""
    if isinstance(mask, (list, tuple)):
        vals = list(mask) + [0] * (2 - len(mask))
        return ("norm", b.operand(vals[0]), b.operand(vals[1]))
    if not is_static(mask) or isinstance(mask, float):
        raise b.error("a continuous mask must be a compile-time integer (use the count form for "
                   "run-time lengths)")
    lanes = 256 // dtype.sizeof()
    if not 1 <= mask <= lanes:
        raise b.error(f"continuous mask must be in [1, {lanes}] for {dtype.name}, got {mask}")
    m0 = (1 << _bi.min(mask, 64)) - 1
    m1 = (1 << (mask - 64)) - 1 if mask > 64 else 0
    return ("norm", ir.Const(_s64(m0)), ir.Const(_s64(m1)))


def _s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _cfgval(b, x):
    if isinstance(x, RVal):
        return x.v
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        b.operand(x)   # 64-bit range
        return x
    got = f"float {x!r}" if isinstance(x, float) else type(x).__name__
    raise b.error(f"repeat/stride parameters must be integers, got {got}")


def _span(repeat, blk, rep, nblk=8):
    if all(is_static(v) for v in (repeat, blk, rep)) and repeat >= 1:
        return ((repeat - 1) * rep + (nblk - 1) * blk + 1) * 32
    return None


def _emit_vec(b, pyname, mnem, dst, srcs, count=None, mask=None, repeat_times=1, blk=(1, 1, 1), rep=(8, 8, 8),
              scalar=None, extra=None, dst_dtype=None, args_override=None, dst_bytes=None, src_bytes=None,
              reads_dst=False):
    b.uses_vector = True
    elem = (dst_dtype or dst.dtype).sizeof()
    if count is not None:
        _int_arg(b, f"asc.{pyname}: count", count)
        if is_static(count) and count <= 0:
            raise b.error(f"asc.{pyname}: count must be positive, got {count}")
        cfg = {"repeat": [1], "blk": [1, 1, 1], "rep": [8, 8, 8]}
        if blk != (1, 1, 1) or rep != (8, 8, 8):
            cfg["blk"], cfg["rep"] = [_cfgval(b, v) for v in blk], [_cfgval(b, v) for v in rep]
        m = ("count", b.operand(count))
        nb = [count * t.dtype.sizeof() if is_static(count) else None for t in [dst] + srcs]
    else:
        _int_arg(b, f"asc.{pyname}: repeat_times", repeat_times)
        if is_static(repeat_times) and not 0 <= repeat_times <= 255:
            raise b.error(f"asc.{pyname}: repeat_times must be in [0, 255], got {repeat_times}")
        cfg = {"repeat": [_cfgval(b, repeat_times)], "blk": [_cfgval(b, v) for v in blk],
               "rep": [_cfgval(b, v) for v in rep]}
        m = _mask_spec(b, mask, dst_dtype or dst.dtype)
        nb = [_span(repeat_times, blk[i] if i < len(blk) else 1, rep[i] if i < len(rep) else 8)
              for i in range(1 + len(srcs))]
    if dst_bytes is not None:
        nb[0] = dst_bytes
    if src_bytes is not None:
        nb[1:] = [src_bytes] * len(srcs)
    args = [b.operand(dst.addr)] + [b.operand(s.addr) for s in srcs]
    if scalar is not None:
        args.append(b.operand(scalar))
    if args_override is not None:
        args = args_override
    attrs = {"mnem": mnem, "pipe": "v", "layout": "VEC", "cfg": cfg, "mask": m}
    if extra:
        attrs.update(extra)
    reads = [s.access(nb[i + 1]) for i, s in enumerate(srcs)]
    if reads_dst:
        reads.append(dst.access(nb[0]))
    op = ir.Op("vec", None, args, attrs, reads=reads, writes=[dst.access(nb[0])])
    b.emit(op)
    return op


def _split_form(b, name, rest, kwargs, params_cls):
    """(count, mask, repeat_times, params) from the trailing arguments of a vector call."""
    count = kwargs.pop("count", None)
    mask = kwargs.pop("mask", None)
    repeat_times = kwargs.pop("repeat_times", kwargs.pop("repeat_time", None))
    params = kwargs.pop("repeat_params", kwargs.pop("params", None))
    _set_mask_flag(b, name, kwargs)
    if kwargs:
        raise b.error(f"asc.{name}: unexpected keyword argument(s) {', '.join(kwargs)}")
    rest = list(rest)
    if (len(rest) == 4 or (len(rest) == 2 and count is None and mask is None)) and isinstance(rest[-1], bool):
        _set_mask_flag(b, name, {"is_set_mask": rest.pop()})   # positional is_set_mask of either form
    if count is None and mask is None and len(rest) == 1:
        count = rest.pop(0)
    elif rest:
        if mask is None:
            mask = rest.pop(0)
        if rest and repeat_times is None:
            repeat_times = rest.pop(0)
        if rest and params is None:
            params = rest.pop(0)
        if rest:
            raise b.error(f"asc.{name}: too many arguments")
    if count is not None:
        return count, None, None, None
    if mask is None:
        raise b.error(f"asc.{name}: give either a count or mask/repeat_times/repeat_params")
    if repeat_times is None:
        repeat_times = 1
    if params is None:
        params = params_cls()
    if not isinstance(params, params_cls):
        raise b.error(f"asc.{name}: repeat_params must be {params_cls.__name__}, got {type(params).__name__}")
    return None, mask, repeat_times, params


def _set_mask_flag(b, name, kwargs):
    """Real pyasc's trailing `is_set_mask` (Ascend C isSetMask): True (the default) lets the op
    set its mask; False means the kernel set it with set_vector_mask.  The lower pass already
    writes the mask registers only when they change, so both fold to the same code; the value
    must be a literal bool as in real pyasc."""
    v = kwargs.pop("is_set_mask", True)
    if v not in (True, False):
        raise b.error(f"asc.{name}: is_set_mask must be a literal True or False, got {'a run-time ' + tensor_type_name(v) if isinstance(v, RVal) else repr(v)}")


def _same_dtype(b, name, *ts):
    for t in ts[1:]:
        if t.dtype is not ts[0].dtype:
            raise b.error(f"Cannot infer dtype for operation '{name}' between '{tensor_type_name(ts[0])}' "
                       f"and '{tensor_type_name(t)}'")


def _static_off(t):
    """(buffer key, byte offset) of a LocalTensor whose address is known at compile time, else None."""
    if isinstance(t.addr, ir.Sym):
        return ((t.buf, t.addr.kind, t.addr.key), t.addr.offset) if is_static(t.addr.offset) else None
    if is_static(t.addr) and not isinstance(t.addr, bool):
        return ((t.buf, "static"), t.addr)
    return None


def _blocks(off, count, elem, repeat, blk, rep):
    """Byte ranges an operand at byte `off` touches: one range in the count form; its 32-byte
    blocks (repeat by repeat, 8 per repeat) in the level-0 form."""
    if count is not None:
        return [(off, off + count * elem)]
    return [(off + (r * rep + j * blk) * 32, off + (r * rep + j * blk) * 32 + 32) for r in _bi.range(repeat) for j in _bi.range(8)]


def _overlap_check(b, name, dst, srcs, count=None, repeat=1, blk=(1, 1, 1), rep=(8, 8, 8)):
    """Warn at the kernel line when an element-wise vector op's destination overlaps a source in
    part (the same buffer, shifted): the vector unit reads and writes repeat by repeat, so a
    repeat reads what an earlier one wrote (or the other way round) and the result is not the
    element-wise one numpy gives.  The same start (in place, dst is src) is the documented use
    and is not warned.  Checked when every address, count, repeat and stride is a compile-time
    value; run-time ones are not known here."""
    vals = ([count] if count is not None else [repeat, *blk, *rep])
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals) or (count is None and repeat < 1):
        return      # run-time values, or ones _emit_vec refuses (a float repeat_times) with its message
    d = _static_off(dst)
    if d is None:
        return
    elem = dst.dtype.sizeof()
    dr = _blocks(d[1], count, elem, repeat, blk[0], rep[0])
    for i, s in enumerate(srcs):
        o = _static_off(s)
        if o is None or o[0] != d[0] or o[1] == d[1]:
            continue
        k = _bi.min(i + 1, _bi.len(blk) - 1)
        sr = _blocks(o[1], count, s.dtype.sizeof(), repeat, blk[k], rep[k])
        if _bi.any(lo < shi and slo < hi for lo, hi in dr for slo, shi in sr):
            what = "source" if len(srcs) == 1 else f"src{i}"
            dst._warn(f"asc.{name}: the destination (byte {d[1]} of its buffer) overlaps {what} (byte {o[1]}) in "
                      f"part: the vector unit reads and writes repeat by repeat, so the result is not the "
                      f"element-wise one (a repeat reads what an earlier one wrote); use separate tensors, or "
                      f"the same one (in place)")


# ---- binary ---------------------------------------------------------------------------------
def _binary(name, base, allowed=None):
    @intrinsic
    def op(dst, src0, src1, *rest, _b, **kwargs):
        b = _b
        for t in (dst, src0, src1):
            if not isinstance(t, LocalTensor):
                if t is not src1:   # dst or src0: name the operand, not a dtype pair that holds neither
                    raise b.error(f"asc.{name}: {'dst' if t is dst else 'src0'} must be a LocalTensor, "
                                  f"got {tensor_type_name(t)}")
                raise b.error(f"Cannot infer dtype for operation '{name}' between "
                              f"'{tensor_type_name(src0)}' and '{tensor_type_name(src1)}'")
            _need_local(b, name, t)
        _same_dtype(b, name, dst, src0, src1)
        mnem = _suffix(b, name, base, dst.dtype, allowed)
        count, mask, rt, p = _split_form(b, name, rest, kwargs, BinaryRepeatParams)
        if count is not None:
            _overlap_check(b, name, dst, [src0, src1], count=count)
            return _emit_vec(b, name, mnem, dst, [src0, src1], count=count)
        _overlap_check(b, name, dst, [src0, src1], repeat=rt,
                       blk=(p.dst_blk_stride, p.src0_blk_stride, p.src1_blk_stride),
                       rep=(p.dst_rep_stride, p.src0_rep_stride, p.src1_rep_stride))
        _emit_vec(b, name, mnem, dst, [src0, src1], mask=mask, repeat_times=rt,
                  blk=(p.dst_blk_stride, p.src0_blk_stride, p.src1_blk_stride),
                  rep=(p.dst_rep_stride, p.src0_rep_stride, p.src1_rep_stride))
    op.__name__ = name
    return op


def _unary(name, base, allowed=None):
    @intrinsic
    def op(dst, src, *rest, _b, **kwargs):
        b = _b
        _need_local(b, name, dst)
        _need_local(b, name, src, "source")
        _same_dtype(b, name, dst, src)
        mnem = _suffix(b, name, base, dst.dtype, allowed)
        count, mask, rt, p = _split_form(b, name, rest, kwargs, UnaryRepeatParams)
        if count is not None:
            _overlap_check(b, name, dst, [src], count=count)
            return _emit_vec(b, name, mnem, dst, [src], count=count)
        _overlap_check(b, name, dst, [src], repeat=rt, blk=(p.dst_blk_stride, p.src_blk_stride),
                       rep=(p.dst_rep_stride, p.src_rep_stride))
        _emit_vec(b, name, mnem, dst, [src], mask=mask, repeat_times=rt, blk=(p.dst_blk_stride, p.src_blk_stride),
                  rep=(p.dst_rep_stride, p.src_rep_stride))
    op.__name__ = name
    return op


def _scalar_op(name, base, reads_dst=False):
    @intrinsic
    def op(dst, src, scalar, *rest, _b, **kwargs):
        b = _b
        _need_local(b, name, dst)
        _need_local(b, name, src, "source")
        _same_dtype(b, name, dst, src)
        if isinstance(scalar, LocalTensor):
            raise b.error(f"Cannot infer dtype for operation '{name}' between '{tensor_type_name(src)}' and "
                       f"'{tensor_type_name(scalar)}' (the scalar operand must be a number)")
        mnem = _suffix(b, name, base, dst.dtype)
        scalar = _scalar_for(b, dst.dtype, scalar)
        count, mask, rt, p = _split_form(b, name, rest, kwargs, UnaryRepeatParams)
        if count is not None:
            _overlap_check(b, name, dst, [src], count=count)
            return _emit_vec(b, name, mnem, dst, [src], count=count, scalar=scalar, reads_dst=reads_dst)
        _overlap_check(b, name, dst, [src], repeat=rt, blk=(p.dst_blk_stride, p.src_blk_stride),
                       rep=(p.dst_rep_stride, p.src_rep_stride))
        _emit_vec(b, name, mnem, dst, [src], mask=mask, repeat_times=rt, scalar=scalar, reads_dst=reads_dst,
                  blk=(p.dst_blk_stride, p.src_blk_stride), rep=(p.dst_rep_stride, p.src_rep_stride))
    op.__name__ = name
    return op


def _scalar_for(b, dtype, s):
    if is_static(s):
        if dtype.is_float:
            return float(s)
        # an integer vector op's scalar is a T (Ascend C Adds/Muls/Duplicate... take `const T&`):
        # a fractional value or one that fits no T of this width (signed or unsigned bit pattern)
        # was truncated / wrapped silently (int16 adds of 70000 added 4464)
        if isinstance(s, float) and not s.is_integer():
            raise b.error(f"the scalar {s!r} of an {dtype.name} vector op is not an integer "
                          f"(it would be truncated to {int(s)})")
        v, bits = int(s), dtype.sizeof() * 8
        if not -(1 << (bits - 1)) <= v < (1 << bits):
            raise b.error(f"the scalar {v} does not fit the {dtype.name} vector op's {bits}-bit element "
                          f"(it would wrap to {v & ((1 << bits) - 1)} as bits)")
        return v
    if isinstance(s, RVal):
        if dtype.is_float and s.ty != "f32":
            raise b.error("a run-time integer cannot be the scalar of a floating-point vector op "
                       "(no int->float conversion on the scalar unit); pass a float argument")
        return s
    raise b.error(f"the scalar operand must be a number, got {tensor_type_name(s)}")


add = _binary("add", "vadd")
sub = _binary("sub", "vsub")
mul = _binary("mul", "vmul")
div = _binary("div", "vdiv")
max = _binary("max", "vmax")  # noqa: A001
min = _binary("min", "vmin")  # noqa: A001
bitwise_and = _binary("bitwise_and", "vand", _u_by_size)
bitwise_or = _binary("bitwise_or", "vor", _u_by_size)
abs = _unary("abs", "vabs")  # noqa: A001
exp = _unary("exp", "vexp")
ln = _unary("ln", "vln")
reciprocal = _unary("reciprocal", "vrec")
relu = _unary("relu", "vrelu")
rsqrt = _unary("rsqrt", "vrsqrt")
sqrt = _unary("sqrt", "vsqrt")
bitwise_not = _unary("bitwise_not", "vnot", _u_by_size)
adds = _scalar_op("adds", "vadds")
muls = _scalar_op("muls", "vmuls")
maxs = _scalar_op("maxs", "vmaxs")
mins = _scalar_op("mins", "vmins")
leaky_relu = _scalar_op("leaky_relu", "vlrelu")
# Ascend C Axpy = vaxpy: dst[i] = src[i] * scalar + dst[i], dst read (cannmirror/asc-devkit
# impl/basic_api/dav_c220/kernel_operator_vec_ternary_scalar_impl.h); f16 and f32 with dst of src's type
axpy = _scalar_op("axpy", "vaxpy", reads_dst=True)


def _unsupported(name, why):
    @intrinsic
    def op(*a, _b, **k):
        b = _b
        raise b.error(f"asc.{name} is not supported: {why}")
    op.__name__ = name
    op.__asc_rejected__ = why  # scripts/api_coverage.py counts it as rejected, not implemented
    return op


for _n in ("add_relu", "sub_relu", "fused_mul_add", "mul_add_dst"):
    globals()[_n] = _unsupported(_n, "the asc ISA has no instruction for it (see docs/pyasc.md)")


@intrinsic
def duplicate(dst, scalar, *rest, _b, **kwargs):
    b = _b
    _need_local(b, "duplicate", dst)
    mnem = _suffix(b, "duplicate", "vdup", dst.dtype)
    scalar = _scalar_for(b, dst.dtype, scalar)
    count = kwargs.pop("count", None)
    if count is None and len(rest) == 1 and not kwargs:
        count = rest[0]
    if count is not None:
        return _emit_vec(b, "duplicate", mnem, dst, [], count=count, args_override=[b.operand(dst.addr), b.operand(scalar)])
    names = ["mask", "repeat_times", "dst_blk_stride", "dst_rep_stride"]
    vals = dict(zip(names, rest))
    vals.update(kwargs)
    _emit_vec(b, "duplicate", mnem, dst, [], mask=vals.get("mask"), repeat_times=vals.get("repeat_times", 1),
              blk=(vals.get("dst_blk_stride", 1), 1, 1), rep=(vals.get("dst_rep_stride", 8), 8, 8),
              args_override=[b.operand(dst.addr), b.operand(scalar)])


def _whole_reduce(name, base):
    @intrinsic
    def op(dst, src, mask, repeat_time=1, dst_rep_stride=1, src_blk_stride=1, src_rep_stride=8,
           is_set_mask=True, *, _b, **kw):
        """Real pyasc: whole_reduce_*(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
        src_rep_stride, is_set_mask=True); `repeat_times` is accepted as well."""
        b = _b
        repeat_times = kw.pop("repeat_times", repeat_time)
        kw.pop("order", None)
        _set_mask_flag(b, name, {"is_set_mask": is_set_mask})
        if kw:
            raise b.error(f"asc.{name}: unexpected keyword argument(s) {', '.join(kw)}")
        _need_local(b, name, dst)
        _need_local(b, name, src, "source")
        _same_dtype(b, name, dst, src)
        mnem = _suffix(b, name, base, dst.dtype)
        nbd = repeat_times * dst_rep_stride * dst.dtype.sizeof() if all(map(is_static, (repeat_times, dst_rep_stride))) else None
        _emit_vec(b, name, mnem, dst, [src], mask=mask, repeat_times=repeat_times, blk=(1, src_blk_stride),
                  rep=(dst_rep_stride, src_rep_stride), dst_bytes=nbd)
    op.__name__ = name
    return op


whole_reduce_sum = _whole_reduce("whole_reduce_sum", "vcadd")
whole_reduce_max = _whole_reduce("whole_reduce_max", "vcmax")
whole_reduce_min = _whole_reduce("whole_reduce_min", "vcmin")


def _reduce(name, base):
    @intrinsic
    def op(dst, src, work, *args, _b, **kw):
        """Real pyasc reduce_*: dst[0] = reduction of src; `work` (shared_tmp_buffer) holds partial
        results.  Forms: (dst, src, work, count) and (dst, src, work, mask, repeat_time,
        src_rep_stride) with a continuous or bit mask; reduce_max/min take cal_index=False."""
        b = _b
        for t in (dst, src, work):
            _need_local(b, name, t)
        _same_dtype(b, name, dst, src, work)
        if kw.pop("cal_index", False) or (len(args) == 4 and args[3]) or (len(args) == 2 and args[1] is True):
            raise b.error(f"asc.{name}: cal_index=True (the index of the result) is not supported: "
                       f"the asc {base} has no index output")
        if "count" in kw or (len(args) in (1, 2) and "mask" not in kw):
            count = kw.pop("count") if "count" in kw else args[0]
            if kw:
                raise b.error(f"asc.{name}: unexpected keyword argument(s) {', '.join(kw)}")
            return _reduce_count(b, name, base, dst, src, work, count)
        names = ("mask", "repeat_time", "src_rep_stride")
        vals = dict(zip(names, args[:3]))
        if "repeat_times" in kw:
            kw["repeat_time"] = kw.pop("repeat_times")
        for k in names:
            if k in kw:
                vals[k] = kw.pop(k)
        if kw or set(vals) != set(names):
            raise b.error(f"asc.{name}(dst, src, shared_tmp_buffer, mask, repeat_time, src_rep_stride) or "
                       f"asc.{name}(dst, src, shared_tmp_buffer, count)")
        rt = vals["repeat_time"]
        if not is_static(rt):
            raise b.error(f"asc.{name}: repeat_time must be a compile-time integer (it sizes the second stage)")
        if not 1 <= rt <= 255:
            raise b.error(f"asc.{name}: repeat_time must be in [1, 255], got {rt}")
        mnem = _suffix(b, name, base, dst.dtype)
        first = dst if rt == 1 else work
        # stage 1: one partial per repeat (whole-reduce form), then the count form over them
        _emit_vec(b, name, mnem, first, [src], mask=vals["mask"], repeat_times=rt, blk=(1, 1),
                  rep=(1, vals["src_rep_stride"]), dst_bytes=rt * dst.dtype.sizeof())
        if rt > 1:
            b.emit(ir.Op("bar", None, [], {"pipe": "v", "bpipe": "v"}))
            _reduce_count(b, name, base, dst, work, work, rt)
    op.__name__ = name
    return op


def _reduce_count(b, name, base, dst, src, work, count):
    _int_arg(b, f"asc.{name}: count", count)
    if not is_static(count):
        raise b.error(f"asc.{name} needs a compile-time count (it expands into a static reduction tree)")
    mnem = _suffix(b, name, base, dst.dtype)
    lanes = 256 // dst.dtype.sizeof()
    cur, n = src, count
    while True:
        out = dst if n <= lanes else work
        # counter mode: vcadd reduces each 256-byte repeat of the first n elements to one value
        _emit_vec(b, name, mnem, out, [cur], count=n, blk=(1, 1, 1), rep=(1, 8, 8),
                  dst_bytes=-(-n // lanes) * dst.dtype.sizeof())
        if n <= lanes:
            break
        n = -(-n // lanes)
        cur = work
        b.emit(ir.Op("bar", None, [], {"pipe": "v", "bpipe": "v"}))


reduce_sum = _reduce("reduce_sum", "vcadd")
reduce_max = _reduce("reduce_max", "vcmax")
reduce_min = _reduce("reduce_min", "vcmin")


_CAST_SRC = "cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h"


def _cast_rnd(b, name, pair, round_mode, legal, where=None):
    """The ISA name of round_mode, which must be one the instruction takes on dav_c220 (legal: its
    isa.json "rnds", from the F_RND* flags of asc_isa.def; Ascend C CastIntrinsicsImpl asserts on the
    other RoundMode cases and converts nothing)."""
    rnd = RND_ISA.get(round_mode) if isinstance(round_mode, int) and not isinstance(round_mode, bool) else None
    if rnd is None:
        raise b.error(f"asc.{name}: round_mode must be an asc.RoundMode, got {round_mode!r}")
    if rnd not in legal:
        names = {v: k.name for k, v in RND_ISA.items()}
        raise b.error(f"asc.{name} {pair} does not take {names[rnd]} on dav_c220: it takes "
                      f"{', '.join(names[r] for r in legal)} ({where or 'Ascend C Cast, ' + _CAST_SRC})")
    return rnd


@intrinsic
def cast(dst, src, round_mode, *rest, _b, **kwargs):
    b = _b
    _need_local(b, "cast", dst)
    _need_local(b, "cast", src, "source")
    pair = f"{src.dtype.isa}.{dst.dtype.isa}"
    mnem = f"vconv.{pair}"
    if isa.has(mnem):
        legal, extra = isa.rnds(mnem), {}
    elif isa.cvps().get(pair, {}).get("op") == "vconv.x" and pair == "{src}.{dst}".format(**isa.cvps()[pair]):
        mnem, legal, extra = "vconv.x", isa.cvps()[pair]["rnds"], {"cvp": pair}
    else:
        have = ", ".join(v.replace(".", "->") for v in isa.variants("vconv") if v != "x")
        have += "".join(f", {k.replace('.', '->')}" for k, v in isa.cvps().items()
                        if v["op"] == "vconv.x" and k == f"{v['src']}.{v['dst']}")     # not CastDequant's
        raise b.error(f"asc.cast from {src.dtype.name} to {dst.dtype.name} is not supported by the asc ISA "
                   f"(vconv has {have})")
    extra["rnd"] = _cast_rnd(b, "cast", f"from {src.dtype.name} to {dst.dtype.name}", round_mode, legal)
    count, mask, rt, p = _split_form(b, "cast", rest, kwargs, UnaryRepeatParams)
    big = dst.dtype if dst.dtype.sizeof() >= src.dtype.sizeof() else src.dtype
    if count is not None:
        lanes = 256 // big.sizeof()
        op = _emit_vec(b, "cast", mnem, dst, [src], count=count, extra=extra,
                       rep=(lanes * dst.dtype.sizeof() // 32, lanes * src.dtype.sizeof() // 32, 8))
        op.reads[0].nbytes = count * src.dtype.sizeof() if is_static(count) else None
        return op
    _emit_vec(b, "cast", mnem, dst, [src], mask=mask, repeat_times=rt, blk=(p.dst_blk_stride, p.src_blk_stride),
              rep=(p.dst_rep_stride, p.src_rep_stride), extra=extra, dst_dtype=big)


@intrinsic
def copy(dst, src, *rest, _b, **kwargs):
    b = _b
    _need_local(b, "copy", dst)
    _need_local(b, "copy", src, "source")
    mnem = _suffix(b, "copy", "vcopy", dst.dtype, _u_by_size)
    count, mask, rt, p = _split_form(b, "copy", rest, kwargs, CopyRepeatParams)
    if count is not None:
        return _emit_vec(b, "copy", mnem, dst, [src], count=count)
    _emit_vec(b, "copy", mnem, dst, [src], mask=mask, repeat_times=rt, blk=(p.dst_stride, p.src_stride),
              rep=(p.dst_repeat_size, p.src_repeat_size))


@intrinsic
def brcb(dst, src, repeat_times, repeat_params=None, *, _b):
    b = _b
    _need_local(b, "brcb", dst)
    _need_local(b, "brcb", src, "source")
    mnem = _suffix(b, "brcb", "vbrcb", dst.dtype, _by_size("b"))
    p = repeat_params or BrcbRepeatParams()
    nsrc = repeat_times * 8 * src.dtype.sizeof() if is_static(repeat_times) else None
    _emit_vec(b, "brcb", mnem, dst, [src], mask=256 // dst.dtype.sizeof(), repeat_times=repeat_times,
              blk=(p.dst_blk_stride, 1), rep=(p.dst_rep_stride, 1), src_bytes=nsrc)


@intrinsic
def transpose(dst, src, *, _b):
    b = _b
    _need_local(b, "transpose", dst)
    _need_local(b, "transpose", src, "source")
    if dst.dtype.sizeof() != 2:
        raise b.error("asc.transpose supports 16-bit types only (vtranspose.b16: one 16x16 block)")
    b.uses_vector = True
    b.emit(ir.Op("vec", None, [b.operand(dst.addr), b.operand(src.addr)], {"mnem": "vtranspose.b16", "pipe": "v"},
                 reads=[src.access(512)], writes=[dst.access(512)]))


@intrinsic
def compare(dst, src0, src1, cmp_mode, *rest, _b, **kwargs):
    b = _b
    for t in (dst, src0, src1):
        _need_local(b, "compare", t)
    _same_dtype(b, "compare", src0, src1)
    mnem = _suffix(b, "compare", "vcmp", src0.dtype)
    count, mask, rt, p = _split_form(b, "compare", rest, kwargs, BinaryRepeatParams)
    extra = {"cond": CMP_ISA[cmp_mode]}
    lanes = 256 // src0.dtype.sizeof()
    if count is not None:
        nbd = -(-count // 8) if is_static(count) else None
        op = _emit_vec(b, "compare", mnem, src0, [src0, src1], count=count, extra=extra,
                       args_override=[b.operand(dst.addr), b.operand(src0.addr), b.operand(src1.addr)])
        return _cmp_fix(op, dst, nbd)
    op = _emit_vec(b, "compare", mnem, src0, [src0, src1], mask=mask, repeat_times=rt, extra=extra,
                   blk=(p.dst_blk_stride, p.src0_blk_stride, p.src1_blk_stride),
                   rep=(p.dst_rep_stride, p.src0_rep_stride, p.src1_rep_stride),
                   args_override=[b.operand(dst.addr), b.operand(src0.addr), b.operand(src1.addr)])
    _cmp_fix(op, dst, rt * lanes // 8 if is_static(rt) else None)


@intrinsic
def compare_scalar(dst, src0, src1_scalar, cmp_mode, *rest, _b, **kwargs):
    # Ascend C CompareScalar = vcmpvs (cannmirror/asc-devkit impl/basic_api/dav_c220/
    # kernel_operator_vec_cmp_impl.h): the bit mask of src0[i] <cmp_mode> scalar, written as asc.compare writes it
    b = _b
    for t in (dst, src0):
        _need_local(b, "compare_scalar", t)
    if isinstance(src1_scalar, LocalTensor):
        raise b.error("asc.compare_scalar: the scalar operand must be a number (use asc.compare for two tensors)")
    mnem = _suffix(b, "compare_scalar", "vcmps", src0.dtype)
    scalar = _scalar_for(b, src0.dtype, src1_scalar)
    count, mask, rt, p = _split_form(b, "compare_scalar", rest, kwargs, UnaryRepeatParams)
    extra = {"cond": CMP_ISA[cmp_mode]}
    lanes = 256 // src0.dtype.sizeof()
    args = [b.operand(dst.addr), b.operand(src0.addr), b.operand(scalar)]
    if count is not None:
        nbd = -(-count // 8) if is_static(count) else None
        op = _emit_vec(b, "compare_scalar", mnem, src0, [src0], count=count, extra=extra, args_override=args)
        return _cmp_fix(op, dst, nbd)
    op = _emit_vec(b, "compare_scalar", mnem, src0, [src0], mask=mask, repeat_times=rt, extra=extra,
                   blk=(p.dst_blk_stride, p.src_blk_stride), rep=(p.dst_rep_stride, p.src_rep_stride),
                   args_override=args)
    _cmp_fix(op, dst, rt * lanes // 8 if is_static(rt) else None)


def _cmp_fix(op, dst, nbytes):
    # Compare / CompareScalar run as on dav_c220 (kernel_operator_vec_cmp_impl.h): the mask is not
    # applied and the count form runs count * sizeof / 256 whole repeats; the simulator's `whole`
    # config bit does exactly that and notes the difference (a warning at this line)
    op.attrs["cfg"]["whole"] = [1]
    op.writes = [dst.access(nbytes)]
    return op


@intrinsic
def select(dst, sel_mask, src0, src1, sel_mode=0, *rest, _b, **kwargs):
    b = _b
    if isinstance(sel_mode, BinaryRepeatParams):     # select(dst, src0, src1, repeat_times, params, sel_mode)
        if len(rest) > 1:
            raise b.error("asc.select: too many arguments")
        return _regmodes.select_by_register(_sys.modules[__name__], b, dst, sel_mask, src0, src1, sel_mode,
                                            rest[0] if rest else kwargs.pop("sel_mode", 0), kwargs.pop("mask", None))
    from .vec_select import select_by_mask      # by sel_mode, as on dav_c220 (vec_select.py)
    select_by_mask(_sys.modules[__name__], b, dst, sel_mask, src0, src1, sel_mode, rest, kwargs)


# ---- data movement --------------------------------------------------------------------------
_DMA = {("GM", "UB"): ("mov_out_to_ub", "mte2"), ("UB", "GM"): ("mov_ub_to_out", "mte3"),
        ("GM", "L1"): ("mov_out_to_l1", "mte2"), ("UB", "UB"): ("mov_ub_to_ub", "v"),
        ("L1", "UB"): ("mov_l1_to_ub", "mte1"), ("UB", "L1"): ("mov_ub_to_l1", "mte3")}


def _buf_of(b, t):
    if isinstance(t, GlobalTensor):
        t._check()
        return "GM"
    if isinstance(t, LocalTensor):
        return t.buf
    raise b.error(f"asc.data_copy: operands must be tensors, got {tensor_type_name(t)}")


@intrinsic
def data_copy(dst, src, *rest, _b, **kwargs):
    b = _b
    sb, db = _buf_of(b, src), _buf_of(b, dst)
    if (sb, db) not in _DMA:
        raise b.error(f"asc.data_copy from {sb} to {db} is not a data path of this target "
                   f"(supported: {', '.join(f'{a}->{c}' for a, c in _DMA)})")
    mnem, pipe = _DMA[(sb, db)]
    if src.dtype is not dst.dtype and src.dtype is not None and dst.dtype is not None:
        raise b.error(f"asc.data_copy between {src.dtype.name} and {dst.dtype.name}: dtypes must match")
    count = kwargs.pop("count", None)
    params = kwargs.pop("repeat_params", kwargs.pop("params", None))
    if kwargs:
        raise b.error(f"asc.data_copy: unexpected keyword argument(s) {', '.join(kwargs)}")
    if rest:
        if isinstance(rest[0], DataCopyParams):
            params = rest[0]
        else:
            count = rest[0]
    if isinstance(params, Nd2NzParams) or (isinstance(count, Nd2NzParams)):
        return _emit_nd2nz(b, dst, src, sb, db, params if isinstance(params, Nd2NzParams) else count)
    size = dst.dtype.sizeof()
    if params is not None:
        p = params
        cfg = {"nburst": [_cfgval(b, p.block_count)], "len": [_cfgval(b, p.block_len)],
               "srcgap": [_cfgval(b, p.src_stride)], "dstgap": [_cfgval(b, p.dst_stride)]}
        if all(map(is_static, (p.block_count, p.block_len, p.src_stride, p.dst_stride))):
            nsrc = (p.block_count * (p.block_len + p.src_stride) - p.src_stride) * 32
            ndst = (p.block_count * (p.block_len + p.dst_stride) - p.dst_stride) * 32
        else:
            nsrc = ndst = None
    elif count is not None:
        # Ascend C DataCopy(dst, src, count): blockLen = count * sizeof / 32, rounded down, no error
        # on the card ("In NPU mode, no error is reported. The value is rounded down by 32B":
        # cannmirror/asc-devkit impl/basic_api/kernel_operator_data_copy_intf_impl.h).  We do the
        # same, but a count whose bytes are not a multiple of 32 (or not known at compile time)
        # on a GM <-> UB path goes through the byte-granular mov_*.pad with trunc=1: the simulator
        # rounds down exactly as the card does and notes every burst it shortened, so the launch
        # result warns at this line (docs/pyasc.md "Copies that are not 32-byte multiples").
        _int_arg(b, "asc.data_copy: count", count)
        nbytes = count * size
        if is_static(nbytes) and nbytes < 0:
            raise b.error(f"asc.data_copy: count must not be negative, got {count}")
        if (sb, db) in _DMA_PAD and not (is_static(nbytes) and nbytes % 32 == 0):
            return _emit_pad(b, dst, src, sb, db, 1, nbytes, 0, 0, trunc=True)
        if is_static(nbytes):
            if nbytes % 32:
                raise b.error(f"asc.data_copy of {count} {dst.dtype.name} elements from {sb} to {db}: "
                              f"count * sizeof must be a multiple of 32 on this path (the card would "
                              f"silently drop the last {nbytes % 32} bytes)")
            blocks = nbytes // 32
        else:
            blocks = b.binop("sra", nbytes, 5)
        cfg = {"nburst": [1], "len": [_cfgval(b, blocks)], "srcgap": [0], "dstgap": [0]}
        if not is_static(nbytes):   # GM -> L1, UB -> UB, L1 <-> UB: the card rounds down; the run warns
            cfg["rdown"] = [_cfgval(b, b.binop("sne", b.binop("and", nbytes, 31), 0))]
        nsrc = ndst = blocks * 32 if is_static(blocks) else None
    else:
        raise b.error("asc.data_copy needs a count or DataCopyParams")
    op = ir.Op("dma", None, [b.operand(dst.addr), b.operand(src.addr)],
               {"mnem": mnem, "pipe": pipe, "layout": "DMA", "cfg": cfg},
               reads=[src.access(nsrc)], writes=[dst.access(ndst)])
    b.emit(op)


def _pack_word(b, layout, fields):
    """A 64-bit value of config layout `layout` (isa.json) from static ints and run-time scalars:
    the static part folded here, each run-time field shifted into place and or-ed in."""
    slots = isa.field_slots(layout)
    static = {k: (v if is_static(v) else 0) for k, v in fields.items()}
    try:
        word = isa.pack(layout, static)
    except ValueError as e:
        raise b.error(str(e)) from None
    acc = _s64(word)
    for k, v in fields.items():
        if not is_static(v):
            lo = slots[k][0][0]
            acc = b.binop("or", acc, b.binop("shl", v, lo) if lo else v)
    return acc


_ND2NZ_RANGE = {"nd_num": (0, 4095), "n_value": (0, 16384), "d_value": (0, 65535),
                "src_nd_matrix_stride": (0, 65535), "src_d_value": (1, 65535), "dst_nz_c0_stride": (1, 16384),
                "dst_nz_n_stride": (1, 16384), "dst_nz_matrix_stride": (0, 16384)}


def _emit_nd2nz(b, dst, src, sb, db, p):
    """asc.data_copy(dst, src, asc.Nd2NzParams(...)), GM -> L1 (TPosition A1/B1): Ascend C DataCopy
    with Nd2NzParams, one mov_out_to_l1 in the ND2NZ layout (cannmirror/asc-devkit
    impl/basic_api/dav_c220/kernel_operator_data_copy_impl.h DataCopyGM2L1ND2NZImplBase; sim/exec_nd2nz.c).
    ndNum, the matrix strides, dstNzNStride and the element size go to SPR
    nd2nz_para, set just before the copy (layout ND2NZM)."""
    if (sb, db) != ("GM", "L1"):
        raise b.error(f"asc.data_copy with Nd2NzParams from {sb} to {db}: only GM -> L1 (A1/B1) converts on "
                      f"this target (GM -> UB ND2NZ is a software emulation on 910B, not implemented)")
    size = dst.dtype.sizeof()
    if size not in (1, 2, 4):
        raise b.error(f"asc.data_copy with Nd2NzParams: {dst.dtype.name} elements are not 1, 2 or 4 bytes")
    vals = {}
    for f in Nd2NzParams._fields:
        v = getattr(p, f)
        _int_arg(b, f"asc.Nd2NzParams.{f}", v)
        lo, hi = _ND2NZ_RANGE[f]
        if is_static(v) and not lo <= v <= hi:
            raise b.error(f"asc.Nd2NzParams.{f} = {v} is out of range [{lo}, {hi}] (Ascend C Nd2NzParams)")
        vals[f] = v
    g = vals.get
    if is_static(g("dst_nz_matrix_stride")) and (g("dst_nz_matrix_stride") * size) % 32:
        raise b.error(f"asc.Nd2NzParams.dst_nz_matrix_stride = {g('dst_nz_matrix_stride')} elements is not a "
                      f"multiple of 32 bytes: every NZ matrix must start 32-byte aligned in L1")
    para = _pack_word(b, "ND2NZM", {"ndnum": g("nd_num"), "esize": size.bit_length() - 1,
                                    "srcmstride": g("src_nd_matrix_stride"), "dstmstride": g("dst_nz_matrix_stride"),
                                    "nstride": g("dst_nz_n_stride"), "valid": 1})
    b.emit(ir.Op("mtspr", None, [b.operand(para)], {"spr": "nd2nz_para"}))
    cfg = {"nvalue": [_cfgval(b, g("n_value"))], "nd2nz": [1], "dvalue": [_cfgval(b, g("d_value"))],
           "srcd": [_cfgval(b, g("src_d_value"))], "c0stride": [_cfgval(b, g("dst_nz_c0_stride"))]}
    nsrc = ndst = None
    if all(is_static(v) for v in vals.values()):
        nd, n, d = g("nd_num"), g("n_value"), g("d_value")
        if nd and n and d:
            c0 = 32 // size
            nsrc = ((nd - 1) * g("src_nd_matrix_stride") + (n - 1) * g("src_d_value") + d) * size
            ndst = ((nd - 1) * g("dst_nz_matrix_stride") * size
                    + ((n - 1) * g("dst_nz_n_stride") + (-(-d // c0) - 1) * g("dst_nz_c0_stride") + 1) * 32)
        else:
            nsrc = ndst = 0
    op = ir.Op("dma", None, [b.operand(dst.addr), b.operand(src.addr)],
               {"mnem": "mov_out_to_l1", "pipe": "mte2", "layout": "ND2NZ", "cfg": cfg},
               reads=[src.access(nsrc)], writes=[dst.access(ndst)])
    b.emit(op)


_DMA_PAD = {("GM", "UB"): ("mov_out_to_ub.pad", "mte2"), ("UB", "GM"): ("mov_ub_to_out.pad", "mte3")}


def _pad_word(b, dtype, pad):
    """The pad register of mov_out_to_ub.pad (sim/exec_dmapad.c): value bits, left/right pad
    bytes, use-value bit, element size."""
    size = dtype.sizeof()
    if pad is None:
        return size << 52
    vals = (pad.is_pad, pad.left_padding, pad.right_padding, pad.padding_value)
    if not all(is_static(v) for v in vals):
        raise b.error("asc.data_copy_pad: DataCopyPadExtParams fields must be compile-time values")
    lp, rp = int(pad.left_padding) * size, int(pad.right_padding) * size
    if lp > 32 or rp > 32 or lp < 0 or rp < 0:
        raise b.error(f"asc.data_copy_pad: left/right padding of {pad.left_padding}/{pad.right_padding} "
                      f"{dtype.name} elements: each must take at most 32 bytes")
    v = pad.padding_value
    if dtype.is_float:
        import numpy as np
        npd = {2: np.float16, 4: np.float32, 8: np.float64}[size] if dtype.name != "bfloat16" else None
        if npd is None:
            bits = int(np.array([v], np.float32).view(np.uint32)[0]) >> 16
        else:
            bits = int(np.array([v], npd).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[size])[0])
    else:
        bits = int(v)
    if size == 8 and bits:
        raise b.error("asc.data_copy_pad: the padding value of a 64-bit type must be 0 (Ascend C rule)")
    bits &= (1 << (8 * _bi.min(size, 4))) - 1
    return _s64(bits | (lp << 32) | (rp << 40) | (int(bool(pad.is_pad)) << 48) | (size << 52))


def _emit_pad(b, dst, src, sb, db, nburst, nbytes, gmgap, ubgap, trunc=False, pad=None):
    mnem, pipe = _DMA_PAD[(sb, db)]
    cfg = {"nburst": [_cfgval(b, nburst)], "len": [_cfgval(b, nbytes)], "gmgap": [_cfgval(b, gmgap)],
           "ubgap": [_cfgval(b, ubgap)], "trunc": [int(trunc)]}
    stat = all(is_static(v) for v in (nburst, nbytes, gmgap, ubgap))
    nsrc = ndst = None
    if stat and nburst > 0:
        data = (nbytes // 32 * 32) if trunc else nbytes
        lp = rp = 0
        if pad is not None and not trunc:
            lp, rp = pad.left_padding * dst.dtype.sizeof(), pad.right_padding * dst.dtype.sizeof()
        foot = -(-(lp + data + rp) // 32) * 32
        gm_n = (nburst - 1) * (nbytes + gmgap) + data
        ub_n = (nburst - 1) * (foot + ubgap * 32) + (foot if db == "UB" else data)
        nsrc, ndst = (gm_n, ub_n) if sb == "GM" else (ub_n, gm_n)
        if data == 0:
            nsrc = ndst = 0
    args = [b.operand(dst.addr), b.operand(src.addr)]
    if db == "UB":
        args.append(ir.Const(_pad_word(b, dst.dtype, None if trunc else pad)))
    op = ir.Op("dma", None, args, {"mnem": mnem, "pipe": pipe, "layout": "DMAP", "cfg": cfg},
               reads=[src.access(nsrc)], writes=[dst.access(ndst)])
    b.emit(op)
    return op


@intrinsic
def data_copy_pad(dst, src, params, pad_params=None, *, _b):
    """Real pyasc data_copy_pad(dst, src, DataCopyExtParams | DataCopyParams[, pad params]):
    GM <-> UB bursts of block_len bytes (Ascend C DataCopyPad, dav_c220
    DataCopyPadGm2UBImpl / DataCopyPadUB2GMImpl).  GM -> UB pads each burst to 32 bytes in UB
    (left/right padding elements, then dummy bytes); UB -> GM writes exactly block_len bytes."""
    b = _b
    sb, db = _buf_of(b, src), _buf_of(b, dst)
    if (sb, db) not in _DMA_PAD:
        raise b.error(f"asc.data_copy_pad from {sb} to {db} is not modelled: the simulator has the "
                      f"GM -> UB and UB -> GM DataCopyPad paths (the L1 paths of the cube core are not modelled)")
    if src.dtype is not dst.dtype:
        raise b.error(f"asc.data_copy_pad between {src.dtype.name} and {dst.dtype.name}: dtypes must match")
    if not isinstance(params, (DataCopyExtParams, DataCopyParams)):
        raise b.error("asc.data_copy_pad needs DataCopyExtParams (or DataCopyParams) as its third argument")
    if pad_params is not None and not isinstance(pad_params, (DataCopyPadExtParams, DataCopyPadParams)):
        raise b.error("asc.data_copy_pad: the fourth argument must be DataCopyPadExtParams")
    if db == "GM" and pad_params is not None:
        raise b.error("asc.data_copy_pad from UB to GM takes no pad parameters")
    p = params
    if is_static(p.block_len) and is_static(p.block_count) and p.block_len % dst.dtype.sizeof():
        raise b.error(f"asc.data_copy_pad: block_len {p.block_len} must be a multiple of sizeof({dst.dtype.name})")
    gmgap, ubgap = (p.src_stride, p.dst_stride) if sb == "GM" else (p.dst_stride, p.src_stride)
    if db == "UB" and pad_params is not None and is_static(pad_params.is_pad) and pad_params.is_pad:
        # Ascend C sets the MTE pad value register before an isPad copy (set_mov_pad_val)
        _regmodes.emit_pad_val(b, _sys.modules[__name__], _pad_word(b, dst.dtype, pad_params))
    _emit_pad(b, dst, src, sb, db, p.block_count, p.block_len, gmgap, ubgap, pad=pad_params)


# ---- cube -----------------------------------------------------------------------------------
@intrinsic
def load_data(dst, src, params, *, _b):
    b = _b
    b.uses_cube = True
    from .load3d import LoadData3DParamsV2, emit_load3d
    if isinstance(params, LoadData3DParamsV2):
        return emit_load3d(b, dst, src, params)
    if not isinstance(params, LoadData2DParams):
        raise b.error("asc.load_data supports LoadData2DParams (2D loads) and LoadData3DParamsV2 (im2col) only")
    if not (isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and src.buf == "L1"
            and dst.buf in ("L0A", "L0B")):
        raise b.error("asc.load_data moves an L1 tensor (A1/B1) into L0A (A2) or L0B (B2)")
    mnem = "load_l1_to_l0a_2d" if dst.buf == "L0A" else "load_l1_to_l0b_2d"
    p = params
    cfg = {"start": [_cfgval(b, p.start_index)], "repeat": [_cfgval(b, p.repeat_times)],
           "srcstride": [_cfgval(b, p.src_stride)], "dstgap": [_cfgval(b, p.dst_gap)],
           "transpose": [_cfgval(b, p.if_transpose)]}
    nd = None
    if is_static(p.repeat_times) and is_static(p.dst_gap):
        nd = (p.repeat_times * (1 + p.dst_gap) - p.dst_gap) * 512
    b.emit(ir.Op("load2d", None, [b.operand(dst.addr), b.operand(src.addr)],
                 {"mnem": mnem, "pipe": "mte1", "layout": "L2D", "cfg": cfg},
                 reads=[src.access()], writes=[dst.access(nd)]))


@intrinsic
def mmad(dst, a, b_, *rest, _b):
    b = _b
    b.uses_cube = True
    params = rest[-1] if rest else None
    if len(rest) > 1:
        raise b.error("asc.mmad with a bias tensor is not supported")
    if not isinstance(params, MmadParams):
        raise b.error("asc.mmad(dst, fm, filter, asc.MmadParams(m, n, k)) needs MmadParams")
    for t, want in ((dst, "L0C"), (a, "L0A"), (b_, "L0B")):
        if not isinstance(t, LocalTensor) or t.buf != want:
            raise b.error(f"asc.mmad operands: dst in CO1 (L0C), fm in A2 (L0A), filter in B2 (L0B); "
                       f"got {tensor_type_name(t)} in {getattr(t, 'buf', '?')} where {want} is needed")
    mnem = f"mmad.{a.dtype.isa}{dst.dtype.isa}"
    if not isa.has(mnem):
        raise b.error(f"asc.mmad with {a.dtype.name} inputs and {dst.dtype.name} output is not supported "
                   f"(asc ISA: {', '.join('mmad.' + v for v in isa.variants('mmad'))})")
    cfg = {"m": [_cfgval(b, params.m)], "k": [_cfgval(b, params.k)], "n": [_cfgval(b, params.n)],
           "init": [_cfgval(b, params.cmatrix_init_val)]}
    reads = [a.access(), b_.access()]
    if not params.cmatrix_init_val or not is_static(params.cmatrix_init_val):
        reads.append(dst.access())
    b.emit(ir.Op("mmad", None, [b.operand(dst.addr), b.operand(a.addr), b.operand(b_.addr)],
                   {"mnem": mnem, "pipe": "m", "layout": "MMAD", "cfg": cfg}, reads=reads, writes=[dst.access()]))


@intrinsic
def fixpipe(dst, src, params, *rest, _b):
    b = _b
    b.uses_cube = True
    workspace = None
    if isinstance(params, LocalTensor) and rest:    # real pyasc: fixpipe(dst, src, cbuf_workspace, params)
        workspace, params, rest = params, rest[0], rest[1:]
    if not isinstance(params, FixpipeParamsV220):
        raise b.error("asc.fixpipe(dst_gm, src_co1, asc.FixpipeParamsV220(...)) needs FixpipeParamsV220")
    if is_static(params.relu_en) and not isinstance(params.relu_en, bool) and params.relu_en not in (0, 1):
        raise b.error(f"asc.FixpipeParamsV220: relu_en is {params.relu_en!r}; its 6th positional argument is "
                      f"relu_en here (real pyasc's is deq_scalar): pass deq_scalar= by keyword")
    from . import fix_quant as _fq
    qp = params.quant_pre
    if (workspace is not None or getattr(src, "dtype", None) is not None and src.dtype.name == "int32"
            or (is_static(qp) and int(qp) not in (_fq.QuantModes.NoQuant, _fq.QuantModes.F322F16,
                                                  _fq.QuantModes.F322BF16))):
        if not isinstance(src, LocalTensor) or src.buf != "L0C":
            raise b.error("asc.fixpipe moves a CO1 (L0C) tensor to a GlobalTensor (or, on coupled cores, "
                          "to a UB LocalTensor)")
        _fq.lower(b, dst, src, params, workspace, _cfgval)
        return
    to_ub = isinstance(dst, LocalTensor) and dst.buf == "UB"
    if not (isinstance(dst, GlobalTensor) or to_ub) or not isinstance(src, LocalTensor) or src.buf != "L0C":
        raise b.error("asc.fixpipe moves a CO1 (L0C) tensor to a GlobalTensor (or, on coupled cores, "
                      "to a UB LocalTensor)")
    if to_ub:
        # coupled cores (dav_m200): the L0C readout goes to UB on the vector pipe, Ascend C's
        # DataCopy CO1 -> CO2 (DataCopyMatrixL0C2UBImpl, copy_matrix_cc_to_ubuf in cannmirror/
        # asc-devkit impl/basic_api/dav_m200/kernel_operator_data_copy_impl.h); asc's
        # mov_l0c_to_ub writes ND rows dststride elements apart (docs/semantics.md §5.3)
        if b.target["split"]:
            raise b.error(f"asc.fixpipe to UB: {b.fn.target} has split cores, whose L0C is read out "
                          "to GM only (fix_l0c_to_out); L0C -> UB exists on coupled cores (teach, ascend910)")
        mnem, pipe = f"mov_l0c_to_ub.{dst.dtype.isa}", "v"
    else:
        dst._check()
        mnem, pipe = f"fix_l0c_to_out.{dst.dtype.isa}", "fix"
    if not isa.has(mnem):
        raise b.error(f"asc.fixpipe to {dst.dtype.name} {'UB' if to_ub else 'GM'} is not supported "
                      f"({'f32, f16' if to_ub else 'f32, f16, bf16'} outputs)")
    p = params
    cfg = {"n": [_cfgval(b, p.n_size)], "relu": [_cfgval(b, p.relu_en)], "m": [_cfgval(b, p.m_size)],
           "srcstride": [_cfgval(b, p.src_stride)], "dststride": [_cfgval(b, p.dst_stride)]}
    b.emit(ir.Op("fix", None, [b.operand(dst.addr), b.operand(src.addr)],
                 {"mnem": mnem, "pipe": pipe, "layout": "FIX", "cfg": cfg},
                 reads=[src.access()], writes=[dst.access(None)]))


# ---- synchronisation and system ---------------------------------------------------------------
def _event_id(b, event_id):
    if isinstance(event_id, RVal):
        raise NeedUnroll("event ids must be compile-time constants (the ISA encodes them in the "
                         "instruction)", b.loc)
    if not is_static(event_id) or isinstance(event_id, float):   # int(1.5) would pick event 1 silently
        raise b.error(f"event id must be an integer, got {tensor_type_name(event_id)}")
    n = b.target["event_ids"]
    if not 0 <= event_id < n:
        raise b.error(f"event id {event_id} out of range: {b.fn.target} has ids 0..{n - 1}")
    return int(event_id)


def _flag(b, kind, event, event_id):
    if isinstance(event, _enum.Enum) and not isinstance(event, HardEvent):
        # an IntEnum of another kind (asc.PipeID.PIPE_V is 1) would otherwise name HardEvent 1
        raise b.error(f"asc.{kind} needs an asc.HardEvent, got {type(event).__name__}.{event.name}")
    if not isinstance(event, HardEvent):
        try:
            event = HardEvent(event)
        except ValueError:
            raise b.error(f"asc.{kind} needs an asc.HardEvent, got {'a run-time ' + tensor_type_name(event) if isinstance(event, RVal) else repr(event)}") from None
    src, dst = event_pipes(event)
    eid = _event_id(b, event_id)
    if src == dst == "v":
        # Ascend C's SetFlagImpl turns HardEvent::V_V into PipeBarrier<PIPE_V>() and WaitFlagImpl
        # returns at once (impl/basic_api/kernel_event.h): the vector pipe has no flag to itself
        if kind == "set_flag":
            b.emit(ir.Op("bar", None, [], {"pipe": "v", "bpipe": "v", "hard_event": "V_V"}))
        return
    b.fn.manual_events.add((event.name, eid))
    b.emit(ir.Op(kind, None, [], {"src": src, "dst": dst, "event": eid,
                                  "pipe": src if kind == "set_flag" else dst}))


@intrinsic
def set_flag(event, event_id=0, *, _b):
    b = _b
    _flag(b, "set_flag", event, event_id)


@intrinsic
def wait_flag(event, event_id=0, *, _b):
    b = _b
    _flag(b, "wait_flag", event, event_id)


@intrinsic
def pipe_barrier(pipe, *, _b):
    b = _b
    pipe = PipeID(pipe)
    name = PIPE_ISA[pipe]
    rule = targets.check_op(b.fn.target, "bar", name)    # libasc's rule, worded in isa/asc_diag.def
    if rule:
        raise b.error(f"pipe_barrier({pipe.name}): {rule}")
    b.emit(ir.Op("bar", None, [], {"pipe": name, "bpipe": name}))


@intrinsic
def sync_all(*args, _b, **kwargs):
    b = _b
    b.emit(ir.Op("sync_all", None, []))


@intrinsic
def get_block_idx(*, _b):
    b = _b
    return b.spr("block_idx")


@intrinsic
def get_block_num(*, _b):
    b = _b
    return b.spr("block_num")


@intrinsic
def get_sub_block_idx(*, _b):
    b = _b
    return b.spr("sub_block_idx")


@intrinsic
def get_sub_block_num(*, _b):
    b = _b
    return b.spr("sub_block_num")


@intrinsic
def get_system_cycle(*, _b):
    b = _b
    return b.spr("cycle")


@intrinsic
def get_data_block_size_in_bytes(*, _b):
    return 32


@intrinsic
def set_mask_count(*, _b):
    b = _b
    b.emit(ir.Op("set_mask_count", None, [], {"user": True}))


@intrinsic
def set_mask_norm(*, _b):
    b = _b
    b.emit(ir.Op("set_mask_norm", None, [], {"user": True}))


@intrinsic
def set_vector_mask(mask_high, mask_low=None, *a, _b, **k):
    b = _b
    if mask_low is None:
        mask_high, mask_low = 0, mask_high
    b.emit(ir.Op("mtspr", None, [b.operand(mask_low)], {"spr": "mask0", "user": True}))
    b.emit(ir.Op("mtspr", None, [b.operand(mask_high)], {"spr": "mask1", "user": True}))


@intrinsic
def reset_mask(*, _b):
    b = _b
    set_vector_mask.__wrapped__(-1, -1, _b=b)


@intrinsic
def ascend_is_aic(*, _b):
    b = _b
    b.asks_core_kind = True     # compiler/driver.py compiles such a kernel for both core kinds
    return b.fn.kernel_kind == "aic"


@intrinsic
def ascend_is_aiv(*, _b):
    b = _b
    b.asks_core_kind = True
    return b.fn.kernel_kind != "aic"



# ---- cross-core flags, cache and barrier no-ops, task ratio ----------------------------------
@intrinsic
def cross_core_set_flag(flag_id, mode_id, pipe, *, _b):
    """Ascend C CrossCoreSetFlag<modeId, pipe>(flagId): set_cross_core (isa/asc_isa.def)."""
    b = _b
    if not all(is_static(v) for v in (flag_id, mode_id)):
        raise b.error("asc.cross_core_set_flag: flag_id and mode_id must be compile-time integers "
                      "(the ISA encodes them in the instruction)")
    b.emit(ir.Op("xcore", None, [], {"mnem": "set_cross_core", "ops": [PIPE_ISA[PipeID(pipe)], int(mode_id),
                                                                        int(flag_id)]}))


@intrinsic
def cross_core_wait_flag(flag_id, mode_id=0, pipe=None, *, _b):
    """Ascend C CrossCoreWaitFlag(flagId): wait_flag_dev, the scalar unit waits."""
    b = _b
    if not is_static(flag_id):
        raise b.error("asc.cross_core_wait_flag: flag_id must be a compile-time integer")
    b.emit(ir.Op("xcore", None, [], {"mnem": "wait_flag_dev", "ops": [int(flag_id)]}))


@intrinsic
def data_cache_clean_and_invalid(*args, _b, **kwargs):
    """No instruction: the simulated scalar unit reads and writes GM uncached, so every line is
    always clean and valid (docs/pyasc.md)."""


@intrinsic
def data_cache_preload(*args, _b, **kwargs):
    """No instruction: the simulated scalar unit has no data cache to preload."""


@intrinsic
def data_sync_barrier(*args, _b, **kwargs):
    """No instruction: scalar loads and stores complete in program order in the simulator."""


@intrinsic
def get_task_ratio(*, _b):
    """Ascend C GetTaskRatio: vector cores per AI core (2 on split targets, 1 on coupled)."""
    return _b.spr("sub_block_num")


# ---- scalar-unit intrinsics (real pyasc python/asc/language/basic/scalar.py; Ascend C
# cannmirror/asc-devkit impl/basic_api/kernel_scalar.h: clz, bcnt1/bcnt0, sflbits, sff1/sff0,
# conv_f322s32*).  A constant operand folds with the same 64-bit semantics as the ISA row.
_M64 = (1 << 64) - 1


def _fold_bits(mnem, x):
    u = x & _M64
    if mnem == "clz":
        return 64 - u.bit_length()
    if mnem == "popc":
        return bin(u).count("1")
    if mnem == "sff1":
        return (u & -u).bit_length() - 1 if u else -1
    sgn = u >> 63  # cls: bits below the sign bit equal to it
    v = (u ^ (_M64 if sgn else 0)) & ((1 << 63) - 1)
    return 63 - v.bit_length()


def _scalar_bits(b, name, mnem, x, invert=False):
    if isinstance(x, bool) or not isinstance(x, (int, RVal)) or isinstance(x, RVal) and x.ty == "f32":
        raise b.error(f"asc.{name}: the value must be an integer, got {tensor_type_name(x)}")
    if is_static(x):
        return _fold_bits(mnem, ~int(x) if invert else int(x))
    src = b.reg(x)
    if invert:
        src = b.reg(b.binop("xor", RVal(b, src), -1))
    r = b.new_value()
    b.emit(ir.Op("sbit", r, [src], {"mnem": mnem}))
    return RVal(b, r)


def _count_value(b, name, v):
    if not isinstance(v, int) or isinstance(v, bool) or v not in (0, 1):
        raise b.error(f"asc.{name}: count_value must be the constant 0 or 1")
    return v


@intrinsic
def scalar_count_leading_zero(value_in, *, _b):
    """ScalarCountLeadingZero: leading zero bits of the 64-bit value (64 for 0)."""
    return _scalar_bits(_b, "scalar_count_leading_zero", "clz", value_in)


@intrinsic
def count_bits_cnt_same_as_sign_bit(value_in, *, _b):
    """CountBitsCntSameAsSignBit: consecutive bits below the sign bit equal to it (sflbits)."""
    return _scalar_bits(_b, "count_bits_cnt_same_as_sign_bit", "cls", value_in)


@intrinsic
def scalar_get_count_of_value(value_in, count_value, *, _b):
    """ScalarGetCountOfValue<count_value>: number of bits equal to count_value (bcnt1 / bcnt0)."""
    cv = _count_value(_b, "scalar_get_count_of_value", count_value)
    return _scalar_bits(_b, "scalar_get_count_of_value", "popc", value_in, invert=cv == 0)


@intrinsic
def scalar_get_sff_value(value_in, count_value, *, _b):
    """ScalarGetSFFValue<count_value>: index of the lowest bit equal to count_value, -1 if none (sff1 / sff0)."""
    cv = _count_value(_b, "scalar_get_sff_value", count_value)
    return _scalar_bits(_b, "scalar_get_sff_value", "sff1", value_in, invert=cv == 0)


@intrinsic
def scalar_cast(value_in, dtype, round_mode, *, _b):
    """ScalarCast<float, int32_t / half, mode> on the scalar unit: the cvt row's type pairs f32.s32
    (conv_f322s32r/f/c/a: CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND; saturating, NaN -> 0) and
    f32.f16 (conv_f322f16o: CAST_ODD only; cannmirror/asc-devkit impl/basic_api/kernel_scalar.h
    CastF322S32Impl / CastF322F16Impl).  Real pyasc's targets: asc.half / asc.float16 / asc.int32.
    The f16 result is the f16 value held as a float32 scalar (the scalar registers hold no f16
    values here): exact, so storing it into float16 memory or using it as a float16 operand is."""
    b = _b
    pairs = {dt.int32: "f32.s32", dt.float16: "f32.f16"}
    if dtype not in pairs:
        raise b.error(f"asc.scalar_cast to {getattr(dtype, 'name', dtype)} is not supported: ScalarCast converts "
                      "float to int32 or half (cannmirror/asc-devkit impl/basic_api/kernel_scalar.h)")
    if isinstance(value_in, RVal) and value_in.ty != "f32":
        raise b.error("asc.scalar_cast: the value must be a float")
    if not isinstance(value_in, (int, float, RVal)) or isinstance(value_in, bool):
        raise b.error(f"asc.scalar_cast: the value must be a float, got {tensor_type_name(value_in)}")
    pair = pairs[dtype]
    rnd = _cast_rnd(b, "scalar_cast", f"from float32 to {dtype.name}", round_mode, isa.cvps()[pair]["rnds"],
                    where="ScalarCast, cannmirror/asc-devkit impl/basic_api/kernel_scalar.h")
    src = b.reg(float(value_in) if not isinstance(value_in, RVal) else value_in)
    r = b.new_value("f32" if dtype is dt.float16 else "i64")
    b.emit(ir.Op("sbit", r, [src, src], {"mnem": "cvt", "cvp": pair, "rnd": rnd}))
    return RVal(b, r)


@intrinsic
def get_program_counter(*, _b):
    """GetProgramCounter: byte address of the reading instruction (SPR pc)."""
    return _b.spr("pc")


_REJECT = {
    "the bilinear-interpolation instruction (vbi) is not modelled": ("bilinear_interpolation",),
    "HCCL contexts are not modelled": ("get_hccl_context", "set_hccl_context"),
    "the instruction cache is not modelled": ("get_icache_preload_status", "icache_preload"),
    "the sparse (structured 4:2) cube path is not modelled": ("load_data_with_sparse", "mmad_with_sparse"),
    "AIPP image preprocessing is not modelled": ("load_image_to_local", "set_aipp_functions"),
    "the cube's matrix layout transform register is not modelled": ("set_mm_layout_transform",),
}
for _why, _names in _REJECT.items():
    for _n in _names:
        globals()[_n] = _unsupported(_n, _why)


# ---- GM atomics: the store atomic config, SPR st_atomic (sim/exec_atomic.c) ---------------
# Ascend C (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_set_atomic_impl.h,
# kernel_operator_common_impl.h): SetAtomicAdd/Max/Min<T> set the op and the type, SetAtomicType<T>
# only the type, SetAtomicNone the type none; GetStoreAtomicConfig reads type (bits 2:0) and op
# (bits 4:3).  Every later GM write of data_copy (UB -> GM), data_copy_pad and fixpipe is then
# op(GM, data) per element.  Real pyasc: python/asc/language/basic/set_atomic.py and common.py.
_ATOMIC_TYPE = {"f32": 1, "f16": 2, "s16": 3, "s32": 4, "s8": 5, "bf16": 6}
_ATOMIC_OP = {"add": 0, "max": 1, "min": 2}


def _atomic_type(b, name, dtype):
    t = _ATOMIC_TYPE.get(getattr(dtype, "isa", None))
    if t is None:
        raise b.error(f"asc.{name}: the atomic type must be one of float32, float16, int16, int32, int8, "
                      f"bfloat16, got {getattr(dtype, 'name', dtype)!r}")
    return t


def _set_st_atomic(b, value):
    b.emit(ir.Op("mtspr", None, [b.operand(value)], {"spr": "st_atomic"}))


def _atomic_setter(name, op):
    @intrinsic
    def f(dtype, *, _b):
        _set_st_atomic(_b, _atomic_type(_b, name, dtype) | _ATOMIC_OP[op] << 3)
    f.__name__ = name
    f.__doc__ = f"Ascend C {name}<T>: later GM writes become {op}(GM, data) in type T."
    return f


set_atomic_add = _atomic_setter("set_atomic_add", "add")
set_atomic_max = _atomic_setter("set_atomic_max", "max")
set_atomic_min = _atomic_setter("set_atomic_min", "min")


@intrinsic
def set_atomic_type(dtype, *, _b):
    """Ascend C SetAtomicType<T>: the atomic type becomes T, the op is kept."""
    b = _b
    _set_st_atomic(b, (b.spr("st_atomic") & ~7) | _atomic_type(b, "set_atomic_type", dtype))


@intrinsic
def set_atomic_none(*, _b):
    """Ascend C SetAtomicNone: later GM writes are plain writes (type none, the op is kept)."""
    b = _b
    _set_st_atomic(b, b.spr("st_atomic") & ~7)


@intrinsic
def set_store_atomic_config(atomic_type, atomic_op, *, _b):
    """Ascend C SetStoreAtomicConfig<type, op> (AtomicDtype, AtomicOp: ATOMIC_SUM = 0 is the one
    documented op)."""
    b = _b
    for what, v, hi in (("atomic_type", atomic_type, 6), ("atomic_op", atomic_op, 2)):
        if not is_static(v) or isinstance(v, float) or not 0 <= int(v) <= hi:   # int(1.5) would be 1
            got = repr(v) if is_static(v) else f"a run-time {tensor_type_name(v)}"
            raise b.error(f"asc.set_store_atomic_config: {what} must be a compile-time integer in [0, {hi}], got {got}")
    _set_st_atomic(b, int(atomic_type) | int(atomic_op) << 3)


@intrinsic
def get_store_atomic_config(*, _b):
    """Ascend C GetStoreAtomicConfig: (atomic type, atomic op) of the store atomic config."""
    b = _b
    v = b.spr("st_atomic")
    return v & 7, (v >> 3) & 3


# ---- GM tensor lists: scalar GM loads of the descriptor (language/list_tensor.py) -----------
from .list_tensor import ListTensorDesc, TensorDesc  # noqa: E402,F401


# ---- the device print channel (language/debug.py) ------------------------------------------
from . import debug as _debug  # noqa: E402
for _n in ("printf", "dump_tensor", "dump_acc_chk_point", "print_time_stamp", "metrics_prof_start",
           "metrics_prof_stop"):
    globals()[_n] = intrinsic(getattr(_debug, _n))


# ---- fused vector instructions (language/fused.py; replace the rejections above) -------------
import sys as _sys  # noqa: E402
from . import fused as _fused  # noqa: E402
for _n, _base, _rd in _fused.FUSED:
    globals()[_n] = _fused.make(_n, _base, _rd, _sys.modules[__name__])

# ---- instruction-cache hints: documented no-ops (language/hints.py) -------------------------
from . import hints as _hints  # noqa: E402
icache_preload, get_icache_preload_status = _hints.make(_sys.modules[__name__])

# ---- inter-block synchronisation through GM flags (language/block_sync.py) -----------------
from . import block_sync as _block_sync  # noqa: E402
for _n in _block_sync.NAMES:
    globals()[_n] = intrinsic(getattr(_block_sync, _n))

# ---- binary op + convert, lowered to the op then vconv (language/fused_cast.py) -------------
from . import fused_cast as _fused_cast  # noqa: E402
for _n in _fused_cast.NAMES:
    globals()[_n] = _fused_cast.make(_n, _sys.modules[__name__])

# ---- InitSocState: atomic none, mask normal mode, full mask (language/soc_state.py) ---------
from . import soc_state as _soc_state  # noqa: E402
init_soc_state = _soc_state.make(_sys.modules[__name__])

# ---- register-controlled modes: pad value, HF32 (language/regmodes.py) -----------------------
from . import regmodes as _regmodes  # noqa: E402
set_pad_value, set_hf32_mode, set_hf32_trans_mode, set_cmp_mask, get_cmp_mask = _regmodes.make(_sys.modules[__name__])
set_deq_scale, cast_deq = _regmodes.make_deq(_sys.modules[__name__])

# ---- CheckLocalMemoryIA: UB access checks in SPRs data_exp_0..3 (language/check_ia.py) --------
from . import check_ia as _check_ia  # noqa: E402
from .check_ia import CheckLocalMemoryIAParam  # noqa: E402,F401
check_local_memory_ia = _check_ia.make(_sys.modules[__name__])

# ---- AddDeqRelu: s32 + s32 -> f16 through DEQSCALE, vadddeqrelu (language/add_deq.py) ------------
from . import add_deq as _add_deq  # noqa: E402
add_deq_relu = _add_deq.make(_sys.modules[__name__])
