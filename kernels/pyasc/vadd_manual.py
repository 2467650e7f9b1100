"""Vector add in the style of pyasc's first tutorial: static LocalTensor addresses and manual
set_flag/wait_flag, BUFFER_NUM 2, TILE_NUM 8, 8 cores.  Run: PYTHONPATH=python /usr/bin/python3
kernels/pyasc/vadd_manual.py"""
import numpy as np

import asc
import asc.runtime.config as config
import asc.lib.runtime as rt

CORES = 8
BUFFER_NUM = 2
TILE_NUM = 8


@asc.jit
def vadd_manual(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    start = asc.get_block_idx() * block_length
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + start, block_length)
    yg.set_global_buffer(y + start, block_length)
    zg.set_global_buffer(z + start, block_length)
    tile = block_length // TILE_NUM // BUFFER_NUM
    dtype = x.dtype
    region = tile * BUFFER_NUM * dtype.sizeof()
    xs = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, tile * BUFFER_NUM)
    ys = asc.LocalTensor(dtype, asc.TPosition.VECIN, region + 256, tile * BUFFER_NUM)
    zs = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 2 * region + 512, tile * BUFFER_NUM)
    for t in range(TILE_NUM * BUFFER_NUM):
        b = t % BUFFER_NUM
        asc.data_copy(xs[b * tile:], xg[t * tile:], tile)
        asc.data_copy(ys[b * tile:], yg[t * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.add(zs[b * tile:], xs[b * tile:], ys[b * tile:], tile)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(zg[t * tile:], zs[b * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)


def run(n=8 * 2048, dtype=np.float32, **kw):
    config.set_platform(config.Backend.Model)
    x = np.random.rand(n).astype(dtype)
    y = np.random.rand(n).astype(dtype)
    z = np.zeros_like(x)
    res = vadd_manual[CORES, rt.current_stream()](x, y, z, n // CORES, **kw)
    return x, y, z, res


if __name__ == "__main__":
    x, y, z, res = run()
    assert np.array_equal(z, x + y)
    print("vadd_manual OK:", res)
