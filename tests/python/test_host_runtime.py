"""The host runtime (issue 14 items 2, 3, 4, 7, 8, 9; docs/pyasc.md "Host runtime"): device
tensors, eager operators on the kernel library, streams, profiler, custom operators, errors.
Every test runs from a temporary directory outside the checkout; results are checked against
numpy references computed here, never against numbers copied from a run."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import asc
import pyasc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _outside(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- item 2: tensors and device memory --------------------------------------------------------
def test_from_numpy_roundtrip_alignment_and_views():
    a = rng().standard_normal((6, 10)).astype(np.float32)
    t = pyasc.AscendTensor.from_numpy(a)
    assert t.shape == (6, 10) and t.dtype == np.float32
    assert t.data_ptr % 64 == 0
    u = pyasc.AscendTensor.from_numpy(np.arange(3, dtype=np.float16))
    assert u.data_ptr % 64 == 0 and u.data_ptr != t.data_ptr
    assert np.array_equal(t.numpy(), a) and np.array_equal(pyasc.utils.numpy(t), a)
    assert t.pin_memory() is t and t.is_pinned()
    v = t[1:5, 2:9:3]
    assert v.shape == (4, 3) and np.array_equal(v.numpy(), a[1:5, 2:9:3])
    assert v.data_ptr == t.data_ptr + (1 * 10 + 2) * 4
    assert np.array_equal(t[2].numpy(), a[2]) and np.array_equal(t[..., -1].numpy(), a[..., -1])
    with pytest.raises(pyasc.AscendError):
        t[[0, 1]]


def test_factories():
    assert np.array_equal(pyasc.zeros((3, 4), dtype=np.float16).numpy(), np.zeros((3, 4), np.float16))
    assert np.array_equal(pyasc.ones(5).numpy(), np.ones(5, np.float32))
    assert pyasc.empty((2, 2), dtype=np.float16).shape == (2, 2)
    r = pyasc.randn(4, 5, seed=3)
    assert np.array_equal(r.numpy(), np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32))


def test_memory_allocator_counts_and_peak():
    m = pyasc.memory_allocator
    base = m.allocated_bytes
    m.reset_peak()
    t = pyasc.zeros(1000)                                 # 4000 B -> 4032 B (64-aligned)
    assert m.allocated_bytes - base == 4032
    u = pyasc.zeros(10)                                   # 40 B -> 64 B
    assert m.allocated_bytes - base == 4096 and m.peak_bytes - base == 4096
    del t, u
    assert m.allocated_bytes == base and m.peak_bytes - base == 4096
    assert m.capacity == pyasc.compiler.targets.load(pyasc.runtime.config.get_target())["gm_bytes"]


def test_device_memory_exceeded_message(tmp_path):
    """A profile with 1 MiB of GM (ASC_CONFIG_DIR): asking for more names both figures."""
    prof = json.load(open(os.path.join(ROOT, "configs", "teach.json")))
    prof.update(name="tinygm", gm_bytes=1 << 20)
    d = tmp_path / "profiles"
    d.mkdir()
    (d / "tinygm.json").write_text(json.dumps(prof))
    code = ("import pyasc\n"
            "a = pyasc.zeros(65536, target='tinygm')\n"           # 256 KiB
            "try:\n    pyasc.zeros(1 << 20, target='tinygm')\n"    # 4 MiB
            "except pyasc.AscendError as e:\n    print(e.code, e.message)\n")
    env = dict(os.environ, ASC_CONFIG_DIR=str(d), PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "Device memory exceeded (requested 4MB, available 768KB)" in out
    assert out.startswith(str(pyasc.host.DeviceMemoryError.code))


def test_tensors_stay_on_device_between_operators(monkeypatch):
    """Chained operators never read a device tensor back: numpy() is the only copy out."""
    calls = []
    orig = pyasc.AscendTensor.numpy
    monkeypatch.setattr(pyasc.AscendTensor, "numpy", lambda self: calls.append(1) or orig(self))
    a = rng().standard_normal(300).astype(np.float32)
    x = pyasc.from_numpy(a)
    y = pyasc.relu(pyasc.add(x, x))
    assert calls == []
    assert np.array_equal(orig(y), np.maximum(a + a, 0))


# ---- item 3: eager operators ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_binary_ops_with_broadcasting(dtype):
    r = rng(1)
    a = r.standard_normal((3, 40)).astype(dtype)
    b = r.standard_normal((40,)).astype(dtype)
    x, y = pyasc.from_numpy(a), pyasc.from_numpy(b)
    assert np.array_equal(pyasc.add(x, y).numpy(), a + b)
    assert np.array_equal(pyasc.sub(x, y).numpy(), a - b)
    assert np.array_equal(pyasc.mul(x, y).numpy(), a * b)
    assert np.array_equal((y - x).numpy(), b - a)
    assert np.array_equal(pyasc.ops.add(x, 1.5).numpy(), a + dtype(1.5))
    assert np.array_equal((2.0 * x).numpy(), dtype(2.0) * a)
    c = r.standard_normal((3, 1)).astype(dtype)
    assert np.array_equal((x * pyasc.from_numpy(c)).numpy(), a * c)


def test_unary_ops_softmax_layernorm():
    r = rng(2)
    a = (r.standard_normal((5, 70)) * 2).astype(np.float32)
    x = pyasc.from_numpy(a)
    a64 = a.astype(np.float64)
    assert np.array_equal(pyasc.relu(x).numpy(), np.maximum(a, 0))
    assert np.allclose(pyasc.sigmoid(x).numpy(), 1 / (1 + np.exp(-a64)), rtol=1e-5, atol=1e-6)
    assert np.allclose(pyasc.tanh(x).numpy(), np.tanh(a64), rtol=1e-5, atol=1e-6)
    g = 0.5 * a64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (a64 + 0.044715 * a64 ** 3)))
    assert np.allclose(pyasc.ops.gelu(x).numpy(), g, rtol=1e-5, atol=1e-5)
    e = np.exp(a64 - a64.max(-1, keepdims=True))
    assert np.allclose(pyasc.softmax(x).numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
    gam = r.standard_normal(70).astype(np.float32)
    bet = r.standard_normal(70).astype(np.float32)
    m = a64.mean(-1, keepdims=True)
    ref = (a64 - m) / np.sqrt(((a64 - m) ** 2).mean(-1, keepdims=True) + 1e-5) * gam + bet
    got = pyasc.layernorm(x, pyasc.from_numpy(gam), pyasc.from_numpy(bet)).numpy()
    assert np.allclose(got, ref, rtol=1e-4, atol=1e-4)
    v = x[:, 1:60:2]                                     # a strided view goes through gather
    assert np.array_equal(pyasc.relu(v).numpy(), np.maximum(a[:, 1:60:2], 0))


def test_matmul_on_the_cube_kernel():
    r = rng(3)
    a = (r.random((256, 256)) - 0.5).astype(np.float16)
    b = (r.random((256, 256)) - 0.5).astype(np.float16)
    c = pyasc.matmul(pyasc.from_numpy(a), pyasc.from_numpy(b))
    assert c.dtype == np.float32 and c.shape == (256, 256)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c.numpy() - ref).max() / np.abs(ref).max() < 1e-3
    assert np.array_equal((pyasc.from_numpy(a) @ pyasc.from_numpy(b)).numpy(), c.numpy())


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (37, 70, 45), (130, 257, 20)])
def test_matmul_any_shape_f16(m, k, n):
    """Shapes other than matmul_cube's 256^3 run on the hand-tiled kernels/pyasc/matmul.py (f16 in,
    f32 out; float32 accumulation of exact f16 products: 2^-22 * K relative to sum |a||b|)."""
    r = rng(m + k + n)
    a = (r.random((m, k)) - 0.5).astype(np.float16)
    b = (r.random((k, n)) - 0.5).astype(np.float16)
    c = pyasc.matmul(pyasc.from_numpy(a), pyasc.from_numpy(b))
    assert c.dtype == np.float32 and c.shape == (m, n)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert (np.abs(c.numpy() - a64 @ b64) <= k * 2.0 ** -22 * (np.abs(a64) @ np.abs(b64)) + 1e-30).all()
    with pyasc.autocast(dtype=np.float16):
        h = pyasc.matmul(pyasc.from_numpy(a.astype(np.float32)), pyasc.from_numpy(b.astype(np.float32)))
    assert h.dtype == np.float16 and np.array_equal(h.numpy(), c.numpy().astype(np.float16))


def test_operators_without_kernels_raise_naming_the_kernel():
    x = pyasc.from_numpy(np.ones((4, 8), np.float32))
    for f, what in ((lambda: pyasc.softmax(x, dim=0), "last axis"),
                    (lambda: pyasc.matmul(x, pyasc.ones((8, 2))), "matmul_cube")):
        with pytest.raises(pyasc.host.KernelNotFound) as e:
            f()
        assert what in e.value.message and e.value.code == pyasc.host.KernelNotFound.code


def test_shape_and_dtype_errors_name_both_operands():
    x = pyasc.zeros((4, 5))
    with pytest.raises(pyasc.AscendError) as e:
        pyasc.add(x, pyasc.zeros((3, 5)))
    assert "float32[4, 5]" in e.value.message and "float32[3, 5]" in e.value.message
    with pytest.raises(pyasc.host.DTypeError) as e:
        pyasc.mul(x, pyasc.zeros((4, 5), dtype=np.float16))
    assert "float32[4, 5]" in e.value.message and "float16[4, 5]" in e.value.message
    with pytest.raises(pyasc.host.DTypeError):
        pyasc.add(pyasc.zeros(4, dtype=np.int32), pyasc.zeros(4, dtype=np.int32))
    with pytest.raises(pyasc.AscendError):
        pyasc.add(np.zeros(3), np.zeros(3))


@asc.jit
def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    asc.data_copy(xl, xg, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(xl, xl, xl, 64)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, xl, 64)


def test_kernel_language_meaning_is_kept_inside_jit():
    """pyasc.add inside an @asc.jit kernel is still the vector intrinsic (real pyasc's)."""
    a = np.arange(64, dtype=np.float32)
    z = np.zeros_like(a)
    k[1](a, z)
    assert np.array_equal(z, a + a)


# ---- item 7: profiler ---------------------------------------------------------------------------
def test_profiler_table_and_combined_trace(capsys):
    a = rng(4).standard_normal(2000).astype(np.float32)
    x = pyasc.from_numpy(a)
    pyasc.profiler.start()
    y = pyasc.relu(pyasc.mul(x, x))
    p = pyasc.profiler.stop(trace="ops.json")
    table = capsys.readouterr().out
    assert [r.op for r in p.records] == ["mul", "relu"]
    for r in p.records:
        assert r.cycles > 0 and abs(r.microseconds - r.cycles / r.mhz) < 1e-9
    assert "Op Name" in table and "Task Duration(us)" in table and "relu" in table
    assert p.records[1].start >= p.records[0].end
    tr = json.load(open("ops.json"))
    names = {e["args"]["name"] for e in tr["traceEvents"] if e.get("name") == "process_name"}
    assert "operators" in names and any(n.startswith("op0 mul ") for n in names)
    assert any(n.startswith("op1 relu ") for n in names)
    ops = [e for e in tr["traceEvents"] if e.get("pid") == 1 and e.get("ph") == "X"]
    assert [e["name"] for e in ops] == ["mul", "relu"]
    assert np.array_equal(y.numpy(), np.maximum(a * a, 0))


# ---- item 8: custom operators -----------------------------------------------------------------
def test_register_op_custom_gelu():
    @pyasc.register_op("CustomSiLU")
    def silu(ctx, x):
        return x * pyasc.ops.sigmoid(x)

    a = rng(5).standard_normal((3, 50)).astype(np.float32)
    got = pyasc.ops.CustomSiLU(pyasc.from_numpy(a)).numpy()
    a64 = a.astype(np.float64)
    assert np.allclose(got, a64 / (1 + np.exp(-a64)), rtol=1e-5, atol=1e-6)
    with pytest.raises(pyasc.AscendError):
        pyasc.register_op("add")(lambda x: x)


def test_register_op_seed_example_custom_gelu_with_erf_and_div():
    """The seed documents' CustomGeLU (x * 0.5 * (1 + erf(x / sqrt 2))): erf and div have kernels
    (kernels/pyasc/elementwise_ext.py); against math.erf."""
    import math

    @pyasc.register_op("CustomGeLU")
    def gelu_forward(ctx, x):
        return x * 0.5 * (1.0 + pyasc.ops.erf(x / math.sqrt(2.0)))

    a = rng(5).standard_normal(1001).astype(np.float32) * 3
    y = pyasc.ops.CustomGeLU(pyasc.from_numpy(a)).numpy()
    ref = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2.0))) for v in a.astype(np.float64)])
    assert np.abs(y - ref).max() < 2e-6
    b = rng(6).uniform(0.5, 2, 1001).astype(np.float32)
    assert np.array_equal(pyasc.div(pyasc.from_numpy(a), pyasc.from_numpy(b)).numpy(), a / b)
    h = (a / 4).astype(np.float16)
    e = pyasc.erf(pyasc.from_numpy(h)).numpy()
    assert np.abs(e.astype(np.float64) - np.array([math.erf(v) for v in h.astype(np.float64)])).max() < 1e-3


# ---- item 9: errors, logs, version --------------------------------------------------------------
def test_errors_have_code_and_message_and_debug_log():
    assert isinstance(pyasc.__version__, str) and pyasc.__version__
    try:
        pyasc.ops.mm(pyasc.zeros((2, 3)), pyasc.zeros((4, 5)))
    except pyasc.AscendError as e:
        assert isinstance(e.code, int) and "a (float32[2, 3])" in e.message and str(e.code) in str(e)
    else:
        raise AssertionError("no error")
    code = "import pyasc\nx = pyasc.ones(100)\nprint(pyasc.relu(x).numpy().sum())\n"
    env = dict(os.environ, PYASC_DEBUG="1", PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "100.0"
    assert "[pyasc] launch relu: kernel ew_kernel" in r.stderr and "compiled ew_kernel" in r.stderr
    assert "[pyasc] alloc 400 B" in r.stderr
    env["PYASC_DEBUG"] = "0"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "[pyasc]" not in r.stderr


# ---- item 4: streams ----------------------------------------------------------------------------
def _two_matmuls(streams):
    r = rng(6)
    a = pyasc.from_numpy((r.random((256, 256)) - 0.5).astype(np.float16))
    b = pyasc.from_numpy((r.random((256, 256)) - 0.5).astype(np.float16))
    pyasc.profiler.start()
    outs = []
    for s in streams:
        with s:
            outs.append(pyasc.matmul(a, b))
    p = pyasc.profiler.stop(trace="mm.json", print_table=False)
    return a, b, outs, p


def test_two_streams_overlap_one_stream_does_not():
    s1, s2 = pyasc.stream.create_stream(), pyasc.stream.create_stream()
    a, b, (c1, c2), p = _two_matmuls([s1, s2])
    r1, r2 = p.records
    assert r1.stream != r2.stream and r2.start < r1.end          # overlap in simulated time
    ev = [e for e in json.load(open("mm.json"))["traceEvents"] if e.get("pid") == 1 and e.get("ph") == "X"]
    assert ev[1]["ts"] < ev[0]["ts"] + ev[0]["dur"]
    ref = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    assert np.abs(c2.numpy() - ref).max() / np.abs(ref).max() < 1e-3
    s = pyasc.stream.create_stream()
    _, _, _, p = _two_matmuls([s, s])
    r1, r2 = p.records
    assert r2.start >= r1.end


def test_stream_work_is_deferred_until_synchronize():
    s = pyasc.stream.create_stream()
    x = pyasc.from_numpy(np.arange(100, dtype=np.float32))
    with s:
        y = pyasc.add(x, x)
    assert len(s.queue) == 1                                     # queued, not run
    s.synchronize()
    assert not s.queue and np.array_equal(y.numpy(), 2 * np.arange(100, dtype=np.float32))
    with s:
        z = pyasc.relu(y)
    assert np.array_equal(z.numpy(), 2 * np.arange(100, dtype=np.float32))   # reading syncs


def test_events_order_streams_in_simulated_time():
    s1, s2 = pyasc.stream.create_stream(), pyasc.stream.create_stream()
    x = pyasc.from_numpy(np.ones(4096, np.float32))
    pyasc.profiler.start()
    with s1:
        pyasc.mul(x, x)
    e = pyasc.stream.Event().record(s1)
    s2.wait_event(e)
    with s2:
        pyasc.add(x, x)
    p = pyasc.profiler.stop(trace=None, print_table=False)
    r1, r2 = p.records
    assert r2.start >= r1.end
