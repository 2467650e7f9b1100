#!/usr/bin/python3
"""Lab 1: pipes, queues and deadlocks (kernels/labs/lab1_pipes.md).

Runs kernels/labs/lab1_deadlock.s and the variants the lab's tasks ask for, prints what the
simulator says about each, and checks z against numpy for the runs that finish.
Usage: /usr/bin/python3 kernels/labs/lab1_pipes.py [BUILD_DIR]
"""

import sys

import numpy as np

from labtools import Lab, check

SRC = "kernels/labs/lab1_deadlock.s"
PRIME = "        set_flag mte3, mte2, 0          ; \"z written back\": true before the first tile\n"
MARK = "                                        ; <- the priming set_flag was here\n"
LOOP_END = "        set_flag mte3, mte2, 0\n        add     x0, x0, x13\n"


def main():
    lab = Lab(sys.argv)
    n = 65536
    x = lab.rng.standard_normal(n).astype(np.float16)
    y = lab.rng.standard_normal(n).astype(np.float16)
    args = [("x", lab.save("x.npy", x)), ("y", lab.save("y.npy", y)),
            ("z", f"@z.npy:{n}:f16"), ("n", n)]

    def put_back(t):
        return t.replace(MARK, PRIME)

    runs = [
        ("task 1: lab1_deadlock.s as given", SRC, []),
        ("task 2: the same with --set queue_depth=4", SRC, ["--set", "queue_depth=4"]),
        ("task 3: the priming set_flag put back", lab.variant(SRC, "lab1_task3.s", put_back), []),
        ("task 4: put back, and the set_flag at the end of the loop removed",
         lab.variant(SRC, "lab1_task4.s",
                     lambda t: put_back(t).replace(LOOP_END, "        add     x0, x0, x13\n")), []),
        ("task 5: put back twice", lab.variant(SRC, "lab1_task5.s",
                                                lambda t: t.replace(MARK, PRIME + PRIME)), []),
    ]
    print(f"lab 1: pipes, queues and deadlocks (vadd of {n} f16, ascend910b, 1 core)")
    for title, src, extra in runs:
        print(f"\n== {title}")
        rc, rep, err = lab.run(lab.assemble(src), args, extra, expect_ok=False)
        if rc == 0:
            check(title, lab.load("z.npy"), x + y)
            print(f"exit 0: {rep['total_cycles']} cycles; z == x + y (numpy)")
        else:
            print(f"exit {rc}")
            print(err.rstrip().replace("asc-sim: ", ""))


if __name__ == "__main__":
    main()
