"""initcheck through the cube path (docs/timing.md "Sanitizers"): an L1 -> L0A/L0B load of L1
never written carries "not defined" into L0A/L0B, mmad into the L0C outputs that depend on it
(A's rows, B's columns, only k < the mmad's k), and the readout that reads such an output
reports it at its Python line; padding that never reaches an output is no error (the tails of
asc.adv.Matmul, which leaves the last fractal row's padding of an L1 tile unwritten)."""
import numpy as np
import pytest

import asc
from pyasc.runtime.launch import KernelSanitizerError

pytestmark = pytest.mark.libasc
F = 16


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_cube(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, arows: int, brows: int, m: int,
           k: int, fm: int):
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c)
    h = asc.float16
    a1 = asc.LocalTensor(h, asc.TPosition.A1, 0, F * F)
    b1 = asc.LocalTensor(h, asc.TPosition.B1, 2048, F * F)
    a2 = asc.LocalTensor(h, asc.TPosition.A2, 0, F * F)
    b2 = asc.LocalTensor(h, asc.TPosition.B2, 0, F * F)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, F * F)
    # only the first arows rows of A (m) and brows rows of B (k) reach L1: one 32 B granule each
    asc.data_copy(a1, ag, asc.DataCopyParams(arows, 1, 0, 0))
    asc.data_copy(b1, bg, asc.DataCopyParams(brows, 1, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 0, 0, 0, False))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 0, 0, 0, True))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, F, k))
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(F, fm, 0, F))  # FIX


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_acc(a: asc.GlobalAddress, c: asc.GlobalAddress):
    ag = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    cg.set_global_buffer(c)
    h = asc.float16
    a1 = asc.LocalTensor(h, asc.TPosition.A1, 0, F * F)
    a2 = asc.LocalTensor(h, asc.TPosition.A2, 0, F * F)
    b2 = asc.LocalTensor(h, asc.TPosition.B2, 0, F * F)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, F * F)
    asc.data_copy(a1, ag, asc.DataCopyParams(F, 1, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 0, 0, 0, False))
    asc.load_data(b2, a1, asc.LoadData2DParams(0, 1, 0, 0, 0, True))
    asc.set_flag(asc.HardEvent.MTE1_M, 0)
    asc.wait_flag(asc.HardEvent.MTE1_M, 0)
    asc.mmad(c1, a2, b2, asc.MmadParams(F, F, F, 0, 0, 0, False))  # accumulates into L0C never written
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(F, F, 0, F))  # ACC


def _line_of(marker):
    src = open(__file__).read().splitlines()
    return next(i + 1 for i, s in enumerate(src) if s.rstrip().endswith("# " + marker))


def _run(arows, brows, m, k, fm):
    rng = np.random.default_rng(1)
    a = (rng.random((F, F)) - 0.5).astype(np.float16)
    b = (rng.random((F, F)) - 0.5).astype(np.float16)
    c = np.zeros((F, F), np.float32)
    k_cube[1](a, b, c, arows, brows, m, k, fm, sanitize="all")
    ref = a[:m, :k].astype(np.float64) @ b[:k].astype(np.float64)
    np.testing.assert_allclose(c[:fm], ref[:fm], rtol=1e-3, atol=1e-3)


def test_padding_not_read_out_is_clean():
    _run(F, F, F, F, F)      # all written
    _run(9, F, 9, F, 9)      # A rows 9..15 never written: mmad m = 9, fixpipe m = 9
    _run(F, 5, F, 5, F)      # B rows (k) 5..15 never written: mmad k = 5 reads none of them
    _run(9, F, F, F, 9)      # mmad m = 16 computes C rows 9..15 from them; the fixpipe reads 9 rows


@pytest.mark.parametrize("arows,brows,m,k,fm", [(9, F, F, F, F), (F, 5, F, F, F), (F, 5, F, 6, 4)])
def test_never_written_l1_reaching_the_output_fails_at_the_fixpipe(arows, brows, m, k, fm):
    with pytest.raises(KernelSanitizerError) as ei:
        _run(arows, brows, m, k, fm)
    text = "\n".join(ei.value.findings)
    assert "initcheck: 1 errors" in text, text
    assert "initcheck: FIXP `fix_l0c_to_out.f32" in text, text
    assert "reads L0C [0x" in text and "computed from data never written in this run" in text, text
    assert f"test_sanitize_cube.py:{_line_of('FIX')}" in text, text
    assert "load_l1_to_l0" not in text and "`mmad" not in text, text


@pytest.mark.parametrize("trans_a,trans_b,bf16", [(False, False, False), (True, True, False), (False, True, True),
                                                  (True, False, False)])
@pytest.mark.parametrize("m,n,k", [(100, 72, 40), (37, 45, 29), (1, 1, 1), (17, 9, 300)])
def test_adv_matmul_tails_clean_under_every_check(m, n, k, trans_a, trans_b, bf16):
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "pyasc"))
    import matmul_adv
    a, b, c, t, res = matmul_adv.run(m, n, k, 1, trans_a=trans_a, trans_b=trans_b, bf16=bf16, sanitize="all")
    assert c.shape == (m, n) and np.isfinite(c).all()
    if not bf16:
        ref = a.astype(np.float64) @ b.astype(np.float64)
        np.testing.assert_allclose(c, ref, rtol=2e-3, atol=2e-3)


def test_adv_matmul_batch_tails_clean_under_every_check():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "pyasc"))
    import matmul_batch
    a, b, c, res = matmul_batch.run(3, 37, 45, 29, 2, sanitize="all")
    np.testing.assert_allclose(c, matmul_batch.reference(a, b), rtol=2e-3, atol=2e-3)


def test_accumulating_into_never_written_l0c_fails_at_the_fixpipe():
    a = np.ones((F, F), np.float16)
    with pytest.raises(KernelSanitizerError) as ei:
        k_acc[1](a, np.zeros((F, F), np.float32), sanitize="initcheck")
    text = "\n".join(ei.value.findings)
    assert "initcheck: 1 errors" in text and "initcheck: FIXP `fix_l0c_to_out.f32" in text, text
    assert "reads L0C [0x0, 0x40), computed from data never written in this run" in text, text
    assert f"test_sanitize_cube.py:{_line_of('ACC')}" in text, text
