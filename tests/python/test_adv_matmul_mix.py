"""asc.adv.Matmul called on the AIVs of a mix kernel (python/pyasc/adv/matmul_kfc.py): the AIC
serves the AIVs' calls through the GM workspace and cross-core flags.  The acceptance kernel
(kernels/pyasc/matmul_adv_mix.py: 512 x 512 x 512 f16 -> f32 on the AIC, leaky ReLU on the AIVs,
4 AI cores of ascend910b) equals numpy, draws its cross-core arrows and runs race-free both under
check_races=True and under the GM racecheck."""
import json
import os
import sys

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_adv_mix as mam  # noqa: E402


@pytest.mark.libasc
def test_adv_mix_512(tmp_path):
    tr = str(tmp_path / "t.json")
    a, b, bias, c, tiling, res = mam.run(trace=tr, check_races=True)
    assert np.abs(c - mam.reference(a, b)).max() < 1e-3
    # 8 AIVs x 256 x 128 each, in 128 x 128 tiles: 2 tile requests + 1 quit per AIV (AIV -> AIC
    # arrows) and 3 rounds per AI core (2 tiles, the quit) answered to both AIVs (AIC -> AIV arrows)
    assert (tiling.single_core_m, tiling.single_core_n, tiling.base_m, tiling.base_n) == (256, 128, 128, 128)
    ev = json.load(open(tr))["traceEvents"]
    ends = {}
    for e in ev:
        if e.get("name") == "flow" and str(e.get("id", "")).startswith("inter_"):
            ends.setdefault(e["id"], []).append((e["ph"], e["pid"]))
    assert len(ends) == 4 * (2 * 3 + 3 * 2)
    for v in ends.values():
        assert sorted(p for p, _ in v) == ["s", "t"] and v[0][1] != v[1][1]


@pytest.mark.libasc
def test_adv_mix_bias_gm_racecheck():
    a, b, bias, c, tiling, res = mam.run(with_bias=True, sanitize="racecheck", seed=3)
    assert np.abs(c - mam.reference(a, b, bias)).max() < 1e-3


@asc.jit(kernel_type=asc.KernelType.AIV_ONLY)
def k_aiv_only(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
               workspace: asc.GlobalAddress):
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))


def test_adv_on_aiv_only_kernel_is_an_error():
    t = mam.tiling_for(128, 128, 64, 2)
    with pytest.raises(asc.CompileError) as e:
        k_aiv_only.asm(np.zeros(8, np.float16), np.zeros(8, np.float16), np.zeros(8, np.float32), t,
                       np.zeros(64, np.uint8))
    assert "AIV-only kernel" in str(e.value)


def _k_tails(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
            tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """Each AIV's share of C = A x B + bias with tails on every axis: set_tail, the iterate loop over
    the tail's tiles, get_tensor_c, and a byte-exact copy of the tile's valid part."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    tail_m = tiling.m - mi * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - ni * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    biasg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    biasg.set_global_buffer(bias + ni * tiling.single_core_n)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=q, num=1, len=tiling.base_m * tiling.base_n * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg)
        mm.set_bias(biasg)
        mm.set_tail(tail_m, tail_n)
        round_m = (tail_m + tiling.base_m - 1) // tiling.base_m
        with mm.iterate() as count:
            x = q.alloc_tensor(asc.float32)
            mm.get_tensor_c(x, en_sequential_write=True)
            q.enque(x)
            x = q.deque(asc.float32)
            ti = count % round_m
            tj = count // round_m
            rows = tail_m - ti * tiling.base_m
            if rows > tiling.base_m:
                rows = tiling.base_m
            cols = tail_n - tj * tiling.base_n
            if cols > tiling.base_n:
                cols = tiling.base_n
            asc.data_copy_pad(cg[ti * tiling.base_m * tiling.n + tj * tiling.base_n:], x, asc.DataCopyExtParams(
                rows, cols * 4, (tiling.base_n * 4 - (cols * 4 + 31) // 32 * 32) // 32, (tiling.n - cols) * 4, 0))
            q.free_tensor(x)
        mm.end()


k_tails = asc.jit(_k_tails)
k_tails_1_1 = asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_1)(_k_tails)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores,base", [
    (200, 136, 100, 2, (64, 64)),       # nothing a multiple of the 64 x 64 tile; K not of 16
    (37, 45, 29, 1, (32, 32)),          # nothing a multiple of 16
    (130, 90, 70, 3, (48, 32)),         # 6 AIVs, some with tails, K and N not multiples of 16
])
def test_adv_mix_iterate_get_tensor_c_bias_tails(m, n, k, cores, base):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m + n + k)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    bias = (rng.random((1, n)) - 0.5).astype(np.float32)
    c = np.full((m, n), 7.0, np.float32)
    ws = np.zeros(4 * 1024 * 1024, np.uint8)
    tiling = mam.tiling_for(m, n, k, 2 * cores, base=base)
    k_tails[cores](a, b, c, bias, tiling, ws, check_races=True)
    ref = a.astype(np.float64) @ b.astype(np.float64) + bias
    assert np.abs(c - ref).max() < 1e-3, tiling


@pytest.mark.libasc
def test_adv_mix_1_1():
    """MIX_AIC_1_1: one AIV per AI core is the client (its block_idx the AI core's), flag 0 only."""
    config.set_platform(config.Backend.Model)
    m, n, k, cores = 90, 70, 50, 3
    rng = np.random.default_rng(1)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    bias = (rng.random((1, n)) - 0.5).astype(np.float32)
    c = np.full((m, n), 7.0, np.float32)
    tiling = mam.tiling_for(m, n, k, cores, base=(32, 32))
    k_tails_1_1[cores](a, b, c, bias, tiling, np.zeros(1 << 20, np.uint8), check_races=True)
    assert np.abs(c - (a.astype(np.float64) @ b.astype(np.float64) + bias)).max() < 1e-3


@pytest.mark.libasc
def test_adv_mix_uneven_aivs():
    """AIV 1 has no work (used_core_num 1), AIV 0 has 20 tiles: AIV 1 takes part in every round
    after its QUIT, so no response piles up on its counter (15 would be the overflow fault) and
    GM racecheck finds the end-of-service hand-off ordered."""
    config.set_platform(config.Backend.Model)
    m, n, k = 160, 128, 32
    rng = np.random.default_rng(5)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    bias = (rng.random((1, n)) - 0.5).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = mam.tiling_for(m, n, k, 1, base=(32, 32))
    assert tiling.used_core_num == 1 and mam_tiles(tiling) == 20
    k_tails[1](a, b, c, bias, tiling, np.zeros(1 << 20, np.uint8), sanitize="racecheck")
    assert np.abs(c - (a.astype(np.float64) @ b.astype(np.float64) + bias)).max() < 1e-3


def mam_tiles(t):
    return -(-t.single_core_m // t.base_m) * -(-t.single_core_n // t.base_n)


@asc.jit
def k_all_bias(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
               tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, with_bias: asc.ConstExpr[bool]):
    """Real pyasc tutorial 03's shape of kernel (the Matmul called on the AIVs, iterate_all into C in
    GM) with set_bias: the serving AIC adds the bias row (matmul_kfc.py word 8)."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    tail_m = tiling.m - mi * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - ni * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    biasg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    biasg.set_global_buffer(bias + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg)
        if with_bias:
            mm.set_bias(biasg)
        mm.set_tail(tail_m, tail_n)
        mm.iterate_all(cg)
        mm.end()


def _bias_tiling(m, n, k, aivs, bias):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(aivs)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(bias)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return tc


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores,with_bias", [
    (150, 70, 33, 2, True),     # 4 AIVs, tails on every axis
    (37, 45, 29, 1, True),
    (1, 1, 1, 1, True),
    (150, 70, 33, 2, False),    # a tiling with is_bias, the AIVs not setting it: the no-bias branch
])
def test_adv_mix_iterate_all_bias_gm(m, n, k, cores, with_bias):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m * k + n)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    bias = (rng.random((1, n)) - 0.5).astype(np.float32)
    c = np.full((m, n), 7.0, np.float32)
    t = _bias_tiling(m, n, k, 2 * cores, True)
    k_all_bias[cores](a, b, c, bias, t, np.zeros(1 << 20, np.uint8), with_bias, check_races=True)
    ref = a.astype(np.float64) @ b.astype(np.float64) + (bias if with_bias else 0)
    assert np.abs(c - ref).max() < 1e-3, t


@pytest.mark.libasc
def test_adv_mix_iterate_all_bias_needs_is_bias():
    config.set_platform(config.Backend.Model)
    t = _bias_tiling(32, 32, 32, 2, False)
    with pytest.raises(asc.CompileError, match="adds the bias only when the tiling has is_bias"):
        k_all_bias[1](np.zeros((32, 32), np.float16), np.zeros((32, 32), np.float16), np.zeros((32, 32), np.float32),
                      np.zeros((1, 32), np.float32), t, np.zeros(1 << 20, np.uint8), True)
