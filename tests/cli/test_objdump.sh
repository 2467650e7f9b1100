#!/usr/bin/env bash
# test_objdump.sh -- asc-objdump's flags, exit codes and output (chibicc driver.sh style).
# Usage: test_objdump.sh BUILD_DIR SOURCE_DIR
# Needs: $1/loader/asc-objdump and $1/loader/mkbin_loader (a hand-built binary,
# so no assembler is needed).  When $1/asm/asc-as exists, also checks that
# assembling the -d output reproduces .text exactly.
set -u
build=$(cd "$1" && pwd)
objdump=$build/loader/asc-objdump
mkbin=$build/loader/mkbin_loader
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() { # check NAME EXPECTED_RC PATTERN CMD... : run CMD, want exit EXPECTED_RC and PATTERN in stdout+stderr
    local name=$1 want=$2 pat=$3
    shift 3
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want"; echo "$out" | head -20; fails=$((fails + 1)); return
    fi
    if [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$out"; then
        echo "FAIL $name: output lacks /$pat/"; echo "$out" | head -20; fails=$((fails + 1)); return
    fi
    echo "ok   $name"
}

check help 0 'usage: asc-objdump' "$objdump" --help
check version 0 '^asc-objdump [0-9]+\.[0-9]+' "$objdump" --version
check no-args 1 'usage: asc-objdump' "$objdump"
check unknown-flag 1 "unknown option '-x'.*|usage" "$objdump" -x k.bin
check unknown-long-flag 1 "unknown option '--frobnicate'" "$objdump" --frobnicate k.bin
check two-files 1 'one kernel binary at a time' "$objdump" a.bin b.bin
check missing-file 1 "$tmp/missing.bin.*No such file" "$objdump" "$tmp/missing.bin"

(cd "$tmp" && "$mkbin" k.bin k.s) || { echo "FAIL mkbin_loader"; exit 1; }
k=$tmp/k.bin

check disasm-default 0 '^\.kernel vadd_demo, aiv$' "$objdump" "$k"
check disasm-insn 0 '^    beq x4, x5, \.\+8 +; 0008: [0-9a-f]{8}$' "$objdump" -d "$k"
check disasm-mix 0 '^\.aic$' "$objdump" -d "$k"
check disasm-args 0 '^\.arg alpha, float$' "$objdump" -d "$k"
check disasm-uses 0 '^\.uses ub, 65536$' "$objdump" -d "$k"
check disasm-rodata 0 '^    \.byte 0xff, 0xfe, 0xfd, 0xfc' "$objdump" -d "$k"
check headers 0 '\.asc\.kernels +PROGBITS' "$objdump" -h "$k"
check headers-kernel 0 'arg x4  alpha +float' "$objdump" -h "$k"
check headers-target 0 'target ascend910b' "$objdump" -h "$k"
# -l resolves the source path relative to the current directory
check lines 0 '^; k\.s:6:5 \| vadd\.f16 x0, x1, x2, x6$' bash -c "cd '$tmp' && '$objdump' -d -l k.bin"
check lines-unreadable 0 '^; k\.s:6:5$' "$objdump" -dl "$k"

# -d only: every line is a directive, an instruction with its comment, a comment, or blank
bad=$("$objdump" -d "$k" | grep -vE '^(\.[a-z]+( .*)?|    [a-z].* ; [0-9a-f]{4,}: [0-9a-f]{8}|    \.byte .*|;.*|)$' || true)
if [ -n "$bad" ]; then echo "FAIL disasm-lines: unexpected lines:"; echo "$bad"; fails=$((fails + 1)); else echo "ok   disasm-lines"; fi

# readelf reads it cleanly
if command -v readelf >/dev/null; then
    out=$(readelf -h -S -s "$k" 2>&1)
    if grep -qi 'warning\|error' <<<"$out"; then
        echo "FAIL readelf: $out" | head -20; fails=$((fails + 1))
    else
        for want in '\.text' '\.rodata' '\.symtab' '\.strtab' '\.shstrtab' '\.asc\.kernels' '\.asc\.lines' \
                    'FUNC +GLOBAL DEFAULT +1 vadd_demo' 'FUNC +GLOBAL DEFAULT +1 mm_mix_aic' 'FUNC +GLOBAL DEFAULT +1 mm_mix_aiv'; do
            grep -qE -- "$want" <<<"$out" || { echo "FAIL readelf lacks /$want/"; fails=$((fails + 1)); }
        done
        echo "ok   readelf"
    fi
fi

# corrupted binaries: exit 1, the path and the failed check named
cp "$k" "$tmp/bad.bin"
printf 'G' | dd of="$tmp/bad.bin" bs=1 seek=3 conv=notrunc 2>/dev/null
check corrupt-magic 1 "^$tmp/bad.bin: error: bad kernel binary: not an ELF file \(magic 7f 45 4c 47" "$objdump" -d "$tmp/bad.bin"
head -c 40 "$k" >"$tmp/short.bin"
check corrupt-short 1 'bad kernel binary: file is 40 bytes, shorter than the 64-byte ELF header' "$objdump" "$tmp/short.bin"
check directory 1 'cannot read' "$objdump" "$tmp"

# round trip through the assembler, when it is built
as=$build/asm/asc-as
if [ -x "$as" ]; then
    "$objdump" -d "$k" >"$tmp/re.s"
    if "$as" -o "$tmp/re.bin" "$tmp/re.s" >"$tmp/as.log" 2>&1; then
        words() { "$1" -d "$2" | grep -oE '; [0-9a-f]{4,}: [0-9a-f]{8}$'; }
        if [ "$(words "$objdump" "$k")" == "$(words "$objdump" "$tmp/re.bin")" ] &&
           [ "$("$objdump" -d "$k")" == "$("$objdump" -d "$tmp/re.bin")" ]; then
            echo "ok   reassemble"
        else
            echo "FAIL reassemble: .text differs"; diff <("$objdump" -d "$k") <("$objdump" -d "$tmp/re.bin") | head; fails=$((fails + 1))
        fi
    else
        echo "FAIL reassemble: asc-as rejected the disassembly"; head -20 "$tmp/as.log"; fails=$((fails + 1))
    fi
else
    echo "skip reassemble (no $as)"
fi

[ "$fails" = 0 ] && echo "all asc-objdump checks passed" || echo "$fails asc-objdump checks failed"
[ "$fails" = 0 ]
