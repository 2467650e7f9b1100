"""The device print channel (language/debug.py, sim/exec_print.c): asc.printf, asc.dump_tensor,
asc.dump_acc_chk_point, asc.print_time_stamp, asc.metrics_prof_start/stop.  The simulated core
formats each record when its scalar unit executes the call; the launch result carries the records
(core, 'file:line', text) in program order per core, and pyasc prints them.  Dumped values are
checked against numpy's view of the same data (counts whose bytes are not 32 B multiples)."""
import re

import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc


@asc.jit
def k_printf(x: asc.GlobalAddress, n: int, f: float):
    i = asc.get_block_idx()
    asc.printf("block %d of %d: n=%d f=%.3f hex=%#x %u%%", i, asc.get_block_num(), n, f, 255, 7)


def test_printf_per_core_in_order(capsys):
    x = np.zeros(8, np.float32)
    res = k_printf[3](x, -5, 2.5)
    want = [(c, f"block {c} of 3: n=-5 f=2.500 hex=0xff 7%") for c in range(3)]
    assert [(c, t) for c, _, t in res.prints] == want
    assert all(re.search(r"test_print\.py:\d+$", w) for _, w, _ in res.prints)
    out = capsys.readouterr().out
    for c, t in want:
        assert f"[core {c}] " in out and t in out


@asc.jit
def k_dump(x: asc.GlobalAddress, n: asc.ConstExpr[int], off: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 1024)
    asc.data_copy(a, xg, 1024)
    asc.dump_tensor(a, 5, n)
    asc.dump_acc_chk_point(a, 9, off, n)
    asc.dump_tensor(xg, 6, n)


_NAMES = {np.float16: "float16", np.float32: "float32", np.int32: "int32", np.int16: "int16"}


def _vals(text):
    return np.array([float(v) for v in text.split("\n", 1)[1].strip("[]").split(", ")])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.int16])
@pytest.mark.parametrize("n,off", [(1, 0), (7, 3), (33, 100)])
def test_dump_tensor(dtype, n, off):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(1024) * 100).astype(dtype)
    res = k_dump[1](x, n, off)
    (c0, _, t0), (c1, _, t1), (c2, _, t2) = res.prints
    esz = np.dtype(dtype).itemsize
    assert t0.startswith(f"DumpTensor: desc=5, addr=0x0, data_type={_NAMES[dtype]}, position=UB, dump_size={n}\n[")
    assert t1.startswith(f"DumpTensor: desc=9, addr={hex(off * esz)}, data_type={_NAMES[dtype]}, position=UB")
    assert "position=GM" in t2 and "desc=6" in t2
    tol = 1e-6 if np.dtype(dtype).kind == "f" else 0
    np.testing.assert_allclose(_vals(t0), x[:n].astype(np.float64), rtol=tol, atol=1e-6)
    np.testing.assert_allclose(_vals(t1), x[off:off + n].astype(np.float64), rtol=tol, atol=1e-6)
    np.testing.assert_allclose(_vals(t2), x[:n].astype(np.float64), rtol=tol, atol=1e-6)


@asc.jit
def k_marks(x: asc.GlobalAddress):
    asc.metrics_prof_start()
    asc.print_time_stamp(0x10001)
    asc.metrics_prof_stop()


def test_markers_carry_cycles():
    res = k_marks[2](np.zeros(8, np.float32))
    texts = [(c, t) for c, _, t in res.prints]
    assert [c for c, _ in texts] == [0, 0, 0, 1, 1, 1] or sorted(c for c, _ in texts) == [0, 0, 0, 1, 1, 1]
    for core in (0, 1):
        mine = [t for c, t in texts if c == core]
        assert mine[0].startswith("MetricsProfStart: time_stamp=")
        assert mine[1].startswith("PrintTimeStamp: desc_id=65537, rsv=0, time_stamp=")
        assert mine[2].startswith("MetricsProfStop: time_stamp=")
        t = [int(re.search(r"time_stamp=(\d+)", m).group(1)) for m in mine]
        assert t[0] < t[1] < t[2] <= res.cycles


@pytest.mark.parametrize("src,msg", [
    ("asc.printf('%d %d', 1)", "takes 2 argument"),
    ("asc.printf('%d', 1.5)", "is a float but '%d'"),
    ("asc.printf('%s', 1)", "conversion '%s' is not supported"),
])
def test_printf_errors(tmp_path, src, msg):
    ns = {}
    code = f"import asc\n@asc.jit\ndef k(x: asc.GlobalAddress):\n    {src}\n"
    p = tmp_path / "kp.py"
    p.write_text(code)
    exec(compile(code, str(p), "exec"), ns)
    with pytest.raises(asc.CompileError, match=re.escape(msg)):
        ns["k"][1](np.zeros(8, np.float32))
