"""The fixpipe quantisation (fix_l0c_to_out.q, SPRs quant_pre / fpc; python/pyasc/language/fix_quant.py,
sim/exec_cube.c) against a numpy model of the dav_c220 arithmetic (cannmirror/asc-devkit docs
.../矩阵计算的搬出/关键特性说明/随路量化.md and the reference examples/.../fixpipe_l0c2gm/scripts/
gen_data_*.py: the scale is the f32 in bits 31:0 with its low 13 mantissa bits cleared, an f32 product,
b8 results rounded half to even after clamping to [-256, 255], plus the offset, saturated; f16 results
rounded to nearest even and saturated to +-65504): int8 x int8 -> int32 -> f16 (DEQF16, VDEQF16) and
-> int8 / uint8 (REQ8, VREQ8), f16 x f16 -> f32 -> int8 (QF322B8_PRE, VQF322B8_PRE), int32 out, with
ReLU and offsets, N not a multiple of 16; and what is rejected."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from pyasc.compiler.errors import CompileError, KernelFault

pytestmark = pytest.mark.libasc


def qword(scale, offset=0, signed=True):
    """The u64 quantisation parameter of Ascend C: f32 bits, offset in 45:37, sign in 46."""
    bits = int(np.float32(scale).view(np.uint32))
    return bits | (offset << 37) | ((1 << 46) if signed else 0)


def model(acc, mode, words, relu, dst):
    """The hardware's readout of L0C values acc (int32 or float32, m x n) with parameters words
    (one u64, or one per column)."""
    w = np.broadcast_to(np.asarray(words, np.uint64), (acc.shape[1],))
    sc = (w & np.uint64(0xFFFFE000)).astype(np.uint32).view(np.float32)
    off = ((w >> np.uint64(37)) & np.uint64(0xFF)).astype(np.int32)
    sgn = ((w >> np.uint64(46)) & np.uint64(1)).astype(bool)
    x = acc.astype(np.float32)
    y = x * sc[None, :]
    if relu:
        y = np.where(x >= 0, y, np.float32(0))
    if dst == np.float16:
        return np.clip(y, -65504, 65504).astype(np.float16)
    y = np.where(np.isnan(y), 0, y)
    v = np.rint(np.clip(y, -256, 255)).astype(np.int32) + off[None, :]
    v = np.where(sgn[None, :], np.clip(v, -128, 127), np.clip(v, 0, 255))
    return v.astype(dst)


@asc.jit(matmul_cube_only=True)
def k_quant(a: asc.GlobalAddress, bt: asc.GlobalAddress, qv: asc.GlobalAddress, c: asc.GlobalAddress,
            m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int], mode: asc.ConstExpr[int],
            qs: int, relu: asc.ConstExpr[bool], vec: asc.ConstExpr[bool], flag: asc.ConstExpr[bool],
            rt: asc.ConstExpr[bool]):
    """C (m x n) = quant(A (m x k) x B (k x n, stored n x k)); int8 or f16 inputs."""
    if a.dtype == asc.int8:
        K0 = 32
    else:
        K0 = 16
    mp = (m + 15) // 16 * 16
    kp = (k + K0 - 1) // K0 * K0
    np_ = (n + 15) // 16 * 16
    fr = 512 // a.dtype.sizeof()
    ag = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg = asc.GlobalTensor()
    bg.set_global_buffer(bt)
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    qg = asc.GlobalTensor()
    qg.set_global_buffer(qv)
    esz = a.dtype.sizeof()
    a1 = asc.LocalTensor(a.dtype, asc.TPosition.A1, 0, mp * kp)
    b1 = asc.LocalTensor(a.dtype, asc.TPosition.B1, mp * kp * esz, np_ * kp)
    q1 = asc.LocalTensor(asc.uint64, asc.TPosition.C1, (mp + np_) * kp * esz, np_)
    a2 = asc.LocalTensor(a.dtype, asc.TPosition.A2, 0, mp * kp)
    b2 = asc.LocalTensor(a.dtype, asc.TPosition.B2, 0, np_ * kp)
    if a.dtype == asc.int8:
        c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, mp * np_)
    else:
        c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, mp * np_)
    asc.data_copy(a1, ag, asc.Nd2NzParams(1, m, k, 0, k, mp, 1, 0))
    asc.data_copy(b1, bg, asc.Nd2NzParams(1, n, k, 0, k, np_, 1, 0))
    if vec:
        q32 = asc.LocalTensor(asc.uint32, asc.TPosition.C1, (mp + np_) * kp * esz, 2 * np_)
        asc.data_copy(q32, qg, asc.Nd2NzParams(1, 1, 2 * n, 0, 2 * n, 1, 1, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    for i in range(mp // 16):
        asc.load_data(a2[i * (kp // K0) * fr:], a1, asc.LoadData2DParams(i, kp // K0, mp // 16, 0, 0, False))
    for j in range(kp // K0):
        asc.load_data(b2[j * (np_ // 16) * fr:], b1, asc.LoadData2DParams(j * (np_ // 16), np_ // 16, 1, 0, 0, False))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k, 0, 0, 0, True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    if vec and rt:              # n_size and dst_stride as run-time values (qs = n)
        asc.fixpipe(cg, c1, q1, asc.FixpipeParamsV220(qs, m, 0, qs, mode, relu))
    elif vec:
        asc.fixpipe(cg, c1, q1, asc.FixpipeParamsV220(n, m, 0, n, mode, relu))
    elif flag:
        asc.set_fix_pipe_pre_quant_flag(qs)
        asc.fixpipe(cg, c1, asc.FixpipeParamsV220(n, m, 0, n, mode, relu))
    else:
        asc.fixpipe(cg, c1, asc.FixpipeParamsV220(n, m, 0, n, mode, relu, deq_scalar=qs))


def _run(m, n, k, mode, words, relu=False, inp=np.int8, dst=np.int8, vec=False, flag=False, seed=0, rt=False):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    if inp == np.int8:
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        acc = a.astype(np.int32) @ b.astype(np.int32)
    else:
        a = (rng.random((m, k)) * 4 - 2).astype(np.float16)
        b = (rng.random((k, n)) * 4 - 2).astype(np.float16)
        acc = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    qv = np.zeros(2 * ((n + 15) // 16 * 16), np.uint32)
    w = np.broadcast_to(np.asarray(words, np.uint64), (n,)).copy()
    qv[:2 * n] = w.view(np.uint32)
    c = np.zeros((m, n), dst)
    qs = int(np.asarray(words, np.uint64).reshape(-1)[0]) if not vec else n if rt else 0
    k_quant[1](a, np.ascontiguousarray(b.T), qv, c, m, n, k, int(mode), qs, relu, vec, flag, rt)
    return c, model(acc, mode, w, relu, dst)


Q = asc.QuantModes


@pytest.mark.parametrize("m,n,k", [(16, 16, 32), (37, 45, 70), (1, 1, 1), (20, 150, 33)])
@pytest.mark.parametrize("relu", [False, True])
def test_deqf16_scalar_and_vector(m, n, k, relu):
    rng = np.random.default_rng(m * n + k)
    c, want = _run(m, n, k, Q.DEQF16, qword(0.001234), relu, dst=np.float16)
    assert np.array_equal(c.view(np.uint16), want.view(np.uint16))
    scales = [qword(float(s)) for s in 2.0 ** rng.uniform(-14, -2, n)]
    c, want = _run(m, n, k, Q.VDEQF16, scales, relu, dst=np.float16, vec=True)
    assert np.array_equal(c.view(np.uint16), want.view(np.uint16))
    assert np.abs(want.astype(np.float64)).max() > 0


@pytest.mark.parametrize("m,n,k", [(16, 16, 32), (37, 45, 70), (1, 1, 1), (20, 150, 33)])
@pytest.mark.parametrize("dst", [np.int8, np.uint8])
def test_req8_scalar_and_vector(m, n, k, dst):
    rng = np.random.default_rng(m + n + k)
    sgn = dst == np.int8
    c, want = _run(m, n, k, Q.REQ8, qword(1 / 700, 3, sgn), dst=dst)
    assert np.array_equal(c, want)
    if k >= 70 and sgn:      # the range is used, saturation included
        assert want.min() == -128 and want.max() == 127
    words = [qword(float(s), int(o), sgn) for s, o in zip(2.0 ** rng.uniform(-13, -6, n), rng.integers(0, 40, n))]
    c, want = _run(m, n, k, Q.VREQ8, words, dst=dst, vec=True, relu=True)
    assert np.array_equal(c, want)


@pytest.mark.parametrize("m,n,k", [(37, 45, 70), (3, 20, 5)])
def test_qf322b8_from_f16(m, n, k):
    c, want = _run(m, n, k, Q.QF322B8_PRE, qword(9.0), inp=np.float16, dst=np.int8)
    assert np.array_equal(c, want)
    rng = np.random.default_rng(1)
    words = [qword(float(s), 0, True) for s in rng.uniform(1, 30, n)]
    c, want = _run(m, n, k, Q.VQF322B8_PRE, words, inp=np.float16, dst=np.int8, vec=True)
    assert np.array_equal(c, want)


def test_set_fix_pipe_pre_quant_flag_and_int32():
    c, want = _run(37, 45, 70, Q.REQ8, qword(1 / 500), flag=True)
    assert np.array_equal(c, want)
    c, _ = _run(37, 45, 70, Q.NoQuant, 0, dst=np.int32)
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (37, 70)).astype(np.int8)
    b = rng.integers(-128, 128, (70, 45)).astype(np.int8)
    assert np.array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_scale_is_truncated_to_10_mantissa_bits():
    """0.1's f32 has mantissa bits below bit 13: the hardware drops them (1-8-10 float)."""
    c, want = _run(16, 16, 32, Q.DEQF16, qword(0.1), dst=np.float16)
    assert np.array_equal(c.view(np.uint16), want.view(np.uint16))
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (16, 32)).astype(np.int32)
    b = rng.integers(-128, 128, (32, 16)).astype(np.int32)
    exact = ((a @ b).astype(np.float32) * np.float32(0.1)).astype(np.float16)
    assert not np.array_equal(c, exact)


def test_faults_and_errors():
    with pytest.raises(KernelFault, match="MCB"):
        _run(16, 16, 32, Q.REQ8, qword(0.01) | (1 << 36))
    with pytest.raises(KernelFault, match="inf, NaN or subnormal"):
        _run(16, 16, 32, Q.REQ8, qword(float("inf")))
    with pytest.raises(CompileError, match="reads a int32 L0C and writes float16"):
        _run(16, 16, 32, Q.DEQF16, qword(0.01), dst=np.int8)


# ---- the fixpipe buffer (FB): the vector modes copy the vector L1 -> FB (mov_l1_to_fb) and the
# readout reads FB[128 * fpc[15:8]] (sim/exec_fbuf.c, sim/exec_cube.c; Ascend C CopyDeqTensorToFbuf)

@pytest.mark.parametrize("rt", [False, True])
@pytest.mark.parametrize("n", [1, 17, 256, 257, 300])
@pytest.mark.parametrize("mode,inp,dst", [(Q.VDEQF16, np.int8, np.float16), (Q.VREQ8, np.int8, np.int8),
                                          (Q.VQF322B8_PRE, np.float16, np.uint8)])
def test_vector_quant_through_fb(n, mode, inp, dst, rt):
    """N = 1, 17, 256 in one readout, 257 and 300 in parts of 128 (GenFixpipeTiling), bit-exact; n_size
    a compile-time value or a run-time one (rt: the parts chosen at run time, bounded by the vector's
    compile-time length)."""
    rng = np.random.default_rng(n)
    if dst == np.float16:
        words = [qword(float(s)) for s in 2.0 ** rng.uniform(-14, -4, n)]
    elif inp == np.int8:
        words = [qword(float(s), int(o), True) for s, o in zip(2.0 ** rng.uniform(-13, -7, n), rng.integers(0, 9, n))]
    else:
        words = [qword(float(s), 0, False) for s in rng.uniform(1, 30, n)]
    c, want = _run(19, n, 45, mode, words, inp=inp, dst=dst, vec=True, seed=n, rt=rt)
    assert np.array_equal(c.view(np.uint8), want.view(np.uint8))
    assert len(np.unique(want)) > 1


def test_vector_quant_asm_copies_to_fb():
    """Each part of the readout: mov_l1_to_fb of ceil(8 n / 128) blocks to FB 0, fpc pointing there
    (bit 63 the written mark, FPC[15:8] = 0), then fix_l0c_to_out.q of that part."""
    args = (np.zeros((19, 45), np.int8), np.zeros((300, 45), np.int8), np.zeros(600, np.uint32),
            np.zeros((19, 300), np.float16), 19, 300, 45, int(Q.VDEQF16), 0, False, True, False, False)
    s = k_quant.asm(*args)
    lines = [ln.split()[0] for ln in s.splitlines() if ln.strip().startswith(("mov_l1_to_fb", "fix_l0c", "mtspr"))
             and ("fpc" in ln or not ln.strip().startswith("mtspr"))]
    assert lines == ["mov_l1_to_fb", "mtspr", "fix_l0c_to_out.q"] * 3, lines
    lens = [ln.split("len=")[1].split(",")[0].strip() for ln in s.splitlines() if "mov_l1_to_fb" in ln]
    assert lens == ["8", "8", "3"]          # 128, 128 and 44 columns: 1024, 1024 and 352 -> 384 bytes


@asc.jit(matmul_cube_only=True)
def k_fb_race(qv: asc.GlobalAddress, c: asc.GlobalAddress, n: asc.ConstExpr[int], sync: asc.ConstExpr[bool]):
    """The vector copied GM -> L1 on MTE2 and read by the FIX pipe's L1 -> FB copy: a race unless
    something orders them (MTE2 -> FIX is no flag pair of the AIC: a barrier here)."""
    qg = asc.GlobalTensor()
    qg.set_global_buffer(qv)
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    q32 = asc.LocalTensor(asc.uint32, asc.TPosition.C1, 0, 2 * n)
    q1 = asc.LocalTensor(asc.uint64, asc.TPosition.C1, 0, n)
    c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, 16 * n)
    asc.data_copy(q32, qg, asc.Nd2NzParams(1, 1, 2 * n, 0, 2 * n, 1, 1, 0))
    if sync:
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(cg, c1, q1, asc.FixpipeParamsV220(n, 16, 0, n, Q.VDEQF16, False))


def test_fb_copy_source_race_is_reported():
    config.set_platform(config.Backend.Model)
    qv = np.array([qword(1.0)] * 32, np.uint64).view(np.uint32)
    c = np.ones((16, 32), np.float16)
    k_fb_race[1](qv, c, 32, True, check_races=True)
    assert not c.any()                      # L0C never written: zeros, scaled by 1
    with pytest.raises(Exception, match="(?i)race"):
        k_fb_race[1](qv, c, 32, False, check_races=True)


@asc.jit(matmul_cube_only=True)
def k_rt_n(c: asc.GlobalAddress, n: int):
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    q1 = asc.LocalTensor(asc.uint64, asc.TPosition.C1, 0, n)
    c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, 16 * 512)
    asc.fixpipe(cg, c1, q1, asc.FixpipeParamsV220(n, 16, 0, n, Q.VDEQF16, False))


@asc.jit(matmul_cube_only=True)
def k_short_vec(c: asc.GlobalAddress):
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    q1 = asc.LocalTensor(asc.uint64, asc.TPosition.C1, 0, 16)
    c1 = asc.LocalTensor(asc.int32, asc.TPosition.CO1, 0, 16 * 32)
    asc.fixpipe(cg, c1, q1, asc.FixpipeParamsV220(32, 16, 0, 32, Q.VDEQF16, False))


def test_vector_quant_rejections():
    config.set_platform(config.Backend.Model)
    with pytest.raises(CompileError, match="give n_size or the cbuf_workspace's length as a compile-time value"):
        k_rt_n[1](np.zeros(16 * 512, np.float16), 300)
    with pytest.raises(CompileError, match="has 16 elements, n_size is 32"):
        k_short_vec[1](np.zeros(16 * 32, np.float16))
