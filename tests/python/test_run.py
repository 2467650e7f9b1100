"""End to end on the simulator (needs libasc.so): every vector op in both forms against numpy,
scalar control flow, the kernels/pyasc programs, caching, traces, faults mapped to Python lines,
the CLI and asc-sim run."""
import importlib.util
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import asc
import kernels_basic as kb
import kernels_errors as ke

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _kernel_module(name):
    path = os.path.join(ROOT, "kernels", "pyasc", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def _lanes_mask(form, dtype, n):
    lanes = 256 // np.dtype(dtype).itemsize
    act = np.zeros(n, bool)
    if form == "count":
        act[:n - 8] = True
    elif form == "mask":
        for r in range(2):
            act[r * lanes:r * lanes + lanes - 3] = True
    else:
        bits = (0x0F0F0F0F0F0F0F0F << 64) | 0x5555555555555555
        for r in range(2):
            for i in range(lanes):
                act[r * lanes + i] = (bits >> i) & 1
    return act


BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
       "min": np.minimum}


@pytest.mark.parametrize("op", sorted(BIN) + ["bitwise_and", "bitwise_or"])
@pytest.mark.parametrize("form", ["count", "mask", "bits"])
def test_binary_ops(op, form):
    dtype = np.int16 if op.startswith("bitwise") else np.float32
    n = 256 // np.dtype(dtype).itemsize * 2
    rng = np.random.default_rng(1)
    x = (rng.random(n) * 10 + 1).astype(dtype)
    y = (rng.random(n) * 10 + 1).astype(dtype)
    z = np.full(n, 7, dtype)
    kb.k_binary[1](x, y, z, op, form)
    f = BIN.get(op) or {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or}[op]
    act = _lanes_mask(form, dtype, n)
    want = np.where(act, f(x, y).astype(dtype), np.full(n, 7, dtype))
    np.testing.assert_allclose(z, want, rtol=1e-6)


UN = {"abs": np.abs, "exp": np.exp, "ln": np.log, "reciprocal": lambda a: 1 / a, "relu": lambda a: np.maximum(a, 0),
      "rsqrt": lambda a: 1 / np.sqrt(a), "sqrt": np.sqrt}
SC = {"adds": lambda a, s: a + s, "muls": lambda a, s: a * s, "maxs": np.maximum, "mins": np.minimum,
      "leaky_relu": lambda a, s: np.where(a >= 0, a, a * s), "duplicate": lambda a, s: np.full_like(a, s)}


@pytest.mark.parametrize("op", sorted(UN) + sorted(SC))
@pytest.mark.parametrize("form", ["count", "mask"])
def test_unary_and_scalar_ops(op, form):
    rng = np.random.default_rng(2)
    x = (rng.random(128) * 4 + 0.5).astype(np.float32)
    if op in ("abs", "relu", "leaky_relu"):
        x -= 2.5
    z = np.full(128, 7, np.float32)
    s = 1.5 if op != "leaky_relu" else 0.25
    kb.k_unary[1](x, z, op, form, s)
    want = UN[op](x) if op in UN else SC[op](x, np.float32(s))
    act = np.zeros(128, bool)
    if form == "count":
        act[:120] = True
    else:
        act[0:63] = True
        act[64:127] = True
    want = np.where(act, want, 7).astype(np.float32)
    np.testing.assert_allclose(z, want, rtol=2e-6)


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_min", "whole_reduce_sum", "whole_reduce_max",
                                "whole_reduce_min"])
def test_reductions(op):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(1024).astype(np.float32)
    z = np.zeros(64, np.float32)
    kb.k_reduce[1](x, z, op, 1024)
    f = {"sum": np.sum, "max": np.max, "min": np.min}[op.split("_")[-1]]
    if op.startswith("whole"):
        np.testing.assert_allclose(z[:16], f(x.reshape(16, 64), axis=1), rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_allclose(z[0], f(x), rtol=1e-5, atol=1e-5)


def test_cast_f32_to_f16():
    x = (np.random.default_rng(4).random(256) * 100).astype(np.float32)
    z = np.zeros(256, np.float16)
    kb.k_cast[1](x, z, 256)
    np.testing.assert_array_equal(z, x.astype(np.float16))


def test_scalar_control_flow():
    x = np.array([41, 0, 0, 0, 0, 0, 0, 0], np.int32)
    z = np.zeros(8, np.int32)
    n, k = 7, 3
    kb.k_control[1](x, z, n, k)
    total = sum(i * kb.MODULE_CONST if i % 2 == 0 else -1 for i in range(n))
    j = 0
    while j < n:
        j += k
    assert list(z[:7]) == [total, j, total - j, total + j, 41 + 2 * n + 1, n, max(n, k) + 1]


def test_count_form_and_dump(tmp_path, monkeypatch):
    monkeypatch.setenv("PYASC_DUMP_PATH", str(tmp_path))
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(256, np.float32)
    jf = asc.jit(always_compile=True)(kb.k_add_count.fn)
    res = jf[1](x, x, z)
    np.testing.assert_array_equal(z, 2 * x)
    assert res.cycles > 0 and res.microseconds > 0 and "cycles" in res.report
    assert (tmp_path / "k_add_count.ir").read_text().startswith("; pyasc IR")
    asm = (tmp_path / "k_add_count.s").read_text()
    assert ".loc" in asm and "set_mask_count" in asm and "vadd.f32" in asm


@pytest.mark.parametrize("name", ["vadd_manual", "vadd_tque"])
def test_vadd_kernels(name):
    m = _kernel_module(name)
    x, y, z, res = m.run()
    np.testing.assert_array_equal(z, x + y)
    assert res.cycles > 0


def test_tque_double_buffering_overlaps(tmp_path):
    import json
    m = _kernel_module("vadd_tque")
    tr = tmp_path / "t.json"
    x, y, z, res = m.run(trace=str(tr))
    np.testing.assert_array_equal(z, x + y)
    allev = json.loads(tr.read_text())["traceEvents"]
    pname = {e["pid"]: e["args"]["name"] for e in allev if e.get("name") == "process_name"}
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in allev if e.get("name") == "thread_name"}
    lanes = {}
    for e in allev:
        if e.get("ph") == "X" and pname.get(e["pid"]) == "core0.veccore0" and e["dur"] > 0:
            lanes.setdefault(tname.get((e["pid"], e["tid"]), "?"), []).append((e["ts"], e["ts"] + e["dur"]))

    def overlap(a, b):
        return any(s1 < e2 and s2 < e1 for s1, e1 in lanes.get(a, []) for s2, e2 in lanes.get(b, []))
    names = {k.upper(): k for k in lanes}
    mte2 = next(v for k, v in names.items() if "MTE2" in k)
    vec = next(v for k, v in names.items() if "VEC" in k)
    mte3 = next(v for k, v in names.items() if "MTE3" in k)
    assert overlap(mte2, vec) and overlap(vec, mte3) and overlap(mte2, mte3)


def test_tque_faster_than_manual():
    a = _kernel_module("vadd_manual").run()[3]
    b = _kernel_module("vadd_tque").run()[3]
    assert b.cycles < a.cycles


def test_matmul_cube():
    m = _kernel_module("matmul_cube")
    a, b, c, res = m.run()
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - ref).max() / np.abs(ref).max() < 1e-3


def test_softmax():
    m = _kernel_module("softmax")
    x, y, res = m.run()
    assert np.abs(y - m.reference(x)).max() < 1e-5


def test_cache_hit_is_fast(tmp_path, monkeypatch):
    import time
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    m = _kernel_module("vadd_tque")
    x = np.zeros(16384, np.float32)
    specs, _ = m.vadd_tque.specs((x, x, x, 2048, 128))
    m.vadd_tque._mem.clear()
    m.vadd_tque.compile(*specs)
    assert len(os.listdir(tmp_path)) == 1
    m.vadd_tque._mem.clear()
    t = time.perf_counter()
    m.vadd_tque.compile(*specs)
    assert time.perf_counter() - t < 0.05


def test_fault_maps_to_python_line():
    x = np.zeros(4096, np.float32)
    with pytest.raises(asc.KernelFault) as ei:
        ke.e_fault[1](x)
    e = ei.value
    assert e.file.endswith("kernels_errors.py")
    src, first = inspect.getsourcelines(ke.e_fault.fn)
    assert e.line == first + next(i for i, s in enumerate(src) if "asc.data_copy(g, bad" in s)


def test_deadlock_reported():
    x = np.zeros(64, np.float32)
    with pytest.raises(asc.KernelFault, match="deadlock"):
        ke.e_deadlock[1](x)


def test_insert_sync_option():
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(256, np.float32)
    jf = asc.jit(insert_sync=True, always_compile=True)(kb.k_add_count.fn)
    jf[1](x, x, z)
    np.testing.assert_array_equal(z, 2 * x)


def test_stream_launch_form():
    import asc.lib.runtime as rt
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(256, np.float32)
    kb.k_add_count[1, rt.current_stream()](x, x, z)
    np.testing.assert_array_equal(z, 2 * x)


def test_cli_compile_and_asc_sim_run(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    out = tmp_path / "k.bin"
    r = subprocess.run([os.path.join(ROOT, "python", "bin", "pyasc"), "compile",
                        os.path.join(ROOT, "kernels", "pyasc", "vadd_tque.py"), "-o", str(out),
                        "-a", "tile=128", "-a", "x=f32", "-a", "y=f32", "-a", "z=f32"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r2 = subprocess.run([sys.executable, "-m", "pyasc", "compile", os.path.join(ROOT, "kernels", "pyasc", "softmax.py"),
                         "-S", "-o", str(tmp_path / "s.s")], env=env, capture_output=True, text=True)
    assert r2.returncode == 0 and ".kernel softmax_rows, aiv" in (tmp_path / "s.s").read_text()
    # the asc-sim of the build whose libasc.so pyasc loads (never whichever build* is newest)
    from pyasc import _libasc
    sims = [os.path.join(os.path.dirname(_libasc.library_path()[0]), "sim", "asc-sim")]
    assert os.path.exists(sims[0]), f"no asc-sim beside the libasc.so pyasc loads: {sims[0]}"
    x = np.random.rand(16384).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", x)
    r3 = subprocess.run([sims[-1], "run", str(out), "--blocks", "8", "--arg", f"x={tmp_path}/x.npy",
                         "--arg", f"y={tmp_path}/y.npy", "--arg", f"z=@{tmp_path}/z.npy:16384:f32",
                         "--arg", "block_length=2048"], capture_output=True, text=True)
    assert r3.returncode == 0, r3.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), 2 * x)


def test_cli_errors(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    bad = tmp_path / "bad.py"
    bad.write_text("import asc\n\n@asc.jit\ndef k(n: int):\n    for i in range(n):\n        break\n")
    r = subprocess.run([sys.executable, "-m", "pyasc", "compile", str(bad), "-o", str(tmp_path / "b.bin")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 1
    assert f"{bad}:6:9: error: unsupported syntax: 'break'" in r.stderr


def test_report_has_critical_path():
    """A pyasc launch attaches the critical-path recorder, as asc-sim run does
    (docs/timing.md §Explain): the report and its JSON name the bound."""
    import json
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(256, np.float32)
    res = kb.k_add_count[1](x, x, z)
    np.testing.assert_array_equal(z, 2 * x)
    assert "not classified" not in res.report
    assert "critical path (" in res.report and " bound" in res.report
    rep = json.loads(res.report_json)
    assert rep["critical_path"]["cycles"] == res.cycles and rep["bound"]
