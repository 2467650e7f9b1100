#!/usr/bin/env bash
# test_asc_sim.sh -- asc-sim's command line: exit codes, --help/--version,
# targets and config output, --set errors, --arg checking (count, kind,
# dtype, missing file) with exit 1 and no output .npy, kernel faults with
# exit 1 and no output .npy, and a good run writing its output.
# Usage: test_asc_sim.sh BUILD_DIR SOURCE_DIR
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

check() { # check NAME EXPECTED_RC CMD...: run, compare the exit code, keep output in $out
  local name=$1 want=$2
  shift 2
  out=$("$@" 2>&1)
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"
    echo "$out" | head -5
    fails=$((fails + 1))
  fi
}
expect() { # expect NAME TEXT: the last output contains TEXT
  if ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL $1: output lacks '$2'"
    echo "$out" | head -5
    fails=$((fails + 1))
  fi
}
absent() { # absent NAME FILE
  if [ -e "$2" ]; then echo "FAIL $1: $2 was written"; fails=$((fails + 1)); fi
}

# .npy files without numpy: npy NAME DESCR COUNT ITEMSIZE
npy() {
  $py - "$@" <<'PY'
import struct, sys
name, descr, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, count)
total = (10 + len(hdr) + 1 + 63) // 64 * 64
hdr = hdr + ' ' * (total - 10 - len(hdr) - 1) + '\n'
data = b''
if descr == '<f2':
    data = b''.join(struct.pack('<e', (i % 7) * 0.5) for i in range(count))
else:
    data = bytes(count * size)
open(name, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode() + data)
PY
}

check help 0 "$sim" --help
expect help "asc-sim run kernel.bin"
check version 0 "$sim" --version
expect version "asc-sim "
check noargs 1 "$sim"
check badcmd 1 "$sim" frobnicate
expect badcmd "unknown command 'frobnicate'"
check targets 0 "$sim" targets
expect targets "ascend910b"
expect targets "teach"
check config 0 "$sim" config --target teach
expect config '"name": "teach"'
check config_set 0 "$sim" config --target teach --set queue_depth=4
expect config_set '"queue_depth": 4'
check badkey 1 "$sim" config --set no_such_key=1
expect badkey "unknown config key 'no_such_key'"
check badrange 1 "$sim" config --set event_ids=99
expect badrange "event_ids"
expect badrange "[1, 16]"
check badtarget 1 "$sim" config --target nope
expect badtarget "unknown target 'nope'"

"$as" -o "$tmp/vadd.bin" "$src/kernels/asm/vadd_single.s" || { echo "FAIL: cannot assemble vadd_single.s"; exit 1; }
cd "$tmp"
npy x.npy '<f2' 4096 2
npy y.npy '<f2' 4096 2
npy xf.npy '<f4' 4096 4

check run_ok 0 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect run_ok "total:"
expect run_ok "bound"
[ -s z.npy ] || { echo "FAIL run_ok: z.npy missing"; fails=$((fails + 1)); }
rm -f z.npy
check run_json 0 "$sim" run vadd.bin --json --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect run_json '"total_cycles":'
rm -f z.npy
check functional 0 "$sim" run vadd.bin --functional --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect functional "functional"
rm -f z.npy

check arg_missing 1 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16
expect arg_missing "argument 'n' is missing"
absent arg_missing z.npy
check arg_unknown 1 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096 --arg q=1
expect arg_unknown "unknown argument 'q'"
check arg_dtype 1 "$sim" run vadd.bin --arg x=xf.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect arg_dtype "xf.npy holds f32 ('<f4') but argument 'x' of kernel 'vadd_single' is f16 ('<f2')"
absent arg_dtype z.npy
check arg_nofile 1 "$sim" run vadd.bin --arg x=nope.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect arg_nofile "nope.npy"
absent arg_nofile z.npy
check arg_kind 1 "$sim" run vadd.bin --arg x=5 --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect arg_kind "argument 'x' is a gm pointer to f16"
check arg_value 1 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=x.npy
expect arg_value "argument 'n' is an int"
check blocks 1 "$sim" run vadd.bin --blocks 49 --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect blocks "--blocks 49 is too many"
check bad_set 1 "$sim" run vadd.bin --set lat.vec_add=-1 --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect bad_set "lat.vec_add"
check max_cycles 1 "$sim" run vadd.bin --max-cycles 100 --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect max_cycles "--max-cycles 100 exceeded"
absent max_cycles z.npy

# a kernel fault: the vadd writes past UB: exit 1, no output
"$as" -o ub.bin "$src/tests/sim/ub_overflow.s" || { echo "FAIL: cannot assemble ub_overflow.s"; exit 1; }
check fault 1 "$sim" run ub.bin --arg z=@z.npy:4096:f16
expect fault "core0.veccore0 pipe v pc 0x"
expect fault "vadd.f16 x2, x1, x1, x31"
expect fault "ub_overflow.s:9"
expect fault "outside UB"
absent fault z.npy

# a deadlock
cat > dead.s <<'S'
.kernel dead, aiv
        wait_flag mte2, v, 0
        end
S
"$as" -o dead.bin dead.s
check deadlock 1 "$sim" run dead.bin
expect deadlock "deadlock at cycle"
expect deadlock "waits for flag mte2 -> v id 0"
expect deadlock "dead.s:2"

# trace and report dir
mkdir rep
check trace 0 "$sim" run vadd.bin --trace t.json --report-dir rep --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
$py -c "import json,sys; t=json.load(open('t.json')); assert t['schemaVersion']==2 and t['traceEvents']" ||
  { echo "FAIL trace: bad JSON"; fails=$((fails + 1)); }
for f in rep/core0.veccore0_instr_exe.csv rep/core0.veccore0_code_exe.csv rep/summary.json; do
  [ -s "$f" ] || { echo "FAIL report-dir: $f missing"; fails=$((fails + 1)); }
done

if [ "$fails" != 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "asc-sim CLI: all checks passed"
