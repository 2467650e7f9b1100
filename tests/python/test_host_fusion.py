"""pyasc.fuse() (issue 14 item 5): element-wise eager operators in a fusion scope run as one
generated kernel; results equal the unfused chain bit for bit (same instruction sequences) and
numpy within rounding; the GM bytes of the fused launch (simulator report) are at most a third
of the unfused chain's.  Runs from a temporary directory outside the checkout."""
import numpy as np
import pytest

import pyasc


@pytest.fixture(autouse=True)
def _outside(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def _inputs(dt, n=5003, seed=0):
    r = np.random.default_rng(seed)
    return [r.standard_normal(n).astype(dt) for _ in range(3)]


def _chain(A, B, C):
    t = pyasc.add(A, B)
    t = pyasc.mul(t, C)
    t = pyasc.relu(t)
    t = pyasc.sub(t, 0.5)
    return pyasc.sigmoid(t)


def _ref(a, b, c):
    t = np.maximum((a.astype(np.float64) + b) * c, 0) - 0.5
    return 1 / (1 + np.exp(-t))


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_five_op_chain_is_one_kernel_and_moves_a_third_of_the_bytes(dt):
    a, b, c = _inputs(dt)
    A, B, C = (pyasc.from_numpy(v) for v in (a, b, c))
    pyasc.profiler.start()
    unfused = _chain(A, B, C).numpy()
    p1 = pyasc.profiler.stop(trace=None, print_table=False)
    pyasc.profiler.start()
    with pyasc.fuse() as f:
        y = _chain(A, B, C)
    fused = y.numpy()
    p2 = pyasc.profiler.stop(trace=None, print_table=False)
    assert len(p1.records) == 5 and len(p2.records) == 1
    assert p2.records[0].kernel == "fused_kernel"
    assert np.array_equal(fused, unfused)                        # the same instructions, fused
    tol = 2e-3 if dt == np.float16 else 1e-6
    assert np.abs(fused - _ref(a, b, c)).max() < tol
    unf = sum(r.gm_bytes for r in p1.records)
    fb = sum(r.gm_bytes for r in p2.records)
    assert fb * 3 <= unf, (fb, unf)
    st = f.stats
    assert st["kernels"] == 1 and st["operators"] == 5 and st["gm_bytes_moved"] == fb
    assert st["saved_bytes"] == st["unfused_bytes"] - fb > 0
    assert "saved" in f.report()


def test_live_intermediates_are_written_dead_ones_are_not():
    a, b, c = _inputs(np.float32, n=777, seed=1)
    A, B = pyasc.from_numpy(a), pyasc.from_numpy(b)
    with pyasc.fuse() as f:
        s = pyasc.add(A, B)                                      # kept: written
        t = pyasc.tanh(pyasc.mul(s, 2.0))                        # mul's result dies: not written
        u = pyasc.gelu(t) - s
    assert f.stats["kernels"] == 1 and f.launches[0]["outputs"] == 3
    np.testing.assert_allclose(s.numpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose(t.numpy(), np.tanh(2 * (a + b)), atol=2e-6)
    g = t.numpy().astype(np.float64)
    gel = g / (1 + np.exp(-1.5957691216057308 * (g + 0.044715 * g ** 3)))
    np.testing.assert_allclose(u.numpy(), gel - (a + b), atol=1e-5)


def test_reading_or_a_non_elementwise_op_launches_the_group():
    x = np.linspace(-3, 3, 256, dtype=np.float32).reshape(4, 64)
    X = pyasc.from_numpy(x)
    with pyasc.fuse() as f:
        y = pyasc.relu(X)
        assert np.array_equal(y.numpy(), np.maximum(x, 0))      # read inside: launched now
        z = pyasc.softmax(pyasc.mul(y, 3.0))                     # softmax is not fused
        w = 1.0 - z                                              # scalar on the left (rsubs)
    assert f.stats["kernels"] == 3
    e = np.exp(3 * np.maximum(x, 0) - (3 * np.maximum(x, 0)).max(-1, keepdims=True))
    np.testing.assert_allclose(w.numpy(), 1 - e / e.sum(-1, keepdims=True), atol=1e-6)


def test_a_different_shape_starts_a_new_kernel():
    A = pyasc.from_numpy(np.ones(100, np.float32))
    B = pyasc.from_numpy(np.full(300, 2.0, np.float32))
    with pyasc.fuse() as f:
        y = pyasc.add(A, A)
        z = pyasc.mul(B, B)
    assert f.stats["kernels"] == 2
    assert np.array_equal(y.numpy(), np.full(100, 2, np.float32))
    assert np.array_equal(z.numpy(), np.full(300, 4, np.float32))


# ---- div and erf join the scope; every element-wise eager operator fuses ---------------------
def _erf_ref(x):
    import math
    return np.array([math.erf(float(v)) for v in np.asarray(x, np.float64).reshape(-1)]).reshape(np.shape(x))


def _div_erf_chain(A, B, C):
    q = pyasc.div(A, B)                       # B broadcasts
    e = pyasc.erf(q)
    return q, e, pyasc.div(e, C) + pyasc.div(1.0, q) - q / 3.0   # C broadcasts; scalar on either side


@pytest.mark.parametrize("dt", [np.float32, np.float16])
@pytest.mark.parametrize("shape,bshape,cshape", [((1,), (1,), (1,)), ((37,), (1,), (37,)),
                                                 ((5003,), (5003,), (1,)), ((41, 122), (122,), (41, 1))])
def test_div_and_erf_fuse_bit_identical_to_unfused(dt, shape, bshape, cshape):
    r = np.random.default_rng(sum(shape))
    a = (r.standard_normal(shape) * 2).astype(dt)
    b = (r.uniform(0.5, 2, bshape) * r.choice([-1, 1], bshape)).astype(dt)
    c = (r.uniform(0.5, 2, cshape) * r.choice([-1, 1], cshape)).astype(dt)
    A, B, C = (pyasc.from_numpy(v) for v in (a, b, c))
    pyasc.profiler.start()
    unfused = [t.numpy() for t in _div_erf_chain(A, B, C)]
    p1 = pyasc.profiler.stop(trace=None, print_table=False)
    pyasc.profiler.start()
    with pyasc.fuse() as f:
        outs = _div_erf_chain(A, B, C)
    fused = [t.numpy() for t in outs]
    p2 = pyasc.profiler.stop(trace=None, print_table=False)
    k1 = [x.kernel for x in p1.records]
    k2 = [x.kernel for x in p2.records]
    assert "ext_kernel" in k1 and "fused_kernel" not in k1
    assert k2.count("fused_kernel") == 1 and "ext_kernel" not in k2 and "ew_kernel" not in k2, k2
    assert f.stats["kernels"] == 1 and f.stats["operators"] == 7
    assert f.launches[0]["ops"][:2] == ["div", "erf"]
    for u, v in zip(unfused, fused):
        assert u.dtype == v.dtype == dt
        assert np.array_equal(u.view(np.uint8), v.view(np.uint8))            # bit for bit
    q, e, _ = fused
    # vdiv is correctly rounded in the operands' type; numpy's f16 division (f32 then f16) is too
    assert np.array_equal(q, np.broadcast_to(a / b, shape))
    tol = 2 ** -12 + 5e-7 if dt == np.float16 else 5e-7   # f16: half an ulp below 1, plus the f32 error
    assert np.abs(e.astype(np.float64) - _erf_ref(q)).max() <= tol


EW_OPS = {"add": lambda x, y: pyasc.add(x, y), "sub": lambda x, y: pyasc.sub(x, y),
          "mul": lambda x, y: pyasc.mul(x, y), "div": lambda x, y: pyasc.div(x, y),
          "adds": lambda x, y: x + 0.75, "rsubs": lambda x, y: 0.75 - x, "muls": lambda x, y: x * 1.25,
          "relu": lambda x, y: pyasc.relu(x), "sigmoid": lambda x, y: pyasc.sigmoid(x),
          "tanh": lambda x, y: pyasc.tanh(x), "gelu": lambda x, y: pyasc.gelu(x),
          "erf": lambda x, y: pyasc.erf(x),
          "cast": lambda x, y: pyasc.cast(x, np.float32 if x.dtype == np.float16 else np.float16)}


@pytest.mark.parametrize("dt", [np.float32, np.float16])
@pytest.mark.parametrize("op", sorted(EW_OPS))
def test_every_elementwise_operator_fuses(op, dt):
    """Each element-wise eager operator, applied after a mul in a scope, is part of one fused
    kernel, and gives the unfused operator's bits (a 1037-element input: a tail on several cores)."""
    r = np.random.default_rng(len(op))
    x = r.standard_normal(1037).astype(dt)
    y = (r.uniform(0.5, 2, 1037) * r.choice([-1, 1], 1037)).astype(dt)
    X, Y = pyasc.from_numpy(x), pyasc.from_numpy(y)
    unfused = EW_OPS[op](pyasc.mul(X, Y), Y).numpy()
    pyasc.profiler.start()
    with pyasc.fuse() as f:
        z = EW_OPS[op](pyasc.mul(X, Y), Y)
    fused = z.numpy()
    p = pyasc.profiler.stop(trace=None, print_table=False)
    assert [x.kernel for x in p.records] == ["fused_kernel"]
    assert f.launches[0]["ops"] == ["mul", op]
    assert np.array_equal(unfused.view(np.uint8), fused.view(np.uint8))


@pytest.mark.parametrize("target", ["teach", "ascend910", "ascend910b"])
@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_long_div_erf_chain_splits_into_groups_bit_identical(target, dt):
    """A chain longer than a group's UB tiles (MAX_REGS) is cut into several fused kernels; on
    each profile (teach: 2 small cores, UB 128 KB) the result is the unfused chain's bits."""
    r = np.random.default_rng(3)
    n = 3001
    x = (r.standard_normal(n) * 2).astype(dt)
    y = (r.uniform(0.5, 2, n) * r.choice([-1, 1], n)).astype(dt)
    X, Y = pyasc.from_numpy(x, target), pyasc.from_numpy(y, target)

    def chain():
        t = X
        for _ in range(12):
            t = pyasc.erf(pyasc.div(t, Y)) * 3.0
        return t
    unfused = chain().numpy()
    with pyasc.fuse() as f:
        z = chain()
    assert f.stats["operators"] == 36 and f.stats["kernels"] >= 2
    assert np.array_equal(unfused.view(np.uint8), z.numpy().view(np.uint8))


def _cast_chain(A, B):
    """A, B of one type: a chain through the other type and back (cast nodes in the group)."""
    other = np.float32 if A.dtype == np.float16 else np.float16
    c = pyasc.cast(pyasc.add(A, B), other)
    d = pyasc.relu(c * 2.0)
    e = pyasc.sigmoid(d) - 0.25
    return c, e, pyasc.cast(e, A.dtype) + A


@pytest.mark.parametrize("dt", [np.float32, np.float16])
@pytest.mark.parametrize("n", [1, 37, 5003])
def test_cast_joins_the_scope_mixed_type_group_bit_identical(dt, n):
    r = np.random.default_rng(n)
    a, b = (r.standard_normal(n) * 3).astype(dt), (r.standard_normal(n) * 3).astype(dt)
    A, B = pyasc.from_numpy(a), pyasc.from_numpy(b)
    unfused = [t.numpy() for t in _cast_chain(A, B)]
    pyasc.profiler.start()
    with pyasc.fuse() as f:
        outs = _cast_chain(A, B)
    fused = [t.numpy() for t in outs]
    p = pyasc.profiler.stop(trace=None, print_table=False)
    assert [x.kernel for x in p.records] == ["fused_kernel"]
    assert f.launches[0]["ops"] == ["add", "cast", "muls", "relu", "sigmoid", "adds", "cast", "add"]
    assert set(f.launches[0]["dtype"].split("+")) == {"float16", "float32"}
    for u, v in zip(unfused, fused):
        assert u.dtype == v.dtype and np.array_equal(u.view(np.uint8), v.view(np.uint8))
    other = np.float32 if dt == np.float16 else np.float16
    c = (a + b).astype(other)                   # one rounding each, as the device's vadd and vconv
    assert np.array_equal(fused[0], c)
    d = np.maximum(c * other(2), 0).astype(other)
    ref = 1 / (1 + np.exp(-d.astype(np.float64))) - 0.25
    tol = 2e-3 if other == np.float16 else 1e-6
    assert np.abs(fused[1] - ref).max() < tol


def test_autocast_in_a_fusion_scope_is_one_kernel():
    """f16 autocast converts float32 operands with cast: in a fusion scope those casts join the
    group, so an autocast element-wise chain is one kernel, with the unfused chain's bits."""
    r = np.random.default_rng(5)
    a, b = r.standard_normal(3001).astype(np.float32), r.standard_normal(3001).astype(np.float32)
    A, B = pyasc.from_numpy(a), pyasc.from_numpy(b)

    def chain():
        with pyasc.autocast(dtype=np.float16):
            return pyasc.gelu(pyasc.mul(A, B) + A)
    unfused = chain().numpy()
    with pyasc.fuse() as f:
        y = chain()
    assert f.stats["kernels"] == 1 and f.launches[0]["ops"][:2] == ["cast", "cast"]
    assert y.dtype == np.float16 and np.array_equal(unfused.view(np.uint8), y.numpy().view(np.uint8))
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    t = (a16 * b16 + a16).astype(np.float64)
    g = t / (1 + np.exp(-1.5957691216057308 * (t + 0.044715 * t ** 3)))
    assert np.all(np.abs(y.numpy() - g) <= 2 ** -10 * np.abs(g) + 1e-6)    # the one f16 rounding
