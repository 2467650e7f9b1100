"""Read-back of kernel arguments (runtime/launch.py): an array is copied back from GM only when
the kernel may have written its pages (sim.h asc_sim_gm_written, 64 KiB pages, conservative),
and a read-only array is compared only then.  Skipping a copy must never lose a result: every
kernel here writes a different part (in place, only the last element of a 3 MB array, nothing),
on shapes that are not 32-byte multiples, 1-element arrays, f16/f32/int32, 1 and 8 cores, 1 and 2
host threads, each checked against numpy; and the bytes read back are counted, so a launch that
reads back an array the kernel never wrote fails here."""
import warnings

import numpy as np
import pytest

import pyasc._libasc as L
from kernels_gm_written import k_copy_first, k_inc_in_place, k_pad_last, k_set_last

pytestmark = pytest.mark.libasc

DTYPES = [np.float16, np.float32, np.int32]


@pytest.fixture(params=[1, 2], ids=["threads1", "threads2"])
def threads(request, monkeypatch):
    monkeypatch.setenv("ASC_THREADS", str(request.param))
    return request.param


@pytest.fixture
def reads(monkeypatch):
    """Bytes of every asc_sim_gm_read of the launches in the test, in call order."""
    lib = L.lib()
    got, real = [], lib.asc_sim_gm_read

    def counted(sim, addr, dst, n):
        got.append(n)
        return real(sim, addr, dst, n)

    monkeypatch.setattr(lib, "asc_sim_gm_read", counted)
    return got


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    if dt == np.int32:
        return rng.integers(-1000, 1000, n).astype(dt)
    return rng.standard_normal(n).astype(dt)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n,cores", [(1, 1), (1, 8), (3 * 3000 + 5, 1), (40001, 8), (3 * (1 << 18) + 7, 8)])
def test_in_place_update_is_read_back(dt, n, cores, threads, reads):
    x = _data(n, dt, n)
    want = (x + dt(1)).astype(dt)
    k_inc_in_place[cores](x, n)
    np.testing.assert_array_equal(x, want)
    assert reads == [x.nbytes]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n,cores", [(1, 1), (333, 8), (20001, 1)])
def test_untouched_argument_is_not_read_back(dt, n, cores, threads, reads):
    x, y = _data(n, dt, 1), np.zeros(n, dt)
    z = _data(n + 3, dt, 2)
    z0 = z.copy()
    k_copy_first[cores](x, y, z, n)
    np.testing.assert_array_equal(y, x)
    np.testing.assert_array_equal(z, z0)
    assert reads == [y.nbytes]        # x and z were not written: neither is copied back


@pytest.mark.parametrize("cores", [1, 8])
def test_only_the_last_element_of_3mb_is_written(cores, threads, reads):
    n = (3 << 20) // 4 + 3        # 3 MB + 12 B of int32: 49 GM pages, the last one partly
    y = np.arange(n, dtype=np.int32)
    want = y.copy()
    want[-1] = -5
    k_set_last[cores](y, n, -5)
    np.testing.assert_array_equal(y, want)
    assert reads == [y.nbytes]
    y2 = np.zeros(n, np.int32)     # all zero: GM left unbacked, only the written page exists
    k_set_last[cores](y2, n, 9)
    assert y2[-1] == 9 and not y2[:-1].any()


@pytest.mark.parametrize("dt", [np.float16, np.float32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 17, (3 << 20) // 2 + 1])
def test_last_element_by_data_copy_pad(dt, n, threads, reads):
    y = _data(n, dt, 3)
    want = y.copy()
    want[-1] = 7
    k_pad_last[8](y, n)
    np.testing.assert_array_equal(y, want)
    assert reads == [y.nbytes]


def test_read_only_input_never_written_is_not_compared(threads, reads):
    n = 1000
    x, y = _data(n, np.float32, 4), np.zeros(n, np.float32)
    x.flags.writeable = False
    z = np.ones(n, np.float32)
    z.flags.writeable = False
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        r = k_copy_first[8](x, y, z, n)
    assert not [w for w in ws if "read-only" in str(w.message)] and not r.warnings
    np.testing.assert_array_equal(y, x)
    assert reads == [y.nbytes]        # neither read-only array is read to be compared


@pytest.mark.parametrize("cores", [1, 8])
def test_read_only_output_the_kernel_writes_is_warned(cores, threads, reads):
    n = 4099
    y = np.arange(n, dtype=np.int32)
    y.flags.writeable = False
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        r = k_set_last[cores](y, n, -1)
    msg = f"argument 'y': the kernel changed 4 of its {y.nbytes} bytes, but its array is read-only"
    assert any(msg in str(w.message) for w in ws) and any(msg in w for w in r.warnings)
    assert y[-1] == n - 1
    assert reads == [y.nbytes]


def test_views_of_one_buffer(threads, reads):
    """Two arguments in one allocation: the kernel writes the second (y = x[:n] copied into
    buf[m:]); buf[:m] is x, read only; the span is one GM buffer, read back once."""
    n, m = 5000, 70000          # x and y in different 64 KiB pages of the span
    buf = _data(m + n, np.float32, 5)
    want = buf.copy()
    want[m:] = buf[:n]
    k_copy_first[1](buf[:n], buf[m:], np.zeros(3, np.float32), n)
    np.testing.assert_array_equal(buf, want)
    assert reads == [n * 4]     # buf[:n] (pages not written) is skipped, buf[m:] read back
