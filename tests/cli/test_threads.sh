#!/usr/bin/env bash
# test_threads.sh -- host threads (sim/pool.c, asc-sim --threads): a multi-core
# run gives the same bytes with 1, 2 and 3 host threads: the output tensor,
# the --json result, the trace and the report directory.
#   1. matmul 256 x 256 x 512 (kernels/asm/matmul_tiled.s resized) on 4 cube
#      cores: mmads run on worker threads, K accumulates over 4 steps; on 1 and 2
#      cores each mmad is split in parts across the threads
#   2. vadd_double on 8 and 24 vector cores (its 8 KB copies GM <-> UB and its vadds run on
#      worker threads, sim/exec_dma.c), and on 3 cores with 2 MB inputs (written into GM in
#      parts by the host threads)
#   3. --threads 0 / 257 / x are refused with a message naming the option
# Usage: test_threads.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sim=$build/sim/asc-sim
as=$build/asm/asc-as
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
npy() { # $1 file, $2 shape text, $3 elements: f16 values of a fixed LCG in [-1, 1)
  local hdr="{'descr': '<f2', 'fortran_order': False, 'shape': ($2), }"
  local total=$(( (10 + ${#hdr} + 1 + 63) / 64 * 64 ))
  local pad=$(( total - 10 - ${#hdr} - 1 )) hl=$(( total - 10 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((hl & 255)))\\x$(printf %02x $((hl >> 8)))"
    printf '%s%*s\n' "$hdr" "$pad" ''
    LC_ALL=C awk -v n="$3" -v s="${#1}" 'BEGIN { x = s; for (i = 0; i < n; i++) {
      x = (x * 1103515245 + 12345) % 2147483648; lo = x % 256; hi = 48 + int(x / 256) % 12 + (int(x / 65536) % 2) * 128
      printf "%c%c", lo, hi } }'; } >"$1"
}
cd "$src" || exit 1
sed -e 's/^\.equ \([MN]\), 1024/.equ \1, 256/' -e 's/^\.equ K, 1024/.equ K, 512/' kernels/asm/matmul_tiled.s >"$tmp/mm.s"
"$as" -o "$tmp/mm.bin" "$tmp/mm.s" || fail "assemble matmul"
"$as" -o "$tmp/vadd.bin" kernels/asm/vadd_double.s || fail "assemble vadd"
npy "$tmp/a.npy" "256, 512" $((256 * 512))
npy "$tmp/b.npy" "512, 256" $((512 * 256))
npy "$tmp/x.npy" "65536," 65536
npy "$tmp/yy.npy" "65536," 65536
npy "$tmp/xb.npy" "1048577," 1048577
npy "$tmp/yb.npy" "1048577," 1048577

run_all() { # $1 name, $2 binary, $3 blocks, rest: --arg list (output written to $tmp/out_T.npy)
  local name=$1 bin=$2 blocks=$3
  shift 3
  for t in 1 2 3; do
    "$sim" run "$bin" --blocks "$blocks" --threads "$t" "${@//@OUT/@$tmp/${name}_out_$t.npy}" --json \
      --trace "$tmp/${name}_trace_$t.json" --report-dir "$tmp/${name}_rep_$t" >"$tmp/${name}_json_$t" 2>"$tmp/${name}_err_$t" ||
      fail "$name --threads $t: exit $? ($(head -c 300 "$tmp/${name}_err_$t"))"
  done
  for t in 2 3; do
    cmp -s "$tmp/${name}_out_1.npy" "$tmp/${name}_out_$t.npy" || fail "$name: output differs with --threads $t"
    cmp -s "$tmp/${name}_json_1" "$tmp/${name}_json_$t" || fail "$name: --json differs with --threads $t"
    cmp -s "$tmp/${name}_trace_1.json" "$tmp/${name}_trace_$t.json" || fail "$name: trace differs with --threads $t"
    diff -r "$tmp/${name}_rep_1" "$tmp/${name}_rep_$t" >/dev/null || fail "$name: report differs with --threads $t"
  done
  [ -s "$tmp/${name}_out_1.npy" ] && [ -s "$tmp/${name}_trace_1.json" ] || fail "$name: no output or trace"
}
run_all mm "$tmp/mm.bin" 4 --arg "a=$tmp/a.npy" --arg "b=$tmp/b.npy" --arg "c=@OUT:256,256:f32"
# one and two cube cores, fewer than the threads: each mmad's arithmetic is split in parts
run_all mm1 "$tmp/mm.bin" 1 --arg "a=$tmp/a.npy" --arg "b=$tmp/b.npy" --arg "c=@OUT:256,256:f32"
run_all mm2 "$tmp/mm.bin" 2 --arg "a=$tmp/a.npy" --arg "b=$tmp/b.npy" --arg "c=@OUT:256,256:f32"
cmp -s "$tmp/mm_out_1.npy" "$tmp/mm1_out_2.npy" || fail "matmul on 1 core (2 threads) differs from 4 cores"
# the matmul really computed something: not all zero bytes after the header
[ "$(tail -c 262144 "$tmp/mm_out_1.npy" | tr -d '\0' | head -c 1 | wc -c)" = 1 ] || fail "matmul output is all zero"
run_all vadd "$tmp/vadd.bin" 8 --arg "x=$tmp/x.npy" --arg "y=$tmp/yy.npy" --arg "z=@OUT:65536:f16" --arg n=65536
npy "$tmp/x24.npy" "196608," 196608
npy "$tmp/y24.npy" "196608," 196608
run_all vadd24 "$tmp/vadd.bin" 24 --arg "x=$tmp/x24.npy" --arg "y=$tmp/y24.npy" --arg "z=@OUT:196608:f16" --arg n=196608
# inputs of 2 MB + 2 B: each is written into GM in parts by the host threads (sim.c asc_sim_gm_write)
run_all vaddbig "$tmp/vadd.bin" 3 --arg "x=$tmp/xb.npy" --arg "y=$tmp/yb.npy" --arg "z=@OUT:1048577:f16" --arg n=1048577

for bad in 0 257 x; do
  if "$sim" run "$tmp/vadd.bin" --threads "$bad" >/dev/null 2>"$tmp/bad_err"; then fail "--threads $bad accepted"; fi
  grep -q -- '--threads takes an integer in \[1, 256\]' "$tmp/bad_err" || fail "--threads $bad: message: $(cat "$tmp/bad_err")"
done

[ "$fails" = 0 ] && echo "test_threads: all passed"
exit $((fails != 0))
