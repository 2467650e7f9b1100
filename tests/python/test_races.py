"""kernel[n](..., check_races=True): the simulator's happens-before race check (docs/timing.md
"Races") through pyasc.  A LocalTensor kernel with one manual set_flag/wait_flag pair missing
raises KernelRace naming both Python lines; the same kernel with the pair, the repository's
kernels (kernels/pyasc/*.py) and the test kernels that rely on insert_sync report nothing; the
ctypes AscSimDesc and AscSimRace mirrors match the C layout."""
import ctypes as C
import os
import runpy

import numpy as np
import pytest

import asc
from pyasc import _libasc as L
from pyasc.compiler.errors import KernelFault
from pyasc.runtime.launch import KernelRace

import kernels_sync as ks

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 256


@asc.jit
def k_flags(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, sync_in: asc.ConstExpr):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x, N)
    yg.set_global_buffer(y, N)
    zg.set_global_buffer(z, N)
    xs = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    ys = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 2048, N)
    zs = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, N)
    asc.data_copy(xs, xg, N)                                  # LOAD_X
    asc.data_copy(ys, yg, N)
    if sync_in:
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(zs, xs, ys, N)                                    # ADD
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, zs, N)


def _line_of(marker):
    src = open(__file__).read().splitlines()
    return next(i + 1 for i, s in enumerate(src) if s.rstrip().endswith("# " + marker))


def _xyz():
    rng = np.random.default_rng(3)
    return rng.random(N).astype(np.float32), rng.random(N).astype(np.float32), np.zeros(N, np.float32)


def test_missing_wait_names_both_python_lines():
    x, y, z = _xyz()
    with pytest.raises(KernelRace) as ei:
        k_flags[1](x, y, z, False, check_races=True)
    e = ei.value
    assert isinstance(e, KernelFault)
    assert e.total == 2                    # the add reads x and y, neither ordered after its load
    r = e.races[0]
    assert (r["kind"], r["pipe"], r["prev_pipe"], r["buf"]) == ("RAW", "VECTOR", "MTE2", "UB")
    assert (r["lo"], r["hi"]) == (0, N * 4)
    add, load = _line_of("ADD"), _line_of("LOAD_X")
    assert r["where"][:2] == (__file__, add) and r["prev_where"][:2] == (__file__, load)
    assert (e.file, e.line) == (__file__, add)
    r2 = e.races[1]                        # y's load ran after the add, yet it is the add's RAW
    assert (r2["kind"], r2["where"][1], r2["prev_where"][1]) == ("RAW", add, load + 1)
    text = str(e)
    assert text.startswith(f"{__file__}:{add}:")
    assert f"written by MTE2 at {__file__}:{load}: no flag or barrier orders them" in text
    assert f"{__file__}:{load}:" in text and "note: the earlier access" in text
    assert "asc.add(zs, xs, ys, N)" in text and "asc.data_copy(xs, xg, N)" in text
    assert "simulator: race (RAW): VECTOR vadd.f32" in text
    assert (z == 0).all()                  # arrays are not copied back after a race


def test_unchecked_runs_and_the_pair_is_silent():
    x, y, z = _xyz()
    k_flags[1](x, y, z, False)             # no check: runs to the end (with y's load after the add)
    x, y, z = _xyz()
    res = k_flags[1](x, y, z, True, check_races=True)
    np.testing.assert_array_equal(z, x + y)
    assert "races (--check-races): 0" in res.report


def test_functional_run_checks_too():
    x, y, z = _xyz()
    with pytest.raises(KernelRace):
        k_flags[1](x, y, z, False, check_races=True, functional=True)


@pytest.mark.parametrize("name", sorted(os.path.splitext(f)[0] for f in os.listdir(os.path.join(ROOT, "kernels", "pyasc"))
                                        if f.endswith(".py") and not f.startswith("_")))
def test_repository_kernels_race_free(name):
    m = runpy.run_path(os.path.join(ROOT, "kernels", "pyasc", name + ".py"))
    out = m["run"](check_races=True)
    res = out[-1]
    assert "races (--check-races): 0" in res.report


def test_insert_sync_kernels_race_free():
    rng = np.random.default_rng(4)
    T = ks.T
    x = rng.random(6 * T).astype(np.float32)
    z = np.zeros(6 * T, np.float32)
    ks.s_nested[1](x, z, 2, 3, check_races=True)
    ks.s_nested[1](x, z, 2, 0, check_races=True)
    ks.s_if_in_loop[1](x, z, 5, check_races=True)
    ks.s_dyn_addr[1](x, z, 5, check_races=True)


def test_ctypes_mirrors_match_the_c_layout():
    # the mirrors' offsets and sizes are abi.json's (sizeof/offsetof in C, written by
    # tools/gen_abi.c and kept current by the CTest abi_json_current), not numbers written here
    from pyasc import abi
    for name in ("AscSimDesc", "AscSimRace"):
        lay = abi.STRUCTS[name]
        cls = getattr(L, name)
        assert C.sizeof(cls) == lay["size"], name
        for f in lay["fields"]:
            assert (getattr(cls, f["name"]).offset, getattr(cls, f["name"]).size) == (f["offset"], f["size"]), \
                (name, f["name"])
