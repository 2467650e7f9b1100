"""asc.get_sys_workspace / asc.set_sys_workspace (python/pyasc/language/sys_workspace.py): a
launch-placed GM workspace of RESERVED_WORKSPACE bytes (16 MiB on the split ascend910b), shared by
every core of the launch and by both programs of a mix kernel; set_sys_workspace replaces it."""
import numpy as np
import pytest

import asc
from pyasc.compiler.errors import CompileError
from pyasc.language import sys_workspace

from kernels_sys_workspace import k_ws_mix, k_ws_neighbour, k_ws_set, k_ws_set_in_if

pytestmark = pytest.mark.libasc
MIB = 1 << 20


@pytest.mark.parametrize("blocks,n,off", [(1, 64, 0), (8, 256, 0), (4, 128, 16 * MIB - 4 * 128)])
def test_neighbour_through_workspace(blocks, n, off):
    """The last case writes the workspace's last 512 bytes: it is (at least) 16 MiB."""
    rng = np.random.default_rng(n)
    x = rng.integers(0, 256, blocks * n, dtype=np.uint8)
    z = np.zeros_like(x)
    k_ws_neighbour[blocks](x, z, n, off, check_races=True)
    np.testing.assert_array_equal(z, np.roll(x.reshape(blocks, n), -1, axis=0).reshape(-1))


def test_past_the_workspace_faults():
    x = np.zeros(32, np.uint8)
    with pytest.raises(Exception, match="past the end of argument '__pyasc_sys_workspace' .16777216 B"):
        k_ws_neighbour[1](x, np.zeros_like(x), 32, 16 * MIB + 2 * MIB)


def test_size_from_the_profile_kind():
    from pyasc.compiler import targets
    assert sys_workspace.sys_workspace_bytes(targets.load("ascend910b")) == 16 * MIB
    assert sys_workspace.sys_workspace_bytes(targets.load("teach")) == 2 * MIB


def test_set_sys_workspace_replaces_it():
    x = np.arange(96, dtype=np.uint8)
    w = np.zeros(96, np.uint8)
    k_ws_set[1](x, w, 96)
    np.testing.assert_array_equal(w, x)


def test_mix_kernel_aiv_only_user():
    n = 64
    x = np.arange(2 * 2 * n, dtype=np.uint8)
    z = np.zeros_like(x)
    k_ws_mix[2](x, z, n)
    np.testing.assert_array_equal(z, x)
    c = k_ws_mix.last_compiled
    assert c.kernel_kind == "mix" and [a[:2] for a in c.args][-1] == ("__pyasc_sys_workspace", "sysws")
    assert ".arg __pyasc_sys_workspace, gm, u8" in c.asm


def test_set_inside_if_rejected():
    with pytest.raises(CompileError, match="top level"):
        k_ws_set_in_if[1](np.zeros(16, np.uint8), 4)
