"""Ten buggy kernels of the kinds users write (tests/python/kernels_buggy.py), each reported at
its Python line (the line marked `# BUG`): a tile loop one tile too long writes past its output
(memcheck, on by default); a deque before any enque; a missing free_tensor (the next alloc_tensor
waits for ever: a deadlock naming that line); a tensor read after its free_tensor and a count in
bytes instead of elements (compiled as the card runs them, with a warning at the line); a GM
stride of two tiles (an out-of-allocation write); a cross-core wait no one sets (a deadlock);
a missing flag between MTE2 and V with and without insert_sync (the race, under sanitize); a
flag left set at the end (synccheck)."""
import os

import numpy as np
import pytest

import asc
from pyasc.compiler.errors import CompileError
from pyasc.runtime import launch

import kernels_buggy as kb

pytestmark = pytest.mark.libasc
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels_buggy.py")


def _line(fn_name):
    """The `# BUG` line inside fn_name's body."""
    lines = open(SRC, encoding="utf-8").read().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"def {fn_name}("))
    return next(i + 1 for i in range(start, len(lines)) if "# BUG" in lines[i])


H, F = np.float16, np.float32
CASES = [   # kernel, dtype, tiles, launch options, raises (or "warning"), text
    ("b1_tail_overrun", H, 4, {}, asc.KernelFault, "memcheck: GM write of 512 B"),
    ("b2_deque_before_enque", H, 1, {}, CompileError, "deque on an empty TQue"),
    ("b3_missing_free", H, 4, {}, asc.KernelFault, "deadlock"),
    ("b4_use_after_free", H, 1, {}, "warning", "is used after its free_tensor (at kernels_buggy.py:"),
    ("b5_bytes_as_count", F, 1, {}, "warning", "touches 4096 bytes of a Tensor[float32] of 256 elements"),
    ("b6_wrong_stride", F, 4, {}, asc.KernelFault, "runs 992 B past its end"),
    ("b7_cross_core_wait", H, 1, {}, asc.KernelFault, "waits for cross-core flag 3, whose counter stays 0"),
    ("b8_missing_barrier", H, 1, {"sanitize": "racecheck"}, None, "race (RAW): VECTOR reads UB"),
    ("b9_manual_no_sync", H, 1, {"sanitize": "racecheck"}, None, "race (RAW): VECTOR reads UB"),
    ("b10_flag_left_set", H, 1, {"sanitize": "synccheck"}, "warning", "is still set at `end`: no wait_flag consumed it"),
]


@pytest.mark.parametrize("name,dtype,tiles,opts,raises,text", CASES, ids=[c[0] for c in CASES])
def test_buggy_kernel_is_reported_at_its_line(name, dtype, tiles, opts, raises, text):
    k = getattr(kb, name)
    x, z = np.ones(1024, dtype), np.zeros(1024, dtype)
    line = _line(name)
    if raises == "warning":
        with pytest.warns(RuntimeWarning) as rec:
            r = k[1](x, z, tiles, max_cycles=10**6, **opts)
        texts = list(r.warnings) + [str(w.message) for w in rec]   # compile warnings; sanitizer reports
        hit = [w for w in texts if text in w]
        assert hit, texts
        assert f"kernels_buggy.py:{line}" in hit[0], (line, hit[0])
        return
    with pytest.raises(Exception) as e:
        k[1](x, z, tiles, max_cycles=10**6, **opts)
    if raises is not None:
        assert type(e.value) is raises, (type(e.value), str(e.value))
    s = str(e.value)
    assert text in s, s
    assert f"kernels_buggy.py:{line}" in s, (line, s)
    assert "Traceback" not in s
