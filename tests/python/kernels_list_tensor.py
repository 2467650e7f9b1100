"""Kernels of test_list_tensor.py: GM tensor lists (asc.ListTensorDesc / asc.TensorDesc)."""
import asc

TILE = 256


@asc.jit(insert_sync=True)
def k_list_fma(xs: asc.GlobalAddress, ys: asc.GlobalAddress, info: asc.GlobalAddress):
    """ys[i] = xs[i] * xs[i] + xs[i] for every tensor i of two f32 lists of the same shapes
    (tensor i on core i % block_num, 256-element tiles, the last one short); core 0 writes
    info = [size, dim, then per tensor: index, extents..., data address of xs[i] and of ys[i]]."""
    b = asc.get_block_idx()
    nb = asc.get_block_num()
    xl = asc.ListTensorDesc(data=xs, length=0xffffffff, shape_size=0xffffffff)
    yl = asc.ListTensorDesc()
    yl.init(ys)
    ig = asc.GlobalTensor()
    ig.set_global_buffer(info)
    n = xl.get_size()
    xd = asc.TensorDesc(asc.float32)
    xd.set_shape_addr(ig[64:].get_phy_addr() + b * 64)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, TILE)
    if b == 0:
        ig.set_value(0, n)
    for i in range(n):
        xl.get_desc(xd, i)
        dim = xd.get_dim()
        m = xd.get_shape(0)
        if dim == 2:
            m = m * xd.get_shape(1)
        if b == 0:
            ig.set_value(1, dim)
            ig.set_value(2 + i * 5, xd.get_index())
            ig.set_value(3 + i * 5, xd.get_shape(0))
            ig.set_value(4 + i * 5, xd.get_shape(dim - 1))
            ig.set_value(5 + i * 5, asc.GlobalTensor.get_phy_addr(xd.get_data_obj()))
            yp = yl.get_data_ptr(i, asc.float32)
            yt = asc.GlobalTensor()
            yt.set_global_buffer(yp)
            ig.set_value(6 + i * 5, yt.get_phy_addr())
        if i % nb == b:
            xg = xd.get_data_obj()
            yg = asc.GlobalTensor()
            yg.set_global_buffer(yl.get_data_ptr(i, asc.float32))
            for t in range((m + TILE - 1) // TILE):
                off = t * TILE
                k = min(TILE, m - off)
                p = asc.DataCopyExtParams(1, k * 4, 0, 0, 0)
                pad = asc.DataCopyPadExtParams(asc.float32, False, 0, 0, 0)
                asc.data_copy_pad(a, xg[off:], p, pad)
                asc.mul(c, a, a, k)
                asc.add(c, c, a, k)
                asc.data_copy_pad(yg[off:], c, p)
