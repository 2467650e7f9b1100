"""Adversarial review of -O2/-O3 (compiler/dbuf.py, passes/unroll.py, runtime/tune.py) and of the
launch: kernels whose results depend on what the optimisations must keep, each against numpy at
-O0 .. -O3 (every level equal, bit for bit).

Defects found and fixed here (each test failed before its fix):
  * -O2's second buffer changed what a kernel reads from a freshly allocated one-buffer TQue
    tensor (an accumulator kept in the queue's one buffer across iterations, by vector op or by
    get_value): compiler/dbuf.py now keeps one buffer when a slot is read before it is written;
  * LocalTensor.get_value / set_value of a TQue tensor was an internal compiler error (an `li` of
    the buffer's address Sym reached codegen): passes/lower.py resolves it;
  * one numpy array passed for two GM arguments (kernel(x, x), an in-place call) was placed
    twice, and the read-back of the unwritten copy overwrote the kernel's result:
    runtime/launch.py places it once (and refuses a partial overlap);
  * -O2's second buffer also changed what a tensor used after its free_tensor reads (with one
    buffer, the next allocation's bytes): dbuf keeps one buffer for that queue too;
  * -O3's unroll pass gave every loop of compile-time odd trip count (and every run-time loop
    with a compile-time end) a remainder `if` comparing a register with a literal, which the
    assembler refuses: an internal compiler error at -O3 (the attention kernel on ascend910b)."""
import numpy as np
import pytest

import asc
import pyasc.runtime.config as config
from pyasc.compiler.errors import LaunchError

pytestmark = pytest.mark.libasc


@pytest.fixture(autouse=True)
def _target():
    old = dict(config._state)
    config.set_platform(config.Backend.Model, "ascend910b")
    yield
    config._state.clear()
    config._state.update(old)


def _levels(f, target="ascend910b"):
    out = {}
    for lv in (0, 1, 2, 3):
        config.set_platform(config.Backend.Model, target)
        with config.opt_level(lv):
            out[lv] = f()
    return out


@asc.jit
def accum_in_queue(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, tile: asc.ConstExpr[int]):
    """z[t] = x[0] + ... + x[t] (tiles of `tile`), the running sum kept in the one buffer of the
    VECOUT queue: each iteration's fresh alloc_tensor is read before it is written."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, tile * 4)
    pipe.init_buffer(qz, 1, tile * 4)
    zl = qz.alloc_tensor(asc.float32)
    asc.duplicate(zl, 0.0, tile)
    qz.enque(zl)
    zo = qz.deque(asc.float32)
    qz.free_tensor(zo)
    for i in range(tiles):
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * tile:], tile)
        qx.enque(xl)
        xi = qx.deque(asc.float32)
        zl = qz.alloc_tensor(asc.float32)
        asc.add(zl, zl, xi, tile)
        qx.free_tensor(xi)
        qz.enque(zl)
        zo = qz.deque(asc.float32)
        asc.data_copy(zg[i * tile:], zo, tile)
        qz.free_tensor(zo)


@pytest.mark.parametrize("target", ["ascend910b", "teach"])
@pytest.mark.parametrize("tiles", [0, 1, 2, 3, 5])
def test_accumulator_in_a_one_buffer_queue(tiles, target):
    tile = 256
    x = np.random.default_rng(tiles).integers(-8, 8, max(tiles, 1) * tile).astype(np.float32)
    want = np.zeros_like(x)
    want[:tiles * tile] = np.cumsum(x[:tiles * tile].reshape(tiles, tile), axis=0).ravel()

    def f():
        z = np.zeros_like(x)
        accum_in_queue[1](x, z, tiles, tile)
        return z
    for lv, z in _levels(f, target).items():
        np.testing.assert_array_equal(z, want, err_msg=f"-O{lv}")


@asc.jit
def scalar_accum_in_queue(z: asc.GlobalAddress, tiles: int):
    """z[64 t] = 1 + 2 + ... + (t + 1), the sum kept in element 0 of the VECOUT queue's one
    buffer and read back with get_value after each alloc_tensor."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qz, 1, 256)
    zl = qz.alloc_tensor(asc.int32)
    asc.duplicate(zl, 0, 64)
    qz.enque(zl)
    zo = qz.deque(asc.int32)
    qz.free_tensor(zo)
    for i in range(tiles):
        zl = qz.alloc_tensor(asc.int32)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        prev = zl.get_value(0)
        zl.set_value(0, prev + i + 1)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        qz.enque(zl)
        zo = qz.deque(asc.int32)
        asc.data_copy(zg[i * 64:], zo, 64)
        qz.free_tensor(zo)


@pytest.mark.parametrize("tiles", [1, 2, 3, 4])
def test_scalar_accumulator_in_a_one_buffer_queue(tiles):
    want = np.zeros(tiles * 64, np.int32)
    want[::64] = np.cumsum(np.arange(1, tiles + 1))

    def f():
        z = np.zeros(tiles * 64, np.int32)
        scalar_accum_in_queue[1](z, tiles)
        return z
    for lv, z in _levels(f).items():
        np.testing.assert_array_equal(z, want, err_msg=f"-O{lv}")


@asc.jit
def inplace_dequeued(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, tile: asc.ConstExpr[int]):
    """In-place ops on a dequeued tensor (written by the copy first): -O2 still double-buffers."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, tile * 4)
    pipe.init_buffer(qz, 1, tile * 4)
    for i in range(tiles):
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * tile:], tile)
        qx.enque(xl)
        xi = qx.deque(asc.float32)
        asc.muls(xi, xi, 2.0, tile)
        asc.adds(xi, xi, 1.0, tile)
        zl = qz.alloc_tensor(asc.float32)
        zl.set_value(0, 0.0)                  # a scalar write, then the vector write of all of it
        asc.add(zl, xi, xi, tile)
        qz.enque(zl)
        qx.free_tensor(xi)
        zo = qz.deque(asc.float32)
        asc.data_copy(zg[i * tile:], zo, tile)
        qz.free_tensor(zo)


@pytest.mark.parametrize("tiles", [1, 4, 7])
def test_written_slots_still_double_buffered(tiles):
    tile = 512
    x = np.random.default_rng(tiles).integers(-8, 8, tiles * tile).astype(np.float32)

    def f():
        z = np.zeros_like(x)
        inplace_dequeued[1](x, z, tiles, tile)
        return z, inplace_dequeued.last_compiled.asm.count("wait_flag")
    out = _levels(f)
    for lv, (z, _) in out.items():
        np.testing.assert_array_equal(z, (x * 2 + 1) * 2, err_msg=f"-O{lv}")
    assert out[2][1] > out[1][1]              # the second buffers' flags: promoted at -O2


@asc.jit
def scale_into(z: asc.GlobalAddress, x: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(xl, xg, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.muls(xl, xl, 2.0, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, xl, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def test_one_array_for_two_arguments_is_one_gm_buffer():
    x = np.arange(128, dtype=np.float32)
    y = x.copy()
    scale_into[1](y, y, 128)                  # in place: z is x
    np.testing.assert_array_equal(y, x * 2)
    y = x.copy()
    scale_into[1](y, y[64:], 64)              # x is a view inside z: the same bytes
    np.testing.assert_array_equal(y, np.concatenate([x[64:] * 2, x[64:]]))
    y = x.copy()
    scale_into[1](y[64:], y, 64)              # z inside x, given first: still the same bytes
    np.testing.assert_array_equal(y, np.concatenate([x[:64], x[:64] * 2]))
    y = x.copy()
    scale_into[1](y[32:96], y[:64], 64)       # overlapping in part: one buffer, as on the device
    ref = x.copy()
    ref[32:96] = x[:64] * 2
    np.testing.assert_array_equal(y, ref)


@asc.jit
def static_bounds(s: asc.GlobalAddress, a: int):
    """A loop with a run-time start and a compile-time end, and one of a compile-time odd trip
    count: -O3's remainder `if` compared a register with a literal (the assembler refused it)."""
    sg = asc.GlobalTensor()
    sg.set_global_buffer(s)
    acc = 0
    for i in range(a, 7):
        acc = acc + i * i
    sg.set_value(0, acc)
    b = 0
    for i in range(5):
        x = sg.get_value(0)
        b = b + x + i
    sg.set_value(1, b)
    sg.set_value(2, i)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("a", [-2, 0, 1, 5, 6, 7, 9])
def test_unroll_compile_time_bounds(a):
    acc = sum(i * i for i in range(a, 7))

    def f():
        s = np.zeros(4, np.int64)
        static_bounds[1](s, a)
        return s
    for lv, s in _levels(f).items():
        assert s.tolist() == [acc, 5 * acc + 10, 4, 0], f"-O{lv}"


def test_attention_at_o3_on_ascend910b():
    """The attention kernel's compile-time loops of odd trip count (3 key blocks of 64 x 64
    for D = 64) compile at -O3 and give the -O2 bytes."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                    "kernels", "pyasc"))
    import attention as at
    rng = np.random.default_rng(33)
    q = rng.standard_normal((2, 33, 64)).astype(np.float16)
    k = rng.standard_normal((2, 17, 64)).astype(np.float16)
    v = rng.standard_normal((2, 17, 64)).astype(np.float16)
    out = {}
    for lv in (2, 3):
        with config.opt_level(lv):
            out[lv] = at.attention(q, k, v)
    np.testing.assert_array_equal(out[3], out[2])
    assert np.abs(out[3] - at.reference(q, k, v)).max() < 3e-3


@asc.jit
def read_after_free(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int]):
    """z[tile:] = tile 1 - `prev`, where `prev` names tile 0's tensor after its free_tensor (a
    use after free): with one buffer its bytes are tile 1's (z[tile:] = 0), and -O2's second
    buffer made them tile 0's."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, tile * 4)
    pipe.init_buffer(qz, 1, tile * 4)
    xl = qx.alloc_tensor(asc.float32)
    asc.data_copy(xl, xg, tile)
    qx.enque(xl)
    prev = qx.deque(asc.float32)
    qx.free_tensor(prev)
    xl = qx.alloc_tensor(asc.float32)
    asc.data_copy(xl, xg[tile:], tile)
    qx.enque(xl)
    xi = qx.deque(asc.float32)
    zl = qz.alloc_tensor(asc.float32)
    asc.sub(zl, xi, prev, tile)
    qz.enque(zl)
    qx.free_tensor(xi)
    zo = qz.deque(asc.float32)
    asc.data_copy(zg[tile:], zo, tile)
    qz.free_tensor(zo)


def test_use_after_free_compiles_as_written():
    tile = 256
    x = np.random.default_rng(2).integers(-8, 8, 2 * tile).astype(np.float32)

    def f():
        z = np.ones_like(x)
        read_after_free[1](x, z, tile)
        return z
    want = np.concatenate([np.ones(tile, np.float32), np.zeros(tile, np.float32)])
    for lv, z in _levels(f).items():
        np.testing.assert_array_equal(z, want, err_msg=f"-O{lv}")


# ---- held: regression tests of what the review tried and found right -------------------------
@asc.jit
def nested_scalars(s: asc.GlobalAddress, a: int, b: int, n: int):
    """Loop-carried scalars through nested run-time loops (an inner range(a, b, 3), a triangular
    inner loop), a flag that stops the accumulation part-way, the loop variable after the loop."""
    sg = asc.GlobalTensor()
    sg.set_global_buffer(s)
    acc = 0
    flag = 0
    cnt = 0
    last = -7
    for i in range(n):
        for j in range(a, b, 3):
            if flag == 0:
                acc = acc + j * i
                cnt = cnt + 1
            if acc > 500:
                flag = 1
            last = j
        acc = acc + 1
    sg.set_value(0, acc)
    sg.set_value(1, flag)
    sg.set_value(2, cnt)
    sg.set_value(3, last)
    tri = 0
    for i in range(n):
        for j in range(i):
            tri = tri + i - j
    sg.set_value(4, tri)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def _nested_ref(a, b, n):
    acc = flag = cnt = 0
    last = -7
    for i in range(n):
        for j in range(a, b, 3):
            if flag == 0:
                acc += j * i
                cnt += 1
            if acc > 500:
                flag = 1
            last = j
        acc += 1
    return [acc, flag, cnt, last, sum(i - j for i in range(n) for j in range(i)), 0, 0, 0]


@pytest.mark.parametrize("a,b,n", [(0, 0, 0), (0, 1, 1), (2, 9, 3), (5, 4, 2), (-3, 20, 5), (0, 40, 9)])
def test_nested_loop_carried_scalars(a, b, n):
    def f():
        s = np.zeros(8, np.int64)
        nested_scalars[1](s, a, b, n)
        return s
    for lv, s in _levels(f).items():
        assert s.tolist() == _nested_ref(a, b, n), f"-O{lv}"


@asc.jit
def hand_pipelined(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, tile: asc.ConstExpr[int]):
    """One-buffer queues software-pipelined by hand: tile t+1 is enqueued before tile t's result
    (prologue, loop from 1, epilogue): -O2 may not give the queues a second buffer wrongly."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, tile * 4)
    pipe.init_buffer(qz, 1, tile * 4)
    xl = qx.alloc_tensor(asc.float32)
    asc.data_copy(xl, xg, tile)
    qx.enque(xl)
    for i in range(1, tiles):
        xi = qx.deque(asc.float32)
        zl = qz.alloc_tensor(asc.float32)
        asc.muls(zl, xi, 3.0, tile)
        qx.free_tensor(xi)
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * tile:], tile)
        qx.enque(xl)
        qz.enque(zl)
        zo = qz.deque(asc.float32)
        asc.data_copy(zg[(i - 1) * tile:], zo, tile)
        qz.free_tensor(zo)
    xi = qx.deque(asc.float32)
    zl = qz.alloc_tensor(asc.float32)
    asc.muls(zl, xi, 3.0, tile)
    qx.free_tensor(xi)
    qz.enque(zl)
    zo = qz.deque(asc.float32)
    asc.data_copy(zg[(tiles - 1) * tile:], zo, tile)
    qz.free_tensor(zo)


@asc.jit
def hand_pipelined_static(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: asc.ConstExpr[int], tile: asc.ConstExpr[int]):
    """hand_pipelined with a compile-time trip count: the frontend's loop attempts (U = 1, then 2)
    must not leave the first attempt's free_tensor in dbuf's slot tracking (that refused -O2's
    second buffers here as 'used after its free_tensor')."""
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qx = asc.TQue(asc.TPosition.VECIN, 1)
    qz = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qx, 1, tile * 4)
    pipe.init_buffer(qz, 1, tile * 4)
    xl = qx.alloc_tensor(asc.float32)
    asc.data_copy(xl, xg, tile)
    qx.enque(xl)
    for i in range(1, tiles):
        xi = qx.deque(asc.float32)
        zl = qz.alloc_tensor(asc.float32)
        asc.muls(zl, xi, 3.0, tile)
        qx.free_tensor(xi)
        xl = qx.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * tile:], tile)
        qx.enque(xl)
        qz.enque(zl)
        zo = qz.deque(asc.float32)
        asc.data_copy(zg[(i - 1) * tile:], zo, tile)
        qz.free_tensor(zo)
    xi = qx.deque(asc.float32)
    zl = qz.alloc_tensor(asc.float32)
    asc.muls(zl, xi, 3.0, tile)
    qx.free_tensor(xi)
    qz.enque(zl)
    zo = qz.deque(asc.float32)
    asc.data_copy(zg[(tiles - 1) * tile:], zo, tile)
    qz.free_tensor(zo)


@pytest.mark.parametrize("target", ["ascend910b", "teach"])
@pytest.mark.parametrize("tiles", [1, 2, 5])
def test_hand_pipelined_one_buffer_queues(tiles, target):
    tile = 256
    x = np.random.default_rng(tiles).integers(-8, 8, tiles * tile).astype(np.float32)

    def f():
        z = np.zeros_like(x)
        hand_pipelined[1](x, z, tiles, tile)
        return z
    for lv, z in _levels(f, target).items():
        np.testing.assert_array_equal(z, x * 3, err_msg=f"-O{lv}")


def test_hand_pipelined_static_is_double_buffered():
    tile = 256
    x = np.random.default_rng(5).integers(-8, 8, 5 * tile).astype(np.float32)

    def f():
        z = np.zeros_like(x)
        hand_pipelined_static[1](x, z, 5, tile)
        return z, hand_pipelined_static.last_compiled.asm.count("wait_flag")
    out = _levels(f)
    for lv, (z, _) in out.items():
        np.testing.assert_array_equal(z, x * 3, err_msg=f"-O{lv}")
    assert out[2][1] > out[1][1]
