"""LaunchResult carries the cube utilisation and the bound sentence of the C report (run/report.c
"roofline" and "bound"), read from its JSON, not recomputed: the field equals the report's
percentage, the text summary (repr) shows it for a kernel that ran cube work, and a vector-only
kernel has none (its summary is unchanged)."""
import json
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_adv  # noqa: E402
import vadd_auto  # noqa: E402


@pytest.mark.libasc
def test_cube_utilisation_from_the_report():
    a, b, c, tiling, res = matmul_adv.run(128, 128, 128, 2)
    assert np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max() < 1e-3
    r = json.loads(res.report_json)
    assert r["flops"]["cube"] == 2 * 128 * 128 * 128
    assert res.cube_utilisation == float(r["roofline"]["cube"]["pct"]) > 0
    # the report's own figure: achieved flops per cycle over the launch's peak
    peak = r["roofline"]["cube"]["peak_per_cycle"]
    assert abs(res.cube_utilisation - 100 * r["flops"]["cube"] / (res.cycles * peak)) < 0.1
    assert f"cube {res.cube_utilisation:.1f}%" in repr(res)
    assert f"({res.cube_utilisation:.1f}%)" in res.report            # the text report's roofline line
    assert res.bound == r["bound"] and res.bound


@pytest.mark.libasc
def test_vector_kernel_has_no_cube_figure():
    x, y, z, res = vadd_auto.run()
    assert np.array_equal(z, x + y)
    assert res.cube_utilisation is None and "cube" not in repr(res)
