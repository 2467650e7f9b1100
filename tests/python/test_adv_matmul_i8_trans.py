"""int8 asc.adv.Matmul with A stored K x M (set_tensor_a(..., is_trans=True)) and / or B stored K x N
(is_trans=False): the L1 fills are NZ of the stored matrix (32-column blocks, K padded to 32) and the
L0A / L0B loads are LoadDataWithTranspose (asc.load_data_with_transpose, load_l1_to_l0_2dt b8: two
16 x 32 fractals joined into a 32 x 32 square), as adv/matmul.py's _emit_tile lowers them after
Ascend C's load_to_l0a_loadInstr.h / load_to_l0b_loadInstr.h.  All four layouts, int8 x int8 ->
int32 (exact: assert_array_equal) and -> float16 through set_quant_scalar / set_quant_vector, over
shapes that divide nothing, on 1 and 3 cores of ascend910b, race-free under check_races=True,
with base blocks whose M / N are not multiples of 32, iterate_batch and a row stride past ND2NZ's.
(int8 called from a mix kernel's AIVs is rejected for every layout, A M x K too, by the serving
AIC's float32 fixpipe: not tested here.)"""
import os
import sys

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_fix_quant import model, qword  # noqa: E402

pytestmark = pytest.mark.libasc


def _mm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, qv: asc.GlobalAddress,
        tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress, qs: int, kind: asc.ConstExpr[int],
        trans_a: asc.ConstExpr[bool], trans_b: asc.ConstExpr[bool]):
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
    if trans_a:         # K x M: the core's M block is a column offset
        ag.set_global_buffer(a + mi * tiling.single_core_m)
    else:
        ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    if trans_b:         # N x K
        bg.set_global_buffer(b + ni * tiling.single_core_n * tiling.k_b)
    else:               # K x N
        bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    qg.set_global_buffer(qv + ni * tiling.single_core_n)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype, trans_a),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype, trans_b),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    if idx < tiling.used_core_num:
        if kind == 1:
            mm.set_quant_scalar(qs)
        if kind == 2:
            mm.set_quant_vector(qg)
        mm.set_tensor_a(ag, trans_a)
        mm.set_tensor_b(bg, trans_b)
        mm.set_tail(tail_m, tail_n)
        mm.iterate_all(cg)
        mm.end()


mm_cube = asc.jit(matmul_cube_only=True)(_mm)

_DT = {np.int8: host.DataType.DT_INT8, np.float16: host.DataType.DT_FLOAT16, np.int32: host.DataType.DT_INT32}


def _tiling(m, n, k, cores, trans_a, trans_b, out, base=None):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, trans_a)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, trans_b)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, _DT[out])
    t.set_dim(cores)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    if base is not None:
        t.set_fix_split(*base)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def _run(m, n, k, cores, trans_a, trans_b, kern=mm_cube, kind=0, out=np.int32, base=None, seed=5, steps=None):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed + m + 7 * n + 11 * k)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    acc = a.astype(np.int32) @ b.astype(np.int32)
    w = np.zeros(n, np.uint64)
    if kind == 1:
        w[:] = qword(0.000731)
    elif kind == 2:
        w[:] = [qword(float(s)) for s in 2.0 ** rng.uniform(-14, -4, n)]
    c = np.zeros((m, n), out)
    t = _tiling(m, n, k, cores, trans_a, trans_b, out, base)
    for f, v in (steps or {}).items():
        setattr(t, f, v)
    ga = np.ascontiguousarray(a.T) if trans_a else a
    gb = b if not trans_b else np.ascontiguousarray(b.T)
    blocks = int(t.used_core_num) if kern is mm_cube else -(-int(t.used_core_num) // 2)
    kern[blocks](ga, gb, c, w, t, np.zeros(1 << 20, np.uint8), int(w[0]) if kind == 1 else 0, kind,
                 trans_a, trans_b, check_races=True)
    if kind == 0:
        np.testing.assert_array_equal(c, acc, err_msg=str((m, n, k, cores, trans_a, trans_b, t)))
    else:
        want = model(acc, None, w, False, out)
        assert np.array_equal(c.view(np.uint16), want.view(np.uint16)), (m, n, k, cores, trans_a, trans_b, t)
    return t


LAYOUTS = [(False, True), (True, True), (False, False), (True, False)]
SHAPES = [(1, 1, 1, 1), (33, 47, 65, 1), (33, 47, 65, 3), (17, 9, 300, 1), (17, 9, 300, 3), (150, 70, 129, 1),
          (150, 70, 129, 3)]


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS)
@pytest.mark.parametrize("m,n,k,cores", SHAPES)
def test_i8_layouts_equal_numpy(m, n, k, cores, trans_a, trans_b):
    _run(m, n, k, cores, trans_a, trans_b)


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS[1:])
@pytest.mark.parametrize("base", [(48, 80, 64), (16, 16, 32), (64, 96, 32), (112, 48, 96)])
def test_i8_layouts_base_blocks_not_multiples_of_32(base, trans_a, trans_b):
    # base_m / base_n an odd multiple of 16: the transposing loads' last pair of fractal rows / last
    # square half outside the tile, one tile per L1 fill along that axis
    _run(150, 170, 129, 1, trans_a, trans_b, base=base)
    _run(33, 47, 300, 1, trans_a, trans_b, base=base)


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("base", [(64, 96, 32), (48, 80, 64)])
@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS)
def test_i8_layouts_fills_of_two_base_blocks(order, base, trans_a, trans_b):
    # step_m / step_n 2: a tile's rows / columns start inside an L1 fill (the transposing loads'
    # start index); with base_m / base_n odd multiples of 16 the transposed side falls back to one
    # tile per fill
    steps = {"step_m": 2, "step_n": 2, "depth_a1": 2 * 2 * 2, "depth_b1": 2 * 2 * 2, "step_k_a": 2,
             "step_k_b": 2, "iterate_order": order}
    _run(300, 520, 190, 1, trans_a, trans_b, base=base, steps=steps)
    _run(150, 170, 129, 1, trans_a, trans_b, base=base, steps=steps)


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS[1:])
@pytest.mark.parametrize("kind", [1, 2])
def test_i8_layouts_dequant_to_f16(kind, trans_a, trans_b):
    _run(33, 47, 65, 3, trans_a, trans_b, kind=kind, out=np.float16)
    _run(150, 70, 129, 1, trans_a, trans_b, kind=kind, out=np.float16)


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS[1:])
def test_i8_layouts_big(trans_a, trans_b):
    t = _run(300, 200, 700, 4, trans_a, trans_b)
    assert int(t.single_core_m) < 300 or int(t.single_core_n) < 200      # several cores share it


# the last row's last 32 B block reads past the end of A (the per-row copies' known over-read, into
# bytes the cube ignores): the simulator's GM warning, expected here
@pytest.mark.filterwarnings("ignore:.*runs outside the argument it starts in")
@pytest.mark.parametrize("m,n,k,trans_a,trans_b", [(65552, 20, 40, True, True), (65552, 20, 40, True, False)])
def test_i8_row_stride_past_nd2nz_range(m, n, k, trans_a, trans_b):
    # A K x M: a row stride past Nd2NzParams.srcDValue's 65535 and not a whole number of 32 B: one copy per
    # row of the fill, its 32 B block count from the run-time tail (adv/matmul.py _nd2nz)
    _run(m, n, k, 1, trans_a, trans_b)


@pytest.mark.parametrize("trans_a,trans_b", LAYOUTS)
@pytest.mark.parametrize("m,n,k,ba,bb", [(37, 45, 29, 3, 3), (33, 20, 70, 2, 1)])
def test_i8_layouts_iterate_batch(m, n, k, ba, bb, trans_a, trans_b):
    from test_adv_matmul_f32_trans import k_batch
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m * n + k)
    a = rng.integers(-128, 128, (ba, m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (bb, k, n)).astype(np.int8)
    ga = np.ascontiguousarray(a.transpose(0, 2, 1)) if trans_a else a
    gb = b if not trans_b else np.ascontiguousarray(b.transpose(0, 2, 1))
    nb = max(ba, bb)
    c = np.zeros((nb, m, n), np.int32)
    t = host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, trans_a)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, trans_b)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT32)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    k_batch[1](ga, gb, c, tc, ba, bb, trans_a, trans_b, check_races=True)
    ref = np.stack([a[i if ba > 1 else 0].astype(np.int32) @ b[i if bb > 1 else 0].astype(np.int32)
                    for i in range(nb)])
    np.testing.assert_array_equal(c, ref)
