"""Placed buffers (TQue, TBuf, LocalTensorAuto) never overlap a tensor the kernel placed itself
at a static address: before, placement started at UB byte 0 whatever the kernel had put there,
and the two tensors silently shared bytes (a wrong answer with no word)."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config


@asc.jit
def _fixed_and_auto(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], at: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, at, n)      # the kernel's own bytes
    asc.duplicate(c, 3.0, n)
    t = asc.LocalTensorAuto(asc.float32, n)                              # placed by the compiler
    u = asc.LocalTensorAuto(asc.float32, n)
    asc.data_copy(t, xg, count=n)
    asc.add(u, t, c, n)
    asc.data_copy(zg, u, count=n)


@pytest.mark.parametrize("n,at", [(64, 0), (256, 0), (1024, 512), (8, 256)])
def test_placed_buffers_avoid_fixed_tensors(n, at):
    config.set_platform(config.Backend.Model)
    x = np.arange(n, dtype=np.float32)
    z = np.zeros(n, np.float32)
    _fixed_and_auto[1](x, z, n, at)
    np.testing.assert_array_equal(z, x + 3.0)
