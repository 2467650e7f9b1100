"""A kernel that places its LocalTensors itself and asks for no insert_sync gets no flags (as in
real pyasc), so its pipes race: here x + y over three loads came back x + 0 with the lanes the add
leaves alone zeroed, silently.  The compiler now names every such unordered pair at the consumer's
line (compiler/passes/sync_check.py), as a RuntimeWarning and in LaunchResult.warnings; a kernel
ordered by insert_sync or by its own flags gets no warning and the right answer."""
import warnings

import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc


@asc.jit
def _body(x, y, z, n, hand):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 512)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, 512)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 512)
    asc.data_copy(a, xg, 512)
    asc.data_copy(c, yg, 512)
    asc.data_copy(d, zg, 512)
    if hand:
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(d, a, c, n)
    if hand:
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, d, 512)


@asc.jit
def k_plain(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
            hand: asc.ConstExpr[bool]):
    _body(x, y, z, n, hand)


@asc.jit(insert_sync=True)
def k_sync(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
           hand: asc.ConstExpr[bool]):
    _body(x, y, z, n, hand)


def _run(k, n, hand, dtype=np.float32):
    x = np.arange(512).astype(dtype)
    y = np.full(512, 2, dtype)
    z0 = np.full(512, 7, dtype)
    z = z0.copy()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        res = k[1](x, y, z, n, hand)
    want = z0.copy()
    want[:n] = x[:n] + y[:n]
    return z, want, res, [str(w.message) for w in got if issubclass(w.category, RuntimeWarning)]


def test_unsynchronised_kernel_is_named():
    z, want, res, ws = _run(k_plain, 77, False)
    assert not np.array_equal(z, want)          # the race the card has too
    race = [w for w in ws if "no set_flag/wait_flag or barrier orders them" in w]
    assert race and race == [w for w in res.warnings if w in race]
    src = __file__
    # the consumers: the add (after three MTE2 loads) and the store (after the add)
    lines = {w.split(":")[1] for w in race if w.startswith(src)}
    body = open(src).read().splitlines()
    add_line = str(1 + next(i for i, t in enumerate(body) if t.strip() == "asc.add(d, a, c, n)"))
    store_line = str(1 + next(i for i, t in enumerate(body) if t.strip() == "asc.data_copy(zg, d, 512)"))
    assert lines == {add_line, store_line}
    assert "pipe V here may use bytes pipe MTE2" in " ".join(race)
    assert "warning" in res.report and "insert_sync=True" in res.report


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n", [1, 77, 512])
def test_ordered_kernels_are_right_and_quiet(dtype, n):
    for k, hand in ((k_sync, False), (k_plain, True)):
        z, want, res, ws = _run(k, n, hand, dtype)
        np.testing.assert_array_equal(z, want)
        assert not [w for w in ws + res.warnings if "orders them" in w]
