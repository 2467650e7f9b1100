"""asc.adv.Matmul.iterate_batch (NORMAL layout) on the AIC of a cube-only kernel against numpy:
M, N, K not multiples of 16 or of the base block, both inputs batched or one broadcast, dense and
strided batches."""
import os
import sys

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "kernels", "pyasc"))
import matmul_batch  # noqa: E402


@asc.jit(matmul_cube_only=True)
def k_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
            batch_a: asc.ConstExpr[int], batch_b: asc.ConstExpr[int], stride_a: asc.ConstExpr[int]):
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    mm.iterate_batch(cg, batch_a, batch_b, False, stride_a)
    mm.end()


def _tiling(m, n, k):
    """One f16 x f16 -> f32 ND tiling over m x n x k (kernels/pyasc/matmul_batch.py's)."""
    return matmul_batch.tiling_for(m, n, k)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,ba,bb,pad_a", [
    (37, 45, 29, 3, 3, 0),       # nothing a multiple of 16
    (100, 72, 40, 4, 1, 0),      # B broadcast
    (50, 130, 70, 1, 2, 0),      # A broadcast
    (33, 20, 24, 2, 2, 8),       # A's matrices 8 elements apart more than dense (matrix_stride_a)
])
def test_iterate_batch(m, n, k, ba, bb, pad_a):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m * n + k)
    sa = m * k + pad_a
    a_flat = (rng.random(ba * sa) - 0.5).astype(np.float16)
    a = np.stack([a_flat[i * sa:i * sa + m * k].reshape(m, k) for i in range(ba)])
    b = (rng.random((bb, k, n)) - 0.5).astype(np.float16)
    nb = max(ba, bb)
    c = np.full((nb, m, n), 5.0, np.float32)
    k_batch[1](a_flat, b, c, _tiling(m, n, k), ba, bb, sa if pad_a else 0, check_races=True)
    ref = np.stack([a[i if ba > 1 else 0].astype(np.float64) @ b[i if bb > 1 else 0].astype(np.float64)
                    for i in range(nb)])
    assert np.abs(c - ref).max() < 1e-3


@pytest.mark.libasc
def test_iterate_batch_multiples():
    """batch_a 4, batch_b 2: B's matrix j serves A's matrices 2j and 2j + 1 (the G broadcast)."""
    config.set_platform(config.Backend.Model)
    m, n, k = 21, 19, 35
    rng = np.random.default_rng(4)
    a = (rng.random((4, m, k)) - 0.5).astype(np.float16)
    b = (rng.random((2, k, n)) - 0.5).astype(np.float16)
    c = np.zeros((4, m, n), np.float32)
    k_batch[1](a, b, c, _tiling(m, n, k), 4, 2, 0, check_races=True)
    ref = np.stack([a[i].astype(np.float64) @ b[i // 2].astype(np.float64) for i in range(4)])
    assert np.abs(c - ref).max() < 1e-3


def test_iterate_batch_other_multiples_rejected():
    with pytest.raises(asc.CompileError) as e:
        k_batch.asm(np.zeros(8, np.float16), np.zeros(8, np.float16), np.zeros(8, np.float32), _tiling(32, 32, 32),
                    3, 2, 0)
    assert "batch_a 3 and batch_b 2 must be multiples of each other" in str(e.value)


@asc.jit(matmul_cube_only=True)
def k_iter(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiles: asc.GlobalAddress,
           tiling: asc.adv.TCubeTiling, sequential: asc.ConstExpr[bool]):
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    tg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    tg.set_global_buffer(tiles)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    with mm.iterate() as count:
        if sequential:
            mm.get_tensor_c(tg[count * tiling.base_m * tiling.base_n:], en_sequential_write=True)
        else:
            mm.get_tensor_c(cg)
    mm.end()


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,base", [(100, 72, 40, (64, 48)), (37, 45, 29, (32, 32)), (130, 90, 70, (48, 64))])
@pytest.mark.parametrize("sequential", [False, True])
def test_iterate_get_tensor_c_on_aic(m, n, k, base, sequential):
    """`with mm.iterate() as count: mm.get_tensor_c(c)` on the AIC: each tile at its place in C,
    or (en_sequential_write) base_m x base_n tiles one after the other, M first."""
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m + n + k)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_fix_split(base[0], base[1], -1)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    bm, bn = tc.base_m, tc.base_n
    mt, nt = -(-m // bm), -(-n // bn)
    c = np.full((m, n), 3.0, np.float32)
    tiles = np.full((mt * nt, bm, bn), 3.0, np.float32)
    k_iter[1](a, b, c, tiles, tc, sequential, check_races=True)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if sequential:
        got = np.zeros((mt * bm, nt * bn))
        for i in range(mt * nt):
            mi, ni = i % mt, i // mt
            got[mi * bm:(mi + 1) * bm, ni * bn:(ni + 1) * bn] = tiles[i]
        got = got[:m, :n]
    else:
        got = c
    assert np.abs(got - ref).max() < 1e-3, tc


@asc.jit(matmul_cube_only=True)
def k_layout(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
             lay: asc.ConstExpr[int], calls: asc.ConstExpr[int], batch_a: asc.ConstExpr[int],
             batch_b: asc.ConstExpr[int], line_a: asc.ConstExpr[int], line_b: asc.ConstExpr[int],
             line_c: asc.ConstExpr[int], use_set: asc.ConstExpr[bool]):
    """C (BNGS1S2) = A x B^T per batch, A and B in layout `lay` (B is N x K per matrix), `calls`
    iterate_batch calls, call j at A + j*line_a, B + j*line_b, C + j*line_c."""
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, False, lay),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, True, lay),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype, False,
                                             asc.LayoutMode.BNGS1S2))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    for j in range(calls):
        mm.set_tensor_a(ag[j * line_a:])
        mm.set_tensor_b(bg[j * line_b:], True)
        if use_set:
            mm.set_batch_num(batch_a, batch_b)
            mm.iterate_batch(cg[j * line_c:], en_partial_sum=False, en_atomic=0, en_sequential_write=False)
        else:
            mm.iterate_batch(cg[j * line_c:], batch_a, batch_b, False)
    mm.wait_iterate_batch()
    mm.end()


def _layout_tiling(m, n, k, la, lb, lc, batch):
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, True)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_a_layout(*la)
    t.set_b_layout(*lb)
    t.set_c_layout(*lc)
    t.set_batch_num(batch)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return tc


@pytest.mark.libasc
@pytest.mark.parametrize("lay", ["BSNGD", "SBNGD"])
@pytest.mark.parametrize("B,N,Ga,Gb,M,Nm,K,use_set", [
    (2, 3, 1, 1, 37, 45, 29, False),     # nothing a multiple of 16
    (2, 2, 2, 1, 20, 33, 40, True),      # A's G axis 2, B's 1: each B matrix serves two A matrices
    (1, 1, 1, 1, 1, 1, 1, False),
])
def test_iterate_batch_layouts(lay, B, N, Ga, Gb, M, Nm, K, use_set):
    """Ascend C IterateBatch.md: BSNGD [B, S, N, G, D] / SBNGD [S, B, N, G, D] inputs (S the M or N
    axis, D = K), C BNGS1S2 [B, N, G, M, N]; BSNGD computes one row of S per call (the kernel loops
    over B), SBNGD all B * N * G matrices in one call."""
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(B * N * Ga + M)
    G = max(Ga, Gb)
    if lay == "BSNGD":
        A = (rng.random((B, M, N, Ga, K)) - 0.5).astype(np.float16)
        Bm = (rng.random((B, Nm, N, Gb, K)) - 0.5).astype(np.float16)
        a_of = lambda b, n, g: A[b, :, n, g, :]              # noqa: E731
        b_of = lambda b, n, g: Bm[b, :, n, g, :]             # noqa: E731
        calls, ba, bb = B, N * Ga, N * Gb
        lines = (M * N * Ga * K, Nm * N * Gb * K, N * G * M * Nm)
    else:
        A = (rng.random((M, B, N, Ga, K)) - 0.5).astype(np.float16)
        Bm = (rng.random((Nm, B, N, Gb, K)) - 0.5).astype(np.float16)
        a_of = lambda b, n, g: A[:, b, n, g, :]              # noqa: E731
        b_of = lambda b, n, g: Bm[:, b, n, g, :]             # noqa: E731
        calls, ba, bb = 1, B * N * Ga, B * N * Gb
        lines = (0, 0, 0)
    want = np.zeros((B, N, G, M, Nm))
    for b_ in range(B):
        for n_ in range(N):
            for g in range(G):
                want[b_, n_, g] = a_of(b_, n_, g * Ga // G).astype(np.float64) @ \
                    b_of(b_, n_, g * Gb // G).astype(np.float64).T
    c = np.full((B, N, G, M, Nm), 7.0, np.float32)
    t = _layout_tiling(M, Nm, K, (B, M, N, Ga, K), (B, Nm, N, Gb, K), (B, M, N, G, Nm), max(ba, bb))
    k_layout[1](A, Bm, c, t, int(getattr(asc.LayoutMode, lay)), calls, ba, bb, *lines, use_set, check_races=True)
    assert np.abs(c - want).max() < 1e-3


@pytest.mark.libasc
def test_iterate_batch_bsngd_straddling_rows_is_rejected():
    config.set_platform(config.Backend.Model)
    A = np.zeros((2, 16, 1, 1, 16), np.float16)
    c = np.zeros((2, 16, 16), np.float32)
    t = _layout_tiling(16, 16, 16, (2, 16, 1, 1, 16), (2, 16, 1, 1, 16), (2, 16, 1, 1, 16), 2)
    with pytest.raises(asc.CompileError, match="BSNGD computes within one row of S: N \\* G = 1 of A must be a "
                                               "multiple of batch_a 2"):
        k_layout[1](A, A, c, t, int(asc.LayoutMode.BSNGD), 1, 2, 2, 0, 0, 0, False)
