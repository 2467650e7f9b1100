#!/usr/bin/env bash
# test_custom_profile.sh -- a profile from $ASC_CONFIG_DIR end to end in the CLIs: asc-as
# (--target and .target) and asc-sim run on a profile derived from ascend910b with 32 UB bank
# groups; vadd_bank_conflict's z is x + y and its cycles drop (case (b) stops conflicting);
# bad profile files are errors naming the file and the key.
# Usage: test_custom_profile.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sim=$build/sim/asc-sim
as=$build/asm/asc-as
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
mkdir "$tmp/p"
export ASC_CONFIG_DIR=$tmp/p
"$sim" config --target ascend910b --set ub_bank_groups=32 | sed 's/"name": "ascend910b"/"name": "widebank"/' >"$tmp/p/widebank.json"
cd "$tmp" || exit 1
"$as" -o base.bin "$src/kernels/asm/vadd_bank_conflict.s" || fail "assemble for ascend910b"
"$as" --target widebank -o wide.bin "$src/kernels/asm/vadd_bank_conflict.s" 2>as.err || fail "asc-as --target widebank: $(cat as.err)"
{ echo ".target widebank"; cat "$src/kernels/asm/vadd_bank_conflict.s"; } >t.s
"$as" -o wide2.bin t.s 2>as2.err || fail ".target widebank: $(cat as2.err)"
$py - <<'PY'
import struct
def npy(name, vals):
    hdr = "{'descr': '<f2', 'fortran_order': False, 'shape': (%d,), }" % len(vals)
    total = (10 + len(hdr) + 1 + 63) // 64 * 64
    hdr = hdr + ' ' * (total - 10 - len(hdr) - 1) + '\n'
    open(name, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode()
                           + b''.join(struct.pack('<e', v) for v in vals))
npy('x.npy', [(i % 7) * 0.5 for i in range(8192)])
npy('y.npy', [(i % 5) * 0.25 for i in range(8192)])
npy('want.npy', [(i % 7) * 0.5 + (i % 5) * 0.25 for i in range(8192)])
PY
cyc() { sed -n 's/^total: \([0-9]*\) cycles.*/\1/p' "$1"; }
"$sim" run base.bin --arg x=x.npy --arg y=y.npy --arg z=@zb.npy:8192:f16 --arg n=8192 >base.out 2>&1 || fail "run base: $(head -3 base.out)"
"$sim" run wide.bin --arg x=x.npy --arg y=y.npy --arg z=@zw.npy:8192:f16 --arg n=8192 >wide.out 2>&1 || fail "run widebank: $(head -3 wide.out)"
grep -q "on widebank" wide.out || fail "the run does not name the widebank profile: $(head -2 wide.out)"
cmp -s <(tail -c 16384 zw.npy) <(tail -c 16384 want.npy) || fail "widebank z differs from x + y"
cmp -s <(tail -c 16384 zb.npy) <(tail -c 16384 want.npy) || fail "ascend910b z differs from x + y"
"$sim" run wide2.bin --arg x=x.npy --arg y=y.npy --arg z=@z2.npy:8192:f16 --arg n=8192 >wide2.out 2>&1 || fail "run .target widebank: $(head -3 wide2.out)"
b=$(cyc base.out) w=$(cyc wide.out)
[ "$(cyc wide2.out)" = "$w" ] || fail ".target widebank and --target widebank run differently"
[ -n "$b" ] && [ -n "$w" ] && [ "$w" -lt "$b" ] || fail "32 bank groups should remove case (b)'s conflicts: $w vs $b cycles"
# bad profiles: the file and the key are named
sed 's/"ub_bank_groups": 32/"ub_bank_groupz": 32/; s/"widebank"/"badkey"/' "$tmp/p/widebank.json" >"$tmp/p/badkey.json"
sed 's/"ub_bank_groups": 32/"ub_bank_groups": 99/; s/"widebank"/"badrange"/' "$tmp/p/widebank.json" >"$tmp/p/badrange.json"
cp "$tmp/p/widebank.json" "$tmp/p/misnamed.json"
printf '{"version": 1,\n "name": x}\n' >"$tmp/p/badjson.json"
expect_err() { # expect_err TARGET TEXT
  if "$as" --target "$1" -o x.bin "$src/kernels/asm/vadd_single.s" 2>e.txt; then fail "asc-as --target $1 succeeded"; fi
  grep -qF -- "$2" e.txt || fail "asc-as --target $1: lacks '$2': $(cat e.txt)"
  if "$sim" run base.bin --target "$1" --arg n=1 2>e.txt >/dev/null; then fail "asc-sim run --target $1 succeeded"; fi
  grep -qF -- "$2" e.txt || fail "asc-sim --target $1: lacks '$2': $(cat e.txt)"
}
expect_err badkey "$tmp/p/badkey.json: unknown config key 'ub_bank_groupz'"
expect_err badrange "$tmp/p/badrange.json: config key 'ub_bank_groups' must be an integer in the range [1, 64], got 99"
expect_err misnamed "$tmp/p/misnamed.json: config key \"name\" is 'widebank', but the file is loaded as profile 'misnamed'"
expect_err badjson "$tmp/p/badjson.json:2:10: config is not valid JSON"
expect_err nosuch "unknown target 'nosuch': targets are ascend910b, ascend910, teach (built in), or a file <name>.json in \$ASC_CONFIG_DIR ($tmp/p: there is no such file)"
cp "$tmp/p/widebank.json" "$tmp/p/teach.json"
expect_err teach "$tmp/p/teach.json: a profile file in \$ASC_CONFIG_DIR may not take the name of the built-in profile 'teach'"
[ "$fails" = 0 ] && echo "custom profile: all passed"
exit "$fails"
