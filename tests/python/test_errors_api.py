"""docs/errors.md "pyasc API errors" is the test: every row's program (`\\n` is a line break),
saved as k.py after three import lines, raises the row's exception class with the row's message;
where the row gives line:col, the message starts with `k.py:LINE:COL: error:`.  And the
catalogue covers pyasc: scripts/pyasc_messages.py --check passes (every message site of
python/pyasc is in a row of docs/errors.md or in tests/python/errors_uncatalogued.txt, which only
shrinks)."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAD = "import numpy as np\nimport asc\nimport pyasc\n"


def api_rows():
    text = open(os.path.join(ROOT, "docs", "errors.md"), encoding="utf-8").read()
    sec = text.split("<!-- pyasc-api:begin -->")[1].split("<!-- pyasc-api:end -->")[0]
    pat = r"\| pyasc \| `(.*?)` \| (\w+) \| (\S+) \| (?:``(.*)``|`(.*)`) \|$"
    out = [re.match(pat, ln) for ln in sec.splitlines()]
    return [(m[1], m[2], m[3], m[4] or m[5]) for m in out if m]


def _classes():
    import asc
    import pyasc
    from pyasc import host, simt
    from pyasc.runtime import launch
    out = {"CompileError": asc.CompileError, "LaunchError": asc.LaunchError, "KernelFault": asc.KernelFault,
           "KernelSanitizerError": launch.KernelSanitizerError, "AscendError": pyasc.AscendError,
           "ValueError": ValueError, "TypeError": TypeError, "RuntimeError": RuntimeError}
    for n in ("DeviceMemoryError", "ShapeError", "DTypeError", "KernelNotFound", "KernelLaunchError",
              "StreamError"):
        out[n] = getattr(host, n)
    del simt
    from pyasc.script import BundleError, ScriptError
    from pyasc.script.trace import ScriptTypeError
    from pyasc.sweep.spec import SpecError
    out.update(ScriptError=ScriptError, ScriptTypeError=ScriptTypeError, BundleError=BundleError,
               SpecError=SpecError)
    from pyasc import _libasc
    out.update(LibascMissing=_libasc.LibascMissing, AbiMismatch=_libasc.AbiMismatch)
    return out


def test_api_table_has_rows():
    assert len(api_rows()) >= 100


@pytest.mark.parametrize("prog,raises,where,msg", api_rows())
def test_api_row(tmp_path, prog, raises, where, msg):
    path = tmp_path / "k.py"
    path.write_text(HEAD + prog.replace("\\n", "\n") + "\n")
    spec = importlib.util.spec_from_file_location(f"errapi_{abs(hash(prog))}", path)
    mod = importlib.util.module_from_spec(spec)
    cls = _classes()[raises]
    with pytest.raises(cls) as e:
        spec.loader.exec_module(mod)
    assert type(e.value) is cls, (type(e.value), str(e.value))
    text = str(e.value)
    assert msg in text, text
    assert "Traceback" not in text
    if where != "-":
        assert text.startswith(f"{path}:{where}: error: "), text


def test_every_pyasc_message_is_catalogued():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "pyasc_messages.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
