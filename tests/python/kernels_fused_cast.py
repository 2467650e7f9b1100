"""Kernels of test_fused_cast.py: add_relu_cast, sub_relu_cast, mul_cast (a lowering: the op, then vconv)."""
import asc


@asc.jit(insert_sync=True)
def k_cast_op(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int, op: asc.ConstExpr[int],
              cap: asc.ConstExpr[int]):
    """z[:n] = op(x[:n], y[:n]) converted to z's type, the count form (run-time n <= cap)."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qa = asc.TBuf(asc.TPosition.VECCALC)
    qb = asc.TBuf(asc.TPosition.VECCALC)
    qc = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(qa, cap * x.dtype.sizeof())
    pipe.init_buffer(qb, cap * x.dtype.sizeof())
    pipe.init_buffer(qc, cap * z.dtype.sizeof())
    a = qa.get(x.dtype)
    c = qb.get(x.dtype)
    d = qc.get(z.dtype)
    p = asc.DataCopyExtParams(1, n * x.dtype.sizeof(), 0, 0, 0)
    asc.data_copy_pad(a, xg, p, asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
    asc.data_copy_pad(c, yg, p, asc.DataCopyPadExtParams(x.dtype, False, 0, 0, 0))
    if op == 0:
        asc.add_relu_cast(d, a, c, n)
    elif op == 1:
        asc.sub_relu_cast(d, a, c, n)
    else:
        asc.mul_cast(d, a, c, n)
    asc.data_copy_pad(zg, d, asc.DataCopyExtParams(1, n * z.dtype.sizeof(), 0, 0, 0))


@asc.jit(insert_sync=True)
def k_cast_op_l0(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[int],
                 mask: asc.ConstExpr[int], rep: asc.ConstExpr[int]):
    """The level-0 form: `rep` repeats of `mask` source lanes, sources contiguous (rep stride 8),
    dst rep stride = one repeat of dst elements; z starts as zeros and keeps them in masked lanes."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    lanes = 256 // x.dtype.sizeof()
    n = lanes * rep
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 65536, n)
    d = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 131072, n)
    asc.data_copy(a, xg, count=n)
    asc.data_copy(c, yg, count=n)
    asc.data_copy(d, zg, count=n)
    drep = lanes * z.dtype.sizeof() // 32
    params = asc.BinaryRepeatParams(1, 1, 1, drep, 8, 8)
    if op == 0:
        asc.add_relu_cast(d, a, c, mask=mask, repeat_times=rep, repeat_params=params)
    elif op == 1:
        asc.sub_relu_cast(d, a, c, mask, rep, params)
    else:
        asc.mul_cast(d, a, c, mask=mask, repeat_times=rep, repeat_params=params)
    asc.data_copy(zg, d, count=n)
