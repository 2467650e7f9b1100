#!/usr/bin/python3
"""Lab 5: cube tiling and many cores (kernels/labs/lab5_cores.md).

Part A runs the matmul of kernels/labs/lab5_matmul.py (256 x 256 x 256, f16 in, f32 out) with
several base blocks on one cube core and prints the cube's utilisation; part B runs
kernels/asm/vadd_double.s on 1..24 vector cores, 65536 elements each, and prints the bandwidth
per core until HBM saturates.  Every output is checked against numpy.
Usage: /usr/bin/python3 kernels/labs/lab5_cores.py [BUILD_DIR]
"""

import sys

import numpy as np

from labtools import Lab, check, pipe, table
import lab5_matmul

BLOCKS = [(16, 16), (32, 32), (64, 64), (128, 128), (128, 64), (64, 128), (16, 128)]
CORES = [1, 2, 4, 8, 12, 16, 20, 24]
PER_CORE = 65536


def loop_span(events):
    """(first MTE1 load start, last fixpipe end, cycles the cube spent in mmads) of a trace."""
    first = min(e["args"]["start_cycle"] for e in events
                if e.get("ph") == "X" and e.get("name", "").startswith("load_l1_to_l0"))
    last = max(e["args"]["end_cycle"] for e in events
               if e.get("ph") == "X" and e.get("name", "").startswith("fix_l0c_to_out"))
    mmad = [e for e in events if e.get("ph") == "X" and e.get("name", "").startswith("mmad")]
    return first, last, len(mmad), sum(e["args"]["end_cycle"] - e["args"]["start_cycle"] for e in mmad)


def part_a(lab):
    m = n = k = 256
    a = lab.rng.standard_normal((m, k)).astype(np.float16)
    b = lab.rng.standard_normal((k, n)).astype(np.float16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    args = [("a", lab.save("a.npy", a)), ("b", lab.save("b.npy", b)), ("c", f"@c.npy:{m},{n}:f32")]
    rows = []
    for bm, bn in BLOCKS:
        name = f"mm_{bm}x{bn}.s"
        with open(lab.path(name), "w") as f:
            f.write(lab5_matmul.kernel(bm, bn, m, n, k))
        _, rep, _ = lab.run(lab.assemble(name), args, ["--trace", "mm.json"])
        check(f"matmul {bm}x{bn}", lab.load("c.npy"), want, exact=False)
        first, last, mmads, busy = loop_span(lab.trace_events("mm.json"))
        rows.append([f"{bm} x {bn}", mmads, rep["total_cycles"], first, last - first, busy,
                     f"{100 * busy / (last - first):.1f}%", f"{pipe(rep, 'MTE1')['busy_cycles']}",
                     f"{rep['roofline']['cube']['pct']:.1f}%"])
    print(f"\n== part A: c = a x b, {m} x {n} x {k} (f16 in, f32 out), 1 cube core;"
          " every c matches numpy (rtol 1e-3)")
    print(table(["base block", "mmads", "cycles", "L1 loaded at", "tile loop", "CUBE in mmad",
                 "cube util. (loop)", "MTE1 busy", "cube roofline (whole)"], rows))


def part_b(lab):
    rows = []
    one = None
    for cores in CORES:
        n = cores * PER_CORE
        x = lab.rng.standard_normal(n).astype(np.float16)
        y = lab.rng.standard_normal(n).astype(np.float16)
        args = [("x", lab.save("x.npy", x)), ("y", lab.save("y.npy", y)),
                ("z", f"@z.npy:{n}:f16"), ("n", n)]
        _, rep, _ = lab.run(lab.assemble("kernels/asm/vadd_double.s"), args,
                            ["--blocks", str(cores)])
        check(f"vadd_double on {cores} cores", lab.load("z.npy"), x + y)
        cyc = rep["total_cycles"]
        gm = sum(rep["bytes"].values())  # GM->UB + UB->GM
        one = one or cyc
        rows.append([cores, n, cyc, f"{gm / cores / cyc:.2f}", f"{gm / cyc:.1f}",
                     f"{rep['roofline']['hbm']['pct']:.1f}%",
                     rep["stalls"]["hbm_contention_cycles"], f"{cores * one / cyc:.1f}x"])
    print(f"\n== part B: kernels/asm/vadd_double.s, {PER_CORE} f16 per core (--blocks N);"
          " every z == x + y (numpy)")
    print(table(["cores", "n", "cycles", "GM B/cycle per core", "GM B/cycle, all", "HBM roofline",
                 "HBM contention", "speed-up (work / time)"], rows))


def main():
    lab = Lab(sys.argv)
    print("lab 5: cube tiling and many cores (ascend910b)")
    part_a(lab)
    part_b(lab)


if __name__ == "__main__":
    main()
