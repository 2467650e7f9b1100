"""Kernels of test_sys_workspace.py: asc.get_sys_workspace / asc.set_sys_workspace."""
import asc


@asc.jit
def k_ws_neighbour(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], off: asc.ConstExpr[int]):
    """Block i puts its n bytes of x into the system workspace at off + i*n; after sync_all it
    reads block (i+1) % nb's bytes back into z[i*n ..]: the workspace is one GM area of the launch."""
    i = asc.get_block_idx()
    nb = asc.get_block_num()
    j = (i + 1) % nb
    ws = asc.get_sys_workspace()
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    wg.set_global_buffer(ws + off)
    u = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 0, n)
    asc.data_copy(u, xg[i * n:], n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(wg[i * n:], u, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.sync_all()
    asc.data_copy(u, wg[j * n:], n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg[i * n:], u, n)


@asc.jit
def k_ws_set(x: asc.GlobalAddress, w: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """set_sys_workspace(w): get_sys_workspace() is w from there on (the bytes land in w)."""
    asc.set_sys_workspace(w)
    ws = asc.get_sys_workspace()
    xg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    wg.set_global_buffer(ws)
    u = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 0, n)
    asc.data_copy(u, xg, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(wg, u, n)


@asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_2)
def k_ws_mix(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """A mix kernel whose AIVs alone use the system workspace (the AIC program takes the argument
    too): AIV k of AI core i stages its n bytes through the workspace."""
    if asc.ascend_is_aiv():
        k = asc.get_block_idx()
        ws = asc.get_sys_workspace()
        xg = asc.GlobalTensor()
        zg = asc.GlobalTensor()
        wg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        wg.set_global_buffer(ws)
        u = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 0, n)
        asc.data_copy(u, xg[k * n:], n)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(wg[k * n:], u, n)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(u, wg[k * n:], n)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(zg[k * n:], u, n)


@asc.jit
def k_ws_set_in_if(x: asc.GlobalAddress, n: int):
    if n > 3:
        asc.set_sys_workspace(x)
