"""Buggy kernels of the kinds users write (test_buggy_kernels.py): each line marked `# BUG` is
where the error, race or warning must point."""
import numpy as np
import asc

T = 256


@asc.jit
def b1_tail_overrun(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg = asc.GlobalTensor(); zg = asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 1); o = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(q, 1, T * 2); pipe.init_buffer(o, 1, T * 2)
    for i in range(tiles + 1):                       # one tile too many
        a = q.alloc_tensor(asc.float16)
        asc.data_copy(a, xg[i * T:], T)
        q.enque(a)
        b = q.deque(asc.float16)
        c = o.alloc_tensor(asc.float16)
        asc.adds(c, b, 1.0, T)
        o.enque(c)
        q.free_tensor(b)
        d = o.deque(asc.float16)
        asc.data_copy(zg[i * T:], d, T)              # BUG writes past z on the last tile
        o.free_tensor(d)


@asc.jit
def b2_deque_before_enque(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg = asc.GlobalTensor(); xg.set_global_buffer(x)
    pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, T * 2)
    b = q.deque(asc.float16)                          # BUG deque before any enque
    a = q.alloc_tensor(asc.float16)
    asc.data_copy(a, xg, T)
    q.enque(a)


@asc.jit
def b3_missing_free(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: asc.ConstExpr[int]):
    xg = asc.GlobalTensor(); zg = asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(q, 2, T * 2)
    for i in range(tiles):
        a = q.alloc_tensor(asc.float16)               # BUG the third alloc waits for ever
        asc.data_copy(a, xg[i * T:], T)
        q.enque(a)
        b = q.deque(asc.float16)
        asc.data_copy(zg[i * T:], b, T)
        # q.free_tensor(b) missing


@asc.jit
def b4_use_after_free(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg = asc.GlobalTensor(); zg = asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 1); o = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(q, 1, T * 2); pipe.init_buffer(o, 1, T * 2)
    a = q.alloc_tensor(asc.float16)
    asc.data_copy(a, xg, T)
    q.enque(a)
    b = q.deque(asc.float16)
    q.free_tensor(b)
    c = o.alloc_tensor(asc.float16)
    asc.adds(c, b, 1.0, T)                            # BUG reads b after free_tensor
    o.enque(c)
    d = o.deque(asc.float16)
    asc.data_copy(zg, d, T)
    o.free_tensor(d)


@asc.jit
def b5_bytes_as_count(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg = asc.GlobalTensor(); zg = asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, T * 4)
    a = q.alloc_tensor(asc.float32)
    asc.data_copy(a, xg, T * 4)                       # BUG count in bytes, not elements
    q.enque(a)
    b = q.deque(asc.float32)
    asc.data_copy(zg, b, T * 4)
    q.free_tensor(b)


@asc.jit
def b6_wrong_stride(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg = asc.GlobalTensor(); zg = asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    for i in range(tiles):
        asc.data_copy(a, xg[i * T:], T)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(zg[i * T * 2:], a, T)           # BUG stride of 2 tiles (f16 thinking)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def b7_cross_core_wait(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    asc.cross_core_wait_flag(3)                       # BUG nobody sets flag 3


@asc.jit
def b8_missing_barrier(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg = asc.GlobalTensor(); zg = asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, T)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, T * 2, T)
    asc.data_copy(a, xg, T)
    asc.adds(b, a, 1.0, T)                            # BUG no flag between MTE2 and V
    asc.data_copy(zg, b, T)


@asc.jit(insert_sync=False)
def b9_manual_no_sync(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg = asc.GlobalTensor(); zg = asc.GlobalTensor()
    xg.set_global_buffer(x); zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, T)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, T * 2, T)
    asc.data_copy(a, xg, T)
    asc.adds(b, a, 1.0, T)                            # BUG no flag between MTE2 and V
    asc.data_copy(zg, b, T)


@asc.jit
def b10_flag_left_set(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    asc.set_flag(asc.HardEvent.MTE2_V, 0)             # BUG set, never waited
