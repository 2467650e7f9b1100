"""Host threads and DMA copies (sim/pool.c, sim/exec_dma.c, sim/exec_dmapad.c): a GM <-> UB copy
of 4 KB or more runs on a worker thread while the engine goes on; a later access that overlaps
it (the same core's UB, any core's GM) waits for it.  The same kernels with 1, 2 and 3 host
threads give the same bytes: the output, the cycle count, the report (JSON) and the trace.
Tiles are 3000 elements (not 32-byte multiples), several cores, and in k_ring cores read GM that
other cores write in the same round, unsynchronised."""
import os

import numpy as np
import pytest

from kernels_threads_dma import TILE, k_pad_tiles, k_ring

pytestmark = pytest.mark.libasc


def _runs(tmp_path, name, launch):
    """(output bytes, cycles, report JSON, trace bytes) for ASC_THREADS = 1, 2, 3."""
    old = os.environ.get("ASC_THREADS")
    outs = []
    try:
        for t in (1, 2, 3):
            os.environ["ASC_THREADS"] = str(t)
            trace = tmp_path / f"{name}_{t}.json"
            z, res = launch(trace)
            outs.append((z.tobytes(), res.cycles, res.report_json, trace.read_bytes()))
    finally:
        if old is None:
            os.environ.pop("ASC_THREADS", None)
        else:
            os.environ["ASC_THREADS"] = old
    for o in outs[1:]:
        assert o[1] == outs[0][1], "cycles differ across thread counts"
        assert o[0] == outs[0][0], "output differs across thread counts"
        assert o[2] == outs[0][2], "report differs across thread counts"
        assert o[3] == outs[0][3], "trace differs across thread counts"
    assert len(outs[0][3]) > 1000
    return outs


@pytest.mark.parametrize("n,dt,cores", [(5 * TILE + 7, np.float32, 3), (40001, np.float16, 7),
                                        (3 * TILE, np.float32, 1)])
def test_pad_tiles_same_bytes_any_thread_count(tmp_path, n, dt, cores):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dt)
    y = rng.standard_normal(n).astype(dt)

    def launch(trace):
        z = np.zeros(n, dt)
        r = k_pad_tiles[cores](x, y, z, n, trace=trace)
        return z, r

    outs = _runs(tmp_path, "pad", launch)
    got = np.frombuffer(outs[0][0], dt)
    np.testing.assert_array_equal(got, ((x * y).astype(dt) + x).astype(dt))


@pytest.mark.parametrize("cores,seg,rounds", [(4, 2002, 3), (6, 1502, 2)])
def test_ring_overlapping_gm_same_bytes_any_thread_count(tmp_path, cores, seg, rounds):
    n = cores * seg + seg
    x = (np.arange(n) % 7 + 1).astype(np.float32)

    def launch(trace):
        z = np.zeros(n, np.float32)
        r = k_ring[cores](x, z, seg, rounds, trace=trace)
        return z, r

    outs = _runs(tmp_path, "ring", launch)
    z = np.frombuffer(outs[0][0], np.float32)
    # every segment written holds a last round's z + x + x[h:] of its writer (z >= 0): at least
    # that sum, and whole numbers (x is); the segment past the ring is never written
    for i in range(cores):
        nxt = (i + 1) % cores
        s = z[nxt * seg:(nxt + 1) * seg]
        h = seg // 16 * 8
        one = x[i * seg:(i + 1) * seg] + x[i * seg + h:(i + 1) * seg + h]
        assert np.all(s >= one), f"segment {nxt} lacks core {i}'s sum"
        assert np.array_equal(s, np.round(s))
    assert not z[cores * seg:].any()
    assert z.max() > 2 * 7, "no chained sums: the cores did not read each other's writes (one sum is at most 7 + 7)"
