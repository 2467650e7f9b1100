"""Cross-core flags as joins (docs/timing.md; cannmirror/asc-devkit
docs/zh/api/SIMD-API/基础API/同步控制/核间同步/关键特性说明.md and the example
examples/01_simd_cpp_api/03_basic_api/05_sync_control/cross_core_set_wait_flag/): kernels written
as Ascend C writes them give the right answer and run race-free; a wait that the join never
completes is a deadlock naming the missing core; a set on the wrong pipe is a race the checker
reports.

The mode-2 kernel is the example's scenario: each AIV writes its half through UB to GM (MTE3)
and sets flag 0 in mode 2 on PIPE_MTE3; the AIC waits ONCE, then reads both halves.  AIV 1 has
more vector work, so its set comes much later than AIV 0's: under per-set delivery the AIC's
single wait would pass on AIV 0's set and read AIV 1's half before it lands.  Measured against the
per-set model (the simulator before this change, same kernels): s came out [1] instead of [45],
and racecheck reported "racecheck (WAR) on GM: MTE3 `mov_ub_to_out` ... (core0.veccore1) writes
argument 'y' ... read by SCALAR `ld.w` ... (core0.cubecore0) ...: no cross-core flag or sync_all
orders them"; the mode-0 kernel summed [1, 15, 36, ...] and was reported too.  Here they all run
racecheck-clean with the right answer."""
import numpy as np
import pytest

import asc
from pyasc.runtime import config
from pyasc.runtime.launch import KernelSanitizerError

pytestmark = pytest.mark.libasc
N = 256          # f32 elements per AIV
REPS = (1, 40)   # vector passes per AIV: AIV 1 is the slow one


@asc.jit
def _aiv_part(x, y, pipe):
    """AIV j: y[j*N:(j+1)*N] = x[j*N:...] + REPS[j] (REPS[j] passes of +1 in UB, int32)."""
    j = asc.get_block_idx()
    reps = asc.get_sub_block_idx() * (REPS[1] - REPS[0]) + REPS[0]
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + j * N)
    yg.set_global_buffer(y + j * N)
    t = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, N)
    asc.data_copy(t, xg, count=N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    for _ in range(reps):
        asc.adds(t, t, 1, count=N)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(yg, t, count=N)
    asc.cross_core_set_flag(0, 2, pipe)


@asc.jit
def _aic_sum(y, s):
    """The AIC, after ONE wait: s[c] = y[first element of AIV 0] + y[first element of AIV 1]."""
    asc.cross_core_wait_flag(0)
    c = asc.get_block_idx()
    yg = asc.GlobalTensor()
    sg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    sg.set_global_buffer(s)
    sg.set_value(c, yg.get_value(2 * c * N) + yg.get_value((2 * c + 1) * N))


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_2)
def k_mode2(x: asc.GlobalAddress, y: asc.GlobalAddress, s: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        _aiv_part(x, y, asc.PipeID.PIPE_MTE3)
    if asc.ascend_is_aic():
        _aic_sum(y, s)


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_2)
def k_mode2_wrong_pipe(x: asc.GlobalAddress, y: asc.GlobalAddress, s: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        _aiv_part(x, y, asc.PipeID.PIPE_V)        # fires before the MTE3 copy lands
    if asc.ascend_is_aic():
        _aic_sum(y, s)


def _inputs(cores):
    x = (np.arange(2 * cores * N) % 7).astype(np.int32)
    want_y = x + np.tile(np.repeat(np.array(REPS, np.int32), N), cores)
    want_s = np.array([want_y[2 * c * N] + want_y[(2 * c + 1) * N] for c in range(cores)], np.int32)
    return x, want_y, want_s


@pytest.mark.parametrize("cores", [1, 4])
def test_mode2_one_aic_wait_for_both_aivs(cores):
    config.set_platform(config.Backend.Model)
    x, want_y, want_s = _inputs(cores)
    y = np.zeros_like(x)
    s = np.zeros(max(8, cores), np.int32)
    k_mode2[cores](x, y, s, sanitize="racecheck")
    assert np.array_equal(y, want_y)
    assert np.array_equal(s[:cores], want_s)


def test_mode2_set_on_wrong_pipe_is_a_race():
    config.set_platform(config.Backend.Model)
    x, _, _ = _inputs(1)
    with pytest.raises(KernelSanitizerError) as e:
        k_mode2_wrong_pipe[1](x, np.zeros_like(x), np.zeros(8, np.int32), sanitize="racecheck")
    msg = str(e.value)
    assert "racecheck" in msg and "on GM" in msg and "core0.cubecore0" in msg
    assert "no cross-core flag or sync_all orders them" in msg


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_1)
def k_mode2_1_1(x: asc.GlobalAddress, s: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        xg.set_value(asc.get_block_idx(), asc.get_block_idx() * 10 + 3)
        asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_MTE3)
    if asc.ascend_is_aic():
        asc.cross_core_wait_flag(0)     # MIX_AIC_1_1: the join of the one AIV
        xg = asc.GlobalTensor()
        sg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        sg.set_global_buffer(s)
        sg.set_value(asc.get_block_idx(), xg.get_value(asc.get_block_idx()) + 1)


def test_mode2_mix_1_1():
    config.set_platform(config.Backend.Model)
    x = np.zeros(8, np.int64)
    s = np.zeros(8, np.int64)
    k_mode2_1_1[3](x, s, sanitize="racecheck")
    assert list(s[:3]) == [4, 14, 24]


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_2)
def k_mode2_one_aiv_sets(s: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        if asc.get_sub_block_idx() == 0:
            asc.cross_core_set_flag(0, 2, asc.PipeID.PIPE_MTE3)
    if asc.ascend_is_aic():
        asc.cross_core_wait_flag(0)


def test_mode2_partial_join_is_a_deadlock():
    config.set_platform(config.Backend.Model)
    with pytest.raises(asc.KernelFault) as e:
        k_mode2_one_aiv_sets[1](np.zeros(8, np.float32))
    msg = str(e.value)
    assert "deadlock" in msg and "core0.cubecore0" in msg and "test_xcore_join.py:" in msg
    assert "waits for cross-core flag 0: core0.veccore0 set it, core0.veccore1 did not" in msg


@asc.jit(kernel_type=asc.KernelType.AIV_ONLY)
def k_mode0(x: asc.GlobalAddress, s: asc.GlobalAddress):
    """Every AIV of every AI core: x[i] = i + 1, a mode-0 barrier (one set, one wait each), then
    each sums all slots (the example's scenario 0)."""
    i = asc.get_block_idx()
    xg = asc.GlobalTensor()
    sg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    sg.set_global_buffer(s)
    for _ in range(i * 30):
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    xg.set_value(i, i + 1)
    asc.cross_core_set_flag(0, 0, asc.PipeID.PIPE_MTE3)
    asc.cross_core_wait_flag(0)
    acc = 0
    for k in range(asc.get_block_num()):
        acc = acc + xg.get_value(k)
    sg.set_value(i, acc)


def test_mode0_all_aivs_of_four_ai_cores():
    config.set_platform(config.Backend.Model)
    x = np.zeros(8, np.int64)
    s = np.zeros(8, np.int64)
    k_mode0[8](x, s, sanitize="racecheck")
    assert list(s) == [36] * 8


@asc.jit(kernel_type=asc.KernelType.AIV_ONLY)
def k_mode1(x: asc.GlobalAddress, s: asc.GlobalAddress):
    """The two AIVs of each AI core: a mode-1 barrier; other AI cores are not involved."""
    i = asc.get_block_idx()
    xg = asc.GlobalTensor()
    sg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    sg.set_global_buffer(s)
    for _ in range(i * 40):
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    xg.set_value(i, i + 1)
    asc.cross_core_set_flag(1, 1, asc.PipeID.PIPE_MTE3)
    asc.cross_core_wait_flag(1)
    sg.set_value(i, xg.get_value(i // 2 * 2) + xg.get_value(i // 2 * 2 + 1))


def test_mode1_both_aivs_of_each_ai_core():
    config.set_platform(config.Backend.Model)
    x = np.zeros(8, np.int64)
    s = np.zeros(8, np.int64)
    k_mode1[8](x, s, sanitize="racecheck")
    assert list(s) == [3, 3, 7, 7, 11, 11, 15, 15]


def test_mode2_join_arrows(tmp_path):
    """The trace ends both AIVs' arrows at the AIC's one wait (docs/traces.md)."""
    import json
    config.set_platform(config.Backend.Model)
    x, _, _ = _inputs(2)
    tr = str(tmp_path / "t.json")
    k_mode2[2](x, np.zeros_like(x), np.zeros(8, np.int32), trace=tr)
    ends = {}
    for e in json.load(open(tr))["traceEvents"]:
        if e.get("name") == "flow" and e["id"].startswith("inter_"):
            ends.setdefault(e["id"], []).append((e["ph"], e["pid"], e["ts"]))
    assert len(ends) == 4                      # 2 AI cores x 2 AIVs, each to its AIC
    for v in ends.values():
        assert sorted(p for p, _, _ in v) == ["s", "t"] and v[0][1] != v[1][1]
    # per AIC the two arrows end at the same release
    by_pid = {}
    for v in ends.values():
        t = [x for x in v if x[0] == "t"][0]
        by_pid.setdefault(t[1], set()).add(t[2])
    assert len(by_pid) == 2 and all(len(ts) == 1 for ts in by_pid.values())
