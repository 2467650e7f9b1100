"""asc.adv.Matmul called on the AIVs of a mix kernel (python/pyasc/adv/matmul_kfc.py): the AIC
serves the AIVs' calls through the GM workspace and cross-core flags.  The acceptance kernel
(kernels/pyasc/matmul_adv_mix.py: 512 x 512 x 512 f16 -> f32 on the AIC, leaky ReLU on the AIVs,
4 AI cores of ascend910b) equals numpy, draws its cross-core arrows and runs race-free both under
check_races=True and under the GM racecheck."""
import json
import os
import sys

import numpy as np
import pytest

import asc
import asc.runtime.config as config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_adv_mix as mam  # noqa: E402


@pytest.mark.libasc
def test_adv_mix_512(tmp_path):
    tr = str(tmp_path / "t.json")
    a, b, bias, c, tiling, res = mam.run(trace=tr, check_races=True)
    assert np.abs(c - mam.reference(a, b)).max() < 1e-3
    # 8 AIVs x 256 x 128 each, in 128 x 128 tiles: 2 tile requests + 1 quit per AIV (AIV -> AIC
    # arrows) and 2 response rounds per AI core reaching both AIVs (AIC -> AIV arrows)
    assert (tiling.single_core_m, tiling.single_core_n, tiling.base_m, tiling.base_n) == (256, 128, 128, 128)
    ev = json.load(open(tr))["traceEvents"]
    ends = {}
    for e in ev:
        if e.get("name") == "flow" and str(e.get("id", "")).startswith("inter_"):
            ends.setdefault(e["id"], []).append((e["ph"], e["pid"]))
    assert len(ends) == 4 * (2 * 3 + 2 * 2)
    for v in ends.values():
        assert sorted(p for p, _ in v) == ["s", "t"] and v[0][1] != v[1][1]


@pytest.mark.libasc
def test_adv_mix_bias_gm_racecheck():
    a, b, bias, c, tiling, res = mam.run(with_bias=True, sanitize="racecheck", seed=3)
    assert np.abs(c - mam.reference(a, b, bias)).max() < 1e-3


@asc.jit(kernel_type=asc.KernelType.AIV_ONLY)
def k_aiv_only(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
               workspace: asc.GlobalAddress):
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))


def test_adv_on_aiv_only_kernel_is_an_error():
    t = mam.tiling_for(128, 128, 64, 2)
    with pytest.raises(asc.CompileError) as e:
        k_aiv_only.asm(np.zeros(8, np.float16), np.zeros(8, np.float16), np.zeros(8, np.float32), t,
                       np.zeros(64, np.uint8))
    assert "AIV-only kernel" in str(e.value)
