"""The bundle's native section (python/pyasc/script/native.py, run/bundle.c): `asc-sim run out.om`
executes the compiled kernels of the bundle with .npy inputs; its outputs equal `pyasc run`'s bit for
bit and its cycles per operator are the same, at every level; bad bundles are errors naming the place
in the file and the rule (issue 16 item 2, "a bundle that pyasc run out.om (and asc-sim run) executes")."""
import base64
import json
import os
import subprocess

import numpy as np
import pytest

from pyasc.script import compile_script, load_bundle

HERE = os.path.dirname(os.path.abspath(__file__))
MM = os.path.join(HERE, "scripts", "mm_ew.py")
SIM = os.path.join(os.path.dirname(os.environ.get("ASC_LIB", "build/libasc.so")), "sim", "asc-sim")


def _sim(*args):
    return subprocess.run([SIM, "run", *args], capture_output=True, text=True)


def _inputs(tmp_path, shapes, seed=7):
    rng = np.random.default_rng(seed)
    out = {}
    for name, (shape, dt) in shapes.items():
        p = str(tmp_path / f"{name}.npy")
        np.save(p, rng.standard_normal(shape).astype(dt))
        out[name] = p
    return out


@pytest.mark.parametrize("level", [0, 2, 3])   # 3: the tiling search's trial runs are not in the plan
def test_asc_sim_runs_bundle_like_pyasc(tmp_path, level):
    om = str(tmp_path / f"mm{level}.om")
    b = compile_script(MM, om, opt_level=level)
    assert b["native"]["native"] and all(k["elf"] for k in b["native"]["kernels"])
    ins = _inputs(tmp_path, {"a": ((256, 256), np.float16), "b": ((256, 256), np.float16)})
    outs, rep = load_bundle(om).run(ins)
    r = _sim(om, "--arg", f"a={ins['a']}", "--arg", f"b={ins['b']}", "--arg",
             f"f=@{tmp_path}/f.npy:256,256:f32")
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "f.npy")
    assert np.array_equal(got, outs["f"])                           # bit for bit with pyasc run
    ref = load_bundle(om).reference(ins)["f"]
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-3)      # and numpy
    rows = [ln.split() for ln in r.stdout.splitlines()[2:]]
    assert len(rows) == len(rep["steps"]) == (4 if level == 0 else 2)
    assert [int(x[-1]) for x in rows] == [s["cycles"] for s in rep["steps"]]
    assert f"{rep['total_cycles']} cycles" in r.stdout.splitlines()[0]


def test_bundle_bytes_deterministic(tmp_path):
    a = compile_script(MM, str(tmp_path / "a.om"), opt_level=2)
    compile_script(MM, str(tmp_path / "b.om"), opt_level=2)
    assert (tmp_path / "a.om").read_bytes() == (tmp_path / "b.om").read_bytes()
    assert a["native"]["steps"][1]["launches"][0]["kernel"] == 1


def test_bad_bundles(tmp_path):
    om = str(tmp_path / "mm.om")
    compile_script(MM, om, opt_level=2)
    ins = _inputs(tmp_path, {"a": ((256, 256), np.float16), "b": ((256, 256), np.float16),
                             "s": ((16, 256), np.float16)})
    good = json.load(open(om))

    def write(mut, name):
        d = json.loads(json.dumps(good))
        mut(d)
        p = str(tmp_path / name)
        with open(p, "w") as f:
            json.dump(d, f)
        return p

    r = _sim(om, "--arg", f"a={ins['a']}")
    assert r.returncode == 1 and "input 'b' (line 5): give it with --arg b=FILE.npy" in r.stderr
    r = _sim(om, "--arg", f"a={ins['a']}", "--arg", f"b={ins['s']}")
    assert r.returncode == 1 and "recorded for shape (256, 256) dtype f16" in r.stderr
    r = _sim(om, "--arg", f"a={ins['a']}", "--arg", f"b={ins['b']}", "--arg", f"f=@{tmp_path}/f.npy:256:f32")
    assert r.returncode == 1 and "--arg f: the output is shape (256, 256) dtype f32" in r.stderr
    (tmp_path / "x.om").write_text("{ not json")
    r = _sim(str(tmp_path / "x.om"))
    assert r.returncode == 1 and "not JSON at byte" in r.stderr
    p = write(lambda d: d.update(format="om"), "f.om")
    assert "not an asc bundle" in _sim(p).stderr
    p = write(lambda d: d["native"]["kernels"][0].update(elf=base64.b64encode(b"\x7fELFjunk").decode()), "e.om")
    r = _sim(p, "--arg", f"a={ins['a']}", "--arg", f"b={ins['b']}")
    assert r.returncode == 1 and "native.kernels[0]: the \"elf\" field is not a valid asc kernel binary" in r.stderr
    p = write(lambda d: d["native"]["steps"][1]["launches"][0]["args"][0].update(offset=1 << 30), "o.om")
    r = _sim(p, "--arg", f"a={ins['a']}", "--arg", f"b={ins['b']}")
    assert r.returncode == 1 and "native.steps[1].launches[0].args[0]: bytes [1073741824" in r.stderr
    p = write(lambda d: d["native"]["steps"][0]["launches"][0]["args"][5].update(kind="ptr"), "k.om")
    r = _sim(p, "--arg", f"a={ins['a']}", "--arg", f"b={ins['b']}")
    assert r.returncode == 1 and "args[5].kind: must be \"gm\", \"stack\", \"int\" or \"float\"" in r.stderr
    p = write(lambda d: d.pop("native"), "n.om")
    assert "has no native launch plan" in _sim(p).stderr
    p = write(lambda d: d["native"]["steps"][0].update(native=False, why="a test"), "h.om")
    assert "native.steps[0]: step 0 does not run natively: a test" in _sim(p).stderr
