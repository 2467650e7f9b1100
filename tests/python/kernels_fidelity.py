"""Kernels written the way real pyasc's own tests and docs call the API (keyword names, sub-tensor
indexing, is_set_mask, TBuf init forms), used by test_fidelity.py.  Module level: nested kernels
are not supported."""
import asc

BUFS = 1


@asc.jit
def f_keywords(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block: asc.ConstExpr[int],
               tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    """TQue pipeline with keyword init_buffer(que=, num=, len=) and data_copy(count=)."""
    base = asc.get_block_idx() * block
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + base)
    yg.set_global_buffer(y + base)
    zg.set_global_buffer(z + base)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFS)
    qy = asc.TQue(asc.TPosition.VECIN, BUFS)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFS)
    pipe.init_buffer(que=qx, num=BUFS, len=tile * x.dtype.sizeof())
    pipe.init_buffer(que=qy, num=BUFS, len=tile * y.dtype.sizeof())
    pipe.init_buffer(que=qz, num=BUFS, len=tile * z.dtype.sizeof())
    for i in range(tiles):
        a = qx.alloc_tensor(x.dtype)
        b = qy.alloc_tensor(y.dtype)
        asc.data_copy(a, xg[i * tile:], count=tile)
        asc.data_copy(b, yg[i * tile:], count=tile)
        qx.enque(a)
        qy.enque(b)
        a = qx.deque(x.dtype)
        b = qy.deque(y.dtype)
        c = qz.alloc_tensor(z.dtype)
        asc.add(c, a, b, tile, is_set_mask=True)
        qz.enque(c)
        qx.free_tensor(a)
        qy.free_tensor(b)
        c = qz.deque(z.dtype)
        asc.data_copy(zg[i * tile:], c, count=tile)
        qz.free_tensor(c)


@asc.jit
def f_index_tbuf(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """gm[i] / local[i] are sub-tensors (not elements); TBuf via init_buffer(buf, bytes) and
    get(dtype, len=); is_set_mask positional in both forms; whole_reduce_sum's repeat_time."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    tb = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(tb, 4096)
    t = tb.get(asc.float32, len=256)
    asc.data_copy(t, xg[64], 128)             # elements 64..191 of x
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    u = t[128]                                # the second half of the TBuf tensor
    asc.muls(u, t, 2.0, 64, True)             # count form + positional is_set_mask
    asc.adds(u[64], t[64], 1.0, 64, 1, asc.UnaryRepeatParams(), True)   # mask form + is_set_mask
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    r = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 8192, 8)
    asc.whole_reduce_sum(r, u, mask=64, repeat_time=2, dst_rep_stride=1, src_blk_stride=1, src_rep_stride=8)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, u, 128)
    asc.data_copy(zg[128], r, 8)


@asc.jit
def f_local_get_value(x: asc.GlobalAddress):
    t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)
    v = t.get_value(0)  # noqa: F841  (float16: the scalar unit cannot widen it)


@asc.jit
def f_auto(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int]):
    """LocalTensorAuto in a loop, passed to a helper annotated with it; insert_sync turns on by
    itself.  The abs of the first tile is produced before the loop and consumed inside it."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    first = asc.LocalTensorAuto(x.dtype, [2, tile // 2])
    asc.data_copy(first, xg, tile)
    for i in range(tiles):
        t = asc.LocalTensorAuto(x.dtype, tile)
        u = asc.LocalTensorAuto(x.dtype, tile)
        asc.data_copy(t, xg[i * tile:], count=tile)
        f_plus_first(u, t, first, tile)
        asc.data_copy(zg[i * tile:], u, count=tile)


@asc.jit
def f_plus_first(dst: asc.LocalTensorAuto, src: asc.LocalTensorAuto, first: asc.LocalTensorAuto,
                 n: asc.ConstExpr[int]):
    asc.add(dst, src, first, n)


@asc.jit(insert_sync=True)
def f_sync_around_if(x: asc.GlobalAddress, z: asc.GlobalAddress, flag: int):
    """insert_sync across control flow: a copy-in in a run-time branch, consumed after it."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 1024, 64)
    asc.duplicate(a, 1.0, 64)
    if flag > 0:
        asc.data_copy(a, xg, 64)
    asc.muls(c, a, 3.0, 64)
    asc.data_copy(zg, c, 64)
