"""asc.init_const_value (Ascend C InitConstValue = create_cbuf_matrix / create_l0_matrix,
sim/exec_cmatrix.c) checked through the cube: a constant L0A (or L0B) times a matrix from GM, and an
L1 tensor filled block by block (repeat, block_num, dst_gap) then loaded and multiplied by the
identity, against numpy on ascend910b."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

M = K = N = 32


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_fill(x: asc.GlobalAddress, c: asc.GlobalAddress, where: asc.ConstExpr[str], v: asc.ConstExpr[float],
           rt: asc.ConstExpr[int], bn: asc.ConstExpr[int], gap: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    dt = x.dtype
    a1 = asc.LocalTensor(dt, asc.TPosition.A1, 0, M * K)
    b1 = asc.LocalTensor(dt, asc.TPosition.B1, 4096, K * N)
    a2 = asc.LocalTensor(dt, asc.TPosition.A2, 0, M * K)
    b2 = asc.LocalTensor(dt, asc.TPosition.B2, 0, K * N)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, M * N)
    if where == "l0a":        # A = v everywhere (2 KB = 4 blocks of 512 B); B from GM
        asc.data_copy(b1, xg, asc.Nd2NzParams(1, K, N, 0, N, K, 1, 0))
        asc.init_const_value(a2, asc.InitConstValueParams(1, M * K * 2 // 512, 0, v))
    elif where == "l0b":      # B = v everywhere, written as two repeats of 2 blocks; A from GM
        asc.data_copy(a1, xg, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
        asc.init_const_value(b2, asc.InitConstValueParams(2, 2, 0, v))
    else:                     # A in L1: zeros, then v in the blocks of (rt, bn, gap); B = x from GM
        asc.data_copy(b1, xg, asc.Nd2NzParams(1, K, N, 0, N, K, 1, 0))
        asc.init_const_value(a1, asc.InitConstValueParams(1, M * K * 2 // 32, 0, 0.0))
        asc.init_const_value(a1, asc.InitConstValueParams(rt, bn, gap, v))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    if where != "l0b":
        for j in range(K // 16):
            asc.load_data(b2[j * (N // 16) * 256:], b1, asc.LoadData2DParams(j, N // 16, K // 16, 0, 0, True))
    if where != "l0a":
        for i in range(M // 16):
            asc.load_data(a2[i * (K // 16) * 256:], a1, asc.LoadData2DParams(i, K // 16, M // 16, 0, 0, False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K, 0, 0, 0, True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(N, M, 0, N, 0, False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def _inputs(seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-4, 5, (K, N)).astype(np.float16)


@pytest.mark.parametrize("v", [1.5, -0.25, 1.0 / 3])
def test_fill_l0a_then_mmad(v):
    x = _inputs(1)
    c = np.zeros((M, N), np.float32)
    k_fill[1](x, c, "l0a", v, 1, 1, 0)
    a = np.full((M, K), np.float16(v), np.float32)          # the value rounded to f16 (nearest even)
    np.testing.assert_allclose(c, a @ x.astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("v", [2.0, -3.0])
def test_fill_l0b_then_mmad(v):
    x = _inputs(2)
    c = np.zeros((M, N), np.float32)
    k_fill[1](x, c, "l0b", v, 1, 1, 0)
    np.testing.assert_array_equal(c, x.astype(np.float32) @ np.full((K, N), v, np.float32))


@pytest.mark.parametrize("rt,bn,gap", [(1, 1, 0), (3, 5, 7), (2, 32, 0), (4, 1, 15), (1, 0, 0), (0, 4, 0)])
def test_fill_l1_blocks(rt, bn, gap):
    eye = np.eye(K, N, dtype=np.float16)
    c = np.zeros((M, N), np.float32)
    k_fill[1](eye, c, "l1", 1.5, rt, bn, gap)
    a = np.zeros((M, K), np.float32)                 # A1 is NZ: 32 B block q = row q % M, cols 16*(q // M)..
    for r in range(rt):
        for q in range(r * (bn + gap), r * (bn + gap) + bn):
            a[q % M, 16 * (q // M):16 * (q // M) + 16] = 1.5
    np.testing.assert_array_equal(c, a)


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_fill_bad(x: asc.GlobalAddress, what: asc.ConstExpr[str]):
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 1024)
    if what == "ub":
        u = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        asc.init_const_value(u, asc.InitConstValueParams(1, 1, 0, 1.0))
    elif what == "range":
        asc.init_const_value(a1, asc.InitConstValueParams(40000, 1, 0, 1.0))
    else:
        i1 = asc.LocalTensor(asc.int16, asc.TPosition.B1, 4096, 1024)
        asc.init_const_value(i1, asc.InitConstValueParams(1, 1, 0, 1.5))


@pytest.mark.parametrize("what,msg", [("ub", "fills an A1/B1 \\(L1\\), A2 \\(L0A\\) or B2 \\(L0B\\)"),
                                      ("range", "repeat_times must be in \\[0, 32767\\]"),
                                      ("float", "init_value 1.5 is a float but the tensor is int16")])
def test_errors(what, msg):
    with pytest.raises(asc.CompileError, match=msg):
        k_fill_bad[1](np.zeros(16, np.float16), what)


@asc.jit(target="ascend910")
def k_fill_l1_read_back(z: asc.GlobalAddress, v: asc.ConstExpr[float], rt: asc.ConstExpr[int],
                        bn: asc.ConstExpr[int], gap: asc.ConstExpr[int]):
    """Coupled profile (L1 and UB in one core): fill A1, move it to UB with DataCopy, then to GM."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    n = 2048 // z.dtype.sizeof()
    a1 = asc.LocalTensor(z.dtype, asc.TPosition.A1, 0, n)
    u = asc.LocalTensor(z.dtype, asc.TPosition.VECIN, 0, n)
    asc.init_const_value(a1, asc.InitConstValueParams(1, 64, 0, 0))
    asc.init_const_value(a1, asc.InitConstValueParams(rt, bn, gap, v))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(u, a1, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, u, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("dtype,v", [(np.float32, -2.75), (np.int32, -123456), (np.uint32, 4000000000),
                                     (np.int16, -7), (np.uint16, 65000), (np.float16, 0.1)])
@pytest.mark.parametrize("rt,bn,gap", [(1, 1, 0), (3, 5, 7), (2, 1, 30)])
def test_fill_l1_every_dtype_read_back(dtype, v, rt, bn, gap):
    z = np.full(2048 // np.dtype(dtype).itemsize, 1, dtype)
    k_fill_l1_read_back[1](z, v, rt, bn, gap)
    want = np.zeros_like(z)
    epb = 32 // z.itemsize
    for r in range(rt):
        s = r * (bn + gap) * epb
        want[s:s + bn * epb] = np.array(v).astype(dtype)
    np.testing.assert_array_equal(z, want)
