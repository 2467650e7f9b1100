"""Cube matmul C = A x B, 256 x 256 x 256, float16 in, float32 out, through the cube data path:
GM -(MTE2, ND->NZ by strided DataCopy)-> L1 -(load_data)-> L0A (ZZ) / L0B (ZN, transposed
fractals) -(mmad)-> L0C (NZ) -(fixpipe, NZ->ND)-> GM.  Two AIC cores, 128 rows each; each core
does two 128-column halves so B fits L0B and C fits L0C.  Run: PYTHONPATH=python /usr/bin/python3
kernels/pyasc/matmul_cube.py"""
import numpy as np

import asc
import asc.runtime.config as config

M = K = N = 256
MT = 128          # rows of A and C per core
NT = 128          # columns of C per mmad
F = 16            # fractal edge


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress):
    row0 = asc.get_block_idx() * MT
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + row0 * K)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c + row0 * N)
    h = asc.float16
    a1 = asc.LocalTensor(h, asc.TPosition.A1, 0, MT * K)
    b1 = asc.LocalTensor(h, asc.TPosition.B1, MT * K * 2, K * N)
    a2 = asc.LocalTensor(h, asc.TPosition.A2, 0, MT * K)
    b2 = asc.LocalTensor(h, asc.TPosition.B2, 0, K * NT)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, MT * NT)
    row_gap = (K * 2 - 32) // 32          # skip the rest of a GM row, in 32 B blocks
    # ND -> NZ: one strided copy per 16-column block (a column of fractals)
    for j in asc.static_range(K // F):
        asc.data_copy(a1[j * MT * F:], ag[j * F:], asc.DataCopyParams(MT, 1, row_gap, 0))
    for j in asc.static_range(N // F):
        asc.data_copy(b1[j * K * F:], bg[j * F:], asc.DataCopyParams(K, 1, (N * 2 - 32) // 32, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    # L1 NZ -> L0A ZZ: row block i gathers its K/16 fractals (stride MT/16 fractals in L1)
    for i in asc.static_range(MT // F):
        asc.load_data(a2[i * (K // F) * 256:], a1, asc.LoadData2DParams(i, K // F, MT // F, 0, 0, False))
    for half in asc.static_range(N // NT):
        if half > 0:
            asc.wait_flag(asc.HardEvent.M_MTE1, 0)     # previous mmad done with L0B
        # L1 NZ -> L0B ZN: k block kb gathers NT/16 fractals (stride K/16), each transposed
        for kb in asc.static_range(K // F):
            asc.load_data(b2[kb * (NT // F) * 256:], b1,
                          asc.LoadData2DParams(half * (NT // F) * (K // F) + kb, NT // F, K // F, 0, 0, True))
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        if half > 0:
            asc.wait_flag(asc.HardEvent.FIX_M, 0)      # previous fixpipe done with L0C
        asc.mmad(c1, a2, b2, asc.MmadParams(MT, NT, K))
        if half + 1 < N // NT:
            asc.set_flag(asc.HardEvent.M_MTE1, 0)
        asc.set_flag(asc.HardEvent.M_FIX, 0)
        asc.wait_flag(asc.HardEvent.M_FIX, 0)
        asc.fixpipe(cg[half * NT:], c1, asc.FixpipeParamsV220(NT, MT, 0, N))
        if half + 1 < N // NT:
            asc.set_flag(asc.HardEvent.FIX_M, 0)


def run(**kw):
    config.set_platform(config.Backend.Model)
    a = (np.random.rand(M, K) - 0.5).astype(np.float16)
    b = (np.random.rand(K, N) - 0.5).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    res = matmul[M // MT](a, b, c, **kw)
    return a, b, c, res


if __name__ == "__main__":
    a, b, c, res = run()
    ref = a.astype(np.float64) @ b.astype(np.float64)
    rel = np.abs(c - ref).max() / np.abs(ref).max()
    assert rel < 1e-3, rel
    print(f"matmul OK (max relative error {rel:.2e}):", res)
