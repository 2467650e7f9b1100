"""Kernels of test_atomic.py: GM atomics (set_atomic_add/max/min, the store atomic config)."""
import asc

TILE = 256


@asc.jit
def k_splitk(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int, op: asc.ConstExpr[int]):
    """Split-K style: core b computes x[b] * y[b] (n elements, 256-element tiles, the last one
    short) and writes it into the one output z under an atomic op (0 add, 1 max, 2 min)."""
    b = asc.get_block_idx()
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + b * n)
    yg.set_global_buffer(y + b * n)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 2)
    qy = asc.TQue(asc.TPosition.VECIN, 2)
    qz = asc.TQue(asc.TPosition.VECOUT, 2)
    size = x.dtype.sizeof()
    pipe.init_buffer(qx, 2, TILE * size)
    pipe.init_buffer(qy, 2, TILE * size)
    pipe.init_buffer(qz, 2, TILE * size)
    if op == 0:
        asc.set_atomic_add(x.dtype)
    elif op == 1:
        asc.set_atomic_max(x.dtype)
    else:
        asc.set_atomic_min(x.dtype)
    ntile = (n + TILE - 1) // TILE
    for t in range(ntile):
        off = t * TILE
        m = min(TILE, n - off)
        p = asc.DataCopyExtParams(1, m * size, 0, 0, 0)
        pad = asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0)
        a = qx.alloc_tensor(x.dtype)
        c = qy.alloc_tensor(x.dtype)
        asc.data_copy_pad(a, xg[off:], p, pad)
        asc.data_copy_pad(c, yg[off:], p, pad)
        qx.enque(a)
        qy.enque(c)
        a = qx.deque(x.dtype)
        c = qy.deque(x.dtype)
        d = qz.alloc_tensor(x.dtype)
        asc.mul(d, a, c, m)
        qx.free_tensor(a)
        qy.free_tensor(c)
        qz.enque(d)
        d = qz.deque(x.dtype)
        asc.data_copy_pad(zg[off:], d, p)
        qz.free_tensor(d)
    asc.set_atomic_none()


@asc.jit
def k_store_cfg(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: asc.GlobalAddress):
    """set_store_atomic_config(F32, SUM), read it back with get_store_atomic_config, then
    set_atomic_type/none: every core adds its 64 floats into z; cfg gets (type, op) as read."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * 64)
    zg.set_global_buffer(z)
    cg.set_global_buffer(cfg)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(a, xg, count=64)
    asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_F32, asc.AtomicOp.ATOMIC_SUM)
    t, o = asc.get_store_atomic_config()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, a, count=64)
    asc.set_atomic_none()
    t2, o2 = asc.get_store_atomic_config()
    asc.set_atomic_type(asc.float32)
    t3, o3 = asc.get_store_atomic_config()
    asc.set_atomic_none()
    if asc.get_block_idx() == 0:
        cg.set_value(0, t)
        cg.set_value(1, o)
        cg.set_value(2, t2)
        cg.set_value(3, t3)
        cg.set_value(4, o3)


@asc.jit
def k_atomic_bad_type(z: asc.GlobalAddress):
    asc.set_atomic_add(asc.uint8)
