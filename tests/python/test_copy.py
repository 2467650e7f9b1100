"""DataCopy with counts that are not 32-byte multiples and DataCopyPad, against numpy models of
what Ascend C does on the card (cannmirror/asc-devkit: DataCopy rounds count*sizeof down to 32 B,
kernel_operator_data_copy_intf_impl.h; DataCopyPad, dav_c220/kernel_operator_data_copy_impl.h)."""
import warnings

import numpy as np
import pytest

from kernels_copy import k_copy_count, k_copy_count_rt, k_copy_pad, k_pad_bad_len, k_xyx_tque


@pytest.mark.parametrize("n,dt", [(1001, np.float32), (4097, np.float32), (3, np.float32), (777, np.float16),
                                  (4096, np.float32)])
def test_tque_xyx_tails(n, dt):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dt)
    y = rng.standard_normal(n).astype(dt)
    z = np.zeros(n, dt)
    r = k_xyx_tque[16](x, y, z, n)
    ref = ((x * y).astype(dt) + x).astype(dt)
    np.testing.assert_array_equal(z, ref)
    # a warning wherever a burst was padded: exactly when some tile's bytes are not 32 B multiples
    per = -(-n // 16)
    lens = [min(256, min(per, n - c * per) - t * 256) for c in range(16) for t in range(-(-max(0, min(per, n - c * per)) // 256))]
    padded = any(m * x.itemsize % 32 for m in lens if m > 0)
    assert bool(r.warnings) == padded
    for w in r.warnings:
        assert "kernels_copy.py:3" in w and "warning: data_copy_pad padded a burst" in w
    if padded:
        assert "warnings:" in r.report


@pytest.mark.parametrize("n,dt", [(1000, np.float16), (63, np.float32), (1, np.float32), (16, np.float16),
                                  (77, np.int8), (1024, np.float16)])
@pytest.mark.parametrize("kernel", [k_copy_count, k_copy_count_rt])
def test_data_copy_count_rounds_down(kernel, n, dt):
    x = (np.arange(n) % 100 + 1).astype(dt)
    z = np.zeros(n, dt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = kernel[1](x, z, n)
    # the run's truncation notes are Python RuntimeWarnings too, not only LaunchResult.warnings
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == r.warnings
    moved = n * x.itemsize // 32 * 32 // x.itemsize     # Ascend C: blockLen = count*size / 32
    ref = np.zeros(n, dt)
    ref[:moved] = x[:moved]
    np.testing.assert_array_equal(z, ref)
    if n * x.itemsize % 32:
        assert len(r.warnings) == 2, r.warnings          # the load and the store
        assert f"moved {moved * x.itemsize} of {n * x.itemsize} bytes" in r.warnings[0]
        assert "kernels_copy.py:" in r.warnings[0]
    else:
        assert r.warnings == []


def _pad_model(x, nburst, blen, gmgap, lpad, rpad, is_pad, value):
    """UB bytes after DataCopyPad GM -> UB with dst_stride 1 block (model of the doc's rules)."""
    dt = x.dtype
    sz = dt.itemsize
    ub = np.zeros(4096 * 4 // sz, dt)
    foot = -(-(lpad + blen + rpad) * sz // 32) * 32 // sz
    step = foot + 32 // sz
    for k in range(nburst):
        seg = x[k * (blen + gmgap):k * (blen + gmgap) + blen]
        fill = np.array(value, dt) if is_pad else seg[0]
        burst = np.full(foot, fill, dt)
        burst[lpad:lpad + blen] = seg
        ub[k * step:k * step + foot] = burst
    return ub


@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("nburst,blen,gmgap,lpad,rpad,is_pad,value", [
    (1, 20, 0, 0, 0, False, 0), (3, 7, 2, 0, 0, False, 0), (2, 5, 0, 1, 2, True, 9.0),
    (4, 8, 1, 0, 0, True, -1.0), (1, 1, 0, 0, 0, False, 0), (2, 13, 3, 2, 0, True, 3.0),
    # 4 KB and more: the copy runs on a host worker thread (sim/exec_dmapad.c), pads included
    (2, 1500, 3, 2, 5, True, 3.0), (2, 1500, 0, 1, 0, False, 0)])
def test_data_copy_pad_gm_to_ub(dt, nburst, blen, gmgap, lpad, rpad, is_pad, value):
    x = (np.arange(1, max(200, nburst * (blen + gmgap) + 1)) * 3 % 97).astype(dt)
    z = np.full(4096 * 4 // x.itemsize, 7, dt)
    r = k_copy_pad[1](x, z, nburst, blen, gmgap, lpad, rpad, is_pad, value)
    np.testing.assert_array_equal(z, _pad_model(x, nburst, blen, gmgap, lpad, rpad, is_pad, value))
    assert bool(r.warnings) == bool((lpad + blen + rpad) * x.itemsize % 32)


def test_data_copy_pad_errors():
    from asc import CompileError
    with pytest.raises(CompileError, match="multiple of sizeof"):
        k_pad_bad_len[1](np.zeros(8, np.float32))
