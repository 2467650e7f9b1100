"""asc.load_data_with_transpose (Ascend C LoadDataWithTranspose: the load_l1_to_l0_2dt instruction,
sim/exec_load2dt.c) checked as matmuls against numpy: float32 A stored K x M and B stored K x N go
GM -> L1 as 16-row blocks of consecutive 16 x 8 fractals (the "ZZ" L1 layout the documentation asks
for: two consecutive fractals make one 16 x 16 square), then to L0A (ZZ) and L0B (ZN) through the
transposing load with the parameters of the documentation's float example
(docs/zh/api/.../LoadDataWithTranspose.md); int8 A stored K x M goes through the NZ layout (two
16 x 32 fractals one below the other make a 32 x 32 square, the documentation's int8 example).
Also the compile-time errors."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc


def _up(x, a):
    return -(-x // a) * a


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_f32(at: asc.GlobalAddress, bk: asc.GlobalAddress, out: asc.GlobalAddress, m: asc.ConstExpr[int],
          n: asc.ConstExpr[int], k: asc.ConstExpr[int]):
    mp, np_, kb = (m + 15) // 16 * 16, (n + 15) // 16 * 16, (k + 15) // 16
    kf = (k + 7) // 8
    ag = asc.GlobalTensor()
    ag.set_global_buffer(at)
    bg = asc.GlobalTensor()
    bg.set_global_buffer(bk)
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    f = asc.float32
    a1 = asc.LocalTensor(f, asc.TPosition.A1, 0, kb * 16 * mp)
    b1 = asc.LocalTensor(f, asc.TPosition.B1, 262144, kb * 16 * np_)
    a2 = asc.LocalTensor(f, asc.TPosition.A2, 0, 16384)
    b2 = asc.LocalTensor(f, asc.TPosition.B2, 0, 16384)
    c1 = asc.LocalTensor(f, asc.TPosition.CO1, 0, 32768)
    for j in asc.static_range(kb):          # K rows [16 j, +16): one row of fractals each
        rows = min(16, k - 16 * j)
        asc.data_copy(a1[j * 16 * mp:], ag[j * 16 * m:], asc.Nd2NzParams(1, rows, m, 0, m, 16, 1, 0))
        asc.data_copy(b1[j * 16 * np_:], bg[j * 16 * n:], asc.Nd2NzParams(1, rows, n, 0, n, 16, 1, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for i in asc.static_range(mp // 16):    # L0A fractal row i: K squares, square (j, i) at j * mp/16 + i
        asc.load_data_with_transpose(a2[i * kf * 128:], a1[i * 256:],
                                     asc.LoadData2dTransposeParams(0, kb, mp // 16, 1, 0))
    for j in asc.static_range(kb):          # L0B K fractal rows 2j, 2j+1: N squares, dstFracGap Nf - 1
        asc.load_data_with_transpose(b2[j * 2 * (np_ // 16) * 128:], b1[j * 16 * np_:],
                                     asc.LoadData2dTransposeParams(0, np_ // 16, 1, 0, np_ // 16 - 1))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, 0, 0, 0, True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(og, c1, asc.FixpipeParamsV220(n, m, 0, n, 0, False))


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (33, 47, 65), (17, 9, 300), (16, 16, 16), (48, 32, 24), (5, 40, 8)])
def test_f32_a_km_b_kn(m, n, k):
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a = rng.integers(-8, 9, (m, k)).astype(np.float32) * np.float32(0.5)
    b = rng.integers(-8, 9, (k, n)).astype(np.float32) * np.float32(0.25)
    out = np.full((m, n), np.nan, np.float32)
    k_f32[1](np.ascontiguousarray(a.T), b, out, m, n, k)
    np.testing.assert_array_equal(out, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_s8(at: asc.GlobalAddress, bt: asc.GlobalAddress, out: asc.GlobalAddress, m: asc.ConstExpr[int],
         n: asc.ConstExpr[int], k: asc.ConstExpr[int]):
    mp, np_, kp = (m + 31) // 32 * 32, (n + 15) // 16 * 16, (k + 31) // 32 * 32
    ag = asc.GlobalTensor()
    ag.set_global_buffer(at)
    bg = asc.GlobalTensor()
    bg.set_global_buffer(bt)
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    s8 = asc.int8
    a1 = asc.LocalTensor(s8, asc.TPosition.A1, 0, kp * mp)
    b1 = asc.LocalTensor(s8, asc.TPosition.B1, 262144, np_ * kp)
    a2 = asc.LocalTensor(s8, asc.TPosition.A2, 0, 65536)
    b2 = asc.LocalTensor(s8, asc.TPosition.B2, 0, 65536)
    c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, 32768)
    # A stored K x M -> NZ: 32-column blocks of kp rows; B stored N x K -> NZ: 32-column blocks of np_ rows
    asc.data_copy(a1, ag, asc.Nd2NzParams(1, k, m, 0, m, kp, 1, 0))
    asc.data_copy(b1, bg, asc.Nd2NzParams(1, n, k, 0, k, np_, 1, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for i in asc.static_range(mp // 32):    # the doc's int8 "Nz -> Zz": squares of 32 M x 32 K
        asc.load_data_with_transpose(a2[i * 2 * (kp // 32) * 512:], a1[i * kp * 32:],
                                     asc.LoadData2dTransposeParams(0, kp // 32, 1, 0, kp // 32 - 1))
    for j in asc.static_range(kp // 32):    # L0B (ZN, 16 N x 32 K fractals) from B's NZ: no transpose
        asc.load_data(b2[j * (np_ // 16) * 512:], b1, asc.LoadData2DParams(j * (np_ // 16), np_ // 16, 1, 0, 0, False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, 0, 0, 0, True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(og, c1, asc.FixpipeParamsV220(n, m, 0, n, 0, False))


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (33, 47, 65), (17, 9, 100), (32, 16, 32)])
def test_s8_a_km(m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    out = np.zeros((m, n), np.int32)
    k_s8[1](np.ascontiguousarray(a.T), np.ascontiguousarray(b.T), out, m, n, k)
    np.testing.assert_array_equal(out, a.astype(np.int32) @ b.astype(np.int32))


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_bad(x: asc.GlobalAddress, what: asc.ConstExpr[str]):
    a1 = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 4096)
    a2 = asc.LocalTensor(asc.float32, asc.TPosition.A2, 0, 512)
    h2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 4096)
    if what == "v2":
        asc.load_data_with_transpose(a2, a1, asc.LoadData2dTransposeParamsV2(0, 1, 0, 0, 0, 0, 0))
    elif what == "range":
        asc.load_data_with_transpose(a2, a1, asc.LoadData2dTransposeParams(0, 256, 1, 0, 0))
    elif what == "span":
        asc.load_data_with_transpose(a2, a1, asc.LoadData2dTransposeParams(0, 2, 1, 2, 0))
    elif what == "dtype":
        asc.load_data_with_transpose(h2, a1, asc.LoadData2dTransposeParams(0, 1, 1, 0, 0))
    elif what == "where":
        asc.load_data_with_transpose(a1, a2, asc.LoadData2dTransposeParams(0, 1, 1, 0, 0))
    elif what == "params":
        asc.load_data_with_transpose(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0, True))


@pytest.mark.parametrize("what,msg", [("v2", "Ascend 950"), ("range", "repeat_times must be in [0, 255]"),
                                      ("span", "destination tensor has 2048"), ("dtype", "dtypes must match"),
                                      ("where", "moves an L1 tensor"), ("params", "LoadData2dTransposeParams")])
def test_errors(what, msg):
    with pytest.raises(asc.CompileError, match=msg.replace("[", r"\[").replace("]", r"\]")) as e:
        k_bad[1](np.zeros(16, np.float32), what)
    assert "test_load2dt.py" in str(e.value)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (33, 47, 65), (17, 9, 300)])
def test_tails_clean_under_every_check(m, n, k):
    """the transposing loads move the L1 tiles' unwritten padding only where mmad does not read
    it or into C's padding: initcheck follows it there (san.c) and finds nothing"""
    rng = np.random.default_rng(k)
    a = rng.integers(-8, 9, (m, k)).astype(np.float32)
    b = rng.integers(-8, 9, (k, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    k_f32[1](np.ascontiguousarray(a.T), b, out, m, n, k, sanitize="all")
    np.testing.assert_array_equal(out, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))
    if k > 100:
        return
    a8, b8 = a.astype(np.int8), b.astype(np.int8)
    o8 = np.zeros((m, n), np.int32)
    k_s8[1](np.ascontiguousarray(a8.T), np.ascontiguousarray(b8.T), o8, m, n, k, sanitize="all")
    np.testing.assert_array_equal(o8, a8.astype(np.int32) @ b8.astype(np.int32))
