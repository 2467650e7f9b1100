"""Custom profiles from $ASC_CONFIG_DIR end to end (libasc's asc_config_named): a profile derived
from ascend910b with more UB bank groups compiles, assembles and runs a pyasc kernel, gives numpy's
answer, and its cycle count moves only where the bank layout matters; bad profile files are
reported naming the file and key."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNEL = '''
import json, sys
import numpy as np
import asc
import asc.runtime.config as config

@asc.jit
def k_bank(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int],
           yoff: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, yoff, n)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 65536, n)
    asc.data_copy(a, xg, n)
    asc.data_copy(b, yg, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.add(c, a, b, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, c, n)

target, dtype, n, yoff = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
config.set_platform(config.Backend.Model, soc_version=target)
r = np.random.default_rng(n)
x = r.standard_normal(n).astype(dtype)
y = r.standard_normal(n).astype(dtype)
z = np.zeros(n, dtype)
res = k_bank[1](x, y, z, n, yoff)
print(json.dumps({"cycles": res.cycles, "ok": bool(np.array_equal(z, x + y))}))
'''


def _profile_dir(tmp_path, **over):
    """ascend910b's profile (as `asc-sim config` writes it) renamed 'widebank', with `over`."""
    with open(os.path.join(ROOT, "configs", "ascend910b.json"), encoding="utf-8") as f:
        prof = json.load(f)
    prof["name"] = "widebank"
    prof.update(over)
    d = tmp_path / "profiles"
    d.mkdir(exist_ok=True)
    (d / "widebank.json").write_text(json.dumps(prof))
    return d


def _run(d, target, dtype, n, yoff):
    env = dict(os.environ, ASC_CONFIG_DIR=str(d), PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", KERNEL, target, dtype, str(n), str(yoff)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.libasc
# n * itemsize a multiple of 32 B: data_copy moves whole 32 B blocks
@pytest.mark.parametrize("dtype,n", [("float32", 1000), ("float16", 1008), ("float32", 8)])
def test_custom_profile_runs_pyasc_kernel(tmp_path, dtype, n):
    d = _profile_dir(tmp_path, ub_bank_groups=32)
    # y 4608 B after x: with 16 groups of 32 B (a 512 B period) x and y share bank groups; with
    # 32 groups (1024 B) they do not (docs/semantics.md §3)
    base = _run(d, "ascend910b", dtype, n, 4608)
    wide = _run(d, "widebank", dtype, n, 4608)
    assert base["ok"] and wide["ok"]
    if n * np.dtype(dtype).itemsize > 256:     # more than one repeat reads conflicting banks
        assert wide["cycles"] < base["cycles"]
    # y 4352 B after x: groups 8-15 on both profiles, the bank key does not matter
    assert _run(d, "widebank", dtype, n, 4352)["cycles"] == _run(d, "ascend910b", dtype, n, 4352)["cycles"]


@pytest.mark.libasc
@pytest.mark.parametrize("text,msg", [
    ({"ub_bank_groupz": 32}, "widebank.json: unknown config key 'ub_bank_groupz'"),
    ({"ub_bank_groups": 99}, "widebank.json: config key 'ub_bank_groups' must be an integer in the range"),
    ({"name": "other"}, "widebank.json: config key \"name\" is 'other', but the file is loaded as profile 'widebank'"),
])
def test_bad_custom_profile_names_file_and_key(tmp_path, text, msg):
    d = _profile_dir(tmp_path, **text)
    env = dict(os.environ, ASC_CONFIG_DIR=str(d), PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", KERNEL, "widebank", "float32", "64", "4608"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and msg in p.stderr, p.stderr[-2000:]
    assert str(d) in p.stderr


@pytest.mark.libasc
def test_custom_profile_may_not_shadow_builtin(tmp_path):
    d = _profile_dir(tmp_path)
    os.rename(d / "widebank.json", d / "teach.json")
    env = dict(os.environ, ASC_CONFIG_DIR=str(d), PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", KERNEL, "teach", "float32", "64", "4608"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and "may not take the name of the built-in profile 'teach'" in p.stderr


@pytest.mark.libasc
def test_sweep_on_custom_profile(tmp_path, monkeypatch):
    """asc-sweep with "target": a $ASC_CONFIG_DIR profile: every point runs on it (the sweep's
    profile keys override it), and ub_bank_groups=32 beats ascend910b's 16 on vadd_bank_conflict."""
    import csv
    from pyasc.sweep import cli
    d = _profile_dir(tmp_path, ub_bank_groups=32)
    monkeypatch.setenv("ASC_CONFIG_DIR", str(d))
    kernel = os.path.join(ROOT, "kernels", "asm", "vadd_bank_conflict.s")
    rows = {}
    for target in ("widebank", "ascend910b"):
        spec = {"kernel": kernel, "target": target, "profile": {"ub_bank_layers": [3, 4]},
                "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n",
                         "n": 8192}}
        path = tmp_path / f"{target}.json"
        path.write_text(json.dumps(spec))
        out = str(tmp_path / f"{target}.csv")
        assert cli.main([str(path), "-o", out, "-j", "1"]) == 0
        with open(out, newline="") as f:
            rows[target] = list(csv.DictReader(f))
    for r in rows["widebank"]:
        assert r["status"] == "ok" and r["target"] == "widebank", r
    for w, b in zip(rows["widebank"], rows["ascend910b"]):
        assert int(w["total_cycles"]) < int(b["total_cycles"]), (w["total_cycles"], b["total_cycles"])
