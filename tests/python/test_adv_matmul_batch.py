"""asc.adv.Matmul.iterate_batch (NORMAL layout) on the AIC of a cube-only kernel against numpy:
M, N, K not multiples of 16 or of the base block, both inputs batched or one broadcast, dense and
strided batches."""
import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config


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
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return tc


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


def test_iterate_batch_other_multiples_rejected():
    with pytest.raises(asc.CompileError) as e:
        k_batch.asm(np.zeros(8, np.float16), np.zeros(8, np.float16), np.zeros(8, np.float32), _tiling(32, 32, 32),
                    4, 2, 0)
    assert "G-axis broadcast" in str(e.value)


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
