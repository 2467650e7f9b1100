"""float32 asc.adv.Matmul with A stored K x M (set_tensor_a(..., is_trans=True)) and / or B stored
K x N (is_trans=False): the L1 fills are 16-row blocks of consecutive 16 x 8 fractals and the
L0A / L0B loads are LoadDataWithTranspose (asc.load_data_with_transpose, load_l1_to_l0_2dt), as
adv/matmul.py's _nd2zz and _emit_tile lower them.  All four layouts against numpy over shapes that
divide nothing, on 1 and 3 cores of ascend910b, race-free under check_races=True, with set_hf32 and
a bias, through a mix kernel's AIVs (the serving AIC runs the same lowering), iterate_batch, row
strides past the ND2NZ matrix stride's range, and on the coupled profiles teach and ascend910."""
import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config

pytestmark = pytest.mark.libasc


def _mm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
        tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, hf32: asc.ConstExpr[bool],
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
    if trans_a:         # K x M: the core's M block is a column offset
        ag.set_global_buffer(a + mi * tiling.single_core_m)
    else:
        ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    if trans_b:         # N x K
        bg.set_global_buffer(b + ni * tiling.single_core_n * tiling.k_b)
    else:               # K x N
        bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    zg.set_global_buffer(bias + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, trans_a),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, trans_b),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag, trans_a)
        mm.set_tensor_b(bg, trans_b)
        if with_bias:
            mm.set_bias(zg)
        mm.set_tail(tail_m, tail_n)
        if hf32:
            mm.set_hf32(True, 0)
        mm.iterate_all(cg)
        if hf32:
            mm.set_hf32(False)
        mm.end()


mm_cube = asc.jit(matmul_cube_only=True)(_mm)
mm_mix = asc.jit(_mm)      # the Matmul called on the AIVs: the AIC serves them (adv/matmul_kfc.py)


def _tiling(m, n, k, cores, bias, trans_a, trans_b):
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


def hf32(x):
    """HF32 rounding to nearest even (test_adv_matmul_f32.py's model): the low 13 mantissa bits cleared."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = u + 0xfff + ((u >> 13) & 1)
    return (u & ~np.uint64(0x1fff) & np.uint64(0xffffffff)).astype(np.uint32).view(np.float32)


def _run(m, n, k, cores, trans_a, trans_b, kern=mm_cube, bias=False, hf=False, seed=3, **kw):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed + m + 7 * n + 11 * k)
    a = (rng.standard_normal((m, k)) * 1.37).astype(np.float32)
    b = (rng.standard_normal((k, n)) * 0.71).astype(np.float32)
    z = (rng.standard_normal(n) * 3.3).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    t = _tiling(m, n, k, cores, bias, trans_a, trans_b)
    ga = np.ascontiguousarray(a.T) if trans_a else a
    gb = b if not trans_b else np.ascontiguousarray(b.T)
    blocks = int(t.used_core_num) if kern is mm_cube else -(-int(t.used_core_num) // 2)
    kern[blocks](ga, gb, c, z, t, np.zeros(1 << 20, np.uint8), hf, bias, trans_a, trans_b, **(kw or {"check_races": True}))
    ra, rb = (hf32(a), hf32(b)) if hf else (a, b)
    ref = ra.astype(np.float64) @ rb.astype(np.float64) + (z.astype(np.float64) if bias else 0)
    err = np.abs(c - ref).max() / max(1e-30, np.abs(ref).max())
    assert err < 1e-6, (err, m, n, k, cores, trans_a, trans_b, t)
    return t


LAYOUTS = [(False, True), (True, True), (False, False), (True, False)]
SHAPES = [(1, 1, 1, 1), (33, 47, 65, 1), (33, 47, 65, 3), (17, 9, 300, 1), (17, 9, 300, 3), (150, 70, 129, 3)]


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS)
@pytest.mark.parametrize("m,n,k,cores", SHAPES)
def test_f32_layouts_equal_numpy(m, n, k, cores, trans_a, trans_b):
    _run(m, n, k, cores, trans_a, trans_b)


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS)
@pytest.mark.parametrize("m,n,k,cores", [(1, 1, 1, 1), (33, 47, 65, 1), (17, 9, 300, 1)])
def test_f32_layouts_tails_clean_under_every_check(m, n, k, cores, trans_a, trans_b):
    # the tails' unwritten L1 padding reaches only C's padding (initcheck follows it, san.c)
    _run(m, n, k, cores, trans_a, trans_b, sanitize="all")


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS[1:])
def test_f32_layouts_big_and_hf32_bias(trans_a, trans_b):
    t = _run(300, 200, 700, 4, trans_a, trans_b)
    assert int(t.single_core_m) < 300 or int(t.single_core_n) < 200      # several cores share it
    _run(37, 45, 129, 1, trans_a, trans_b, bias=True, hf=True)


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS[1:])
@pytest.mark.parametrize("m,n,k,cores", [(33, 47, 65, 2), (1, 1, 1, 2)])
def test_f32_layouts_from_mix_kernel_aivs(m, n, k, cores, trans_a, trans_b):
    _run(m, n, k, cores, trans_a, trans_b, kern=mm_mix, bias=True)


@pytest.mark.parametrize("m,n,k,trans_a,trans_b", [(4500, 20, 40, True, True), (20, 4500, 40, False, False)])
def test_f32_row_stride_past_nd2nz_matrix_stride(m, n, k, trans_a, trans_b):
    # 16 rows of a 4500-element row stride pass Nd2NzParams.src_nd_matrix_stride's 65535: one ND2NZ
    # copy per 16-row block (_nd2zz)
    _run(m, n, k, 1, trans_a, trans_b)


@pytest.mark.parametrize("target", ["teach", "ascend910"])
@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS[1:])
def test_f32_layouts_on_coupled_profiles(target, trans_a, trans_b):
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                    "kernels", "pyasc"))
    import _common as cm
    with cm.on_target(target):
        _run(37, 45, 129, 1, trans_a, trans_b, bias=True)
        _run(17, 9, 300, 2, trans_a, trans_b)


@asc.jit(matmul_cube_only=True)
def k_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
            batch_a: asc.ConstExpr[int], batch_b: asc.ConstExpr[int], trans_a: asc.ConstExpr[bool],
            trans_b: asc.ConstExpr[bool]):
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, trans_a),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, trans_b),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    mm.set_tensor_a(ag, trans_a)
    mm.set_tensor_b(bg, trans_b)
    mm.iterate_batch(cg, batch_a, batch_b, False)
    mm.end()


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS[1:])
@pytest.mark.parametrize("m,n,k,ba,bb", [(37, 45, 29, 3, 3), (33, 20, 70, 2, 1)])
def test_f32_layouts_iterate_batch(m, n, k, ba, bb, trans_a, trans_b):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m * n + k)
    a = (rng.standard_normal((ba, m, k))).astype(np.float32)
    b = (rng.standard_normal((bb, k, n))).astype(np.float32)
    ga = np.ascontiguousarray(a.transpose(0, 2, 1)) if trans_a else a
    gb = b if not trans_b else np.ascontiguousarray(b.transpose(0, 2, 1))
    nb = max(ba, bb)
    c = np.full((nb, m, n), np.nan, np.float32)
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT, trans_a)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT, trans_b)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    k_batch[1](ga, gb, c, tc, ba, bb, trans_a, trans_b, check_races=True)
    ref = np.stack([a[i if ba > 1 else 0].astype(np.float64) @ b[i if bb > 1 else 0].astype(np.float64)
                    for i in range(nb)])
    assert np.abs(c - ref).max() / np.abs(ref).max() < 1e-6
