"""Every asc.HardEvent on each core kind of ascend910b: the pairs of Ascend C's tables of legal
in-core synchronisation for arch 2201 (asc-devkit docs/zh/api/SIMD-API/基础API/同步控制/核内同步/
核内同步能力概述.md, Table 2 AIC and Table 3 AIV, "no application scenario yet" cells included:
the hardware has them) compile and run; every other event is a compile error at its line naming
the pair, not an assembler rejection.  HardEvent.V_V is PipeBarrier<PIPE_V> on set and nothing
on wait (impl/basic_api/kernel_event.h SetFlagImpl / WaitFlagImpl)."""
import json

import numpy as np
import pytest

import asc
from pyasc.compiler.events import HARD_EVENTS

pytestmark = pytest.mark.libasc

LEGAL = {
    "AIC_ONLY": {"M_MTE1", "M_MTE2", "M_FIX", "MTE1_M", "MTE1_MTE2", "MTE1_MTE3", "MTE1_FIX", "MTE2_M",
                 "MTE2_MTE1", "MTE2_MTE3", "MTE2_FIX", "MTE3_MTE1", "MTE3_MTE2", "FIX_M", "FIX_MTE1",
                 "FIX_MTE2", "FIX_MTE3"},
    "AIV_ONLY": {"S_V", "S_MTE2", "S_MTE3", "V_S", "V_MTE2", "V_MTE3", "MTE2_S", "MTE2_V", "MTE2_MTE3",
                 "MTE3_S", "MTE3_V", "MTE3_MTE2", "V_V"},
}

SRC = """import asc

@asc.jit(kernel_type=asc.KernelType.{kt})
def k(x: asc.GlobalAddress):
    asc.set_flag(asc.HardEvent.{ev}, 1)
    asc.wait_flag(asc.HardEvent.{ev}, 1)
"""


def _load(tmp_path, name, text):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("kt", sorted(LEGAL))
def test_every_event_compiles_or_is_named(tmp_path, kt):
    x = np.zeros(16, np.float32)
    for ev in HARD_EVENTS:
        k = _load(tmp_path, f"k_{kt}_{ev}", SRC.format(kt=kt, ev=ev)).k
        if ev in LEGAL[kt]:
            res = k[1](x)
            assert res.cycles > 0, ev
            continue
        with pytest.raises(asc.CompileError) as e:
            k.asm(x)
        msg = str(e.value)
        assert f"k_{kt}_{ev}.py:5:5" in msg and f"asc.set_flag(HardEvent.{ev})" in msg, msg
        assert "is not a legal flag pair" in msg or "the core has no" in msg, msg
        assert "assembler" not in msg, msg


@asc.jit(kernel_type=asc.KernelType.AIV_ONLY)
def k_vv(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 256, 64)
    asc.data_copy(t, xg, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(u, t, 1.0, n)
    asc.set_flag(asc.HardEvent.V_V, 0)       # PipeBarrier<PIPE_V>: u is written before it is read
    asc.wait_flag(asc.HardEvent.V_V, 0)      # nothing
    asc.muls(t, u, 3.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, t, n)


def test_v_v_is_a_vector_barrier():
    x = np.arange(64, dtype=np.float32) - 20.5
    z = np.zeros(64, np.float32)
    asm = k_vv.asm(x, z, 64)
    lines = [ln.split("#")[0].split() for ln in asm.splitlines()]
    assert not any(ln[:1] in (["set_flag"], ["wait_flag"]) and ln[1:3] == ["v,", "v,"] for ln in lines), asm
    assert sum(1 for ln in lines if ln[:2] == ["bar", "v"]) == 1, asm
    k_vv[1](x, z, 64)
    np.testing.assert_array_equal(z, (x + 1.0) * 3.0)


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def k_mte2_fix(a: asc.GlobalAddress, c: asc.GlobalAddress):
    ag = asc.GlobalTensor()
    ag.set_global_buffer(a)
    cg = asc.GlobalTensor()
    cg.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 64 * 1024)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
    asc.data_copy(a1, ag, 64 * 1024)
    asc.set_flag(asc.HardEvent.MTE2_FIX, 0)
    asc.wait_flag(asc.HardEvent.MTE2_FIX, 0)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(16, 16, 0, 16))


def test_mte2_fix_orders_the_fix_pipe_after_mte2(tmp_path):
    tr = tmp_path / "t.json"
    a = np.ones(64 * 1024, np.float16)
    c = np.zeros((16, 16), np.float32)
    k_mte2_fix[1](a, c, trace=str(tr))
    ev = json.loads(tr.read_text())["traceEvents"]
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    spans = {}
    for e in ev:
        if e.get("ph") == "X":
            lane = tname.get((e["pid"], e["tid"]), "?").upper()
            spans.setdefault(lane, []).append((e["name"], e["ts"], e["ts"] + e["dur"]))
    copy = next(sp for lane, v in spans.items() if "MTE2" in lane for sp in v if sp[0] == "mov_out_to_l1")
    fix = [sp for lane, v in spans.items() if "FIX" in lane for sp in v]
    assert [sp[0] for sp in fix] == ["WAIT_FLAG", "fix_l0c_to_out.f32"], fix
    assert fix[0][1] < copy[2] <= fix[1][1], (copy, fix)      # the FIX pipe waited for the copy
