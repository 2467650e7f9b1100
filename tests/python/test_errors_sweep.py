"""docs/errors.md "asc-sweep spec errors" is the test: every row's JSON is merged over the base
spec of that section (a JSON string is the spec file's whole text instead), saved as spec.json
and run as `asc-sweep spec.json -o o.csv -j 1`; the exit code is 1, stderr is one line starting
`asc-sweep: error: ` holding the row's message, and no output file is written."""
import json
import os
import re

import pytest

from pyasc.sweep import cli

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE = {"kernel": os.path.join(ROOT, "kernels", "asm", "vadd_double.s"),
        "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n"},
        "params": {"n": [8192]}}


def sweep_rows():
    text = open(os.path.join(ROOT, "docs", "errors.md"), encoding="utf-8").read()
    sec = text.split("<!-- pyasc-sweep:begin -->")[1].split("<!-- pyasc-sweep:end -->")[0]
    pat = r"\| pyasc \| `(.*?)` \| (?:``(.*)``|`(.*)`) \|$"
    out = [re.match(pat, ln) for ln in sec.splitlines()]
    return [(m[1], m[2] or m[3]) for m in out if m]


def test_sweep_table_has_rows():
    assert len(sweep_rows()) >= 30


@pytest.mark.parametrize("change,msg", sweep_rows())
def test_sweep_row(tmp_path, capsys, monkeypatch, change, msg):
    monkeypatch.chdir(ROOT)    # relative paths in a row (a .npy, a profile) are the repository's
    c = json.loads(change)
    path = tmp_path / "spec.json"
    path.write_text(c if isinstance(c, str) else json.dumps({**BASE, **c}))
    out = tmp_path / "o.csv"
    assert cli.main([str(path), "-o", str(out), "-j", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("asc-sweep: error: ") and err.count("\n") == 1, err
    assert msg in err.replace(str(tmp_path) + "/", "").replace(ROOT + "/", ""), err
    assert not out.exists()


def test_point_limit_checked_before_the_points_are_built(tmp_path):
    """57 M points (two long axes) and a 10^14-value range are refused from their counts: under a
    1 GiB address-space limit (they took 11 GB, and forever, when the lists were built first)."""
    import resource
    import subprocess
    import sys
    specs = [({"profile": {"queue_depth": {"from": 1, "to": 4096, "step": 1},
                           "ub_bank_groups": [1, 2, 4, 8, 16, 32, 64]},
               "params": {"n": {"from": 8192, "to": 16384000, "step": 8192}}}, "57344000 points"),
             ({"params": {"n": {"from": 8, "to": 800000000000000, "step": 8}}}, "100000000000000 values")]
    for i, (change, msg) in enumerate(specs):
        path = tmp_path / f"spec{i}.json"
        path.write_text(json.dumps({**BASE, **change}))

        def cap():
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        p = subprocess.run([sys.executable, "-m", "pyasc.sweep.cli", str(path), "-o", str(tmp_path / "o.csv"),
                            "-j", "1"], capture_output=True, text=True, env=env, preexec_fn=cap, timeout=120)
        assert p.returncode == 1 and msg in p.stderr, p.stderr[-2000:]
