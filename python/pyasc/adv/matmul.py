"""asc.adv.Matmul: real pyasc's matmul object (hicann/pyasc python/asc/language/adv/matmul.py and
types.py; Ascend C impl/adv_api/detail/matmul in cannmirror/asc-devkit), lowered here to the cube
data path of the existing compiler: GM -> L1 (ND -> NZ copies) -> L0A/L0B (load_data) -> mmad into
L0C -> fixpipe to GM.  Nothing here computes data: every element goes through the ISA.

Scheme (docs/pyasc.md "asc.adv.Matmul"): the host's TCubeTiling is a compile-time constant of the
kernel (each tiling compiles its own kernel).  The single-core output (single_core_m x
single_core_n, or what set_tail / set_single_shape give, possibly run-time values) is walked in
base_m x base_n tiles, M first (iterate_order 0) or N first; each tile accumulates over base_k
steps.  L1 holds the tiling's depth_a1 / depth_b1 base blocks as fills of step_m x step_ka (A) and
step_kb x step_n (B) base blocks, double-buffered when depth >= 2 step, a fill in L1 reused by later
tiles (_l1_plan, _walk_plan; docs/pyasc.md "How asc.adv.Matmul uses depth and step"); L0A/L0B
ping-pong over the whole walk (hand-offs by set_flag/wait_flag MTE2->MTE1->M, frees MTE1->MTE2 and
M->MTE1), one L0C tile read out by the FIX pipe after the last step.  The flags are settled at the
walk's end; the copies of a tile that a run-time tail leaves empty move nothing and its fixpipe
is skipped by a run-time `if`.  mmad runs on the tile padded to the 16-row
fractal with the exact K (the cube ignores K padding), fixpipe writes the exact rows and columns.
The Matmul owns L1, L0A, L0B and L0C of its core from address 0.

Where it computes (matmul_kfc.role): on the AIC of a cube-only kernel or inside
`if asc.ascend_is_aic():` the AIC computes in place; in a mix kernel whose code calls the Matmul
outside the core-kind branches (real pyasc's tutorials 03 and 05) the AIVs are clients and the
AIC serves their calls (adv/matmul_kfc.py: messages in the GM workspace, cross-core flags).

Limits (rejected at the kernel line with the reason): inputs f16, bf16, f32 (every layout: A stored K x M
and B stored K x N go to L1 as 16-row blocks of fractals, _nd2zz, and to L0 through LoadDataWithTranspose,
load_l1_to_l0_2dt; set_hf32 rounds them to HF32) or int8; a float32 bias (set_bias)
where the AIC computes (_bias_init: an exact lowering, the bias table is not modelled), where a mix
kernel's AIV receives C in UB (get_tensor_c), and for a mix kernel's iterate_all into GM (the serving AIC
adds it; the tiling must have is_bias); int8 inputs (every layout:
A stored K x M and B stored K x N go to L1 as NZ with 32-column blocks and K padded to 32, and to L0
through LoadDataWithTranspose b8, M and N padded to 32 as Ascend C pads them) and set_quant_scalar / set_quant_vector where the AIC computes (_fix_out); sparse
is rejected.  The asynchronous interfaces (sync=False, set_workspace, wait_*) work from a mix
kernel's AIV (matmul_kfc.py), and so do iterate_batch, iterate_n_batch + get_batch_tensor_c
(for a Matmul whose A MatmulType has a layout; iterate_n_batch with MatmulConfig is_n_batch), up
to 4 Matmul objects in one register_matmul, and register_matmul inside a run-time branch.  Not
from the AIV (errors): C of G = 1 under A / B G > 1, matrix_stride_c,
get_batch_tensor_c into UB with N * 4 not a multiple of 32 B (ND_ALIGN) (matmul_kfc.py module
text).
K must be known at compile time.
"""
from __future__ import annotations

from ..compiler import ir
from ..compiler.builder import RVal, is_static
from ..compiler.errors import CompileError
from ..language import dtype as dt
from ..language import ops as _ops
from ..language import cube_fill as _fill
from ..language import load2dt as _ldt
from ..language.load2dt import LoadData2dTransposeParams
from ..language.adv_tiling import TCubeTiling
from . import matmul_kfc as _kfc
from ..language.enums import CubeFormat, HardEvent, LayoutMode, TPosition
from ..language.tensor import GlobalTensor, LocalTensor
from ..language.types import DataCopyExtParams, DataCopyParams, FixpipeParamsV220, LoadData2DParams, MmadParams, Nd2NzParams

__all__ = ["Matmul", "MatmulType", "MatmulConfig", "MatmulBatchParams", "MatmulFuncParams", "MatmulQuantParams",
           "MatmulShapeParams", "QuantConfig", "MatmulApiStaticTiling", "get_basic_config",
           "get_ib_share_norm_config", "get_matmul_api_tiling", "get_mdl_config", "get_mm_config",
           "get_normal_config", "get_special_basic_config", "get_special_mdl_config", "register_matmul"]


def _rejected(name, why):
    def f(*a, _b=None, **k):
        if _b is not None:      # in a kernel: an error at the caller's line
            raise CompileError(f"asc.adv.{name} is not supported: {why}", _b.loc)
        raise RuntimeError(f"asc.adv.{name} is not supported: {why}")
    f.__name__ = name
    f.__asc_rejected__ = why
    f._asc_builder = True
    return f


class MatmulType:
    """MatmulType(position, format, dtype, is_trans=False, layout=..., ...) of A, B, C or bias."""

    def __init__(self, position=TPosition.GM, format=CubeFormat.ND, dtype=None, is_trans=False,  # noqa: A002
                 layout=None, ibshare=False, *, _b=None):
        self.position, self.format, self.dtype, self.is_trans = TPosition(position), format, dtype, bool(is_trans)
        self.layout, self.ibshare = layout, ibshare
    _asc_builder = True


class _Params:
    _fields: tuple = ()

    def __init__(self, *args, _b=None, **kw):
        for f, v in zip(self._fields, args):
            setattr(self, f, v)
        for k, v in kw.items():
            setattr(self, k, v)
    _asc_builder = True


class MatmulShapeParams(_Params):
    _fields = ("single_core_m", "single_core_n", "single_core_k", "basic_m", "basic_n", "basic_k")


class MatmulQuantParams(_Params):
    _fields = ("is_per_tensor", "has_anti_quant_offset")


class MatmulBatchParams(_Params):
    _fields = ("is_n_batch", "batch_mode", "is_bias_batch", "bmm_mode")


class MatmulFuncParams(_Params):
    _fields = ("intrinsics_limit", "en_vec_nd2nz", "enable_double_cache", "enable_l1_cache_ub", "iterate_order",
               "schedule_type", "enable_reuse", "enable_ub_reuse", "is_partial_output", "is_a2b2_shared",
               "is_enable_channel_split", "enable_kdim_reorder_load")


class QuantConfig(_Params):
    _fields = ("mode",)


class MatmulConfig(_Params):
    """The template configuration (Ascend C MatmulConfig).  Our lowering is the same for every
    template: the tiling decides the blocks, the config is recorded only."""
    _fields = ("do_norm", "do_basic_block", "do_multi_data_load", "basic_m", "basic_n", "basic_k",
               "intrinsics_check", "is_n_batch", "en_vec_nd2nz", "do_special_basic_block", "do_mte2_preload",
               "single_core_m", "single_core_n", "single_core_k", "step_m", "step_n", "base_mn", "single_core_mn",
               "enable_ub_reuse", "enable_l1_cache_ub", "intra_block_part_sum", "iterate_order", "schedule_type",
               "enable_reuse", "enable_double_cache", "is_bias_batch", "enable_static_pad_zeros",
               "is_partial_output", "enable_mix_dual_master", "is_a2b2_shared", "is_enable_channel_split",
               "enable_kdim_reorder_load", "is_co1_shared", "shared_co1_buffer_size", "batch_mode")


def _config(kind):
    def f(*args, _b=None, **kw):
        c = MatmulConfig(**kw)
        c.kind = kind
        c.args = args
        return c
    f.__name__ = f"get_{kind}_config"
    f._asc_builder = True
    f.__doc__ = f"Real pyasc get_{kind}_config: a MatmulConfig of the {kind} template."
    return f


get_normal_config = _config("normal")
get_mdl_config = _config("mdl")
get_basic_config = _config("basic")
get_special_basic_config = _config("special_basic")
get_special_mdl_config = _config("special_mdl")
get_ib_share_norm_config = _config("ib_share_norm")
get_mm_config = _config("mm")

get_matmul_api_tiling = _rejected("get_matmul_api_tiling", "compile-time constant tilings (MatmulApiStaticTiling) "
                                  "are not modelled: pass the host's TCubeTiling, which is a compile-time "
                                  "constant of the kernel here anyway")


class MatmulApiStaticTiling:
    __asc_rejected__ = get_matmul_api_tiling.__asc_rejected__

    _asc_builder = True

    def __init__(self, *a, _b=None, **k):
        if _b is not None:      # in a kernel: an error at the caller's line
            raise CompileError(f"asc.adv.MatmulApiStaticTiling is not supported: {self.__asc_rejected__}", _b.loc)
        raise RuntimeError(f"asc.adv.MatmulApiStaticTiling is not supported: {self.__asc_rejected__}")


def register_matmul(pipe, workspace, matmul, tiling=None, *more, _b=None):
    """REGIST_MATMUL_OBJ(pipe, workspace, mm1, tiling1[, mm2, tiling2, ...]): bind the tiling (and
    the workspace) to the Matmul object(s); an object without its own tiling takes the first's.
    A mix kernel's AIC serves up to MAX_OBJS objects (matmul_kfc.py: word 9 of a message)."""
    objs, tilings = [matmul], [tiling]
    for x in more:
        if isinstance(x, Matmul):
            objs.append(x)
            tilings.append(None)
        elif isinstance(x, TCubeTiling) and tilings[-1] is None:
            tilings[-1] = x
        else:
            raise CompileError(f"asc.adv.register_matmul takes Matmul objects, each followed by its TCubeTiling "
                               f"(REGIST_MATMUL_OBJ(pipe, workspace, mm1, tiling1, mm2, tiling2, ...)); got "
                               f"{type(x).__name__} here", _b.loc if _b else None)
    tilings = [t if t is not None else tilings[0] for t in tilings]
    b = objs[0].b
    mix = any(m.role != "direct" for m in objs)
    if b is not None and mix:
        if len(objs) > _kfc.MAX_OBJS:
            raise CompileError(f"asc.adv.register_matmul: a mix kernel's AIC serves at most {_kfc.MAX_OBJS} Matmul "
                               f"objects here (adv/matmul_kfc.py), this call registers {len(objs)}", b.loc)
        if len(set(map(id, objs))) != len(objs):
            raise CompileError("asc.adv.register_matmul: the same Matmul object is registered twice", b.loc)
        prev = getattr(b, "kfc_objs", None)
        if prev is not None:
            # the AIC's server loop (emitted at the first registration) serves that call's objects
            # alone: a later object's calls would never be answered
            raise CompileError("asc.adv.register_matmul: a mix kernel whose AIVs call Matmuls registers them all in "
                               "one register_matmul(pipe, workspace, mm1, tiling1, mm2, tiling2, ...) call (Ascend "
                               "C's REGIST_MATMUL_OBJ: the AIC enters its server loop there), and this kernel "
                               "registers again", b.loc)
        b.kfc_objs = objs
    for m, t in zip(objs, tilings):
        m.init(t)
        m.workspace = workspace
    if b is not None and mix:
        if objs[0].role == "server":
            _kfc.serve(objs)
        elif objs[0].role == "client":
            _kfc.client_register(objs)


register_matmul._asc_builder = True

_UNSUP = {
    "set_sparse_index": "the sparse (structured 4:2) cube path is not modelled",
    "set_self_define_data": "Matmul callbacks (MatmulCallBackFunc) are not modelled",
    "set_user_def_info": "Matmul callbacks (MatmulCallBackFunc) are not modelled",
    "get_offset_c": "reserved in real pyasc (no behaviour documented)",
}
_INPUTS = ("float16", "bfloat16", "float32", "int8")


def _when(b, cond_lo, cond_hi, emit):
    """emit() when cond_lo < cond_hi; a run-time `if` when either is a run-time value."""
    if is_static(cond_lo) and is_static(cond_hi):
        if cond_lo < cond_hi:
            emit()
        return
    op = ir.If(name="if", cond=("lt", b.reg(cond_lo), b.reg(cond_hi)), loc=b.loc)
    b.push(op.then)
    emit()
    b.pop()
    b.emit(op)


def _min(b, x, y):
    if is_static(x) and is_static(y):
        return min(x, y)
    return b.binop("min", x, y)


def _max0(b, x):
    return max(0, x) if is_static(x) else b.binop("max", x, 0)


def _no_async(m, what):
    raise CompileError(f"asc.adv.Matmul.{what}: the asynchronous interfaces serve a mix kernel's AIV (the AIC "
                       f"computes while the AIV goes on); where the AIC computes in place (a cube-only kernel or "
                       f"inside if asc.ascend_is_aic():) the Matmul is synchronous", m.b.loc if m.b else None)


def _static_bool(b, v, fn, what):
    if not is_static(v):
        raise CompileError(f"asc.adv.Matmul.{fn}: {what} must be a compile-time bool (it picks Ascend C's "
                           f"template <bool sync>)", b.loc if b else None)
    return bool(v)


def _is_bias_batch(cfg):
    """MatmulConfig isBiasBatch as real pyasc builds it (python/asc/language/adv/types.py: MatmulConfig
    default True; get_mm_config: False unless a MatmulBatchParams says so, whose default is False)."""
    if cfg is None:
        return True
    if getattr(cfg, "kind", None) == "mm":
        bp = [x for x in getattr(cfg, "args", ()) if isinstance(x, MatmulBatchParams)]
        return bool(getattr(bp[-1], "is_bias_batch", False)) if bp else False
    v = getattr(cfg, "is_bias_batch", None)
    return True if v is None else bool(v)


def _up(x, a):
    return -(-x // a) * a


class Matmul:
    """C = A x B on the cube (see the module text).  Created in a kernel as
    asc.adv.Matmul(a=MatmulType, b=MatmulType, c=MatmulType[, bias, matmul_config])."""
    _asc_builder = True

    def __init__(self, a=None, b=None, c=None, bias=None, matmul_config=None, matmul_policy=0, *, _b=None):
        self.b = _b
        self.a_type, self.b_type, self.c_type, self.bias_type = a, b, c, bias
        self.config = matmul_config
        self.tiling = None
        self.workspace = None
        self.ta = self.tb = None
        self.trans_a = bool(a.is_trans) if a is not None else False
        self.trans_b = bool(b.is_trans) if b is not None else False
        self.tail = None
        self.org = None
        self.count = 0
        self.bias_gm = None
        self.quant = None
        self._count = None
        self.cache = self.cache_bytes = None     # set_workspace: where iterate(sync=False) leaves C's tiles
        self._async_iter = False                 # an iterate(sync=False) was compiled (get_tensor_c(sync=False))
        self._wait_all = False                   # an iterate_all(sync=False, wait_iterate_all=True) was compiled
        self._wait_batch = False                 # the same for iterate_batch / iterate_n_batch
        self._batch_counts = None
        self.role = _kfc.role(self) if _b is not None else "direct"
        if self.role == "client":
            _b.needs_mix = True     # compiler/driver.py: the AIC program serves this AIV's calls
        for t, what in ((a, "a"), (b, "b")):
            if t is not None and t.dtype is not None and t.dtype.name not in _INPUTS:
                raise CompileError(f"asc.adv.Matmul: {what} is {t.dtype.name}; the lowering takes float16, "
                                   f"bfloat16, float32 or int8 inputs (mmad.f16f32 / mmad.bf16f32 / mmad.f32f32 / "
                                   f"mmad.s8s32)", _b.loc if _b else None)

    # ---- setup ----------------------------------------------------------------------------
    def init(self, tiling, pipe=None, *a, **k):
        if not isinstance(tiling, TCubeTiling):
            raise CompileError("asc.adv.Matmul needs the host's asc.adv.TCubeTiling (a kernel argument)", self.b.loc)
        if self.role != "direct" and self.tiling is not None and tiling is not self.tiling:
            raise CompileError("asc.adv.Matmul.init with a second tiling in a mix kernel whose AIVs call the "
                               "Matmul: the AIC's server loop serves the tiling of the registration", self.b.loc)
        self.tiling = tiling

    def set_tensor_a(self, gm, is_trans_a=False, *a, **k):
        self._need_global(gm, "set_tensor_a")
        self._client_trans("a", is_trans_a)
        self.ta, self.trans_a = gm, bool(is_trans_a)

    def set_tensor_b(self, gm, is_trans_b=False, *a, **k):
        self._need_global(gm, "set_tensor_b")
        self._client_trans("b", is_trans_b)
        self.tb, self.trans_b = gm, bool(is_trans_b)

    def _client_trans(self, what, v):
        if self.role == "client" and bool(v) != getattr(self, "trans_" + what):
            raise CompileError(f"asc.adv.Matmul.set_tensor_{what}: in a mix kernel the AIC serving this call "
                               f"takes the transpose from the MatmulType (is_trans="
                               f"{getattr(self, 'trans_' + what)}); pass the same value here", self.b.loc)

    def set_bias(self, gm, *a, **k):
        if self.role == "server":       # the AIC has returned: its server loop runs the AIVs' calls
            return
        if self.role == "client":
            # added where C is produced: by the AIV in UB after get_tensor_c (matmul_kfc.get_tensor_c), or
            # by the serving AIC for iterate_all into GM (the bias address travels in the message), which
            # compiles that path when the tiling has is_bias (host enable_bias(True))
            self._need_global(gm, "set_bias")
            if gm.dtype.name != "float32":
                raise CompileError(f"asc.adv.Matmul.set_bias: the bias row is {gm.dtype.name}; the lowering here "
                                   f"takes a float32 bias (C float32)", self.b.loc)
            self.bias_gm = gm
            return
        self._need_global(gm, "set_bias")
        if gm.dtype.name != "float32":
            raise CompileError(f"asc.adv.Matmul.set_bias: the bias row is {gm.dtype.name}; the lowering here "
                               f"takes a float32 bias (C float32)", self.b.loc)
        self.bias_gm = gm       # _bias_init: L0C starts from the bias row (see there)

    def set_quant_scalar(self, quant_scalar):
        """SetQuantScalar: one u64 quantisation parameter for all of C (the f32 scale in bits 31:0; offset
        45:37 and sign 46 for int8 / uint8 C), the readout's mode chosen from the L0C and C types as
        Ascend C does (_fix_out)."""
        self._quant_role("set_quant_scalar")
        self.quant = ("scalar", quant_scalar)

    def set_quant_vector(self, quant_vector):
        """SetQuantVector: a uint64 GlobalTensor of N parameters, one per column of C (fields as
        set_quant_scalar)."""
        self._quant_role("set_quant_vector")
        if not isinstance(quant_vector, GlobalTensor) or quant_vector.dtype is None or \
                quant_vector.dtype.name != "uint64":
            raise CompileError(f"asc.adv.Matmul.set_quant_vector takes a uint64 GlobalTensor (one u64 per column "
                               f"of C), got {type(quant_vector).__name__}"
                               f"[{getattr(getattr(quant_vector, 'dtype', None), 'name', '?')}]", self.b.loc)
        self.quant = ("vector", quant_vector)

    def _quant_role(self, what):
        if self.role != "direct":
            raise CompileError(f"asc.adv.Matmul.{what}: the quantised readout runs where the AIC computes (a "
                               f"cube-only kernel or `if asc.ascend_is_aic():`); from a mix kernel's AIV it is "
                               f"not implemented", self.b.loc)

    def set_hf32(self, enable_hf32=False, trans_mode=0):
        """SetHF32 (real pyasc docs asc.language.adv.Matmul.set_hf32; Ascend C MatmulImplBase::SetHF32 in
        cannmirror/asc-devkit impl/adv_api/detail/matmul/matmul_impl_base.h): HF32 mode on or off
        (CTRL bit 46, SetHF32Mode) and its rounding, trans_mode 1 toward zero, else to nearest even
        (bit 47, SetHF32TransMode); every float32 mmad after it rounds its L0A / L0B inputs to HF32
        (sim/exec_cube.c hf32_round).  Real pyasc: only in a pure Cube kernel (here: where the AIC
        computes).  The bias row's rank-1 mmad (_bias_init) runs with HF32 off, as the hardware's
        bias table path does not round the bias."""
        b = self.b
        if self.role == "server":
            return
        if self.role != "direct":
            raise CompileError("asc.adv.Matmul.set_hf32 is only for a pure Cube kernel (real pyasc: "
                               "'本接口仅支持在纯Cube模式下调用'); here: where the AIC computes (a cube-only kernel or "
                               "`if asc.ascend_is_aic():`)", b.loc)
        if is_static(trans_mode) and (isinstance(trans_mode, bool) or not isinstance(trans_mode, int)
                                      or trans_mode not in (0, 1)):
            raise CompileError(f"asc.adv.Matmul.set_hf32: trans_mode is {trans_mode!r}; it must be 0 (round to "
                               f"nearest even) or 1 (toward zero), as Ascend C's SetHF32 asserts", b.loc)
        _ops.set_hf32_mode.__wrapped__(enable_hf32 if not is_static(enable_hf32) else bool(enable_hf32), _b=b)
        _ops.set_hf32_trans_mode.__wrapped__(trans_mode == 1 if is_static(trans_mode) else b.binop("seq", trans_mode, 1),
                                             _b=b)

    def disable_bias(self, *a, **k):
        if self.role != "server":       # the bias is added where C is computed (direct) or received (client)
            self.bias_gm = None

    def set_tail(self, tail_m=-1, tail_n=-1, tail_k=-1):
        self.tail = (tail_m, tail_n, tail_k)

    def set_single_shape(self, single_m, single_n, single_k):
        self.tail = (single_m, single_n, single_k)

    def set_org_shape(self, org_m, org_n, org_ka, org_kb=None, org_kc=None):
        if self.role == "client":
            raise CompileError("asc.adv.Matmul.set_org_shape in a mix kernel: the AIC serving the call takes "
                               "the shape from the tiling (set it on the host)", self.b.loc)
        self.org = (org_m, org_n, org_ka, org_ka if org_kb is None else org_kb)

    def end(self):
        pass

    def _need_global(self, gm, what):
        if what == "set_bias" and not isinstance(gm, GlobalTensor):
            raise CompileError(f"asc.adv.Matmul.set_bias: the bias row comes from GM here (a GlobalTensor); "
                               f"got {type(gm).__name__}", self.b.loc)
        if not isinstance(gm, GlobalTensor):
            raise CompileError(f"asc.adv.Matmul.{what}: A and B come from GM here (a GlobalTensor); "
                               f"got {type(gm).__name__}", self.b.loc)

    # ---- compute --------------------------------------------------------------------------
    def iterate_all(self, tensor, en_atomic=0, sync=True, en_sequential_write=False, wait_iterate_all=False,
                    fake_msg=False):
        b = self.b
        c_gm = tensor
        sync = _static_bool(b, sync, "iterate_all", "sync")
        if wait_iterate_all and sync:
            raise CompileError("asc.adv.Matmul.iterate_all: wait_iterate_all=True only with sync=False (real "
                               "pyasc: 'Param wait_iterate_all can be True only when sync is False')", b.loc)
        if not sync and self.role == "direct":
            _no_async(self, "iterate_all(sync=False)")
        if not isinstance(c_gm, GlobalTensor):
            raise CompileError("asc.adv.Matmul.iterate_all writes C to a GlobalTensor (the C position VECIN/"
                               "VECCALC of a mix kernel's AIV is not implemented)", b.loc)
        if en_atomic:
            raise CompileError("asc.adv.Matmul.iterate_all: en_atomic (an atomic-add fixpipe) is not lowered", b.loc)
        if self.role == "server":
            return
        if self.role == "client":
            self._client_ready()
            if sync:
                _kfc.send(self, _kfc.F_ALL, c_addr=c_gm.addr)
            else:
                # IterateAll<false> (matmul_client.h): post and go on; with waitIterateAll the
                # server notifies at the end (matmul_server_impl_c220.h Iterate) and
                # wait_iterate_all takes it.  C in GM is the AIC's until then.
                _kfc.send(self, _kfc.F_ALL, c_addr=c_gm.addr, wait=False, async_=True)
                self._wait_all = self._wait_all or bool(wait_iterate_all)
            return
        self._prepare()
        for ti in self._tiles():
            self._tile(ti, c_gm)

    def _prepare(self):
        b = self.b
        if b.fn.kernel_kind != "aic":
            # unreachable from a kernel: matmul_kfc.role() makes every non-AIC Matmul a client (or
            # refuses an AIV-only kernel), so only a compiler bug gets here
            raise CompileError(f"internal: asc.adv.Matmul's cube lowering reached a {b.fn.kernel_kind} program "
                               f"(adv/matmul_kfc.py role() should have made it a client)", b.loc)
        if self.tiling is None:
            raise CompileError("asc.adv.Matmul used before asc.adv.register_matmul / init", b.loc)
        if self.ta is None or self.tb is None:
            raise CompileError("asc.adv.Matmul: set_tensor_a and set_tensor_b come before iterate", b.loc)
        t = self.tiling
        m, n, ka, kb = self.org or (t.m, t.n, t.k_a, t.k_b)
        sm, sn, sk = int(t.single_core_m), int(t.single_core_n), int(t.single_core_k)
        tm, tn, tk = sm, sn, sk
        if self.tail is not None:
            vals = [v if not (is_static(v) and v <= 0) else d for v, d in zip(self.tail, (sm, sn, sk))]
            tm, tn, tk = vals
            if is_static(tm):
                sm = int(tm)
            if is_static(tn):
                sn = int(tn)
        if not is_static(tk):
            raise CompileError("asc.adv.Matmul: K (the tail or single-core K) must be a compile-time value", b.loc)
        if self.tail is None:
            self._check_untailed(int(m), int(n), sm, sn)
        sk = int(tk)
        self.dims = (int(m), int(n), int(ka), int(kb))
        self.single = (sm, sn, sk)
        self.tails = (tm, tn)
        self.base = (int(t.base_m), int(t.base_n), int(t.base_k))
        es = self.ta.dtype.sizeof()
        bm, bn, bk = self.base
        if min(bm, bn, bk) <= 0 or min(sm, sn, sk) <= 0:
            # a default asc.adv.TCubeTiling() is all zeros: no tile to iterate (and 0-sized blocks)
            raise CompileError(f"asc.adv.Matmul: the tiling's base block {bm} x {bn} x {bk} and single-core "
                               f"shape {sm} x {sn} x {sk} must be positive (an empty asc.adv.TCubeTiling()? fill "
                               f"it on the host with asc.lib.host's MatmulApiTiling.get_tiling)", b.loc)
        if bk % 16 or bm % 16 or bn % 16:
            raise CompileError(f"asc.adv.Matmul: base block {bm} x {bn} x {bk} must be multiples of 16", b.loc)
        cap = b.target_capacity
        self.es = es
        self._l1_plan(es, cap)
        # one L0A / L0B buffer; int8 A stored K x M writes fractal rows in pairs (32 rows of M), int8 B
        # stored K x N squares of 32 columns of N: an odd 16 of the base block needs 16 rows more / one
        # fractal more (Ascend C load_to_l0a_loadInstr.h loops Ceil(madM, 32) times, load_to_l0b_loadInstr.h
        # loads Ceil(madN, 32) squares per 32 rows of K)
        self.l0_slots = ((_up(bm, 32) if es == 1 and self.trans_a else bm) * bk * es,
                         bk * bn * es + (512 if es == 1 and not self.trans_b and bn % 32 else 0))
        need = {"L1": self.l1_need, "L0A": 2 * self.l0_slots[0], "L0B": 2 * self.l0_slots[1], "L0C": bm * bn * 4}
        if not b.target["split"]:
            need["UB"] = bm * bn * 4        # the L0C -> UB -> GM readout of coupled cores (_readout_ub)
        for buf, nb in need.items():
            if nb > cap(buf) and buf == "L1":
                raise CompileError(f"asc.adv.Matmul: the {bm} x {bn} x {bk} tiles need {nb} B of L1 even with one "
                                   f"base block of A and one of B in it, {b.fn.target} has {cap(buf)} B", b.loc)
            if nb > cap(buf):
                raise CompileError(f"asc.adv.Matmul: the double-buffered {bm} x {bn} x {bk} tiles need {nb} B of "
                                   f"{buf}, {b.fn.target} has {cap(buf)} B", b.loc)
        self._walk = None
        self._check_quant(es)

    def _l1_plan(self, es, cap):
        """How L1 holds A and B (Ascend C's MDL scheme, cannmirror/asc-devkit impl/adv_api/detail/matmul/
        resource/cube_in_buffer/cube_in_buffer_double_buffer.h and scheduler/base/scheduler_mdl_base.h):
        one L1 fill of A is step_m base_m rows x step_ka base_k of K, one fill of B step_kb base_k x
        step_n base_n; A keeps depth_a1 base blocks, i.e. depth_a1 / (step_m step_ka) fills (2: double
        buffered, as cacheFactor_ = (depth / step - 1) & 1), B likewise.  A fill already in L1 is not
        loaded again (_walk_plan).  When the tiling's figures do not fit the L1 left by the bias row /
        quant vector, or are not consistent (depth < step), the steps are halved, then the fills
        single-buffered: a smaller reuse, never a wrong answer."""
        t = self.tiling
        bm, bn, bk = self.base
        sm, sn, sk = self.single
        K0 = 32 // es
        kt = -(-sk // bk)
        mt, nt = -(-sm // bm), -(-sn // bn)

        def val(x, d=1):
            try:
                return max(d, int(x))
            except (TypeError, ValueError):
                return d
        stm, stn = min(val(t.step_m), mt), min(val(t.step_n), nt)
        ska, skb = min(val(t.step_k_a), kt), min(val(t.step_k_b), kt)
        da, db = val(t.depth_a1, 0), val(t.depth_b1, 0)
        if bk % K0:             # a fill's K steps start on a fractal boundary
            ska = skb = 1
        # int8 A stored K x M / B stored K x N: LoadDataWithTranspose reads 32 x 32 squares of the NZ
        # fill (32-column blocks of M / N), so a tile must start on a block: base_m / base_n not a
        # multiple of 32 means one tile per fill
        a8t, b8t = es == 1 and self.trans_a, es == 1 and not self.trans_b
        if a8t and bm % 32:
            stm = 1
        if b8t and bn % 32:
            stn = 1
        na = 2 if da == 0 or da >= 2 * val(t.step_m) * val(t.step_k_a) else 1
        nb = 2 if db == 0 or db >= 2 * val(t.step_n) * val(t.step_k_b) else 1
        if da and da < val(t.step_m) * val(t.step_k_a):
            stm, ska = 1, 1
        if db and db < val(t.step_n) * val(t.step_k_b):
            stn, skb = 1, 1
        # room for the bias row: set_bias before iterate, or a server that adds the AIVs' bias (is_bias)
        bias = self.bias_gm is not None or bool(int(t.is_bias or 0))
        qv = self.quant is not None and self.quant[0] == "vector"
        # MTE2 <-> MTE1 event ids: one per fill buffer, the bias row, the walk's end; the quant vector's
        # per-tile copy (_fix_out) takes the last id
        ids = int(self.b.target["event_ids"]) if "event_ids" in self.b.target else 8

        def need():
            sa = (_up(stm * bm, 32) if a8t else stm * bm) * _up(ska * bk, K0) * es
            sb = (_up(stn * bn, 32) if b8t else stn * bn) * _up(skb * bk, K0) * es
            return sa, sb, _up(na * sa + nb * sb, 32), (bn * 32 if bias else 0), (bn * 8 if qv else 0)

        while True:
            sa, sb, ab, bb, qb = need()
            nids = na + nb + 1 + (1 if bias else 0)
            if ab + bb + qb <= cap("L1") and nids + (1 if qv else 0) <= ids:
                break
            if max(ska, skb) > 1 and ab + bb + qb > cap("L1"):
                if ska >= skb:
                    ska = -(-ska // 2)
                else:
                    skb = -(-skb // 2)
            elif max(stm, stn) > 1 and ab + bb + qb > cap("L1"):
                if stm >= stn:
                    stm = -(-stm // 2)
                else:
                    stn = -(-stn // 2)
            elif nb == 2:
                nb = 1
            elif na == 2:
                na = 1
            else:
                break           # _prepare reports what does not fit
        self.l1 = {"step_m": stm, "step_n": stn, "step_ka": ska, "step_kb": skb, "na": na, "nb": nb,
                   "slot_a": sa, "slot_b": sb, "bias": bias}
        self.addr = {"A1": 0, "B1": na * sa, "BIAS": ab, "A2": 0, "B2": 0, "Q": ab + bb}
        self.l1_ids = {"A": list(range(na)), "B": list(range(na, na + nb)), "BIAS": na + nb,
                       "END": na + nb + (1 if bias else 0), "Q": ids - 1}
        self.l1_need = ab + bb + qb

    def _check_quant(self, es):
        """int8 inputs (mmad.s8s32, an int32 L0C) and the quantised readout: what is lowered."""
        b = self.b
        from ..language import fix_quant as fq
        cdt = self.c_type.dtype.name if self.c_type is not None and self.c_type.dtype is not None else None
        if es == 1:
            if self.tb.dtype.name != "int8":
                raise CompileError(f"asc.adv.Matmul: A is int8 and B {self.tb.dtype.name}: both int8 (mmad.s8s32)", b.loc)
            if self.bias_gm is not None:
                raise CompileError("asc.adv.Matmul.set_bias with int8 inputs (an int32 bias) is not lowered", b.loc)
        if es == 4:
            if self.tb.dtype.name != "float32":
                raise CompileError(f"asc.adv.Matmul: A is float32 and B {self.tb.dtype.name}: both float32 "
                                   f"(mmad.f32f32)", b.loc)
        if self.quant is None and es != 1:
            return
        if not b.target["split"]:
            raise CompileError(f"asc.adv.Matmul: int8 inputs and the quantised readout use the split AIC's "
                               f"fix_l0c_to_out.q; {b.fn.target} has coupled cores", b.loc)
        l0c = "int32" if es == 1 else "float32"
        if self.quant is None:
            if cdt not in (None, "int32"):
                raise CompileError(f"asc.adv.Matmul: C of int8 inputs without quantisation is int32 (got {cdt}); "
                                   f"set_quant_scalar / set_quant_vector give float16 or int8 / uint8", b.loc)
            return
        mode = fq.mode_for(l0c, cdt, self.quant[0] == "vector")
        if mode is None:
            raise CompileError(f"asc.adv.Matmul.set_quant_{self.quant[0]}: no quantisation mode takes a {l0c} L0C "
                               f"({self.ta.dtype.name} inputs) to a {cdt} C (dav_c220: int32 -> float16, int8, "
                               f"uint8; float32 -> int8, uint8)", b.loc)
        self.quant_mode = mode

    def _tiles(self):
        """The single-core output's base tiles in the tiling's iterate_order, as Ascend C's MDL
        scheduler walks them (MoveOnIterateOrderM / MoveOnIterateOrderN in cannmirror/asc-devkit
        impl/adv_api/detail/matmul/scheduler/base/scheduler_mdl_base.h): the tiles come in blocks
        of step_m x step_n (one A fill's M blocks by one B fill's N blocks); ORDER_M (0): inside a
        block N fastest, then M, the blocks M first (N outer); ORDER_N (1): inside a block M fastest,
        then N, the blocks N first (M outer).  The list starts a walk: _tile called on its tiles in
        order shares L1 fills between them."""
        sm, sn, _ = self.single
        bm, bn, _ = self.base
        mt, nt = -(-sm // bm), -(-sn // bn)
        stm, stn = self.l1["step_m"], self.l1["step_n"]
        mg = [range(o, min(o + stm, mt)) for o in range(0, mt, stm)]
        ng = [range(o, min(o + stn, nt)) for o in range(0, nt, stn)]
        if int(self.tiling.iterate_order) == 1:          # ORDER_N
            ts = [(mi, ni) for ms in mg for ns in ng for ni in ns for mi in ms]
        else:                                            # ORDER_M
            ts = [(mi, ni) for ns in ng for ms in mg for mi in ms for ni in ns]
        self._walk = {"tiles": ts, "pos": 0, "plan": None}
        return ts

    def _tile_dims(self, mi, ni):
        """Tile (mi, ni) as (mi, ni, m_eff, n_eff, mp, np_). A run-time tail may leave it short or
        empty: its copies move max(0, ...) rows and columns (0 bursts are no-ops), the cube runs on
        the static padded size mp x np_, and only the fixpipe of a non-empty tile writes (a run-time
        `if` around it alone keeps branches short)."""
        b = self.b
        bm, bn, _ = self.base
        sm, sn, _ = self.single
        tm, tn = self.tails
        return (mi, ni, _max0(b, _min(b, bm, tm - mi * bm)), _max0(b, _min(b, bn, tn - ni * bn)),
                min(bm, _up(sm - mi * bm, 16)), min(bn, _up(sn - ni * bn, 16)))

    def _tile(self, ti, c_gm):
        tile = self._tile_dims(*ti)
        w = getattr(self, "_walk", None)
        if w is None or w["pos"] >= len(w["tiles"]) or w["tiles"][w["pos"]] != ti:
            self._tile_body(*tile, c_gm)      # a tile on its own
            return
        if w["pos"] == 0:
            w["plan"] = self._walk_plan(w["tiles"], False)
        self._emit_tile(w["plan"], w["pos"], tile, c_gm, None)
        w["pos"] += 1
        if w["pos"] == len(w["tiles"]):
            self._walk_end()
            self._walk = None

    def _walk_plan(self, tiles, solo):
        """Which L1 fills a walk over `tiles` loads and where: the K steps of every tile in order, each
        needing A's fill (M block mi // step_m, K block kk // step_ka) and B's (kk // step_kb, ni //
        step_n).  A fill still in one of its buffers is used again (Ascend C's CubeInBuffer Hit); a new
        one takes the next buffer, round robin, after the MTE1 frees the fill there (MTE1 -> MTE2
        flag set after that fill's last use).  L0A / L0B alternate between two buffers over the whole
        walk (the bias row's rank-1 mmad takes its turn), so MTE1 loads step s+1 while the cube
        multiplies step s.  solo: one tile whose mi / ni may be run-time values (no sharing)."""
        L = self.l1
        bk = self.base[2]
        sk = self.single[2]
        kt = -(-sk // bk)
        loads = {"A": [], "B": [], "BIAS": []}
        slots = {"A": [None] * L["na"], "B": [None] * L["nb"], "BIAS": [None]}
        rr = {"A": 0, "B": 0, "BIAS": 0}
        steps = []
        bias = self.bias_gm is not None and (self.role == "direct" or getattr(self, "_serve_bias", False))
        if bias and not L["bias"]:
            raise CompileError("internal: asc.adv.Matmul has a bias row but _l1_plan kept no L1 for it", self.b.loc)

        def get(kind, key, idx):
            for li in slots[kind]:
                if li is not None and loads[kind][li]["key"] == key:
                    loads[kind][li]["last"] = idx
                    return li, False
            s = rr[kind]
            rr[kind] = (s + 1) % len(slots[kind])
            prev = slots[kind][s]
            if prev is not None:
                loads[kind][prev]["freed"] = True
            loads[kind].append({"key": key, "slot": s, "first": idx, "last": idx, "prev": prev, "freed": False,
                                "tile": len(tiles_seen) - 1, "kk": cur_kk[0]})
            slots[kind][s] = len(loads[kind]) - 1
            return slots[kind][s], True

        tiles_seen, cur_kk = [], [0]
        for t, (mi, ni) in enumerate(tiles):
            tiles_seen.append(t)
            cur_kk[0] = 0
            if bias:
                li, new = get("BIAS", ("solo",) if solo else (ni,), len(steps))
                steps.append({"tile": t, "kind": "bias", "BIAS": li, "new_BIAS": new})
            for kk in range(kt):
                ka, kb = kk // L["step_ka"], kk // L["step_kb"]
                keya = ("solo", ka) if solo else (mi // L["step_m"], ka)
                keyb = ("solo", kb) if solo else (kb, ni // L["step_n"])
                cur_kk[0] = kk
                ia, na = get("A", keya, len(steps))
                ib, nb = get("B", keyb, len(steps))
                steps.append({"tile": t, "kind": "k", "kk": kk, "A": ia, "new_A": na, "B": ib, "new_B": nb})
        first = {}
        for i, st in enumerate(steps):
            first.setdefault(st["tile"], i)
        # each fill is issued as early as the program allows: a first fill of a buffer before the walk's
        # first step, a later one right after the step that last reads the fill it replaces (so MTE2
        # runs ahead of the scalar unit's issue order, not only of MTE1)
        issue = [[] for _ in steps]
        for kind in ("BIAS", "A", "B"):
            for li, ld in enumerate(loads[kind]):
                at = 0 if ld["prev"] is None else loads[kind][ld["prev"]]["last"] + 1
                issue[at].append((ld["first"], kind, li))
        for q in issue:
            q.sort()
        return {"loads": loads, "steps": steps, "first": first, "solo": solo, "bias": bias, "issue": issue,
                "tiles": list(tiles)}

    def _walk_end(self):
        """The walk's last L1 and L0 reads are done before a later walk (another iterate_all, the next
        batch of a run-time loop) loads over them."""
        b = self.b
        setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
        setf(HardEvent.MTE1_MTE2, self.l1_ids["END"], _b=b)
        waitf(HardEvent.MTE1_MTE2, self.l1_ids["END"], _b=b)
        setf(HardEvent.M_MTE1, 2, _b=b)
        waitf(HardEvent.M_MTE1, 2, _b=b)

    def _fill(self, kind, tile, kk, solo):
        """Copy one L1 fill GM -> L1 NZ (A: rows [row0, +step_m base_m) x K [kc0, +step_ka base_k); B:
        K x columns), with the run-time tail clipping the rows / columns."""
        L = self.l1
        b = self.b
        bm, bn, bk = self.base
        sm, sn, sk = self.single
        tm, tn = self.tails
        mi, ni, m_eff, n_eff, mp, np_ = tile
        a = kind == "A"
        # A's fill runs along M (rows), B's along N (columns); both along K
        step, size, whole, tail, i, eff, pad = ((L["step_m"], bm, sm, tm, mi, m_eff, mp) if a else
                                                (L["step_n"], bn, sn, tn, ni, n_eff, np_))
        st = 1 if solo else step
        sl = L["step_ka" if a else "step_kb"]
        kc0 = (kk // sl) * sl * bk
        k_len = min(sl * bk, sk - kc0)
        if solo:
            return i * size, pad, kc0, k_len, eff
        start = (i // st) * st * size
        used = _max0(b, _min(b, st * size, tail - start))
        return start, min(st * size, _up(whole - start, 16)), kc0, k_len, used

    def _issue(self, plan, kind, li, t, tile):
        """MTE2 half of one L1 fill: wait until MTE1 has let go of the fill it replaces, copy GM -> L1,
        hand it to MTE1 (the MTE1 waits at the fill's first use)."""
        b = self.b
        ld = plan["loads"][kind][li]
        if ld["tile"] != t and not plan["solo"]:
            tile = self._tile_dims(*plan["tiles"][ld["tile"]])
        setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
        ev = self.l1_ids[kind] if kind == "BIAS" else self.l1_ids[kind][ld["slot"]]
        if ld["prev"] is not None:
            waitf(HardEvent.MTE1_MTE2, ev, _b=b)
        M, N, KA, KB = self.dims
        lda, ldb = getattr(self, "ld", None) or (M if self.trans_a else KA, KB if self.trans_b else N)
        es, h, L = self.es, self.ta.dtype, self.l1
        K0 = 32 // es
        if kind == "BIAS":
            _, ni, _, n_eff, _, np_ = tile
            bn = self.base[1]
            bl1 = LocalTensor(dt.float32, TPosition.B1, self.addr["BIAS"], bn * 8, _b=b)
            # bias[ni*bn ..+n_eff] as n_eff rows of one f32: row r at L1 byte 32 r
            _ops.data_copy.__wrapped__(bl1, self.bias_gm[ni * bn:], Nd2NzParams(1, n_eff, 1, 0, 1, np_, 1, 0), _b=b)
        elif kind == "A":
            ra0, rap, ka0, kla, rows_a = self._fill("A", tile, ld["kk"], plan["solo"])
            a1 = LocalTensor(h, TPosition.A1, self.addr["A1"] + ld["slot"] * L["slot_a"], L["slot_a"] // es, _b=b)
            if not self.trans_a:    # rows [ra0, +rows_a) x K [ka0, +kla) -> NZ, rap rows per column block
                self._nd2nz(a1, self.ta[ra0 * lda + ka0:], rows_a, kla, kla, lda, rap)
            elif es == 4:           # f32 A stored K x M: 16-row blocks of K, each rap / 8 fractals (_nd2zz)
                self._nd2zz(a1, self.ta[ka0 * lda + ra0:], kla, rows_a, rap, lda)
            else:                   # A stored K x M: K [ka0, +kla) x M [ra0, +rows_a), NZ with up(kla, 16) rows
                self._nd2nz(a1, self.ta[ka0 * lda + ra0:], kla, rows_a, rap, lda, _up(kla, 32 if es == 1 else 16))
        else:
            cb0, cbp, kb0, klb, cols_b = self._fill("B", tile, ld["kk"], plan["solo"])
            b1 = LocalTensor(h, TPosition.B1, self.addr["B1"] + ld["slot"] * L["slot_b"], L["slot_b"] // es, _b=b)
            if not self.trans_b and es == 4:    # f32 K x N: 16-row blocks of K, each cbp / 8 fractals
                self._nd2zz(b1, self.tb[kb0 * ldb + cb0:], klb, cols_b, cbp, ldb)
            elif not self.trans_b:  # K [kb0, +klb) x N [cb0, +cols_b) -> NZ, up(klb, K0) rows per column block
                self._nd2nz(b1, self.tb[kb0 * ldb + cb0:], klb, cols_b, cbp, ldb, _up(klb, K0))
            else:                   # B stored N x K
                self._nd2nz(b1, self.tb[cb0 * ldb + kb0:], cols_b, klb, klb, ldb, cbp)
        setf(HardEvent.MTE2_MTE1, ev, _b=b)

    def _emit_tile(self, plan, t, tile, c_gm, c_at):
        """Tile t of the walk: its K steps (each: the L1 fills it needs first, then L0A / L0B from the
        fills, then the mmad), then the L0C readout."""
        b = self.b
        L = self.l1
        ids = self.l1_ids
        mi, ni, m_eff, n_eff, mp, np_ = tile
        bm, bn, bk = self.base
        sk = self.single[2]
        M, N, KA, KB = self.dims
        lda, ldb = getattr(self, "ld", None) or (M if self.trans_a else KA, KB if self.trans_b else N)
        es = self.es
        h = self.ta.dtype
        solo = plan["solo"]
        K0, fr = 32 // es, 512 // es        # the fractal: K0 elements of K per row (32 B), 512 B
        setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
        sla, slb = self.l0_slots
        a2s = [LocalTensor(h, TPosition.A2, s * sla, sla // es, _b=b) for s in (0, 1)]
        b2s = [LocalTensor(h, TPosition.B2, s * slb, slb // es, _b=b) for s in (0, 1)]
        c1 = LocalTensor(dt.int32 if es == 1 else dt.float32, TPosition.CO1, 0, bm * bn, _b=b)
        steps, loads = plan["steps"], plan["loads"]
        total = len(steps)
        i0 = plan["first"][t]
        i = i0
        while i < total and steps[i]["tile"] == t:
            st = steps[i]
            s = i % 2
            for _, kind, li in plan["issue"][i]:
                self._issue(plan, kind, li, t, tile)
            if st["kind"] == "bias":
                ld = loads["BIAS"][st["BIAS"]]
                bl1 = LocalTensor(dt.float32, TPosition.B1, self.addr["BIAS"], bn * 8, _b=b)
                if ld["first"] == i:
                    waitf(HardEvent.MTE2_MTE1, ids["BIAS"], _b=b)
                if i >= 2:
                    waitf(HardEvent.M_MTE1, s, _b=b)
                self._bias_init(np_, mp, c1, a2s[s], bl1, b2s[s], s,
                                free=ids["BIAS"] if ld["last"] == i and ld["freed"] else None,
                                l0_free=s if i + 2 < total else None)
                i += 1
                continue
            kk = st["kk"]
            k0 = kk * bk
            k_eff = min(bk, sk - k0)
            kp = _up(k_eff, K0)
            la, lb = loads["A"][st["A"]], loads["B"][st["B"]]
            ra0, rap, ka0, kla, rows_a = self._fill("A", tile, kk, solo)
            cb0, cbp, kb0, klb, cols_b = self._fill("B", tile, kk, solo)
            a1 = LocalTensor(h, TPosition.A1, self.addr["A1"] + la["slot"] * L["slot_a"], L["slot_a"] // es, _b=b)
            b1 = LocalTensor(h, TPosition.B1, self.addr["B1"] + lb["slot"] * L["slot_b"], L["slot_b"] // es, _b=b)
            kra, krb = _up(kla, 32 if es == 1 else 16), _up(klb, K0)    # K rows of a transposed A fill / of a B fill
            if la["first"] == i:
                waitf(HardEvent.MTE2_MTE1, ids["A"][la["slot"]], _b=b)
            if lb["first"] == i:
                waitf(HardEvent.MTE2_MTE1, ids["B"][lb["slot"]], _b=b)
            if i >= 2:
                waitf(HardEvent.M_MTE1, s, _b=b)
            r0 = 0 if solo else (mi - (mi // L["step_m"]) * L["step_m"]) * bm     # the tile's rows in the fill
            c0 = 0 if solo else (ni - (ni // L["step_n"]) * L["step_n"]) * bn
            kia = (k0 - ka0) // K0 if not self.trans_a or es == 1 else (k0 - ka0) // 16     # first K fractal in the fill
            kib = (k0 - kb0) // K0 if self.trans_b or es == 1 else (k0 - kb0) // 16
            kf, nf = kp // K0, np_ // 16
            nsq = -(-kf // 2)               # f32 squares (16 x 16) along the step's K
            for r in range(0, mp // 16, 2 if self.trans_a and es == 1 else 1):  # L0A (ZZ): fractal row r holds kf fractals
                if self.trans_a and es == 1:
                    # int8 A stored K x M (Ascend C load_to_l0a_loadInstr.h TransLoadDataToL0): the
                    # square (32 K, 32 M) of the NZ fill -> fractal rows r and r + 1 (dstFracGap kf - 1),
                    # kf squares along K; an odd mp / 16 writes row mp / 16 too, inside the slot
                    # (l0_slots: up(base_m, 32) rows), which the mmad does not read
                    p2 = LoadData2dTransposeParams((r0 // 32 + r // 2) * (kra // 32) + kia, kf, 1, 0, kf - 1)
                    _ldt.load_data_with_transpose.__wrapped__(a2s[s][r * kf * fr:], a1, p2, _b=b)
                    continue
                if self.trans_a and es == 4:
                    # LoadDataWithTranspose: square (K block, M block) of the ZZ fill -> two ZZ
                    # fractals of the M x K tile side by side; an odd kf's last square writes one
                    # fractal past the row, onto row r + 1's first, which the next load rewrites
                    # (and past the last row, inside the buffer's slot: kf < bk / 8)
                    p2 = LoadData2dTransposeParams(kia * (rap // 16) + r0 // 16 + r, nsq, rap // 16, 1, 0)
                    _ldt.load_data_with_transpose.__wrapped__(a2s[s][r * kf * fr:], a1, p2, _b=b)
                    continue
                if not self.trans_a:
                    p = LoadData2DParams(kia * (rap // 16) + r0 // 16 + r, kf, rap // 16, 0, 0, False)
                else:
                    p = LoadData2DParams((r0 // 16 + r) * (kra // 16) + kia, kf, 1, 0, 0, True)
                _ops.load_data.__wrapped__(a2s[s][r * kf * fr:], a1, p, _b=b)
            if not self.trans_b and es == 4:
                # LoadDataWithTranspose per 16 rows of K: the N squares of the ZZ fill -> K fractal rows
                # 2q and 2q + 1 (dstFracGap nf - 1); an odd kf's last square also writes row kf,
                # which the mmad does not read (inside the slot: kf < bk / 8)
                for q in range(nsq):
                    p2 = LoadData2dTransposeParams((kib + q) * (cbp // 16) + c0 // 16, nf, 1, 0, nf - 1)
                    _ldt.load_data_with_transpose.__wrapped__(b2s[s][2 * q * nf * fr:], b1, p2, _b=b)
            if not self.trans_b and es == 1:
                # int8 B stored K x N (Ascend C load_to_l0b_loadInstr.h LoadDataToL0): per 32 rows of K, the
                # squares (32 K, 32 N) of the NZ fill -> N fractals 2c and 2c + 1 of K fractal row q
                # (dstGap 1); an odd nf's last square also writes row q + 1's first fractal, which the
                # next load rewrites (past the last row: the slot's spare fractal, l0_slots)
                for q in range(kf):
                    p2 = LoadData2dTransposeParams((c0 // 32) * (krb // 32) + kib + q, -(-nf // 2), krb // 32, 1, 0)
                    _ldt.load_data_with_transpose.__wrapped__(b2s[s][q * nf * fr:], b1, p2, _b=b)
            for j in range(kf if self.trans_b or es == 2 else 0):   # L0B (ZN): K fractal row j holds nf fractals
                if not self.trans_b:
                    p = LoadData2DParams((c0 // 16) * (krb // 16) + kib + j, nf, krb // 16, 0, 0, True)
                else:
                    p = LoadData2DParams((kib + j) * (cbp // 16) + c0 // 16, nf, 1, 0, 0, False)
                _ops.load_data.__wrapped__(b2s[s][j * nf * fr:], b1, p, _b=b)
            if la["last"] == i and la["freed"]:
                setf(HardEvent.MTE1_MTE2, ids["A"][la["slot"]], _b=b)
            if lb["last"] == i and lb["freed"]:
                setf(HardEvent.MTE1_MTE2, ids["B"][lb["slot"]], _b=b)
            setf(HardEvent.MTE1_M, s, _b=b)
            waitf(HardEvent.MTE1_M, s, _b=b)
            init = kk == 0 and not plan["bias"]
            _ops.mmad.__wrapped__(c1, a2s[s], b2s[s], MmadParams(mp, np_, k_eff, cmatrix_init_val=init), _b=b)
            if i + 2 < total:
                setf(HardEvent.M_MTE1, s, _b=b)
            i += 1
        if not b.target["split"]:
            self._readout_ub(c1, c_gm[mi * bm * N + ni * bn:], m_eff, n_eff, mp)
            self.count += 1
            return
        setf(HardEvent.M_FIX, 0, _b=b)
        waitf(HardEvent.M_FIX, 0, _b=b)
        c_off, c_stride = c_at or (mi * bm * N + ni * bn, N)
        _when(b, 0, m_eff, lambda: _when(b, 0, n_eff, lambda: self._fix_out(
            c_gm[c_off:], c1, FixpipeParamsV220(n_eff, m_eff, mp, c_stride), ni, n_eff)))
        setf(HardEvent.FIX_M, 0, _b=b)
        waitf(HardEvent.FIX_M, 0, _b=b)
        self.count += 1

    def set_batch_num(self, batch_a, batch_b):
        """SetBatchNum: the batch counts of a later iterate_batch(c, en_partial_sum, en_atomic,
        en_sequential_write) (Ascend C's overload without batch counts)."""
        self.batch_nums = (batch_a, batch_b)

    def wait_iterate_batch(self):
        """WaitIterateBatch: take the response of iterate_batch / iterate_n_batch(sync=False,
        wait_iterate_batch=True) from a mix kernel's AIV.  Where the AIC computes, iterate_batch is
        synchronous (its fixpipes are issued in order before the kernel's next instruction, as after
        a synchronous iterate_all): nothing to wait for."""
        if self.role == "server" or self.role == "direct":
            return
        if not self._wait_batch:
            raise CompileError("asc.adv.Matmul.wait_iterate_batch: no iterate_batch / iterate_n_batch(..., "
                               "sync=False, wait_iterate_batch=True) comes before it (Ascend C's server notifies "
                               "an asynchronous batch only with waitIterateBatch)", self.b.loc)
        _kfc.drain(self)

    def _batch_layout(self, which, t, nb, fn="iterate_batch"):
        """(matrix offset of batch i as a function, row stride) of A or B in its MatmulType layout
        (Ascend C impl/adv_api/detail/matmul/stage/copy_cube_in/batch/batch_copy_cube_in.h and
        batch_copy_cube_in_params.h): NORMAL / BNGS1S2 dense matrices (or matrix_stride apart);
        BSNGD [B, S, N, G, D] matrix i = (b, ng) at b*S*N*G*D + ng*D, rows N*G*D apart; SBNGD
        [S, B, N, G, D] matrix i at i*D, rows B*N*G*D apart.  S and D are the matrix's M (or N) and K."""
        b = self.b
        mt = self.a_type if which == "a" else self.b_type
        lay = LayoutMode(int(mt.layout)) if mt is not None and mt.layout is not None else LayoutMode.NONE
        if lay in (LayoutMode.NONE, LayoutMode.NORMAL, LayoutMode.BNGS1S2):
            return lay, None, None
        f = {k: int(getattr(t, f"{which}_layout_info_{k}")) for k in "bsngd"}
        if min(f.values()) <= 0:
            raise CompileError(f"asc.adv.Matmul.{fn}: {which.upper()}'s layout {lay.name} needs the tiling's "
                               f"{which}_layout_info_b/s/n/g/d (host set_{which}_layout), got {f}", b.loc)
        M, N, KA, KB = self.dims
        want_trans = which == "b"
        if (self.trans_a if which == "a" else self.trans_b) != want_trans:
            raise CompileError(f"asc.adv.Matmul.{fn}: in layout {lay.name} each matrix is S x D with D the K "
                               f"axis: {which.upper()} is {'N x K (is_trans=True)' if want_trans else 'M x K (is_trans=False)'}",
                               b.loc)
        s_, d_ = (M, KA) if which == "a" else (N, KB)
        if (f["s"], f["d"]) != (s_, d_):
            raise CompileError(f"asc.adv.Matmul.{fn}: {which.upper()}'s layout S x D is {f['s']} x {f['d']}, "
                               f"the tiling's matrix {s_} x {d_}", b.loc)
        ng = f["n"] * f["g"]
        cnt = (self._batch_counts or (1, 1))[0 if which == "a" else 1]    # None: the server (the client checked)
        if lay == LayoutMode.BSNGD and ng % cnt:
            raise CompileError(f"asc.adv.Matmul.{fn}: BSNGD computes within one row of S: N * G = {ng} of "
                               f"{which.upper()} must be a multiple of batch_{which} {cnt} (Ascend C IterateBatch.md; "
                               f"loop over the B axis)", b.loc)
        if lay == LayoutMode.BSNGD:
            return lay, (lambda i: (i // ng) * f["s"] * ng * f["d"] + (i % ng) * f["d"]), ng * f["d"]
        return lay, (lambda i: i * f["d"]), f["b"] * ng * f["d"]

    def iterate_batch(self, c_gm, batch_a=None, batch_b=None, en_sequential_write=False, matrix_stride_a=0,
                      matrix_stride_b=0, matrix_stride_c=0, en_partial_sum=False, en_atomic=0, sync=True,
                      wait_iterate_batch=False):
        """IterateBatch (Ascend C docs IterateBatch.md): A [batch_a matrices], B [batch_b], C [max of
        them, M x N each, dense or matrix_stride_c apart]; A and B in their MatmulType layout
        (NORMAL / BNGS1S2: each matrix `matrix_stride_*` elements after the last, 0 for dense; BSNGD,
        SBNGD: _batch_layout); C NORMAL / BNGS1S2.  batch_a and batch_b are multiples: the smaller
        one's matrix j serves max/min consecutive batches (the G broadcast).  iterate_batch(c,
        en_partial_sum, en_atomic, en_sequential_write) takes the counts of set_batch_num.  One
        iterate_all per batch in a run-time loop; M, N, K are the tiling's (one matrix); set_bias:
        batch i's bias row at i * N (is_bias_batch, _batch_emit).  From a mix
        kernel's AIV the AIC serving it runs the same loop (matmul_kfc.py F_BATCH)."""
        b = self.b
        if self.role == "server":
            return
        if not isinstance(c_gm, GlobalTensor):
            raise CompileError("asc.adv.Matmul.iterate_batch writes C to a GlobalTensor here", b.loc)
        if isinstance(batch_a, bool) or batch_a is None:     # iterate_batch(c, en_partial_sum, en_atomic, seq)
            if batch_a is not None:
                en_partial_sum, en_atomic = batch_a, (batch_b or 0)
            if getattr(self, "batch_nums", None) is None:
                raise CompileError("asc.adv.Matmul.iterate_batch without batch_a / batch_b takes the counts of "
                                   "set_batch_num(batch_a, batch_b): call it first", b.loc)
            batch_a, batch_b = self.batch_nums
        if en_sequential_write or en_partial_sum or en_atomic:
            raise CompileError("asc.adv.Matmul.iterate_batch to GM: en_sequential_write must be False (as real "
                               "pyasc checks); en_partial_sum and en_atomic are not lowered", b.loc)
        sync = _static_bool(b, sync, "iterate_batch", "sync")
        wait_iterate_batch = _static_bool(b, wait_iterate_batch, "iterate_batch", "wait_iterate_batch")
        if wait_iterate_batch and sync:
            raise CompileError("asc.adv.Matmul.iterate_batch: wait_iterate_batch=True only with sync=False (Ascend C "
                               "IterateBatch<sync, waitIterateBatch>: the wait is for an asynchronous call)", b.loc)
        if not sync and self.role == "direct":
            _no_async(self, "iterate_batch(sync=False)")
        ba, bb, sa, sb, sc = self._batch_args(batch_a, batch_b, matrix_stride_a, matrix_stride_b, matrix_stride_c,
                                              "iterate_batch")
        if self.role == "client":
            self._client_batch("iterate_batch", ba, bb, sa, sb, sc)
            _kfc.send(self, _kfc.F_BATCH, c_addr=c_gm.addr, wait=sync, async_=not sync,
                      batch=self._msg_batch(ba, bb, sa, sb, 1))
            self._wait_batch = self._wait_batch or (not sync and wait_iterate_batch)
            return
        self._prepare()
        self._batch_check_layouts(ba, bb, sa, sb)
        self._batch_emit(c_gm, ba, bb, sa, sb, sc)

    def _batch_args(self, batch_a, batch_b, matrix_stride_a, matrix_stride_b, matrix_stride_c, fn):
        b = self.b
        for v, what in ((batch_a, "batch_a"), (batch_b, "batch_b"), (matrix_stride_a, "matrix_stride_a"),
                        (matrix_stride_b, "matrix_stride_b"), (matrix_stride_c, "matrix_stride_c")):
            if not is_static(v) or isinstance(v, bool) or int(v) < (1 if what.startswith("batch") else 0):
                raise CompileError(f"asc.adv.Matmul.{fn}: {what} must be a compile-time integer "
                                   f"(>= 1 for a batch count), got {v!r}", b.loc)
        ba, bb = int(batch_a), int(batch_b)
        if max(ba, bb) % min(ba, bb):
            raise CompileError(f"asc.adv.Matmul.{fn}: batch_a {ba} and batch_b {bb} must be multiples of "
                               f"each other (Ascend C IterateBatch.md)", b.loc)
        if self.quant is not None:
            raise CompileError(f"asc.adv.Matmul.{fn} with set_quant_scalar / set_quant_vector: Batch "
                               f"Matmul takes no quantisation (Ascend C IterateBatch.md)", b.loc)
        if self.c_type is not None and self.c_type.layout is not None and \
                LayoutMode(int(self.c_type.layout)) in (LayoutMode.BSNGD, LayoutMode.SBNGD):
            raise CompileError(f"asc.adv.Matmul.{fn}: C in layout {LayoutMode(int(self.c_type.layout)).name} "
                               f"is not implemented (C is NORMAL or BNGS1S2: dense M x N matrices)", b.loc)
        t = self.tiling
        if t is not None and int(t.c_layout_info_g) == 1 and max(int(t.a_layout_info_g), int(t.b_layout_info_g)) > 1:
            raise CompileError(f"asc.adv.Matmul.{fn}: the tiling's C layout has G = 1 while A's or B's has G = "
                               f"{max(int(t.a_layout_info_g), int(t.b_layout_info_g))} (Ascend C then writes "
                               f"batch / G C matrices, matmul_server_impl_c220.h layoutGCondition): not implemented",
                               b.loc)
        return ba, bb, int(matrix_stride_a), int(matrix_stride_b), int(matrix_stride_c)

    def _batch_check_layouts(self, ba, bb, sa, sb, fn="iterate_batch"):
        """The compile-time checks of A's and B's layouts (_batch_layout) for counts ba, bb."""
        self._batch_counts = (ba, bb)
        la, fa, _ = self._batch_layout("a", self.tiling, max(ba, bb), fn)
        lb, fb, _ = self._batch_layout("b", self.tiling, max(ba, bb), fn)
        if (fa is not None or fb is not None) and (sa or sb):
            raise CompileError(f"asc.adv.Matmul.{fn}: matrix_stride_a / _b apply to the NORMAL and "
                               "BNGS1S2 layouts; BSNGD / SBNGD place the matrices by the layout", self.b.loc)

    def _client_batch(self, fn, ba, bb, sa, sb, sc):
        """The AIV's checks of a batched call the AIC serves (matmul_kfc.py F_BATCH / F_NBATCH)."""
        b = self.b
        self._client_ready()
        if not _kfc.serves_batch(self):
            raise CompileError(f"asc.adv.Matmul.{fn} from a mix kernel's AIV needs A's MatmulType layout (LayoutMode."
                               f"NORMAL, BSNGD, SBNGD or BNGS1S2): Ascend C's server ignores a batched call of a "
                               f"layout-NONE Matmul (matmul_server_impl_c220.h IterateBatch), so the AIC compiles it "
                               f"only then", b.loc)
        if sc:
            raise CompileError(f"asc.adv.Matmul.{fn}: matrix_stride_c is reserved (real pyasc: '该参数预留'); C's "
                               f"matrices are dense M x N here: pass 0", b.loc)
        t = self.tiling
        self.dims = (int(t.m), int(t.n), int(t.k_a), int(t.k_b))
        self._batch_check_layouts(ba, bb, sa, sb, fn)

    def _msg_batch(self, ba, bb, sa, sb, loops):
        """Words 10..14 of the message: the counts, the strides resolved (0: dense), the loop count."""
        M, N, KA, KB = self.dims
        return (ba, bb, sa or M * KA, sb or KB * N, loops)

    def _batch_emit(self, c_gm, ba, bb, sa, sb, sc, first=(0, 0, 0)):
        """The batch loop: max(ba, bb) matrices, matrix i of A at (first[0] + i * ba / nb) (the
        smaller count's matrix serves nb / count consecutive batches), of C at first[2] + i.  ba, bb
        and the strides may be run-time values (the KFC server reads them from the message); first
        is iterate_n_batch's batch l (l * ba, l * bb, l * nb)."""
        b = self.b
        M, N, KA, KB = self.dims
        if is_static(ba) and is_static(bb):
            self._batch_counts = (ba, bb)
        else:
            self._batch_counts = None
        la, fa, lda = self._batch_layout("a", self.tiling, None)
        lb, fb, ldb = self._batch_layout("b", self.tiling, None)
        if fa is not None or fb is not None:
            self.ld = (lda if fa is not None else (M if self.trans_a else KA),
                       ldb if fb is not None else (KB if self.trans_b else N))
        sa = sa if not is_static(sa) else (int(sa) or M * KA)
        sb = sb if not is_static(sb) else (int(sb) or KB * N)
        sc = int(sc) or M * N
        fa = fa or (lambda i: i * sa)
        fb = fb or (lambda i: i * sb)
        ta0, tb0, bias0 = self.ta, self.tb, self.bias_gm
        # MatmulConfig isBiasBatch (asc-devkit include/adv_api/matmul/matmul_config.h, default true):
        # batch i's bias row at element i * N (copy_bias_in_batch.h), else one row for every batch
        per_batch = bias0 is not None and _is_bias_batch(self.config)
        static = is_static(ba) and is_static(bb) and first == (0, 0, 0)
        try:
            if static and max(ba, bb) == 1:
                for ti in self._tiles():
                    self._tile(ti, c_gm)
                return

            def body(i):
                if static:
                    nb = max(ba, bb)
                    # the smaller batch count's matrix j serves nb / count consecutive batches
                    ia = i if ba == nb else (i // (nb // ba) if ba > 1 else 0)
                    ib = i if bb == nb else (i // (nb // bb) if bb > 1 else 0)
                    self.ta = ta0[fa(ia):] if ba > 1 else ta0
                    self.tb = tb0[fb(ib):] if bb > 1 else tb0
                    c_i = c_gm[i * sc:]
                    if per_batch:
                        self.bias_gm = bias0[i * N:]
                else:
                    nb = b.binop("max", ba, bb)
                    ia = b.binop("add", first[0], b.binop("div", b.binop("mul", i, ba), nb))
                    ib = b.binop("add", first[1], b.binop("div", b.binop("mul", i, bb), nb))
                    self.ta = ta0[fa(ia):]
                    self.tb = tb0[fb(ib):]
                    c_i = c_gm[b.binop("add", first[2], i) * sc:]
                    if per_batch:
                        self.bias_gm = bias0[b.binop("add", first[2], i) * N:]
                for ti in self._tiles():
                    self._tile(ti, c_i)
            if static:
                var = b.new_value(hint="batch.")
                op = ir.For(name="for", var=var, lo=ir.Const(0), hi=ir.Const(max(ba, bb)), step=1, loc=b.loc)
                b.nonneg.add(var.id)
                b.push(op.body)
                body(RVal(b, var))
                b.pop()
                b.emit(op)
            else:
                _kfc._for(b, b.binop("max", ba, bb), body)
        finally:
            self.ta, self.tb, self.bias_gm = ta0, tb0, bias0
            self.ld = None

    def iterate_n_batch(self, batch_loop, batch_a, batch_b, en_sequential_write=False, matrix_stride_a=0,
                        matrix_stride_b=0, matrix_stride_c=0, sync=True, wait_iterate_batch=False):
        """IterateNBatch (real pyasc iterate_n_batch; matmul_server_impl_c220.h StartIterateNBatch):
        batch_loop IterateBatch calls from a mix kernel's AIV, batch l of A starting at matrix
        l * batch_a, of B at l * batch_b; its max(batch_a, batch_b) C matrices (M x N float32,
        dense) into the set_workspace buffer at l * max(batch_a, batch_b) * M * N elements, for
        get_batch_tensor_c.  Needs MatmulConfig is_n_batch (get_*_config(batch_loop=True)) and A's
        layout, as the server compiles it only then."""
        b = self.b
        if self.role == "server":
            return
        if self.role != "client":
            raise CompileError("asc.adv.Matmul.iterate_n_batch: IterateNBatch leaves C in the set_workspace buffer "
                               "of a mix kernel's AIV (the KFC client); where the AIC computes in place, loop over "
                               "iterate_batch", b.loc)
        sync = _static_bool(b, sync, "iterate_n_batch", "sync")
        wait_iterate_batch = _static_bool(b, wait_iterate_batch, "iterate_n_batch", "wait_iterate_batch")
        if wait_iterate_batch and sync:
            raise CompileError("asc.adv.Matmul.iterate_n_batch: wait_iterate_batch=True only with sync=False", b.loc)
        if en_sequential_write:
            raise CompileError("asc.adv.Matmul.iterate_n_batch: en_sequential_write=True is not implemented (the C "
                               "matrices are written dense, M x N each)", b.loc)
        if not _kfc.serves_n_batch(self):
            raise CompileError("asc.adv.Matmul.iterate_n_batch needs the Matmul's MatmulConfig with is_n_batch "
                               "(asc.adv.get_normal_config(batch_loop=True) or get_mdl_config(batch_loop=True)): "
                               "Ascend C's server ignores IterateNBatch otherwise (matmul_server_impl_c220.h)", b.loc)
        if self.cache is None:
            raise CompileError("asc.adv.Matmul.iterate_n_batch needs mm.set_workspace(...) before it: the AIC writes "
                               "the C matrices there for get_batch_tensor_c (Ascend C IterateNBatch)", b.loc)
        if not is_static(batch_loop) or isinstance(batch_loop, bool) or int(batch_loop) < 1:
            raise CompileError(f"asc.adv.Matmul.iterate_n_batch: batch_loop must be a compile-time integer >= 1, got "
                               f"{batch_loop!r}", b.loc)
        ba, bb, sa, sb, sc = self._batch_args(batch_a, batch_b, matrix_stride_a, matrix_stride_b, matrix_stride_c,
                                              "iterate_n_batch")
        self._client_batch("iterate_n_batch", ba, bb, sa, sb, sc)
        M, N = self.dims[:2]
        nb = max(ba, bb)
        need = int(batch_loop) * nb * M * N * 4
        if self.cache_bytes is not None and self.cache_bytes < need:
            raise CompileError(f"asc.adv.Matmul.set_workspace: the buffer holds {self.cache_bytes} B; iterate_n_batch "
                               f"writes {int(batch_loop)} x {nb} float32 {M} x {N} matrices there, {need} B", b.loc)
        prog = not sync and not wait_iterate_batch     # notified per batch (StartIterateNBatch)
        _kfc.send(self, _kfc.F_NBATCH, c_addr=self.cache.addr, wait=sync, async_=not sync,
                  batch=self._msg_batch(ba, bb, sa, sb, int(batch_loop) + (int(prog) << 32)))
        self._wait_batch = self._wait_batch or (not sync and wait_iterate_batch)
        self._n_batch = (nb, "wait" if wait_iterate_batch else ("progress" if prog else "get"))
        b.mov_into(self.kfc_k, 0)
        if prog:
            b.mov_into(self.kfc_prog, min(int(batch_loop), _kfc.INC_PROCESS_CHECK))
            b.kfc_async_iter = True

    def get_batch_tensor_c(self, *args, **kw):
        """GetBatchTensorC<false> (real pyasc get_batch_tensor_c, sync=False only): the next batch of
        iterate_n_batch's C, max(batch_a, batch_b) M x N float32 matrices, copied from the
        set_workspace buffer into the UB `tensor` on MTE2 (wait_get_tensor_c before the vector reads
        it), or without `tensor` returned as a GlobalTensor on that buffer.  After iterate_n_batch(sync=
        False) each of the first INC_PROCESS_CHECK calls waits for its batch's progress notification
        (matmul_kfc.py module text)."""
        b = self.b
        # real pyasc's two overloads: (tensor, batch_a, batch_b, en_sequential_write, sync) and
        # (batch_a, batch_b, en_sequential_write, sync), sync defaulting to True (and refused)
        names = ("tensor", "batch_a", "batch_b", "en_sequential_write", "sync")
        if not (args and isinstance(args[0], LocalTensor)) and "tensor" not in kw:
            names = names[1:]
        if len(args) > len(names):
            raise CompileError(f"asc.adv.Matmul.get_batch_tensor_c takes at most {len(names)} arguments here "
                               f"({', '.join(names)}), got {len(args)}", b.loc)
        v = dict(tensor=None, batch_a=None, batch_b=None, en_sequential_write=False, sync=True)
        v.update(zip(names, args))
        v.update(kw)
        tensor, batch_a, batch_b, en_sequential_write, sync = (v[k] for k in ("tensor", "batch_a", "batch_b",
                                                                              "en_sequential_write", "sync"))
        if self.role == "server":      # the AIC's code after its server loop is dropped: a stand-in
            if tensor is not None:
                return None
            g = GlobalTensor(dt.float32, _b=b)
            g.addr = 0
            return g
        if self.role != "client":
            raise CompileError("asc.adv.Matmul.get_batch_tensor_c fetches what iterate_n_batch left in the "
                               "set_workspace buffer of a mix kernel's AIV", b.loc)
        if _static_bool(b, sync, "get_batch_tensor_c", "sync"):
            raise CompileError("asc.adv.Matmul.get_batch_tensor_c: only sync=False (real pyasc: 'Matmul "
                               "get_batch_tensor_c only support params sync=False')", b.loc)
        nbat = getattr(self, "_n_batch", None)
        if nbat is None:
            raise CompileError("asc.adv.Matmul.get_batch_tensor_c comes after mm.iterate_n_batch(...)", b.loc)
        if en_sequential_write:
            raise CompileError("asc.adv.Matmul.get_batch_tensor_c: en_sequential_write is reserved; pass False", b.loc)
        for v, what in ((batch_a, "batch_a"), (batch_b, "batch_b")):
            if not is_static(v) or isinstance(v, bool) or v is None or int(v) < 1:
                raise CompileError(f"asc.adv.Matmul.get_batch_tensor_c: {what} must be a compile-time integer >= 1, "
                                   f"got {v!r}", b.loc)
        nb = max(int(batch_a), int(batch_b))
        if nb != nbat[0]:
            raise CompileError(f"asc.adv.Matmul.get_batch_tensor_c: max(batch_a, batch_b) is {nb}, iterate_n_batch "
                               f"computed {nbat[0]} matrices per batch", b.loc)
        M, N = self.dims[:2]
        elems = nb * M * N
        k = RVal(b, self.kfc_k)
        if nbat[1] == "progress":
            _kfc.wait_progress(self, k)
        elif nbat[1] == "wait":     # wait_iterate_batch=True: one response after the last batch; the
            _kfc.drain(self)        # first fetch takes it if wait_iterate_batch() has not
        slot = GlobalTensor(dt.float32, _b=b)
        slot.addr, slot.gm = self.cache.addr + k * (elems * 4), getattr(self.cache, "gm", None)
        slot.size = elems
        if tensor is not None:
            if tensor.dtype.name != "float32":
                raise CompileError(f"asc.adv.Matmul.get_batch_tensor_c: C is float32 here, the destination is "
                                   f"{tensor.dtype.name}", b.loc)
            if (N * 4) % 32:
                raise CompileError(f"asc.adv.Matmul.get_batch_tensor_c into UB: N = {N} float32 is not a multiple of "
                                   f"32 bytes, which needs C's CubeFormat ND_ALIGN (rows padded to 32 B, real pyasc's "
                                   f"constraint; its asc.CubeFormat has ND and NZ only): not implemented; fetch the "
                                   f"GlobalTensor overload instead", b.loc)
            if tensor.size is not None and is_static(tensor.size) and tensor.size < elems:
                raise CompileError(f"asc.adv.Matmul.get_batch_tensor_c: the destination holds {tensor.size} elements, "
                                   f"{nb} matrices of {M} x {N} need {elems}", b.loc)
            _kfc._tile_to_ub(b, tensor, slot, elems)
        b.mov_into(self.kfc_k, b.binop("add", k, 1))
        return None if tensor is not None else slot

    def _direct_tile(self, c_gm, k, sequential):
        """Tile k of the single-core output, computed by this AIC into C in GM: at its place in C
        (row stride N), or with en_sequential_write alone at c_gm (base_m x base_n, rows base_n
        apart), as Ascend C's GetTensorC(GlobalTensor) writes it."""
        b = self.b
        bm, bn, _ = self.base
        tm, tn = self.tails
        mi, ni = _kfc._tile_mn(self.tiling, k, tm, tn)
        m_eff = _max0(b, _min(b, bm, tm - mi * bm))
        n_eff = _max0(b, _min(b, bn, tn - ni * bn))
        N = self.dims[1]
        at = (0, bn) if sequential else (mi * bm * N + ni * bn, N)
        self._tile_body(mi, ni, m_eff, n_eff, bm, bn, c_gm, c_at=at)

    def _client_ready(self):
        if self.tiling is None:
            raise CompileError("asc.adv.Matmul used before asc.adv.register_matmul / init", self.b.loc)
        if self.ta is None or self.tb is None:
            raise CompileError("asc.adv.Matmul: set_tensor_a and set_tensor_b come before iterate", self.b.loc)
        if self.tail is None:
            t = self.tiling
            self._check_untailed(int(t.m), int(t.n), int(t.single_core_m), int(t.single_core_n))

    def _check_untailed(self, m, n, sm, sn):
        """No set_tail / set_single_shape: the Matmul computes the tiling's whole single-core block
        on every core, as Ascend C's does (its M and N tails come from singleCoreM / singleCoreN
        alone: cannmirror/asc-devkit impl/adv_api/detail/matmul/scheduler/iterator/m_loop and
        param/matmul_shape_info.h InitParams).  The tiling is a compile-time constant here, so a
        block that does not divide M x N is known now: a block wider than C's rows overlaps the
        rows (an error: the hardware would give a wrong C); a partial last block makes the core
        holding it read A / B and write C past the matrices (a warning here; the run's GM check
        faults at the write)."""
        b = self.b
        if 0 < n < sn:
            raise CompileError(f"asc.adv.Matmul: the tiling's single-core N {sn} exceeds N {n} and set_tail was "
                               f"not called: each C row would be written {sn} columns wide into rows {n} apart "
                               f"(Ascend C's Matmul does the same: its tail comes from singleCoreN alone); call "
                               f"set_tail(tail_m, tail_n) with this core's rows and columns of C", b.loc)
        if (m > 0 and m % sm) or (n > 0 and n % sn):
            w = (f"{b.loc}: warning: asc.adv.Matmul: the tiling's single-core block {sm} x {sn} does not divide "
                 f"M x N = {m} x {n} and set_tail was not called: the core holding the last block computes all "
                 f"{sm} x {sn}, reading A / B and writing C past the matrices, as Ascend C's Matmul does; call "
                 f"set_tail(tail_m, tail_n) there (real pyasc tutorial 04's calc_offsets)")
            ws = b.fn.__dict__.setdefault("sync_warnings", [])
            if w not in ws:
                ws.append(w)

    def _tile_body(self, mi, ni, m_eff, n_eff, mp, np_, c_gm, c_at=None):
        """One tile on its own (mi / ni may be run-time values: get_tensor_c's tile `count`, the mix
        kernel's server): its own L1 fills, nothing shared with other tiles, every flag settled at the
        end."""
        plan = self._walk_plan([(mi, ni)], True)
        self._emit_tile(plan, 0, (mi, ni, m_eff, n_eff, mp, np_), c_gm, c_at)
        self._walk_end()

    def _fix_out(self, c_gm, c1, p, ni, n_eff):
        """The tile's L0C -> GM readout: a plain fixpipe, or with set_quant_scalar / set_quant_vector
        (or an int32 C of int8 inputs) the quantising one (language/fix_quant.py).  The mode is Ascend
        C's (MatmulQuantProcessor in impl/adv_api/detail/matmul/stage/copy_cube_out/quant/
        quant_processor_fixpipe.h): int32 L0C -> f16 DEQF16 / VDEQF16, -> int8 / uint8 REQ8 / VREQ8;
        float32 L0C -> int8 / uint8 QF322B8_PRE / VQF322B8_PRE.  The per-column vector: the tile's
        n_eff u64 GM -> L1 as 2 n_eff u32 (one ND2NZ row, exact bytes, as CopyDeqTensorToL1), after the
        previous tile's readout has read it and before this one's (Ascend C's FIX <-> MTE2 flags, here
        through MTE1)."""
        b = self.b
        from ..language import fix_quant as fq
        if self.quant is None and c1.dtype.name == "float32":
            _ops.fixpipe.__wrapped__(c_gm, c1, p, _b=b)
            return
        kind, val = self.quant or ("none", None)
        if kind == "none":
            p.quant_pre = fq.QuantModes.NoQuant
            _ops.fixpipe.__wrapped__(c_gm, c1, p, _b=b)
            return
        p.quant_pre = self.quant_mode
        if kind == "scalar":
            p.deq_scalar = val
            _ops.fixpipe.__wrapped__(c_gm, c1, p, _b=b)
            return
        setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
        bn = self.base[1]
        # FIX -> MTE2 and MTE2 -> FIX are no flag pairs of the AIC (target/config.c aic_pairs, arch 2201):
        # through MTE1 both ways (the last event id of MTE1 <-> MTE2; _l1_plan keeps it free)
        setf(HardEvent.FIX_MTE1, 0, _b=b)
        waitf(HardEvent.FIX_MTE1, 0, _b=b)
        setf(HardEvent.MTE1_MTE2, self.l1_ids["Q"], _b=b)
        waitf(HardEvent.MTE1_MTE2, self.l1_ids["Q"], _b=b)
        g = val[ni * bn:]
        g32 = GlobalTensor(dt.uint32, _b=b)
        g32.addr, g32.size = g.addr, None
        q32 = LocalTensor(dt.uint32, TPosition.C1, self.addr["Q"], 2 * bn, _b=b)
        d = 2 * n_eff if is_static(n_eff) else b.binop("add", n_eff, n_eff)
        _ops.data_copy.__wrapped__(q32, g32, Nd2NzParams(1, 1, d, 0, d, 1, 1, 0), _b=b)
        setf(HardEvent.MTE2_MTE1, self.l1_ids["Q"], _b=b)
        waitf(HardEvent.MTE2_MTE1, self.l1_ids["Q"], _b=b)
        setf(HardEvent.MTE1_FIX, 0, _b=b)
        waitf(HardEvent.MTE1_FIX, 0, _b=b)
        q64 = LocalTensor(dt.uint64, TPosition.C1, self.addr["Q"], bn, _b=b)
        _ops.fixpipe.__wrapped__(c_gm, c1, q64, p, _b=b)

    def _bias_init(self, np_, mp, c1, a2, bl1, b2, s, free=None, l0_free=None):
        """L0C of the tile starts from the bias row: C(r, c) = bias[ni*base_n + c], then the K steps
        accumulate onto it (mmad init 0).  Real dav_c220 copies the bias L1 -> BT (copy_cbuf_to_bt,
        Ascend C DataCopy A1 -> C2, cannmirror/asc-devkit impl/basic_api/dav_c220/
        kernel_operator_data_copy_impl.h DataCopyL12BTImpl) and the first mmad initialises L0C from the
        bias table (mad(..., cmatrixSource) in kernel_operator_mm_impl.h MmadCal).  The BT buffer is not
        modelled here: this is an exact lowering through existing instructions instead, a rank-1
        mmad.f32f32 with k = 1: A = ones (mp x 1, create_l0_matrix), B = the bias row (1 x np_, copied GM
        -> L1 as an np_ x 1 ND matrix by _emit_tile, whose NZ form is already B's f32 ZN fractals, then
        load_data).  1.0 * b is exact and sim/exec_cube.c adds the K steps onto L0C exactly as onto a
        BT-initialised L0C, so C = bias + A x B rounded once, as the hardware computes it (with HF32 mode
        on, the f32 mmad would round the bias to HF32; a bias of -0.0 gives +0.0).  The cycles are those
        of one small copy, fill, load and mmad, not of the BT path.  The operands take the walk's next
        L0A / L0B buffer (_walk_plan); `free` / `l0_free`: the flags that hand the bias L1 row and the
        L0 buffer back."""
        b = self.b
        bn = self.base[1]
        setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
        ones = LocalTensor(dt.float32, TPosition.A2, a2.addr, mp * 8, _b=b)
        bl0 = LocalTensor(dt.float32, TPosition.B2, b2.addr, bn * 8, _b=b)
        _ops.load_data.__wrapped__(bl0, bl1, LoadData2DParams(0, np_ // 16, 1, 0, 0, False), _b=b)
        if free is not None:
            setf(HardEvent.MTE1_MTE2, free, _b=b)
        _fill.init_const_value.__wrapped__(ones, _fill.InitConstValueParams(1, mp // 16, 0, 1.0), _b=b)
        setf(HardEvent.MTE1_M, s, _b=b)
        waitf(HardEvent.MTE1_M, s, _b=b)
        # HF32 off for this mmad alone (set_hf32 / asc.set_hf32_mode may have it on): the mmad takes
        # CTRL when it is issued (sim/scalar.c), so the bias is exact and the K steps keep the mode
        from ..language.regmodes import HF32_MODE_BIT
        ctrl = b.spr("ctrl")
        b.emit(ir.Op("mtspr", None, [b.operand(ctrl & ~(1 << HF32_MODE_BIT))], {"spr": "ctrl"}))
        _ops.mmad.__wrapped__(c1, ones, bl0, MmadParams(mp, np_, 1, cmatrix_init_val=True), _b=b)
        b.emit(ir.Op("mtspr", None, [b.operand(ctrl)], {"spr": "ctrl"}))
        if l0_free is not None:
            setf(HardEvent.M_MTE1, l0_free, _b=b)

    def _readout_ub(self, c1, c_gm, m_eff, n_eff, mp):
        """A coupled profile's core (teach, ascend910) has no L0C -> GM path (fix_l0c_to_out is
        the split AIC's): the tile goes L0C -> UB (fixpipe to UB, mov_l0c_to_ub.f32 on the vector
        pipe, ND rows of ceil(n_eff/8)*8 f32) and UB -> GM by data_copy_pad, m_eff bursts of
        exactly n_eff*4 bytes, GM rows N apart: no other byte written (as kernels/pyasc/matmul.py;
        Ascend C's DataCopy CO1 -> CO2 on dav_m200).  UB from address 0 holds the tile."""
        b = self.b
        bm, bn, _ = self.base
        N = self.dims[1]
        setf, waitf = _ops.set_flag.__wrapped__, _ops.wait_flag.__wrapped__
        ub = LocalTensor(dt.float32, TPosition.VECOUT, 0, bm * bn, _b=b)
        row = ((n_eff + 7) >> 3) << 3

        def out():
            _ops.fixpipe.__wrapped__(ub, c1, FixpipeParamsV220(n_eff, m_eff, mp, row), _b=b)
            setf(HardEvent.V_MTE3, 0, _b=b)
            waitf(HardEvent.V_MTE3, 0, _b=b)
            _ops.data_copy_pad.__wrapped__(c_gm, ub, DataCopyExtParams(m_eff, n_eff * 4, 0, (N - n_eff) * 4), _b=b)
        setf(HardEvent.M_V, 0, _b=b)
        waitf(HardEvent.M_V, 0, _b=b)
        _when(b, 0, m_eff, lambda: _when(b, 0, n_eff, out))
        setf(HardEvent.MTE3_V, 0, _b=b)      # the next tile's readout rewrites the UB tile
        waitf(HardEvent.MTE3_V, 0, _b=b)
        setf(HardEvent.V_M, 0, _b=b)         # ... and its mmad the L0C tile
        waitf(HardEvent.V_M, 0, _b=b)

    def _nd2nz(self, dst, src, rows, cols, cols_pad, stride, rows_pad):
        """GM ND block (rows x cols, row stride `stride` elements) -> L1 NZ: 16-column blocks of
        rows_pad rows each.  rows and cols may be run-time counts (at most rows_pad, cols_pad)."""
        b = self.b
        es = self.es
        c0 = 32 // es
        if not is_static(stride) or stride <= 65535:
            # one MTE2 instruction, as Ascend C's matmul does it: DataCopy GM -> L1 with Nd2NzParams
            # (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_data_copy_impl.h,
            # DataCopyGM2L1ND2NZImplBase); the last 32 B block of each row is zero-padded
            _ops.data_copy.__wrapped__(dst, src, Nd2NzParams(1, rows, cols, 0, stride, rows_pad, 1, 0), _b=b)
            return
        # a row stride past Nd2NzParams.srcDValue's range: DataCopy bursts
        if (stride * es) % 32 == 0:
            for j in range(-(-cols_pad // c0)):
                _when(b, j * c0, cols, lambda j=j: _ops.data_copy.__wrapped__(
                    dst[j * rows_pad * c0:], src[j * c0:], DataCopyParams(rows, 1, stride * es // 32 - 1, 0), _b=b))
            return
        # a row stride that is not a whole number of 32-byte blocks: one copy per row (the last
        # block of a row reads up to 31 bytes past the row, into K padding the cube ignores)
        cb = -(-int(cols) // c0) if is_static(cols) else b.binop("sra", b.binop("add", cols, c0 - 1), {8: 3, 16: 4, 32: 5}[c0])
        for r in range(rows_pad):
            _when(b, r, rows, lambda r=r: _ops.data_copy.__wrapped__(
                dst[r * c0:], src[r * stride:], DataCopyParams(cb, 1, 0, rows_pad - 1), _b=b))

    def _nd2zz(self, dst, src, rows, cols, cols_pad, stride):
        """f32 GM ND block (rows x cols, rows a compile-time count) -> L1 as 16-row blocks, each one row
        of cols_pad / 8 consecutive 16 x 8 fractals: what LoadDataWithTranspose joins into 16 x 16
        squares (cannmirror/asc-devkit docs .../LoadDataWithTranspose.md: the float source must be ZZ
        or ZN in L1, two consecutive fractals making one square).  The full blocks are one ND2NZ copy
        (nd_num blocks, dst_nz_c0_stride 16) when the strides fit its ranges, else one copy each; a
        last partial block is one more."""
        b = self.b
        full, rem = divmod(int(rows), 16)
        blk = cols_pad * 16             # elements of one 16-row block in L1
        if full and is_static(stride) and 16 * stride <= 65535 and blk <= 16384:
            _ops.data_copy.__wrapped__(dst, src, Nd2NzParams(full, 16, cols, 16 * stride, stride, 16, 1, blk), _b=b)
        else:
            for i in range(full):
                self._nd2nz(dst[i * blk:], src[i * 16 * stride:], 16, cols, cols_pad, stride, 16)
        if rem:
            self._nd2nz(dst[full * blk:], src[full * 16 * stride:], rem, cols, cols_pad, stride, 16)

    def set_workspace(self, addr, size=None):
        """SetWorkspace (matmul_client.h): the GM buffer iterate(sync=False) leaves C's tiles in;
        a GlobalTensor, or a GM address with `size` elements."""
        b = self.b
        if self.role == "server":
            return
        if self.role != "client":
            _no_async(self, "set_workspace")
        if isinstance(addr, GlobalTensor):
            g = addr
            es = addr.dtype.sizeof()
            n = addr.size if size is None else size
        elif hasattr(addr, "base"):
            g = GlobalTensor(dt.uint8, _b=b)
            g.addr, g.size, g.gm = addr.base, None, getattr(addr, "name", None) or None
            es, n = 1, size
            if n is not None and hasattr(addr, "dtype") and addr.dtype is not None:
                es = addr.dtype.sizeof()
        else:
            raise CompileError(f"asc.adv.Matmul.set_workspace takes a GlobalTensor or a GM address (with size); got "
                               f"{type(addr).__name__}", b.loc)
        self.cache = g
        self.cache_bytes = n * es if n is not None and is_static(n) else None

    def wait_iterate_all(self):
        """WaitIterateAll: take the response of iterate_all(sync=False, wait_iterate_all=True)."""
        b = self.b
        if self.role == "server":
            return
        if self.role != "client":
            _no_async(self, "wait_iterate_all")
        if not self._wait_all:
            raise CompileError("asc.adv.Matmul.wait_iterate_all: no iterate_all(..., sync=False, "
                               "wait_iterate_all=True) comes before it; the AIC notifies the end of an "
                               "asynchronous iterate_all only with wait_iterate_all=True (Ascend C's "
                               "WaitIterateAll would wait forever)", b.loc)
        _kfc.drain(self)

    def async_get_tensor_c(self, c):
        """AsyncGetTensorC: get_tensor_c(c, sync=False)."""
        return self.get_tensor_c(c, sync=False)

    def wait_get_tensor_c(self):
        """WaitGetTensorC: the MTE2 -> V wait after get_tensor_c(ub, sync=False)."""
        if self.role == "server":
            return
        if self.role != "client":
            _no_async(self, "wait_get_tensor_c")
        _kfc.wait_get_tensor_c(self)

    def iterate(self, en_partial_sum=False, sync=True, local_c_matrix=None, *a, **k):
        sync = _static_bool(self.b, sync, "iterate", "sync")
        if self.role == "server":
            return _Iterate(self)
        if self.role == "client":
            if not sync and self.cache is None:
                raise CompileError("asc.adv.Matmul.iterate(sync=False) needs mm.set_workspace(...) before it: the "
                                   "AIC writes the tiles there for get_tensor_c(sync=False) (Ascend C asserts "
                                   "cacheWorkspaceAddr)", self.b.loc)
            self._client_ready()
            if not sync:
                # Iterate<false>: the message goes now (as the first Iterate call of the
                # `while (mm.Iterate<false>())` loop posts it), so a bare mm.iterate(sync=False)
                # followed by a loop of get_tensor_c(sync=False) works as well as the with-loop
                _kfc.iterate_async(self)
                self._async_iter = True
            return _Iterate(self)
        if not sync:
            _no_async(self, "iterate(sync=False)")
        if not en_partial_sum:
            self._prepare()
            return _Iterate(self)
        raise CompileError("asc.adv.Matmul.iterate: en_partial_sum=True (accumulating into L0C across iterate "
                           "calls) is not lowered; iterate with en_partial_sum=False", self.b.loc)

    def get_tensor_c(self, tensor=None, en_atomic=0, en_sequential_write=False, sync=True, *a, **k):
        dst = tensor
        sync = _static_bool(self.b, sync, "get_tensor_c", "sync")
        if self.role == "server":
            return
        if not sync:
            if self.role != "client":
                _no_async(self, "get_tensor_c(sync=False)")
            if not isinstance(dst, LocalTensor):
                raise CompileError("asc.adv.Matmul.get_tensor_c(sync=False) is implemented into a UB LocalTensor "
                                   "on a mix kernel's AIV, after iterate(sync=False) (Ascend C's c220 client "
                                   "asserts a synchronous iterate for GetTensorC into GM)", self.b.loc)
            if not self._async_iter:
                raise CompileError("asc.adv.Matmul.get_tensor_c(sync=False) comes after mm.iterate(sync=False) "
                                   "(with set_workspace before it)", self.b.loc)
            if en_atomic:
                raise CompileError("asc.adv.Matmul.get_tensor_c: en_atomic is not lowered", self.b.loc)
            _kfc.get_tensor_c_async(self, dst)
            return
        if self.role == "client" and isinstance(dst, LocalTensor):
            if self._count is None:
                raise CompileError("asc.adv.Matmul.get_tensor_c comes inside 'with matmul.iterate() as count:'",
                                   self.b.loc)
            if en_atomic:
                raise CompileError("asc.adv.Matmul.get_tensor_c: en_atomic is not lowered", self.b.loc)
            if not en_sequential_write:
                raise CompileError("asc.adv.Matmul.get_tensor_c into UB: only en_sequential_write=True (the "
                                   "tile alone, base_m x base_n) is implemented", self.b.loc)
            _kfc.get_tensor_c(self, dst, self._count())
            return
        if self.role == "direct" and isinstance(dst, GlobalTensor):
            if self._count is None:
                raise CompileError("asc.adv.Matmul.get_tensor_c comes inside 'with matmul.iterate() as count:'",
                                   self.b.loc)
            if en_atomic:
                raise CompileError("asc.adv.Matmul.get_tensor_c: en_atomic is not lowered", self.b.loc)
            self._direct_tile(dst, self._count(), bool(en_sequential_write))
            return
        raise CompileError(f"asc.adv.Matmul.get_tensor_c into a {type(dst).__name__} is not implemented here: a "
                           f"cube-only kernel's Matmul writes C to a GlobalTensor, a mix kernel's AIV receives it "
                           f"in a UB LocalTensor", self.b.loc)


class _Iterate:
    """`with matmul.iterate() as count:` on the AIV of a mix kernel: the body runs once per tile
    of the single-core output (count 0, 1, ...), get_tensor_c inside fetches tile `count`."""
    _asc_builder = True

    def __init__(self, m):
        self.m = m

    def _asc_with_loop(self, count):
        self.m._count = count
        return _kfc.n_tiles(self.m)


for _n, _why in _UNSUP.items():
    def _m(self, *a, _why=_why, _n=_n, **k):
        raise CompileError(f"asc.adv.Matmul.{_n} is not supported: {_why}", self.b.loc if self.b else None)
    _m.__name__ = _n
    _m.__asc_rejected__ = _why
    setattr(Matmul, _n, _m)
