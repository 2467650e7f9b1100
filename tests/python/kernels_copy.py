"""Kernels of test_copy.py: DataCopy with counts that are not 32-byte multiples, DataCopyPad."""
import asc

TILE = 256


@asc.jit
def k_xyx_tque(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """z = x * y + x: each core takes a contiguous share, in 256-element tiles, through TQues;
    every copy is a data_copy_pad of the tile's real length (the last tile is short)."""
    nb = asc.get_block_num()
    per = (n + nb - 1) // nb
    start = asc.get_block_idx() * per
    cnt = min(per, n - start)
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qy = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    size = x.dtype.sizeof()
    pipe.init_buffer(qx, 2, TILE * size)
    pipe.init_buffer(qy, 2, TILE * size)
    pipe.init_buffer(qz, 2, TILE * size)
    ntile = (cnt + TILE - 1) // TILE
    for t in range(ntile):
        off = start + t * TILE
        m = min(TILE, cnt - t * TILE)
        p = asc.DataCopyExtParams(1, m * size, 0, 0, 0)
        pad = asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0)
        a = qx.alloc_tensor(x.dtype)
        b = qy.alloc_tensor(x.dtype)
        asc.data_copy_pad(a, xg[off:], p, pad)
        asc.data_copy_pad(b, yg[off:], p, pad)
        qx.enque(a)
        qy.enque(b)
        a = qx.deque(x.dtype)
        b = qy.deque(x.dtype)
        c = qz.alloc_tensor(x.dtype)
        asc.mul(c, a, b, m)
        asc.add(c, c, a, m)
        qx.free_tensor(a)
        qy.free_tensor(b)
        qz.enque(c)
        c = qz.deque(x.dtype)
        asc.data_copy_pad(zg[off:], c, p)
        qz.free_tensor(c)


@asc.jit
def k_copy_count(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """GM -> UB -> GM with data_copy(count=n): what Ascend C's DataCopy does with any n."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2048)
    asc.data_copy(a, xg, count=n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, a, count=n)


@asc.jit
def k_copy_count_rt(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """The same with a run-time count."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 2048)
    asc.data_copy(a, xg, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, a, n)


@asc.jit
def k_copy_pad(x: asc.GlobalAddress, z: asc.GlobalAddress, nburst: asc.ConstExpr[int], blen: asc.ConstExpr[int],
               gmgap: asc.ConstExpr[int], lpad: asc.ConstExpr[int], rpad: asc.ConstExpr[int],
               is_pad: asc.ConstExpr[bool], value: asc.ConstExpr[float]):
    """GM -> UB with DataCopyPad, then the whole UB footprint back to GM as 32-byte blocks, so the
    test sees pads and dummy bytes exactly."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 4096)
    size = x.dtype.sizeof()
    asc.data_copy_pad(a, xg, asc.DataCopyExtParams(nburst, blen * size, gmgap * size, 1, 0),
                      asc.DataCopyPadExtParams(x.dtype, is_pad, lpad, rpad, value))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, a, 4096 * 4 // size)


@asc.jit
def k_pad_bad_len(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    asc.data_copy_pad(a, xg, asc.DataCopyExtParams(1, 6, 0, 0, 0), asc.DataCopyPadExtParams(x.dtype))
