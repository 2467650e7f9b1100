"""asc.lib.host.MultiCoreMatmulTiling's single-core shape as Ascend C computes it
(MatmulTilingAlgorithm::GetSingleShape / AlignSingleShape in cannmirror/asc-devkit
impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp: ceil(M / m_dim) on one core, ceil(M16 /
m_dim) over several, rounded to 32 bytes only in the multi-core scenarios that ask it), and what
asc.adv.Matmul does with a block that does not divide M x N: with set_tail the exact C (numpy),
without it a warning at the Matmul's line and the run's GM check faulting at the write past C (the
hardware's Matmul computes the whole block too), a compile error when the block is wider than C."""
import os
import sys
import warnings

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config
from pyasc.compiler.errors import CompileError, KernelFault

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_adv  # noqa: E402


def _tiling(m, n, k, dim, set_shape=True, trans_a=False, trans_b=False):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, trans_a)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, trans_b)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    if set_shape:
        t.set_shape(m, n, k)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return t, tc


# hand-checked against the Ascend C rule (m_dim x n_dim: the split that minimises the per-core block):
#  150 x 70 on 1 core: no rounding at all (numOfBlock_ 1) -> 150 x 70
#  150 x 70 on 4: 2 x 2, ceil(160 / 2) x ceil(80 / 2) = 80 x 40
#  1 x 1 on 3: 1 x 1 split, but several cores: M16 x N16 = 16 x 16
#  17 x 300 on 2: 2 x 1, ceil(32 / 2) x 304 = 16 x 304
#  40 x 300 on 2 with set_shape: 1 x 2, 48 x ceil(304 / 2) = 48 x 152
#  ... and with set_org_shape alone (the SPLIT_SMALL_MN scenario: 40 * 300 < 26214 * 2): N rounded to
#  32 bytes of f16, 160 (< ceil(304 / 1), so two blocks still)
@pytest.mark.parametrize("shape, dim, set_shape, single", [
    ((150, 70, 33), 1, True, (150, 70)),
    ((150, 70, 33), 4, True, (80, 40)),
    ((1, 1, 1), 3, True, (16, 16)),
    ((1, 1, 1), 1, True, (1, 1)),
    ((17, 300, 129), 2, True, (16, 304)),
    ((40, 300, 64), 2, True, (48, 152)),
    ((40, 300, 64), 2, False, (48, 160)),
])
def test_single_shape_as_ascend_c(shape, dim, set_shape, single):
    t, tc = _tiling(*shape, dim, set_shape)
    assert (tc.single_core_m, tc.single_core_n) == single
    m, n, _ = shape
    assert tc.used_core_num == -(-m // single[0]) * -(-n // single[1]) <= dim


SHAPES = [(150, 70, 33), (1, 1, 1), (17, 300, 129), (40, 300, 64)]


@pytest.mark.libasc
@pytest.mark.parametrize("target", [None, "teach"])
@pytest.mark.parametrize("cores", [1, 2, 5])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_tails_with_set_tail(m, n, k, cores, target):
    """kernels/pyasc/matmul_adv.py (set_tail on every core, as real pyasc's tutorial 04) against numpy."""
    a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, seed=m + n + k, target=target)
    assert np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max() < 1e-3, tiling


@asc.jit(matmul_cube_only=True)
def mm_no_tail(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg)
        mm.iterate_all(cg)     # NO_TAIL_LINE
        mm.end()


_LINE = next(i for i, s in enumerate(open(__file__), 1) if s.rstrip().endswith("# NO_TAIL_LINE"))


def _data(m, n, k):
    rng = np.random.default_rng(5)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    return a, b, np.zeros((m, n), np.float32)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores", [(150, 70, 33, 1), (160, 80, 40, 4), (1, 1, 1, 1)])
def test_no_tail_blocks_that_divide(m, n, k, cores):
    """Blocks that divide M x N need no set_tail (one core: the block is M x N itself)."""
    config.set_platform(config.Backend.Model)
    a, b, c = _data(m, n, k)
    _, t = _tiling(m, n, k, cores)
    assert m % t.single_core_m == 0 and n % t.single_core_n == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mm_no_tail[t.used_core_num](a, b, c, t)
    assert np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max() < 1e-3


@pytest.mark.libasc
def test_no_tail_partial_block_warns_and_faults():
    """150 x 70 on 4 cores: 80 x 40 blocks; the last core's block would run 10 rows past C."""
    config.set_platform(config.Backend.Model)
    a, b, c = _data(150, 70, 33)
    _, t = _tiling(150, 70, 33, 4)
    with pytest.warns(RuntimeWarning, match=rf"test_adv_matmul_tail.py:{_LINE}:.*block 80 x 40 does not divide "
                                            r"M x N = 150 x 70 and set_tail was not called"):
        with pytest.raises(KernelFault, match=rf"test_adv_matmul_tail.py:{_LINE}:.*GM write .* past its end"):
            mm_no_tail[t.used_core_num](a, b, c, t)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores", [(17, 300, 129, 2), (1, 1, 1, 3)])
def test_no_tail_block_wider_than_c_is_an_error(m, n, k, cores):
    config.set_platform(config.Backend.Model)
    a, b, c = _data(m, n, k)
    _, t = _tiling(m, n, k, cores)
    with pytest.raises(CompileError, match=rf"test_adv_matmul_tail.py:{_LINE}:.*single-core N {t.single_core_n} "
                                           rf"exceeds N {n} and set_tail was not called"):
        mm_no_tail[t.used_core_num](a, b, c, t)
