"""asc.adv.Matmul with int8 inputs and its quantised readout (set_quant_scalar / set_quant_vector,
python/pyasc/adv/matmul.py _fix_out -> fix_l0c_to_out.q): int8 x int8 -> int32 -> float16 (DEQF16 /
VDEQF16), int8 / uint8 (REQ8 / VREQ8) or int32, and float16 inputs -> int8 (QF322B8_PRE /
VQF322B8_PRE), over shapes with tails (N not a multiple of 16) on one and several AI cores, against
the numpy model of tests/python/test_fix_quant.py; what is not lowered is rejected at the line."""
import os
import sys

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config
from pyasc.compiler.errors import CompileError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_fix_quant import model, qword  # noqa: E402

pytestmark = pytest.mark.libasc


@asc.jit(matmul_cube_only=True)
def mm_quant(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, qv: asc.GlobalAddress,
             tiling: asc.adv.TCubeTiling, qs: int, kind: asc.ConstExpr[int]):
    """C = quant(A x B); A M x K, B stored N x K; kind 0 no quantisation, 1 scalar qs, 2 vector qv."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    tail_m = tiling.m - mi * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - ni * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    qg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n * tiling.k_b)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    qg.set_global_buffer(qv + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, True),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), c, mm, tiling)
    if idx < tiling.used_core_num:
        if kind == 1:
            mm.set_quant_scalar(qs)
        if kind == 2:
            mm.set_quant_vector(qg)
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg, True)
        mm.set_tail(tail_m, tail_n, tiling.k_a)
        mm.iterate_all(cg)
        mm.end()


_DT = {np.int8: host.DataType.DT_INT8, np.float16: host.DataType.DT_FLOAT16, np.uint8: host.DataType.DT_UINT8,
       np.int32: host.DataType.DT_INT32, np.float32: host.DataType.DT_FLOAT}


def _tiling(m, n, k, cores, inp, out):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, _DT[inp], False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, _DT[inp], True)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, _DT[out])
    t.set_dim(cores)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return tc


def run(m, n, k, cores, kind, words, inp=np.int8, out=np.float16, seed=0, **kw):
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
    w = np.broadcast_to(np.asarray(words, np.uint64), (n,)).copy()
    c = np.zeros((m, n), out)
    t = _tiling(m, n, k, cores, inp, out)
    qs = int(w[0]) if kind == 1 else 0
    r = mm_quant[t.used_core_num](a, np.ascontiguousarray(b.T), c, w, t, qs, kind, **kw)
    if kind == 0:
        return c, acc, t
    return c, model(acc, None, w, False, out), t


SHAPES = [(150, 70, 33, 1), (150, 70, 33, 4), (1, 1, 1, 1), (17, 300, 129, 2), (64, 45, 200, 3)]


@pytest.mark.parametrize("m,n,k,cores", [(1, 1, 1, 1), (37, 45, 29, 1), (17, 9, 300, 1)])
def test_int8_tails_clean_under_every_check(m, n, k, cores):
    # the tails' unwritten L1 padding reaches only C's padding (initcheck follows it, san.c)
    c, want, t = run(m, n, k, cores, 1, qword(0.000731), out=np.float16, seed=m, sanitize="all")
    assert np.array_equal(c.view(np.uint16), want.view(np.uint16)), t


@pytest.mark.parametrize("m,n,k,cores", SHAPES)
def test_int8_dequant_to_f16(m, n, k, cores):
    c, want, t = run(m, n, k, cores, 1, qword(0.000731), out=np.float16, seed=m)
    assert np.array_equal(c.view(np.uint16), want.view(np.uint16)), t
    rng = np.random.default_rng(n)
    words = [qword(float(s)) for s in 2.0 ** rng.uniform(-14, -4, n)]
    c, want, t = run(m, n, k, cores, 2, words, out=np.float16, seed=m)
    assert np.array_equal(c.view(np.uint16), want.view(np.uint16)), t


@pytest.mark.parametrize("m,n,k,cores", SHAPES)
@pytest.mark.parametrize("out", [np.int8, np.uint8])
def test_int8_requant_to_b8(m, n, k, cores, out):
    sgn = out == np.int8
    c, want, t = run(m, n, k, cores, 1, qword(1 / 900, 5, sgn), out=out, seed=k)
    assert np.array_equal(c, want), t
    rng = np.random.default_rng(k)
    words = [qword(float(s), int(o), sgn) for s, o in zip(2.0 ** rng.uniform(-13, -7, n), rng.integers(0, 60, n))]
    c, want, t = run(m, n, k, cores, 2, words, out=out, seed=k)
    assert np.array_equal(c, want), t


@pytest.mark.parametrize("m,n,k,cores", [(150, 70, 33, 4), (17, 300, 129, 2)])
def test_int8_to_int32_and_f16_to_int8(m, n, k, cores):
    c, acc, t = run(m, n, k, cores, 0, 0, out=np.int32)
    assert np.array_equal(c, acc), t
    c, want, t = run(m, n, k, cores, 1, qword(7.0), inp=np.float16, out=np.int8)
    assert np.array_equal(c, want), t
    rng = np.random.default_rng(2)
    c, want, t = run(m, n, k, cores, 2, [qword(float(s)) for s in rng.uniform(2, 40, n)], inp=np.float16,
                     out=np.int8)
    assert np.array_equal(c, want), t


def test_rejections():
    with pytest.raises(CompileError, match="no quantisation mode takes a int32 L0C"):
        run(32, 32, 32, 1, 1, qword(0.01), out=np.float32)
