"""Kernels of test_api.py: framework and tensor calls added for real pyasc's documented API."""
import asc

TILE = 256


@asc.jit
def k_bind_pool(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """z = x * 2 + 1 through a TBufPool-placed TQue pair, TPipe.init, has_idle_buffer, set_size,
    user tags and a LocalMemAllocator scratch tensor; tiles that do not divide n (the tail uses
    data_copy_pad)."""
    pipe = asc.TPipe()
    pipe.init()
    pool = asc.TBufPool(asc.TPosition.VECCALC)
    pipe.init_buf_pool(pool, 4 * TILE * 4)
    qi = asc.TQue(asc.TPosition.VECIN, 2)
    qo = asc.TQueBind(asc.TPosition.VECOUT, asc.TPosition.GM, 2)
    size = x.dtype.sizeof()
    pool.init_buffer(qi, 2, TILE * size)
    pool.init_buffer(qo, 2, TILE * size)
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    ntile = (n + TILE - 1) // TILE
    for t in range(ntile):
        m = min(TILE, n - t * TILE)
        p = asc.DataCopyExtParams(1, m * size, 0, 0, 0)
        a = qi.alloc_tensor(x.dtype)
        a.set_user_tag(7)
        asc.data_copy_pad(a, xg[t * TILE:], p, asc.DataCopyPadExtParams(x.dtype))
        qi.enque(a)
        a = qi.deque(x.dtype)
        c = qo.alloc_tensor(x.dtype)
        c.set_size(m)
        asc.muls(c, a, 2.0, c.get_size())
        asc.adds(c, c, 1.0, m)
        qi.free_tensor(a)
        qo.enque(c)
        c = qo.deque(x.dtype)
        asc.data_copy_pad(zg[t * TILE:], c, p)
        qo.free_tensor(c)


@asc.jit
def k_alloc(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """LocalMemAllocator places tensors one after the other; get_phy_addr, get_shape_size."""
    alloc = asc.LocalMemAllocator()
    a = alloc.alloc(asc.TPosition.VECIN, x.dtype, 40)
    b = alloc.alloc(asc.TPosition.VECOUT, x.dtype, 40)
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    n = asc.get_shape_size([5, 8])
    asc.data_copy_pad(a, xg, asc.DataCopyExtParams(1, n * 4, 0, 0, 0), asc.DataCopyPadExtParams(x.dtype))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.adds(b, a, float(b.get_phy_addr()), n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy_pad(zg, b, asc.DataCopyExtParams(1, n * 4, 0, 0, 0))
    asc.data_cache_clean_and_invalid()
    asc.data_sync_barrier()


@asc.jit
def k_rejected(x: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    asc.get_hccl_context()
