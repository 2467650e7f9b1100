"""asc.gather_mask (Ascend C GatherMask = vreducev2.b16/.b32, sim/exec_vreducev2.c) against numpy: the
built-in patterns 1..7 and a user bit pattern, normal mode (256 B per repeat) and counter mode (mask
elements per repeat, Atlas A2's "config method 1"), block/repeat strides, 1-element and tail counts,
f16/f32/u16/u32/bf16-bits/s16/s32, the returned rsvdCnt, and in-place use (dst = src0)."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

N = 1024          # source elements staged in UB
NP = 256          # pattern words


@asc.jit
def k_gm(x: asc.GlobalAddress, pat: asc.GlobalAddress, z: asc.GlobalAddress, cnt: asc.GlobalAddress,
         pmode: asc.ConstExpr[int], reduce: asc.ConstExpr[bool], mask: asc.ConstExpr[int],
         blk: asc.ConstExpr[int], rt: asc.ConstExpr[int], rep: asc.ConstExpr[int], rep1: asc.ConstExpr[int],
         inplace: asc.ConstExpr[bool]):
    xg = asc.GlobalTensor()
    pg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    pg.set_global_buffer(pat)
    zg.set_global_buffer(z)
    cg.set_global_buffer(cnt)
    n = 1024
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    p = asc.LocalTensor(pat.dtype, asc.TPosition.VECIN, 8192, 256)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 16384, n)
    asc.data_copy(a, xg, n)
    asc.data_copy(p, pg, 256)
    asc.data_copy(c, zg, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    params = asc.GatherMaskParams(blk, rt, rep, rep1)
    d = a if inplace else c
    if pmode == 0:
        k = asc.gather_mask(d, a, p, reduce, mask, params)
    else:
        k = asc.gather_mask(d, a, pmode, reduce, mask, params, asc.GatherMaskMode.DEFAULT)
    cg.set_value(0, k)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, d, n)


def _bit(pmode, pat_bytes, j):
    if pmode == 0:
        return (pat_bytes[j // 8] >> (j % 8)) & 1
    return {1: j % 2 == 0, 2: j % 2 == 1, 7: True}.get(pmode, j % 4 == pmode - 3)


def _ref(x, pat, z0, pmode, reduce, mask, blk, rt, rep, rep1, inplace):
    size = x.dtype.itemsize
    epb = 32 // size
    n = mask if reduce else 256 // size
    xb = x.copy()
    pb = pat.view(np.uint8)
    kept = []
    for r in range(rt):
        for j in range(n):
            e = (32 * (r * rep + (j // epb) * blk)) // size + j % epb
            if _bit(pmode, pb[32 * r * rep1:], j):
                kept.append(xb[e])
    out = (x if inplace else z0).copy()
    out[:len(kept)] = kept
    return out, len(kept)


DTYPES = [np.float16, np.float32, np.uint16, np.uint32, np.int16, np.int32]


def _run(dtype, pmode, reduce, mask, blk=1, rt=1, rep=8, rep1=0, inplace=False, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 30000, N).astype(dtype)
    pdt = np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32
    pat = rng.integers(0, 1 << 16, NP).astype(pdt) if pdt == np.uint16 else \
        rng.integers(0, 1 << 32, NP, dtype=np.uint64).astype(np.uint32)
    z0 = rng.integers(0, 30000, N).astype(dtype)
    z = z0.copy()
    cnt = np.zeros(4, np.int64)
    k_gm[1](x, pat, z, cnt, pmode, reduce, mask, blk, rt, rep, rep1, inplace)
    want, k = _ref(x, pat, z0, pmode, reduce, mask, blk, rt, rep, rep1, inplace)
    assert cnt[0] == k
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pmode", [0, 1, 2, 3, 4, 5, 6, 7])
def test_patterns_normal_mode(dtype, pmode):
    _run(dtype, pmode, False, 0, rt=3, rep=8, rep1=1, seed=pmode)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pmode,mask,rt,rep,rep1", [(0, 1, 1, 8, 0), (7, 1, 1, 8, 0), (2, 3, 2, 1, 0),
                                                    (0, 70, 2, 4, 0), (0, 100, 3, 8, 1), (1, 129, 1, 8, 0),
                                                    (7, 200, 2, 8, 0), (6, 77, 3, 3, 0)])
def test_counter_mode_tails(dtype, pmode, mask, rt, rep, rep1):
    _run(dtype, pmode, True, mask, rt=rt, rep=rep, rep1=rep1, seed=mask)


@pytest.mark.parametrize("dtype", [np.float16, np.uint32])
def test_block_stride_and_in_place(dtype):
    _run(dtype, 2, False, 0, blk=2, rt=2, rep=16, seed=1)
    _run(dtype, 1, False, 0, rt=4, rep=8, inplace=True, seed=2)     # GatherMask.md's in-place example
    _run(dtype, 0, True, 33, rt=3, rep=2, inplace=True, seed=3)


def test_doc_example_pattern2_keeps_odd_positions():
    # GatherMask.md: src0 = 1..256 (f16 here, 2 repeats of 128), pattern 2 -> 2, 4, ..., 256, rsvdCnt 128
    x = np.zeros(N, np.float16)
    x[:256] = np.arange(1, 257)
    z = np.zeros(N, np.float16)
    cnt = np.zeros(4, np.int64)
    k_gm[1](x, np.zeros(NP, np.uint16), z, cnt, 2, False, 0, 1, 2, 8, 0, False)
    assert cnt[0] == 128
    np.testing.assert_array_equal(z[:128], np.arange(2, 257, 2))


@asc.jit
def k_bad(x: asc.GlobalAddress, what: asc.ConstExpr[str]):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    p16 = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 4096, 64)
    if what == "pat8":
        asc.gather_mask(a, a, 8, False, 0, asc.GatherMaskParams())
    elif what == "dtype":
        asc.gather_mask(a, a, p16, False, 0, asc.GatherMaskParams())
    else:
        asc.gather_mask(a, a, 1, True, 0, asc.GatherMaskParams())


@pytest.mark.parametrize("what,msg", [("pat8", "built-in src1_pattern must be in \\[1, 7\\], got 8"),
                                      ("dtype", "src1_pattern tensor must be uint32, got uint16"),
                                      ("mask0", "mask is the element count of a repeat")])
def test_errors(what, msg):
    with pytest.raises(asc.CompileError, match=msg):
        k_bad[1](np.zeros(64, np.float32), what)
