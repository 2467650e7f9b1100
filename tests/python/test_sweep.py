"""asc-sweep (pyasc.sweep, needs libasc.so): a 200-point sweep gives the same CSV bytes on local
processes, in one process and on a Dask LocalCluster; a stopped or killed run resumes without
re-running finished points; rows agree with `asc-sim run --json`; bad specs name key and rule;
plots and the Pareto front."""
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from pyasc import _libasc
from pyasc import sweep
from pyasc.sweep import cli, engine, plot, results

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL = os.path.join(ROOT, "kernels", "asm", "vadd_double.s")

# 5 x 5 x 2 x 4 = 200 points; n is a multiple of 2 * 4096 * blocks, as vadd_double requires
SPEC200 = {
    "kernel": KERNEL,
    "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n"},
    "profile": {"ub_bank_groups": {"from": 4, "to": 64, "times": 2},
                "dma.gm_read_latency": {"from": 400, "to": 2000, "step": 400}},
    "params": {"n": [65536, 131072], "blocks": [1, 2, 4, 8]},
}


def _write(tmp_path, spec, name="spec.json"):
    p = tmp_path / name
    p.write_text(json.dumps(spec))
    return str(p)


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The 200-point sweep on 2 local processes: (spec path, CSV bytes)."""
    d = tmp_path_factory.mktemp("sweep200")
    spec = _write(d, SPEC200)
    out = str(d / "local.csv")
    st = sweep.run(spec, out, jobs=2)
    assert st["points"] == 200 and st["simulated"] == 200 and st["failed"] == 0
    with open(out, "rb") as f:
        return spec, f.read()


def test_200_points_one_row_each(reference):
    spec, data = reference
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert [r["point"] for r in rows] == [str(i) for i in range(200)]
    assert {r["status"] for r in rows} == {"ok"}
    hdr = data.decode().split("\n", 1)[0].split(",")
    assert hdr[:8] == ["point", "ub_bank_groups", "dma.gm_read_latency", "n", "blocks", "status", "error",
                       "spec_digest"]
    assert hdr[8:11] == ["total_cycles", "microseconds", "instructions"]
    for col in ("pipes.MTE2.busy_cycles", "pipes.VECTOR.conflict_cycles", "stalls.bank_conflict_beats",
                "stalls.hbm_contention_cycles", "bytes.GM->UB", "bytes.UB->GM", "roofline.hbm.pct",
                "report.blocks"):
        assert col in hdr, col
    # the model moves: fewer bank groups, more conflict beats; longer GM latency, more cycles
    by = {(r["ub_bank_groups"], r["dma.gm_read_latency"], r["n"], r["blocks"]): r for r in rows}
    assert int(by[("4", "400", "65536", "1")]["stalls.bank_conflict_beats"]) > \
        int(by[("64", "400", "65536", "1")]["stalls.bank_conflict_beats"])
    assert int(by[("16", "2000", "65536", "1")]["total_cycles"]) > int(by[("16", "400", "65536", "1")]["total_cycles"])
    assert all(by[k]["report.blocks"] == k[3] for k in by)
    # bytes moved are the data: 2 inputs in, 1 output out, f16
    for r in rows:
        assert int(r["bytes.GM->UB"]) == 2 * 2 * int(r["n"]) and int(r["bytes.UB->GM"]) == 2 * int(r["n"])


def test_same_bytes_in_one_process_and_on_dask(reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    spec, data = reference
    one = str(tmp_path / "one.csv")
    sweep.run(spec, one, jobs=1)
    assert open(one, "rb").read() == data
    out = str(tmp_path / "dask.csv")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=40) as cl:
        st = sweep.run(spec, out, scheduler=cl.scheduler_address)
    assert st["simulated"] == 200
    assert open(out, "rb").read() == data


def test_stop_and_resume_runs_only_the_rest(reference, tmp_path):
    spec, data = reference
    out = str(tmp_path / "r.csv")
    before = engine.SIMULATIONS[0]
    st = sweep.run(spec, out, jobs=1, max_points=73)
    assert st["simulated"] == 73 and engine.SIMULATIONS[0] - before == 73
    rows = _rows(out)
    assert [r["point"] for r in rows] == [str(i) for i in range(73)]
    before = engine.SIMULATIONS[0]
    st = sweep.run(spec, out, jobs=1)
    assert st["done_before"] == 73 and st["simulated"] == 127 and engine.SIMULATIONS[0] - before == 127
    assert open(out, "rb").read() == data
    before = engine.SIMULATIONS[0]
    assert sweep.run(spec, out, jobs=1)["simulated"] == 0 and engine.SIMULATIONS[0] == before
    assert open(out, "rb").read() == data


def test_sigkill_leaves_a_valid_csv_and_resume_completes(reference, tmp_path):
    spec, data = reference
    out = str(tmp_path / "k.csv")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.Popen([sys.executable, "-m", "pyasc", "sweep", spec, "-o", out, "-j", "1", "--flush-every", "0"],
                         env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and p.poll() is None:
            if os.path.exists(out) and len(_rows(out)) >= 20:
                break
            time.sleep(0.005)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    rows = _rows(out)      # a whole CSV: the file is only ever replaced by a complete one
    k = len(rows)
    assert 20 <= k <= 200
    assert [r["point"] for r in rows] == [str(i) for i in range(k)] and {r["status"] for r in rows} == {"ok"}
    before = engine.SIMULATIONS[0]
    st = sweep.run(spec, out, jobs=1)
    assert st["done_before"] == k and st["simulated"] == 200 - k and engine.SIMULATIONS[0] - before == 200 - k
    assert open(out, "rb").read() == data


def test_rows_match_asc_sim_run(tmp_path):
    """A row's figures are those of `asc-sim run --json` with the same --set, --blocks and inputs."""
    spec = {"kernel": KERNEL, "set": {"dma.hbm_bytes_per_cycle": 256},
            "args": {"x": {"seed": 5, "shape": ["n"], "low": 0, "high": 4}, "y": {"fill": 0.5, "shape": "n"},
                     "z": "@n:f16", "n": "tiles * 8192 * blocks"},
            "profile": {"ub_bank_groups": [8, 16]}, "params": {"tiles": [1, 3], "blocks": [2]}}
    path = _write(tmp_path, spec)
    out = str(tmp_path / "o.csv")
    sweep.run(path, out, jobs=1)
    rows = _rows(out)
    assert len(rows) == 4
    sim = os.path.join(os.path.dirname(_libasc.lib()._path), "sim", "asc-sim")
    if not os.path.exists(sim):
        pytest.skip(f"{sim} is not built")
    binf = str(tmp_path / "k.bin")
    subprocess.run([os.path.join(os.path.dirname(sim), "..", "asm", "asc-as"), KERNEL, "-o", binf], check=True)
    for r in rows:
        n = int(r["tiles"]) * 8192 * 2
        x = np.random.default_rng(5).uniform(0, 4, size=[n]).astype(np.float32).astype(np.float16)
        np.save(tmp_path / "x.npy", x)
        np.save(tmp_path / "y.npy", np.full([n], 0.5, np.float16))
        rep = subprocess.run([sim, "run", binf, "--blocks", "2", "--set", "dma.hbm_bytes_per_cycle=256", "--set",
                              f"ub_bank_groups={r['ub_bank_groups']}", "--arg", f"x={tmp_path / 'x.npy'}",
                              "--arg", f"y={tmp_path / 'y.npy'}", "--arg", f"z=@{tmp_path / 'z.npy'}:{n}:f16",
                              "--arg", f"n={n}", "--json"], check=True, capture_output=True, text=True).stdout
        figs = engine.flatten(json.loads(rep, parse_float=str, parse_int=str))
        cols = ["point", "ub_bank_groups", "tiles", "blocks"]
        want = {results.figure_column(k, cols[1:]): v for k, v in figs.items()}
        got = {k: v for k, v in r.items() if k not in cols + ["status", "error", "spec_digest"] and v != ""}
        assert got == want
        z = np.load(tmp_path / "z.npy")
        assert np.array_equal(z, (x + np.float16(0.5)).astype(np.float16))
        # per_core sums: pipes.* is the sum over the cores of the report
        cores = json.loads(rep)["per_core"]
        assert int(r["pipes.MTE2.busy_cycles"]) == sum(c["pipes"]["MTE2"]["busy_cycles"] for c in cores)


def test_toml_spec_gives_the_same_csv(tmp_path):
    j = {"kernel": KERNEL, "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n"},
         "profile": {"queue_depth": [2, 32]}, "params": {"n": [8192, 16384]}}
    a = str(tmp_path / "a.csv")
    sweep.run(_write(tmp_path, j), a, jobs=1)
    toml = (f'kernel = "{KERNEL}"\n[args]\nx = {{ seed = 1, shape = ["n"] }}\ny = {{ seed = 2, shape = ["n"] }}\n'
            'z = "@n"\n[profile]\nqueue_depth = [2, 32]\n[params]\nn = [8192, 16384]\n')
    (tmp_path / "s.toml").write_text(toml)
    b = str(tmp_path / "b.csv")
    sweep.run(str(tmp_path / "s.toml"), b, jobs=1)
    assert open(a, "rb").read() == open(b, "rb").read()


def test_zip_pairs_values(tmp_path):
    j = {"kernel": KERNEL, "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n"},
         "params": {"n": [8192, 16384, 32768], "blocks": [1, 2, 4]}, "zip": [["n", "blocks"]]}
    out = str(tmp_path / "z.csv")
    sweep.run(_write(tmp_path, j), out, jobs=1)
    assert [(r["n"], r["blocks"]) for r in _rows(out)] == [("8192", "1"), ("16384", "2"), ("32768", "4")]


BASE = {"kernel": KERNEL, "args": {"x": {"seed": 1, "shape": ["n"]}, "y": {"seed": 2, "shape": ["n"]}, "z": "@n"},
        "params": {"n": [8192]}}


@pytest.mark.parametrize("change, words", [
    ({"profile": {"ub_bank_grups": [8]}}, ["profile.ub_bank_grups", "unknown config key 'ub_bank_grups'"]),
    ({"profile": {"ub_bank_groups": [16, 128]}},
     ["profile.ub_bank_groups[1]", "ub_bank_groups=128", "must be an integer in the range [1, 64], got 128"]),
    ({"profile": {"ub_bank_groups": [3]}}, ["profile.ub_bank_groups", "must be a power of two, got 3"]),
    ({"set": {"queue_depth": 0}}, ["set: queue_depth=0", "range [1, 4096]"]),
    ({"args": {**BASE["args"], "q": 1}}, ["args.q", "unknown kernel argument 'q'", "takes x, y, z, n"]),
    ({"params": {"n": [8192], "m": [1, 2]}}, ["params.m", "unknown kernel argument 'm'"]),
    ({"params": {"n": {"from": 16384, "to": 8192, "step": 8192}}}, ["params.n", "empty range"]),
    ({"profile": {"queue_depth": []}}, ["profile.queue_depth", "empty list"]),
    ({"params": {"n": {"from": 1, "to": 9, "step": 0}}}, ["params.n.step", "must be positive"]),
    ({"params": {"n": [8192, 16384], "blocks": [1]}, "zip": [["n", "blocks"]]},
     ["zip[0]", "as many values", "n has 2, blocks has 1"]),
    ({"args": {"x": {"seed": 1, "shape": ["n"]}, "z": "@n"}}, ["args", "argument 'y' is missing"]),
    ({"args": {**BASE["args"], "z": "@n:f32"}}, ["args.z", "output declared f32", "is f16"]),
    ({"params": {"n": [8192], "blocks": [0]}}, ["params.blocks[0]", "positive integer"]),
    ({"params": {"n": [8192], "blocks": [100000]}}, ["point 0", "blocks=100000"]),
    ({"kernel": "nope.s"}, ["kernel", "nope.s: no such file"]),
    ({"frobnicate": 1}, ["unknown key 'frobnicate'"]),
])
def test_bad_specs_exit_1_naming_key_and_rule(tmp_path, capsys, change, words):
    spec = {**BASE, **change}
    path = _write(tmp_path, spec)
    out = str(tmp_path / "o.csv")
    assert cli.main([path, "-o", out, "-j", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("asc-sweep: error: ") and err.count("\n") == 1, err
    for w in words:
        assert w in err, (w, err)
    assert not os.path.exists(out)


def test_resume_refuses_another_specs_csv(tmp_path, capsys):
    a = _write(tmp_path, BASE)
    out = str(tmp_path / "o.csv")
    assert cli.main([a, "-o", out, "-j", "1"]) == 0
    b = _write(tmp_path, {**BASE, "set": {"queue_depth": 4}}, "b.json")
    capsys.readouterr()
    assert cli.main([b, "-o", out, "-j", "1"]) == 1
    assert "written for another spec" in capsys.readouterr().err


def test_a_faulting_point_is_a_row_not_a_crash(tmp_path, capsys):
    spec = {**BASE, "max_cycles": 1500}
    out = str(tmp_path / "o.csv")
    assert cli.main([_write(tmp_path, spec), "-o", out, "-j", "1"]) == 0
    [r] = _rows(out)
    assert r["status"] == "limit" and "--max-cycles 1500 exceeded" in r["error"] and r.get("total_cycles", "") == ""
    assert "1 points did not finish" in capsys.readouterr().err


def test_pareto_front_is_the_non_dominated_set():
    rng = np.random.default_rng(3)
    pts = [tuple(map(float, p)) for p in rng.integers(0, 30, size=(300, 2))]
    for ma in (False, True):
        for mb in (False, True):
            sa, sb = (-1 if ma else 1), (-1 if mb else 1)
            want = {i for i, (a, b) in enumerate(pts)
                    if not any(sa * c <= sa * a and sb * d <= sb * b and (c, d) != (a, b) for c, d in pts)}
            assert set(plot.pareto_front(pts, ma, mb)) == want


def test_plot_pngs(reference, tmp_path, capsys):
    spec, data = reference
    csvp = tmp_path / "r.csv"
    csvp.write_bytes(data)
    png = str(tmp_path / "x.png")
    assert cli.main(["plot", str(csvp), "--x", "dma.gm_read_latency", "--y", "total_cycles", "--by", "ub_bank_groups",
                     "-o", png]) == 0
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()
    png2 = str(tmp_path / "p.png")
    assert cli.main(["plot", str(csvp), "--pareto", "microseconds,ub_bank_groups", "-o", png2]) == 0
    assert open(png2, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    front = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    pts = [(float(r["microseconds"]), float(r["ub_bank_groups"])) for r in rows]
    assert sorted(int(f["point"]) for f in front) == sorted(int(rows[i]["point"]) for i in plot.pareto_front(pts))
    assert cli.main(["plot", str(csvp), "--x", "nope", "--y", "total_cycles", "-o", png]) == 1
    assert "'nope' is not a column" in capsys.readouterr().err
