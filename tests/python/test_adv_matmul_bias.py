"""asc.adv.Matmul.set_bias where the AIC computes (cube-only kernel, C in GM): C = A x B + bias,
f16 A and B, f32 bias and C, against numpy over shapes whose M, N, K are not multiples of 16, on
one and several AI cores of ascend910b and on the coupled teach.  The bias reaches L0C through an
exact rank-1 mmad (python/pyasc/adv/matmul.py _bias_init; the bias table is not modelled)."""
import os
import sys

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import _common as cm  # noqa: E402


@asc.jit(matmul_cube_only=True)
def matmul_bias(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                tiling: asc.adv.TCubeTiling):
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
    zg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n)
    zg.set_global_buffer(bias + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, zg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg)
        mm.set_bias(zg)
        mm.set_tail(tail_m, tail_n, tiling.k_a)
        mm.iterate_all(cg)
        mm.end()


def _run(m, n, k, cores, seed=0, **kw):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    bias = (rng.random(n) * 8 - 4).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.enable_bias(True)
    t.set_dim(cores)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    res = matmul_bias[tiling.used_core_num](a, b, bias, c, tiling, **kw)
    ref = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    return c, ref, tiling, res


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores", [(37, 45, 29, 1), (100, 72, 40, 1), (200, 136, 100, 4),
                                          (130, 300, 70, 3), (17, 33, 300, 2), (1, 1, 1, 1),
                                          (300, 600, 200, 2)])
def test_adv_matmul_bias(m, n, k, cores):
    c, ref, tiling, _ = _run(m, n, k, cores)
    assert np.abs(c - ref).max() < 1e-3, tiling


@pytest.mark.libasc
def test_adv_matmul_bias_only_k_tail_races():
    """The bias operands share slot 1 with the K steps: the race checker sees the hand-offs."""
    c, ref, tiling, res = _run(70, 50, 200, 1, seed=2, check_races=True)
    assert np.abs(c - ref).max() < 1e-3, tiling


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k", [(37, 45, 29), (90, 130, 70)])
def test_adv_matmul_bias_teach(m, n, k):
    with cm.on_target("teach") as tgt:
        c, ref, tiling, _ = _run(m, n, k, min(2, cm.max_cores(tgt, "aic")))
    assert np.abs(c - ref).max() < 1e-3, tiling


@pytest.mark.libasc
def test_adv_matmul_bias_rejects_f16_bias():
    config.set_platform(config.Backend.Model)
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_dim(1)
    t.set_org_shape(32, 32, 32)
    t.set_shape(32, 32, 32)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    a = np.zeros((32, 32), np.float16)
    with pytest.raises(Exception, match="float32 bias"):
        matmul_bias[1](a, a, np.zeros(32, np.float16), np.zeros((32, 32), np.float32), tiling)


@asc.jit(matmul_cube_only=True)
def matmul_bias_iter(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                     tiling: asc.adv.TCubeTiling, off: asc.ConstExpr[bool]):
    """One core: `with iterate() as count: get_tensor_c(c)` per tile, with the bias, or with
    set_bias then disable_bias (off)."""
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    zg.set_global_buffer(bias)
    cg.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    mm.set_bias(zg)
    mm.set_tail(tiling.m, tiling.n, tiling.k_a)
    if off:
        mm.disable_bias()
    with mm.iterate() as count:
        mm.get_tensor_c(cg)
    mm.end()


@pytest.mark.libasc
@pytest.mark.parametrize("off", [False, True])
def test_adv_matmul_bias_iterate_and_disable(off):
    config.set_platform(config.Backend.Model)
    m, n, k = 150, 200, 90
    rng = np.random.default_rng(5)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    bias = (rng.random(n) * 8 - 4).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.enable_bias(True)
    t.set_dim(1)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_fix_split(64, 64, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    matmul_bias_iter[1](a, b, bias, c, tiling, off)
    ref = a.astype(np.float64) @ b.astype(np.float64) + (0 if off else bias.astype(np.float64))
    assert np.abs(c - ref).max() < 1e-3, tiling
