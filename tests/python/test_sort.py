"""asc.sort32 / asc.mrg_sort / asc.sort / asc.get_mrg_sort_result / asc.get_sort_len (vbitsort,
vmrgsort4: sim/exec_vsort.c) against numpy: float16 and float32, ties (stable: lower position
first), several repeats, merges of lists whose byte counts are not multiples of 32 (and empty
lists), exhausted suspension with the counts read back, the full sort over group counts that are
not powers of 4; the dav_m200-only calls are rejected naming the Ascend C file."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc


@asc.jit
def _sync(ev: asc.ConstExpr[asc.HardEvent]):
    asc.set_flag(ev, 0)
    asc.wait_flag(ev, 0)


@asc.jit
def k_sort(x: asc.GlobalAddress, ix: asc.GlobalAddress, z: asc.GlobalAddress, rt: asc.ConstExpr[int],
           full: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    ig = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    ig.set_global_buffer(ix)
    zg.set_global_buffer(z)
    per = 8 // x.dtype.sizeof()
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 32 * rt)
    i = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 32768, 32 * rt)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 65536, 32 * rt * per)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 131072, 32 * rt * per)
    asc.data_copy(a, xg, 32 * rt)
    asc.data_copy(i, ig, 32 * rt)
    _sync(asc.HardEvent.MTE2_V)
    if full:
        asc.sort(d, a, i, t, rt, is_full_sort=True)
    else:
        asc.sort32(d, a, i, rt)
    _sync(asc.HardEvent.V_MTE3)
    asc.data_copy(zg, d, 32 * rt * per)


def _pairs(z, dtype, n):
    raw = z.view(np.uint8).reshape(-1, 8)[:n]
    score = raw[:, :np.dtype(dtype).itemsize].copy().view(dtype).ravel()
    index = raw[:, 4:].copy().view(np.uint32).ravel()
    return score, index


def _ref_sort(s, idx):
    o = np.argsort(-s.astype(np.float64), kind="stable")     # descending, ties in input order
    return s[o], idx[o]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("rt,full", [(1, 0), (3, 0), (1, 1), (2, 1), (5, 1), (17, 1)])
def test_sort(dtype, rt, full):
    rng = np.random.default_rng(rt)
    n = 32 * rt
    x = rng.integers(-20, 20, n).astype(dtype) / 4          # many ties
    idx = rng.permutation(n).astype(np.uint32)
    per = 8 // np.dtype(dtype).itemsize
    z = np.zeros(n * per, dtype)
    k_sort[1](x, idx, z, rt, full)
    s, i = _pairs(z, dtype, n)
    if full:
        ws, wi = _ref_sort(x, idx)
    else:
        parts = [_ref_sort(x[32 * r:32 * r + 32], idx[32 * r:32 * r + 32]) for r in range(rt)]
        ws, wi = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    np.testing.assert_array_equal(s, ws)
    np.testing.assert_array_equal(i, wi)
    if dtype == np.float16:   # the 2 reserved bytes
        assert not z.view(np.uint16).reshape(-1, 4)[:, 1].any()


@asc.jit
def k_merge(p: asc.GlobalAddress, z: asc.GlobalAddress, cnt: asc.GlobalAddress, l0: asc.ConstExpr[int],
            l1: asc.ConstExpr[int], l2: asc.ConstExpr[int], l3: asc.ConstExpr[int], valid: asc.ConstExpr[int],
            stop: asc.ConstExpr[bool]):
    pg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    pg.set_global_buffer(p)
    zg.set_global_buffer(z)
    cg.set_global_buffer(cnt)
    per = 8 // p.dtype.sizeof()
    src = asc.LocalTensor(p.dtype, asc.TPosition.VECIN, 0, 4 * 512 * per)
    d = asc.LocalTensor(p.dtype, asc.TPosition.VECOUT, 65536, 4 * 512 * per)
    asc.data_copy(src, pg, 4 * 512 * per)
    _sync(asc.HardEvent.MTE2_V)
    lst = asc.MrgSortSrcList(src[0], src[512 * per + 8 * per], src[2 * 512 * per + 3 * per], src[3 * 512 * per])
    sn = [0, 0, 0, 0]
    asc.mrg_sort(d, lst, [l0, l1, l2, l3], sn, valid, 1, stop)
    _sync(asc.HardEvent.V_MTE3)
    asc.data_copy(zg, d, 4 * 512 * per)
    if stop:
        c = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 131072, 8)
        for k in range(4):
            c.set_value(k, sn[k])
        r = asc.get_mrg_sort_result()
        for k in range(4):
            c.set_value(4 + k, r[k])
        _sync(asc.HardEvent.S_MTE3)
        asc.data_copy(cg, c, 8)


def _ref_merge(lists, stop):
    out, used = [], [0] * len(lists)
    while True:
        best = None
        for k, (s, _) in enumerate(lists):
            if used[k] == len(s):
                if stop:
                    return out, used
                continue
            if best is None or s[used[k]] > lists[best][0][used[best]]:
                best = k
        if best is None:
            return out, used
        out.append((lists[best][0][used[best]], lists[best][1][used[best]]))
        used[best] += 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("lens,valid,stop", [((37, 5, 0, 100), 15, False), ((37, 5, 11, 0), 7, False),
                                             ((3, 301, 0, 0), 3, False), ((37, 5, 20, 100), 15, True),
                                             ((64, 64, 64, 64), 15, True)])
def test_merge(dtype, lens, valid, stop):
    rng = np.random.default_rng(sum(lens))
    per = 8 // np.dtype(dtype).itemsize
    p = np.zeros(4 * 512 * per, dtype)
    starts = [0, 512 + 8, 2 * 512 + 3, 3 * 512]           # pair offsets of the lists
    pr = p.view(np.uint8).reshape(-1, 8)
    lists = []
    for k, n in enumerate(lens):
        s = np.ascontiguousarray(np.sort(rng.integers(-40, 40, n).astype(dtype) / 2)[::-1])
        ix = (1000 * (k + 1) + np.arange(n)).astype(np.uint32)
        pr[starts[k]:starts[k] + n, :np.dtype(dtype).itemsize] = s.view(np.uint8).reshape(n, np.dtype(dtype).itemsize)
        pr[starts[k]:starts[k] + n, 4:] = ix.view(np.uint8).reshape(n, 4)
        lists.append((s, ix))
    nl = {3: 2, 7: 3, 15: 4}[valid]
    z = np.zeros_like(p)
    cnt = np.zeros(8, np.int32)
    k_merge[1](p, z, cnt, *lens, valid, stop)
    want, used = _ref_merge(lists[:nl], stop)
    s, i = _pairs(z, dtype, len(want))
    np.testing.assert_array_equal(s, np.array([w[0] for w in want], dtype))
    np.testing.assert_array_equal(i, np.array([w[1] for w in want], np.uint32))
    if stop:
        want_used = used + [0] * (4 - nl)
        assert list(cnt[:4]) == want_used and list(cnt[4:]) == want_used


@asc.jit
def k_len(z: asc.GlobalAddress):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    c = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, 8)
    c.set_value(0, asc.get_sort_len(100))
    c.set_value(1, asc.get_sort_offset(7))
    _sync(asc.HardEvent.S_MTE3)
    asc.data_copy(zg, c, 8)


@asc.jit
def k_bad(z: asc.GlobalAddress, name: asc.ConstExpr[str]):
    d = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 256)
    if name == "mrg_sort4":
        asc.mrg_sort4(d, asc.MrgSortSrcList(d, d, d, d), asc.MrgSort4Info())
    elif name == "rp_sort16":
        asc.rp_sort16(d, d, 1)
    elif name == "proposal_concat":
        asc.proposal_concat(d, d, 1, 0)
    else:
        asc.proposal_extract(d, d, 1, 0)


def test_sort_len():
    z = np.zeros(8, np.int32)
    k_len[1](z)
    assert list(z[:2]) == [200, 14]       # GetSortLen<float> / GetSortOffset<float> on dav_c220


@pytest.mark.parametrize("name", ["mrg_sort4", "rp_sort16", "proposal_concat", "proposal_extract"])
def test_dav_m200_only_rejected(name):
    with pytest.raises(Exception, match="no dav_c220 implementation.*kernel_operator_proposal_impl.h"):
        k_bad[1](np.zeros(8, np.float16), name)
