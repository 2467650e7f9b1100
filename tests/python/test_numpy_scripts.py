"""numpy scripts compiled to asc bundles (python/pyasc/script), optimisation levels, pragmas and
options (issue 16 items 2-5)."""
import json
import os
import sys

import numpy as np
import pytest

import pyasc
from pyasc import cli
from pyasc.script import BundleError, ScriptError, compile_script, load_bundle, save_as_om
from pyasc.script.run import Bundle

HERE = os.path.dirname(os.path.abspath(__file__))
MM = os.path.join(HERE, "scripts", "mm_ew.py")
sys.path.insert(0, os.path.join(HERE, "..", "..", "kernels", "pyasc"))


def _script(tmp_path, text, name="s.py"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _run(path, tmp_path, level, **kw):
    out = str(tmp_path / f"o{level}.om")
    b = Bundle(compile_script(path, out, opt_level=level, **kw), out)
    outs, rep = b.run()
    return b, outs, rep


def test_matmul_three_elementwise_fewer_kernels_and_bytes_at_O2(tmp_path):
    b0, o0, r0 = _run(MM, tmp_path, 0)
    b2, o2, r2 = _run(MM, tmp_path, 2, memory_opt=True)
    assert r0["kernels"] == 4 and r2["kernels"] == 2           # matmul + 3 element-wise; matmul + 1 fused
    assert r2["total_gm_bytes"] < r0["total_gm_bytes"]
    assert r2["gm_plan_bytes"] < r0["gm_plan_bytes"]
    # the fused chain reads c and writes f once: 2 x 256 KiB of float32 instead of 3 x 2 x 256 KiB
    assert r2["steps"][1]["gm_bytes"] == 2 * 256 * 256 * 4
    assert sum(s["gm_bytes"] for s in r0["steps"][1:]) == 3 * 2 * 256 * 256 * 4
    for k in o0:
        assert np.array_equal(o0[k], o2[k])                    # identical across levels
    ref = b2.reference()["f"]
    a = b2.inputs()[1].astype(np.float32)
    bb = b2.inputs()[3].astype(np.float32)
    np.testing.assert_allclose(ref, np.maximum((a @ bb) * np.float32(0.5) + np.float32(1.0), 2.0), rtol=1e-6)
    np.testing.assert_allclose(o2["f"], ref, rtol=1e-5, atol=1e-5)


def test_cli_compile_and_run(tmp_path, capsys):
    o1, o2 = str(tmp_path / "a.om"), str(tmp_path / "b.om")
    assert cli.main(["compile", MM, "--opt-level=O2", "--enable-memory-opt", "-o", o1]) == 0
    assert cli.main(["compile", MM, "-O2", "--enable-memory-reuse", "-o", o2]) == 0
    assert open(o1, "rb").read() == open(o2, "rb").read()      # the same option, deterministic bytes
    data = json.load(open(o1))
    assert data["format"] == "asc-bundle" and "not Huawei's OM" in data["note"]
    rj = str(tmp_path / "r.json")
    capsys.readouterr()
    assert cli.main(["run", o1, "--check", "--report-json", rj, "--save-dir", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "fused.run_chain" in out and "check f:" in out and "(ok)" in out
    assert json.load(open(rj))["kernels"] == 2
    assert np.load(str(tmp_path / "out" / "f.npy")).shape == (256, 256)


def test_bad_level_rejected():
    with pytest.raises(SystemExit):
        cli.main(["compile", MM, "--opt-level=O7", "-o", "x.om"])


def test_unsupported_call_names_call_and_line(tmp_path):
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(8, 8).astype(np.float32)\ny = np.fft.fft(x)\n")
    with pytest.raises(ScriptError) as e:
        compile_script(p, None)
    assert "np.fft" in str(e.value) and f"{p}:3:" in str(e.value)


def test_dtype_messages(tmp_path):
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(8, 8).astype(np.float32)\ny = x + 2\n")
    with pytest.raises(TypeError) as e:
        compile_script(p, None)
    assert "Cannot infer dtype for operation 'add' between 'Tensor[float32]' and 'int'" in str(e.value)
    assert ":3:" in str(e.value)
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(8, 8)\ny = x * 2.0\n")
    with pytest.raises(TypeError, match="float64"):
        compile_script(p, None)
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(8, 8).astype(np.float32)\n"
                          "y = x + np.array(2, dtype=np.float32)\n")
    assert compile_script(p, None)["steps"][0]["prog"] == [["adds", 0, 0, 2.0]]
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(8, 8).astype(np.float32)\n"
                          "h = np.random.rand(8, 8).astype(np.float16)\ny = x * h\n")
    with pytest.raises(TypeError, match="'Tensor\\[float32\\]' and 'Tensor\\[float16\\]'"):
        compile_script(p, None)


def test_softmax_and_reductions(tmp_path):
    p = _script(tmp_path, "import numpy as np\nx = np.random.randn(6, 40).astype(np.float32)\n"
                          "e = np.exp(x - x.max(axis=-1, keepdims=True))\ns = e / e.sum(axis=-1, keepdims=True)\n"
                          "t = np.sum(x * 2.0, axis=-1)\n")
    b, outs, rep = _run(p, tmp_path, 2)
    assert [s["kernel"] for s in rep["steps"]] == ["softmax.softmax", "fused.run_chain", "reduce.reduce_rows"]
    ref = b.reference()
    np.testing.assert_allclose(outs["s"], ref["s"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs["t"], ref["t"], rtol=1e-5, atol=1e-5)


def test_pragma_parallelize(tmp_path):
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(4096).astype(np.float32)\n"
                          "# pragma: parallelize factor=4\nfor i in range(3):\n    x = x * 2.0\ny = x + 1.0\n")
    b, outs, rep = _run(p, tmp_path, 0)
    blocks = [s["blocks"] for s in rep["steps"]]
    assert blocks[:3] == [4, 4, 4] and blocks[3] > 4              # the loop body on 4 cores, y on all it can use
    np.testing.assert_array_equal(outs["y"], b.reference()["y"])
    bad = _script(tmp_path, "import numpy as np\n# pragma: parallelize factor=4\nx = 1\n", "bad.py")
    with pytest.raises(ScriptError, match="above a for loop") as e:
        compile_script(bad, None)
    assert ":2:" in str(e.value)


def test_pragma_auto_mixed_precision(tmp_path):
    src = "import numpy as np\na = np.random.rand(32, 48).astype(np.float32)\nb = np.random.rand(48, 16).astype(np.float32)\nc = a @ b\n"
    with pytest.raises(TypeError, match="auto_mixed_precision"):
        compile_script(_script(tmp_path, src), None)
    b, outs, rep = _run(_script(tmp_path, "# pragma: auto_mixed_precision mode=O1\n" + src, "amp.py"), tmp_path, 2)
    assert [s["kernel"] for s in rep["steps"]] == ["cast.cast", "cast.cast", "matmul.matmul"]   # vconv kernels
    np.testing.assert_allclose(outs["c"], b.reference()["c"], rtol=1e-5)
    b2 = compile_script(_script(tmp_path, "# pragma: auto_mixed_precision mode=O2\n" + src + "d = c * 2.0\n",
                                "amp2.py"), None)
    assert b2["graph"][-1]["dtype"] == "float16"                   # O2: the element-wise op in float16
    with pytest.raises(ScriptError, match="mode=O1 or mode=O2"):
        compile_script(_script(tmp_path, "# pragma: auto_mixed_precision mode=O3\n" + src, "amp3.py"), None)


def test_custom_op_config(tmp_path):
    (tmp_path / "myops.py").write_text(
        "import fused\n"
        "kernel = fused.fused_kernel\n"
        "def clip01(x):\n    return fused.run_chain(((\"maxs\", 0, 0, 0.0), (\"mins\", 0, 0, 1.0)), [x])\n")
    cfg = tmp_path / "ops.json"
    cfg.write_text(json.dumps({"ops": {"clip01": {"module": "myops.py", "function": "clip01", "kernel": "kernel"}}}))
    p = _script(tmp_path, "import numpy as np\nx = np.random.randn(1000).astype(np.float32)\ny = np.clip01(x * 3.0)\n")
    with pytest.raises(ScriptError, match="np.clip01"):
        compile_script(p, None)
    b = Bundle(compile_script(p, str(tmp_path / "c.om"), custom_op_config=str(cfg)), str(tmp_path / "c.om"))
    outs, rep = b.run()
    assert rep["steps"][-1]["kind"] == "custom" and rep["steps"][-1]["cycles"] > 0
    x = b.inputs()[[n for n in b.nodes if b.nodes[n]["op"] == "input"][-1]]
    np.testing.assert_array_equal(outs["y"], np.minimum(np.maximum(x * np.float32(3.0), 0), 1))
    cfg.write_text("{\"ops\": 3}")
    with pytest.raises(ValueError, match="ops"):
        compile_script(p, None, custom_op_config=str(cfg))


def test_dynamic_dims(tmp_path):
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(2, 8, 40).astype(np.float32)\n"
                          "y = np.maximum(x * 2.0 - 1.0, 0.0)\n")
    out = str(tmp_path / "d.om")
    cli.main(["compile", p, "-O2", "--dynamic-dims=1-4,8-16,32-64", "-o", out])
    b = load_bundle(out)
    assert len(b.data["steps"]) == 1                          # one shape-generic kernel
    for shape in ((2, 8, 40), (3, 13, 61)):
        b.set_input_shape(shape)
        outs, rep = b.run()
        assert outs["y"].shape == shape
        np.testing.assert_array_equal(outs["y"], b.reference()["y"])
    with pytest.raises(BundleError, match="dimension 1 = 20 is outside the compiled range 8-16"):
        b.set_input_shape((2, 20, 40))
    with pytest.raises(ScriptError, match="outside the ranges"):
        compile_script(p, None, dynamic_dims="1-4,9-16,32-64")


def test_memory_reuse_plan(tmp_path):
    p = _script(tmp_path, "import numpy as np\nx = np.random.rand(1024).astype(np.float32)\n"
                          "a = x + x\nb = a * a\nc = b + b\nd = c * c\n")
    plan0 = compile_script(p, None, opt_level=0)["gm_plan"]
    plan1 = compile_script(p, None, opt_level=0, memory_opt=True)["gm_plan"]
    assert len(plan0["buffers"]) == 4 and len(plan1["buffers"]) == 3 and plan1["bytes"] < plan0["bytes"]
    b = Bundle(compile_script(p, None, opt_level=0, memory_opt=True))
    outs, _ = b.run()
    np.testing.assert_array_equal(outs["d"], b.reference()["d"])


def test_save_as_om(tmp_path):
    def f(a, b):
        return np.maximum(a * b + 1.0, 0.0)
    path = str(tmp_path / "f.om")
    x = np.zeros((16, 16), np.float32)
    pyasc.save_as_om(f, path, example_inputs=[x, x])
    b = load_bundle(path)
    assert b.data["format"] == "asc-bundle" and len(b.data["steps"]) == 1
    r = np.random.default_rng(1)
    a1, a2 = r.standard_normal((16, 16)).astype(np.float32), r.standard_normal((16, 16)).astype(np.float32)
    outs, _ = b.run({"a": a1, "b": a2})
    np.testing.assert_array_equal(outs["out0"], np.maximum(a1 * a2 + np.float32(1.0), 0))
    save_as_om(MM, str(tmp_path / "m.om"))
    save_as_om(b, str(tmp_path / "again.om"))
    assert open(str(tmp_path / "again.om")).read() == open(path).read()
    with pytest.raises(TypeError, match="@asc.jit kernel"):
        import elementwise
        save_as_om(elementwise.ew_kernel, path)
    with pytest.raises(BundleError, match="Huawei OM"):
        (tmp_path / "x.om").write_bytes(b"\x00IMOD")
        load_bundle(str(tmp_path / "x.om"))


@pytest.mark.parametrize("fn", ["vadd", "vmul", "relu", "gelu"])
def test_levels_differ_for_library_vector_kernels(fn):
    import elementwise as ew
    from pyasc.runtime import config
    r = np.random.default_rng(0)
    x = r.standard_normal(9001).astype(np.float32)
    y = r.standard_normal(9001).astype(np.float32)
    res = {}
    for lv in (0, 1, 2, 3):
        with config.opt_level(lv):
            z = getattr(ew, fn)(*((x, y) if fn in ("vadd", "vmul") else (x,)), cores=4)
        res[lv] = (z, ew.ew_kernel.last_compiled.asm, ew.ew_kernel.last_result.cycles)
    for lv in (1, 2, 3):
        assert np.array_equal(res[lv][0], res[0][0])           # the same numbers at every level
    want = {"vadd": x + y, "vmul": x * y, "relu": np.maximum(x, 0)}.get(fn)
    if want is not None:
        assert np.array_equal(res[2][0], want)
    assert res[0][1] != res[2][1]                              # different code
    assert res[0][2] > res[2][2]                               # and more cycles at -O0
