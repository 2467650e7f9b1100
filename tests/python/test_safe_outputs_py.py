"""Outputs of pyasc's tools are safe (issue 10, deliver 3), as asc-as/asc-sim's are
(tests/cli/test_safe_outputs.sh): a symlink planted beside an output (PATH.tmp, or a name like
the temporaries') is never written through, the output appears whole or not at all, a run killed
by SIGINT or SIGTERM leaves no temporary, and one killed by SIGKILL leaves a uniquely named
temporary that the next run writing the same output removes.  Tools: `pyasc compile` (-o .bin,
-S -o .s, a numpy script -o .om), `pyasc run --save-dir --report-json`, `asc-sweep -o .csv`."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL = "import asc\n\n@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    pass\n"
SCRIPT = "import numpy as np\nx = np.random.rand(64).astype(np.float32)\ny = x * 2.0\n"


def _env():
    return dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))


def _fixtures(d):
    (d / "k.py").write_text(KERNEL)
    (d / "s.py").write_text(SCRIPT)
    (d / "spec.json").write_text(json.dumps({
        "kernel": os.path.join(ROOT, "kernels", "asm", "vadd_double.s"),
        "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n"},
        "params": {"n": [1024, 2048]}}))


TOOLS = {   # name: (argv after `python -m`, the outputs it writes)
    "compile-bin": (["pyasc", "compile", "k.py", "-o", "k.bin"], ["k.bin"]),
    "compile-asm": (["pyasc", "compile", "k.py", "-S", "-o", "k.s"], ["k.s"]),
    "compile-om": (["pyasc", "compile", "s.py", "-o", "s.om"], ["s.om"]),
    "run": (["pyasc", "run", "s.om", "--save-dir", "out", "--report-json", "r.json"], ["out/y.npy", "r.json"]),
    "sweep": (["pyasc.sweep", "spec.json", "-o", "o.csv", "-j", "1"], ["o.csv"]),
}


def _run(d, argv, **kw):
    return subprocess.run([sys.executable, "-m"] + argv, cwd=d, env=_env(), capture_output=True, text=True,
                          timeout=300, **kw)


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_planted_symlinks_are_not_followed(tmp_path, tool):
    _fixtures(tmp_path)
    (tmp_path / "out").mkdir()
    if tool == "run":
        assert _run(tmp_path, TOOLS["compile-om"][0]).returncode == 0
    argv, outs = TOOLS[tool]
    victim = tmp_path / "victim"
    victim.write_text("victim")
    for o in outs:
        p = tmp_path / o
        base = p.name
        for name in (base + ".tmp", base + ".tmp.png", f".{base}.asc-tmp.{os.getpid()}.aaaaaaaaaaaa"):
            os.symlink(victim, p.parent / name)
    r = _run(tmp_path, argv)
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "victim"
    for o in outs:
        p = tmp_path / o
        assert p.is_file() and not p.is_symlink() and p.stat().st_size > 0, o


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_killed_runs_leave_no_partial_output(tmp_path, sig):
    """Killed while it writes (at several points of a sweep): no temporary is left (SIGKILL: until
    the next run), and an output present is the complete one of a finished run."""
    _fixtures(tmp_path)
    argv, _ = TOOLS["sweep"]
    ref = _run(tmp_path, argv)
    assert ref.returncode == 0, ref.stderr
    want = (tmp_path / "o.csv").read_bytes()
    t0 = time.monotonic()
    _run(tmp_path, argv)
    dur = time.monotonic() - t0
    for i in range(4):
        p = subprocess.Popen([sys.executable, "-m"] + argv, cwd=tmp_path, env=_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(dur * (0.2 + 0.25 * i))
        p.send_signal(sig)
        p.wait(timeout=120)
        assert (tmp_path / "o.csv").read_bytes() == want
        left = [f for f in os.listdir(tmp_path) if "tmp" in f]
        if sig != signal.SIGKILL:
            assert not left, (sig, left)
    r = _run(tmp_path, argv)
    assert r.returncode == 0, r.stderr
    assert not [f for f in os.listdir(tmp_path) if "tmp" in f]
    assert (tmp_path / "o.csv").read_bytes() == want
