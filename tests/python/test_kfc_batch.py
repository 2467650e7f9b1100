"""asc.adv.Matmul called on the AIVs of a mix kernel (python/pyasc/adv/matmul_kfc.py): batched
(F_BATCH / F_NBATCH: iterate_batch into C in GM, iterate_n_batch into the set_workspace buffer with
get_batch_tensor_c into UB or as a GlobalTensor, synchronous and asynchronous with per-batch
progress), several Matmul objects of different shapes in one register_matmul, register_matmul in a
run-time branch, and an iterate(sync=False) fetched in part (its progress notifications drained).
Against numpy: shapes that divide no tile, batch counts 1 and 3 and broadcasts, f16 / bf16 / f32,
1 to 3 AI cores of ascend910b, race-free under check_races=True."""
import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config
from pyasc.host import bf16 as hb

_DT = {"float16": host.DataType.DT_FLOAT16, "bfloat16": host.DataType.DT_BF16, "float32": host.DataType.DT_FLOAT}


def _tiling(m, n, k, dtype, trans_b=False):
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, _DT[dtype], False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, _DT[dtype], trans_b)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return tc


def _mk(x, name):
    """x in the input dtype (bf16: uint16 bits tagged pyasc.host.bf16.DTYPE, as the runtime takes it)."""
    return hb.to_bfloat16(x) if name == "bfloat16" else x.astype(name)


def _f64(x):
    return hb.from_bfloat16(x).astype(np.float64) if hb.is_bf16(x.dtype) else x.astype(np.float64)


@asc.jit
def k_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
            workspace: asc.GlobalAddress, batch_a: asc.ConstExpr[int], batch_b: asc.ConstExpr[int],
            trans_b: asc.ConstExpr[bool], sync: asc.ConstExpr[bool]):
    """AIV i: C[i] = A[i] x B[i], batch_a / batch_b matrices each, by iterate_batch from the AIV."""
    idx = asc.get_block_idx()
    nb = batch_a if batch_a > batch_b else batch_b
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + idx * batch_a * tiling.m * tiling.k_a)
    bg.set_global_buffer(b + idx * batch_b * tiling.k_b * tiling.n)
    cg.set_global_buffer(c + idx * nb * tiling.m * tiling.n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, False, asc.LayoutMode.NORMAL),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, trans_b,
                                             asc.LayoutMode.NORMAL),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg, trans_b)
    if sync:
        mm.iterate_batch(cg, batch_a, batch_b, False)
    else:
        mm.iterate_batch(cg, batch_a, batch_b, False, sync=False, wait_iterate_batch=True)
        mm.wait_iterate_batch()
    mm.end()


def _inputs(m, n, k, ba, bb, aivs, dtype, trans_b, seed):
    rng = np.random.default_rng(seed)
    a = _mk(rng.random((aivs, ba, m, k)) - 0.5, dtype)
    b = _mk(rng.random((aivs, bb, n, k) if trans_b else (aivs, bb, k, n)) - 0.5, dtype)
    return a, b


def _ref(a, b, trans_b):
    aivs, ba = a.shape[:2]
    bb = b.shape[1]
    nb = max(ba, bb)
    a, b = _f64(a), _f64(b)
    bt = np.swapaxes(b, 2, 3) if trans_b else b
    return np.stack([np.stack([a[v, i * ba // nb] @ bt[v, i * bb // nb]
                               for i in range(nb)]) for v in range(aivs)])


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,ba,bb,cores,dtype,sync", [
    (33, 47, 65, 3, 3, 1, "float16", True),      # nothing divides 16 or the base block
    (33, 47, 65, 1, 1, 2, "float16", True),      # batch count 1, 2 AI cores (4 AIVs)
    (33, 47, 65, 3, 1, 1, "bfloat16", True),     # B broadcast
    (20, 37, 19, 1, 3, 3, "bfloat16", False),    # A broadcast, asynchronous with wait_iterate_batch
    (33, 47, 65, 3, 3, 1, "float32", False),     # f32 (B transposed, N x K)
    (1, 1, 1, 3, 3, 2, "float16", True),         # one element
])
def test_kfc_iterate_batch(m, n, k, ba, bb, cores, dtype, sync):
    config.set_platform(config.Backend.Model)
    trans_b = dtype == "float32"
    aivs = 2 * cores
    a, b = _inputs(m, n, k, ba, bb, aivs, dtype, trans_b, m * n + k + ba)
    nb = max(ba, bb)
    c = np.full((aivs, nb, m, n), 5.0, np.float32)
    k_batch[cores](a, b, c, _tiling(m, n, k, dtype, trans_b), np.zeros(1 << 20, np.uint8), ba, bb, trans_b, sync,
                   check_races=True)
    tol = 1e-2 if dtype == "bfloat16" else 1e-3
    assert np.abs(c - _ref(a, b, trans_b)).max() < tol


@asc.jit
def k_n_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
              workspace: asc.GlobalAddress, cache: asc.GlobalAddress, loops: asc.ConstExpr[int],
              batch_a: asc.ConstExpr[int], batch_b: asc.ConstExpr[int], sync: asc.ConstExpr[bool],
              form: asc.ConstExpr[int]):
    """AIV i: iterate_n_batch over `loops` batches of batch_a x batch_b matrices into its slice of
    `cache`, then each batch fetched by get_batch_tensor_c into UB (form 0) or as a GlobalTensor on
    the buffer copied into UB (form 1), plus 1 on the vector, out to C."""
    idx = asc.get_block_idx()
    nb = batch_a if batch_a > batch_b else batch_b
    per = nb * tiling.m * tiling.n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    ag.set_global_buffer(a + idx * loops * batch_a * tiling.m * tiling.k_a)
    bg.set_global_buffer(b + idx * loops * batch_b * tiling.k_b * tiling.n)
    cg.set_global_buffer(c + idx * loops * per)
    wg.set_global_buffer(cache + idx * loops * per, loops * per)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=q, num=1, len=per * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, False, asc.LayoutMode.NORMAL),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, False,
                                             asc.LayoutMode.NORMAL),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, cg.dtype),
                        matmul_config=asc.adv.get_normal_config(batch_loop=True))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    mm.set_workspace(wg)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    if form == 2:
        mm.iterate_n_batch(loops, batch_a, batch_b, False, sync=False, wait_iterate_batch=True)
        mm.wait_iterate_batch()
    elif form == 3:     # no wait_iterate_batch(): the first get_batch_tensor_c takes the response
        mm.iterate_n_batch(loops, batch_a, batch_b, False, sync=False, wait_iterate_batch=True)
    else:
        mm.iterate_n_batch(loops, batch_a, batch_b, False, sync=sync)
    for l in range(loops):
        t = q.alloc_tensor(asc.float32)
        if form != 1:
            mm.get_batch_tensor_c(t, batch_a, batch_b, False, sync=False)
            mm.wait_get_tensor_c()
        else:
            g = mm.get_batch_tensor_c(batch_a, batch_b, False, False)
            asc.set_flag(asc.HardEvent.V_MTE2, 0)     # the last batch's adds have read t
            asc.wait_flag(asc.HardEvent.V_MTE2, 0)
            asc.data_copy(t, g, per)
            asc.set_flag(asc.HardEvent.MTE2_V, 0)
            asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.adds(t, t, 1.0, per)
        q.enque(t)
        t = q.deque(asc.float32)
        asc.data_copy(cg[l * per:], t, per)
        q.free_tensor(t)
    mm.end()


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,loops,ba,bb,cores,dtype,sync,form", [
    (33, 24, 65, 2, 3, 3, 1, "float16", False, 0),  # M, K divide nothing; N * 4 a multiple of 32 B (UB rows)
    (17, 8, 29, 3, 1, 3, 2, "bfloat16", True, 0),   # A broadcast, 4 AIVs
    (40, 16, 1, 1, 1, 1, 1, "float16", False, 0),
    (33, 24, 65, 2, 3, 1, 2, "float16", False, 1),  # the GlobalTensor overload, B broadcast
    (20, 8, 16, 15, 1, 1, 1, "float16", False, 0),  # 15 batches: 13 notified one by one, one at the end
    (20, 8, 16, 14, 2, 1, 2, "bfloat16", False, 1),
    (20, 8, 16, 13, 1, 2, 1, "float16", False, 0),
    (33, 24, 65, 2, 3, 1, 1, "float16", False, 2),  # wait_iterate_batch=True, wait_iterate_batch(), then fetches
    (20, 8, 16, 15, 1, 1, 2, "bfloat16", False, 3),  # wait_iterate_batch=True, the first fetch waits
])
def test_kfc_iterate_n_batch(m, n, k, loops, ba, bb, cores, dtype, sync, form):
    config.set_platform(config.Backend.Model)
    aivs = 2 * cores
    rng = np.random.default_rng(m + 3 * n + k)
    a = _mk(rng.random((aivs, loops * ba, m, k)) - 0.5, dtype)
    b = _mk(rng.random((aivs, loops * bb, k, n)) - 0.5, dtype)
    nb = max(ba, bb)
    c = np.full((aivs, loops * nb, m, n), 5.0, np.float32)
    cache = np.zeros(aivs * loops * nb * m * n, np.float32)
    k_n_batch[cores](a, b, c, _tiling(m, n, k, dtype), np.zeros(1 << 20, np.uint8), cache, loops, ba, bb, sync,
                     form, check_races=True)
    a64, b64 = _f64(a), _f64(b)
    ref = np.stack([np.stack([a64[v, (i // nb) * ba + (i % nb) * ba // nb]
                              @ b64[v, (i // nb) * bb + (i % nb) * bb // nb]
                              for i in range(loops * nb)]) for v in range(aivs)]) + 1
    tol = 1e-2 if dtype == "bfloat16" else 1e-3
    assert np.abs(c - ref).max() < tol


@asc.jit
def k_two(a1: asc.GlobalAddress, b1: asc.GlobalAddress, c1: asc.GlobalAddress, a2: asc.GlobalAddress,
          b2: asc.GlobalAddress, c2: asc.GlobalAddress, t1: asc.adv.TCubeTiling, t2: asc.adv.TCubeTiling,
          workspace: asc.GlobalAddress, mode: asc.ConstExpr[int]):
    """Two Matmul objects of different shapes and dtypes (mm1 float16, mm2 float32 with B
    transposed) registered together; AIV i computes C1[i] = A1[i] x B1[i] and C2[i] = A2[i] x
    B2[i]^T.  mode 0: both iterate_all; 1: mm1 asynchronous (its response taken before mm2's
    message, the AIV's one slot); 2: mm2 by iterate + get_tensor_c into UB, tile by tile."""
    idx = asc.get_block_idx()
    g = (asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(),
         asc.GlobalTensor())
    g[0].set_global_buffer(a1 + idx * t1.m * t1.k_a)
    g[1].set_global_buffer(b1 + idx * t1.k_b * t1.n)
    g[2].set_global_buffer(c1 + idx * t1.m * t1.n)
    g[3].set_global_buffer(a2 + idx * t2.m * t2.k_a)
    g[4].set_global_buffer(b2 + idx * t2.k_b * t2.n)
    g[5].set_global_buffer(c2 + idx * t2.m * t2.n)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=q, num=1, len=t2.base_m * t2.base_n * 4)
    mm1 = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, g[0].dtype),
                         b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, g[1].dtype),
                         c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, g[2].dtype))
    mm2 = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, g[3].dtype),
                         b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, g[4].dtype, True),
                         c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, g[5].dtype))
    asc.adv.register_matmul(pipe, workspace, mm1, t1, mm2, t2)
    mm1.set_tensor_a(g[0])
    mm1.set_tensor_b(g[1])
    mm2.set_tensor_a(g[3])
    mm2.set_tensor_b(g[4], True)
    if mode == 1:
        mm1.iterate_all(g[2], sync=False)
    else:
        mm1.iterate_all(g[2])
    if mode == 2:
        round_m = t2.m.ceildiv(t2.base_m)
        with mm2.iterate() as count:
            t = q.alloc_tensor(asc.float32)
            mm2.get_tensor_c(t, en_sequential_write=True)
            q.enque(t)
            t = q.deque(asc.float32)
            ti = count % round_m
            tj = count // round_m
            rows = t2.m - ti * t2.base_m
            if rows > t2.base_m:
                rows = t2.base_m
            cols = t2.n - tj * t2.base_n
            if cols > t2.base_n:
                cols = t2.base_n
            asc.data_copy_pad(g[5][ti * t2.base_m * t2.n + tj * t2.base_n:], t, asc.DataCopyExtParams(
                rows, cols * 4, (t2.base_n * 4 - (cols * 4 + 31) // 32 * 32) // 32, (t2.n - cols) * 4, 0))
            q.free_tensor(t)
    else:
        mm2.iterate_all(g[5])
    mm1.end()
    mm2.end()


@pytest.mark.libasc
@pytest.mark.parametrize("cores,mode", [(1, 0), (3, 1), (2, 2), (1, 2)])
def test_kfc_two_objects(cores, mode):
    config.set_platform(config.Backend.Model)
    aivs = 2 * cores
    (m1, n1, k1), (m2, n2, k2) = (33, 47, 65), (70, 21, 40)
    rng = np.random.default_rng(cores * 10 + mode)
    a1 = (rng.random((aivs, m1, k1)) - 0.5).astype(np.float16)
    b1 = (rng.random((aivs, k1, n1)) - 0.5).astype(np.float16)
    a2 = (rng.random((aivs, m2, k2)) - 0.5).astype(np.float32)
    b2 = (rng.random((aivs, n2, k2)) - 0.5).astype(np.float32)
    c1 = np.full((aivs, m1, n1), 5.0, np.float32)
    c2 = np.full((aivs, m2, n2), 5.0, np.float32)
    t1, t2 = _tiling(m1, n1, k1, "float16"), _tiling(m2, n2, k2, "float32", True)
    if mode == 2:
        t2.base_m, t2.base_n = 32, 16      # several tiles, a tile slot of its own size
    k_two[cores](a1, b1, c1, a2, b2, c2, t1, t2, np.zeros(1 << 20, np.uint8), mode, check_races=True)
    r1 = np.einsum("vmk,vkn->vmn", a1.astype(np.float64), b1.astype(np.float64))
    r2 = np.einsum("vmk,vnk->vmn", a2.astype(np.float64), b2.astype(np.float64))
    assert np.abs(c1 - r1).max() < 1e-3
    assert np.abs(c2 - r2).max() < 1e-3


@asc.jit
def k_branch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
             workspace: asc.GlobalAddress, used: int):
    """register_matmul inside a run-time branch: AIV i < used computes C[i] = A[i] x B[i], the
    others leave C[i] alone (the AIC serves whichever way its own block_idx takes the branch)."""
    idx = asc.get_block_idx()
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + idx * tiling.m * tiling.k_a)
    bg.set_global_buffer(b + idx * tiling.k_b * tiling.n)
    cg.set_global_buffer(c + idx * tiling.m * tiling.n)
    if idx < used:
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
        asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg)
        mm.iterate_all(cg)
        mm.end()


@pytest.mark.libasc
@pytest.mark.parametrize("cores,used", [(1, 1), (1, 2), (2, 3), (2, 0), (3, 5)])
def test_kfc_register_in_branch(cores, used):
    config.set_platform(config.Backend.Model)
    m, n, k = 33, 47, 65
    aivs = 2 * cores
    rng = np.random.default_rng(cores + used)
    a = (rng.random((aivs, m, k)) - 0.5).astype(np.float16)
    b = (rng.random((aivs, k, n)) - 0.5).astype(np.float16)
    c = np.full((aivs, m, n), 5.0, np.float32)
    k_branch[cores](a, b, c, _tiling(m, n, k, "float16"), np.zeros(1 << 20, np.uint8), used, check_races=True)
    ref = np.einsum("vmk,vkn->vmn", a.astype(np.float64), b.astype(np.float64))
    for v in range(aivs):
        if v < used:
            assert np.abs(c[v] - ref[v]).max() < 1e-3, v
        else:
            assert (c[v] == 5.0).all(), v


@asc.jit
def k_partial(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, c2: asc.GlobalAddress, t: asc.adv.TCubeTiling,
           workspace: asc.GlobalAddress, cache: asc.GlobalAddress, fetch: asc.ConstExpr[int]):
    """Two objects: mm's iterate(sync=False) fetched for only `fetch` of its 20 tiles, then mm2's
    iterate_all, twice: the progress notifications the fetches left are drained before mm2's
    message (matmul_kfc.py kfc_prog), so the second round's fetches wait for their own tiles."""
    idx = asc.get_block_idx()
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    c2g = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    ag.set_global_buffer(a + idx * t.m * t.k_a)
    bg.set_global_buffer(b + idx * t.k_b * t.n)
    cg.set_global_buffer(c + idx * t.base_m * t.base_n * fetch)
    c2g.set_global_buffer(c2 + idx * t.m * t.n)
    per = t.m.ceildiv(t.base_m) * t.n.ceildiv(t.base_n) * t.base_m * t.base_n
    wg.set_global_buffer(cache + idx * per, per)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=q, num=1, len=t.base_m * t.base_n * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, cg.dtype))
    mm2 = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                         b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                         c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, t, mm2, t)
    mm.set_workspace(wg)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    mm2.set_tensor_a(ag)
    mm2.set_tensor_b(bg)
    for r in range(2):
        mm.iterate(sync=False)
        for j in range(fetch):
            x = q.alloc_tensor(asc.float32)
            mm.get_tensor_c(x, sync=False)
            mm.wait_get_tensor_c()
            q.enque(x)
            x = q.deque(asc.float32)
            asc.data_copy(cg[j * t.base_m * t.base_n:], x, t.base_m * t.base_n)
            q.free_tensor(x)
        mm2.iterate_all(c2g)


@pytest.mark.libasc
@pytest.mark.parametrize("cores,fetch", [(1, 3), (2, 1), (1, 16), (1, 15)])
def test_kfc_async_partial_fetch(cores, fetch):
    config.set_platform(config.Backend.Model)
    m, n, k = 64, 80, 24
    t = _tiling(m, n, k, "float16")
    t.base_m, t.base_n = 16, 16       # 4 x 5 = 20 tiles
    aivs = 2 * cores
    rng = np.random.default_rng(cores * 100 + fetch)
    a = (rng.random((aivs, m, k)) - 0.5).astype(np.float16)
    b = (rng.random((aivs, k, n)) - 0.5).astype(np.float16)
    c = np.zeros((aivs, fetch, 16, 16), np.float32)
    c2 = np.zeros((aivs, m, n), np.float32)
    cache = np.zeros(aivs * 20 * 256, np.float32)
    k_partial[cores](a, b, c, c2, t, np.zeros(1 << 20, np.uint8), cache, fetch, check_races=True)
    ref = np.einsum("vmk,vkn->vmn", a.astype(np.float64), b.astype(np.float64))
    for v in range(aivs):
        for j in range(fetch):      # tile j, M first: rows (j % 4) * 16, columns (j // 4) * 16
            mi, ni = j % 4, j // 4
            assert np.abs(c[v, j] - ref[v, mi * 16:mi * 16 + 16, ni * 16:ni * 16 + 16]).max() < 1e-3, (v, j)
    assert np.abs(c2 - ref).max() < 1e-3


def _bias_tiling(m, n, k):
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(True)
    t.set_buffer_space(-1, -1, -1)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return tc


def _k_batch_bias(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                  tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, batch_a: asc.ConstExpr[int],
                  batch_b: asc.ConstExpr[int], per_batch: asc.ConstExpr[bool]):
    """Unit i (an AIV of a mix kernel, or the one AIC of a cube-only kernel): C[i] = A[i] x B[i] +
    bias by iterate_batch; bias batch j's row at j * N (MatmulConfig is_bias_batch, through real
    pyasc's get_mm_config(MatmulBatchParams(is_n_batch, batch_mode, is_bias_batch))) or one row for
    all (is_bias_batch False)."""
    idx = asc.get_block_idx()
    nb = batch_a if batch_a > batch_b else batch_b
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    biasg = asc.GlobalTensor()
    ag.set_global_buffer(a + idx * batch_a * tiling.m * tiling.k_a)
    bg.set_global_buffer(b + idx * batch_b * tiling.k_b * tiling.n)
    cg.set_global_buffer(c + idx * nb * tiling.m * tiling.n)
    if per_batch:
        biasg.set_global_buffer(bias + idx * nb * tiling.n)
    else:
        biasg.set_global_buffer(bias + idx * tiling.n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, False, asc.LayoutMode.NORMAL),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, False,
                                             asc.LayoutMode.NORMAL),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, biasg.dtype),
                        matmul_config=asc.adv.get_mm_config(asc.adv.MatmulBatchParams(False, 1, per_batch)))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    mm.set_bias(biasg)
    mm.iterate_batch(cg, batch_a, batch_b, False)
    mm.end()


k_batch_bias = asc.jit(_k_batch_bias)
k_batch_bias_cube = asc.jit(matmul_cube_only=True)(_k_batch_bias)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,ba,bb,cores,per_batch,mix", [
    (33, 47, 65, 3, 3, 1, True, True),
    (33, 47, 65, 3, 1, 2, False, True),
    (20, 37, 19, 1, 3, 1, True, True),
    (33, 47, 65, 3, 3, 1, True, False),     # where the AIC computes (cube-only kernel, one unit per AI core)
    (20, 37, 19, 2, 1, 2, False, False),
])
def test_kfc_iterate_batch_bias(m, n, k, ba, bb, cores, per_batch, mix):
    config.set_platform(config.Backend.Model)
    units = 2 * cores if mix else cores
    nb = max(ba, bb)
    a, b = _inputs(m, n, k, ba, bb, units, "float16", False, m + n + k + nb)
    rng = np.random.default_rng(nb)
    bias = (rng.random((units, nb if per_batch else 1, n)) - 0.5).astype(np.float32)
    c = np.full((units, nb, m, n), 5.0, np.float32)
    kern = k_batch_bias if mix else k_batch_bias_cube
    kern[cores](a, b, c, bias, _bias_tiling(m, n, k), np.zeros(1 << 20, np.uint8), ba, bb, per_batch,
                check_races=True)
    ref = _ref(a, b, False) + (bias[:, :, None, :] if per_batch else bias[:, :1, None, :])
    assert np.abs(c - ref).max() < 1e-3


@asc.jit
def k_n_batch_bias(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                   tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, cache: asc.GlobalAddress,
                   loops: asc.ConstExpr[int], batch_a: asc.ConstExpr[int], batch_b: asc.ConstExpr[int]):
    """iterate_n_batch with set_bias (isBiasBatch): batch l's matrix i adds bias row l * nb + i; the
    C matrices stay in the set_workspace buffer (`cache`), read on the host after the run."""
    idx = asc.get_block_idx()
    nb = batch_a if batch_a > batch_b else batch_b
    per = nb * tiling.m * tiling.n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    biasg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    ag.set_global_buffer(a + idx * loops * batch_a * tiling.m * tiling.k_a)
    bg.set_global_buffer(b + idx * loops * batch_b * tiling.k_b * tiling.n)
    biasg.set_global_buffer(bias + idx * loops * nb * tiling.n)
    wg.set_global_buffer(cache + idx * loops * per, loops * per)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, False, asc.LayoutMode.NORMAL),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, False,
                                             asc.LayoutMode.NORMAL),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32),
                        matmul_config=asc.adv.MatmulConfig(is_n_batch=True))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_workspace(wg)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    mm.set_bias(biasg)
    mm.iterate_n_batch(loops, batch_a, batch_b, False)
    mm.end()


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,loops,ba,bb,cores", [(33, 47, 65, 2, 3, 3, 1), (20, 37, 19, 3, 1, 2, 2)])
def test_kfc_iterate_n_batch_bias(m, n, k, loops, ba, bb, cores):
    config.set_platform(config.Backend.Model)
    aivs = 2 * cores
    nb = max(ba, bb)
    rng = np.random.default_rng(m + n + loops)
    a = (rng.random((aivs, loops * ba, m, k)) - 0.5).astype(np.float16)
    b = (rng.random((aivs, loops * bb, k, n)) - 0.5).astype(np.float16)
    bias = (rng.random((aivs, loops * nb, n)) - 0.5).astype(np.float32)
    cache = np.full((aivs, loops * nb, m, n), 5.0, np.float32)
    k_n_batch_bias[cores](a, b, np.zeros(1, np.float32), bias, _bias_tiling(m, n, k), np.zeros(1 << 20, np.uint8),
                          cache, loops, ba, bb, check_races=True)
    ref = np.stack([np.stack([a[v, (i // nb) * ba + (i % nb) * ba // nb].astype(np.float64)
                              @ b[v, (i // nb) * bb + (i % nb) * bb // nb].astype(np.float64) + bias[v, i]
                              for i in range(loops * nb)]) for v in range(aivs)])
    assert np.abs(cache - ref).max() < 1e-3


@asc.jit
def k_n_batch_bsngd(a: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                    workspace: asc.GlobalAddress, cache: asc.GlobalAddress):
    ag = asc.GlobalTensor()
    ag.set_global_buffer(a)
    wg = asc.GlobalTensor()
    wg.set_global_buffer(cache, 4096)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, False, asc.LayoutMode.BSNGD),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, True, asc.LayoutMode.BSNGD),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float32),
                        matmul_config=asc.adv.get_normal_config(batch_loop=True))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_workspace(wg)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(ag, True)
    mm.iterate_n_batch(1, 1, 1, False)
    mm.end()


def test_kfc_iterate_n_batch_layout_error_names_the_call():
    """The layout checks shared by iterate_batch and iterate_n_batch name the call the kernel made."""
    with pytest.raises(asc.CompileError) as e:
        k_n_batch_bsngd.asm(np.zeros(1024, np.float16), np.zeros(1024, np.float32), _tiling(16, 16, 16, "float16"),
                            np.zeros(1 << 20, np.uint8), np.zeros(4096, np.float32))
    msg = str(e.value)
    assert "asc.adv.Matmul.iterate_n_batch: A's layout BSNGD needs the tiling's a_layout_info_b/s/n/g/d" in msg, msg
