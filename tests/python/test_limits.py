"""Compiler limits (issue 12 item 6) and one integer semantics for // and % (issue 9 item 4),
end to end on the simulator against numpy / Python references."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
import kernels_limits as kl

pytestmark = pytest.mark.libasc


@pytest.fixture(autouse=True)
def _model():
    config.set_platform(config.Backend.Model)


def _matmul_inputs(k):
    rng = np.random.default_rng(k)
    a = (rng.random((256, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, 256)) - 0.5).astype(np.float16)
    return a, b, np.zeros((256, 256), np.float32), a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("k", [64, 192, 320])
def test_aic_matmul_with_a_runtime_k_loop(k):
    a, b, c, ref = _matmul_inputs(k)
    asm = kl.matmul_runtime_k.asm(a, b, c, k)
    assert "set_mask" not in asm and "L1_for:" in asm      # a real run-time loop, no vector-mask setup
    kl.matmul_runtime_k[2](a, b, c, k)
    assert np.abs(c - ref).max() <= 1e-3 * np.abs(ref).max()


def test_fully_unrolled_matmul_compiles_and_is_right():
    a, b, c, ref = _matmul_inputs(512)
    assert "_for" not in kl.matmul_static_k.asm(a, b, c, 512)
    kl.matmul_static_k[2](a, b, c, 512)
    assert np.abs(c - ref).max() <= 1e-3 * np.abs(ref).max()


def test_fully_unrolled_loop_over_many_big_offsets_spills_and_is_right():
    n = kl.NLIVE * kl.STRIDE
    x = np.arange(n, dtype=np.int64) - n // 2
    o = np.arange(n, dtype=np.int64) * 3
    ref = o.copy()
    ref[::kl.STRIDE] += 6 * x[::kl.STRIDE]
    asm = kl.unrolled_columns.asm(x, o)
    assert "_for" not in asm and ".arg __pyasc_stack, gm, u8" in asm   # unrolled, and it spills
    kl.unrolled_columns[1](x, o)
    assert (o == ref).all()


def test_more_than_31_live_scalars_spill_and_compute_right():
    x = np.arange(-20, 20, dtype=np.int64) * 1000003 + (1 << 40)
    o = np.zeros(kl.NLIVE, np.int64)
    asm = kl.many_live.asm(x, o, 7)
    assert "st.d" in asm and "(x30)" in asm
    kl.many_live[3](x, o, 7)                 # 3 blocks: each has its own frame (same values)
    assert (o == (x[::-1] + 7) * np.arange(1, kl.NLIVE + 1) + x).all()


@pytest.mark.parametrize("n", [0, 1, 5])
def test_values_live_through_a_runtime_loop_spill_and_compute_right(n):
    x = np.arange(-20, 20, dtype=np.int64) * 1000003
    o = np.zeros(kl.NLIVE + 1, np.int64)
    kl.many_live_loop[2](x, o, n)
    v = [int(e) + n for e in x]
    ref = [2 * e for e in v] + [sum(v[i] * (j + i) for j in range(n) for i in range(kl.NLIVE))]
    assert o.tolist() == ref
