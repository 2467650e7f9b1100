#!/usr/bin/python3
"""Lab 2: races and the happens-before rule (kernels/labs/lab2_races.md).

Runs kernels/labs/lab2_race.s with and without --check-races, the fixed kernel and the WAR
variant of task 4, and prints cycles, race reports and whether z equals numpy's x + y.
Usage: /usr/bin/python3 kernels/labs/lab2_races.py [BUILD_DIR]
"""

import sys

import numpy as np

from labtools import Lab, check

SRC = "kernels/labs/lab2_race.s"
# the pong half's "x, y landed" pair, as in kernels/asm/vadd_double.s
BEFORE_VADD = "        wait_flag mte3, v, 1\n        vadd.f16 x25"
PAIR = "        set_flag mte2, v, 1\n        wait_flag mte2, v, 1\n"
# the pong half's "buffer free" pair (task 4)
FREE_WAIT = "        wait_flag v, mte2, 1\n        mov_out_to_ub x23"
FREE_SET = "        set_flag v, mte2, 1\n        set_flag v, mte3, 1\n"


def fix(t):
    assert t.count(BEFORE_VADD) == 1
    return t.replace(BEFORE_VADD, PAIR + BEFORE_VADD)


def war(t):
    t = fix(t)
    assert t.count(FREE_WAIT) == 1 and t.count(FREE_SET) == 1
    return (t.replace(FREE_WAIT, "        mov_out_to_ub x23")
             .replace(FREE_SET, "        set_flag v, mte3, 1\n"))


def main():
    lab = Lab(sys.argv)
    n = 65536
    x = lab.rng.standard_normal(n).astype(np.float16)
    y = lab.rng.standard_normal(n).astype(np.float16)
    args = [("x", lab.save("x.npy", x)), ("y", lab.save("y.npy", y)),
            ("z", f"@z.npy:{n}:f16"), ("n", n)]
    race = ["--check-races"]
    runs = [
        ("task 1: lab2_race.s, a plain run", SRC, []),
        ("task 1: lab2_race.s --check-races", SRC, race),
        ("task 1: lab2_race.s --check-races --functional (no timing at all)", SRC,
         race + ["--functional"]),
        ("task 1: lab2_race.s --check-races --set dma.gm_read_latency=1", SRC,
         race + ["--set", "dma.gm_read_latency=1"]),
        ("task 3: the two lines put back, --check-races", lab.variant(SRC, "lab2_task3.s", fix),
         race),
        ("task 4: put back, then the pong \"buffer free\" pair removed, --check-races",
         lab.variant(SRC, "lab2_task4.s", war), race),
    ]
    print(f"lab 2: races and the happens-before rule (vadd of {n} f16, ascend910b, 1 core)")
    for title, src, extra in runs:
        print(f"\n== {title}")
        rc, rep, err = lab.run(lab.assemble(src), args, extra, expect_ok=False)
        cycles = "functional run, no cycles" if rep["functional"] else f"{rep['total_cycles']} cycles"
        races = rep.get("races")
        print(f"exit {rc}: {cycles}" + (f"; races: {races['total']}" if races else ""))
        if rc == 0:
            check(title, lab.load("z.npy"), x + y)
            print("z == x + y (numpy)")
        else:
            print("no z.npy written")
            for line in err.splitlines():
                print(line.replace("error: ", "", 1))


if __name__ == "__main__":
    main()
