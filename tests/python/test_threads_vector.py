"""Host threads and vector work (sim/pool.c, sim/exec_vector.c): a vector instruction's data
pass may run on a worker thread, so library kernels on several cores must give the same bytes
with 1, 2 and 3 host threads: the output, the cycle count, the report (JSON) and the trace.
Rows are longer than 512 elements, so their vector instructions go to workers (VEC_DEFER_LANES).
The kernels cover reductions (counter-mode trees), broadcasts, exp, rsqrt, muls/adds,
f16 <-> f32 conversions and masked tail repeats; the threads come from ASC_THREADS, which
every simulation reads when it is created (AscSimDesc.threads 0)."""
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))

import norm as nm  # noqa: E402
import softmax as sm  # noqa: E402


def _runs(tmp_path, name, launch):
    """(output bytes, cycles, report JSON, trace bytes) for ASC_THREADS = 1, 2, 3."""
    old = os.environ.get("ASC_THREADS")
    outs = []
    try:
        for t in (1, 2, 3):
            os.environ["ASC_THREADS"] = str(t)
            trace = tmp_path / f"{name}_{t}.json"
            y, res = launch(trace)
            outs.append((y.tobytes(), res.cycles, res.report_json, trace.read_bytes()))
    finally:
        if old is None:
            os.environ.pop("ASC_THREADS", None)
        else:
            os.environ["ASC_THREADS"] = old
    return outs


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_softmax_same_bytes_any_thread_count(tmp_path, dtype):
    x = (np.random.default_rng(5).standard_normal((37, 1500)) * 3).astype(dtype)

    def launch(trace):
        y = sm.softmax(x, cores=6, trace=trace)
        return y, sm.softmax_kernel_off.last_result

    outs = _runs(tmp_path, "softmax", launch)
    e = np.exp(x.astype(np.float64) - x.astype(np.float64).max(-1, keepdims=True))
    ref = e / e.sum(-1, keepdims=True)
    got = np.frombuffer(outs[0][0], dtype).reshape(x.shape).astype(np.float64)
    assert np.abs(got - ref).max() < (2e-3 if dtype == np.float16 else 1e-5)
    assert len(outs[0][3]) > 1000
    for o in outs[1:]:
        assert o[1] == outs[0][1], "cycles differ across thread counts"
        assert o[0] == outs[0][0], "output differs across thread counts"
        assert o[2] == outs[0][2], "report differs across thread counts"
        assert o[3] == outs[0][3], "trace differs across thread counts"


def test_layernorm_same_bytes_any_thread_count(tmp_path):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((29, 1000)).astype(np.float16)
    g = rng.standard_normal(1000).astype(np.float16)
    b = rng.standard_normal(1000).astype(np.float16)

    def launch(trace):
        y = nm.layernorm(x, g, b, cores=5, trace=trace)
        return y, nm.norm_kernel.last_result

    outs = _runs(tmp_path, "layernorm", launch)
    got = np.frombuffer(outs[0][0], np.float16).reshape(x.shape).astype(np.float64)
    assert np.abs(got - nm.reference_layernorm(x, g, b)).max() < 2e-2
    for o in outs[1:]:
        assert o[1] == outs[0][1], "cycles differ across thread counts"
        assert o[0] == outs[0][0], "output differs across thread counts"
        assert o[2] == outs[0][2], "report differs across thread counts"
        assert o[3] == outs[0][3], "trace differs across thread counts"
