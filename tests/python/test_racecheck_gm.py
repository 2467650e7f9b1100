"""racecheck on GM and across cores (sim/race_gm.c) through pyasc: the kernel library's mix kernel
(kernels/pyasc/matmul_leakyrelu_mix.py: the cube cores write a GM workspace tile by tile, each
followed by cross_core_set_flag, and the vector cores read it after cross_core_wait_flag) runs
clean; the same kernel without the vector side's wait is reported (as WAR: the read runs first), naming the workspace, both
units and the Python lines of both accesses."""
import os
import runpy

import pytest

from pyasc.runtime.launch import KernelSanitizerError

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIX = os.path.join(ROOT, "kernels", "pyasc", "matmul_leakyrelu_mix.py")


def test_mix_with_flag_clean():
    runpy.run_path(MIX)["run"](sanitize="racecheck")


def test_mix_without_wait_reported(tmp_path):
    src = open(MIX).read()
    wait = "            asc.cross_core_wait_flag(FLAG)\n"
    assert src.count(wait) == 1
    bad = tmp_path / "mix_nowait.py"
    bad.write_text(src.replace(wait, ""))
    with pytest.raises(KernelSanitizerError) as e:
        runpy.run_path(str(bad))["run"](sanitize="racecheck")
    msg = str(e.value)
    # the vector core's read runs first (nothing holds it back), the cube core's write later:
    # named in this run's order, as cross-core pairs have no common program order
    assert "racecheck (WAR) on GM: FIXP `fix_l0c_to_out.f32" in msg
    assert "mix_nowait.py:61 (core0.cubecore0, pipe fix" in msg
    assert "writes argument 'ws'" in msg
    assert "read by MTE2 `mov_out_to_ub" in msg
    assert "mix_nowait.py:74 (core0.veccore0, pipe mte2" in msg
    assert "no cross-core flag or sync_all orders them" in msg
