#!/usr/bin/python3
"""Lab 3: single / double / triple buffering and why the gain stops (kernels/labs/lab3_buffering.md).

Runs kernels/asm/vadd_single.s, kernels/asm/vadd_double.s and the N-buffered kernels of
kernels/labs/answers/lab3_nbuf.py (N = 1..6) on the default ascend910b and two what-if machines,
checks every z against numpy and prints cycles and MTE2 busy %.
Usage: /usr/bin/python3 kernels/labs/lab3_buffering.py [BUILD_DIR]
"""

import os
import sys

import numpy as np

from labtools import Lab, check, pipe, table

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "answers"))
import lab3_nbuf  # noqa: E402  (the answer of task 3 makes the kernels of task 4)

MACHINES = [("default", []),
            ("gm_read_latency=2600", ["--set", "dma.gm_read_latency=2600"]),
            ("gm_bytes_per_cycle=16", ["--set", "dma.gm_bytes_per_cycle=16"])]


def main():
    lab = Lab(sys.argv)
    n = 65536
    x = lab.rng.standard_normal(n).astype(np.float16)
    y = lab.rng.standard_normal(n).astype(np.float16)
    args = [("x", lab.save("x.npy", x)), ("y", lab.save("y.npy", y)),
            ("z", f"@z.npy:{n}:f16"), ("n", n)]
    kernels = [("vadd_single.s", "kernels/asm/vadd_single.s"),
               ("vadd_double.s", "kernels/asm/vadd_double.s")]
    for nbuf in range(1, lab3_nbuf.MAX_BUFFERS + 1):
        name = f"vadd_nbuf{nbuf}.s"
        with open(lab.path(name), "w") as f:
            f.write(lab3_nbuf.kernel(nbuf))
        kernels.append((f"lab3_nbuf.py {nbuf}", name))

    rows = []
    base = None
    for label, src in kernels:
        binary = lab.assemble(src)
        row = [label]
        for mname, extra in MACHINES:
            _, rep, _ = lab.run(binary, args, extra)
            check(f"{label} ({mname})", lab.load("z.npy"), x + y)
            row.append(rep["total_cycles"])
            if mname == "default":
                base = base or rep["total_cycles"]
                row += [f"{base / rep['total_cycles']:.2f}x", f"{pipe(rep, 'MTE2')['busy_pct']:.1f}%"]
        rows.append(row)
    print(f"lab 3: buffering (vadd of {n} f16 = 16 tiles of 4096, ascend910b, 1 core)")
    print("every z == x + y (numpy)\n")
    print(table(["kernel", "cycles", "vs single", "MTE2 busy",
                 "cycles, " + MACHINES[1][0], "cycles, " + MACHINES[2][0]], rows))


if __name__ == "__main__":
    main()
