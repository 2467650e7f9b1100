"""Cube-only matmul through asc.adv.Matmul: C (f32) = A x B, A and B float16 or bfloat16 (uint16
bits tagged pyasc.host.bf16.DTYPE, e.g. from pyasc.utils.to_bfloat16), any
M, N, K (tails included), the tiling from asc.lib.host.MultiCoreMatmulTiling over `cores` AI
cores of the target; optional transposed A (stored K x M) or B (stored N x K).  Profiles:
ascend910b (the AIC's fixpipe writes C to GM) and the coupled teach / ascend910, whose cores
have no L0C -> GM path: there asc.adv.Matmul reads each tile out L0C -> UB -> GM
(python/pyasc/adv/matmul.py `_readout_ub`, as kernels/pyasc/matmul.py does).
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/matmul_adv.py [M N K [cores [target]]]
"""
import sys

import numpy as np

import asc
import asc.lib.host as host
import asc.runtime.config as config

try:
    from . import _common as cm
except ImportError:            # run as a script or loaded by path
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm

@asc.jit(matmul_cube_only=True)
def matmul_adv(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
               trans_a: asc.ConstExpr[bool], trans_b: asc.ConstExpr[bool]):
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    off_a = mi * tiling.single_core_m * tiling.k_a
    if trans_a:
        off_a = mi * tiling.single_core_m
    off_b = ni * tiling.single_core_n
    if trans_b:
        off_b = ni * tiling.single_core_n * tiling.k_b
    tail_m = tiling.m - mi * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - ni * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + off_a)
    bg.set_global_buffer(b + off_b)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, trans_a),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, trans_b),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag, trans_a)
        mm.set_tensor_b(bg, trans_b)
        mm.set_tail(tail_m, tail_n, tiling.k_a)
        mm.iterate_all(cg)
        mm.end()


def tiling_for(m, n, k, cores, dtype=host.DataType.DT_FLOAT16, trans_a=False, trans_b=False):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, dtype, trans_a)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, dtype, trans_b)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(cores)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def run(m=256, n=256, k=256, cores=4, trans_a=False, trans_b=False, seed=0, target=None, bf16=False, **kw):
    """(a, b, c, tiling, launch result) of one float16 run, or bf16 (bf16=True: a, b are uint16
    arrays of bf16 bits tagged as pyasc.host.bf16.DTYPE, which a GlobalAddress reads as
    asc.bfloat16; numpy has no bfloat16), on profile `target` (None: the default one; cores are
    capped at the profile's AI cores)."""
    if target is not None:
        with cm.on_target(target) as tgt:
            return run(m, n, k, min(cores, cm.max_cores(tgt, "aic")), trans_a, trans_b, seed, None, bf16, **kw)
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    if bf16:
        from pyasc.host import bf16 as hb
        a = hb.to_bfloat16(rng.random((m, k)) - 0.5)
        b = hb.to_bfloat16(rng.random((k, n)) - 0.5)
    else:
        a = (rng.random((m, k)) - 0.5).astype(np.float16)
        b = (rng.random((k, n)) - 0.5).astype(np.float16)
    ga = np.ascontiguousarray(a.T) if trans_a else a
    gb = np.ascontiguousarray(b.T) if trans_b else b
    c = np.zeros((m, n), np.float32)
    tiling = tiling_for(m, n, k, cores, host.DataType.DT_BF16 if bf16 else host.DataType.DT_FLOAT16,
                        trans_a=trans_a, trans_b=trans_b)
    res = matmul_adv[tiling.used_core_num](ga, gb, c, tiling, trans_a, trans_b, **kw)
    return a, b, c, tiling, res


if __name__ == "__main__":
    args = [int(x) for x in sys.argv[1:5]]
    m, n, k = args[:3] if len(args) >= 3 else (256, 256, 256)
    cores = args[3] if len(args) > 3 else 4
    target = sys.argv[5] if len(sys.argv) > 5 else None
    a, b, c, tiling, res = run(m, n, k, cores, target=target)
    err = np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max()
    assert err < 1e-3, err
    print(tiling)
    print(f"matmul {m}x{n}x{k} on {tiling.used_core_num} AIC OK (max abs error {err:.2e}):", res)
