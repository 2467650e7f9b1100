"""Mix kernels (docs/pyasc.md "Mix kernels") and asc.lib.host tiling.

The mix matmul + leaky ReLU of kernels/pyasc/matmul_leakyrelu_mix.py equals numpy, reports no race
and draws one cross-core arrow per (set, AIV); a cross-core wait nothing satisfies is a deadlock at
the Python line; a vector op reached by the AIC program is a compile error at its line; tilings
of real pyasc's tutorial shapes are the hand-checked ones and fit the profile's buffers."""
import json
import os
import sys

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.runtime.config as config
from pyasc.compiler import targets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_leakyrelu_mix as mlr  # noqa: E402


@pytest.mark.libasc
def test_mix_matmul_leakyrelu(tmp_path):
    tr = str(tmp_path / "t.json")
    a, b, c, res = mlr.run(trace=tr, check_races=True)
    assert np.abs(c - mlr.reference(a, b)).max() < 1e-3
    ev = json.load(open(tr))["traceEvents"]
    ends = {}
    for e in ev:
        if e.get("name") == "flow" and e["id"].startswith("inter_"):
            ends.setdefault(e["id"], []).append((e["ph"], e["pid"]))
    # 4 AI cores x 4 tiles x 2 AIVs, each from the AIC's FIXP lane to an AIV's scalar unit
    assert len(ends) == mlr.CORES * (mlr.N // mlr.NT) * 2
    for v in ends.values():
        assert sorted(p for p, _ in v) == ["s", "t"] and v[0][1] != v[1][1]


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_2)
def k_deadlock(x: asc.GlobalAddress):
    if asc.ascend_is_aic():
        asc.cross_core_set_flag(1, 2, asc.PipeID.PIPE_FIX)
    if asc.ascend_is_aiv():
        asc.cross_core_wait_flag(1)
        asc.cross_core_wait_flag(1)          # the AIC sets flag 1 once only


@pytest.mark.libasc
def test_mix_deadlock_names_line():
    config.set_platform(config.Backend.Model)
    with pytest.raises(asc.KernelFault) as e:
        k_deadlock[1](np.zeros(8, np.float32))
    msg = str(e.value)
    assert "deadlock" in msg and "cross-core flag 1" in msg
    assert "core0.veccore0" in msg and "core0.veccore1" in msg and "test_mix.py:" in msg


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_2)
def k_wrong_core(x: asc.GlobalAddress):
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    asc.duplicate(t, 1.0, 64)


def test_vector_op_on_aic_is_an_error():
    with pytest.raises(asc.CompileError) as e:
        k_wrong_core.asm(np.zeros(8, np.float32))
    assert "AIC program" in str(e.value) and "ascend_is_aiv" in str(e.value)


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_1)
def k_one_aiv(x: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        g.set_value(asc.get_block_idx(), asc.get_block_num() * 100 + asc.get_block_idx() + 1)


@pytest.mark.libasc
def test_mix_1_1_numbering():
    config.set_platform(config.Backend.Model)
    x = np.zeros(8, np.int32)
    k_one_aiv[3](x)
    assert list(x[:4]) == [301, 302, 303, 0]     # one AIV per AI core: block_idx 0..2, block_num 3


def _tiling(m, n, k, dim, fix=None, cls=host.MultiCoreMatmulTiling):
    t = cls(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    if cls is host.MultiCoreMatmulTiling:
        t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    if fix:
        t.set_fix_split(*fix)
    tc = asc.adv.TCubeTiling()
    assert t.get_tiling(tc) == 0
    return t, tc


# hand-checked: tutorial 05's fixed 256 x 128 base on 2 cores splits M in two (512 rows each);
# 1024^3 on 24 cores: 4 x 6 blocks of 256 x 171 (the smallest per-core output; N 1024 / 6 rounded up,
# no 32-byte rounding once set_shape is called, as Ascend C's GetSingleShape), base 128 x 176 x 64
# (128 x 176 x 4 B = 88 KiB of L0C; 2 x 128 x 64 x 2 B = 32 KiB of L0A; 2 x 64 x 176 x 2 B = 44 KiB of L0B)
@pytest.mark.parametrize("shape, dim, fix, single, base", [
    ((1024, 640, 256), 2, (256, 128, -1), (512, 640, 256), (256, 128, 64)),
    ((1024, 1024, 1024), 24, None, (256, 171, 1024), (128, 176, 64)),
    ((128, 30720, 64), 24, None, (128, 1280, 64), (128, 256, 64)),
])
def test_tiling_hand_checked(shape, dim, fix, single, base):
    t, tc = _tiling(*shape, dim, fix)
    assert (tc.single_core_m, tc.single_core_n, tc.single_core_k) == single
    assert (tc.base_m, tc.base_n, tc.base_k) == base
    assert t.get_single_shape() == single
    assert tc.used_core_num <= dim


@pytest.mark.parametrize("cls", [host.MatmulApiTiling, host.MultiCoreMatmulTiling, host.BatchMatmulTiling])
@pytest.mark.parametrize("shape", [(16, 16, 16), (512, 1024, 512), (1000, 333, 77), (64, 8192, 4096)])
def test_tiling_fits_buffers(cls, shape):
    _, tc = _tiling(*shape, 24, cls=cls)
    tgt = targets.load(config.get_target())
    assert tc.fits(lambda b: targets.capacity(tgt, b)) == []
    assert "TCubeTiling:" in str(tc) and "base block" in str(tc)
