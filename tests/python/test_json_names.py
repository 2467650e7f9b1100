"""Every JSON the tools write parses with Python's json module, whatever
bytes a profile name holds (docs/errors.md).

Profile names are random byte strings (quotes, backslashes, control bytes,
non-ASCII, invalid UTF-8).  The rule (include/asc/json.h): a name that is
valid UTF-8 and at most 31 bytes is written escaped by the one JSON string
writer and read back equal; any other name is an error naming the rule, exit
1, and no output.  Checked on `asc-sim config`, the trace's otherData.target,
and `--json` and summary.json (run/report.c builds them with cJSON)."""
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ASC_BUILD_DIR", Path(os.environ.get("ASC_LIB", ROOT / "build" / "libasc.so")).parent))
SIM = BUILD / "sim" / "asc-sim"
AS = BUILD / "asm" / "asc-as"

SPECIAL = [b'"', b"\\", b"\x01", b"\x1f", b"\x7f", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80",
           b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"/", b"\n", b"\t"]


def random_names(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        parts = [rng.choice(SPECIAL) if rng.random() < 0.5 else bytes([rng.randrange(1, 256)])
                 for _ in range(rng.randrange(1, 20))]
        yield b"".join(parts)


def valid(name):
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return 0 < len(name) <= 31


def profile(tmp_path, name):
    """A profile file whose "name" holds the raw bytes, JSON-escaped only
    where JSON requires (quote, backslash, control bytes)."""
    body = b""
    for b in name:
        ch = bytes([b])
        body += b"\\" + ch if ch in b'"\\' else b"\\u%04x" % b if b < 0x20 else ch
    p = tmp_path / "p.json"
    p.write_bytes(b'{"version": 1, "name": "' + body + b'"}')
    return p


@pytest.fixture(scope="module")
def vadd(tmp_path_factory):
    d = tmp_path_factory.mktemp("vadd")
    subprocess.run([AS, "-o", d / "vadd.bin", ROOT / "kernels/asm/vadd_single.s"], check=True)
    import numpy as np
    np.save(d / "x.npy", np.ones(64, dtype=np.float16))
    np.save(d / "y.npy", np.ones(64, dtype=np.float16))
    return d


@pytest.mark.parametrize("seed", range(4))
def test_config_json_any_name(tmp_path, seed):
    for name in random_names(seed, 40):
        p = profile(tmp_path, name)
        r = subprocess.run([SIM, "config", "--config", p], capture_output=True)
        if valid(name):
            assert r.returncode == 0, r.stderr
            assert json.loads(r.stdout.decode("utf-8"))["name"] == name.decode("utf-8")
        else:
            assert r.returncode == 1 and r.stdout == b""
            rule = b"valid UTF-8" if len(name) <= 31 else b"at most 31 bytes"
            assert rule in r.stderr, r.stderr


def test_long_name_is_an_error(tmp_path):
    r = subprocess.run([SIM, "config", "--config", profile(tmp_path, b"x" * 10000)], capture_output=True)
    assert r.returncode == 1 and b"'name' must be at most 31 bytes, got 10000" in r.stderr


def run_with(vadd, tmp_path, name, extra):
    p = profile(tmp_path, name)
    return subprocess.run([SIM, "run", vadd / "vadd.bin", "--config", p, "--arg", f"x={vadd}/x.npy",
                           "--arg", f"y={vadd}/y.npy", "--arg", f"z=@{tmp_path}/z.npy:64:f16", "--arg", "n=64",
                           *extra], capture_output=True)


@pytest.mark.parametrize("seed", range(2))
def test_trace_any_name(vadd, tmp_path, seed):
    for name in random_names(100 + seed, 12):
        tr = tmp_path / "t.json"
        tr.unlink(missing_ok=True)
        r = run_with(vadd, tmp_path, name, ["--trace", tr])
        if valid(name):
            assert r.returncode == 0, r.stderr
            assert json.loads(tr.read_bytes().decode("utf-8"))["otherData"]["target"] == name.decode("utf-8")
        else:
            assert r.returncode == 1 and not tr.exists()


REPORT_NAMES = [b'a"b', b"back\\slash", b"ctl\x01"]


@pytest.mark.parametrize("name", REPORT_NAMES)
def test_report_json_any_name(vadd, tmp_path, name):
    r = run_with(vadd, tmp_path, name, ["--json", "--report-dir", tmp_path / "rep"])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.decode("utf-8"))["target"] == name.decode("utf-8")
    assert json.loads((tmp_path / "rep" / "summary.json").read_bytes().decode("utf-8"))["target"] == name.decode()
