"""asc.lib.host base-block choice against Ascend C's algorithm (cannmirror/asc-devkit
impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp: GetMultiCoreBasicBlock, UpdateBaseBlock,
CalcMultiCoreDimsSmallShape, CalcL1Tiling, UpdateStepK).  The expected numbers are derived by hand
below for the ascend910b buffers (L0A = L0B = 64 KB, L0C = 128 KB, L1 = 512 KB, read from the
profile and checked first); every tiling must also fit the profile's buffers."""
import pytest

import asc.lib.host as host
from pyasc.compiler import targets

F16 = host.DataType.DT_FLOAT16


def _mk(m, n, k, cores, set_shape=True, ta=False, tb=False):
    t = host.MultiCoreMatmulTiling(host.PlatformAscendC("ascend910b")) if cores > 1 else \
        host.MatmulApiTiling(host.PlatformAscendC("ascend910b"))
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, F16, ta)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, F16, tb)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    if cores > 1:
        t.set_dim(cores)
    t.set_org_shape(m, n, k)
    if set_shape:
        t.set_shape(m, n, k)
    tiling = host.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


@pytest.fixture(scope="module")
def caps():
    tgt = targets.load("ascend910b")
    c = {b: targets.capacity(tgt, b) for b in ("L0A", "L0B", "L0C", "L1")}
    # the hand derivations below assume these sizes
    assert c == {"L0A": 65536, "L0B": 65536, "L0C": 131072, "L1": 524288}, c
    return c


def _fits(t, caps):
    assert t.fits(lambda b: caps[b]) == [], str(t)
    assert t.base_m % 16 == 0 and t.base_n % 16 == 0 and t.base_k % 16 == 0
    # L1 as depth tiles of A and B (double-buffered: depth = 2 * step)
    assert (t.base_m * t.base_k * t.depth_a1 + t.base_k * t.base_n * t.depth_b1) * 2 <= caps["L1"]


def _base(t):
    return t.base_m, t.base_n, t.base_k


def _l1(t):
    return t.step_k_a, t.step_k_b, t.depth_a1, t.depth_b1


def test_2048_cube_24_cores_others(caps):
    # set_shape -> OTHERS.  base_n = min(256, sn=256) = 256, base_k = 128 B / 2 = 64; base_m as large
    # as L0C (131072 / (256*4) = 128) and double-buffered L0A (65536 / (64*2*2) = 256) allow: 128;
    # single M 683 -> 688 = 6 blocks of 115 -> 128.  CalcL1Tiling: depthA = 524288/2/128/64 * 8/16
    # = 16, depthB = 524544/2/256/64 * 8/16 = 8, 16*16 KB + 8*32 KB = 512 KB (not over L1);
    # stepKa 8, stepKb 4 (UpdateStepK: 1024 B and 512 B are multiples of 512 / 256).
    t = _mk(2048, 2048, 2048, 24)
    _fits(t, caps)
    assert _base(t) == (128, 256, 64)
    assert _l1(t) == (8, 4, 16, 8)


def test_2048_split_mn_basic_block(caps):
    # no set_shape: M = 2048 >= 128 and M*N > 26214 * 24 -> SPLIT_MN: the basic block 128 x 256 x 64.
    t = _mk(2048, 2048, 2048, 24, set_shape=False)
    _fits(t, caps)
    assert _base(t) == (128, 256, 64)


def test_2048_both_transposed_256x128(caps):
    # GetMultiCoreBasicBlock: A and B transposed -> 256 x 128; 256*64*2*2 = 64 KB fits L0A.
    t = _mk(2048, 2048, 2048, 24, set_shape=False, ta=True, tb=True)
    _fits(t, caps)
    assert _base(t) == (256, 128, 64)


def test_512_one_core(caps):
    # one core: base_n 256, base_k 64, base_m 128 (L0C); UpdateStepK returns at once since
    # stepKa * baseK = 8 * 64 >= K = 512.
    t = _mk(512, 512, 512, 1)
    _fits(t, caps)
    assert _base(t) == (128, 256, 64)
    assert _l1(t) == (8, 4, 16, 8)


def test_small_tail_one_core(caps):
    # 40 x 24 x 20: base_n = 24 -> 32, base_k = min(64, 20 -> 32) = 32, base_m = 40 -> 48 (one block);
    # K has one step, so stepKa = stepKb = 1.
    t = _mk(40, 24, 20, 1)
    _fits(t, caps)
    assert _base(t) == (48, 32, 32)
    assert _l1(t)[:2] == (1, 1)


@pytest.mark.parametrize("m,n,k", [(512, 512, 512), (64, 3072, 40), (300, 200, 1000)])
def test_split_small_mn(caps, m, n, k):
    # no set_shape, M*N < 26214 * 24 -> SPLIT_SMALL_MN: UpdateBaseBlock on the single-core shape
    # (base_m 128 if sm >= 128 else sm -> 16; base_n 256 (384 when base_k <= 32 and base_m <= 64)
    # if sn >= that, else sn -> 16), then base_k = min(L0/2/2 B = 16384 elements / base_m, / base_n)
    # aligned down to 16, at most K -> 16.
    t = _mk(m, n, k, 24, set_shape=False)
    _fits(t, caps)
    sm, sn = t.single_core_m, t.single_core_n
    up = lambda x, a: -(-x // a) * a  # noqa: E731
    bm = 128 if sm >= 128 else up(sm, 16)
    bk0 = min(64, up(k, 32))
    mx = 384 if (bk0 <= 32 and bm <= 64) else 256
    bn = mx if sn >= mx else up(sn, 16)
    bk = min(min(16384 // bm, 16384 // bn) // 16 * 16, up(k, 16))
    assert _base(t) == (min(bm, up(sm, 16)), min(bn, up(sn, 16)), min(bk, up(t.single_core_k, 16)))
