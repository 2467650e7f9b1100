"""bench/fidelity/fidelity_kernels.py: the double-buffered kernels compare.py runs for published
streaming kernels compute what numpy computes (lengths that do not divide tiles, cores or 32 B,
one element, float16 and float32, one and many cores), split work as plan() says, overlap their
loads with compute (faster than the single-buffered fused chain on the same work), and refuse
bad input with a clear error."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "fidelity"))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import fidelity_kernels as fk  # noqa: E402
import fused  # noqa: E402

CASES = [(1, np.float32, 1), (1, np.float16, 4), (37, np.float16, 3), (5003, np.float32, 7),
         (70001, np.float16, 48), (8 * 4097, np.float32, 40)]


@pytest.mark.parametrize("n,dt,cores", CASES)
def test_swiglu_matches_numpy(n, dt, cores):
    rng = np.random.default_rng(n)
    g = rng.standard_normal(n).astype(dt)
    u = rng.standard_normal(n).astype(dt)
    z, res = fk.swiglu(g, u, target="ascend910b", cores=cores)
    g64, u64 = g.astype(np.float64), u.astype(np.float64)
    ref = u64 * g64 / (1 + np.exp(-g64))
    tol = 1e-5 if dt == np.float32 else 2e-2
    assert z.dtype == dt and z.shape == g.shape
    np.testing.assert_allclose(z.astype(np.float64), ref, rtol=tol, atol=tol)
    assert res.microseconds > 0


@pytest.mark.parametrize("n,dt,cores", CASES)
def test_scale_matches_numpy(n, dt, cores):
    x = np.random.default_rng(n + 1).standard_normal(n).astype(dt)
    z, _ = fk.scale(x, 0.5, target="ascend910b", cores=cores)
    assert np.array_equal(z, x * dt(0.5))


@pytest.mark.parametrize("n,dt,cores", [(1, np.float32, 48), (37, np.float16, 3), (5003, np.float32, 7),
                                         (15360000, np.float16, 48), (32768, np.float32, 40)])
def test_plan_covers_n_in_equal_aligned_tiles(n, dt, cores):
    nc, per, tile, tiles = fk.plan(n, dt, cores)
    item = np.dtype(dt).itemsize
    assert 1 <= nc <= cores
    assert per == tile * tiles
    assert (tile * item) % 32 == 0 and tile * item <= fk.TILE_BYTES
    assert nc * per >= n                                  # every element is covered
    assert (nc - 1) * per < n                             # no core runs only padding
    assert nc * per - n < nc * tiles * 32 // item + per   # padding: under a block per tile, plus the last core's slack


def test_double_buffering_overlaps_loads():
    """Same work, same cores: the two-buffer kernel beats the one-buffer-set fused chain."""
    n = 4 * 8 * 4096
    g = np.zeros(n, np.float32)
    _, res = fk.swiglu(g, g, target="ascend910b", cores=4)
    prog = (("muls", 2, 0, -1.0), ("exp", 2, 2, None), ("adds", 2, 2, 1.0), ("div", 2, 0, 2), ("mul", 2, 2, 1))
    fused.run_chain(prog, [g, g], target="ascend910b", cores=4)
    assert res.cycles < fused.fused_kernel.last_result.cycles


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="dtype"):
        fk.swiglu(np.zeros(8, np.int32), np.zeros(8, np.int32), target="ascend910b")
    with pytest.raises(ValueError):
        fk.swiglu(np.zeros(8, np.float32), np.zeros(9, np.float32), target="ascend910b")
    with pytest.raises(ValueError, match="at least one element"):
        fk.scale(np.zeros(0, np.float32), 2.0, target="ascend910b")
    with pytest.raises(ValueError, match="cores"):
        fk.plan(8, np.float32, 0)
