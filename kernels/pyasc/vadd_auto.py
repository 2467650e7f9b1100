"""Vector add with LocalTensorAuto and two buffers per operand: no flags, no queues; the
compiler's insert_sync pass (on because LocalTensorAuto is used, as in real pyasc) places every
set_flag/wait_flag, including the loop-carried "buffer free" pairs of double buffering, so MTE2,
V and MTE3 overlap like the TQue version.  Run: PYTHONPATH=python /usr/bin/python3
kernels/pyasc/vadd_auto.py [--trace vadd_auto.json]"""
import sys

import numpy as np

import asc
import asc.runtime.config as config
import asc.lib.runtime as rt

CORES = 8
BUFFER_NUM = 2
TILE_NUM = 8


@asc.jit
def vadd_auto(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
              tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int] = TILE_NUM * BUFFER_NUM):
    start = asc.get_block_idx() * block_length
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    zg.set_global_buffer(z + start)
    xs = [asc.LocalTensorAuto(x.dtype, tile), asc.LocalTensorAuto(x.dtype, tile)]
    ys = [asc.LocalTensorAuto(y.dtype, tile), asc.LocalTensorAuto(y.dtype, tile)]
    zs = [asc.LocalTensorAuto(z.dtype, tile), asc.LocalTensorAuto(z.dtype, tile)]
    for i in range(tiles):
        b = i % BUFFER_NUM                      # indexing a list: the loop is unrolled by 2
        asc.data_copy(xs[b], xg[i * tile:], tile)
        asc.data_copy(ys[b], yg[i * tile:], tile)
        asc.add(zs[b], xs[b], ys[b], tile)
        asc.data_copy(zg[i * tile:], zs[b], tile)


def run(n=8 * 2048, dtype=np.float32, **kw):
    config.set_platform(config.Backend.Model)
    x = np.random.rand(n).astype(dtype)
    y = np.random.rand(n).astype(dtype)
    z = np.zeros_like(x)
    block = n // CORES
    res = vadd_auto[CORES, rt.current_stream()](x, y, z, block, block // (TILE_NUM * BUFFER_NUM), **kw)
    return x, y, z, res


if __name__ == "__main__":
    trace = sys.argv[sys.argv.index("--trace") + 1] if "--trace" in sys.argv else None
    x, y, z, res = run(trace=trace)
    assert np.array_equal(z, x + y)
    print("vadd_auto OK:", res)
