#!/usr/bin/env bash
# For every .s in the repository that assembles: assembling the output of
# `asc-objdump -d` reproduces the .text bytes exactly (ISA issue acceptance).
# Error fixtures (tests/asm/err_*.s) are skipped; every other .s must assemble.
set -u
b=$1
src=$2
as=$b/asm/asc-as
objdump=$b/loader/asc-objdump
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
text_of() { # ELF .text bytes as hex
  local off size
  read -r off size < <(readelf -W -S "$1" | awk '$2==".text"{print $5, $6}')
  [ -n "$off" ] || return 1
  od -An -v -tx1 -j $((16#$off)) -N $((16#$size)) "$1" | tr -d ' \n'
}
while IFS= read -r s; do
  case "$(basename "$s")" in err_*) continue ;; esac
  rel=${s#"$src"/}
  name=$(echo "$rel" | tr '/' '_')
  if ! (cd "$(dirname "$s")" && "$as" "$s" -o "$tmp/$name.bin") 2> "$tmp/$name.err"; then
    echo "FAIL $rel: does not assemble"; cat "$tmp/$name.err"; fail=$((fail + 1)); continue
  fi
  "$objdump" -d "$tmp/$name.bin" > "$tmp/$name.dis.s" || { echo "FAIL $rel: objdump"; fail=$((fail + 1)); continue; }
  if ! "$as" "$tmp/$name.dis.s" -o "$tmp/$name.re.bin" 2> "$tmp/$name.re.err"; then
    echo "FAIL $rel: disassembly does not reassemble"; head -20 "$tmp/$name.re.err"; fail=$((fail + 1)); continue
  fi
  if [ "$(text_of "$tmp/$name.bin")" != "$(text_of "$tmp/$name.re.bin")" ]; then
    echo "FAIL $rel: .text differs after objdump -> asc-as"; fail=$((fail + 1)); continue
  fi
  pass=$((pass + 1))
done < <(find "$src" -name '*.s' -not -path '*/build*' -not -path '*/.git/*' | sort)
echo "roundtrip: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
