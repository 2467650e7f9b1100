"""docs/errors.md "pyasc compile errors" is the test: every row's kernel body, compiled as the
section describes, raises a CompileError at k.py:LINE:COL whose text holds the row's message."""
import importlib.util
import os
import re

import numpy as np
import pytest

from pyasc.compiler.errors import CompileError

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rows():
    text = open(os.path.join(ROOT, "docs", "errors.md"), encoding="utf-8").read()
    sec = text.split("<!-- pyasc-errors:begin -->")[1].split("<!-- pyasc-errors:end -->")[0]
    out = [re.match(r"\| pyasc \| `(.*)` \| (\d+:\d+) \| `(.*)` \|$", ln) for ln in sec.splitlines()]
    return [m.groups() for m in out if m]


def test_table_has_rows():
    assert len(rows()) >= 25


@pytest.mark.parametrize("body,where,msg", rows())
def test_row(tmp_path, body, where, msg):
    path = tmp_path / "k.py"
    path.write_text("import asc\n\n@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    " + body + "\n")
    spec = importlib.util.spec_from_file_location(f"errdoc_{abs(hash(body))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(CompileError) as e:
        mod.k[1](np.zeros(16, np.float16), 16)
    text = str(e.value)
    assert f"k.py:{where}: error: " in text, text
    assert msg in text, text
    assert "Traceback" not in text


def launch_rows():
    text = open(os.path.join(ROOT, "docs", "errors.md"), encoding="utf-8").read()
    sec = text.split("<!-- pyasc-launch:begin -->")[1].split("<!-- pyasc-launch:end -->")[0]
    pat = r"\| pyasc \| `(.*?)` \| `(.*?)` \| (\w+) \| (\S+) \| (?:``(.*)``|`(.*)`) \|$"
    out = [re.match(pat, ln) for ln in sec.splitlines()]
    return [(m[1], m[2], m[3], m[4], m[5] or m[6]) for m in out if m]


def test_launch_table_has_rows():
    assert len(launch_rows()) >= 15


@pytest.mark.parametrize("body,call,raises,where,msg", launch_rows())
def test_launch_row(tmp_path, body, call, raises, where, msg):
    import asc
    from pyasc.runtime import launch
    path = tmp_path / "k.py"
    path.write_text("import asc\n\n@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    " + body + "\n")
    spec = importlib.util.spec_from_file_location(f"errdocl_{abs(hash(body + call))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    env = {"k": mod.k, "np": np, "x": np.zeros(16, np.float16)}
    if raises == "warning":
        texts = eval(call, env).warnings
        kind = "warning"
    else:
        cls = {"LaunchError": asc.LaunchError, "KernelFault": asc.KernelFault,
               "KernelSanitizerError": launch.KernelSanitizerError}[raises]
        with pytest.raises(cls) as e:
            eval(call, env)
        assert type(e.value) is cls
        texts, kind = [str(e.value)], "error"
        assert "Traceback" not in texts[0]
    hit = [t for t in texts if msg in t]
    assert hit, texts
    if where != "-":
        assert hit[0].startswith(f"{path}:{where}: {kind}: "), hit[0]
