#!/usr/bin/env python3
"""Max error of each asc.adv math function (float32 and float16, 1000 elements over the test's
input range) against float64 numpy/math, and the vector cycles of one call, as docs/pyasc.md
"asc.adv math: algorithms and accuracy" reports.  Run from the repo root:
  ASC_LIB=$PWD/build/libasc.so PYTHONPATH=python:tests/python /usr/bin/python3 scripts/adv_math_accuracy.py
"""
import numpy as np

import test_adv_math as t

print("| function | input range | f32 max abs err | f32 max rel err | f16 max abs err |")
print("|---|---|---|---|---|")
for name in sorted(t.CASES):
    ref, (lo, hi), _ = t.CASES[name]
    row = []
    for dtype in (np.float32, np.float16):
        x = t._input(name, lo, hi, 1024, dtype)
        y = np.zeros(1024, dtype)
        t.k_un[1](x, y, name, 1000, 1024, 0)
        want = ref(x[:1000].astype(np.float64))
        err = np.abs(y[:1000].astype(np.float64) - want)
        row.append((err.max(), (err / np.maximum(np.abs(want), 1e-30)).max()))
    print(f"| {name} | [{lo}, {hi}] | {row[0][0]:.2e} | {row[0][1]:.2e} | {row[1][0]:.2e} |")
