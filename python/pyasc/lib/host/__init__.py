"""asc.lib.host: real pyasc's host-side matmul tiling (python/asc/lib/host in hicann/pyasc, there
bindings of CANN's C++ matmul_tiling; the names, arguments and return codes are theirs: 0 on
success, -1 when no tiling fits).

The tiling is computed here, in Python, from the target profile's buffers (read through libasc
by compiler/targets.py: L1, L0A, L0B, L0C and UB capacities and the core counts; no size is
written in this file).  Choice (docs/pyasc.md "Matmul tiling"):
  - multi-core: the (m_dim, n_dim) split of the output over at most `dim` cores that minimises
    the largest per-core output (padded to 16), then uses fewer cores;
  - base block (base_m, base_n, base_k), multiples of the fractal (16 rows; K in 32-byte C0
    units): double-buffered A and B tiles must fit L0A and L0B, the f32/int32 C tile fits L0C;
    among those the one with the least padded work, then the highest compute per byte loaded
    from L1 (base_m * base_n / (base_m + base_n)), then the deepest base_k;
  - L1: depth_a1 / depth_b1 base tiles of A and B (step_ka / step_kb K steps, double-buffered
    when both fit), the bias row when enabled.
`print(tiling)` shows every field; `TCubeTiling.fits(platform)` re-checks the buffers.
"""
from __future__ import annotations

import enum

from ...compiler import targets
from ...language.enums import CubeFormat, TPosition  # noqa: F401  (real pyasc re-exports them here)
from ...language.adv_tiling import TCubeTiling
from ...runtime import config as _config

__all__ = ["BatchMatmulTiling", "CubeFormat", "DataType", "DequantType", "MatmulApiTiling", "MatmulConfigParams",
           "MatrixMadType", "MatrixTraverse", "MultiCoreMatmulTiling", "PlatformAscendC", "PlatformAscendCManager",
           "ScheduleType", "TPosition", "get_ascendc_platform", "TCubeTiling"]


class DataType(enum.IntEnum):
    """ge::DataType values (CANN graph/types.h)."""
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_BF16 = 27
    DT_INT4 = 29


_SIZE = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_INT8: 1, DataType.DT_INT32: 4,
         DataType.DT_UINT8: 1, DataType.DT_INT16: 2, DataType.DT_UINT16: 2, DataType.DT_UINT32: 4,
         DataType.DT_INT64: 8, DataType.DT_BF16: 2}


class MatrixTraverse(enum.IntEnum):
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(enum.IntEnum):
    NORMAL = 0
    HF32 = 1


class DequantType(enum.IntEnum):
    SCALAR = 0
    TENSOR = 1


class ScheduleType(enum.IntEnum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


class MatmulConfigParams:
    def __init__(self, mm_config_type=1, enable_l1_cache_ub=False, schedule_type=ScheduleType.INNER_PRODUCT,
                 traverse=MatrixTraverse.NOSET, en_vec_nd2nz=False):
        self.mm_config_type, self.enable_l1_cache_ub = mm_config_type, enable_l1_cache_ub
        self.schedule_type, self.traverse, self.en_vec_nd2nz = schedule_type, traverse, en_vec_nd2nz


class PlatformAscendC:
    """The target profile as real pyasc's platform object: core counts and buffer sizes."""

    def __init__(self, target: str | None = None):
        self.target = target or _config.get_target()
        self._t = targets.load(self.target)

    def get_core_num(self) -> int:
        split = self._t["split"]
        return self._t["ai_cores"] * (self._t["aiv_per_core"] if split else 1)

    def get_core_num_aic(self) -> int:
        return self._t["ai_cores"]

    def get_core_num_aiv(self) -> int:
        return self._t["ai_cores"] * (self._t["aiv_per_core"] if self._t["split"] else 1)

    def get_core_mem_size(self, buf: str) -> int:
        """Usable bytes of a local buffer: "UB", "L1", "L0A", "L0B", "L0C"."""
        return targets.capacity(self._t, buf)

    def get_soc_version(self) -> str:
        return self.target

    def __repr__(self):
        return (f"PlatformAscendC({self.target}: {self.get_core_num_aic()} AIC, {self.get_core_num_aiv()} AIV, "
                + ", ".join(f"{b} {self.get_core_mem_size(b)} B" for b in ("L1", "L0A", "L0B", "L0C", "UB")) + ")")


class PlatformAscendCManager:
    @staticmethod
    def get_instance(soc_version: str | None = None) -> PlatformAscendC:
        return PlatformAscendC(_config._PLATFORM_TARGET.get(soc_version, soc_version) if soc_version else None)


def get_ascendc_platform() -> PlatformAscendC:
    return PlatformAscendC()


def _up(x, a):
    return -(-x // a) * a


def _cdiv(x, a):
    return -(-x // a)


class MatmulApiTiling:
    """Single-core tiling (real pyasc MatmulApiTiling): the whole shape on one core."""

    def __init__(self, platform: PlatformAscendC | None = None):
        self.platform = platform or get_ascendc_platform()
        self.a = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False)
        self.b = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False)
        self.c = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT)
        self.bias_t = (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT)
        self.m = self.n = self.ka = self.kb = 0
        self.org = None
        self.bias = False
        self.fix = [-1, -1, -1]
        self.space = [-1, -1, -1, -1]
        self.traverse = MatrixTraverse.FIRSTM
        self.db = (True, True, False)
        self.range = (None, None, None, 16, 16, 16)
        self.batch = (1, 1)
        self.layout = {}
        self.single = [-1, -1, -1]
        self.dim = 1
        self.mad_type = MatrixMadType.NORMAL
        self.dequant = DequantType.SCALAR
        self.sparse = False
        self.config_params = MatmulConfigParams()
        self.result = None

    # ---- the setters (return 0 as real pyasc does; -1 for values it rejects) -------------
    def set_a_type(self, pos, type, data_type, is_trans=False):
        self.a = (pos, type, DataType(data_type), bool(is_trans))
        return 0

    def set_b_type(self, pos, type, data_type, is_trans=False):
        self.b = (pos, type, DataType(data_type), bool(is_trans))
        return 0

    def set_c_type(self, pos, type, data_type):
        self.c = (pos, type, DataType(data_type))
        return 0

    def set_bias_type(self, pos, type, data_type):
        self.bias_t = (pos, type, DataType(data_type))
        return 0

    def set_shape(self, m, n, k):
        if min(m, n, k) <= 0 and -1 not in (m, n, k):
            return -1
        self.m, self.n, self.ka, self.kb = m, n, k, k
        return 0

    def set_org_shape(self, org_m, org_n, org_ka, org_kb=None):
        self.org = (org_m, org_n, org_ka, org_ka if org_kb is None else org_kb)
        return 0

    def enable_bias(self, is_bias_in=False):
        self.bias = bool(is_bias_in)
        return 0

    def set_fix_split(self, base_m_in=-1, base_n_in=-1, base_k_in=-1):
        self.fix = [base_m_in, base_n_in, base_k_in]
        return 0

    def set_buffer_space(self, l1_size=-1, l0_c_size=-1, ub_size=-1, bt_size=-1):
        self.space = [l1_size, l0_c_size, ub_size, bt_size]
        return 0

    def set_traverse(self, traverse):
        self.traverse = MatrixTraverse(traverse)
        return 0

    def set_double_buffer(self, a, b, c, bias, trans_nd2nz=True, trans_nz2nd=True):
        self.db = (bool(a), bool(b), bool(c))
        return 0

    def set_split_range(self, max_base_m=-1, max_base_n=-1, max_base_k=-1, min_base_m=-1, min_base_n=-1,
                        min_base_k=-1):
        self.range = tuple(None if v == -1 else v for v in (max_base_m, max_base_n, max_base_k)) + \
            tuple(16 if v == -1 else v for v in (min_base_m, min_base_n, min_base_k))
        return 0

    def set_batch_num(self, batch):
        self.batch = (batch, batch)
        return 0

    def set_batch_info_for_normal(self, batch_a, batch_b, m, n, k):
        self.batch = (batch_a, batch_b)
        self.m, self.n, self.ka, self.kb = m, n, k, k
        return 0

    def _layout(self, which, b, s, n, g, d):
        self.layout[which] = (b, s, n, g, d)
        return 0

    def set_a_layout(self, b, s, n, g, d):
        return self._layout("a", b, s, n, g, d)

    def set_b_layout(self, b, s, n, g, d):
        return self._layout("b", b, s, n, g, d)

    def set_c_layout(self, b, s, n, g, d):
        return self._layout("c", b, s, n, g, d)

    def set_mad_type(self, mad_type):
        self.mad_type = MatrixMadType(mad_type)
        return 0

    def set_dequant_type(self, dequant_type):
        self.dequant = DequantType(dequant_type)
        return 0

    def set_sparse(self, is_sparse_in=False):
        if is_sparse_in:
            return -1               # sparse matmul (the 4:2 index path) is not modelled
        return 0

    def set_matmul_config_params(self, mm_config_type_in=1, enable_l1_cache_ub_in=False, en_vec_nd2nz_in=False):
        if isinstance(mm_config_type_in, MatmulConfigParams):
            self.config_params = mm_config_type_in
        else:
            self.config_params = MatmulConfigParams(mm_config_type_in, enable_l1_cache_ub_in,
                                                    en_vec_nd2nz=en_vec_nd2nz_in)

    def get_base_m(self):
        return self.result.base_m if self.result else -1

    def get_base_n(self):
        return self.result.base_n if self.result else -1

    def get_base_k(self):
        return self.result.base_k if self.result else -1

    # ---- the computation -------------------------------------------------------------------
    def _caps(self):
        p = self.platform
        l1 = p.get_core_mem_size("L1") if self.space[0] in (-1, None) else min(self.space[0], p.get_core_mem_size("L1"))
        l0c = p.get_core_mem_size("L0C") if self.space[1] in (-1, None) else min(self.space[1],
                                                                               p.get_core_mem_size("L0C"))
        return l1, p.get_core_mem_size("L0A"), p.get_core_mem_size("L0B"), l0c

    def _split(self):
        """(m_dim, n_dim, single_m, single_n, single_k) for this class: one core."""
        return 1, 1, self.m, self.n, self.ka

    def _scenario(self):
        """Ascend C's GetMultiCoreScenario; "others" on one core (MatmulApiTiling)."""
        return "others"

    def _basic_block(self, sm, sn, sk):
        """The base block as Ascend C chooses it (cannmirror/asc-devkit
        impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp): GetMultiCoreBasicBlock gives
        base_m 128 (256 when L0C holds 256 KB), base_n 256, base_k 128 bytes of A (64 for f16),
        256 x 128 when both A and B are transposed, set_fix_split overriding; in the SPLIT_SMALL_MN
        scenario UpdateBaseBlock shrinks it to the single-core shape (base_m 128 or sm, base_n 256
        -- 384 when base_k <= 32 and base_m <= 64 -- or sn, aligned to 16) and
        CalcMultiCoreDimsSmallShape sets base_k = min(L0/2 / base_m, L0/2 / base_n) elements, aligned
        down to C0 and at most K aligned to C0.  The L0 size is the profile's L0A/L0B here.  Our
        deviation: base_m/base_n/base_k never exceed the single-core shape rounded up to the
        fractal (Ascend C keeps 128 x 256 x 64 in SPLIT_MN and lets the tail iterations pad), and
        one-core / OTHERS tilings (Ascend C: the GetL0Factors search) use the same block clamped
        likewise.  Returns None when the block does not fit the profile's L0 double-buffered."""
        l1, l0a, l0b, l0c = self._caps()
        sa, sb = _SIZE[self.a[2]], _SIZE[self.b[2]]
        k0 = max(16, 32 // sa)
        fm, fn, fk = self.fix
        bm = 256 if l0c >= 262144 else 128
        bn = 256
        bk = 128 // sa
        if self.a[3] and self.b[3]:
            bm, bn = 256, 128
        if fm > 0:
            bm = fm
        if fn > 0:
            bn = fn
        scen = self._scenario()
        if scen == "split_small_mn":
            bk = min(bk, _up(self.ka, 32))
            bm = 128 if sm >= 128 else _up(sm, 16)
            max_n = 384 if (bk <= 32 and bm <= 64) else 256
            bn = max_n if sn >= max_n else _up(sn, 16)
            if fm > 0:
                bm = fm
            if fn > 0:
                bn = fn
            tmp = min(l0a, l0b) // 2 // sa
            bk = min(tmp // bm, tmp // bn)
            bk = min(bk // k0 * k0, _up(self.ka, k0))
        if scen == "others" and fm <= 0:
            # one core / OTHERS (Ascend C: GetL0Factors, a search over factors of the single-core
            # shape up to what L0 holds): base_n as above, then base_m as large as L0A (double
            # buffered) and L0C allow, the M blocks made equal so the last is not a thin tail
            bn_ = min(bn, _up(sn, 16)) if fn <= 0 else bn
            bk_ = min(bk, _up(sk, k0)) if fk <= 0 else fk
            cap = min(l0c // (bn_ * 4), l0a // (bk_ * sa * (2 if self.db[0] else 1))) // 16 * 16
            if cap >= 16:
                m16 = _up(sm, 16)
                bm = _up(_cdiv(m16, _cdiv(m16, cap)), 16)
        bm = min(bm, _up(sm, 16)) if fm <= 0 else bm
        bn = min(bn, _up(sn, 16)) if fn <= 0 else bn
        bk = min(bk, _up(sk, k0)) if fk <= 0 else fk
        dba = 2 if self.db[0] else 1
        dbb = 2 if self.db[1] else 1
        if bk <= 0 or bm * bk * sa * dba > l0a or bk * bn * sb * dbb > l0b or bm * bn * 4 > l0c:
            return None
        mx_m, mx_n, mx_k, mn_m, mn_n, mn_k = self.range
        if any(v is not None and b > v for b, v in ((bm, mx_m), (bn, mx_n), (bk, mx_k))) or \
                bm < mn_m or bn < mn_n or bk < mn_k:
            return None
        bias_b = bn * 4 if self.bias else 0
        # CalcL1Tiling: depth = L1 / 2 / base tile, halved on the smaller side when both overflow
        da = (l1 // 2 // bm // bk) // sa
        db = ((l1 + 256) // 2 // bn // bk) // sb
        ta, tb = bm * bk * sa, bk * bn * sb
        if da * ta + db * tb > l1 - bias_b:
            if bm <= bn:
                da //= 2
            else:
                db //= 2
        ska, skb = da // 2, db // 2
        ska, skb = self._update_step_k(bk, sk, ska), self._update_step_k(bk, sk, skb)
        if ska >= skb and skb != 0:
            ska = ska // skb * skb
        elif ska != 0:
            skb = skb // ska * ska
        kt = _cdiv(sk, bk)                               # never more K steps than the core has
        ska, skb = max(1, min(ska, kt)), max(1, min(skb, kt))
        if (ta * ska + tb * skb) * 2 + bias_b > l1:
            return None
        return bm, bn, bk, ska, skb, 2 * ska, 2 * skb, dba, dbb

    def _update_step_k(self, bk, sk, step):
        """Ascend C UpdateStepK: a step of K in L1 is made a multiple of 512 (or 256) bytes."""
        if step * bk >= sk:
            return step
        sa = _SIZE[self.a[2]]
        for lim in (512, 256):
            if step * bk * sa > lim:
                if (step * bk * sa) % lim != 0 and lim % (bk * sa) == 0:
                    while (step * bk * sa) % lim != 0 and step > 1:
                        step -= 1
                break
        return step

    def _base(self, sm, sn, sk):
        r = self._basic_block(sm, sn, sk)
        if r is not None:
            return r
        return self._base_search(sm, sn, sk)

    def _base_search(self, sm, sn, sk):
        """Fallback when the basic block does not fit (small profiles, set_split_range): the
        fitting block with the least padded work, then the most compute per byte."""
        l1, l0a, l0b, l0c = self._caps()
        sa, sb = _SIZE[self.a[2]], _SIZE[self.b[2]]
        k0 = max(16, 32 // sa)                           # C0: 32 bytes of K per fractal row
        sc = 4                                           # L0C holds f32 / int32
        dba = 2 if self.db[0] else 1
        dbb = 2 if self.db[1] else 1
        mx_m, mx_n, mx_k, mn_m, mn_n, mn_k = self.range
        fm, fn, fk = self.fix
        ms = [fm] if fm > 0 else range(max(16, _up(mn_m, 16)), _up(min(sm, mx_m or sm), 16) + 1, 16)
        ns = [fn] if fn > 0 else range(max(16, _up(mn_n, 16)), _up(min(sn, mx_n or sn), 16) + 1, 16)
        ks = [fk] if fk > 0 else range(max(k0, _up(mn_k, k0)), _up(min(sk, mx_k or sk), k0) + 1, k0)
        best = None
        for bm in ms:
            for bn in ns:
                if bm * bn * sc > l0c:
                    continue
                work = _cdiv(sm, bm) * bm * _cdiv(sn, bn) * bn
                for bk in ks:
                    if bm * bk * sa * dba > l0a or bk * bn * sb * dbb > l0b:
                        continue
                    if (bm * bk * sa + bk * bn * sb) * 2 + (bn * 4 if self.bias else 0) > l1:
                        continue
                    kwork = _cdiv(sk, bk) * bk
                    key = (work * kwork, -(bm * bn) / (bm + bn), -bk, bm, bn)
                    if best is None or key < best[0]:
                        best = (key, bm, bn, bk)
        if best is None:
            return None
        _, bm, bn, bk = best
        # L1: as many K steps of A and B as fit, double-buffered
        kt = _cdiv(sk, bk)
        bias_b = bn * 4 if self.bias else 0
        step = kt
        while step > 1 and (bm * bk * sa + bk * bn * sb) * step * 2 + bias_b > l1:
            step -= 1
        depth = 2 * step if (bm * bk * sa + bk * bn * sb) * step * 2 + bias_b <= l1 else step
        return bm, bn, bk, step, step, depth, depth, dba, dbb

    def get_tiling(self, tiling: TCubeTiling) -> int:
        if self.org and min(self.m, self.n, self.ka) <= 0:     # no set_shape: the org shape (GetSingleM)
            self.m, self.n, self.ka, self.kb = self.org
        if min(self.m, self.n, self.ka) <= 0:
            return -1
        m_dim, n_dim, sm, sn, sk = self._split()
        base = self._base(sm, sn, sk)
        if base is None:
            return -1
        bm, bn, bk, ska, skb, depth_a, depth_b, dba, dbb = base
        sa, sb = _SIZE[self.a[2]], _SIZE[self.b[2]]
        org = self.org or (self.m, self.n, self.ka, self.kb)
        t = tiling
        t.used_core_num = _cdiv(self.m, sm) * _cdiv(self.n, sn) * self._batch_cores()
        t.m, t.n, t.k_a, t.k_b = org
        t.single_core_m, t.single_core_n, t.single_core_k = sm, sn, sk
        t.base_m, t.base_n, t.base_k = bm, bn, bk
        t.step_m = t.step_n = 1
        t.step_k_a, t.step_k_b = ska, skb
        t.depth_a1, t.depth_b1 = depth_a, depth_b
        t.is_bias = int(self.bias)
        t.iterate_order = 1 if self.traverse == MatrixTraverse.FIRSTN else 0
        t.db_l0a, t.db_l0b, t.db_l0c = dba, dbb, 1
        t.share_mode = 0
        t.share_l1_size = (bm * bk * sa * depth_a + bk * bn * sb * depth_b) + (bn * 4 if self.bias else 0)
        t.share_l0c_size = bm * bn * 4
        t.share_ub_size = 0
        t.trans_length = 0
        ba, bb = self.batch
        t.batch_m, t.batch_n = ba, bb
        t.single_batch_m, t.single_batch_n = ba, bb
        t.batch_num = max(ba, bb)
        for w, key in (("a", "a_layout_info_"), ("b", "b_layout_info_")):
            if w in self.layout:
                for f, v in zip("bsngd", self.layout[w]):
                    setattr(t, key + f, v)
        if "c" in self.layout:
            for f, v in zip(("b", "s1", "n", "g", "s2"), self.layout["c"]):
                setattr(t, "c_layout_info_" + f, v)
        self.result = t
        return 0

    def _batch_cores(self):
        return 1


class MultiCoreMatmulTiling(MatmulApiTiling):
    """Tiling over `set_dim` cores: the output is split into m_dim x n_dim single-core blocks."""

    def __init__(self, platform: PlatformAscendC | None = None):
        super().__init__(platform)
        self.dim = self.platform.get_core_num_aic()
        self.align = (16, 16, 16)
        self.single_range = None
        self.split_k = False
        self.shape_set = False
        self.dims = (1, 1, 1)

    def set_dim(self, dim):
        if dim <= 0:
            return -1
        self.dim = dim
        return 0

    def set_single_shape(self, single_m_in=-1, single_n_in=-1, single_k_in=-1):
        self.single = [single_m_in, single_n_in, single_k_in]
        return 0

    def set_single_range(self, max_m=-1, max_n=-1, max_k=-1, min_m=-1, min_n=-1, min_k=-1):
        self.single_range = (max_m, max_n, max_k, min_m, min_n, min_k)
        return 0

    def set_align_split(self, align_m, align_n, align_k):
        self.align = tuple(a if a > 0 else 16 for a in (align_m, align_n, align_k))
        return 0

    def enable_multi_core_split_k(self, flag):
        self.split_k = bool(flag)       # the K split over cores is not chosen: K stays whole per core

    def _single(self, md, nd):
        """The single-core M and N of an md x nd split, as Ascend C computes them
        (MatmulTilingAlgorithm::GetSingleShape and AlignSingleShape in cannmirror/asc-devkit
        impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp): ceil(M / md) on one core
        (set_dim(1)); over several cores ceil(M16 / md) with M16 = M rounded up to 16 (the
        fractal), then rounded up to 32 bytes of the input when the multi-core scenario asks it
        and the rounding keeps md blocks (N: B not transposed, or an output-heavy shape; M: A
        transposed; both when C is NZ).  The single-core block need not divide M or N: the core
        holding the last block must call Matmul.set_tail (the Matmul computes the whole block
        otherwise, as Ascend C's does)."""
        sm, sn = _cdiv(self.m, md), _cdiv(self.n, nd)
        if self.dim <= 1:
            return sm, sn
        sa, sb, scz = _SIZE[self.a[2]], _SIZE[self.b[2]], _SIZE.get(self.c[2], 4)
        # GetMultiCoreScenario: 910B-class (split) parts only; OTHERS once set_shape (singleM) is set
        scen = self._scenario()
        need = scen != "others" or self.a[1] == CubeFormat.NZ or self.b[1] == CubeFormat.NZ
        out_align = sn * sm * 2 * scz > sn * self.ka * sa + sm * self.ka * sb      # NeedOutputAlign
        c_nz = self.c[1] == CubeFormat.NZ

        def align(flag, org, factor, a):
            single = _cdiv(org, factor)
            if not flag or factor <= 1:
                return single
            al = _up(single, a)
            return single if al >= _cdiv(org, factor - 1) else al
        sn = align((need and (not self.b[3] or out_align)) or c_nz, _up(self.n, 16), nd, 32 // sb)
        sm = align((need and self.a[3]) or c_nz, _up(self.m, 16), md, 32 // sa)
        return sm, sn

    def _scenario(self):
        # GetMultiCoreScenario: 910B-class (split) parts only; OTHERS once set_shape (singleM) is set
        if self.dim > 1 and self.platform._t["split"] and not self.split_k and not self.shape_set:
            if self.m >= 128 and self.m * self.n > 26214 * self.dim:
                return "split_mn"
            if self.m * self.n < 26214 * self.dim:
                return "split_small_mn"
        return "others"

    def set_shape(self, m, n, k):
        r = super().set_shape(m, n, k)
        self.shape_set = r == 0
        return r

    def _split(self):
        if self.single[0] > 0 and self.single[1] > 0:
            sm, sn = self.single[0], self.single[1]
            sk = self.single[2] if self.single[2] > 0 else self.ka
            self.dims = (_cdiv(self.m, sm) * _cdiv(self.n, sn), _cdiv(self.m, sm), _cdiv(self.n, sn))
            return self.dims[1], self.dims[2], sm, sn, sk
        best = None
        for md in range(1, self.dim + 1):
            for nd in range(1, self.dim // md + 1):
                sm, sn = self._single(md, nd)
                used = _cdiv(self.m, sm) * _cdiv(self.n, sn)
                key = (_up(sm, 16) * _up(sn, 16), used, abs(sm - sn), md)
                if best is None or key < best[0]:
                    best = (key, md, nd, sm, sn, used)
        _, md, nd, sm, sn, used = best
        self.dims = (used, _cdiv(self.m, sm), _cdiv(self.n, sn))
        return self.dims[1], self.dims[2], sm, sn, self.ka

    def get_single_shape(self):
        if self.result is None:
            return None
        return self.result.single_core_m, self.result.single_core_n, self.result.single_core_k

    def get_core_num(self):
        return self.dims if self.result is not None else None


class BatchMatmulTiling(MatmulApiTiling):
    """Batched tiling: every batch of the single-core tiling on one core, batches spread over the
    platform's AIC cores."""

    def __init__(self, platform: PlatformAscendC | None = None):
        super().__init__(platform)

    def _batch_cores(self):
        return min(max(self.batch), self.platform.get_core_num_aic())

    def get_core_num(self):
        if self.result is None:
            return None
        return self.result.used_core_num, 1, 1
