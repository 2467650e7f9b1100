"""insert_sync (compiler.passes.insert_sync): flags placed for overlap, loop-carried pairs, and correctness
around control flow."""
import json
import os
import runpy

import numpy as np
import pytest

import kernels_sync as ks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.libasc


def _kernel(name):
    return runpy.run_path(os.path.join(ROOT, "kernels", "pyasc", name + ".py"))


def _lanes(path):
    allev = json.loads(open(path).read())["traceEvents"]
    pname = {e["pid"]: e["args"]["name"] for e in allev if e.get("name") == "process_name"}
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in allev if e.get("name") == "thread_name"}
    lanes = {}
    for e in allev:
        if e.get("ph") == "X" and pname.get(e["pid"]) == "core0.veccore0" and e["dur"] > 0:
            lanes.setdefault(tname.get((e["pid"], e["tid"]), "?").upper(), []).append((e["ts"], e["ts"] + e["dur"]))
    return lanes


def test_auto_vadd_overlaps_pipes_like_tque(tmp_path):
    m = _kernel("vadd_auto")
    tr = tmp_path / "t.json"
    x, y, z, res = m["run"](trace=str(tr))
    np.testing.assert_array_equal(z, x + y)
    lanes = _lanes(tr)

    def lane(s):
        return next(v for k, v in lanes.items() if s in k)

    def overlap(a, b):
        return any(s1 < e2 and s2 < e1 for s1, e1 in a for s2, e2 in b)
    mte2, vec, mte3 = lane("MTE2"), lane("VEC"), lane("MTE3")
    assert overlap(mte2, vec) and overlap(vec, mte3) and overlap(mte2, mte3)
    tque = _kernel("vadd_tque")["run"]()[3]
    assert res.cycles <= 1.1 * tque.cycles, (res.cycles, tque.cycles)


def test_auto_vadd_gets_double_buffering_flags():
    m = _kernel("vadd_auto")
    x = np.zeros(16384, np.float32)
    low = m["vadd_auto"].compile(x, x, x, 2048, 128).lowered_text
    head, rest = low.split("  for ", 1)
    body, after = rest.split("\n  }\n", 1)
    assert "bar" not in low
    # buffer-free pairs pre-set before the loop and consumed after it, one id per buffer
    for e in (0, 1):
        assert f"set_flag [v]  src=v dst=mte2 event={e}" in head
        assert f"wait_flag [mte2]  src=v dst=mte2 event={e}" in after
    # inside: the set right after the producer, the wait right before the consumer
    lines = [ln.strip() for ln in body.splitlines()
             if ln.strip().startswith(("set_flag", "wait_flag", "dma", "vec"))]
    i = next(k for k, ln in enumerate(lines) if "vadd.f32" in ln)
    assert lines[i - 1].startswith("wait_flag [v]") and lines[i + 1].startswith("set_flag [v]")


def test_auto_beats_old_conservative_sync_on_real_pyasc_kernel():
    """The LocalTensorAuto vadd of real pyasc's insert_sync/test_vadd.py (one buffer each)."""
    x = np.random.default_rng(1).random(2048, dtype=np.float32)
    y = np.random.default_rng(2).random(2048, dtype=np.float32)
    z = np.zeros_like(x)
    res = ks_vadd_single[1](x, y, z, 256, 8)
    np.testing.assert_array_equal(z, x + y)
    assert "bar" not in ks_vadd_single.compile(x, y, z, 256, 8).lowered_text


import asc  # noqa: E402


@asc.jit
def ks_vadd_single(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                   tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    for i in range(tiles):
        xl = asc.LocalTensorAuto(x.dtype, tile)
        yl = asc.LocalTensorAuto(y.dtype, tile)
        zl = asc.LocalTensorAuto(z.dtype, tile)
        asc.data_copy(xl, xg[i * tile:], count=tile)
        asc.data_copy(yl, yg[i * tile:], count=tile)
        asc.add(zl, xl, yl, tile)
        asc.data_copy(zg[i * tile:], zl, count=tile)


@pytest.mark.parametrize("outer,inner", [(3, 2), (2, 0), (0, 3), (1, 5)])
def test_nested_runtime_loops(outer, inner):
    T = ks.T
    x = np.random.default_rng(outer * 7 + inner).random(max(outer * inner, 1) * T, dtype=np.float32)
    z = np.full(max(outer, 1) * T, -1.0, np.float32)
    ks.s_nested[1](x, z, outer, inner)
    acc = np.zeros(T, np.float32)
    for i in range(outer):
        for j in range(inner):
            acc = acc + x[(i * inner + j) * T:(i * inner + j + 1) * T]
        np.testing.assert_array_equal(z[i * T:(i + 1) * T], acc)


def test_if_in_loop():
    T, n = ks.T, 5
    x = np.random.default_rng(3).random(n * T, dtype=np.float32)
    z = np.zeros_like(x)
    ks.s_if_in_loop[1](x, z, n)
    want = np.concatenate([x[i * T:(i + 1) * T] * 2 if i % 2 == 0 else x[i * T:(i + 1) * T] + 1
                           for i in range(n)])
    np.testing.assert_array_equal(z, want)


def test_runtime_addresses_are_whole_buffer():
    T, n = ks.T, 6
    x = np.random.default_rng(4).random(n * T, dtype=np.float32)
    z = np.zeros_like(x)
    ks.s_dyn_addr[1](x, z, n)
    np.testing.assert_array_equal(z, x * np.float32(3))


def test_while_loop():
    T, n = ks.T, 4
    x = np.random.default_rng(5).random(n * T, dtype=np.float32)
    for k in (n, 0):
        z = np.full(T, -1.0, np.float32)
        ks.s_while[1](x, z, k)
        want = np.zeros(T, np.float32)
        for i in range(k):
            want = want + x[i * T:(i + 1) * T]
        np.testing.assert_array_equal(z, want)


def test_gm_roundtrip_through_the_same_argument():
    T, n = ks.T, 4
    x = np.random.default_rng(6).random(n * T, dtype=np.float32)
    w = np.zeros_like(x)
    z = np.zeros_like(x)
    ks.s_gm_roundtrip[1](x, w, z, n)
    np.testing.assert_array_equal(w, x * 2)
    np.testing.assert_array_equal(z, x * 2 + 1)
    low = ks.s_gm_roundtrip.compile(x, w, z, n).lowered_text
    assert "src=mte3 dst=mte2" in low     # the GM write is ordered before the read-back


def test_tpipe_event_id_api():
    T, n = ks.T, 3
    x = np.random.default_rng(7).random(n * T, dtype=np.float32)
    z = np.zeros_like(x)
    ks.s_event_ids[1](x, z, n)
    np.testing.assert_array_equal(z, x * 2)
    low = ks.s_event_ids.compile(x, z, n).lowered_text
    assert "src=mte2 dst=v event=0" in low and "src=v dst=mte3 event=0" in low


def test_tpipe_event_ids_run_out():
    x = np.zeros(64, np.float32)
    with pytest.raises(asc.CompileError, match="no free event id for HardEvent.MTE2_V"):
        ks.s_event_ids_exhausted.compile(x)
