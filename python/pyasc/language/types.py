"""Parameter structs of the kernel language (real pyasc `asc.language.core.types`).

Users: kernels build them (`asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)`); the compiler reads their
fields.  They are plain records: a field holds a Python int (known at compile time) or a
run-time scalar of the compiler; no IR is emitted when they are built.  Field names and defaults
follow upstream so keyword construction works the same.
"""
from __future__ import annotations


class _Params:
    _fields: tuple = ()
    _defaults: tuple = ()

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(self._fields)} arguments, "
                            f"got {len(args)}")
        vals = dict(zip(self._fields, self._defaults))
        vals.update(zip(self._fields, args))
        for k, v in kwargs.items():
            if k not in vals:
                raise TypeError(f"{type(self).__name__} has no field '{k}' "
                                f"(fields: {', '.join(self._fields)})")
            vals[k] = v
        missing = [k for k, v in vals.items() if v is _REQUIRED]
        if missing:
            raise TypeError(f"{type(self).__name__} needs {', '.join(missing)}")
        for k, v in vals.items():
            setattr(self, k, v)

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields) + ")"


_REQUIRED = object()


class BinaryRepeatParams(_Params):
    _fields = ("dst_blk_stride", "src0_blk_stride", "src1_blk_stride", "dst_rep_stride",
               "src0_rep_stride", "src1_rep_stride")
    _defaults = (1, 1, 1, 8, 8, 8)


class UnaryRepeatParams(_Params):
    _fields = ("dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride")
    _defaults = (1, 1, 8, 8)


class VdeqInfo:
    """Real pyasc asc.VdeqInfo(scale, offset, sign_mode) (asc.language.core.types; Ascend C VdeqInfo):
    the 16 parameter sets of the vector CastDequant, three lists of 16 compile-time values (float
    scales, 9-bit offsets in [-256, 255], bool sign modes).  asc.set_deq_scale(vdeq, info) checks
    them and writes the 128 B table."""

    def __init__(self, scale=None, offset=None, sign_mode=None):
        if scale is None or offset is None or sign_mode is None:
            raise TypeError("VdeqInfo requires scale, offset and sign_mode (three lists of 16)")
        self.scale, self.offset, self.sign_mode = list(scale), list(offset), list(sign_mode)
        if len(self.scale) != 16 or len(self.offset) != 16 or len(self.sign_mode) != 16:
            raise TypeError(f"VdeqInfo takes lists of 16 (Ascend C VDEQ_TENSOR_SIZE), got "
                            f"{len(self.scale)}, {len(self.offset)}, {len(self.sign_mode)}")

    def __repr__(self):
        return f"VdeqInfo(scale={self.scale!r}, offset={self.offset!r}, sign_mode={self.sign_mode!r})"


class BrcbRepeatParams(_Params):
    _fields = ("dst_blk_stride", "dst_rep_stride")
    _defaults = (1, 8)


class CopyRepeatParams(_Params):
    # real pyasc's defaults are all 0 (unlike Ascend C's 1, 1, 8, 8): kernels pass them explicitly
    _fields = ("dst_stride", "src_stride", "dst_repeat_size", "src_repeat_size")
    _defaults = (0, 0, 0, 0)


class DataCopyParams(_Params):
    _fields = ("block_count", "block_len", "src_stride", "dst_stride")
    _defaults = (1, 0, 0, 0)


class DataCopyExtParams(_Params):
    # DataCopyPad bursts (Ascend C DataCopyExtParams): block_len in bytes; src_stride / dst_stride
    # are the gaps between bursts, in bytes on the GM side and in 32 B blocks on the UB side.
    _fields = ("block_count", "block_len", "src_stride", "dst_stride", "rsv")
    _defaults = (1, 0, 0, 0, 0)


class DataCopyPadExtParams(_Params):
    # real pyasc: DataCopyPadExtParams(dtype, is_pad, left_padding, right_padding, padding_value);
    # paddings count elements (at most 32 bytes each).
    _fields = ("dtype", "is_pad", "left_padding", "right_padding", "padding_value")
    _defaults = (None, False, 0, 0, 0)


class Nd2NzParams(_Params):
    # real pyasc asc.Nd2NzParams (python/asc/language/core/types.py): Ascend C's Nd2NzParams, the
    # DataCopy GM -> L1 with ND -> NZ conversion; strides in elements, the dst_nz_* ones in 32 B.
    _fields = ("nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_d_value", "dst_nz_c0_stride",
               "dst_nz_n_stride", "dst_nz_matrix_stride")
    _defaults = (_REQUIRED,) * 8


class DataCopyPadParams(_Params):
    _fields = ("is_pad", "left_padding", "right_padding", "padding_value")
    _defaults = (False, 0, 0, 0)


class LoadData2DParams(_Params):
    _fields = ("start_index", "repeat_times", "src_stride", "sid", "dst_gap", "if_transpose", "addr_mode")
    _defaults = (0, 1, 0, 0, 0, False, 0)


class MmadParams(_Params):
    # cmatrix_init_val is Ascend C's cmatrixInitVal (default true: C = A x B); accumulate with False.
    _fields = ("m", "n", "k", "unit_flag", "fm_offset", "filter_offset", "cmatrix_init_val")
    _defaults = (_REQUIRED, _REQUIRED, _REQUIRED, 0, 0, 0, True)


class FixpipeParamsV220(_Params):
    # the 6th positional is relu_en here (asc's kernels pass it so); real pyasc's is deq_scalar, which
    # is a keyword (deq_scalar=) here: asc.fixpipe rejects a relu_en that is not 0/1/bool
    _fields = ("n_size", "m_size", "src_stride", "dst_stride", "quant_pre", "relu_en", "unit_flag",
               "is_channel_split", "nz2nd_en", "deq_scalar")
    _defaults = (0, 0, 0, 0, 0, False, 0, False, True, None)
