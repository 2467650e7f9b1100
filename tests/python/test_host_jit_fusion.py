"""The compiler's own fusion of element-wise eager chains at -O2 (issue 14 item 5): a host function
of eager operators under @pyasc.jit, called with AscendTensors, runs its body in a fusion scope at
opt_level >= 2 (the default): a five-operator chain is one kernel (one profiler row) whose GM bytes
are at most a third of the unfused chain's, and its result equals the unfused chain bit for bit and
numpy.  At -O0/-O1 each operator launches on its own; eager operators outside such a function are
unchanged (one row each).  Runs from a temporary directory outside the checkout."""
import numpy as np
import pytest

import pyasc
from pyasc.runtime import config

pytestmark = pytest.mark.libasc


@pytest.fixture(autouse=True)
def _outside(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def chain(a, b, c):
    t = pyasc.add(a, b)
    t = pyasc.mul(t, c)
    t = pyasc.sub(t, 0.25)
    t = pyasc.relu(t)
    return pyasc.mul(t, 3.0)


def ref(a, b, c, dt):                 # the same roundings as the device: one per operator, in dt
    t = (a + b).astype(dt)
    t = (t * c).astype(dt)
    t = (t - dt(0.25)).astype(dt)
    t = np.maximum(t, dt(0))
    return (t * dt(3.0)).astype(dt)


def _run(fn, *args):
    pyasc.profiler.start()
    y = fn(*args)
    out = y.numpy()
    p = pyasc.profiler.stop(trace=None, print_table=False)
    return out, p.records


@pytest.mark.parametrize("dt,n", [(np.float32, 5003), (np.float16, 1029)])
def test_jit_host_function_fuses_at_O2(dt, n):
    rng = np.random.default_rng(n)
    a, b, c = (rng.standard_normal(n).astype(dt) for _ in range(3))
    A, B, C = (pyasc.from_numpy(v) for v in (a, b, c))
    o2 = pyasc.jit(chain)                                  # default level: 2
    o1 = pyasc.jit(opt_level=1)(chain)
    eager, r0 = _run(chain, A, B, C)                       # outside any jit function: unchanged
    fused, r2 = _run(o2, A, B, C)
    plain, r1 = _run(o1, A, B, C)
    assert len(r0) == 5 and len(r1) == 5 and len(r2) == 1
    assert r2[0].kernel == "fused_kernel"
    assert np.array_equal(fused, eager) and np.array_equal(plain, eager)
    assert np.array_equal(fused, ref(a, b, c, dt))
    unf, fb = sum(r.gm_bytes for r in r0), sum(r.gm_bytes for r in r2)
    assert fb * 3 <= unf, (fb, unf)
    f = o2.last_fusion
    assert f.stats["kernels"] == 1 and f.stats["operators"] == 5 and f.stats["gm_bytes_moved"] == fb
    assert f.stats["saved_bytes"] == f.stats["unfused_bytes"] - fb > 0 and "saved" in f.report()
    assert o1.last_fusion is None
    with config.opt_level(0):                              # the process-wide level counts too
        _, r = _run(o2, A, B, C)
    assert len(r) == 5 and o2.last_fusion is None


def test_jit_host_function_with_non_elementwise_ops():
    """A softmax between two chains launches the first chain's group, runs, then the second chain
    fuses; several results are all written."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 129)).astype(np.float32)
    X = pyasc.from_numpy(x)

    @pyasc.jit
    def block(x):
        h = pyasc.relu(pyasc.mul(pyasc.add(x, 1.0), 2.0))
        s = pyasc.softmax(h)
        return h, pyasc.sub(pyasc.mul(s, 4.0), 1.0)

    pyasc.profiler.start()
    h, y = block(X)
    hv, yv = h.numpy(), y.numpy()
    recs = pyasc.profiler.stop(trace=None, print_table=False).records
    assert [r.kernel == "fused_kernel" for r in recs].count(True) == 2 and len(recs) == 3
    hr = np.maximum((x + np.float32(1)) * np.float32(2), 0)
    assert np.array_equal(hv, hr)
    e = np.exp(hr.astype(np.float64) - hr.max(-1, keepdims=True))
    np.testing.assert_allclose(yv, 4 * e / e.sum(-1, keepdims=True) - 1, atol=1e-5)
    assert block.last_fusion.stats["kernels"] == 2


def test_jit_kernels_are_still_kernels():
    """pyasc.jit of a kernel (GlobalAddress parameters) is still launched as kernel[cores](...);
    calling it directly is the same error as before, also with AscendTensor arguments."""
    import asc

    @pyasc.jit
    def k(x: asc.GlobalAddress, n: int):
        pass

    assert isinstance(k, asc.JITFunction) if hasattr(asc, "JITFunction") else True
    with pytest.raises(Exception, match="launch it as"):
        k(pyasc.from_numpy(np.zeros(4, np.float32)), 4)
    with pytest.raises(Exception, match="launch it as"):
        pyasc.jit(chain)(np.zeros(4, np.float32), 1, 2)      # numpy arguments: not a host call


def test_jit_host_function_fuses_div_and_erf():
    def f(a, b):
        return pyasc.erf(pyasc.div(a, b)) / b
    rng = np.random.default_rng(7)
    for dt in (np.float32, np.float16):
        a = rng.standard_normal(5003).astype(dt)
        b = rng.uniform(0.5, 2, 5003).astype(dt)
        A, B = pyasc.from_numpy(a), pyasc.from_numpy(b)
        eager, r0 = _run(f, A, B)
        fused, r2 = _run(pyasc.jit(f), A, B)
        assert [r.kernel for r in r0] == ["ext_kernel"] * 3
        assert [r.kernel for r in r2] == ["fused_kernel"]
        assert np.array_equal(fused.view(np.uint8), eager.view(np.uint8))
