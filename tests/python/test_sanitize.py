"""kernel[n](..., sanitize=...): the compute sanitizer (docs/timing.md "Sanitizers") through pyasc.
memcheck is on for out-of-allocation writes in every launch: `k(x[:10], z[:10], 256)` is a
KernelFault at the Python line naming the argument; sanitize="memcheck" also reports the reads;
initcheck reports a local buffer read before anything wrote it; the repository's kernels run clean
under every check."""
import os
import runpy
import warnings

import numpy as np
import pytest

import asc
from pyasc.compiler.errors import KernelFault, LaunchError
from pyasc.runtime.launch import KernelSanitizerError

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 256


@asc.jit
def k_copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    asc.data_copy(a, xg, n)  # READ
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, a, n)  # WRITE


@asc.jit
def k_uninit(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 2048, N)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, N)
    asc.data_copy(a, xg, N)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.add(c, a, b, N)  # UNINIT
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, c, N)


def _line_of(marker):
    src = open(__file__).read().splitlines()
    return next(i + 1 for i, s in enumerate(src) if s.rstrip().endswith("# " + marker))


def test_slices_too_short_fault_by_default():
    x, z = np.ones(N, np.float32), np.zeros(N, np.float32)
    with pytest.raises(KernelFault) as ei:
        k_copy[1](x[:10], z[:10], N)
    msg = str(ei.value)
    assert "memcheck: GM write of 1024 B" in msg and "argument 'z' (40 B at" in msg, msg
    assert ei.value.line == _line_of("WRITE"), msg
    assert (z[10:] == 0).all()  # nothing past the slice was touched


def test_memcheck_reports_reads_with_argument_and_line():
    x, z = np.ones(N, np.float32), np.zeros(N, np.float32)
    with pytest.raises(KernelSanitizerError) as ei:
        k_copy[1](x[:10], z, N, sanitize="memcheck")
    text = "\n".join(ei.value.findings)
    assert "memcheck: 1 errors" in text
    assert "invalid GM read of 1024 B" in text and "argument 'x' (40 B at" in text, text
    assert f"test_sanitize.py:{_line_of('READ')}" in text, text


def test_short_input_read_warns_by_default():
    """Without sanitize, a read past an input (x holds 10 of the kernel's 256 elements) gave numbers
    from beyond x with no word; it is a RuntimeWarning and a LaunchResult warning at the READ line."""
    x, z = np.ones(N, np.float32), np.zeros(N, np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = k_copy[1](x[:10], z, N)
    msgs = [str(w.message) for w in caught if w.category is RuntimeWarning]
    assert len(msgs) == 1 and msgs == r.warnings, msgs
    assert f"test_sanitize.py:{_line_of('READ')}:" in msgs[0] and "GM read of 1024 bytes" in msgs[0], msgs[0]
    assert "outside the argument it starts in" in msgs[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert k_copy[1](x, z, N).warnings == []     # in bounds: no note


def test_in_bounds_is_clean_under_every_check():
    x, z = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k_copy[1](x, z, N, sanitize="all")
    assert (z == x).all()


def test_initcheck_local_buffer():
    x, z = np.ones(N, np.float32), np.zeros(N, np.float32)
    k_uninit[1](x, z)  # off by default
    with pytest.raises(KernelSanitizerError) as ei:
        k_uninit[1](x, z, sanitize=["initcheck"])
    text = "\n".join(ei.value.findings)
    assert "initcheck: VECTOR" in text and "reads UB [0x800, 0x820), never written in this run" in text, text
    assert "initcheck: 1 errors" in text, text
    assert f"test_sanitize.py:{_line_of('UNINIT')}" in text, text


def test_initcheck_reads_of_allocation_slack():
    # 10 floats = 40 B: extent 64 + 32 = 96 B; reading 24 floats (96 B) stays inside the extent
    # but [64, 96) is its padding block, past the data's last 32-byte block: memcheck reports
    # the read (bytes that are no data), and initcheck the slack nobody wrote (its granule
    # flags cover the whole extent; they once covered only the 40 requested bytes)
    x, z = np.ones(10, np.float32), np.zeros(N, np.float32)
    with pytest.raises(KernelSanitizerError) as ei:
        k_copy[1](x, z, 24, sanitize=["memcheck", "initcheck"])
    text = "\n".join(ei.value.findings)
    assert "memcheck: 1 errors" in text and "reads 32 B of its padding past the data's last 32-byte block" in text, text
    assert "initcheck: 1 errors" in text and "(argument 'x'), never written in this run" in text, text
    k_copy[1](x, z, 16, sanitize=["memcheck", "initcheck"])   # 16 floats: the last data block whole: clean
    assert f"test_sanitize.py:{_line_of('READ')}" in text, text


def test_bad_check_name():
    x, z = np.ones(N, np.float32), np.zeros(N, np.float32)
    with pytest.raises(LaunchError, match="unknown check 'memchek'"):
        k_copy[1](x, z, N, sanitize="memchek")


@pytest.mark.parametrize("name", sorted(os.path.splitext(f)[0] for f in os.listdir(os.path.join(ROOT, "kernels", "pyasc"))
                                        if f.endswith(".py") and not f.startswith("_")))
def test_repository_kernels_clean(name):
    m = runpy.run_path(os.path.join(ROOT, "kernels", "pyasc", name + ".py"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m["run"](sanitize="all")
