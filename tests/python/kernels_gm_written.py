"""Kernels of test_gm_written.py: which GM a kernel writes, and which it leaves alone
(sim.h asc_sim_gm_written; runtime/launch.py reads back only written arrays)."""
import asc

TILE = 3000  # elements: neither 12000 B (f32/int32) nor 6000 B (f16) is a multiple of 32 B


@asc.jit
def k_inc_in_place(x: asc.GlobalAddress, n: int):
    """x = x + 1 in place: each core its share, TILE-element tiles GM -> UB -> GM by
    data_copy_pad of the real length (a core's last tile is short; a core may have none)."""
    nb = asc.get_block_num()
    per = (n + nb - 1) // nb
    start = asc.get_block_idx() * per
    cnt = min(per, n - start)
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    pipe = asc.TPipe()
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    size = x.dtype.sizeof()
    pipe.init_buffer(qi, 1, TILE * size + 32)
    pipe.init_buffer(qo, 1, TILE * size + 32)
    ntile = (cnt + TILE - 1) // TILE
    for t in range(ntile):
        off = start + t * TILE
        m = min(TILE, cnt - t * TILE)
        p = asc.DataCopyExtParams(1, m * size, 0, 0, 0)
        a = qi.alloc_tensor(x.dtype)
        asc.data_copy_pad(a, xg[off:], p, asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
        qi.enque(a)
        a = qi.deque(x.dtype)
        c = qo.alloc_tensor(x.dtype)
        asc.adds(c, a, 1, m)
        qi.free_tensor(a)
        qo.enque(c)
        c = qo.deque(x.dtype)
        asc.data_copy_pad(xg[off:], c, p)
        qo.free_tensor(c)


@asc.jit
def k_copy_first(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """y[:n] = x[:n] on core 0 (one data_copy_pad each way); z is an argument the kernel never
    touches, and the other cores do nothing."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    size = x.dtype.sizeof()
    if asc.get_block_idx() == 0:
        a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n + 32)
        p = asc.DataCopyExtParams(1, n * size, 0, 0, 0)
        asc.data_copy_pad(a, xg, p, asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy_pad(yg, a, p)


@asc.jit
def k_set_last(y: asc.GlobalAddress, n: int, v: int):
    """y[n - 1] = v by a scalar store on the last core; nothing else of y is written."""
    yg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    if asc.get_block_idx() == asc.get_block_num() - 1:
        yg.set_value(n - 1, v)


@asc.jit
def k_pad_last(y: asc.GlobalAddress, n: int):
    """y[n - 1] = 7 by a one-element data_copy_pad on the last core."""
    yg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    if asc.get_block_idx() == asc.get_block_num() - 1:
        a = asc.LocalTensor(y.dtype, asc.TPosition.VECOUT, 0, 256)
        asc.duplicate(a, 7, 64)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy_pad(yg[n - 1:], a, asc.DataCopyExtParams(1, y.dtype.sizeof(), 0, 0, 0))
