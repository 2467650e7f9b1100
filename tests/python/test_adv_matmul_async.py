"""The asynchronous asc.adv.Matmul interfaces of a mix kernel (python/pyasc/adv/matmul_kfc.py:
iterate_async, get_tensor_c_async, drain): set_workspace, iterate(sync=False) with
get_tensor_c(ub, sync=False) / async_get_tensor_c and wait_get_tensor_c, iterate_all(sync=False,
wait_iterate_all=True) with wait_iterate_all; the AIV does vector work between issue and wait.
Checked against numpy with tails on 1 and 4 AI cores, race-free under check_races=True, and a read
of C before the wait is a race the checker reports."""
import json
import os
import sys

import numpy as np
import pytest

import asc
import asc.runtime.config as config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
import matmul_adv_mix as mam  # noqa: E402


def _k_async_iter(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, x: asc.GlobalAddress,
                 y: asc.GlobalAddress, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
                 cache: asc.GlobalAddress, form: asc.ConstExpr[int], wait: asc.ConstExpr[bool]):
    """Each AIV: issue iterate(sync=False), compute y = 2 x on the vector meanwhile, then fetch each
    tile from its own slice of `cache` with get_tensor_c(sync=False), wait_get_tensor_c, add 1 on the
    vector and write the tile's valid part to C (C = A x B + 1)."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    tail_m = tiling.m - mi * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - ni * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    xg = asc.GlobalTensor()
    yg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    xg.set_global_buffer(x + idx * 64)
    yg.set_global_buffer(y + idx * 64)
    per = tiling.single_core_m.ceildiv(tiling.base_m) * tiling.single_core_n.ceildiv(tiling.base_n) * \
        tiling.base_m * tiling.base_n
    wg.set_global_buffer(cache + idx * per, per)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=q, num=1, len=tiling.base_m * tiling.base_n * 4)
    vb = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(vb, 64 * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_workspace(wg)
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg)
        mm.set_tail(tail_m, tail_n)
        round_m = (tail_m + tiling.base_m - 1) // tiling.base_m
        n_tiles = round_m * ((tail_n + tiling.base_n - 1) // tiling.base_n)
        if form != 2:
            mm.iterate(sync=False)     # real pyasc's documented form: the bare call, then a loop
            # vector work while the AIC computes
            v = vb.get(asc.float32)
            asc.data_copy(v, xg, 64)
            asc.set_flag(asc.HardEvent.MTE2_V, 1)
            asc.wait_flag(asc.HardEvent.MTE2_V, 1)
            asc.muls(v, v, 2.0, 64)
            asc.set_flag(asc.HardEvent.V_MTE3, 1)
            asc.wait_flag(asc.HardEvent.V_MTE3, 1)
            asc.data_copy(yg, v, 64)
            for count in range(n_tiles):
                t = q.alloc_tensor(asc.float32)
                if form == 1:
                    mm.async_get_tensor_c(t)
                else:
                    mm.get_tensor_c(tensor=t, sync=False)
                if wait:
                    mm.wait_get_tensor_c()
                asc.adds(t, t, 1.0, tiling.base_m * tiling.base_n)
                q.enque(t)
                t = q.deque(asc.float32)
                ti = count % round_m
                tj = count // round_m
                rows = tail_m - ti * tiling.base_m
                if rows > tiling.base_m:
                    rows = tiling.base_m
                cols = tail_n - tj * tiling.base_n
                if cols > tiling.base_n:
                    cols = tiling.base_n
                asc.data_copy_pad(cg[ti * tiling.base_m * tiling.n + tj * tiling.base_n:], t, asc.DataCopyExtParams(
                    rows, cols * 4, (tiling.base_n * 4 - (cols * 4 + 31) // 32 * 32) // 32, (tiling.n - cols) * 4, 0))
                q.free_tensor(t)
        else:
            # vector work first (the with-loop form issues at the with line)
            v = vb.get(asc.float32)
            asc.data_copy(v, xg, 64)
            asc.set_flag(asc.HardEvent.MTE2_V, 1)
            asc.wait_flag(asc.HardEvent.MTE2_V, 1)
            asc.muls(v, v, 2.0, 64)
            asc.set_flag(asc.HardEvent.V_MTE3, 1)
            asc.wait_flag(asc.HardEvent.V_MTE3, 1)
            asc.data_copy(yg, v, 64)
            with mm.iterate(sync=False) as count:
                t = q.alloc_tensor(asc.float32)
                if form == 1:
                    mm.async_get_tensor_c(t)
                else:
                    mm.get_tensor_c(tensor=t, sync=False)
                if wait:
                    mm.wait_get_tensor_c()
                asc.adds(t, t, 1.0, tiling.base_m * tiling.base_n)
                q.enque(t)
                t = q.deque(asc.float32)
                ti = count % round_m
                tj = count // round_m
                rows = tail_m - ti * tiling.base_m
                if rows > tiling.base_m:
                    rows = tiling.base_m
                cols = tail_n - tj * tiling.base_n
                if cols > tiling.base_n:
                    cols = tiling.base_n
                asc.data_copy_pad(cg[ti * tiling.base_m * tiling.n + tj * tiling.base_n:], t, asc.DataCopyExtParams(
                    rows, cols * 4, (tiling.base_n * 4 - (cols * 4 + 31) // 32 * 32) // 32, (tiling.n - cols) * 4, 0))
                q.free_tensor(t)
        mm.end()


k_async_iter = asc.jit(_k_async_iter)
k_async_iter_1_1 = asc.jit(kernel_type=asc.KernelType.MIX_AIC_1_1)(_k_async_iter)


def _run_iter(m, n, k, cores, base, form=0, wait=True, aivs_per_core=2, **kw):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m * 7 + n + k)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    c = np.full((m, n), 7.0, np.float32)
    x = rng.random(64 * aivs_per_core * cores).astype(np.float32)
    y = np.zeros_like(x)
    tiling = mam.tiling_for(m, n, k, aivs_per_core * cores, base=base)
    per = -(-tiling.single_core_m // tiling.base_m) * -(-tiling.single_core_n // tiling.base_n) * \
        tiling.base_m * tiling.base_n
    cache = np.zeros(per * aivs_per_core * cores, np.float32)
    kern = k_async_iter if aivs_per_core == 2 else k_async_iter_1_1
    res = kern[cores](a, b, c, x, y, tiling, np.zeros(1 << 20, np.uint8), cache, form, wait, **kw)
    return a, b, c, x, y, tiling, res


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores,base,form", [
    (37, 45, 29, 1, (32, 32), 0),        # nothing a multiple of 16, 1 AI core
    (200, 136, 100, 4, (64, 64), 1),     # 8 AIVs, tails on every axis, async_get_tensor_c
    (1, 1, 1, 1, (16, 16), 2),           # the with-loop form
    (130, 90, 70, 4, (48, 32), 2),       # some AIVs idle or short
    (130, 90, 70, 4, (48, 32), 0),
])
def test_async_iterate_get_tensor_c(m, n, k, cores, base, form):
    a, b, c, x, y, tiling, _ = _run_iter(m, n, k, cores, base, form=form, check_races=True)
    ref = a.astype(np.float64) @ b.astype(np.float64) + 1.0
    assert np.abs(c - ref).max() < 1e-3, tiling
    used = 2 * cores if tiling.used_core_num >= 2 * cores else tiling.used_core_num
    assert np.allclose(y[:64 * used], 2 * x[:64 * used])


@pytest.mark.libasc
def test_async_iterate_overlaps_vector_work(tmp_path):
    """The AIVs' vector work after iterate(sync=False) runs while the AIC still computes: each AIV
    posts its request (set_cross_core), then its vmuls runs and ends before the AIC's last fixpipe
    starts (from the trace)."""
    tr = str(tmp_path / "t.json")
    a, b, c, x, y, tiling, _ = _run_iter(200, 136, 100, 1, (64, 64), form=0, trace=tr)
    assert np.abs(c - (a.astype(np.float64) @ b.astype(np.float64) + 1.0)).max() < 1e-3
    ev = [e for e in json.load(open(tr))["traceEvents"] if e.get("ph") == "X"]
    names = {e["pid"]: e["args"]["name"] for e in json.load(open(tr))["traceEvents"]
             if e.get("name") == "process_name"}
    cube = [p for p, n in names.items() if "cubecore" in n]
    vec = [p for p, n in names.items() if "veccore" in n]
    assert len(cube) == 1 and len(vec) == 2
    last_fix = max(e["ts"] for e in ev if e["pid"] == cube[0] and e["name"].startswith("fix_l0c_to_out"))
    for p in vec:
        muls = [e for e in ev if e["pid"] == p and e["name"].startswith("vmuls")]
        post = min(e["ts"] for e in ev if e["pid"] == p and e["name"].startswith("set_cross_core"))
        assert muls and post < min(e["ts"] for e in muls)       # issued first, then the vector work,
        assert max(e["ts"] + e.get("dur", 0) for e in muls) < last_fix     # while the AIC computes


@pytest.mark.libasc
def test_async_read_before_wait_get_tensor_c_is_a_race():
    """No wait_get_tensor_c: the vector add reads the tile while MTE2 may still write it."""
    with pytest.raises(Exception, match="(?i)race"):
        _run_iter(37, 45, 29, 1, (32, 32), wait=False, check_races=True)


@asc.jit
def k_async_all(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, d: asc.GlobalAddress,
                x: asc.GlobalAddress, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
                mode: asc.ConstExpr[int]):
    """iterate_all(sync=False, wait_iterate_all=True), vector work on x meanwhile, wait_iterate_all,
    then the AIV reads its C block back and writes D = C + x[0] (or reads C without the wait)."""
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    tail_m = tiling.m - mi * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - ni * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    dg = asc.GlobalTensor()
    xg = asc.GlobalTensor()
    off = mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + off)
    dg.set_global_buffer(d + off)
    xg.set_global_buffer(x + idx * 8)
    pipe = asc.TPipe()
    vb = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(vb, 64 * 1024)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, cg.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if idx < tiling.used_core_num:
        mm.set_tensor_a(ag)
        mm.set_tensor_b(bg)
        mm.set_tail(tail_m, tail_n)
        if mode == 2:
            # two asynchronous calls and no wait: the second message takes the first's response
            # before it overwrites the slot, the quit at the end takes the second's
            mm.iterate_all(cg, sync=False)
            mm.iterate_all(dg, sync=False)
        else:
            mm.iterate_all(tensor=cg, en_atomic=0, sync=False, en_sequential_write=False, wait_iterate_all=True)
            v = vb.get(asc.float32)
            asc.data_copy(v, xg, 8)
            asc.set_flag(asc.HardEvent.MTE2_S, 1)
            asc.wait_flag(asc.HardEvent.MTE2_S, 1)
            s = v.get_value(0)
            if mode == 0:
                mm.wait_iterate_all()
            w = (tail_n * 4 + 31) // 32 * 8
            asc.data_copy_pad(v, cg, asc.DataCopyExtParams(tail_m, tail_n * 4, (tiling.n - tail_n) * 4, 0, 0),
                              asc.DataCopyPadExtParams(False, 0, 0, 0.0))
            asc.set_flag(asc.HardEvent.MTE2_V, 1)
            asc.wait_flag(asc.HardEvent.MTE2_V, 1)
            asc.adds(v, v, s, tail_m * w)
            asc.set_flag(asc.HardEvent.V_MTE3, 1)
            asc.wait_flag(asc.HardEvent.V_MTE3, 1)
            asc.data_copy_pad(dg, v, asc.DataCopyExtParams(tail_m, tail_n * 4, 0, (tiling.n - tail_n) * 4, 0))
            if mode == 1:
                mm.wait_iterate_all()
        mm.end()


def _run_all(m, n, k, cores, mode=0, **kw):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(m + 3 * n + k)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    c = np.full((m, n), 7.0, np.float32)
    d = np.zeros((m, n), np.float32)
    x = np.repeat(rng.random(2 * cores).astype(np.float32), 8)
    tiling = mam.tiling_for(m, n, k, 2 * cores, base=(32, 32))
    k_async_all[cores](a, b, c, d, x, tiling, np.zeros(1 << 20, np.uint8), mode, **kw)
    return a, b, c, d, x, tiling


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores", [(37, 45, 29, 1), (150, 70, 33, 4), (1, 1, 1, 1)])
def test_async_iterate_all_wait(m, n, k, cores):
    a, b, c, d, x, tiling = _run_all(m, n, k, cores, check_races=True)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - ref).max() < 1e-3, tiling
    # D = C + x[block]: each AIV's block of rows / columns
    mb = -(-m // tiling.single_core_m)
    want = np.empty_like(ref)
    for i in range(tiling.used_core_num):
        r0, c0 = (i % mb) * tiling.single_core_m, (i // mb) * tiling.single_core_n
        want[r0:r0 + tiling.single_core_m, c0:c0 + tiling.single_core_n] = \
            ref[r0:r0 + tiling.single_core_m, c0:c0 + tiling.single_core_n] + x[8 * i]
    assert np.abs(d - want).max() < 1e-3


@pytest.mark.libasc
def test_async_iterate_all_read_before_wait_is_a_race():
    with pytest.raises(Exception, match="(?i)race"):
        _run_all(37, 45, 29, 1, mode=1, sanitize="racecheck")


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores", [(150, 70, 33, 4), (37, 45, 29, 1)])
def test_async_iterate_all_no_wait(m, n, k, cores):
    a, b, c, d, x, tiling = _run_all(m, n, k, cores, mode=2, sanitize="racecheck")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - ref).max() < 1e-3 and np.abs(d - ref).max() < 1e-3, tiling


@asc.jit
def k_nows(a: asc.GlobalAddress, b: asc.GlobalAddress, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
           what: asc.ConstExpr[int]):
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    if what == 0:
        mm.iterate(sync=False)
    elif what == 1:
        mm.iterate_all(ag, sync=False)
        mm.wait_iterate_all()
    elif what == 2:
        mm.iterate_all(ag, 0, True, False, True)
    else:
        mm.wait_get_tensor_c()
        mm.set_workspace(ag, 16)
        mm.iterate(sync=False)
    mm.end()


@pytest.mark.libasc
@pytest.mark.parametrize("what,msg", [
    (0, "needs mm.set_workspace"),
    (1, "no iterate_all.*wait_iterate_all=True. comes before it"),
    (2, "wait_iterate_all=True only with sync=False"),
    (3, "the buffer holds 32 B; iterate.sync=False. writes"),
])
def test_async_errors(what, msg):
    config.set_platform(config.Backend.Model)
    t = mam.tiling_for(32, 32, 32, 2, base=(32, 32))
    with pytest.raises(asc.CompileError, match=msg):
        k_nows[1](np.zeros((32, 32), np.float16), np.zeros((32, 32), np.float16), t, np.zeros(1 << 20, np.uint8),
                  what)


@pytest.mark.libasc
@pytest.mark.parametrize("m,n,k,cores,base,form", [
    (100, 64, 24, 1, (16, 16), 0),      # 14 tiles per AIV: 13 notified one by one, the 14th at the end
    (198, 32, 24, 1, (16, 16), 2),      # 13 tiles: each notified
    (135, 48, 24, 1, (16, 16), 1),      # 15 and 12 tiles on the two AIVs (each drains the other's count)
    (150, 140, 40, 3, (16, 16), 0),     # 6 AIVs, tails
])
@pytest.mark.parametrize("aivs", [2, 1])
def test_async_iterate_per_tile_progress_values(m, n, k, cores, base, form, aivs):
    """iterate(sync=False) with c220's per-tile progress (matmul_kfc.py PROG, INC_PROCESS_CHECK):
    tile counts around 14 on each AIV, uneven between the two AIVs of an AI core, and MIX_AIC_1_1
    (one AIV, no sibling), against numpy and race-free."""
    a, b, c, x, y, tiling, _ = _run_iter(m, n, k, cores, base, form=form, aivs_per_core=aivs, check_races=True)
    assert np.abs(c - (a.astype(np.float64) @ b.astype(np.float64) + 1.0)).max() < 1e-3


@pytest.mark.libasc
def test_async_iterate_per_tile_progress(tmp_path):
    """The AIV works on tile 0 while the AIC computes later tiles: c220's server notifies after
    each of the first 13 tiles (matmul_server_impl_c220.h Iterate) and GetTensorC<false> waits for
    each (matmul_client.h curProcess), so each AIV's first vadds (the + 1 on tile 0) ends before
    the AIC's last fixpipe starts (45 tiles per AIV, from the trace)."""
    tr = str(tmp_path / "t.json")
    a, b, c, x, y, tiling, _ = _run_iter(150, 140, 40, 1, (16, 16), form=0, trace=tr, check_races=True)
    assert np.abs(c - (a.astype(np.float64) @ b.astype(np.float64) + 1.0)).max() < 1e-3
    data = json.load(open(tr))["traceEvents"]
    ev = [e for e in data if e.get("ph") == "X"]
    names = {e["pid"]: e["args"]["name"] for e in data if e.get("name") == "process_name"}
    cube = [p for p, nm in names.items() if "cubecore" in nm]
    vec = [p for p, nm in names.items() if "veccore" in nm]
    assert len(cube) == 1 and len(vec) == 2
    last_fix = max(e["ts"] for e in ev if e["pid"] == cube[0] and e["name"].startswith("fix_l0c_to_out"))
    for p in vec:
        adds = sorted(e["ts"] + e.get("dur", 0) for e in ev if e["pid"] == p and e["name"].startswith("vadds"))
        assert len(adds) >= 45 and adds[0] < last_fix
