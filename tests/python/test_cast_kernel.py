"""kernels/pyasc/cast.py: float32 <-> float16 on the vector unit (vconv) against numpy's astype over
tails (1 element, less than a 32-byte block, not a multiple of the tile or the cores), overflow,
subnormals and ties; used by auto_mixed_precision in numpy scripts, where the bundle runs natively."""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "kernels", "pyasc"))
import cast as ck  # noqa: E402


@pytest.mark.parametrize("n,cores", [(1, None), (7, 2), (16, 1), (4097, 3), (20011, None)])
def test_f32_to_f16_rounds_like_numpy(n, cores):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * np.float32(3000)).astype(np.float32)
    special = np.array([65504.0, 65520.0, 1e6, -1e6, 6e-8, 1e-9, 0.5 + 2.0 ** -12, 1 + 2.0 ** -11,
                        1 + 3 * 2.0 ** -11, -0.0, np.inf, -np.inf], np.float32)
    x[:min(n, len(special))] = special[:n]
    z = ck.cast(x, np.float16, cores=cores)
    assert z.dtype == np.float16
    with np.errstate(over="ignore"):
        ref = x.astype(np.float16)
    assert np.array_equal(z.view(np.uint16), ref.view(np.uint16))   # bit for bit
    assert ck.cast_kernel.last_result.cycles > 0


@pytest.mark.parametrize("n", [1, 15, 4096, 9999])
def test_f16_to_f32_exact(n):
    x = np.random.default_rng(n).standard_normal((n,)).astype(np.float16)
    z = ck.cast(x.reshape(1, n), np.float32)
    assert z.shape == (1, n) and np.array_equal(z.reshape(-1), x.astype(np.float32))


def test_amp_script_runs_casts_on_npu_and_natively(tmp_path):
    from pyasc.script import compile_script, load_bundle
    src = ("# pragma: auto_mixed_precision mode=O1\nimport numpy as np\n"
           "a = np.random.rand(32, 48).astype(np.float32)\nb = np.random.rand(48, 16).astype(np.float32)\nc = a @ b\n")
    p = tmp_path / "amp.py"
    p.write_text(src)
    b = compile_script(str(p), str(tmp_path / "amp.om"))
    assert b["native"]["native"] and [s["module"] for s in b["steps"]] == ["cast", "cast", "matmul"]
    outs, rep = load_bundle(str(tmp_path / "amp.om")).run()
    ref = load_bundle(str(tmp_path / "amp.om")).reference()
    np.testing.assert_allclose(outs["c"], ref["c"], rtol=1e-5)
    assert all(s["cycles"] > 0 for s in rep["steps"])
