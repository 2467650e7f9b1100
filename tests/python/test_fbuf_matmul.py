"""asc.adv.Matmul's vector quantisation through the fixpipe buffer with a base block wider than the
256 parameters one readout takes (a hand-made TCubeTiling, base_n 512; the host tilings cap base_n at
256): each tile's run-time n_eff columns are read out in parts of 128 chosen at run time, as Ascend
C's Fixpipe (GenFixpipeTiling) does, bit-exact against the numpy model of test_fix_quant.py, on one
and two AI cores, with N tails."""
import os
import sys

import numpy as np
import pytest

import asc
import asc.runtime.config as config

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_fix_quant import model, qword  # noqa: E402
from test_adv_matmul_quant import mm_quant  # noqa: E402

pytestmark = pytest.mark.libasc


@pytest.mark.parametrize("m,n,k,cores", [(16, 600, 64, 1), (20, 1000, 40, 2), (3, 257, 32, 1)])
def test_wide_base_n_vector_quant(m, n, k, cores):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(n)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    w = np.array([qword(float(s)) for s in 2.0 ** rng.uniform(-14, -4, n)], np.uint64)
    c = np.zeros((m, n), np.float16)
    scn = -(-n // cores + 15) // 16 * 16         # columns per core, a multiple of 16
    t = asc.adv.TCubeTiling(m=m, n=n, k_a=k, k_b=k, base_m=16 * -(-m // 16), base_n=512,
                            base_k=32 * -(-k // 32), single_core_m=m, single_core_n=scn, single_core_k=k,
                            used_core_num=-(-n // scn))
    mm_quant[t.used_core_num](a, np.ascontiguousarray(b.T), c, w, t, 0, 2)
    want = model(a.astype(np.int32) @ b.astype(np.int32), None, w, False, np.float16)
    assert np.array_equal(c.view(np.uint16), want.view(np.uint16))
    assert len(np.unique(want)) > 1
