"""Kernels used by the pyasc tests (module level: nested kernels are not supported)."""
import asc

TILE = 256
MODULE_CONST = 3


@asc.jit
def k_add_count(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 2048, TILE)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, TILE)
    asc.data_copy(a, xg, TILE)
    asc.data_copy(b, yg, TILE)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.add(c, a, b, TILE)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, c, TILE)


@asc.jit
def k_binary(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str],
             form: asc.ConstExpr[str]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    n = 256 // x.dtype.sizeof() * 2
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096 + 256, n)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, n)
    asc.data_copy(a, xg, n)
    asc.data_copy(b, yg, n)
    asc.data_copy(c, zg, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    f = getattr(asc, op)
    if form == "count":
        f(c, a, b, n - 8)
    elif form == "mask":
        f(c, a, b, mask=256 // x.dtype.sizeof() - 3, repeat_times=2, repeat_params=asc.BinaryRepeatParams())
    else:
        f(c, a, b, [0x5555555555555555, 0x0F0F0F0F0F0F0F0F], 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, n)


@asc.jit
def k_unary(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], form: asc.ConstExpr[str],
            scalar: asc.ConstExpr[float] = 0.0):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    n = 128
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, n)
    asc.data_copy(a, xg, n)
    asc.data_copy(c, zg, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    f = getattr(asc, op)
    lanes = 256 // x.dtype.sizeof()
    if op in ("adds", "muls", "maxs", "mins", "leaky_relu"):
        if form == "count":
            f(c, a, scalar, n - 8)
        else:
            f(c, a, scalar, lanes - 1, n // lanes, asc.UnaryRepeatParams())
    elif op == "duplicate":
        if form == "count":
            f(c, scalar, n - 8)
        else:
            f(c, scalar, lanes - 1, n // lanes, 1, 8)
    else:
        if form == "count":
            f(c, a, n - 8)
        else:
            f(c, a, mask=lanes - 1, repeat_times=n // lanes, repeat_params=asc.UnaryRepeatParams())
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, n)


@asc.jit
def k_reduce(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str], n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    w = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 16384, 64)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 20480, 64)
    asc.data_copy(a, xg, n)
    asc.data_copy(c, zg, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if op.startswith("whole"):
        getattr(asc, op)(c, a, 64, n // 64, 1, 1, 8)
    else:
        getattr(asc, op)(c, a, w, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, c, 64)


@asc.jit
def k_cast(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 8192, n)
    asc.data_copy(a, xg, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.cast(c, a, asc.RoundMode.CAST_RINT, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, c, n)


@asc.jit
def k_control(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, k: asc.ConstExpr[int]):
    """Scalar control flow: runtime loops, if/else, while, tuples, helpers, module constants."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    total = 0
    for i in range(n):
        if i % 2 == 0:
            total += i * MODULE_CONST
        else:
            total -= 1
    j = 0
    while j < n:
        j += k
    lo, hi = split(total, j)
    zg.set_value(0, total)
    zg.set_value(1, j)
    zg.set_value(2, lo)
    zg.set_value(3, hi)
    zg.set_value(4, xg.get_value(0) + helper_after(n))
    zg.set_value(5, n if n > 3 else -n)
    zg.set_value(6, max(n, k) + min(n, 1))


@asc.jit
def split(a: int, b: int):
    return a - b, a + b


@asc.jit
def helper_after(v: int) -> int:
    return v * 2 + 1
