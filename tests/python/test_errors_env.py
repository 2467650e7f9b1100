"""docs/errors.md "pyasc environment and command-line errors" is the test: every row's setup is
made in a scratch directory, the row's command is run there (`python` is this interpreter) and
must exit with the row's code with the message in its stderr (a tool, `python -m ...`, without a
traceback; an import error of `python -c` ends Python's traceback)."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("ASC_LIB") or os.path.join(ROOT, "build", "libasc.so")


def env_rows():
    text = open(os.path.join(ROOT, "docs", "errors.md"), encoding="utf-8").read()
    sec = text.split("<!-- pyasc-env:begin -->")[1].split("<!-- pyasc-env:end -->")[0]
    pat = r"\| pyasc \| (\S+) \| `(.*?)` \| (\d+) \| (?:``(.*)``|`(.*)`) \|$"
    out = [re.match(pat, ln) for ln in sec.splitlines()]
    return [(m[1], m[2], int(m[3]), m[4] or m[5]) for m in out if m]


def _copy(tmp):
    """A copy of python/ (asc, pyasc) whose package files the setup may edit."""
    dst = tmp / "py"
    shutil.copytree(os.path.join(ROOT, "python"), dst, ignore=shutil.ignore_patterns("__pycache__", "libasc.path"))
    return dst


def _edit_abi(py, fn):
    p = py / "pyasc" / "abi.json"
    d = json.loads(p.read_text())
    fn(d["structs"])
    p.write_text(json.dumps(d))


def _setup(name, tmp):
    """(environment, cwd) for the row's setup (docs/errors.md names each)."""
    env = {k: v for k, v in os.environ.items() if k not in ("ASC_LIB", "PYTHONPATH")}
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env["ASC_LIB"] = LIB
    if name in ("record-missing", "record-sanitizer", "abi-hash", "abi-fields", "abi-offset", "abi-size"):
        py = _copy(tmp)
        env["PYTHONPATH"] = str(py)
        if name == "record-missing":
            del env["ASC_LIB"]
            (py / "pyasc" / "libasc.path").write_text(str(tmp / "gone" / "libasc.so") + "\n")
        elif name == "record-sanitizer":
            del env["ASC_LIB"]
            san = tmp / "build-asan"
            san.mkdir()
            os.symlink(LIB, san / "libasc.so")
            (san / "CMakeCache.txt").write_text("ASC_SANITIZE:BOOL=ON\n")
            (py / "pyasc" / "libasc.path").write_text(str(san / "libasc.so") + "\n")
        elif name == "abi-hash":
            p = py / "pyasc" / "abi.json"
            p.write_bytes(p.read_bytes() + b"\n")
        elif name == "abi-fields":
            _edit_abi(py, lambda s: s["AscAlloc"]["fields"][2].update(name="user_data"))
        elif name == "abi-offset":
            _edit_abi(py, lambda s: s["AscLoc"]["fields"][1].update(offset=s["AscLoc"]["fields"][1]["offset"] + 4))
        elif name == "abi-size":
            _edit_abi(py, lambda s: s["AscAlloc"].update(size=s["AscAlloc"]["size"] + 8))
    elif name == "no-dask":
        fake = tmp / "nodask" / "distributed"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text("raise ImportError('distributed is not installed')\n")
        env["PYTHONPATH"] = str(tmp / "nodask") + os.pathsep + env["PYTHONPATH"]
    else:
        assert name == "repo", name
    (tmp / "k.py").write_text("import asc\n\n@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    pass\n")
    (tmp / "s.py").write_text("import numpy as np\nx = np.random.rand(8).astype(np.float32)\ny = x * 2.0\n")
    (tmp / "spec.json").write_text(json.dumps({
        "kernel": os.path.join(ROOT, "kernels", "asm", "vadd_double.s"),
        "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n"},
        "params": {"n": [1024]}}))
    return env


@pytest.mark.parametrize("setup,cmd,code,msg", env_rows())
def test_env_row(tmp_path, setup, cmd, code, msg):
    env = _setup(setup, tmp_path)
    argv = shlex.split(cmd)
    steps = [argv]
    if "s.om" in argv and argv[:4] != ["python", "-m", "pyasc", "compile"]:
        steps.insert(0, ["python", "-m", "pyasc", "compile", "s.py", "-o", "s.om"])   # the bundle fixture
    for i, a in enumerate(steps):
        r = subprocess.run([sys.executable if x == "python" else x for x in a], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120)
        if i < len(steps) - 1:
            assert r.returncode == 0, r.stderr
    err = r.stderr.replace(str(tmp_path) + "/", "")
    assert r.returncode == code, (r.returncode, err)
    assert msg in err, err
    if argv[1] == "-m":        # a tool: one message; `python -c "import ..."` shows Python's traceback
        assert "Traceback" not in err, err


def test_env_table_has_rows():
    assert len(env_rows()) >= 8
