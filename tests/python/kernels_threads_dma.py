"""Kernels of test_threads_dma.py: DMA-heavy work whose copies go to host worker threads
(sim/exec_dma.c, sim/exec_dmapad.c: copies of 4 KB or more), with lengths that are not 32-byte
multiples, several cores, and GM ranges that several cores read and write."""
import asc

TILE = 3000  # elements: 12000 B of f32, 6000 B of f16 (neither a multiple of 32 B)


@asc.jit
def k_pad_tiles(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """z = x * y + x; each core takes a contiguous share in TILE-element tiles, every copy a
    data_copy_pad of the tile's real length (the last tile of a core is short)."""
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
    pipe.init_buffer(qx, 2, TILE * size + 32)
    pipe.init_buffer(qy, 2, TILE * size + 32)
    pipe.init_buffer(qz, 2, TILE * size + 32)
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
def k_ring(x: asc.GlobalAddress, z: asc.GlobalAddress, seg: asc.ConstExpr[int], rounds: asc.ConstExpr[int]):
    """Cores in a ring, unsynchronised on purpose: each round, core i reads segment i of z and
    1.5 segments of x from segment i on (its neighbour's too), and writes z + x + x[h:] into segment
    i + 1 of z, which core i + 1 reads in the same round.  What each read sees depends on the
    simulated order of the copies only; host threads must not change it."""
    nb = asc.get_block_num()
    i = asc.get_block_idx()
    nxt = (i + 1) % nb
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    h = seg // 16 * 8  # half a segment, rounded to 32 B
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, seg + seg // 2 + 8)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 65536, seg + 8)
    size = x.dtype.sizeof()
    for r in range(rounds):
        asc.data_copy_pad(a, xg[i * seg:], asc.DataCopyExtParams(1, (seg + seg // 2) * size, 0, 0, 0),
                          asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
        asc.data_copy_pad(b, zg[i * seg:], asc.DataCopyExtParams(1, seg * size, 0, 0, 0),
                          asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.add(b, b, a, seg)
        asc.add(b, b, a[h:], seg)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy_pad(zg[nxt * seg:], b, asc.DataCopyExtParams(1, seg * size, 0, 0, 0))
