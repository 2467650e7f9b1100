"""The report's bound and SCALAR busy % do not count the scalar unit's waiting as scalar work
(run/explain.c, run/report.c; docs/timing.md "Stall accounting and the report"): a one-core
asc.adv.Matmul, whose scalar unit mostly waits on its GM loads of the tiling (lat.scalar_load
each), is not "scalar bound" and its SCALAR busy % is small; a truly scalar-bound loop is
"scalar bound".  tests/cli/test_bound.sh checks the same on assembly kernels."""
import json
import os
import sys

import numpy as np
import pytest

import asc
import asc.runtime.config as config

pytestmark = pytest.mark.libasc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))


def _scalar(res):
    r = res.report_json
    r = json.loads(r) if isinstance(r, str) else r
    return r, r["per_core"][0]["pipes"]["SCALAR"]


def test_one_core_adv_matmul_is_not_scalar_bound():
    import matmul_adv
    a, b, c, tiling, res = matmul_adv.run(256, 256, 256, 1)
    assert np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max() < 1e-3
    r, s = _scalar(res)
    assert not res.bound.startswith("scalar bound"), res.bound
    assert s["busy_pct"] < 10, s
    waited = s["load_store_wait_cycles"]
    # since the lowering rematerialises spilled literals (h-l1reuse) this kernel barely waits on
    # scalar loads; the load-wait attribution itself is tested on an asm load loop in
    # tests/cli/test_bound.sh
    # the wait is lat.scalar_load per executed load: never more than the unit's time
    assert s["busy_cycles"] + waited <= r["total_cycles"]


@asc.jit
def spin(x: asc.GlobalAddress, n: int):
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    s = 1
    for i in range(n):
        s = s * 3 + i
        s = s ^ (s >> 7)
    g.set_value(0, s)


def test_scalar_loop_is_scalar_bound():
    config.set_platform(config.Backend.Model)
    x = np.zeros(8, np.int64)
    res = spin[1](x, 5000)
    r, s = _scalar(res)
    assert res.bound.startswith("scalar bound"), res.bound
    assert s["busy_pct"] > 80, s
    want = 1                                  # int64, wrapping; >> is arithmetic (docs/pyasc.md)
    for i in range(5000):
        want = (want * 3 + i) & (2 ** 64 - 1)
        want -= (want >> 63) << 64
        want ^= want >> 7
    assert int(x[0]) == want
