"""asc.adv.Matmul (kernels/pyasc/matmul_adv.py) against numpy over shapes with tails (M, N, K not
multiples of 16 or of the base block), transposed A and B, one and many AI cores; the rejected
interfaces name what is missing; real pyasc's tutorial 04 runs unchanged on numpy arrays."""
import os
import subprocess
import sys

import numpy as np
import pytest

import asc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_adv  # noqa: E402


def _ref(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores,ta,tb", [
    (32, 32, 32, 1, False, False),
    (100, 72, 40, 1, False, False),      # M, N tails; K a multiple of 8 but not of 16
    (37, 45, 29, 1, False, False),       # nothing a multiple of 16 (row strides not 32-byte blocks)
    (200, 136, 100, 4, False, False),    # several cores, tails on every axis
    (130, 90, 70, 3, True, False),
    (130, 90, 70, 3, False, True),
    (64, 48, 80, 24, True, True),
])
def test_adv_matmul(m, n, k, cores, ta, tb):
    a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=ta, trans_b=tb)
    assert np.abs(c - _ref(a, b)).max() < 1e-3, tiling


@pytest.mark.libasc
def test_adv_matmul_sweep():
    """Fixed-seed random shapes, transposes and core counts (ascend910b: asc.adv.Matmul writes
    through the AIC's fixpipe to GM, which coupled profiles do not have)."""
    rng = np.random.default_rng(26)
    for i in range(4):
        m, n, k = (int(v) for v in rng.integers(1, 200, 3))
        cores = int(rng.integers(1, 9))
        a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=bool(i & 1), trans_b=bool(i & 2), seed=i)
        assert np.abs(c - _ref(a, b)).max() < 1e-3, (m, n, k, cores, tiling)


BRANCH_RANGE_CASE = (152, 162, 98, 5, 2)     # the sweep's third shape, transposed B


@pytest.mark.libasc
def test_adv_matmul_long_branch():
    # found by the sweep: the generated code had a conditional branch more than 32 KiB away, an
    # internal compiler error from the assembler until codegen relaxed long branches
    m, n, k, cores, i = BRANCH_RANGE_CASE
    a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=bool(i & 1), trans_b=bool(i & 2), seed=i)
    assert np.abs(c - _ref(a, b)).max() < 1e-3


@pytest.mark.parametrize("call", ["set_quant_scalar", "set_hf32", "iterate_n_batch", "set_sparse_index"])
def test_rejected_names_carry_a_reason(call):
    assert getattr(asc.adv.Matmul, call).__asc_rejected__


TUTORIALS = ["python/tutorials/04_matmul_cube_only/matmul_cube_only.py",
             "python/tutorials/03_matmul_mix/matmul_mix.py",
             "python/tutorials/05_matmul_leakyrelu/matmul_leakyrelu.py"]
MIRROR = os.environ.get("PYASC_MIRROR", "/work/.mirror/hicann+pyasc/repo")


@pytest.mark.libasc
@pytest.mark.parametrize("tutorial", TUTORIALS, ids=["04", "03", "05"])
def test_real_pyasc_tutorial(tutorial, tmp_path):
    """The tutorial's own file from a hicann/pyasc clone (PYASC_MIRROR; skipped without one), its
    torch host calls served by tests/python/tutorials/numpy_torch.py: its own assertion decides.
    03 and 05 are mix kernels whose Matmul is called on the AIVs (the AIC serves them)."""
    try:
        src = subprocess.run(["git", "-C", MIRROR, "show", "HEAD:" + tutorial], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("no hicann/pyasc clone at PYASC_MIRROR")
    f = tmp_path / os.path.basename(tutorial)
    f.write_text(src)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "python", "tutorials", "run_tutorial.py"), str(f)],
                       capture_output=True, text=True, env=dict(os.environ), timeout=1200)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr
