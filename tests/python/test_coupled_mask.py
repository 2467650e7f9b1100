"""An AIC kernel on a coupled profile (teach, ascend910) runs on a core with the vector unit: the
compiler's lower pass must track the vector mask / counter mode there as for an AIV kernel and
reset it at the end of a loop body.  Before the fix the mask state was not reset for AIC
kernels, so a loop whose body ends in counter mode ran its next iteration's mask-form op in
counter mode: attention_coupled_kernel divided every later row, a silent wrong answer."""
import os
import sys

import numpy as np
import pytest

import asc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import _common as cm  # noqa: E402

pytestmark = pytest.mark.libasc
N = 64


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def rows_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, rows: int):
    """y[r] = x[r] * 2 per row of 64 f32 (muls in mask form, 64 lanes); each iteration ends with
    an adds in counter form over 128 elements of a scratch buffer, so an iteration that starts
    in the mode the previous one left would double 128 elements: the next row too."""
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64 * N)
    sc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 64 * N * 4, 2 * N)
    asc.duplicate(sc, 0.0, 2 * N)
    asc.data_copy(xl, xg, asc.DataCopyParams(1, rows * N * 4 // 32, 0, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for r in range(rows):
        asc.muls(xl[r * N:], xl[r * N:], 2.0, mask=64, repeat_times=1,
                 repeat_params=asc.UnaryRepeatParams(1, 1, 8, 8))
        asc.adds(sc, sc, 1.0, 2 * N)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(yg, xl, asc.DataCopyParams(1, rows * N * 4 // 32, 0, 0))


@pytest.mark.parametrize("target", ["teach", "ascend910"])
def test_aic_kernel_vector_mask_on_coupled(target):
    rows = 5
    x = np.arange(rows * N, dtype=np.float32) * 0.5
    y = np.zeros_like(x)
    with cm.on_target(target):          # (restores the platform the other tests expect)
        rows_kernel[1](x, y, rows)
    assert np.array_equal(y, x * 2)
