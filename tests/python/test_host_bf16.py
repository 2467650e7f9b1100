"""pyasc.autocast(dtype=bfloat16) and the host's bf16 helpers (python/pyasc/host/bf16.py) against a
numpy reference that rounds to bf16 on its own terms (float64 arithmetic, not bit tricks):

  rb(x) = rint(x / q) * q, q = 2**max(e - 8, -133) where x = m * 2**e, 0.5 <= |m| < 1
          (8 significant bits; below 2**-126 bf16 is subnormal with spacing 2**-133), np.rint
          rounding half to even; |rb(x)| >= 2**128 is inf.

Element-wise operators under bf16 autocast compute in float32 on bf16 values and round once,
so for add, sub, mul of these inputs (whose float32 results are exact) the device equals
rb(exact) bit for bit; div, the transcendental ones and the row operators are within one bf16
ulp of rb(float64 reference) plus the float32 kernel's own error; matmul (bf16 on the cube,
float32 accumulation, one rounding) within one bf16 ulp plus the float32 accumulation bound."""
import os
import sys

import numpy as np
import pytest

import pyasc
from pyasc.host import bf16

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import cast as ck  # noqa: E402


def rb(x):
    x = np.asarray(x, np.float64)
    out = np.array(x, copy=True)
    fin = np.isfinite(x) & (x != 0)
    _, e = np.frexp(x[fin])
    q = np.ldexp(1.0, np.maximum(e - 8, -133))
    r = np.rint(x[fin] / q) * q
    r[np.abs(r) >= 2.0 ** 128] = np.inf * np.sign(r[np.abs(r) >= 2.0 ** 128])
    out[fin] = r
    return out


def ulp(x):
    """One bf16 ulp at |x| (the spacing of the 8-bit significand; 2**-133 at the bottom)."""
    x = np.abs(np.asarray(x, np.float64))
    _, e = np.frexp(np.where(x == 0, 1e-40, x))
    return np.ldexp(1.0, np.maximum(e - 8, -133))


def dev(t):
    """A device tensor's values as float64 (bf16 bits widened)."""
    assert bf16.is_bf16(t.dtype), t.dtype
    return bf16.from_bfloat16(t.numpy()).astype(np.float64)


def test_host_helpers_match_reference():
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2 ** 32, 200000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[np.isfinite(x)]
    x = np.concatenate([x, np.float32([0.0, -0.0, 1.00390625, 1.01171875, 3.3961776e38, 3.4e38, 1e-45,
                                       -1.1754942e-38, np.inf, -np.inf])])
    b = pyasc.utils.to_bfloat16(x)
    assert b.dtype == np.uint16 and bf16.is_bf16(b.dtype)
    got = pyasc.utils.from_bfloat16(b).astype(np.float64)
    want = rb(x)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert same.all(), (x[~same][:5], got[~same][:5], want[~same][:5])
    assert np.signbit(got[np.float32(x) == 0]).tolist() == np.signbit(x[x == 0]).tolist()
    n = pyasc.utils.to_bfloat16(np.float32([np.nan, -np.nan]))
    assert np.isnan(pyasc.utils.from_bfloat16(n)).all()
    # from_bfloat16 is exact: every bf16 pattern's value is the float32 of its bits << 16
    allb = np.arange(65536, dtype=np.uint16)
    v = pyasc.utils.from_bfloat16(allb)
    assert np.array_equal(v.view(np.uint32) >> 16, allb.astype(np.uint32))


@pytest.mark.parametrize("target", ["ascend910b", "teach"])
@pytest.mark.parametrize("n", [1, 17, 5003])
def test_device_cast_bf16(target, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    b = ck.cast_bf16(x, True, target=target, cores=3)
    assert np.array_equal(pyasc.utils.from_bfloat16(b).astype(np.float64), rb(x))
    f = ck.cast_bf16(b, False, target=target)
    assert np.array_equal(f.astype(np.float64), rb(x))


def _pair(rng, shape, scale=1.0):
    a = (rng.standard_normal(shape) * scale).astype(np.float32)
    return a, pyasc.from_numpy(a)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (37, 70, 45), (130, 20, 257), (16, 300, 3)])
def test_autocast_bf16_matmul(m, k, n):
    rng = np.random.default_rng(m * k + n)
    a, A = _pair(rng, (m, k))
    b, B = _pair(rng, (k, n))
    with pyasc.autocast(dtype=pyasc.bfloat16):
        C = pyasc.matmul(A, B)
    assert C.shape == (m, n) and bf16.is_bf16(C.dtype)
    exact = rb(a) @ rb(b)                         # float64: exact for these sizes up to 2^-50 rel
    acc = k * 2.0 ** -24 * (np.abs(rb(a)) @ np.abs(rb(b)))   # float32 accumulation bound
    err = np.abs(dev(C) - rb(exact))
    assert (err <= ulp(exact) + acc).all(), err.max()
    assert np.mean(err == 0) > 0.9               # one rounding: most entries are rb(exact) exactly


def test_autocast_bf16_matmul_bf16_inputs_and_teach():
    """bf16 tensors (uint16 bits from the host helper) go to the cube as they are; teach too."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((20, 33)).astype(np.float32)
    b = rng.standard_normal((33, 18)).astype(np.float32)
    for target in ("ascend910b", "teach"):
        A = pyasc.AscendTensor.from_numpy(pyasc.utils.to_bfloat16(a), target=target)
        B = pyasc.AscendTensor.from_numpy(pyasc.utils.to_bfloat16(b), target=target)
        assert bf16.is_bf16(A.dtype)
        with pyasc.autocast(dtype="bf16"):
            C = pyasc.matmul(A, B)
        exact = rb(a) @ rb(b)
        assert (np.abs(dev(C) - rb(exact)) <= ulp(exact) + 33 * 2.0 ** -24 * (np.abs(rb(a)) @ np.abs(rb(b)))).all()


@pytest.mark.parametrize("shape", [(1,), (1003,), (7, 129)])
def test_autocast_bf16_elementwise(shape):
    rng = np.random.default_rng(sum(shape))
    a, A = _pair(rng, shape)
    b, B = _pair(rng, shape, 3.0)
    ra, rbb = rb(a), rb(b)
    with pyasc.autocast(dtype=pyasc.bfloat16):
        r = {"add": pyasc.add(A, B), "sub": pyasc.sub(A, B), "mul": pyasc.mul(A, B),
             "muls": pyasc.mul(A, 3.1), "adds": pyasc.add(A, 0.3), "relu": pyasc.relu(A),
             "div": pyasc.div(A, B), "sigmoid": pyasc.sigmoid(A), "tanh": pyasc.tanh(A), "gelu": pyasc.gelu(A),
             "erf": pyasc.erf(A)}
        chain = pyasc.relu(pyasc.mul(pyasc.add(A, B), A))     # bf16 results feed the next operator
    exact = {"add": rb(ra + rbb), "sub": rb(ra - rbb), "mul": rb(ra * rbb), "muls": rb(ra * rb(3.1)),
             "adds": rb(ra + rb(0.3)), "relu": np.maximum(ra, 0)}
    for op, want in exact.items():
        assert np.array_equal(dev(r[op]), want), op
    assert np.array_equal(dev(chain), np.maximum(rb(rb(ra + rbb) * ra), 0))
    import math
    erf = np.vectorize(math.erf)
    near = {"div": ra / rbb, "sigmoid": 1 / (1 + np.exp(-ra)), "tanh": np.tanh(ra),
            "gelu": ra / (1 + np.exp(-1.5957691216057308 * (ra + 0.044715 * ra ** 3))), "erf": erf(ra)}
    for op, want in near.items():
        err = np.abs(dev(r[op]) - rb(want))
        assert (err <= ulp(want) + 1e-6).all(), (op, err.max())


def test_autocast_bf16_rows():
    rng = np.random.default_rng(11)
    x, X = _pair(rng, (5, 300), 2.0)
    with pyasc.autocast(dtype=pyasc.bfloat16):
        s = pyasc.softmax(X)
        ln = pyasc.layernorm(X)
    rx = rb(x)
    e = np.exp(rx - rx.max(-1, keepdims=True))
    sm = e / e.sum(-1, keepdims=True)
    mu = rx.mean(-1, keepdims=True)
    lnr = (rx - mu) / np.sqrt(((rx - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    for got, want in ((s, sm), (ln, lnr)):
        assert bf16.is_bf16(got.dtype)
        assert (np.abs(dev(got) - rb(want)) <= ulp(want) + 1e-5).all()


def test_autocast_bf16_cast_and_errors():
    rng = np.random.default_rng(4)
    x, X = _pair(rng, (33,))
    Y = pyasc.cast(X, pyasc.bfloat16)
    assert bf16.is_bf16(Y.dtype) and np.array_equal(dev(Y), rb(x))
    Z = pyasc.cast(Y, np.float32)
    assert Z.dtype == np.float32 and np.array_equal(Z.numpy().astype(np.float64), rb(x))
    with pytest.raises(pyasc.host.DTypeError, match="bfloat16"):
        pyasc.cast(pyasc.from_numpy(x.astype(np.float16)), "bf16")
    with pytest.raises(pyasc.host.DTypeError, match="float16"):
        pyasc.add(Y, Y)                     # outside autocast a bf16 tensor has no element-wise kernel
    xi = pyasc.from_numpy(rng.standard_normal((1, 2, 5, 5)).astype(np.float16))
    with pyasc.autocast(dtype=pyasc.bfloat16):
        # a float16 operand is not converted to bf16 (float16 tensors are left as they are)
        with pytest.raises(pyasc.host.DTypeError, match="conv2d.*bfloat16.*float16"):
            pyasc.ops.conv2d(xi, xi[:, :, :3, :3])
    with pytest.raises(pyasc.host.DTypeError, match="float16 or bfloat16"):
        with pyasc.autocast(dtype=np.float64):
            pass


def test_autocast_bf16_in_fusion_scope():
    """Inside pyasc.fuse() each bf16 result is still rounded per operator: the same bits as the
    unfused chain."""
    rng = np.random.default_rng(12)
    a, A = _pair(rng, (300,))
    b, B = _pair(rng, (300,))
    with pyasc.autocast(dtype=pyasc.bfloat16):
        plain = pyasc.sigmoid(pyasc.mul(pyasc.add(A, B), 0.5))
        with pyasc.fuse():
            fused = pyasc.sigmoid(pyasc.mul(pyasc.add(A, B), 0.5))
    assert np.array_equal(plain.numpy(), fused.numpy())
    assert bf16.is_bf16(fused.dtype)
    want = 1 / (1 + np.exp(-rb(rb(rb(a) + rb(b)) * 0.5)))
    assert (np.abs(dev(fused) - rb(want)) <= ulp(want) + 1e-6).all()


# ---- conv2d, batch_norm and pooling under bf16 autocast, and every other eager operator ---------
def conv_ref(x, w, s, p):
    """float64 NCHW x OIHW w convolution, loops over the window (independent of img2col)."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h + 2 * p - kh) // s + 1, (wd + 2 * p - kw) // s + 1
    xp = np.zeros((n, c, h + 2 * p, wd + 2 * p))
    xp[:, :, p:p + h, p:p + wd] = x
    y = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            win = xp[:, :, i:i + s * oh:s, j:j + s * ow:s][:, :, :oh, :ow]
            y += np.einsum("nchw,oc->nohw", win, w[:, :, i, j])
    return y


@pytest.mark.parametrize("xs,ws,s,p", [((1, 3, 7, 6), (5, 3, 3, 3), 1, 1), ((2, 17, 9, 11), (20, 17, 3, 3), 2, 1),
                                       ((1, 4, 5, 5), (3, 4, 1, 1), 1, 0)])
def test_autocast_bf16_conv2d(xs, ws, s, p):
    """bf16 on the cube (img2col moves the bits, matmul.matmul in bf16), float32 accumulation, one
    rounding; float32 and bf16 operands, with and without bias."""
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, X = _pair(rng, xs)
    w, W = _pair(rng, ws, 0.3)
    bias = rng.standard_normal(ws[0]).astype(np.float32)
    Xb = pyasc.AscendTensor.from_numpy(pyasc.utils.to_bfloat16(x))
    with pyasc.autocast(dtype=pyasc.bfloat16):
        Y = pyasc.ops.conv2d(X, W, stride=s, padding=p)
        Yb = pyasc.conv2d(Xb, W, stride=s, padding=p, bias=pyasc.from_numpy(bias))
    assert bf16.is_bf16(Y.dtype) and bf16.is_bf16(Yb.dtype)
    exact = conv_ref(rb(x), rb(w), s, p)
    k = ws[1] * ws[2] * ws[3]
    acc = k * 2.0 ** -24 * conv_ref(np.abs(rb(x)), np.abs(rb(w)), s, p)
    assert Y.shape == exact.shape
    err = np.abs(dev(Y) - rb(exact))
    assert (err <= ulp(exact) + acc).all(), err.max()
    assert np.mean(err == 0) > 0.9
    eb = exact + bias[None, :, None, None]             # bias added in float32 before the one rounding
    errb = np.abs(dev(Yb) - rb(eb))
    assert (errb <= ulp(eb) + acc + 2.0 ** -24 * np.abs(eb)).all(), errb.max()


def test_autocast_bf16_batch_norm():
    rng = np.random.default_rng(21)
    x, X = _pair(rng, (2, 5, 7, 9), 2.0)
    mean = rng.standard_normal(5).astype(np.float32)
    var = (rng.random(5) + 0.5).astype(np.float32)
    g = rng.standard_normal(5).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    P = [pyasc.from_numpy(v) for v in (mean, var, g, b)]
    with pyasc.autocast(dtype=pyasc.bfloat16):
        Y = pyasc.batch_norm(X, *P)
        Yb = pyasc.batch_norm(pyasc.cast(X, pyasc.bfloat16), *P)      # a bf16 x gives the same
        Y32 = pyasc.batch_norm(X, *P, out_dtype=np.float32)            # an explicit out_dtype stands
    Yo = pyasc.batch_norm(X, *P, out_dtype="bfloat16")                 # also outside the scope (x float32)
    def bn(v):
        return (v - mean[:, None, None]) / np.sqrt(var.astype(np.float64) + 1e-5)[:, None, None] \
            * g[:, None, None] + b[:, None, None]
    want = bn(rb(x))
    for t in (Y, Yb):
        assert bf16.is_bf16(t.dtype)
        assert (np.abs(dev(t) - rb(want)) <= ulp(want) + 1e-5).all()
    assert np.array_equal(dev(Y), dev(Yb))
    assert Y32.dtype == np.float32 and not bf16.is_bf16(Y32.dtype)
    assert np.array_equal(dev(pyasc.cast(Y32, pyasc.bfloat16)), dev(Y))
    ro = bn(x.astype(np.float64))  # outside the scope x is not rounded to bf16 first
    assert (np.abs(dev(Yo) - rb(ro)) <= ulp(ro) + 1e-5).all()


@pytest.mark.parametrize("shape,k,s,p", [((1, 3, 9, 7), 3, 2, 1), ((2, 2, 6, 6), 2, None, 0)])
def test_autocast_bf16_pooling(shape, k, s, p):
    """max and avg pooling compute in float32 on bf16 values and round once (max: exactly the
    bf16 maximum; avg: the float32 sum then the bf16 rounding)."""
    rng = np.random.default_rng(sum(shape) + k)
    x, X = _pair(rng, shape, 3.0)
    with pyasc.autocast(dtype=pyasc.bfloat16):
        mp = pyasc.max_pool2d(X, k, stride=s, padding=p)
        ap = pyasc.ops.avg_pool2d(pyasc.cast(X, pyasc.bfloat16), k, stride=s, padding=p)
    s = k if s is None else s
    n, c, h, w = shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    xr = rb(x)
    pm = np.full((n, c, h + 2 * p, w + 2 * p), -np.inf)
    pm[:, :, p:p + h, p:p + w] = xr
    pa = np.where(np.isinf(pm), 0.0, pm)
    wins_m = [pm[:, :, i:i + s * oh:s, j:j + s * ow:s][:, :, :oh, :ow] for i in range(k) for j in range(k)]
    wins_a = [pa[:, :, i:i + s * oh:s, j:j + s * ow:s][:, :, :oh, :ow] for i in range(k) for j in range(k)]
    assert bf16.is_bf16(mp.dtype) and bf16.is_bf16(ap.dtype) and mp.shape == (n, c, oh, ow)
    assert np.array_equal(dev(mp), np.max(wins_m, axis=0))
    mean = np.sum(wins_a, axis=0) / (k * k)
    assert (np.abs(dev(ap) - rb(mean)) <= ulp(mean) + 1e-6).all()


def test_bf16_every_eager_operator():
    """Deliver 3's operators: inside autocast(dtype=bfloat16) each takes float32 and bf16 tensors and
    gives bf16; outside it, a bf16 tensor is an error naming the operator and bfloat16."""
    rng = np.random.default_rng(30)
    x4 = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    m2 = rng.standard_normal((6, 6)).astype(np.float32)
    st = [pyasc.from_numpy(v) for v in (np.zeros(2, np.float32), np.ones(2, np.float32))]
    ops = {
        "add": lambda t: pyasc.add(t, t), "sub": lambda t: pyasc.sub(t, t), "mul": lambda t: pyasc.mul(t, t),
        "div": lambda t: pyasc.div(t, t), "relu": pyasc.relu, "sigmoid": pyasc.sigmoid, "tanh": pyasc.tanh,
        "gelu": pyasc.gelu, "erf": pyasc.erf, "softmax": pyasc.softmax, "layernorm": pyasc.layernorm,
        "batch_norm": lambda t: pyasc.batch_norm(t, *st), "max_pool2d": lambda t: pyasc.max_pool2d(t, 2),
        "avg_pool2d": lambda t: pyasc.avg_pool2d(t, 2), "conv2d": lambda t: pyasc.ops.conv2d(t, t[:, :, :3, :3]),
        "matmul": lambda t: pyasc.matmul(t, t), "mm": lambda t: pyasc.ops.mm(t, t),
    }
    for name, f in ops.items():
        v = m2 if name in ("matmul", "mm") else x4
        if name == "conv2d":
            v = x4[:, :2]
        T = pyasc.from_numpy(v)
        B = pyasc.cast(T, pyasc.bfloat16)
        with pyasc.autocast(dtype=pyasc.bfloat16):
            for inp in (T, B):
                y = f(inp)
                assert bf16.is_bf16(y.dtype), (name, y.dtype)
                assert np.isfinite(dev(y)).all() or name == "div", name
        op = "matmul" if name == "mm" else ("conv2d" if name == "conv2d" else name)
        with pytest.raises(pyasc.AscendError, match=f"pyasc.{op}.*bfloat16"):
            f(B)
