"""asc.trap (the trap instruction, Ascend C Trap): a taken trap stops the launch with a fault naming
core, pc and the kernel's Python line; an untaken one changes nothing."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc


def _trap_kernel(x: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, xg, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(a, a, 1.0, 64)
    if n > 3:
        asc.trap()  # the trap line
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(xg, a, 64)


KERNELS = {"ascend910b": asc.jit(_trap_kernel), "ascend910": asc.jit(target="ascend910")(_trap_kernel)}


def _trap_line():
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, s in enumerate(f, 1) if s.rstrip().endswith("# the trap line"))


@pytest.mark.parametrize("target", sorted(KERNELS))
def test_trap_untaken_runs(target):
    x = np.arange(64, dtype=np.float32)
    KERNELS[target][2](x, 3)
    np.testing.assert_array_equal(x, np.arange(64, dtype=np.float32) + 1)


@pytest.mark.parametrize("target", sorted(KERNELS))
def test_trap_taken_faults_with_core_pc_and_line(target):
    x = np.zeros(64, np.float32)
    with pytest.raises(asc.KernelFault) as ei:
        KERNELS[target][1](x, 4)
    msg = str(ei.value)
    assert "trap: the kernel executed trap (Ascend C Trap)" in msg, msg
    assert "core0." in msg and " pc 0x" in msg and "`trap`" in msg, msg
    assert f"test_trap.py:{_trap_line()}" in msg, msg
