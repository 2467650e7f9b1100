"""Batched matmul through asc.adv.Matmul.iterate_batch: C[g] = A[g] x B[g] for g < G, float16 in,
float32 out, A[g] M x K and B[g] K x N row-major, on the AIC of a cube-only kernel (real pyasc's
Matmul.iterate_batch; Ascend C IterateBatch, NORMAL layout: impl/adv_api/detail/matmul).

The G matrices are split over the AI cores: core c computes batches [c * per_core, ...), per_core
of them, the last core the `tail` left over (both compile-time batch counts, as iterate_batch
takes them; the core picks its count with a run-time `if`).  One tiling
(asc.lib.host.MatmulApiTiling over one M x N x K problem) serves every batch.
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/matmul_batch.py [G M N K [cores]]
(the default shape divides nothing by 16; it runs clean under sanitize="all": initcheck follows
the unwritten L1 padding the Matmul's loads move into C's padding, docs/timing.md "Sanitizers")
"""
import sys

import numpy as np

import asc
import asc.lib.host as host
import asc.runtime.config as config


@asc.jit(matmul_cube_only=True)
def matmul_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                 per_core: asc.ConstExpr[int], tail: asc.ConstExpr[int]):
    g0 = asc.get_block_idx() * per_core
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + g0 * tiling.m * tiling.k_a)
    bg.set_global_buffer(b + g0 * tiling.k_b * tiling.n)
    cg.set_global_buffer(c + g0 * tiling.m * tiling.n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    if tail == per_core:
        mm.iterate_batch(cg, per_core, per_core, False)
    elif asc.get_block_idx() + 1 < asc.get_block_num():
        mm.iterate_batch(cg, per_core, per_core, False)
    else:
        mm.iterate_batch(cg, tail, tail, False)
    mm.end()


def tiling_for(m, n, k):
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tc = asc.adv.TCubeTiling()
    if t.get_tiling(tc) != 0:
        raise ValueError(f"matmul_batch: no tiling for {m}x{n}x{k}")
    return tc


def split(g, cores):
    """(cores used, batches per core, the last core's batches) for G batches on at most `cores`."""
    cores = max(1, min(cores, g))
    per = -(-g // cores)
    cores = -(-g // per)
    return cores, per, g - (cores - 1) * per


def run(g=6, m=100, n=72, k=40, cores=4, seed=0, **kw):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    a = (rng.random((g, m, k)) - 0.5).astype(np.float16)
    b = (rng.random((g, k, n)) - 0.5).astype(np.float16)
    c = np.zeros((g, m, n), np.float32)
    cores, per, tail = split(g, cores)
    res = matmul_batch[cores](a, b, c, tiling_for(m, n, k), per, tail, **kw)
    return a, b, c, res


def reference(a, b):
    return np.matmul(a.astype(np.float64), b.astype(np.float64))


if __name__ == "__main__":
    args = [int(v) for v in sys.argv[1:]]
    g, m, n, k, cores = (args + [6, 100, 72, 40, 4][len(args):])[:5]
    a, b, c, res = run(g, m, n, k, cores)
    err = np.abs(c - reference(a, b)).max()
    assert err < 1e-3, err
    print(f"matmul_batch {g} x {m}x{n}x{k} on {split(g, cores)[0]} AIC OK "
          f"(max abs error {err:.2e}):", res)
