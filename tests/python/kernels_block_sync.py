"""Kernels of test_block_sync.py: inter-block synchronisation through GM flags (ib_set/ib_wait,
wait_pre_block/notify_next_block)."""
import asc

N = 37          # accumulator elements: 148 bytes, not a multiple of 32


@asc.jit
def _step(accg, xg, a, c, n):
    """acc = acc * 2 + x (order-dependent, so the blocks' order shows in the result)."""
    p = asc.DataCopyExtParams(1, n * 4, 0, 0, 0)
    pad = asc.DataCopyPadExtParams(asc.float32, False, 0, 0, 0)
    asc.data_copy_pad(a, accg, p, pad)
    asc.data_copy_pad(c, xg, p, pad)
    asc.muls(a, a, 2.0, n)
    asc.add(a, a, c, n)
    asc.data_copy_pad(accg, a, p)


@asc.jit(insert_sync=True)
def k_chain(acc: asc.GlobalAddress, x: asc.GlobalAddress, flags: asc.GlobalAddress, n: int):
    """Block b waits for block b - 1's flag, folds its row of x into acc, then sets its own flag."""
    b = asc.get_block_idx()
    accg = asc.GlobalTensor()
    accg.set_global_buffer(acc)
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + b * n)
    fg = asc.GlobalTensor()
    fg.set_global_buffer(flags)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 4096, 8)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 64)
    if b > 0:
        asc.ib_wait(fg, ub, b - 1, 0)
    _step(accg, xg, a, c, n)
    asc.ib_set(fg, ub, b, 0)


@asc.jit(insert_sync=True)
def k_rounds(acc: asc.GlobalAddress, x: asc.GlobalAddress, ws: asc.GlobalAddress, n: int, rounds: int):
    """rounds rounds of: wait for the blocks before this one, fold x[round, b] into acc, notify."""
    b = asc.get_block_idx()
    nb = asc.get_block_num()
    accg = asc.GlobalTensor()
    accg.set_global_buffer(acc)
    wg = asc.GlobalTensor()
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 4096, 8 * 9)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 64)
    asc.init_determine_compute_workspace(wg, ub)
    for r in range(rounds):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x + (r * nb + b) * n)
        asc.wait_pre_block(wg, ub)
        _step(accg, xg, a, c, n)
        asc.notify_next_block(wg, ub)


@asc.jit
def k_wait_forever(flags: asc.GlobalAddress):
    fg = asc.GlobalTensor()
    fg.set_global_buffer(flags)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8)
    asc.ib_wait(fg, ub, 0, 1)


@asc.jit(insert_sync=True)
def k_chain_unsynced(acc: asc.GlobalAddress, x: asc.GlobalAddress, n: int):
    """k_chain without the flags: the blocks' read-modify-writes of acc overlap."""
    b = asc.get_block_idx()
    accg = asc.GlobalTensor()
    accg.set_global_buffer(acc)
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + b * n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 64)
    _step(accg, xg, a, c, n)
