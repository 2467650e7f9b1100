#!/usr/bin/env bash
# traces.sh -- regenerate traces/: the demo timelines of docs/traces.md.
#
#   scripts/traces.sh [BUILD_DIR]      (default: build; built if a binary is missing)
#
# Assembles kernels/asm/{vadd_single,vadd_double,vadd_bank_conflict,matmul_64}.s
# from the repository root (so source lines read kernels/asm/K.s:N), runs
# each on ascend910b with small seeded inputs (numpy), checks the outputs
# against numpy, and writes for each K:
#   traces/K.json     the trace (asc-sim --trace)
#   traces/K.txt      the summary report (asc-sim's stdout)
#   traces/K.report/  instr_exe.csv, code_exe.csv, summary.json (--report-dir)
#   traces/K.png      asc-viz --png of the whole run
# plus traces/vadd_double_zoom.png (a window of the steady state) and
# traces/vadd_bank_conflict_zoom.png (the four vadds of the first tile).
# Deterministic: the same build gives the same bytes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
b=${1:-build}
. scripts/pyenv.sh
asc_find_python

if [ ! -x "$b/asm/asc-as" ] || [ ! -x "$b/sim/asc-sim" ] || [ ! -x "$b/viz/asc-viz" ]; then
  echo "== building $b (asc-as, asc-sim, asc-viz)"
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$b" -j2 --target asc-as asc-sim asc-viz >/dev/null
fi

out=traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

"$ASC_PYTHON" - "$tmp" <<'PY'
import sys, numpy as np
t = sys.argv[1]
rng = np.random.default_rng(2024)
for name, n in (("v32k", 32768), ("v16k", 16384)):
    np.save(f"{t}/{name}_x.npy", rng.standard_normal(n).astype(np.float16))
    np.save(f"{t}/{name}_y.npy", rng.standard_normal(n).astype(np.float16))
np.save(f"{t}/a.npy", (rng.standard_normal((64, 64)) / 8).astype(np.float16))
np.save(f"{t}/b.npy", (rng.standard_normal((64, 64)) / 8).astype(np.float16))
PY

run() { # run NAME HEIGHT ARGS...
  local k=$1 h=$2
  shift 2
  "$b/asm/asc-as" -o "$tmp/$k.bin" "kernels/asm/$k.s"
  rm -rf "${out:?}/$k.report"
  "$b/sim/asc-sim" run "$tmp/$k.bin" "$@" --trace "$out/$k.json" --report-dir "$out/$k.report" >"$out/$k.txt"
  SDL_VIDEODRIVER=dummy "$b/viz/asc-viz" "$out/$k.json" --png "$out/$k.png" --size 1600x"$h"
  echo "   $k: $(sed -n 2p "$out/$k.txt")"
}

echo "== traces/"
v32="--arg x=$tmp/v32k_x.npy --arg y=$tmp/v32k_y.npy --arg n=32768"
v16="--arg x=$tmp/v16k_x.npy --arg y=$tmp/v16k_y.npy --arg n=16384"
# shellcheck disable=SC2086
run vadd_single 240 $v32 --arg z=@"$tmp/z_vadd_single.npy":32768:f16
# shellcheck disable=SC2086
run vadd_double 240 $v32 --arg z=@"$tmp/z_vadd_double.npy":32768:f16
# shellcheck disable=SC2086
run vadd_bank_conflict 240 $v16 --arg z=@"$tmp/z_vadd_bank_conflict.npy":16384:f16
run matmul_64 280 --arg a="$tmp/a.npy" --arg b="$tmp/b.npy" --arg c=@"$tmp/c.npy":64,64:f32
# the steady state of the double-buffered add: tiles 2..4
SDL_VIDEODRIVER=dummy "$b/viz/asc-viz" "$out/vadd_double.json" --png "$out/vadd_double_zoom.png" \
  --size 1600x240 --cycles 4000:9000
# the vector work of the first bank-conflict tile: (a), (b), (c) side by side
win=$("$ASC_PYTHON" -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("name", "").startswith("vadd")]
a = ev[0]["args"]["start_cycle"]; b = ev[3]["args"]["end_cycle"]
print(f"{a - 40}:{b + 40}")' "$out/vadd_bank_conflict.json")
SDL_VIDEODRIVER=dummy "$b/viz/asc-viz" "$out/vadd_bank_conflict.json" --png "$out/vadd_bank_conflict_zoom.png" \
  --size 1600x240 --cycles "$win"

"$ASC_PYTHON" - "$tmp" <<'PY'
import sys, numpy as np
t = sys.argv[1]
ok = True
for k, v in (("vadd_single", "v32k"), ("vadd_double", "v32k"), ("vadd_bank_conflict", "v16k")):
    x, y, z = (np.load(f"{t}/{v}_x.npy"), np.load(f"{t}/{v}_y.npy"), np.load(f"{t}/z_{k}.npy"))
    good = np.array_equal(z, x + y)
    ok &= good
    print(f"   {k}: z == x + y: {good}")
a, b, c = np.load(f"{t}/a.npy"), np.load(f"{t}/b.npy"), np.load(f"{t}/c.npy")
good = np.allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
ok &= good
print(f"   matmul_64: c == a @ b: {good}")
sys.exit(0 if ok else 1)
PY
du -sh "$out"
