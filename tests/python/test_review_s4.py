"""Adversarial review (silent wrong answers), session 4: each test failed before its fix.

  * pyasc.fuse(): a view (y.reshape(...), y[::2], y[1:]) of a result still pending in the fusion
    scope held no fusion node of its own, so reading it (.numpy(), a non-fused operator such as
    softmax) did not launch the group and read y's device memory before y was computed (zeros),
    and using it as an operand of a fused operator of the same size made it an input of the same
    kernel, read from GM before the kernel stored y: host/fusion.py materialize() now walks the
    view's bases, and record() launches the group before such a view is read."""
import numpy as np
import pytest

import pyasc

pytestmark = pytest.mark.libasc


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("n", [1, 7, 1001, 5000])
def test_fuse_view_of_pending_read_by_numpy(dt, n):
    x = (np.arange(n) % 50).astype(dt)
    X = pyasc.from_numpy(x)
    with pyasc.fuse():
        y = X + 1.0
        v = y[::2]
        r = y.reshape(-1, 1)
        np.testing.assert_array_equal(v.numpy(), (x + dt(1))[::2])
        np.testing.assert_array_equal(r.numpy().ravel(), x + dt(1))


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("n", [1, 7, 1001, 5000])
def test_fuse_view_of_pending_as_fused_operand(dt, n):
    x = (np.arange(n) % 50).astype(dt)
    X = pyasc.from_numpy(x)
    with pyasc.fuse():
        y = X + 1.0
        w = y.reshape(-1, 1) * 2.0                       # same size: the same group
        u = pyasc.host.ops.add(y.reshape(1, -1), X.reshape(1, -1))
        t = pyasc.host.ops.relu(y.reshape(-1, 1) - 3.0)
    np.testing.assert_array_equal(w.numpy().ravel(), (x + dt(1)) * dt(2))
    np.testing.assert_array_equal(u.numpy().ravel(), (x + dt(1)) + x)
    np.testing.assert_array_equal(t.numpy().ravel(), np.maximum((x + dt(1)) - dt(3), 0))


def test_fuse_view_of_pending_read_by_non_fused_op():
    x = np.linspace(-1, 1, 12).astype(np.float32)
    X = pyasc.from_numpy(x)
    with pyasc.fuse():
        y = X * 3.0
        z = pyasc.host.ops.softmax(y.reshape(3, 4))
    a = (3 * x).reshape(3, 4).astype(np.float64)
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(z.numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5)


def test_fuse_view_of_pending_on_a_queued_stream():
    x = np.arange(300, dtype=np.float32)
    X = pyasc.from_numpy(x)
    s = pyasc.stream.create_stream()
    with s:
        with pyasc.fuse():
            y = X + 1.0
            v = y[3:]
        got = v.numpy()
    np.testing.assert_array_equal(got, (x + 1)[3:])
