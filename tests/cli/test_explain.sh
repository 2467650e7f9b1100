#!/usr/bin/env bash
# test_explain.sh -- asc-sim explain and asc-sim diff (docs/timing.md §Explain, §Diff).
#   1. single-buffered vadd: the critical path names the GM read latency, the
#      top kernel change is double buffering, and the real double-buffered
#      kernel saves within 10% of what explain predicted (two sizes, two profiles)
#   2. 24 vector cores: the critical path names HBM contention with its share
#   3. diff of ub_bank_groups=16 vs 32 on the bank-conflict kernel: the whole
#      cycle difference is bank-conflict beats, on three vadd lines
#   4. provenance: --set is recorded in --json; diff of bad input fails clearly
# Usage: test_explain.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sim=$build/sim/asc-sim
as=$build/asm/asc-as
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
npy() { # zero-filled f16 vector of $2 elements
  local hdr="{'descr': '<f2', 'fortran_order': False, 'shape': ($2,), }"
  local total=$(( (10 + ${#hdr} + 1 + 63) / 64 * 64 ))
  local pad=$(( total - 10 - ${#hdr} - 1 )) hl=$(( total - 10 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((hl & 255)))\\x$(printf %02x $((hl >> 8)))"
    printf '%s%*s\n' "$hdr" "$pad" ''; head -c $(( 2 * $2 )) /dev/zero; } >"$1"
}
cd "$src" || exit 1
for k in vadd_single vadd_double vadd_bank_conflict; do "$as" -o "$tmp/$k.bin" "kernels/asm/$k.s" || fail "assemble $k"; done
args() { echo "--arg x=$tmp/v$1.npy --arg y=$tmp/v$1.npy --arg z=@$tmp/z.npy:$1:f16 --arg n=$1"; }
npy "$tmp/v16384.npy" 16384
npy "$tmp/v8192.npy" 8192
npy "$tmp/v393216.npy" 393216

# 1
# shellcheck disable=SC2046
"$sim" explain "$tmp/vadd_single.bin" $(args 16384) >"$tmp/single.txt" || fail "explain vadd_single"
grep -q "GM read latency .* [1-9][0-9]*\.[0-9]%" "$tmp/single.txt" || fail "explain: GM read latency not on the path"
top=$(grep -m1 '^  1\. ' "$tmp/single.txt")
echo "$top" | grep -q "kernel: double-buffer" || fail "explain: top suggestion is not double buffering: $top"
pred=$(echo "$top" | sed -E 's/.*\(saves ([0-9]+),.*/\1/')
# the prediction against the real double-buffered kernel, within 10%, at
# three sizes on the default profile and on the teach profile
within() { # within SIZE [run options]: explain's saving vs vadd_double's
  local n=$1 p s1 s2
  shift
  # shellcheck disable=SC2046
  p=$("$sim" explain "$tmp/vadd_single.bin" "$@" $(args "$n") | grep -m1 '^  1\. ' | sed -nE 's/.*kernel: double-buffer.*\(saves ([0-9]+),.*/\1/p')
  # shellcheck disable=SC2046
  s1=$("$sim" run "$tmp/vadd_single.bin" "$@" $(args "$n") --json | sed -nE 's/.*"total_cycles": ([0-9]+).*/\1/p')
  # shellcheck disable=SC2046
  s2=$("$sim" run "$tmp/vadd_double.bin" "$@" $(args "$n") --json | sed -nE 's/.*"total_cycles": ([0-9]+).*/\1/p')
  if [ -z "$p" ] || [ -z "$s1" ] || [ -z "$s2" ]; then fail "vadd $n $*: no figures"; return; fi
  local real=$((s1 - s2)) diff=$((p > s1 - s2 ? p - s1 + s2 : s1 - s2 - p))
  echo "vadd $n $*: explain predicts $p cycles saved by double buffering; vadd_double saves $real ($s1 -> $s2)"
  [ $((diff * 10)) -le "$real" ] || fail "vadd $n $*: double buffering saved $real, predicted $p (more than 10% off)"
}
npy "$tmp/v65536.npy" 65536
within 16384
within 65536
within 16384 --target teach
within 65536 --target teach

# 2
# shellcheck disable=SC2046
"$sim" explain "$tmp/vadd_double.bin" --blocks 24 $(args 393216) >"$tmp/d24.txt" || fail "explain 24 cores"
grep -qE "^  HBM contention +[1-9][0-9]* +[0-9.]+%" "$tmp/d24.txt" || fail "24 cores: HBM contention not on the path"
grep -q "HBM contention vanished" "$tmp/d24.txt" || fail "24 cores: no HBM what-if"

# 3
for g in 16 32; do
  # shellcheck disable=SC2046
  "$sim" run "$tmp/vadd_bank_conflict.bin" --set ub_bank_groups=$g $(args 8192) --json >"$tmp/bc$g.json" || fail "run bc $g"
done
"$sim" diff "$tmp/bc16.json" "$tmp/bc32.json" >"$tmp/diff.txt" || fail "diff"
total=$(sed -nE 's/^  total cycles +[0-9]+ +[0-9]+ +([-+][0-9]+)$/\1/p' "$tmp/diff.txt")
beats=$(sed -nE 's/^  UB bank-conflict beats +[0-9]+ +[0-9]+ +([-+][0-9]+)$/\1/p' "$tmp/diff.txt")
[ -n "$total" ] && [ "$total" = "$beats" ] || fail "diff: total $total is not the bank-conflict beats $beats"
nmoved=$(grep -cE '^  kernels/asm/vadd_bank_conflict.s:[0-9]+ +[0-9]+ +[0-9]+ +-[0-9]+ +-[0-9]+' "$tmp/diff.txt")
[ "$nmoved" = 3 ] || fail "diff: $nmoved lines moved, not 3"
for l in $(grep -oE '^  kernels/asm/vadd_bank_conflict.s:[0-9]+ +[0-9]+ +[0-9]+ +-' "$tmp/diff.txt" | sed -E 's/.*:([0-9]+) .*/\1/'); do
  sed -n "${l}p" kernels/asm/vadd_bank_conflict.s | grep -q vadd || fail "diff: line $l is not a vadd"
done
grep -qE "^  sum over these lines +$total +$total$" "$tmp/diff.txt" || fail "diff: lines do not add up to $total"

# 4
grep -q '"overrides": {"ub_bank_groups": 32}' "$tmp/bc32.json" || fail "--set not recorded in --json"
grep -q 'overrides: ub_bank_groups=32' "$tmp/diff.txt" || fail "diff: overrides not shown"
"$sim" diff "$tmp/bc16.json" "$tmp/nope.json" 2>"$tmp/err" && fail "diff of a missing file: exit 0"
grep -q "nope.json" "$tmp/err" || fail "diff of a missing file: no file name in the error"

# 5: a long run's recorder is bounded: past its event limit the report says why it has no path
printf '        .kernel loop, aiv\n        li      x1, 200000\ntop:    addi    x1, x1, -1\n        bnez    x1, top\n        end\n' >"$tmp/loop.s"
"$as" "$tmp/loop.s" -o "$tmp/loop.bin" || fail "assemble loop.s"
"$sim" run "$tmp/loop.bin" >"$tmp/loop.txt" || fail "run of a long loop"
grep -q "bound: not classified (the run has more than 262144 instructions" "$tmp/loop.txt" ||
  fail "long run: no 'more than 262144 instructions' bound line"

if [ "$fails" != 0 ]; then echo "$fails failure(s)"; exit 1; fi
echo "explain ok"
