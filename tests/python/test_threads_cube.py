"""Host threads and the cube (sim/pool.c, sim/exec_cube.c): with fewer cube cores than host
threads each mmad's arithmetic is split into column-panel parts that run on several threads
(two per thread, A unpacked once), and with more cores each core's mmad runs on a worker; the
bytes must not depend on it.  asc.adv.Matmul on shapes that are not multiples of 16 (partial
fractals, tails in M, N and K), float16, bfloat16 and int8 inputs, one and several cores, with
ASC_THREADS = 1, 2, 3: the same output, cycle count, report (JSON) and trace, and the output
close to numpy (float) or equal to it (int8 -> int32)."""
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matmul_adv as ma  # noqa: E402
import test_adv_matmul_quant as mq  # noqa: E402

SHAPES = [(100, 70, 300, 1), (129, 257, 65, 3), (17, 33, 5, 1), (1, 1, 1, 1), (250, 130, 129, 2)]


def _each_thread_count(launch):
    old = os.environ.get("ASC_THREADS")
    outs = []
    try:
        for t in (1, 2, 3):
            os.environ["ASC_THREADS"] = str(t)
            outs.append(launch(t))
    finally:
        if old is None:
            os.environ.pop("ASC_THREADS", None)
        else:
            os.environ["ASC_THREADS"] = old
    return outs


@pytest.mark.parametrize("m,n,k,cores", SHAPES)
@pytest.mark.parametrize("bf16", [False, True])
def test_matmul_same_bytes_any_thread_count(tmp_path, m, n, k, cores, bf16):
    def launch(t):
        trace = tmp_path / f"mm_{t}.json"
        a, b, c, tiling, res = ma.run(m, n, k, cores, bf16=bf16, trace=trace)
        return a, b, c.tobytes(), res.cycles, res.report_json, trace.read_bytes()

    outs = _each_thread_count(launch)
    a, b = outs[0][0], outs[0][1]
    if bf16:
        from pyasc.host import bf16 as hb
        a, b = hb.from_bfloat16(a), hb.from_bfloat16(b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    got = np.frombuffer(outs[0][2], np.float32).reshape(m, n)
    assert np.abs(got - ref).max() <= 1e-5 * max(1.0, np.abs(ref).max())
    assert len(outs[0][5]) > 1000
    for o in outs[1:]:
        assert o[2] == outs[0][2], "output differs across thread counts"
        assert o[3] == outs[0][3], "cycles differ across thread counts"
        assert o[4] == outs[0][4], "report differs across thread counts"
        assert o[5] == outs[0][5], "trace differs across thread counts"


@pytest.mark.parametrize("m,n,k,cores", [(150, 70, 33, 1), (17, 300, 129, 2), (1, 1, 1, 1)])
def test_int8_matmul_same_bytes_any_thread_count(m, n, k, cores):
    outs = _each_thread_count(lambda t: mq.run(m, n, k, cores, 0, 0, out=np.int32))
    for c, acc, _ in outs:
        assert np.array_equal(c, acc)
    assert all(o[0].tobytes() == outs[0][0].tobytes() for o in outs[1:])
