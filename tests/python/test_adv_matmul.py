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


SHAPES = [
    (32, 32, 32, 1, False, False),
    (100, 72, 40, 1, False, False),      # M, N tails; K a multiple of 8 but not of 16
    (37, 45, 29, 1, False, False),       # nothing a multiple of 16 (row strides not 32-byte blocks)
    (200, 136, 100, 4, False, False),    # several cores, tails on every axis
    (130, 90, 70, 3, True, False),
    (130, 90, 70, 3, False, True),
    (64, 48, 80, 24, True, True),
]


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores,ta,tb", SHAPES)
def test_adv_matmul(m, n, k, cores, ta, tb):
    a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=ta, trans_b=tb)
    assert np.abs(c - _ref(a, b)).max() < 1e-3, tiling


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores,ta,tb", SHAPES + [(1, 1, 1, 1, False, False), (17, 300, 33, 2, False, True)])
def test_adv_matmul_teach(m, n, k, cores, ta, tb):
    """The coupled teach (2 cores, no L0C -> GM path: each tile leaves L0C through UB); the
    bytes of C around each tile are checked too (data_copy_pad writes exactly the tile)."""
    a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=ta, trans_b=tb, target="teach")
    assert tiling.used_core_num <= 2
    assert np.abs(c - _ref(a, b)).max() < 1e-3, tiling


@pytest.mark.libasc
def test_adv_matmul_teach_exact_writes():
    """C inside a larger array: no byte outside C's rows and columns is written on teach."""
    import asc.runtime.config as config
    import _common as cm
    m, n, k = 37, 45, 29
    rng = np.random.default_rng(3)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    with cm.on_target("teach"):
        tiling = matmul_adv.tiling_for(m, n, k, 2)
        big = np.full(m * n + 64, -7.0, np.float32)
        matmul_adv.matmul_adv[tiling.used_core_num](a, b, big[32:32 + m * n], tiling, False, False)
    assert (big[:32] == -7).all() and (big[32 + m * n:] == -7).all()
    assert np.abs(big[32:32 + m * n].reshape(m, n) - _ref(a, b)).max() < 1e-3
    assert config.get_target() == "ascend910b"


@pytest.mark.libasc
def test_adv_matmul_sweep():
    """Fixed-seed random shapes, transposes and core counts (ascend910b: asc.adv.Matmul writes
    through the AIC's fixpipe to GM; test_adv_matmul_sweep_teach: through UB on teach)."""
    rng = np.random.default_rng(26)
    for i in range(4):
        m, n, k = (int(v) for v in rng.integers(1, 200, 3))
        cores = int(rng.integers(1, 9))
        a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=bool(i & 1), trans_b=bool(i & 2), seed=i)
        assert np.abs(c - _ref(a, b)).max() < 1e-3, (m, n, k, cores, tiling)


@pytest.mark.libasc
def test_adv_matmul_sweep_teach():
    rng = np.random.default_rng(27)
    for i in range(4):
        m, n, k = (int(v) for v in rng.integers(1, 200, 3))
        cores = int(rng.integers(1, 3))
        a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=bool(i & 1), trans_b=bool(i & 2), seed=i,
                                              target="teach")
        assert np.abs(c - _ref(a, b)).max() < 1e-3, (m, n, k, cores, tiling)


BRANCH_RANGE_CASE = (152, 162, 98, 5, 2)     # the sweep's third shape, transposed B


@pytest.mark.libasc
def test_adv_matmul_long_branch():
    # found by the sweep: the generated code had a conditional branch more than 32 KiB away, an
    # internal compiler error from the assembler until codegen relaxed long branches
    m, n, k, cores, i = BRANCH_RANGE_CASE
    a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=bool(i & 1), trans_b=bool(i & 2), seed=i)
    assert np.abs(c - _ref(a, b)).max() < 1e-3


@pytest.mark.parametrize("call", ["set_user_def_info", "set_self_define_data", "set_sparse_index"])
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


@pytest.mark.libasc
@pytest.mark.parametrize("target", ["ascend910b", "teach"])
@pytest.mark.parametrize("m,n,k,cores,ta,tb", [(1, 1, 1, 1, False, False), (37, 45, 29, 1, False, False),
                                               (130, 90, 70, 3, True, False), (64, 48, 80, 2, False, True)])
def test_adv_matmul_bf16(target, m, n, k, cores, ta, tb):
    """bf16 in (uint16 bits tagged pyasc.host.bf16.DTYPE: a GlobalAddress of asc.bfloat16, so the
    Matmul runs mmad.bf16f32), f32 out; the bf16 products are exact in f32, so the error is the
    f32 accumulation's: K * 2^-24 * sum |a||b|."""
    from pyasc.host import bf16 as hb
    a, b, c, tiling, res = matmul_adv.run(m, n, k, cores, trans_a=ta, trans_b=tb, target=target, bf16=True)
    assert hb.is_bf16(a.dtype)
    a64, b64 = hb.from_bfloat16(a).astype(np.float64), hb.from_bfloat16(b).astype(np.float64)
    assert (np.abs(c - a64 @ b64) <= k * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64)) + 1e-30).all(), tiling
