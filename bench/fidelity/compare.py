#!/usr/bin/python3
"""bench/fidelity/compare.py -- simulated against published hardware durations.

Reads bench/fidelity/published.csv (one public measurement per row: kernel, shape, dtype,
chip, blocks, published_us, the figure as quoted, source URL, passage), runs the matching asc
kernel on the simulator and prints simulated vs published time and the error per row, then the
median and worst error over the rows that ran.

Kernels (each row's `kernel` column).  Every published kernel below is double-buffered (the
samples say so; torch_npu's and CANN's library kernels are), so every asc kernel run for it is
too: a single-buffered kernel would put its missing load/compute overlap into the error.
  matmul   C[M,N] f32 = A[M,K] f16 x B[K,N] f16 through asc.adv.Matmul:
           kernels/pyasc/matmul_adv.py run(M, N, K, cores=blocks) (double-buffered L1/L0, tiling
           from MultiCoreMatmulTiling).  bf16 rows run bf16 operands.  (Until 2026-12-02 these rows
           ran kernels/asm/matmul_tiled.s, single-buffered 128x128 tiles: 5-16x the chip's time;
           `--matmul-asm` still runs it.)
  linear   C[M,N] f32 = A[M,K] f16 x B[N,K]^T through asc.adv.Matmul: matmul_adv.run(M, N, K,
           cores=blocks, trans_b=True), the counterpart of the pyasc Linear sample (also
           asc.adv.Matmul, weight [N, K]); that sample writes C as float16, asc's as float32.
  gemv     y[M] = A[M,K] x v[K] (shape 'M=.. K=..') through asc.adv.Matmul with N = 1:
           matmul_adv.run(M, 1, K, cores=blocks) (the cube pads N to one 16-wide fractal).  For the
           FlagGems addmv rows (torch's addmv, beta * input + alpha * A v): the M-element
           beta * input add is left out.
  rmsnorm  kernels/pyasc/norm.py rmsnorm over R rows of W elements (shape 'R=.. W=..'), one row
           per core at a time, the row load and store double-buffered (_common.load_row_db /
           store_row_db); bf16 rows run float16 (same bytes per element; the vector model times
           2-byte types alike).
  swiglu   up * gate / (1 + exp(-gate)) over N elements per operand (shape 'N=..'), gate and up
           two GM inputs: bench/fidelity/fidelity_kernels.py swiglu_kernel, TQues of two buffers (the
           compiler-team-ru/pyasc swiglu sample's BUFFER_NUM = 2 and formula).  torch_npu's
           npu_swiglu and the pyasc sample read gate and up as the two halves of one tensor: the
           same bytes.  (`--swiglu-fused` runs the library's single-buffered fused.py chain.)
  sum_all  kernels/pyasc/reduce.py reduce_all(op="sum") over N elements (shape 'N=..'): both of
           its launches (per-core partials, then one core) are added.  A mean is this sum and
           one scalar multiply, which the simulated time leaves out.
  add      z = x + y over N elements (shape 'N=..'): kernels/pyasc/elementwise.py vadd
           (ew_kernel, double-buffered, hand-written flags).
  scale    z = x * s over N elements (shape 'N=..'): bench/fidelity/fidelity_kernels.py scale_kernel (TQues
           of two buffers).  For the mhc_post rows N = B x ns x S x D: that kernel's strategy A
           (the passage: one (batch, stream) pair at a time) reads x[b] and writes out[b, n] =
           x[b] * h[n] for every pair, i.e. one scalar multiply over B x ns x S x D elements.
pyasc rows use build/libasc.so (ASC_LIB) and the repository's python/ (PYTHONPATH), set here.
Inputs are zeros: timing does not depend on values.  The error is (simulated - published) /
published; a positive error means the simulator is slower than the chip.

    bash scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
    /usr/bin/python3 bench/fidelity/compare.py                      # every row (minutes: big GEMMs)
    /usr/bin/python3 bench/fidelity/compare.py --max-gflop 200      # skip rows above 200 GFLOP
Options: --build DIR, --target NAME, --csv PATH, --markdown (print the table as Markdown),
--kernel NAME (only rows of that kernel), --matmul-asm, --swiglu-fused (the earlier
single-buffered kernels, for comparison).  The pyasc kernels compile at the default level (-O2).
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_shape(text):
    """'M=1024 N=1024 K=1024' -> {'M': 1024, ...}; a clear error otherwise."""
    out = {}
    for part in text.split():
        m = re.fullmatch(r"([A-Za-z]+)=(\d+)", part)
        if not m:
            raise ValueError(f"shape {text!r}: expected KEY=INT items separated by spaces")
        out[m.group(1)] = int(m.group(2))
    return out


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return p.stdout


class Sim:
    def __init__(self, a, tmp):
        self.asm = os.path.join(ROOT, a.build, "asm", "asc-as")
        self.sim = os.path.join(ROOT, a.build, "sim", "asc-sim")
        for exe in (self.asm, self.sim):
            if not os.access(exe, os.X_OK):
                sys.exit(f"compare.py: {exe} not found; build first (see the docstring)")
        self.target = a.target
        self.build = a.build
        self.tmp = tmp
        self.matmul_asm_flag = a.matmul_asm
        self.swiglu_fused_flag = a.swiglu_fused

    def matmul(self, shape, blocks, dtype):
        if self.matmul_asm_flag:
            return self.matmul_asm(shape, blocks, dtype)
        self._pyasc()
        import matmul_adv  # noqa: E402  (kernels/pyasc)
        *_, res = matmul_adv.run(shape["M"], shape["N"], shape["K"], blocks, target=self.target,
                                 bf16=dtype == "bf16")
        return res.microseconds

    def matmul_asm(self, shape, blocks, dtype):
        m, n, k = shape["M"], shape["N"], shape["K"]
        for name, v in (("M", m), ("N", n), ("K", k)):
            if v % 128:
                raise ValueError(f"matmul {name}={v}: matmul_tiled.s needs multiples of 128")
        src = open(os.path.join(ROOT, "kernels/asm/matmul_tiled.s")).read()
        for name, v in (("M", m), ("N", n), ("K", k)):
            old = f".equ {name}, 1024"
            if old not in src:
                raise ValueError(f"kernels/asm/matmul_tiled.s: line '{old}' not found")
            src = src.replace(old, f".equ {name}, {v}")
        s = os.path.join(self.tmp, f"mm_{m}_{n}_{k}.s")
        kb = s[:-2] + ".bin"
        with open(s, "w") as f:
            f.write(src)
        run([self.asm, s, "-o", kb])
        a = os.path.join(self.tmp, "a.npy")
        b = os.path.join(self.tmp, "b.npy")
        np.save(a, np.zeros((m, k), np.float16))
        np.save(b, np.zeros((k, n), np.float16))
        c = os.path.join(self.tmp, "c.npy")
        out = run([self.sim, "run", kb, "--target", self.target, "--blocks", str(blocks), "--json",
                   "--arg", f"a={a}", "--arg", f"b={b}", "--arg", f"c=@{c}:{m},{n}:f32"])
        for p in (a, b, c):
            os.remove(p)
        return json.loads(out)["microseconds"]

    def _pyasc(self):
        """Import pyasc and the repository's pyasc kernels against this build's libasc."""
        lib = os.path.join(ROOT, self.build, "libasc.so")
        if not os.access(lib, os.R_OK):
            sys.exit(f"compare.py: {lib} not found; build first (see the docstring)")
        os.environ["ASC_LIB"] = lib
        for d in (os.path.join(ROOT, "python"), os.path.join(ROOT, "kernels", "pyasc"),
                  os.path.join(ROOT, "bench", "fidelity")):
            if d not in sys.path:
                sys.path.insert(0, d)
        import norm      # noqa: E402  (kernels/pyasc)
        import reduce    # noqa: E402
        return norm, reduce

    def linear(self, shape, blocks, dtype):
        self._pyasc()
        import matmul_adv  # noqa: E402  (kernels/pyasc)
        *_, res = matmul_adv.run(shape["M"], shape["N"], shape["K"], blocks, trans_b=True,
                                 target=self.target, bf16=dtype == "bf16")
        return res.microseconds

    def gemv(self, shape, blocks, dtype):
        self._pyasc()
        import matmul_adv  # noqa: E402  (kernels/pyasc)
        *_, res = matmul_adv.run(shape["M"], 1, shape["K"], blocks, target=self.target, bf16=dtype == "bf16")
        return res.microseconds

    def swiglu(self, shape, blocks, dtype):
        self._pyasc()
        dt = np.float32 if dtype == "f32" else np.float16
        n = shape["N"]
        if self.swiglu_fused_flag:
            import fused     # noqa: E402  (kernels/pyasc)
            prog = (("muls", 2, 0, -1.0), ("exp", 2, 2, None), ("adds", 2, 2, 1.0),
                    ("div", 2, 0, 2), ("mul", 2, 2, 1))
            fused.run_chain(prog, [np.zeros(n, dt), np.zeros(n, dt)], target=self.target, cores=blocks)
            return fused.fused_kernel.last_result.microseconds
        import fidelity_kernels as fk  # noqa: E402  (bench/fidelity)
        _, res = fk.swiglu(np.zeros(n, dt), np.zeros(n, dt), target=self.target, cores=blocks)
        return res.microseconds

    def add(self, shape, blocks, dtype):
        self._pyasc()
        import elementwise  # noqa: E402  (kernels/pyasc)
        dt = np.float32 if dtype == "f32" else np.float16
        n = shape["N"]
        elementwise.vadd(np.zeros(n, dt), np.zeros(n, dt), target=self.target, cores=blocks)
        return elementwise.ew_kernel.last_result.microseconds

    def scale(self, shape, blocks, dtype):
        self._pyasc()
        import fidelity_kernels as fk  # noqa: E402  (bench/fidelity)
        dt = np.float32 if dtype == "f32" else np.float16
        _, res = fk.scale(np.zeros(shape["N"], dt), 0.5, target=self.target, cores=blocks)
        return res.microseconds

    def rmsnorm(self, shape, blocks, dtype):
        norm, _ = self._pyasc()
        r, w = shape["R"], shape["W"]
        dt = np.float32 if dtype == "f32" else np.float16
        x = np.zeros((r, w), dt)
        norm.rmsnorm(x, np.ones(w, dt), target=self.target, cores=blocks)
        return norm.norm_kernel.last_result.microseconds

    def sum_all(self, shape, blocks, dtype):
        _, red = self._pyasc()
        dt = np.float32 if dtype == "f32" else np.float16
        real = red.reduce_kernel
        results = []

        class Recorder:          # reduce_all launches reduce_kernel twice; keep both results
            def __getitem__(self, grid):
                launch = real[grid]

                def call(*args, **kw):
                    out = launch(*args, **kw)
                    results.append(real.last_result)
                    return out
                return call
        red.reduce_kernel = Recorder()
        try:
            red.reduce_all(np.zeros(shape["N"], dt), "sum", target=self.target, cores=blocks)
        finally:
            red.reduce_kernel = real
        return sum(res.microseconds for res in results)

    @staticmethod
    def gflop(kernel, shape):
        """Work of a row in GFLOP (matmul) or G elements (vector kernels), for --max-gflop."""
        if kernel in ("matmul", "linear"):
            return 2.0 * shape["M"] * shape["N"] * shape["K"] / 1e9
        if kernel == "gemv":
            return 2.0 * shape["M"] * shape["K"] / 1e9
        if kernel == "rmsnorm":
            return shape["R"] * shape["W"] / 1e9
        if kernel in ("sum_all", "swiglu", "add", "scale"):
            return shape["N"] / 1e9
        raise ValueError(f"kernel {kernel!r}: no simulated kernel for it")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--target", default="ascend910b")
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench/fidelity/published.csv"))
    ap.add_argument("--max-gflop", type=float, default=None)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--kernel", default=None, help="only rows of this kernel")
    ap.add_argument("--matmul-asm", action="store_true",
                    help="matmul rows on kernels/asm/matmul_tiled.s (single-buffered) instead of asc.adv.Matmul")
    ap.add_argument("--swiglu-fused", action="store_true",
                    help="swiglu rows on kernels/pyasc/fused.py (single-buffered) instead of bench/fidelity/fidelity_kernels.py")
    a = ap.parse_args()

    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"kernel", "shape", "dtype", "chip", "blocks", "published_us", "quoted", "source", "location"}
    if rows and not need <= set(rows[0]):
        sys.exit(f"compare.py: {a.csv}: header lacks {sorted(need - set(rows[0]))}")
    with tempfile.TemporaryDirectory(prefix="asc-fidelity-") as tmp:
        sim = Sim(a, tmp)
        table, errs = [], []
        for i, r in enumerate(rows, start=2):
            if a.kernel is not None and r["kernel"] != a.kernel:
                continue
            try:
                shape = parse_shape(r["shape"])
                pub = float(r["published_us"])
                blocks = int(r["blocks"])
                gf = sim.gflop(r["kernel"], shape)
            except (ValueError, KeyError) as e:
                sys.exit(f"compare.py: {a.csv}:{i}: {e}")
            if a.max_gflop is not None and gf > a.max_gflop:
                table.append((r, pub, None, None))
                continue
            us = getattr(sim, r["kernel"])(shape, blocks, r["dtype"])
            err = (us - pub) / pub
            errs.append(abs(err))
            table.append((r, pub, us, err))
            print(f"  ran {r['kernel']} {r['shape']}: {us:.3f} us", file=sys.stderr)

    if a.markdown:
        print("| kernel | shape | dtype | chip | published us | simulated us | error | source |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print(f"{'kernel':8} {'shape':28} {'dtype':5} {'chip':26} {'published us':>13} "
              f"{'simulated us':>13} {'error':>8}")
    for r, pub, us, err in table:
        sim_s = f"{us:.1f}" if us is not None else "skipped"
        err_s = f"{err * 100:+.1f}%" if err is not None else "-"
        if a.markdown:
            print(f"| {r['kernel']} | {r['shape']} | {r['dtype']} | {r['chip']} | {pub:.1f} | {sim_s} | "
                  f"{err_s} | {r['source']} |")
        else:
            print(f"{r['kernel']:8} {r['shape']:28} {r['dtype']:5} {r['chip']:26} {pub:13.1f} "
                  f"{sim_s:>13} {err_s:>8}")
    if errs:
        print(f"\n{len(errs)} rows simulated (target {a.target}): median |error| "
              f"{statistics.median(errs) * 100:.1f}%, worst |error| {max(errs) * 100:.1f}%")
    else:
        print("\nno rows simulated")


if __name__ == "__main__":
    main()
