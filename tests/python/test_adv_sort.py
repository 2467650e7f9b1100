"""asc.adv.concat / asc.adv.extract (python/pyasc/adv/sort.py, dav_c220: Concat is `concat = src`,
Extract two GatherMask calls) around asc.sort against numpy: float16 and float32, several repeat
counts, ties; the half index pass covers 2 * repeat_time repeats as the asc-devkit impl runs it,
so too-small tensors are an error; the coupled profile is rejected."""
import os
import sys

import numpy as np
import pytest

import asc
from pyasc.compiler.errors import CompileError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import _common as cm  # noqa: E402

pytestmark = pytest.mark.libasc


@asc.jit
def _sync(ev: asc.ConstExpr[asc.HardEvent]):
    asc.set_flag(ev, 0)
    asc.wait_flag(ev, 0)


@asc.jit
def k_sort_extract(x: asc.GlobalAddress, ix: asc.GlobalAddress, zv: asc.GlobalAddress, zi: asc.GlobalAddress,
                   rt: asc.ConstExpr[int], nidx: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    ig = asc.GlobalTensor()
    vg = asc.GlobalTensor()
    jg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    ig.set_global_buffer(ix)
    vg.set_global_buffer(zv)
    jg.set_global_buffer(zi)
    per = 8 // x.dtype.sizeof()
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 32 * rt)
    i = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 4096, 32 * rt)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 8192, 32 * rt)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 12288, 64 * rt * per)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 24576, 32 * rt * per)
    v = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 32768, 32 * rt)
    di = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 40960, nidx)
    asc.data_copy(src, xg, 32 * rt)
    asc.data_copy(i, ig, 32 * rt)
    _sync(asc.HardEvent.MTE2_V)
    asc.adv.concat(c, src, t, rt)           # c now names src's buffer
    asc.sort(d, c, i, t, rt, is_full_sort=True)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.adv.extract(v, di, d, rt)
    _sync(asc.HardEvent.V_MTE3)
    asc.data_copy(vg, v, 32 * rt)
    asc.data_copy(jg, di, 32 * rt)


def _run(dtype, rt, seed=0, ties=False, nidx=None):
    rng = np.random.default_rng(seed + rt)
    n = 32 * rt
    x = (rng.integers(-8, 8, n) if ties else rng.standard_normal(n) * 100).astype(dtype)
    ix = rng.permutation(n).astype(np.uint32)
    zv = np.zeros(n, dtype)
    zi = np.zeros(n, np.uint32)
    if nidx is None:
        nidx = 64 * rt if dtype == np.float16 else 32 * rt
    k_sort_extract[1](x, ix, zv, zi, rt, nidx)
    o = np.argsort(-x.astype(np.float64), kind="stable")   # descending, ties in input order
    return zv, zi, x[o], ix[o]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("rt,ties", [(1, False), (2, True), (4, False), (5, True), (8, False)])
def test_concat_sort_extract(dtype, rt, ties):
    zv, zi, rv, ri = _run(dtype, rt, ties=ties)
    np.testing.assert_array_equal(zv, rv)
    np.testing.assert_array_equal(zi, ri)


def test_half_index_pass_needs_twice_the_indices():
    with pytest.raises(CompileError, match=r"dst_index holds 256 B but the index pass \(4 repeats of 32 indices, "
                                           r"2 \* repeat_time for half"):
        _run(np.float16, 2, nidx=64)


def test_float_exact_sizes_are_enough():
    zv, zi, rv, ri = _run(np.float32, 3, nidx=96)
    np.testing.assert_array_equal(zi, ri)


def test_coupled_profile_rejected():
    with cm.on_target("teach"):
        with pytest.raises(CompileError, match="ProposalExtract|ProposalConcat"):
            _run(np.float32, 1)
