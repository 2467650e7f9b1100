#!/usr/bin/env bash
# The main demo: build everything, assemble the hand-written kernels, show
# a disassembly, run the single- and double-buffered vector adds on the
# simulator and compare their cycles, and draw the double-buffered timeline.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/deps.sh
. scripts/pyenv.sh
mkdir -p out
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo > out/build.log 2>&1 || { tail -50 out/build.log; exit 1; }
bash scripts/install.sh build     # `import pyasc, asc` without PYTHONPATH, and the `pyasc` command
out=out/demo
mkdir -p "$out"
b=build

echo "== assemble kernels/asm/*.s"
for k in kernels/asm/*.s; do
  "$b/asm/asc-as" "$k" -o "$out/$(basename "${k%.s}").bin"
  echo "   $k -> $out/$(basename "${k%.s}").bin"
done

echo
echo "== asc-objdump -h $out/vadd_double.bin"
"$b/loader/asc-objdump" -h "$out/vadd_double.bin"
echo
echo "== asc-objdump -d -l (first 24 lines)"
"$b/loader/asc-objdump" -d -l "$out/vadd_double.bin" | sed -n 1,24p

if [ -x "$b/sim/asc-sim" ] && asc_find_python; then
  echo
  echo "== run both vector adds on ascend910b: 1 core, 65536 f16 elements"
  "$ASC_PYTHON" - "$out" <<'PY'
import sys, numpy as np
out = sys.argv[1]
rng = np.random.default_rng(0)
n = 65536
np.save(f"{out}/x.npy", rng.standard_normal(n).astype(np.float16))
np.save(f"{out}/y.npy", rng.standard_normal(n).astype(np.float16))
PY
  for k in vadd_single vadd_double; do
    "$b/sim/asc-sim" run "$out/$k.bin" --arg x="$out/x.npy" --arg y="$out/y.npy" \
      --arg z=@"$out/z_$k.npy":65536:f16 --arg n=65536 --trace "$out/$k.trace.json" | tee "$out/$k.report.txt"
  done
  "$ASC_PYTHON" - "$out" <<'PY'
import sys, numpy as np
out = sys.argv[1]
x, y = np.load(f"{out}/x.npy"), np.load(f"{out}/y.npy")
cycles = {}
for k in ("vadd_single", "vadd_double"):
    z = np.load(f"{out}/z_{k}.npy")
    print(f"{k}: output equals numpy x + y: {np.array_equal(z, x + y)}")
    line = open(f"{out}/{k}.report.txt").read().split("\n")[1]    # "total: N cycles = ..."
    cycles[k] = int(line.split()[1])
print(f"double-buffered / single-buffered cycles: {cycles['vadd_double']} / {cycles['vadd_single']}"
      f" = {cycles['vadd_double'] / cycles['vadd_single']:.2f}")
PY
  echo
  echo "== 64x64x64 matmul on a cube core: GM -> L1 -> L0A/L0B -> mmad -> fixpipe -> GM"
  "$ASC_PYTHON" - "$out" <<'PY'
import sys, numpy as np
out = sys.argv[1]
rng = np.random.default_rng(1)
np.save(f"{out}/a.npy", rng.standard_normal((64, 64)).astype(np.float16))
np.save(f"{out}/b.npy", rng.standard_normal((64, 64)).astype(np.float16))
PY
  "$b/sim/asc-sim" run "$out/matmul_64.bin" --arg a="$out/a.npy" --arg b="$out/b.npy" \
    --arg c=@"$out/c.npy":64,64:f32 | sed -n 1,2p
  "$ASC_PYTHON" - "$out" <<'PY'
import sys, numpy as np
out = sys.argv[1]
a, b, c = (np.load(f"{out}/{n}.npy") for n in "abc")
ref = a.astype(np.float32) @ b.astype(np.float32)
print(f"matmul_64: max relative error vs numpy f32 matmul: {np.abs(c - ref).max() / np.abs(ref).max():.2e}")
PY
  if [ -x "$b/viz/asc-viz" ]; then
    SDL_VIDEODRIVER=dummy "$b/viz/asc-viz" "$out/vadd_double.trace.json" --png "$out/vadd_double.png"
    echo "timeline: $out/vadd_double.png (open the trace with: $b/viz/asc-viz $out/vadd_double.trace.json)"
  fi
fi
