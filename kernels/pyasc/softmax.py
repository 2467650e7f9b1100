"""Row softmax of 1024-element float32 rows, one row per core: reduce_max, brcb broadcast,
sub with a zero source stride, exp, reduce_sum, div.  Run: PYTHONPATH=python /usr/bin/python3
kernels/pyasc/softmax.py"""
import numpy as np

import asc
import asc.runtime.config as config

N = 1024


@asc.jit
def softmax_rows(x: asc.GlobalAddress, y: asc.GlobalAddress, rows_per_core: int):
    first = asc.get_block_idx() * rows_per_core
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x + first * N)
    yg.set_global_buffer(y + first * N)
    f32 = asc.float32
    row = asc.LocalTensor(f32, asc.TPosition.VECCALC, 0, N)
    work = asc.LocalTensor(f32, asc.TPosition.VECCALC, 4096, 64)
    red = asc.LocalTensor(f32, asc.TPosition.VECCALC, 4352, 64)
    bcast = asc.LocalTensor(f32, asc.TPosition.VECCALC, 4608, 64)
    lanes = 256 // f32.sizeof()
    rep = asc.BinaryRepeatParams(1, 1, 0, 8, 8, 0)      # src1: one 32 B block, re-read everywhere
    for r in range(rows_per_core):
        asc.data_copy(row, xg[r * N:], N)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.reduce_max(red, row, work, N)
        asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
        asc.sub(row, row, bcast, mask=lanes, repeat_times=N // lanes, repeat_params=rep)
        asc.exp(row, row, N)
        asc.reduce_sum(red, row, work, N)
        asc.brcb(bcast, red, 1, asc.BrcbRepeatParams(1, 8))
        asc.div(row, row, bcast, mask=lanes, repeat_times=N // lanes, repeat_params=rep)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(yg[r * N:], row, N)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def reference(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def run(rows=8, cores=8, **kw):
    config.set_platform(config.Backend.Model)
    x = (np.random.randn(rows, N) * 3).astype(np.float32)
    y = np.zeros_like(x)
    res = softmax_rows[cores](x, y, rows // cores, **kw)
    return x, y, res


if __name__ == "__main__":
    x, y, res = run()
    err = np.abs(y - reference(x)).max()
    assert err < 1e-5, err
    print(f"softmax OK (max abs error {err:.2e}):", res)
