"""float32 asc.adv.Matmul inputs (mmad.f32f32: fractal 16 x 8, c0 = 8 elements of 32 bytes, an f32
L0C) and Matmul.set_hf32(enable_hf32, trans_mode) (real pyasc docs asc.language.adv.Matmul.set_hf32;
Ascend C SetHF32): with HF32 on, each f32 input is rounded to HF32 (1 sign, 8 exponent, 10 mantissa
bits) to nearest even (trans_mode 0) or toward zero (1) before the multiply.  Checked against numpy:
the f64 product of the inputs (HF32 off) or of the numpy-rounded inputs (HF32 on), on tails in M,
N, K and one / several cores, with a bias (never rounded: the hardware's bias table path)."""
import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config
from pyasc.compiler.errors import CompileError


@asc.jit(matmul_cube_only=True)
def mm_f32(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
           tiling: asc.adv.TCubeTiling, hf32: asc.ConstExpr[int], trans: asc.ConstExpr[int],
           with_bias: asc.ConstExpr[bool], trans_a: asc.ConstExpr[bool], trans_b: asc.ConstExpr[bool]):
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
    zg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n * tiling.k_b)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    zg.set_global_buffer(bias + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, trans_a),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, trans_b),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag, trans_a)
        mm.set_tensor_b(bg, trans_b)
        if with_bias:
            mm.set_bias(zg)
        mm.set_tail(tail_m, tail_n, tiling.k_a)
        if hf32 >= 0:
            mm.set_hf32(hf32 == 1, trans)
        mm.iterate_all(cg)
        if hf32 >= 0:
            mm.set_hf32(False)
        mm.end()


def hf32(x, to_zero):
    """numpy model of HF32 rounding: the low 13 mantissa bits of f32 cleared, after adding half an
    HF32 ulp with ties to even (to_zero False); Inf / NaN kept."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    special = (u & 0x7f800000) == 0x7f800000
    if not to_zero:
        u = np.where(special, u, u + 0xfff + ((u >> 13) & 1))
    u = np.where(special & ((u & 0x7fffff) != 0), u | 0x400000, u)
    return (u & ~np.uint64(0x1fff) & np.uint64(0xffffffff)).astype(np.uint32).view(np.float32)


def _tiling(m, n, k, cores, bias=False, trans_a=False, trans_b=True):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT, trans_a)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT, trans_b)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.enable_bias(bias)
    t.set_dim(cores)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def _run(m, n, k, cores, mode=-1, trans=0, bias=False, seed=5):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    # values with low mantissa bits set, so HF32 rounding changes them
    a = (rng.standard_normal((m, k)) * 1.37).astype(np.float32)
    b = (rng.standard_normal((k, n)) * 0.71).astype(np.float32)
    z = (rng.standard_normal(n) * 3.3).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    t = _tiling(m, n, k, cores, bias)
    mm_f32[t.used_core_num](a, np.ascontiguousarray(b.T), c, z, t, mode, trans, bias, False, True)
    ra, rb = (a, b) if mode != 1 else (hf32(a, trans == 1), hf32(b, trans == 1))
    ref = ra.astype(np.float64) @ rb.astype(np.float64) + (z.astype(np.float64) if bias else 0)
    return a, b, z, c, ref, t


SHAPES = [(1, 1, 1, 1), (37, 45, 129, 1), (37, 45, 129, 3), (300, 200, 700, 1), (300, 200, 700, 4), (64, 256, 64, 1)]


@pytest.mark.parametrize("m,n,k,cores", SHAPES)
def test_f32_inputs_equal_numpy(m, n, k, cores):
    a, b, z, c, ref, t = _run(m, n, k, cores)
    if k >= 32:
        assert int(t.base_k) * 4 == 128, t      # Ascend C's base_k: 128 bytes of A (32 f32)
    err = np.abs(c - ref).max() / max(1e-30, np.abs(ref).max())
    assert err < 1e-6, (err, t)


@pytest.mark.parametrize("m,n,k,cores", SHAPES[1:])
@pytest.mark.parametrize("trans", [0, 1])
def test_hf32_rounds_inputs(m, n, k, cores, trans):
    a, b, z, c, ref, t = _run(m, n, k, cores, mode=1, trans=trans)
    scale = np.abs(ref).max()
    assert np.abs(c - ref).max() / scale < 1e-6
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - exact).max() / scale > 1e-5        # the rounding did happen
    # the other rounding mode gives a different answer
    other = hf32(a, trans != 1).astype(np.float64) @ hf32(b, trans != 1).astype(np.float64)
    assert np.abs(c - other).max() / scale > 1e-6


@pytest.mark.parametrize("m,n,k,cores", [(37, 45, 129, 1), (300, 200, 700, 4)])
@pytest.mark.parametrize("mode", [0, 1])
def test_hf32_with_bias_keeps_the_bias_exact(m, n, k, cores, mode):
    # real pyasc's set_hf32 example: A, B, C and bias float32, set_hf32(True) around iterate_all
    a, b, z, c, ref, t = _run(m, n, k, cores, mode=mode, bias=True)
    assert np.abs(c - ref).max() / np.abs(ref).max() < 1e-6


def test_hf32_off_restores_exact_products():
    a, b, z, c, ref, t = _run(37, 45, 129, 1, mode=0)
    assert np.abs(c - ref).max() / np.abs(ref).max() < 1e-6


def _compile_error(trans_a, trans_b, mode=-1, trans=0):
    config.set_platform(config.Backend.Model)
    t = _tiling(32, 32, 32, 1, trans_a=trans_a, trans_b=trans_b)
    a = np.zeros((32, 32), np.float32)
    with pytest.raises(CompileError) as e:
        mm_f32[1](a, a, a.copy(), np.zeros(32, np.float32), t, mode, trans, False, trans_a, trans_b)
    return str(e.value)


def test_set_hf32_trans_mode_checked():
    assert "trans_mode is 2" in _compile_error(False, True, mode=1, trans=2)


@pytest.mark.parametrize("target", ["teach", "ascend910"])
@pytest.mark.parametrize("mode", [-1, 1])
def test_f32_on_coupled_profiles(target, mode):
    # coupled cores read each tile out L0C -> UB -> GM (adv/matmul.py _readout_ub)
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                    "kernels", "pyasc"))
    import _common as cm
    with cm.on_target(target):
        a, b, z, c, ref, t = _run(37, 45, 129, 1, mode=mode, bias=True)
    assert np.abs(c - ref).max() / np.abs(ref).max() < 1e-6
