"""asc.adv.Matmul's L1 scheme (python/pyasc/adv/matmul.py _l1_plan / _walk_plan): fills of step_ka
(step_kb) base_k of K and step_m (step_n) base blocks of M (N), depth_a1 / depth_b1 base blocks in
L1 (double-buffered fills when depth >= 2 step), a fill already in L1 used again by the next tiles,
in the tiling's iterate_order.  Every result is checked against numpy; the GM -> L1 bytes of the
run's report against what the fills must move."""
import os
import re
import sys

import numpy as np
import pytest

import asc.runtime.config as config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_adv  # noqa: E402


def _run(m, n, k, cores, trans_a=False, trans_b=False, order=None, steps=None, seed=3):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    ga = np.ascontiguousarray(a.T) if trans_a else a
    gb = np.ascontiguousarray(b.T) if trans_b else b
    c = np.zeros((m, n), np.float32)
    t = matmul_adv.tiling_for(m, n, k, cores, trans_a=trans_a, trans_b=trans_b)
    if order is not None:
        t.iterate_order = order
    for f, v in (steps or {}).items():
        setattr(t, f, v)
    res = matmul_adv.matmul_adv[t.used_core_num](ga, gb, c, t, trans_a, trans_b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(c - ref).max() / max(1e-30, np.abs(ref).max())
    assert err < 1e-3, (m, n, k, cores, err, t)
    return t, res


def _gm_l1(res):
    return int(re.search(r"GM->L1: (\d+)", res.report).group(1))


@pytest.mark.parametrize("m,n,k,cores", [(1, 1, 1, 1), (37, 45, 129, 1), (37, 45, 129, 3), (300, 200, 700, 1),
                                         (300, 200, 700, 4), (129, 300, 1000, 2)])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_tails_and_transposes(m, n, k, cores, trans_a, trans_b):
    _run(m, n, k, cores, trans_a, trans_b)


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, True)])
def test_iterate_order_and_steps(order, trans_a, trans_b):
    # step_m / step_n 2: one fill holds two base blocks of M (N); tails in M, N and K
    _run(300, 520, 190, 1, trans_a, trans_b, order=order,
         steps={"step_m": 2, "step_n": 2, "depth_a1": 4 * 2 * 1, "depth_b1": 2 * 2 * 1, "step_k_a": 1,
                "step_k_b": 1})


def test_inconsistent_depth_falls_back():
    # depth below step (a hand-made tiling): single base blocks, still exact
    _run(200, 100, 300, 1, steps={"depth_a1": 1, "depth_b1": 1, "step_k_a": 4, "step_k_b": 4})


def test_fill_reused_across_tiles():
    """K = 128 fits one fill (step_ka = step_kb = 2 base_k): ORDER_M walks the 4 M blocks under each
    N block, so B's fill of an N block is loaded once and reused by its 4 tiles; A's fills (two
    buffers, four M blocks) are loaded once per N block.  ORDER_N reuses A instead."""
    m, n, k = 512, 512, 128
    t, res = _run(m, n, k, 1, order=0)
    bm, bn = int(t.base_m), int(t.base_n)
    mt, nt = m // bm, n // bn
    assert int(t.step_k_a) * int(t.base_k) >= k and int(t.step_k_b) * int(t.base_k) >= k, t
    a_bytes, b_bytes = m * k * 2, k * n * 2
    assert _gm_l1(res) == nt * a_bytes + b_bytes, (_gm_l1(res), t)
    t, res = _run(m, n, k, 1, order=1)
    assert _gm_l1(res) == a_bytes + (mt * b_bytes if nt > 2 else b_bytes), (_gm_l1(res), t)


def test_1024_cube_24_cores():
    t, res = _run(1024, 1024, 1024, 24)
    assert res.cube_utilisation > 0


def test_constants_rematerialised_not_reloaded_from_gm():
    """The unrolled walk names more constant L1 / L0 addresses than there are registers: the
    register allocator (compiler/regalloc.py) rebuilds a spilled `li` value at each reader instead
    of reloading it from the GM spill frame, so no ld.d is left and the scalar pipe is not the
    bottleneck (it was 91.8% busy on 512^3, one core, each reload waiting ~100 cycles for GM)."""
    m = n = k = 512
    t = matmul_adv.tiling_for(m, n, k, 1)
    a = np.zeros((m, k), np.float16)
    c = np.zeros((m, n), np.float32)
    asm = matmul_adv.matmul_adv.asm(a, a, c, t, False, False)
    assert ".arg __pyasc_stack" in asm          # it does run out of registers
    assert "ld.d" not in asm and "st.d" not in asm
    _, res = _run(m, n, k, 1)
    busy = re.search(r"core0\.cubecore0\s+([\d.]+)%", res.report)
    assert busy and float(busy.group(1)) < 20.0, res.report[:600]


def test_ascend_c_order_reuses_a_across_step_n():
    """Ascend C's ORDER_M walks a step_m x step_n block of tiles N fastest (MoveOnIterateOrderM):
    with one A buffer (depth_a1 = step_m x step_ka) and step_n 2, A's fill of an M block serves the
    block's 2 N tiles before the next M block replaces it, so A is read once per N block group;
    walking M fastest would reload it for every tile."""
    m, n, k = 256, 1024, 128
    t = matmul_adv.tiling_for(m, n, k, 1)
    bm, bn, bk = int(t.base_m), int(t.base_n), int(t.base_k)
    ks = -(-k // bk)
    steps = {"step_m": 1, "step_n": 2, "step_k_a": ks, "step_k_b": ks, "depth_a1": ks, "depth_b1": 2 * 2 * ks,
             "iterate_order": 0}
    t, res = _run(m, n, k, 1, steps=steps)
    nt = -(-n // bn)
    assert -(-m // bm) >= 2 and nt >= 4, t
    assert _gm_l1(res) == -(-nt // 2) * m * k * 2 + k * n * 2, (_gm_l1(res), t)
