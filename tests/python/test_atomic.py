"""GM atomics against numpy: Ascend C SetAtomicAdd/Max/Min<T>, SetAtomicType/None and
Set/GetStoreAtomicConfig (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_set_atomic_impl.h,
kernel_operator_common_impl.h): every core of a split-K style kernel writes its partial result into
the same GM output, which accumulates op(GM, data) per element (sim/exec_atomic.c)."""
import numpy as np
import pytest

from kernels_atomic import k_atomic_bad_type, k_splitk, k_store_cfg

CORES = 8


@pytest.mark.parametrize("n,dt", [(1001, np.float32), (3, np.float32), (777, np.float16), (4097, np.float32),
                                  (300, np.int32), (513, np.float16)])
@pytest.mark.parametrize("op", [0, 1, 2])
def test_splitk_atomic(n, dt, op):
    rng = np.random.default_rng(n * 3 + op)
    # small integers: every partial sum is exact, so the order the cores' writes land in cannot matter
    x = rng.integers(-8, 9, (CORES, n)).astype(dt)
    y = rng.integers(-8, 9, (CORES, n)).astype(dt)
    z0 = rng.integers(-50, 51, n).astype(dt)
    z = z0.copy()
    k_splitk[CORES](x.ravel(), y.ravel(), z, n, op)
    part = (x * y).astype(dt)
    if op == 0:
        ref = (z0 + part.sum(axis=0)).astype(dt)
    elif op == 1:
        ref = np.maximum(z0, part.max(axis=0))
    else:
        ref = np.minimum(z0, part.min(axis=0))
    np.testing.assert_array_equal(z, ref)


def test_splitk_f32_add_rounding():
    """Real-valued f32 partials: each atomic add is one f32 rounding, in the order the cores' writes
    reach GM; a sequential f32 sum in some core order reproduces it to the last bit for 2 cores."""
    n = 1001
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, n)).astype(np.float32)
    y = rng.standard_normal((2, n)).astype(np.float32)
    z0 = rng.standard_normal(n).astype(np.float32)
    z = z0.copy()
    k_splitk[2](x.ravel(), y.ravel(), z, n, 0)
    p = (x * y).astype(np.float32)
    a = (z0 + p[0]) + p[1]
    b = (z0 + p[1]) + p[0]
    assert np.all((z == a) | (z == b))


def test_store_atomic_config():
    x = np.arange(4 * 64, dtype=np.float32).reshape(4, 64)
    z = np.full(64, 0.5, np.float32)
    cfg = np.zeros(8, np.int64)
    k_store_cfg[4](x.ravel(), z, cfg)
    np.testing.assert_array_equal(z, 0.5 + x.sum(axis=0))
    # type f32 (1), op sum (0); after set_atomic_none type 0; set_atomic_type(float32) gives type 1, op kept
    assert list(cfg[:5]) == [1, 0, 0, 1, 0]


def test_atomic_bad_type():
    with pytest.raises(Exception, match=r"kernels_atomic.py:\d+.*set_atomic_add: the atomic type must be one of"):
        k_atomic_bad_type[1](np.zeros(8, np.float32))
