"""asc.adv.softmax with SoftmaxTiling and SoftMaxShapeInfo (real pyasc python/asc/language/adv/
activation.py and tiling.py; Ascend C SoftMax, cannmirror/asc-devkit impl/adv_api/detail/
activation/softmax/membase/v220/softmax_impl.h and softmax_common/softmax_common_reduce.h).

Shape: src and dst are [m, k] row-major (k the padded row length, a whole number of 32 B blocks,
ori_k <= k the real one).  m and k come from the shape info given, else from the tiling's
src_m/src_k, else from src.get_shape_info() (real pyasc's tests set it with set_shape_info).
Per row, in float32 (float16 rows widened once): max over the ori_k real elements (vcmax), brcb
broadcast, subtract, vexp, sum (vcadd), divide; the padded columns of dst are left untouched.
sum and max get one 32 B block per row holding the row's value in every element (Ascend C's
"last axis fixed at 32 bytes"), in their own dtype (float32 with float16 src is allowed).
data_format_nz (NZ layout) is rejected; basic_block and reuse_source change nothing here.
"""
from __future__ import annotations

from ..compiler.builder import is_static
from ..language import dtype as dt
from ..language import ops as _o
from ..language.enums import RoundMode
from ..language.ops import intrinsic
from ..language.types import BinaryRepeatParams, BrcbRepeatParams
from ..language.tensor import LocalTensor, tensor_type_name
from .math import _need_ub, _temp

FIELDS = ("src_m", "src_k", "src_size", "out_max_m", "out_max_k", "out_max_size", "split_m", "split_k",
          "split_size", "reduce_m", "reduce_k", "reduce_size", "range_m", "tail_m", "tail_split_size",
          "tail_reduce_size")
LANES = 64


class SoftmaxTiling:
    """The SoftMaxTiling record (field names of real pyasc adv/tiling.py).  Built on the host by
    get_softmax_tiling or in a kernel from compile-time ints."""

    _asc_builder = True   # constructible inside @asc.jit (compile-time record)

    def __init__(self, _b=None, **fields):
        for f in FIELDS:
            setattr(self, f, 0)
        for k, v in fields.items():
            if k not in FIELDS:
                raise TypeError(f"SoftmaxTiling has no field '{k}'")
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"SoftmaxTiling.{k} must be a compile-time int, got {'a run-time ' + _o.tensor_type_name(v) if isinstance(v, _o.RVal) else repr(v)}")
            setattr(self, k, v)

    def __eq__(self, other):
        return isinstance(other, SoftmaxTiling) and all(getattr(self, f) == getattr(other, f) for f in FIELDS)

    def __repr__(self):
        return "SoftmaxTiling(" + ", ".join(f"{f}={getattr(self, f)}" for f in FIELDS if getattr(self, f)) + ")"


class SoftMaxShapeInfo:
    """Ascend C SoftMaxShapeInfo{srcM, srcK, oriSrcM, oriSrcK}."""

    _asc_builder = True

    def __init__(self, src_m=0, src_k=0, ori_src_m=0, ori_src_k=0, _b=None):
        self.src_m, self.src_k = src_m, src_k
        self.ori_src_m, self.ori_src_k = ori_src_m or src_m, ori_src_k or src_k


ShapeInfo = SoftMaxShapeInfo


def get_softmax_tiling(src_m, src_k, dtype_size=4):
    """Host helper (Ascend C SoftMaxTilingFunc, softmax_tiling_func.h, simplified): the tiling
    of an [src_m, src_k] softmax done one row at a time: split = one row, reduce = one 32 B block
    per row."""
    blk = 32 // dtype_size
    return SoftmaxTiling(src_m=src_m, src_k=src_k, src_size=src_m * src_k, out_max_m=src_m, out_max_k=blk,
                         out_max_size=src_m * blk, split_m=1, split_k=src_k, split_size=src_k, reduce_m=1,
                         reduce_k=blk, reduce_size=blk, range_m=src_m, tail_m=0, tail_split_size=0,
                         tail_reduce_size=0)


def _row_bcast(b, op, row, bcast, w):
    """row[i] = row[i] (op) bcast[0..7] for i < w: 64-lane repeats reading one 32 B block of
    copies (src1 strides 0), then one repeat masked to the tail (as kernels/pyasc/_common.py)."""
    fn = {"sub": _o.sub, "div": _o.div}[op]
    rep = BinaryRepeatParams(1, 1, 0, 8, 8, 0)
    full, tail = divmod(w, LANES)
    if full:
        fn(row, row, bcast, mask=LANES, repeat_times=full, repeat_params=rep, _b=b)
    if tail:
        t = row[full * LANES:]
        fn(t, t, bcast, mask=tail, repeat_times=1, repeat_params=rep, _b=b)


def _shape(b, shape_info, tiling, src):
    for s in (shape_info, src.get_shape_info()):
        if s is None:
            continue
        if isinstance(s, SoftMaxShapeInfo):
            return s.src_m, s.src_k, s.ori_src_k
        dims = list(getattr(s, "shape", s))
        if len(dims) >= 2:
            m = 1
            for d in dims[:-1]:
                m *= d
            return m, dims[-1], dims[-1]
    if tiling.src_m and tiling.src_k:
        return tiling.src_m, tiling.src_k, tiling.src_k
    raise b.error("asc.adv.softmax: no shape: give shape_info=SoftMaxShapeInfo(m, k, m, ori_k), a tiling with "
                  "src_m/src_k, or src.set_shape_info")


@intrinsic
def softmax(dst, sum, max, src, tiling, temp_buffer=None, reuse_source=False, basic_block=False,  # noqa: A002
            data_format_nz=False, shape_info=None, *, _b):
    """dst = exp(src - rowmax) / rowsum over the last axis; sum/max receive rowsum/rowmax."""
    b = _b
    for nm, t in (("dst", dst), ("sum", sum), ("max", max), ("src", src)):
        _need_ub(b, "softmax", t, nm)
    if not isinstance(tiling, SoftmaxTiling):
        raise b.error(f"asc.adv.softmax: tiling must be an asc.adv.SoftmaxTiling, got {tensor_type_name(tiling)}")
    if data_format_nz:
        raise b.error("asc.adv.softmax: data_format_nz=True (NZ layout) is not supported; pass ND rows")
    if src.dtype.isa not in ("f16", "f32") or dst.dtype != src.dtype:
        raise b.error(f"asc.adv.softmax: src and dst must both be float16 or float32, got {src.dtype.name} and "
                      f"{dst.dtype.name}")
    if sum.dtype != max.dtype or sum.dtype.isa not in (src.dtype.isa, "f32"):
        raise b.error(f"asc.adv.softmax: sum and max must have src's dtype or float32, got {sum.dtype.name} and "
                      f"{max.dtype.name}")
    m, k, ori_k = _shape(b, shape_info, tiling, src)
    if not all(is_static(v) and isinstance(v, int) for v in (m, k, ori_k)):
        raise b.error("asc.adv.softmax: the shape must be compile-time integers")
    if k * src.dtype.sizeof() % 32:
        raise b.error(f"asc.adv.softmax: the row length k={k} is not a whole number of 32 B blocks "
                      f"({src.dtype.name}); pad the rows (ori_k gives the real length)")
    if not 1 <= ori_k <= k or m < 1:
        raise b.error(f"asc.adv.softmax: bad shape m={m}, k={k}, ori_k={ori_k}")
    for nm, t, need in (("src", src, m * k), ("dst", dst, m * k), ("sum", sum, m * 32 // sum.dtype.sizeof()),
                        ("max", max, m * 32 // max.dtype.sizeof())):
        if is_static(t.size) and t.size and t.size < need:
            raise b.error(f"asc.adv.softmax: {nm} holds {t.size} elements, the shape needs {need}")
    kp = -(-k // LANES) * LANES
    # slices: row (kp), work (kp), red (64), bcast (64), b16 (64)
    T, ch = _temp(b, "softmax", temp_buffer, 2, kp + 3 * LANES, kp + 3 * LANES)
    if ch < kp + 3 * LANES // 2:
        raise b.error(f"asc.adv.softmax: temp_buffer too small for rows of {k}: needs {2 * 4 * (kp + 96)} bytes")
    base = T[0]
    row, work = base[0:kp], T[1][0:kp]
    red, bcast, b16 = base[kp:kp + LANES], T[1][kp:kp + LANES], base[kp + LANES:kp + 2 * LANES]
    f32 = dt.float32
    half = src.dtype.isa == "f16"
    per = 32 // sum.dtype.sizeof()
    for r in range(m):
        if half:
            _o.cast(row, src[r * k:], RoundMode.CAST_NONE, ori_k, _b=b)
            x = row
        else:
            x = src[r * k:]
        _o.reduce_max(red, x, work, ori_k, _b=b)
        _o.brcb(bcast, red, 1, BrcbRepeatParams(1, 8), _b=b)
        _write_stat(b, max[r * per:], bcast, b16, per)
        y = row
        if not half:
            _o.adds(row, x, 0.0, ori_k, _b=b)
        _row_bcast(b, "sub", y, bcast, ori_k)
        _o.exp(y, y, ori_k, _b=b)
        _o.reduce_sum(red, y, work, ori_k, _b=b)
        _o.brcb(bcast, red, 1, BrcbRepeatParams(1, 8), _b=b)
        _write_stat(b, sum[r * per:], bcast, b16, per)
        _row_bcast(b, "div", y, bcast, ori_k)
        if half:
            _o.cast(dst[r * k:], y, RoundMode.CAST_RINT, ori_k, _b=b)
        else:
            _o.adds(dst[r * k:], y, 0.0, ori_k, _b=b)
    del f32


def _write_stat(b, out, bcast, b16, per):
    """out[0:per] = bcast[0] (per = 8 float32 or 16 float16: one 32 B block)."""
    if per == 8:
        _o.adds(out, bcast, 0.0, 8, _b=b)
        return
    _o.adds(b16, bcast, 0.0, 8, _b=b)
    _o.adds(b16[8:], bcast, 0.0, 8, _b=b)
    _o.cast(out, b16, RoundMode.CAST_RINT, 16, _b=b)
