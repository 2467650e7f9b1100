"""Vector add in the style of pyasc's second tutorial: TPipe/TQue with double buffering and the
copy_in / compute / copy_out helpers; the compiler derives every flag.  Run:
PYTHONPATH=python /usr/bin/python3 kernels/pyasc/vadd_tque.py [--trace vadd.json]"""
import sys

import numpy as np

import asc
import asc.runtime.config as config
import asc.lib.runtime as rt

CORES = 8
BUFFER_NUM = 2
TILE_NUM = 8


@asc.jit
def vadd_tque(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
              tile: asc.ConstExpr[int], tiles: asc.ConstExpr[int] = TILE_NUM * BUFFER_NUM):
    start = asc.get_block_idx() * block_length
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + start)
    yg.set_global_buffer(y + start)
    zg.set_global_buffer(z + start)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qy = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    qz = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(qx, BUFFER_NUM, tile * x.dtype.sizeof())
    pipe.init_buffer(qy, BUFFER_NUM, tile * y.dtype.sizeof())
    pipe.init_buffer(qz, BUFFER_NUM, tile * z.dtype.sizeof())
    for i in range(tiles):
        copy_in(i, xg, yg, qx, qy, tile)
        compute(zg, qx, qy, qz, tile)
        copy_out(i, zg, qz, tile)


@asc.jit
def copy_in(i: int, xg: asc.GlobalTensor, yg: asc.GlobalTensor, qx: asc.TQue, qy: asc.TQue, tile: int):
    xl = qx.alloc_tensor(xg.dtype)
    yl = qy.alloc_tensor(yg.dtype)
    asc.data_copy(xl, xg[i * tile:], tile)
    asc.data_copy(yl, yg[i * tile:], tile)
    qx.enque(xl)
    qy.enque(yl)


@asc.jit
def compute(zg: asc.GlobalTensor, qx: asc.TQue, qy: asc.TQue, qz: asc.TQue, tile: int):
    xl = qx.deque(zg.dtype)
    yl = qy.deque(zg.dtype)
    zl = qz.alloc_tensor(zg.dtype)
    asc.add(zl, xl, yl, tile)
    qz.enque(zl)
    qx.free_tensor(xl)
    qy.free_tensor(yl)


@asc.jit
def copy_out(i: int, zg: asc.GlobalTensor, qz: asc.TQue, tile: int):
    zl = qz.deque(zg.dtype)
    asc.data_copy(zg[i * tile:], zl, tile)
    qz.free_tensor(zl)


def run(n=8 * 2048, dtype=np.float32, cores=CORES, tiles=TILE_NUM * BUFFER_NUM, **kw):
    config.set_platform(config.Backend.Model)
    x = np.random.rand(n).astype(dtype)
    y = np.random.rand(n).astype(dtype)
    z = np.zeros_like(x)
    block = n // cores
    res = vadd_tque[cores, rt.current_stream()](x, y, z, block, block // tiles, tiles, **kw)
    return x, y, z, res


if __name__ == "__main__":
    trace = sys.argv[sys.argv.index("--trace") + 1] if "--trace" in sys.argv else None
    x, y, z, res = run(trace=trace)
    assert np.array_equal(z, x + y)
    print("vadd_tque OK:", res)
