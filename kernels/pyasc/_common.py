"""Shared host and device helpers of the kernel library in kernels/pyasc/.

Host side: `on_target` (launch on one of our profiles without leaving the global platform
changed), `core_split` (contiguous per-core ranges whose starts are whole 32-byte blocks),
`check_*` (ValueError for what a kernel does not support), `workspace`.

Device side: `store_tail` writes the first `n` elements of a UB tile to GM **without touching a
byte past element n**.  The asc DMA moves whole 32-byte blocks (docs/semantics.md §4: `len` counts
32 B units; GM addresses are byte-granular), so a tail of fewer than 32 bytes cannot be written
by `mov_ub_to_out` without clobbering the bytes after it (the next row, another core's range or
another array).  store_tail therefore
  1. copies the whole blocks that lie inside the output with one DMA (`len` = n*size // 32;
     `len` = 0 is a no-op),
  2. copies the one block that holds the remaining < 32 bytes to a per-core GM workspace
     (the host allocates 32 B per core; nobody else reads it),
  3. waits for that MTE3 copy (set_flag/wait_flag MTE3_S), and
  4. moves the remaining elements one by one with the scalar unit's GM loads and stores
     (`GlobalTensor.get_value` / `set_value`: ld.w/st.w or ld.h/st.h, byte-exact in GM; the
     scalar unit cannot read UB, which is why the bytes go through the workspace).
Reads never need this: a DMA read of whole blocks past the end of an input only brings extra
bytes into UB, and every vector op is given the exact element count (counter mode), so those
lanes are never used in a result that is written.
"""
import contextlib

import numpy as np

import asc
import asc.runtime.config as config
from pyasc.compiler import targets

PROFILES = ("ascend910b", "teach")
# -O3's tiling search (python/pyasc/runtime/tune.py): the per-element kernels' tile is a free
# choice (every element is computed alone), so @asc.jit(tune=TUNE_TILE) lets -O3 pick it by the
# simulated cycles of each candidate (outputs compared, the store_tail workspace `ws` excepted);
# -O0..-O2 run the tile the host passes
TUNE_TILE = {"tile": (512, 1024, 2048, 4096), "scratch": ("ws",)}
DTYPES = {np.dtype(np.float16): asc.float16, np.dtype(np.float32): asc.float32}
_INT_OF = {2: np.int16, 4: np.int32}


@contextlib.contextmanager
def on_target(target):
    """Launch on profile `target` (None: the current platform); restores the previous one."""
    old = dict(config._state)
    try:
        if target is not None:
            if target not in targets.names():
                raise ValueError(f"unknown target profile {target!r} (known: {', '.join(targets.names())})")
            config.set_platform(config.Backend.Model, target)
        else:
            config.set_platform(config.Backend.Model)
        yield config.get_target()
    finally:
        config._state.clear()
        config._state.update(old)


def max_cores(target, kind="aiv"):
    """Cores a kernel of `kind` ("aiv" vector, "aic" cube) can run on, from the profile as libasc
    reads it (pyasc.compiler.targets): `ai_cores`, times `aiv_per_core` for vector kernels on a
    split profile (ascend910b: 24 AIC, 48 AIV; coupled teach: 2 cores of both)."""
    t = targets.load(target)
    if kind == "aiv" and t["split"]:
        return t["ai_cores"] * t["aiv_per_core"]
    return t["ai_cores"]


def epb(dtype):
    """Elements per 32-byte block."""
    return 32 // np.dtype(dtype).itemsize


def check_dtype(name, arr, allowed=(np.float16, np.float32)):
    if np.dtype(arr.dtype) not in [np.dtype(a) for a in allowed]:
        raise ValueError(f"{name}: dtype {arr.dtype} is not supported "
                         f"(supported: {', '.join(np.dtype(a).name for a in allowed)})")


def check_same(name, *arrs):
    for a in arrs[1:]:
        if a.shape != arrs[0].shape or a.dtype != arrs[0].dtype:
            raise ValueError(f"{name}: operands must have the same shape and dtype, got "
                             f"{arrs[0].shape} {arrs[0].dtype} and {a.shape} {a.dtype}")


def core_split(n, unit, cores, target, kind="aiv"):
    """(cores, per_core): `n` items in contiguous ranges of `per_core` items (a multiple of
    `unit`), the last core taking what is left; never more cores than there are units."""
    units = -(-n // unit)
    mc = max_cores(target, kind)
    cores = max(1, min(cores or mc, mc, units))
    per = -(-units // cores) * unit
    cores = -(-n // per)
    return cores, per


def workspace(dtype, cores):
    """Per-core 32-byte GM scratch for store_tail, as integers of the element size."""
    size = np.dtype(dtype).itemsize
    return np.zeros(cores * 32 // size, _INT_OF[size])


@asc.jit
def load_row_db(xg: asc.GlobalTensor, xl: asc.LocalTensor, r: int, w: asc.ConstExpr[int], ev: asc.ConstExpr[int]):
    """MTE2, for the double-buffered row kernels (softmax.py, norm.py): row r (w elements) into
    buffer ev once MTE3 has stored the row that buffer held (MTE3_MTE2 ev); then MTE2_V ev."""
    pb = 32 // xl.dtype.sizeof()
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, ev)
    asc.data_copy(xl, xg[r * w:], asc.DataCopyParams(1, (w + pb - 1) // pb, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, ev)


@asc.jit
def store_row_db(yg: asc.GlobalTensor, wg: asc.GlobalTensor, xl: asc.LocalTensor, row: asc.LocalTensor, r: int,
                 w: asc.ConstExpr[int], ev: asc.ConstExpr[int]):
    """V then MTE3, for the double-buffered row kernels (softmax.py, norm.py): the finished row
    (float32 `row`, which is xl itself for float32 data) rounded back into buffer xl for 16-bit
    data, stored as row r (w elements, the tail through the workspace wg); then MTE3_MTE2 ev
    frees the buffer for the load two rows on."""
    pb = 32 // xl.dtype.sizeof()
    if xl.dtype.sizeof() == 2:
        asc.cast(xl, row, asc.RoundMode.CAST_RINT, w)
    asc.set_flag(asc.HardEvent.V_MTE3, ev)
    asc.wait_flag(asc.HardEvent.V_MTE3, ev)
    store_tail(yg[r * w:], xl, w, wg, pb)
    asc.set_flag(asc.HardEvent.MTE3_MTE2, ev)


@asc.jit
def store_tail(dst: asc.GlobalTensor, src: asc.LocalTensor, n: int, ws: asc.GlobalTensor,
               per_block: asc.ConstExpr[int]):
    """dst[0:n] = src[0:n] (run-time n >= 0), writing no GM byte past dst[n-1]; src must hold
    the elements in UB from a 32 B-aligned start; V work producing src must be complete (the
    caller waits V_MTE3 first).  ws: this core's 32 B of workspace (integer type of the element
    size).  See the module docstring."""
    full = n // per_block
    if full > 0:      # (a static DataCopyParams with len 0 miscompiles: test_kernel_library xfail)
        asc.data_copy(dst, src, asc.DataCopyParams(1, full, 0, 0))
    rem = n - full * per_block
    if rem > 0:
        asc.data_copy(ws, src[full * per_block:].reinterpret_cast(ws.dtype), asc.DataCopyParams(1, 1, 0, 0))
        asc.set_flag(asc.HardEvent.MTE3_S, 0)
        asc.wait_flag(asc.HardEvent.MTE3_S, 0)
        for i in range(rem):
            dst.set_value(full * per_block + i, ws.get_value(i))


LANES = 64                     # float32 lanes per vector repeat


@asc.jit
def row_bcast(op: asc.ConstExpr[str], row: asc.LocalTensor, bcast: asc.LocalTensor, w: asc.ConstExpr[int]):
    """row[i] = row[i] (op) bcast[0] for i < w (float32; op sub, div or mul): full 64-lane
    repeats with src1 re-reading one 32 B block of copies (brcb output; strides 0), then one
    repeat masked to the w % 64 tail lanes (a repeat count of w // 64 alone drops them)."""
    rep = asc.BinaryRepeatParams(1, 1, 0, 8, 8, 0)
    full = w // LANES
    tail = w - full * LANES
    if full > 0:
        if op == "sub":
            asc.sub(row, row, bcast, mask=LANES, repeat_times=full, repeat_params=rep)
        elif op == "mul":
            asc.mul(row, row, bcast, mask=LANES, repeat_times=full, repeat_params=rep)
        else:
            asc.div(row, row, bcast, mask=LANES, repeat_times=full, repeat_params=rep)
    if tail > 0:
        t = row[full * LANES:]
        if op == "sub":
            asc.sub(t, t, bcast, mask=tail, repeat_times=1, repeat_params=rep)
        elif op == "mul":
            asc.mul(t, t, bcast, mask=tail, repeat_times=1, repeat_params=rep)
        else:
            asc.div(t, t, bcast, mask=tail, repeat_times=1, repeat_params=rep)
