#!/usr/bin/env bash
# test_trace.sh -- golden traces and reports of asc-sim, byte for byte.
#
# For each small kernel below: assemble it from the source dir (so source
# lines read "kernels/asm/K.s:N"), run asc-sim with --trace and --report-dir
# on zero-filled inputs (timing does not depend on data), and compare the
# trace and every report file with tests/golden/ byte-exactly.  Also: a
# second run gives the same bytes, a trace path that cannot be written gives
# exit 1 and leaves no file.
#
# Usage: test_trace.sh BUILD_DIR SOURCE_DIR [--update-golden]
#   --update-golden rewrites tests/golden/ from this build (review the diff).
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
update=${3:-}
sim=$build/sim/asc-sim
as=$build/asm/asc-as
golden=$src/tests/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# npy FILE DESCR SHAPE ITEMSIZE COUNT: a zero-filled .npy (format 1.0), no numpy needed
npy() {
  local hdr="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  local total=$(( (10 + ${#hdr} + 1 + 63) / 64 * 64 ))
  local pad=$(( total - 10 - ${#hdr} - 1 ))
  local hl=$(( total - 10 ))
  {
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $((hl & 255)))\\x$(printf %02x $((hl >> 8)))"
    printf '%s%*s\n' "$hdr" "$pad" ''
    head -c $(( $4 * $5 )) /dev/zero
  } >"$1"
}

npy "$tmp/v16k.npy" '<f2' '(16384,)' 2 16384
npy "$tmp/v8k.npy" '<f2' '(8192,)' 2 8192
npy "$tmp/m64.npy" '<f2' '(64, 64)' 2 4096

# name | kernel | arguments
cases=(
  "vadd_single|vadd_single|--arg x=$tmp/v16k.npy --arg y=$tmp/v16k.npy --arg z=@$tmp/z.npy:16384:f16 --arg n=16384"
  "vadd_double|vadd_double|--arg x=$tmp/v16k.npy --arg y=$tmp/v16k.npy --arg z=@$tmp/z.npy:16384:f16 --arg n=16384"
  "vadd_bank_conflict|vadd_bank_conflict|--arg x=$tmp/v8k.npy --arg y=$tmp/v8k.npy --arg z=@$tmp/z.npy:8192:f16 --arg n=8192"
  "matmul_64|matmul_64|--arg a=$tmp/m64.npy --arg b=$tmp/m64.npy --arg c=@$tmp/c.npy:64,64:f32"
)

cd "$src" || exit 1
for c in "${cases[@]}"; do
  IFS='|' read -r name kernel args <<<"$c"
  if ! "$as" -o "$tmp/$kernel.bin" "kernels/asm/$kernel.s"; then fail "$name: assembly"; continue; fi
  out=$tmp/$name
  mkdir -p "$out"
  # shellcheck disable=SC2086
  if ! "$sim" run "$tmp/$kernel.bin" $args --trace "$out/$name.json" --report-dir "$out/report" >"$out/stdout"; then
    fail "$name: asc-sim run"
    continue
  fi
  # shellcheck disable=SC2086
  "$sim" run "$tmp/$kernel.bin" $args --trace "$out/again.json" >/dev/null
  cmp -s "$out/$name.json" "$out/again.json" || fail "$name: two runs give different traces"
  if [ "$update" = "--update-golden" ]; then
    mkdir -p "$golden/$name.report"
    cp "$out/$name.json" "$golden/$name.json"
    rm -f "$golden/$name.report"/*
    cp "$out/report"/* "$golden/$name.report/"
    echo "updated tests/golden/$name.json and $name.report/"
    continue
  fi
  cmp -s "$out/$name.json" "$golden/$name.json" ||
    fail "$name: trace differs from tests/golden/$name.json (diff it; --update-golden if intended)"
  for f in "$out/report"/*; do
    b=$(basename "$f")
    cmp -s "$f" "$golden/$name.report/$b" || fail "$name: report $b differs from tests/golden/$name.report/$b"
  done
  for f in "$golden/$name.report"/*; do
    [ -e "$out/report/$(basename "$f")" ] || fail "$name: report $(basename "$f") no longer written"
  done
done

# errors: an unwritable trace path -> exit 1, nothing left behind
npy "$tmp/x.npy" '<f2' '(4096,)' 2 4096
"$as" -o "$tmp/vs.bin" kernels/asm/vadd_single.s
if "$sim" run "$tmp/vs.bin" --arg x="$tmp/x.npy" --arg y="$tmp/x.npy" --arg z=@"$tmp/zz.npy":4096:f16 --arg n=4096 \
  --trace "$tmp/no/dir/t.json" >/dev/null 2>"$tmp/err"; then
  fail "unwritable trace: exit 0"
fi
grep -q "cannot write" "$tmp/err" || fail "unwritable trace: no 'cannot write' message"
[ -e "$tmp/no" ] && fail "unwritable trace: something was created"
# a run that faults keeps no trace
printf '.kernel k, aiv\n  wait_flag mte2, v, 0\n  end\n' >"$tmp/dead.s"
"$as" -o "$tmp/dead.bin" "$tmp/dead.s"
"$sim" run "$tmp/dead.bin" --trace "$tmp/dead.json" >/dev/null 2>&1 && fail "deadlock: exit 0"
[ -e "$tmp/dead.json" ] || [ -e "$tmp/dead.json.tmp" ] && fail "deadlock: a trace file was left"

if [ "$fails" != 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "traces: all checks passed"
