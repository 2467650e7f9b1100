"""Bounded runs through pyasc: a runaway kernel stops at the profile's
max_cycles with a message naming each core's pc and Python line; launches run in slices, so
Ctrl-C (SIGINT) stops the simulation cleanly with KeyboardInterrupt; slicing changes nothing."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import asc
from pyasc.compiler.errors import KernelFault
from pyasc.runtime import launch

import kernels_basic as kb

pytestmark = pytest.mark.libasc
HERE = os.path.dirname(os.path.abspath(__file__))


@asc.jit
def k_spin(z: asc.GlobalAddress, n: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    j = 0
    while j < n:  # SPIN
        j += 0
    zg.set_value(0, j)


def _spin_line():
    src = open(__file__).read().splitlines()
    return next(i + 1 for i, s in enumerate(src) if s.rstrip().endswith("# SPIN"))


def test_explicit_limit_names_line():
    z = np.zeros(8, np.int32)
    with pytest.raises(KernelFault) as ei:
        k_spin[2](z, 1, max_cycles=20000)
    msg = str(ei.value)
    assert "max_cycles=20000 exceeded" in msg
    assert "core0.veccore0 pipe s pc" in msg and "core0.veccore1 pipe s pc" in msg
    assert f"test_bounded.py:{_spin_line()}" in msg or f"test_bounded.py:{_spin_line() + 1}" in msg


def test_max_cycles_range_checked():
    z = np.zeros(8, np.int32)
    with pytest.raises(Exception, match="max_cycles=-1"):
        k_spin[1](z, 1, max_cycles=-1)


def test_slicing_changes_nothing(monkeypatch):
    x = np.arange(64, dtype=np.int32)
    z1, z2 = np.zeros(8, np.int32), np.zeros(8, np.int32)
    r1 = kb.k_control[1](x, z1, 300, 3)
    monkeypatch.setattr(launch, "SLICE_CYCLES", 97)
    r2 = kb.k_control[1](x, z2, 300, 3)
    assert r1.cycles == r2.cycles and r1.cycles > 97 * 3
    assert (z1 == z2).all()


def test_ctrl_c_raises_keyboard_interrupt():
    code = (
        "import signal, sys, numpy as np\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even under a background job\n"
        f"sys.path.insert(0, {HERE!r})\n"
        "import test_bounded as t\n"
        "print('start', flush=True)\n"
        "try:\n"
        "    t.k_spin[1](np.zeros(8, np.int32), 1, max_cycles=10**15)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=os.environ.copy())
    assert p.stdout.readline().strip() == "start"
    time.sleep(2.0)  # compile + a few slices
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("SIGINT did not stop the simulation within 30 s")
    assert p.returncode == 3, err
    assert "interrupted" in out
