#!/usr/bin/env bash
# test_bound.sh -- the report's bound sentence and SCALAR busy % do not count the scalar
# unit's waiting as scalar work (run/explain.c own_cost, run/report.c report_pipe_stats).
#   1. a truly scalar-bound loop (integer ALU only): "scalar bound", SCALAR busy >= 95%
#   2. a loop whose scalar unit waits on its GM loads: "scalar-memory bound" (the wait is
#      lat.scalar_load per load, its own critical-path cause and stall), SCALAR busy < 10%,
#      the JSON wait = loads x lat.scalar_load as `asc-sim config` reads it; with
#      --set lat.scalar_load=0 the same loop is scalar bound
#   3. a loop whose scalar unit waits on flags (MTE2 -> S): not scalar bound
#   4. kernels/asm/matmul_64.s: not scalar bound
# Usage: test_bound.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sim=$build/sim/asc-sim
as=$build/asm/asc-as
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
cd "$tmp" || exit 1
$py -c "
import numpy as np
np.save('x.npy', np.zeros(4096, np.float16)); np.save('m64.npy', np.ones((64, 64), np.float16))" || exit 1
printf '.kernel k, aiv\n        li x5, 20000\n        li x6, 1\nL:\n        mul x6, x6, x6\n        addi x6, x6, 3\n        xor x7, x6, x5\n        addi x5, x5, -1\n        bne x5, x9, L\n        end\n' > alu.s
printf '.kernel k, aiv\n.arg x, gm, f16\n        li x5, 2000\n        li x9, 0\nL:\n        ld.d x6, 0(x0)\n        addi x5, x5, -1\n        bne x5, x9, L\n        end\n' > ld.s
printf '.kernel k, aiv\n.arg x, gm, f16\n        li x5, 50\n        li x9, 0\n        li x1, 0\nL:\n        mov_out_to_ub x1, x0, len=64\n        set_flag mte2, s, 0\n        wait_flag mte2, s, 0\n        addi x5, x5, -1\n        bne x5, x9, L\n        end\n' > fl.s
for k in alu ld fl; do "$as" $k.s -o $k.bin || fail "assemble $k"; done
"$as" "$src/kernels/asm/matmul_64.s" -o mm.bin || fail "assemble matmul_64"

# busy % of SCALAR (first pipe column) and the bound sentence of a text report
scalar_busy() { awk '/^busy %/ {getline; getline; sub(/%/, "", $2); print $2; exit}' "$1"; }
bound() { grep -E '^[^ ].* bound: |^bound: ' "$1" | tail -1; }

"$sim" run alu.bin > alu.txt 2>&1 || fail "alu run"
bound alu.txt | grep -q '^scalar bound: ' || fail "alu: $(bound alu.txt)"
awk -v b="$(scalar_busy alu.txt)" 'BEGIN {exit !(b >= 95)}' || fail "alu: SCALAR busy $(scalar_busy alu.txt)% < 95%"

"$sim" run ld.bin --arg x=x.npy > ld.txt 2>&1 || fail "ld run"
bound ld.txt | grep -q '^scalar-memory bound: scalar load/store latency is ' || fail "ld: $(bound ld.txt)"
awk -v b="$(scalar_busy ld.txt)" 'BEGIN {exit !(b < 10)}' || fail "ld: SCALAR busy $(scalar_busy ld.txt)% >= 10%"
lat=$("$sim" config | $py -c "import json, sys; print(json.load(sys.stdin)['lat.scalar_load'])")
"$sim" run ld.bin --arg x=x.npy --json > ld.json 2>/dev/null || fail "ld --json"
$py - "$lat" <<'EOF' || fail "ld: JSON load/store wait"
import json, sys
lat = int(sys.argv[1])
r = json.load(open("ld.json"))
s = r["per_core"][0]["pipes"]["SCALAR"]
want = 2000 * lat                      # the loop's 2000 executed ld.d, each waiting lat.scalar_load
assert s["load_store_wait_cycles"] == want, s
assert r["stalls"]["scalar_load_store_wait_cycles"] == want, r["stalls"]
assert r["critical_path"]["by_cause"]["scalar load/store latency"] == want, r["critical_path"]["by_cause"]
assert s["busy_cycles"] + s["load_store_wait_cycles"] + s["idle_cycles"] <= r["total_cycles"], s
EOF
"$sim" run ld.bin --arg x=x.npy --set lat.scalar_load=0 > ld0.txt 2>&1 || fail "ld lat 0 run"
bound ld0.txt | grep -q '^scalar bound: ' || fail "ld with lat.scalar_load=0: $(bound ld0.txt)"
grep -q 'load/store latency (scalar, not busy)' ld0.txt && fail "ld with lat.scalar_load=0: a load/store stall line"

"$sim" run fl.bin --arg x=x.npy > fl.txt 2>&1 || fail "fl run"
bound fl.txt | grep -qE '^scalar(-memory)? bound' && fail "flag waits: $(bound fl.txt)"
awk -v b="$(scalar_busy fl.txt)" 'BEGIN {exit !(b < 10)}' || fail "flag waits: SCALAR busy $(scalar_busy fl.txt)%"

"$sim" run mm.bin --arg a=m64.npy --arg b=m64.npy --arg c=@c.npy:64,64:f32 > mm.txt 2>&1 || fail "matmul run"
bound mm.txt | grep -qE '^scalar(-memory)? bound' && fail "matmul_64: $(bound mm.txt)"
bound mm.txt | grep -q ' bound: ' || fail "matmul_64: no bound sentence"

[ "$fails" -eq 0 ] && echo "bound: all checks passed"
[ "$fails" -eq 0 ]
