"""What -O2 and -O3 do beyond -O1 (docs/pyasc.md "Optimisation levels"), each against numpy over
shapes with tails, and the cycles they save, asserted (the simulator is deterministic):
-O3's unroll pass (compiler/passes/unroll.py) and tiling search (runtime/tune.py) on the kernel
library's vector kernels and on an @asc.jit kernel; -O2's double buffering of one-buffer TQues
(compiler/dbuf.py) on a TQue-style kernel and on a per-element (SIMT) kernel, with the MTE2/V/MTE3
overlap read from the trace."""
import json
import os
import sys

import numpy as np
import pytest

import asc
import pyasc.runtime.config as config
from pyasc.compiler.errors import CompileError, LaunchError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc", "simt"))
import elementwise as ew  # noqa: E402
import examples as simt_ex  # noqa: E402


@pytest.fixture(autouse=True)
def _target():
    old = dict(config._state)
    config.set_platform(config.Backend.Model, "ascend910b")
    yield
    config._state.clear()
    config._state.update(old)


def _at(level, f):
    with config.opt_level(level):
        return f()


# ---- -O3: unrolling ---------------------------------------------------------------------------
@asc.jit
def loop_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, s: asc.GlobalAddress, tiles: int, tail: int):
    """z[t*64 + i] = x[t*64 + i] * 3 + t for t < tiles, over a run-time trip count (a loop
    the unroll pass doubles, with its remainder); s[0] = sum of t, s[1] = the loop variable after
    the loop (Python's: the last t), s[2] = tail + the number of iterations."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    sg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    sg.set_global_buffer(s)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 512, 64)
    acc = 0
    cnt = tail
    last = -1
    for t in range(tiles):
        asc.data_copy(xl, xg[t * 64:], 64)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.muls(zl, xl, 3.0, 64)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(zg[t * 64:], zl, 64)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        acc = acc + t
        cnt = cnt + 1
        last = t
    sg.set_value(0, acc)
    sg.set_value(1, last)
    sg.set_value(2, cnt)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("tiles", [0, 1, 2, 3, 4, 7])
def test_unroll_exact_over_trip_counts(tiles):
    x = np.random.default_rng(tiles).standard_normal(max(tiles, 1) * 64).astype(np.float32)
    outs = {}
    for lv in (2, 3):
        z = np.zeros_like(x)
        s = np.zeros(8, np.int64)
        _at(lv, lambda: loop_kernel[1](x, z, s, tiles, 5))
        outs[lv] = (z, s, loop_kernel.last_result.cycles, loop_kernel.last_compiled.asm)
        n = tiles * 64
        np.testing.assert_array_equal(z[:n], x[:n] * np.float32(3))
        assert (z[n:] == 0).all()
        assert list(s[:3]) == [sum(range(tiles)), tiles - 1 if tiles else -1, 5 + tiles]
    assert outs[2][3] != outs[3][3]           # -O3 gives other code
    if tiles >= 4:
        assert outs[3][2] < outs[2][2]        # and, over several trips, fewer cycles


# ---- -O3: the library's vector kernels (unroll + tiling search) -------------------------------
@pytest.mark.parametrize("n", [1, 1003, 6149, 65553])
@pytest.mark.parametrize("op", ["vadd", "gelu"])
def test_library_vector_kernels_o3(n, op):
    r = np.random.default_rng(n)
    x = r.standard_normal(n).astype(np.float32)
    y = r.standard_normal(n).astype(np.float32)
    f = (lambda: ew.vadd(x, y, cores=8)) if op == "vadd" else (lambda: ew.gelu(x, cores=8))
    z2 = _at(2, f)
    c2, asm2 = ew.ew_kernel.last_result.cycles, ew.ew_kernel.last_compiled.asm
    z3 = _at(3, f)
    c3, asm3 = ew.ew_kernel.last_result.cycles, ew.ew_kernel.last_compiled.asm
    tuning = ew.ew_kernel.last_tuning["tile"]
    if op == "vadd":
        np.testing.assert_array_equal(z2, x + y)
    np.testing.assert_array_equal(z3, z2)      # bit for bit at every level
    assert asm3 != asm2
    assert c3 == tuning["cycles"][tuning["chosen"]] == min(tuning["cycles"].values())
    if n >= 6149:
        assert c3 < c2                         # several tiles per core: the search and the unroll pay
    if n == 65553:
        assert tuning["chosen"] == 4096 and c3 < c2 * 0.95


def test_o3_cycles_of_the_library_table():
    """The docs' -O2/-O3 row for vadd (65536 f32 on 8 cores), measured here."""
    r = np.random.default_rng(0)
    x = r.standard_normal(65536).astype(np.float32)
    y = r.standard_normal(65536).astype(np.float32)
    cyc = []
    for lv in (2, 3):
        z = _at(lv, lambda: ew.vadd(x, y, cores=8))
        np.testing.assert_array_equal(z, x + y)
        cyc.append(ew.ew_kernel.last_result.cycles)
    assert cyc[1] < cyc[0]


@asc.jit(tune={"tile": (64, 128)})
def tile_dependent(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int]):
    """Writes its tile size into z[0]: a parameter that changes the result, wrongly marked tunable."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, tile)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def test_tune_refuses_a_result_changing_parameter():
    x = np.zeros(8, np.float32)
    z = np.zeros(8, np.int32)
    _at(2, lambda: tile_dependent[1](x, z, 64))
    assert z[0] == 64
    with pytest.raises(LaunchError, match="tune parameter 'tile' = 128 gives other numbers than 64"):
        _at(3, lambda: tile_dependent[1](x, z, 64))


# ---- -O2: double buffering of one-buffer queues ----------------------------------------------
@asc.jit
def tque1(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, tile: asc.ConstExpr[int]):
    """A TQue kernel written with ONE buffer per queue (tutorial style, no flags of its own)."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qy = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, tile * 4)
    pipe.init_buffer(qy, 1, tile * 4)
    pipe.init_buffer(qz, 1, tile * 4)
    for i in range(tiles):
        xl = qx.alloc_tensor(asc.float32)
        yl = qy.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * tile:], tile)
        asc.data_copy(yl, yg[i * tile:], tile)
        qx.enque(xl)
        qy.enque(yl)
        xi = qx.deque(asc.float32)
        yi = qy.deque(asc.float32)
        zl = qz.alloc_tensor(asc.float32)
        asc.add(zl, xi, yi, tile)
        qz.enque(zl)
        qx.free_tensor(xi)
        qy.free_tensor(yi)
        zo = qz.deque(asc.float32)
        asc.data_copy(zg[i * tile:], zo, tile)
        qz.free_tensor(zo)


def _intervals(trace, pipe):
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace if e.get("name") == "thread_name"}
    return sorted((e["args"]["start_cycle"], e["args"]["end_cycle"]) for e in trace
                  if e.get("ph") == "X" and names.get((e["pid"], e["tid"])) == pipe
                  and (e["name"].startswith("mov") if pipe != "VECTOR" else e["name"].startswith("v")))


def _overlap(a, b):
    return sum(max(0, min(x1, y1) - max(x0, y0)) for x0, x1 in a for y0, y1 in b)


@pytest.mark.parametrize("tiles", [1, 5, 8])
def test_double_buffering_at_o2(tiles, tmp_path):
    tile = 2048
    r = np.random.default_rng(tiles)
    x = r.standard_normal(tiles * tile).astype(np.float32)
    y = r.standard_normal(tiles * tile).astype(np.float32)
    got = {}
    for lv in (1, 2):
        z = np.zeros_like(x)
        path = str(tmp_path / f"t{lv}.json")
        _at(lv, lambda: tque1[1](x, y, z, tiles, tile, trace=path))
        np.testing.assert_array_equal(z, x + y)
        with open(path, encoding="utf-8") as f:
            tr = json.load(f)["traceEvents"]
        got[lv] = (tque1.last_result.cycles, tque1.last_compiled.asm,
                   _overlap(_intervals(tr, "MTE2"), _intervals(tr, "VECTOR")),
                   _overlap(_intervals(tr, "VECTOR"), _intervals(tr, "MTE3")),
                   _overlap(_intervals(tr, "MTE2"), _intervals(tr, "MTE3")))
    assert got[1][1] != got[2][1]
    if tiles > 1:
        assert got[2][0] < got[1][0]                       # fewer cycles
        assert got[1][2] == 0 and got[1][3] == 0           # one buffer: each pipe waits for the other
        assert got[2][2] > 0 and got[2][4] > 0             # two: the next load runs beside this tile's work


def test_double_buffering_falls_back_when_two_buffers_do_not_fit():
    """3 queues x 2 x 48 KiB do not fit the 184 KiB of UB: -O2 compiles the kernel as written."""
    tile = 12288
    x = np.arange(2 * tile, dtype=np.float32)
    z = np.zeros_like(x)
    _at(2, lambda: tque1[1](x, x, z, 2, tile))
    np.testing.assert_array_equal(z, x + x)
    c2 = tque1.last_result.cycles
    _at(1, lambda: tque1[1](x, x, z, 2, tile))
    assert tque1.last_compiled.asm.count("wait_flag") == _at(2, lambda: tque1.compile(x, x, z, 2, tile)).asm.count("wait_flag")
    assert c2 <= tque1.last_result.cycles


def test_simt_kernel_double_buffered_from_o2():
    n = 4096 * 48 * 4 + 1000
    x = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    cyc = {}
    for lv in (1, 2):
        y = np.zeros_like(x)
        _at(lv, lambda: simt_ex.double_kernel(x, y, n))
        np.testing.assert_array_equal(y, x * 2)
        cyc[lv] = simt_ex.double_kernel.last_result.cycles
    assert cyc[2] < cyc[1]


@pytest.mark.parametrize("n", [48 * 1000 + 7, 48 * 3000 + 5])
def test_simt_tile_search_at_o3(n):
    """-O3 runs every tile that fits (4096 down to 256) and keeps the fastest: at these sizes a
    smaller tile than the largest wins (less pipeline fill and drain per core)."""
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    cyc = {}
    for lv in (2, 3):
        y = np.zeros_like(x)
        _at(lv, lambda: simt_ex.double_kernel(x, y, n))
        np.testing.assert_array_equal(y, x * 2)
        cyc[lv] = simt_ex.double_kernel.last_result.cycles
    tuning = simt_ex.double_kernel.last_tuning["tile"]
    assert tuning["chosen"] < 4096 and simt_ex.double_kernel.tile == tuning["chosen"]
    assert cyc[3] == tuning["cycles"][tuning["chosen"]] == min(tuning["cycles"].values())
    assert cyc[3] < cyc[2]


@asc.jit
def two_live(x: asc.GlobalAddress):
    """Holds two tensors of a one-buffer queue at once: as written, the second alloc_tensor waits
    for a free that never comes; -O2's second buffer must not make this kernel run."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 256)
    a = q.alloc_tensor(asc.float32)
    b = q.alloc_tensor(asc.float32)
    asc.data_copy(a, xg, 64)
    asc.data_copy(b, xg, 64)
    q.free_tensor(a)
    q.free_tensor(b)


@asc.jit
def enque_twice(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 64)
    t = q.alloc_tensor(asc.float16)
    q.enque(t)
    q.enque(t)


def test_double_buffering_keeps_the_kernels_limits():
    """-O2 compiles a kernel that holds more tensors than it gave buffers as written (as many
    flags as at -O1), and a second enque on a one-buffer queue stays an error."""
    x = np.zeros(64, np.float32)
    at1 = _at(1, lambda: two_live.compile(x))
    at2 = _at(2, lambda: two_live.compile(x))
    assert at2.asm.count("wait_flag") == at1.asm.count("wait_flag")
    assert at2.asm.count("set_flag") == at1.asm.count("set_flag")
    with pytest.raises(CompileError, match="enque on a full TQue"):
        _at(2, lambda: enque_twice.compile(np.zeros(64, np.float16)))
