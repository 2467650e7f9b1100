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
