#!/usr/bin/python3
"""Lab 4: UB bank conflicts (kernels/labs/lab4_banks.md).

Runs kernels/asm/vadd_bank_conflict.s (task 1), kernels/labs/lab4_conflict.s and
kernels/labs/lab4_padded.s (tasks 2 and 3) and the answer of task 4, checks every z against
numpy and prints, per vadd, the bank-conflict extra beats the trace gives.
Usage: /usr/bin/python3 kernels/labs/lab4_banks.py [BUILD_DIR]
"""

import sys

import numpy as np

from labtools import Lab, check, pipe, table

ANSWER_Y = "0x8900"  # task 4's answer (answers/lab4.md): one block column further than 0x8800


def vadds(lab, trace):
    """Per vadd source line: (count, extra beats of each, cycles of each) of the first run of it."""
    seen = {}
    for e in lab.trace_events(trace):
        a = e.get("args", {})
        if e.get("ph") == "X" and e.get("name", "").startswith("vadd") and "bank_conflict_beats" in a:
            line = a["source"].rsplit(":", 1)[1]
            seen.setdefault(line, []).append((a["bank_conflict_beats"],
                                              a["end_cycle"] - a["start_cycle"]))
    return seen


def main():
    lab = Lab(sys.argv)
    print("lab 4: UB bank conflicts (ascend910b, 1 core)")

    # task 1: the three ways of kernels/asm/vadd_bank_conflict.s, one tile of 4096 f16
    n = 4096
    x = lab.rng.standard_normal(n).astype(np.float16)
    y = lab.rng.standard_normal(n).astype(np.float16)
    args = [("x", lab.save("x.npy", x)), ("y", lab.save("y.npy", y)),
            ("z", f"@z.npy:{n}:f16"), ("n", n)]
    _, rep, _ = lab.run(lab.assemble("kernels/asm/vadd_bank_conflict.s"), args,
                        ["--trace", "t1.json"])
    check("vadd_bank_conflict.s", lab.load("z.npy"), x + y)
    rows = [[f"vadd_bank_conflict.s:{line}", beats, cycles]
            for line, runs in vadds(lab, "t1.json").items() for beats, cycles in runs]
    print(f"\n== task 1: kernels/asm/vadd_bank_conflict.s, n = {n} (one tile); z == x + y (numpy)")
    print(table(["vadd", "extra beats", "cycles"], rows))
    print(f"report: bank-conflict extra beats: {rep['stalls']['bank_conflict_beats']}")

    # tasks 2-4: a 64 x 256 matrix walked down its columns
    shape = (64, 256)
    mx = lab.rng.standard_normal(shape).astype(np.float16)
    my = lab.rng.standard_normal(shape).astype(np.float16)
    margs = [("x", lab.save("mx.npy", mx)), ("y", lab.save("my.npy", my)),
             ("z", "@mz.npy:64,256:f16")]
    answer = lab.variant("kernels/labs/lab4_padded.s", "lab4_task4.s",
                         lambda t: t.replace(".equ UB_Y, 0x8800", ".equ UB_Y, " + ANSWER_Y))
    runs = [("lab4_conflict.s", "kernels/labs/lab4_conflict.s"),
            ("lab4_padded.s", "kernels/labs/lab4_padded.s"),
            (f"task 4: lab4_padded.s, UB_Y = {ANSWER_Y}", answer)]
    rows = []
    for label, src in runs:
        _, rep, _ = lab.run(lab.assemble(src), margs, ["--trace", "t.json"])
        check(label, lab.load("mz.npy"), mx + my)
        per = [b for r in vadds(lab, "t.json").values() for b, _ in r]
        rows.append([label, rep["total_cycles"], pipe(rep, "VECTOR")["busy_cycles"], len(per),
                     f"{min(per)}..{max(per)}" if min(per) != max(per) else per[0],
                     rep["stalls"]["bank_conflict_beats"]])
    print("\n== tasks 2-4: z = x + y, 64 x 256 f16, 16 column-block vadds of 8 repeats;"
          " every z == x + y (numpy)")
    print(table(["kernel", "cycles", "VECTOR busy", "vadds", "extra beats per vadd",
                 "extra beats (report)"], rows))


if __name__ == "__main__":
    main()
