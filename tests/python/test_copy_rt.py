"""data_copy with a run-time count on GM -> L1 and UB -> UB: Ascend C DataCopy rounds count * sizeof
down to 32 bytes on the card without an error (cannmirror/asc-devkit
impl/basic_api/kernel_operator_data_copy_intf_impl.h); the simulator moves the same bytes and the
launch result and report warn at the copy's Python line (DMA config bit 12, rdown)."""
import numpy as np
import pytest

from kernels_copy_rt import k_l1_rt, k_ub_rt

CAP = 1024


def _line(tag):
    import kernels_copy_rt
    with open(kernels_copy_rt.__file__, encoding="utf-8") as f:
        return next(i for i, s in enumerate(f, 1) if s.rstrip().endswith(f"# the {tag} line"))


@pytest.mark.libasc
@pytest.mark.parametrize("kernel,tag", [(k_l1_rt, "gm->l1"), (k_ub_rt, "ub->ub")])
@pytest.mark.parametrize("n,dt", [(1000, np.float16), (63, np.float32), (1, np.float32), (7, np.int8),
                                  (1024, np.float16), (64, np.float32)])
def test_run_time_count_rounds_down_and_warns(kernel, tag, n, dt):
    x = (np.arange(CAP) % 100 + 1).astype(dt)
    z = np.zeros(CAP, dt)
    r = kernel[1](x, z, n, CAP)
    moved = n * x.itemsize // 32 * 32 // x.itemsize
    ref = np.zeros(CAP, dt)
    ref[:moved] = x[:moved]
    np.testing.assert_array_equal(z, ref)
    if n * x.itemsize % 32:
        assert len(r.warnings) == 1, r.warnings
        w = r.warnings[0]
        assert f"kernels_copy_rt.py:{_line(tag)}:" in w and f"data_copy moved {moved * x.itemsize} bytes" in w, w
        assert "warnings:" in r.report
    else:
        assert r.warnings == [], r.warnings
