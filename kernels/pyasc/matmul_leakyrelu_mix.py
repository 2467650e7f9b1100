"""Mix kernel: C = leaky_relu(A x B), 512 x 512 x 512, float16 in, float32 out, on 4 AI cores of
ascend910b (each one AIC and two AIVs, KernelType.MIX_AIC_1_2).

The AIC of AI core i computes rows [128 i, 128 i + 128) of A x B in four 128-column tiles, each
accumulated over four 128-deep K chunks (GM -> L1 NZ -> L0A/L0B -> mmad into L0C -> fixpipe to a
GM workspace; the cube data path of kernels/pyasc/matmul_cube.py), and after each tile sets
cross-core flag 0 towards its AIVs (mode 2, on the FIX pipe, so it fires once the tile has landed
in GM).  Each AIV waits for the flag, reads its 64 rows of the tile from the workspace, applies the
leaky ReLU in UB and writes them to C.  Data passes between the AIC and its AIVs only through GM
(ascend_facts §2.4).  Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/matmul_leakyrelu_mix.py
"""
import numpy as np

import asc
import asc.runtime.config as config

M = K = N = 512
CORES = 4
MT = M // CORES   # rows of C per AI core (its AIC)
NT = 128          # columns per C tile (L0B: K chunk x NT f16, L0C: MT x NT f32)
KT = 128          # K chunk per mmad (L0A: MT x KT f16)
F = 16            # fractal edge
VR = MT // 2      # rows per AIV
FLAG = 0          # cross-core flag id (0..10)


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_2)
def matmul_leakyrelu(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                     ws: asc.GlobalAddress, alpha: float):
    h = asc.float16
    if asc.ascend_is_aic():
        row0 = asc.get_block_idx() * MT
        ag = asc.GlobalTensor()
        bg = asc.GlobalTensor()
        wg = asc.GlobalTensor()
        ag.set_global_buffer(a + row0 * K)
        bg.set_global_buffer(b)
        wg.set_global_buffer(ws + row0 * N)
        a1 = asc.LocalTensor(h, asc.TPosition.A1, 0, MT * K)
        b1 = asc.LocalTensor(h, asc.TPosition.B1, MT * K * 2, K * NT)
        a2 = asc.LocalTensor(h, asc.TPosition.A2, 0, MT * KT)
        b2 = asc.LocalTensor(h, asc.TPosition.B2, 0, KT * NT)
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, MT * NT)
        # A's 128 rows, ND -> NZ: one strided copy per 16-column block
        for j in asc.static_range(K // F):
            asc.data_copy(a1[j * MT * F:], ag[j * F:], asc.DataCopyParams(MT, 1, (K * 2 - 32) // 32, 0))
        for t in asc.static_range(N // NT):
            for j in asc.static_range(NT // F):
                asc.data_copy(b1[j * K * F:], bg[t * NT + j * F:], asc.DataCopyParams(K, 1, (N * 2 - 32) // 32, 0))
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
            for kc in asc.static_range(K // KT):
                for i in asc.static_range(MT // F):
                    asc.load_data(a2[i * (KT // F) * 256:], a1,
                                  asc.LoadData2DParams(kc * (KT // F) * (MT // F) + i, KT // F, MT // F, 0, 0, False))
                for kb in asc.static_range(KT // F):
                    asc.load_data(b2[kb * (NT // F) * 256:], b1,
                                  asc.LoadData2DParams(kc * (KT // F) + kb, NT // F, K // F, 0, 0, True))
                asc.pipe_barrier(asc.PipeID.PIPE_ALL)
                asc.mmad(c1, a2, b2, asc.MmadParams(MT, NT, KT, cmatrix_init_val=(kc == 0)))
                asc.pipe_barrier(asc.PipeID.PIPE_ALL)
            asc.fixpipe(wg[t * NT:], c1, asc.FixpipeParamsV220(NT, MT, 0, N))
            asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)   # tile t is in the workspace
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    if asc.ascend_is_aiv():
        row0 = asc.get_block_idx() * VR        # AIV j of AI core i has block_idx 2 i + j
        wg = asc.GlobalTensor()
        cg = asc.GlobalTensor()
        wg.set_global_buffer(ws + row0 * N)
        cg.set_global_buffer(c + row0 * N)
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, VR * NT)
        rows = asc.DataCopyParams(VR, NT * 4 // 32, (N - NT) * 4 // 32, 0)
        back = asc.DataCopyParams(VR, NT * 4 // 32, 0, (N - NT) * 4 // 32)
        for t in asc.static_range(N // NT):
            asc.cross_core_wait_flag(FLAG)
            asc.data_copy(x, wg[t * NT:], repeat_params=rows)
            asc.set_flag(asc.HardEvent.MTE2_V, 0)
            asc.wait_flag(asc.HardEvent.MTE2_V, 0)
            asc.leaky_relu(x, x, alpha, count=VR * NT)
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            asc.data_copy(cg[t * NT:], x, repeat_params=back)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def run(alpha=0.1, seed=0, **kw):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    a = (rng.random((M, K)) - 0.5).astype(np.float16)
    b = (rng.random((K, N)) - 0.5).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    ws = np.zeros((M, N), np.float32)
    res = matmul_leakyrelu[CORES](a, b, c, ws, alpha, **kw)
    return a, b, c, res


def reference(a, b, alpha=0.1):
    ref = a.astype(np.float64) @ b.astype(np.float64)
    return np.where(ref >= 0, ref, ref * alpha)


if __name__ == "__main__":
    a, b, c, res = run()
    err = np.abs(c - reference(a, b)).max()
    assert err < 1e-3, err
    print(f"matmul + leaky_relu OK (max abs error {err:.2e}):", res)
