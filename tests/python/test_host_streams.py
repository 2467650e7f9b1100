"""Review leftovers of the host runtime (issue 14 items 2 and 4): a failing queued operator
poisons its outputs (reading them, or using them in another operator, raises instead of giving
the zeros of an unwritten allocation); stream indexes and clocks are per instance and per
device; reshape follows numpy's -1 and zero-size rules.  Runs outside the checkout."""
import numpy as np
import pytest

import pyasc


@pytest.fixture(autouse=True)
def _outside(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def test_failing_queued_operator_poisons_its_outputs():
    s = pyasc.stream.create_stream()
    x = pyasc.from_numpy(np.ones((2, 9000), np.float32))       # softmax rows are at most 8192
    with s:
        y = pyasc.softmax(x)                                    # queued: no error yet
        z = pyasc.relu(y)
    assert len(s.queue) == 2
    with pytest.raises(pyasc.AscendError) as e:
        s.synchronize()
    assert "softmax" in e.value.message
    for t in (y, y):                                            # every read raises, not only the first
        with pytest.raises(pyasc.AscendError, match="operator that produces it failed"):
            t.numpy()
    with pytest.raises(pyasc.AscendError, match="failed"):
        z.numpy()                                               # depends on y: runs, and refuses
    ok = pyasc.relu(pyasc.from_numpy(np.full(8, -1.0, np.float32)))
    assert np.array_equal(ok.numpy(), np.zeros(8, np.float32))  # the runtime is still usable


def test_streams_are_numbered_per_instance_and_clocked_per_device():
    a, b = pyasc.stream.create_stream(), pyasc.stream.create_stream()
    assert b.index == a.index + 1 and a.clocks == {} and b.clock == 0
    x = pyasc.from_numpy(np.ones(1024, np.float32))
    with a:
        pyasc.add(x, x)
    a.synchronize()
    assert a.clock > 0 and b.clock == 0 and list(a.clocks) == [id(x.device)]


def test_reshape_minus_one_and_zero_sizes():
    t = pyasc.from_numpy(np.arange(24, dtype=np.float32))
    assert t.reshape(2, -1, 3).shape == (2, 4, 3)
    assert np.array_equal(t.reshape(-1, 6).numpy(), np.arange(24, dtype=np.float32).reshape(-1, 6))
    e = pyasc.zeros((0, 5))
    assert e.reshape(5, 0).shape == (5, 0) and e.reshape(0, 7).shape == (0, 7)
    assert e.reshape(-1).shape == (0,)
    for bad in ((0, -1), (-1, -1), (5, -2), (7, -1)):
        with pytest.raises(pyasc.host.ShapeError):
            (e if 0 in bad else t).reshape(*bad)
        with pytest.raises(ValueError):                         # numpy refuses the same shapes
            (np.zeros((0, 5)) if 0 in bad else np.arange(24)).reshape(*bad)
