"""Inter-block synchronisation through GM against numpy: Ascend C IBSet/IBWait and
WaitPreBlock/NotifyNextBlock (cannmirror/asc-devkit impl/basic_api/kernel_operator_block_sync_intf_impl.h,
impl/basic_api/dav_c220/kernel_operator_determine_compute_sync_impl.h; pyasc/language/block_sync.py).
Every block folds its row into one accumulator as acc = acc * 2 + x: the result is numpy's only
when the blocks run in block order, which only the GM flags enforce."""
import numpy as np
import pytest

import asc
from kernels_block_sync import N, k_chain, k_chain_unsynced, k_rounds, k_wait_forever


@pytest.mark.parametrize("cores,n", [(4, N), (1, 1), (8, 5), (16, 63)])
def test_ib_chain(cores, n):
    rng = np.random.default_rng(cores * 100 + n)
    x = rng.integers(-4, 5, (cores, n)).astype(np.float32)
    acc0 = rng.integers(-4, 5, n).astype(np.float32)
    acc = acc0.copy()
    flags = np.zeros(8 * cores, np.int32)
    k_chain[cores](acc, x.ravel(), flags, n)
    ref = acc0.copy()
    for b in range(cores):
        ref = ref * 2 + x[b]
    np.testing.assert_array_equal(acc, ref)
    # every flag a successor waited on was cleared by it; the last block's stays set
    assert list(flags.reshape(cores, 8)[:, 0]) == [0] * (cores - 1) + [1]
    assert not flags.reshape(cores, 8)[:, 1:].any()


def test_chain_needs_the_flags():
    """The same fold without ib_set/ib_wait is not the ordered one: the test above sees the order."""
    cores, n = 4, N
    x = np.ones((cores, n), np.float32)
    acc = np.zeros(n, np.float32)
    k_chain_unsynced[cores](acc, x.ravel(), n)
    assert not np.array_equal(acc, np.full(n, 2 ** cores - 1, np.float32))


@pytest.mark.parametrize("cores,rounds", [(3, 2), (4, 3), (1, 2), (8, 1)])
def test_pre_block_rounds(cores, rounds):
    rng = np.random.default_rng(cores * 10 + rounds)
    x = rng.integers(-4, 5, (rounds, cores, N)).astype(np.float32)
    acc0 = rng.integers(-4, 5, N).astype(np.float32)
    acc = acc0.copy()
    ws = np.zeros(8 * cores, np.int32)
    k_rounds[cores](acc, x.ravel(), ws, N, rounds)
    ref = acc0.copy()
    for r in range(rounds):
        for b in range(cores):
            ref = ref * 2 + x[r, b]
    np.testing.assert_array_equal(acc, ref)
    assert not ws.any()    # the last block of every round clears the workspace


def test_wait_never_satisfied():
    """Nothing sets the flag: the spin ends at the cycle limit, naming core, pc and the line."""
    with pytest.raises(asc.KernelFault) as e:
        k_wait_forever[1](np.zeros(16, np.int32), max_cycles=100000)
    text = str(e.value)
    assert "max_cycles=100000 exceeded" in text
    import kernels_block_sync
    src = open(kernels_block_sync.__file__, encoding="utf-8").read().splitlines()
    line = src.index("    asc.ib_wait(fg, ub, 0, 1)") + 1
    assert "core0.veccore0 pipe s pc" in text and f"kernels_block_sync.py:{line})" in text, text
