"""Cycles per optimisation level (-O0..-O3) for the kernel library's vector kernels, for the
per-element (SIMT) x * 2 kernel of kernels/pyasc/simt/examples.py, and for the numpy acceptance
script (a 256x256 matmul and three element-wise operations).

Run: ASC_LIB=build/libasc.so PYTHONPATH=python /usr/bin/python3 bench/opt_levels.py [--n ELEMENTS]
Prints one row per kernel: its cycles at each level (numbers equal at every level: checked).
"""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc", "simt"))

from pyasc.runtime import config  # noqa: E402
from pyasc.script import compile_script  # noqa: E402
from pyasc.script.run import Bundle  # noqa: E402
import elementwise as ew  # noqa: E402
import reduce as rd  # noqa: E402
import softmax as sm  # noqa: E402
import examples as simt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--cores", type=int, default=8)
    a = ap.parse_args()
    r = np.random.default_rng(0)
    x = r.standard_normal(a.n).astype(np.float32)
    y = r.standard_normal(a.n).astype(np.float32)
    x2 = r.standard_normal((64, 256)).astype(np.float32)
    rows = [("vadd", lambda: ew.vadd(x, y, cores=a.cores), ew.ew_kernel),
            ("vmul", lambda: ew.vmul(x, y, cores=a.cores), ew.ew_kernel),
            ("relu", lambda: ew.relu(x, cores=a.cores), ew.ew_kernel),
            ("gelu", lambda: ew.gelu(x, cores=a.cores), ew.ew_kernel),
            ("reduce_rows sum", lambda: rd.reduce_rows(x2, "sum", cores=a.cores), rd.reduce_kernel),
            ("softmax", lambda: sm.softmax(x2, cores=a.cores), sm.softmax_kernel_off)]
    print(f"{'kernel':<18}" + "".join(f"{'-O' + str(lv):>10}" for lv in range(4)))
    for name, f, k in rows:
        cyc, outs = [], []
        for lv in range(4):
            with config.opt_level(lv):
                outs.append(f())
            cyc.append(k.last_result.cycles)
        assert all(np.array_equal(o, outs[0]) for o in outs), name
        print(f"{name + ' (f32)':<18}" + "".join(f"{c:>10}" for c in cyc))
    ns = 4096 * 48 * 4 + 1000                    # the per-element kernel runs on all 48 vector cores
    xs = r.standard_normal(ns).astype(np.float32)
    cyc, outs = [], []
    for lv in range(4):
        ys = np.zeros_like(xs)
        with config.opt_level(lv):
            simt.double_kernel(xs, ys, ns)
        outs.append(ys)
        cyc.append(simt.double_kernel.last_result.cycles)
    assert all(np.array_equal(o, xs * 2) for o in outs)
    print(f"{'simt x*2 (f32)':<18}" + "".join(f"{c:>10}" for c in cyc) + f"   ({ns} elements, 48 cores)")
    mm = os.path.join(ROOT, "tests", "python", "scripts", "mm_ew.py")
    cells, outs = [], []
    for lv in range(4):
        b = Bundle(compile_script(mm, None, opt_level=lv, memory_opt=lv >= 2))
        o, rep = b.run()
        outs.append(o["f"])
        cells.append(f"{rep['total_cycles']}/{rep['kernels']}k/{rep['total_gm_bytes'] // 1024}KiB")
    assert all(np.array_equal(o, outs[0]) for o in outs)
    print(f"{'mm_ew.py script':<18}" + "".join(f"{c:>22}" for c in cells) + "   (cycles/kernels/GM KiB moved)")


if __name__ == "__main__":
    main()
