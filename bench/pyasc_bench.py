"""pyasc benchmark: compile times of the TQue vadd and its cycles against the hand-written
double-buffered assembly (kernels/asm/vadd_double.s) on the same size, and the cycles of the
LocalTensorAuto vadd whose flags insert_sync places (kernels/pyasc/vadd_auto.py).

Run: PYTHONPATH=python /usr/bin/python3 bench/pyasc_bench.py [--n ELEMENTS] [--blocks N]
Goals (bench/README.md §pyasc): cold compile < 200 ms, cached < 5 ms, cycles ratio pyasc / assembly <= 1.1.
"""
import argparse
import importlib.util
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from pyasc.compiler import driver  # noqa: E402
from pyasc.language import dtype as dt  # noqa: E402
from pyasc.runtime import launch  # noqa: E402


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "kernels", "pyasc", name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8 * 2 * 4096 * 4)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--tile", type=int, default=4096)
    a = ap.parse_args()
    os.environ["PYASC_CACHE_DIR"] = tempfile.mkdtemp(prefix="pyasc_bench_")
    m = load("vadd_tque")
    jf = m.vadd_tque
    n, blocks, tile = a.n, a.blocks, a.tile
    tiles = n // blocks // tile
    x = np.random.rand(n).astype(np.float16)
    y = np.random.rand(n).astype(np.float16)
    specs, _ = jf.specs((x, y, x, n // blocks, tile, tiles))

    t = time.perf_counter()
    driver.compile_kernel(jf.fn, specs, jf._options())       # the frontend, passes and codegen
    cold_first = time.perf_counter() - t
    colds = []
    for _ in range(5):
        t = time.perf_counter()
        driver.compile_kernel(jf.fn, specs, jf._options())
        colds.append(time.perf_counter() - t)
    jf.compile(*specs)                                         # fills the disk cache
    cached = []
    for _ in range(20):
        jf._mem.clear()                                        # force the disk cache path
        t = time.perf_counter()
        jf.compile(*specs)
        cached.append(time.perf_counter() - t)
    mem = []
    for _ in range(20):
        t = time.perf_counter()
        jf.compile(*specs)
        mem.append(time.perf_counter() - t)

    z = np.zeros_like(x)
    r_py = jf[blocks](x, y, z, n // blocks, tile, tiles)
    assert np.array_equal(z, (x + y).astype(np.float16)), "pyasc vadd wrong"

    with open(os.path.join(ROOT, "kernels", "asm", "vadd_double.s"), encoding="utf-8") as f:
        text = f.read()
    hand = driver.Compiled("vadd_double", text, "", "", "aiv", "ascend910b",
                           [("x", "gm", dt.float16), ("y", "gm", dt.float16), ("z", "gm", dt.float16),
                            ("n", "int", None)])
    z2 = np.zeros_like(x)
    r_asm = launch.run(hand, [x, y, z2, n], blocks)
    assert np.array_equal(z2, (x + y).astype(np.float16)), "assembly vadd wrong"

    ratio = r_py.cycles / r_asm.cycles

    # the same vadd written with LocalTensorAuto and no flags: insert_sync places them
    au = load("vadd_auto").vadd_auto
    t = time.perf_counter()
    driver.compile_kernel(au.fn, au.specs((x, y, x, n // blocks, tile, tiles))[0], au._options())
    cold_auto = time.perf_counter() - t
    z3 = np.zeros_like(x)
    r_auto = au[blocks](x, y, z3, n // blocks, tile, tiles)
    assert np.array_equal(z3, (x + y).astype(np.float16)), "insert_sync vadd wrong"
    print(f"pyasc bench: TQue vadd, {n} f16 elements, {blocks} cores, tile {tile}")
    print(f"  cold compile (first, incl. parsing):  {cold_first * 1e3:7.1f} ms   goal < 200 ms")
    print(f"  cold compile (median of 5):           {sorted(colds)[2] * 1e3:7.1f} ms")
    print(f"  cached compile (disk, median of 20):  {sorted(cached)[10] * 1e3:7.2f} ms   goal < 5 ms")
    print(f"  cached compile (memory):              {sorted(mem)[10] * 1e3:7.3f} ms")
    print(f"  cycles: pyasc {r_py.cycles}, hand-written vadd_double.s {r_asm.cycles}, "
          f"ratio {ratio:.3f}   goal <= 1.1")
    print(f"  insert_sync vadd (LocalTensorAuto, kernels/pyasc/vadd_auto.py): {r_auto.cycles} cycles "
          f"({r_auto.cycles / r_py.cycles:.3f} x TQue), cold compile {cold_auto * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
