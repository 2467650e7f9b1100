"""Fused vector ops (one instruction each: vaddrelu, vsubrelu, vmadd, vmaddrelu, vmla;
sim/exec_vfused.inc) against numpy: f16 and f32 (s16 for add_relu/sub_relu), the count form with
counts whose bytes are not 32 B multiples, counts over several repeats, and the mask form.
Model: computed in f32, rounded once to the element type.  The kernel places its tensors itself,
so it asks for insert_sync (without it its loads race the vector op: test_sync_check.py)."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

N = 512


@asc.jit(insert_sync=True)
def k_fused(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str],
            n: asc.ConstExpr[int], form: asc.ConstExpr[str]):
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 512)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, 512)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 512)
    asc.data_copy(a, xg, 512)
    asc.data_copy(c, yg, 512)
    asc.data_copy(d, zg, 512)
    f = getattr(asc, op)
    if form == "count":
        f(d, a, c, n)
    else:
        f(d, a, c, [0x0F0F0F0F0F0F0F0F, 0x5555555555555555], 2, asc.BinaryRepeatParams())
    asc.data_copy(zg, d, 512)


def _ref(op, x, y, z):
    if x.dtype.kind == "f":
        x, y, z = (v.astype(np.float32) for v in (x, y, z))
        p = lambda u, v: (u * v).astype(np.float32)   # noqa: E731  (product rounded to f32)
    else:
        x, y, z = (v.astype(np.int64) for v in (x, y, z))
        p = None
    wrap = (lambda r: r.astype(np.int16).astype(np.int64)) if p is None else (lambda r: r)
    return {"add_relu": lambda: np.maximum(wrap(x + y), 0), "sub_relu": lambda: np.maximum(wrap(x - y), 0),
            "fused_mul_add": lambda: p(x, z) + y, "fused_mul_add_relu": lambda: np.maximum(p(x, z) + y, 0),
            "mul_add_dst": lambda: p(x, y) + z}[op]()


CASES = [(op, dt) for op in ("add_relu", "sub_relu", "fused_mul_add", "fused_mul_add_relu", "mul_add_dst")
         for dt in (np.float16, np.float32)] + [("add_relu", np.int16), ("sub_relu", np.int16)]


@pytest.mark.parametrize("op,dtype", CASES)
@pytest.mark.parametrize("form,n", [("count", 1), ("count", 77), ("count", 301), ("mask", 0)])
def test_fused(op, dtype, form, n):
    rng = np.random.default_rng(5)
    if np.dtype(dtype).kind == "f":
        x, y, z0 = ((rng.standard_normal(N) * 4).astype(dtype) for _ in range(3))
    else:   # large enough that some sums wrap past 16 bits
        x, y, z0 = (rng.integers(-30000, 30000, N).astype(dtype) for _ in range(3))
    z = z0.copy()
    k_fused[1](x, y, z, op, n, form)
    want = _ref(op, x, y, z0).astype(dtype)
    lanes = 256 // np.dtype(dtype).itemsize
    if form == "count":
        act = np.arange(N) < n
    else:
        bits = (0x5555555555555555 << 64) | 0x0F0F0F0F0F0F0F0F
        one = np.array([(bits >> i) & 1 for i in range(lanes)], bool)
        act = np.zeros(N, bool)
        act[:2 * lanes] = np.tile(one, 2)
    assert act.any() and (~act).any()
    np.testing.assert_array_equal(z[act], want[act])
    np.testing.assert_array_equal(z[~act], z0[~act])


def test_fused_rejects_other_dtypes():
    x = np.zeros(N, np.int32)
    with pytest.raises(asc.CompileError if hasattr(asc, "CompileError") else Exception, match="fused_mul_add"):
        k_fused[1](x, x.copy(), x.copy(), "fused_mul_add", 8, "count")


@asc.jit
def k_pipe_ptr(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    asc.icache_preload(2)                       # a hint: no data effect, no cost here
    q = asc.get_icache_preload_status()
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    asc.get_tpipe_ptr().init_buffer(qi, 1, 512 * 4)     # the pipe above, through GetTPipePtr
    pipe.init_buffer(qo, 1, 512 * 4)
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = qi.alloc_tensor(x.dtype)
    asc.data_copy(a, xg, n)
    qi.enque(a)
    a = qi.deque(x.dtype)
    c = qo.alloc_tensor(x.dtype)
    asc.adds(c, a, 1.0 + q, n)
    qi.free_tensor(a)
    qo.enque(c)
    c = qo.deque(x.dtype)
    asc.data_copy(zg, c, n)
    qo.free_tensor(c)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_get_tpipe_ptr_and_icache_hints(dtype):
    x = np.arange(512).astype(dtype)
    z = np.zeros(512, dtype)
    k_pipe_ptr[1](x, z, 512)
    np.testing.assert_array_equal(z, x + dtype(1))


@asc.jit
def k_no_pipe(x: asc.GlobalAddress):
    asc.get_tpipe_ptr()


def test_get_tpipe_ptr_without_pipe():
    with pytest.raises(Exception, match="constructed no asc.TPipe"):
        k_no_pipe[1](np.zeros(8, np.float32))
