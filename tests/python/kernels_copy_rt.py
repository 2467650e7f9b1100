"""Kernels for test_copy_rt.py: run-time-count data_copy on the GM -> L1 and UB -> UB paths."""
import asc


@asc.jit(target="ascend910")   # a coupled core: one core reaches GM, L1 and UB
def k_l1_rt(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int]):
    """GM -> L1 with the run-time count n, then L1 -> UB -> GM of cap elements (L1 zeroed first)."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    l1 = asc.LocalTensor(x.dtype, asc.TPosition.A1, 0, cap)
    u = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    asc.data_copy(u, zg, cap)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(l1, u, cap)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(l1, xg, n)  # the gm->l1 line
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(u, l1, cap)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, u, cap)


@asc.jit
def k_ub_rt(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, cap: asc.ConstExpr[int]):
    """GM -> UB (cap elements), UB -> UB with the run-time count n onto a zeroed tile, UB -> GM."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cap)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 0x8000, cap)
    asc.data_copy(a, xg, cap)
    asc.data_copy(d, zg, cap)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(d, a, n)  # the ub->ub line
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, cap)
