"""asc.data_copy(l1, gm, asc.Nd2NzParams(...)): the one-instruction ND -> NZ copy GM -> L1
(mov_out_to_l1 in the ND2NZ layout, sim/exec_nd2nz.c), checked through the cube against numpy:
A and B go GM -> L1 only by ND2NZ copies (row strides, tails: nothing a multiple of 16), then
load_data / mmad / fixpipe; a wrong element, a missing zero pad or a misplaced block changes the
product.  nd_num > 1 loads a batch of A matrices in one copy."""
import numpy as np
import pytest

import asc

F = 16


def _up(x):
    return -(-x // F) * F


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def nd2nz_mm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
             n: asc.ConstExpr[int], k: asc.ConstExpr[int], lda: asc.ConstExpr[int], batch: asc.ConstExpr[int],
             rt_rows: int):
    """c[t] = a[t][:, :k] @ b for t < batch; a is batch x m x lda (a batch stride of m*lda + 3
    elements), b is k x n; rt_rows = m at run time (n_value as a run-time scalar)."""
    mp = (m + 15) // 16 * 16
    kp = (k + 15) // 16 * 16
    np_ = (n + 15) // 16 * 16
    ag = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg = asc.GlobalTensor()
    bg.set_global_buffer(b)
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, batch * mp * kp)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, batch * mp * kp * 2, kp * np_)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, mp * kp)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, kp * np_)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, mp * np_)
    asc.data_copy(a1, ag, asc.Nd2NzParams(batch, rt_rows, k, m * lda + 3, lda, mp, 1, mp * kp))
    asc.data_copy(b1, bg, asc.Nd2NzParams(1, k, n, 0, n, kp, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for j in range(kp // F):
        asc.load_data(b2[j * (np_ // F) * 256:], b1, asc.LoadData2DParams(j, np_ // F, kp // F, 0, 0, True))
    for t in range(batch):
        for i in range(mp // F):
            asc.load_data(a2[i * (kp // F) * 256:], a1[t * mp * kp:],
                          asc.LoadData2DParams(i, kp // F, mp // F, 0, 0, False))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, 0, 0, 0, True))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.fixpipe(cg[t * m * n:], c1, asc.FixpipeParamsV220(n, m, 0, n, 0, False))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,lda,batch", [
    (16, 16, 16, 16, 1),
    (37, 45, 29, 33, 1),       # tails everywhere, row stride not a multiple of 16
    (20, 24, 40, 41, 2),       # two ND matrices in one copy
    (9, 7, 5, 5, 3),           # tiny: one partial block per row
])
def test_nd2nz_matmul(m, n, k, lda, batch):
    rng = np.random.default_rng(m * 1000 + n + k)
    a = np.zeros(batch * (m * lda + 3), np.float16)
    for t in range(batch):
        a[t * (m * lda + 3):t * (m * lda + 3) + m * lda] = rng.standard_normal(m * lda).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros(batch * m * n, np.float32)
    nd2nz_mm[1](a, b, c, m, n, k, lda, batch, m)
    for t in range(batch):
        at = a[t * (m * lda + 3):][:m * lda].reshape(m, lda)[:, :k].astype(np.float64)
        want = at @ b.astype(np.float64)
        got = c[t * m * n:(t + 1) * m * n].reshape(m, n)
        assert np.abs(got - want).max() < 1e-3, (t, np.abs(got - want).max())


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def nd2nz_bad(a: asc.GlobalAddress):
    ag = asc.GlobalTensor()
    ag.set_global_buffer(a)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 1024)
    asc.data_copy(a1, ag, asc.Nd2NzParams(1, 16, 16, 0, 0, 16, 1, 0))


@pytest.mark.libasc
def test_nd2nz_range_error():
    with pytest.raises(asc.CompileError, match=r"src_d_value = 0 is out of range \[1, 65535\]"):
        nd2nz_bad[1](np.zeros(256, np.float16))
