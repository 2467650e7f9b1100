#!/usr/bin/env bash
# test_asc_as.sh -- asc-as flags, exit codes, diagnostics and output files.
#   $1 = build directory, $2 = source directory.
# On any error asc-as writes no output and leaves an existing output file
# untouched.
set -u
as=$1/asm/asc-as
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

"$as" --help > "$tmp/help" 2>&1; check "--help exits 0" [ $? -eq 0 ]
check "--help prints usage" grep -q "usage: asc-as" "$tmp/help"
"$as" --version > "$tmp/ver" 2>&1; check "--version exits 0" [ $? -eq 0 ]
check "--version prints the version" grep -q "^asc-as [0-9]" "$tmp/ver"
"$as" --frobnicate x.s 2> /dev/null; check "unknown flag exits 1" [ $? -eq 1 ]
"$as" 2> /dev/null; check "no input exits 1" [ $? -eq 1 ]
"$as" -o 2> /dev/null; check "-o without a file exits 1" [ $? -eq 1 ]
"$as" "$tmp/missing.s" 2> "$tmp/err"; check "unreadable input exits 1" [ $? -eq 1 ]
check "unreadable input is named" grep -q "missing.s" "$tmp/err"

# A good file: exit 0 and the default output name (.s -> .bin).
cat > "$tmp/good.s" <<'S'
.kernel good, aiv
.arg x, gm, f16
        li x1, 0x12345
        vadd.f16 x2, x3, x4, repeat=2
        end
S
"$as" "$tmp/good.s"; check "good file exits 0" [ $? -eq 0 ]
check "default output good.bin" [ -s "$tmp/good.bin" ]
"$as" -o "$tmp/other.bin" --target ascend910b "$tmp/good.s"; check "-o and --target" [ -s "$tmp/other.bin" ]
check "output is ELF" [ "$(head -c 4 "$tmp/other.bin" | od -An -c | tr -d ' ')" = "177ELF" ]

# Three distinct errors on three lines: three diagnostics with carets, exit
# 1, no output file.
cat > "$tmp/bad.s" <<'S'
.kernel bad, aiv
        addi x1, x2, 9000
        frob x1
        set_flag v, mte2, 8
        end
S
"$as" "$tmp/bad.s" 2> "$tmp/bad.err"; check "errors exit 1" [ $? -eq 1 ]
check "no output on error" [ ! -e "$tmp/bad.bin" ]
check "three file:line:col errors" [ "$(grep -c "^$tmp/bad.s:[0-9]*:[0-9]*: error: " "$tmp/bad.err")" -eq 3 ]
check "error on line 2" grep -q "bad.s:2:22: error: immediate must be an integer in the range \[-8192, 8191\], got 9000" "$tmp/bad.err"
check "error on line 3" grep -q "bad.s:3:9: error: unknown instruction 'frob'" "$tmp/bad.err"
check "error on line 4" grep -q "bad.s:4:27: error: event id must be in the range \[0, 7\] for target ascend910b" "$tmp/bad.err"
check "source lines quoted" [ "$(grep -c '^    [ ]*addi x1, x2, 9000$' "$tmp/bad.err")" -eq 1 ]
check "three carets" [ "$(grep -c '^ *\^~*$' "$tmp/bad.err")" -eq 3 ]
# an existing output file is left untouched on error
echo keep > "$tmp/keep.bin"
"$as" -o "$tmp/keep.bin" "$tmp/bad.s" 2> /dev/null; check "error with -o exits 1" [ $? -eq 1 ]
check "existing output untouched" [ "$(cat "$tmp/keep.bin")" = keep ]

# Warnings: exit 0; -Werror makes them errors.
cat > "$tmp/warn.s" <<'S'
.kernel warn, aiv
        vadd.f16 x31, x2, x3, repeat=2
        end
S
"$as" "$tmp/warn.s" 2> "$tmp/warn.err"; check "warning exits 0" [ $? -eq 0 ]
check "warning printed" grep -q "warn.s:2:18: warning: " "$tmp/warn.err"
rm -f "$tmp/warn.bin"
"$as" -Werror "$tmp/warn.s" 2> "$tmp/werr.err"; check "-Werror exits 1" [ $? -eq 1 ]
check "-Werror: error printed" grep -q "warn.s:2:18: error: " "$tmp/werr.err"
check "-Werror: no output" [ ! -e "$tmp/warn.bin" ]

# Targets: unknown, and a file .target that --target contradicts.
"$as" --target nosuch "$tmp/good.s" 2> "$tmp/t.err"; check "unknown --target exits 1" [ $? -eq 1 ]
check "unknown target lists targets" grep -q "unknown target 'nosuch': targets are ascend910b" "$tmp/t.err"
printf '.target ascend910\n.kernel k, aiv\n        end\n' > "$tmp/t910.s"
"$as" --target ascend910b "$tmp/t910.s" 2> "$tmp/t2.err"; check "--target vs .target exits 1" [ $? -eq 1 ]
check "mismatch names both" grep -q "ascend910'.*ascend910b" "$tmp/t2.err"
"$as" --target ascend910 "$tmp/t910.s"; check "--target equal to .target" [ $? -eq 0 ]

# Every kernel of the repository assembles.
for k in "$src"/kernels/asm/*.s; do
  [ -e "$k" ] || continue
  "$as" "$k" -o "$tmp/k.bin"; check "assembles $(basename "$k")" [ $? -eq 0 ]
done

echo "cli_asc_as: $fails failed"
[ "$fails" -eq 0 ]
