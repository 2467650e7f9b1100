#!/usr/bin/env bash
# test_asc_sim.sh -- asc-sim's command line: exit codes, --help/--version,
# targets and config output, --set errors, --arg checking (count, kind,
# dtype, missing file) with exit 1 and no output .npy, kernel faults with
# exit 1 and no output .npy, --check-races (a race: exit 1, no output), and
# a good run writing its output.
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
check peaks 0 "$sim" config --target ascend910 --peaks
expect peaks 'cube f16/bf16         8192 FLOP/cycle per core, 262.1 TFLOP/s chip'
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

# bad input of every kind: exit 1, a message naming the place and the rule, no output
run_vadd() { "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096 "$@"; }
printf 'hello, not numpy' > junk.npy
check npy_junk 1 "$sim" run vadd.bin --arg x=junk.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect npy_junk "junk.npy: not a .npy file (it must start with \x93NUMPY)"
absent npy_junk z.npy
head -c 200 x.npy > cut.npy
check npy_cut 1 "$sim" run vadd.bin --arg x=cut.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect npy_cut "cut.npy: data is 72 bytes but shape and dtype need 8192 (truncated or extra bytes)"
absent npy_cut z.npy
# 1 MiB and more of data: read with pread straight into GM pages (run/npy.c); the same bytes as
# through a pipe (read in chunks), and a truncated or longer file is refused the same way
npy px.npy '<f2' 1048576 2
npy py2.npy '<f2' 1048576 2
check big_ok 0 "$sim" run vadd.bin --arg x=px.npy --arg y=py2.npy --arg z=@bz.npy:1048576:f16 --arg n=1048576
rm -f fifo.npy && mkfifo fifo.npy && { cat px.npy > fifo.npy & }
check big_fifo 0 "$sim" run vadd.bin --arg x=fifo.npy --arg y=py2.npy --arg z=@bzf.npy:1048576:f16 --arg n=1048576
wait
cmp -s bz.npy bzf.npy || { echo "FAIL big_fifo: output differs from the pread path"; fails=$((fails + 1)); }
[ "$(tail -c 4096 bz.npy | tr -d '\0' | head -c 1 | wc -c)" = 1 ] || { echo "FAIL big_ok: output is all zero"; fails=$((fails + 1)); }
# an output larger than what the kernel writes: GM pages never written go out as zeros
check out_sparse 0 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@zs.npy:200000:f16 --arg n=4096
[ "$(wc -c < zs.npy)" = 400128 ] && [ "$(tail -c 300000 zs.npy | tr -d '\0' | wc -c)" = 0 ] &&
  [ "$(head -c 8320 zs.npy | tail -c 8192 | tr -d '\0' | wc -c)" != 0 ] ||
  { echo "FAIL out_sparse: size, zeros or data"; fails=$((fails + 1)); }
head -c 1500000 px.npy > bcut.npy
check big_cut 1 "$sim" run vadd.bin --arg x=bcut.npy --arg y=py2.npy --arg z=@z.npy:1048576:f16 --arg n=1048576
expect big_cut "bcut.npy: data is 1499872 bytes but shape and dtype need 2097152 (truncated or extra bytes)"
absent big_cut z.npy
cp px.npy blong.npy && printf 'xyz' >> blong.npy
check big_long 1 "$sim" run vadd.bin --arg x=blong.npy --arg y=py2.npy --arg z=@z.npy:1048576:f16 --arg n=1048576
expect big_long "blong.npy: data is 2097155 bytes but shape and dtype need 2097152 (truncated or extra bytes)"
absent big_long z.npy
for bad in "x" "=x.npy" "z=@z.npy:4096" "z=@z.npy:40,,96:f16" "z=@z.npy:4096:f17" "z=@z.npy:99999999999999999999:f16"; do
  check "arg_form $bad" 1 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg "$bad" --arg n=4096
  expect "arg_form $bad" "error: --arg"
done
check arg_twice 1 run_vadd --arg n=5
expect arg_twice "argument 'n' is given twice"
check arg_int 1 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=12abc
expect arg_int "argument 'n' is an int: '12abc' is not an integer"
check out_dtype 1 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f32 --arg n=4096
expect out_dtype "output 'z' is declared f32 but argument 'z' of kernel 'vadd_single' is f16"
check out_dir 1 "$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@nodir/z.npy:4096:f16 --arg n=4096
expect out_dir "nodir/z.npy"
check blocks0 1 run_vadd --blocks 0
expect blocks0 "--blocks takes an integer in [1, 65536], got '0'"
check blocks_neg 1 run_vadd --blocks -3
check blocks_junk 1 run_vadd --blocks 4x
check blocks_big 1 run_vadd --blocks 99999999999
check maxc_junk 1 run_vadd --max-cycles ten
# bounded runs: 0 and a 20-digit value were "unlimited"; now errors
check maxc_zero 1 run_vadd --max-cycles 0
expect maxc_zero "--max-cycles takes an integer in [1, 1000000000000000], got '0'"
absent maxc_zero z.npy
check maxc_huge 1 run_vadd --max-cycles 99999999999999999999
expect maxc_huge "--max-cycles takes an integer in [1, 1000000000000000], got '99999999999999999999'"
# the default limit (profile key max_cycles) stops a runaway loop, naming each core's pc and line
printf '.kernel spin, aiv\n.arg x, gm, f16\nloop:\n  j loop\n  end\n' > spin.s
"$as" spin.s -o spin.bin 2>/dev/null
check maxc_default 1 "$sim" run spin.bin --blocks 2 --set max_cycles=20000 --arg x=x.npy
expect maxc_default "the cycle limit max_cycles = 20000 of profile ascend910b was exceeded"
expect maxc_default "core0.veccore0 pipe s pc 0x0000 \`j .+0\` (spin.s:4)"
expect maxc_default "core0.veccore1 pipe s pc 0x0000 \`j .+0\` (spin.s:4)"
check maxc_line 1 "$sim" run spin.bin --max-cycles 500 --arg x=x.npy
expect maxc_line "--max-cycles 500 exceeded: the kernel was still running at cycle 500"
expect maxc_line "(spin.s:4)"
check set_noeq 1 run_vadd --set queue_depth
expect set_noeq "--set takes key=value, got 'queue_depth'"
check set_junk 1 run_vadd --set queue_depth=4x
expect set_junk "config key 'queue_depth' must be an integer in the range [1, 4096], got 4x"
check set_key 1 run_vadd --set lat.vec_ad=3
expect set_key "unknown config key 'lat.vec_ad'"
check set_cross 1 run_vadd --set ub_reserved_bytes=200000
expect set_cross "ub_reserved_bytes (200000) must be below ub_bytes (196608)"
check novalue 1 "$sim" run vadd.bin --arg
expect novalue "--arg needs a value"
printf '{"version": 1,\n "ub_bytes": 12,,\n}' > badjson.json
check cfg_json 1 run_vadd --config badjson.json
expect cfg_json "badjson.json:2:18: error: config is not valid JSON"
printf '{"version": 1, "colour": 3}' > badkey.json
check cfg_key 1 run_vadd --config badkey.json
expect cfg_key "badkey.json: error: unknown config key 'colour'"
printf '{"version": 1, "clock_mhz": 0}' > badrange.json
check cfg_range 1 run_vadd --config badrange.json
expect cfg_range "config key 'clock_mhz' must be an integer in the range [1, 10000], got 0"
printf '{"version": 2}' > badver.json
check cfg_version 1 run_vadd --config badver.json
expect cfg_version "config version 2 is not supported: this build reads version 1; upgrade asc to read it"
check cfg_missing 1 run_vadd --config nope.json
expect cfg_missing "cannot open 'nope.json'"
check cfg_both 1 run_vadd --config badver.json --target teach
expect cfg_both "not both"
absent bad_inputs z.npy

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

# --check-races: a race is an error (exit 1, no output .npy, the trace is
# still written), found with the default timing; a race-free kernel runs as
# before with a races section
"$as" -o lab2.bin "$src/kernels/labs/lab2_race.s" || { echo "FAIL: cannot assemble lab2_race.s"; exit 1; }
npy lx.npy '<f2' 16384 2
check race_off 0 "$sim" run lab2.bin --arg x=lx.npy --arg y=lx.npy --arg z=@lz.npy:16384:f16 --arg n=16384
rm -f lz.npy
check race 1 "$sim" run lab2.bin --check-races --trace race.json --arg x=lx.npy --arg y=lx.npy --arg z=@lz.npy:16384:f16 --arg n=16384
expect race "error: race (RAW): VECTOR vadd.f16 at $src/kernels/labs/lab2_race.s:91"
expect race "written by MTE2 mov_out_to_ub at $src/kernels/labs/lab2_race.s:88"
expect race "no flag or barrier orders them"
expect race "races (--check-races): "
absent race lz.npy
[ -s race.json ] || { echo "FAIL race: no trace written"; fails=$((fails + 1)); }
check race_free 0 "$sim" run vadd.bin --check-races --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect race_free "races (--check-races): 0"
check race_json 0 "$sim" run vadd.bin --check-races --json --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect race_json '"races": {"total": 0, "list": []},'
# happens-before needs no timing: a functional run finds the same race, a
# race-free kernel stays silent
check race_functional 1 "$sim" run lab2.bin --check-races --functional --arg x=lx.npy --arg y=lx.npy --arg z=@lz.npy:16384:f16 --arg n=16384
expect race_functional "error: race (RAW): VECTOR vadd.f16 at $src/kernels/labs/lab2_race.s:91"
absent race_functional lz.npy
check race_free_functional 0 "$sim" run vadd.bin --check-races --functional --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
expect race_free_functional "races (--check-races): 0"
rm -f z.npy

# trace and report dir
mkdir rep
check trace 0 "$sim" run vadd.bin --trace t.json --report-dir rep --arg x=x.npy --arg y=y.npy --arg z=@z.npy:4096:f16 --arg n=4096
$py -c "import json,sys; t=json.load(open('t.json')); assert t['schemaVersion']==2 and t['traceEvents']" ||
  { echo "FAIL trace: bad JSON"; fails=$((fails + 1)); }
for f in rep/core0.veccore0_instr_exe.csv rep/core0.veccore0_code_exe.csv rep/summary.json; do
  [ -s "$f" ] || { echo "FAIL report-dir: $f missing"; fails=$((fails + 1)); }
done

# numpy checks: the three kernels give numpy's results, and --functional
# gives the same bytes as the timed run; the HBM sharing shows in the report
if $py -c 'import numpy' 2>/dev/null; then
  "$as" -o dbl.bin "$src/kernels/asm/vadd_double.s" && "$as" -o mm.bin "$src/kernels/asm/matmul_64.s" ||
    { echo "FAIL: cannot assemble the kernels"; exit 1; }
  $py -c "
import numpy as np
r = np.random.default_rng(7)
np.save('vx.npy', r.standard_normal(65536).astype(np.float16))
np.save('vy.npy', r.standard_normal(65536).astype(np.float16))
np.save('ma.npy', r.standard_normal((64, 64)).astype(np.float16))
np.save('mb.npy', r.standard_normal((64, 64)).astype(np.float16))"
  for mode in timed functional; do
    f=; [ $mode = functional ] && f=--functional
    for t in teach ascend910b; do
      check "single_${mode}_$t" 0 "$sim" run vadd.bin $f --target $t --arg x=vx.npy --arg y=vy.npy --arg z=@s_${mode}_$t.npy:65536:f16 --arg n=65536
      check "double_${mode}_$t" 0 "$sim" run dbl.bin $f --target $t --arg x=vx.npy --arg y=vy.npy --arg z=@d_${mode}_$t.npy:65536:f16 --arg n=65536
    done
    check "matmul_${mode}" 0 "$sim" run mm.bin $f --arg a=ma.npy --arg b=mb.npy --arg c=@c_$mode.npy:64,64:f32
  done
  $py - <<'PY' || { echo "FAIL numpy: outputs differ"; fails=$((fails + 1)); }
import numpy as np, sys
x, y = np.load('vx.npy'), np.load('vy.npy')
ref = (x + y).view(np.uint16)
ok = True
for m in ('timed', 'functional'):
    for t in ('teach', 'ascend910b'):
        for k in ('s', 'd'):
            z = np.load('%s_%s_%s.npy' % (k, m, t))
            if z.dtype != np.float16 or not np.array_equal(z.view(np.uint16), ref):
                print('FAIL vadd %s %s %s differs from numpy' % (k, m, t)); ok = False
a, b = np.load('ma.npy').astype(np.float32), np.load('mb.npy').astype(np.float32)
want = a @ b
for m in ('timed', 'functional'):
    c = np.load('c_%s.npy' % m)
    err = np.max(np.abs(c - want)) / np.max(np.abs(want))
    if c.dtype != np.float32 or err > 1e-3:
        print('FAIL matmul %s: relative error %g' % (m, err)); ok = False
if not np.array_equal(np.load('c_timed.npy'), np.load('c_functional.npy')):
    print('FAIL matmul: --functional differs from timed'); ok = False
sys.exit(0 if ok else 1)
PY
  # an MTE-bound kernel on 1 and 24 cores: per-core GM bandwidth falls to hbm / 24
  $py -c "import numpy as np; np.save('bx.npy', np.zeros(24 * 65536, np.float16))"
  check hbm1 0 "$sim" run vadd.bin --json --blocks 1 --arg x=bx.npy --arg y=bx.npy --arg z=@hz.npy:1572864:f16 --arg n=1572864
  echo "$out" > hbm1.json
  check hbm24 0 "$sim" run vadd.bin --json --blocks 24 --arg x=bx.npy --arg y=bx.npy --arg z=@hz.npy:1572864:f16 --arg n=1572864
  echo "$out" > hbm24.json
  $py - <<'PY' || { echo "FAIL hbm: no contention with 24 cores"; fails=$((fails + 1)); }
import json, sys
one, many = json.load(open('hbm1.json')), json.load(open('hbm24.json'))
c1 = one['stalls']['hbm_contention_cycles']
c24 = many['stalls']['hbm_contention_cycles']
print('HBM contention cycles: 1 core %d, 24 cores %d' % (c1, c24))
sys.exit(0 if c1 == 0 and c24 > 0 else 1)
PY
  # an int argument from 2^63 to 2^64 - 1 is the register's bit pattern (as asc-as literals and a
  # pyasc launch take it); it was refused as "not an integer" (review s5)
  printf '.kernel k, aiv\n.arg n, int\n.arg z, gm, s64\n  st.d x0, 0(x1)\n  end\n' > iarg.s
  "$as" iarg.s -o iarg.bin || fails=$((fails + 1))
  for v in 0xffffffffffffffff:-1 18446744073709551615:-1 -9223372036854775808:-9223372036854775808 0x10:16; do
    rm -f zi.npy
    check "int_arg_${v%%:*}" 0 "$sim" run iarg.bin --functional --arg "n=${v%%:*}" --arg z=@zi.npy:1:s64
    got=$($py -c "import numpy as np; print(int(np.load('zi.npy')[0]))" 2>&1)
    [ "$got" = "${v##*:}" ] || { echo "FAIL int_arg ${v%%:*}: the kernel got $got, not ${v##*:}"; fails=$((fails + 1)); }
  done
  check int_arg_over 1 "$sim" run iarg.bin --functional --arg n=18446744073709551616 --arg z=@zi2.npy:1:s64
  expect int_arg_over "'18446744073709551616' does not fit in 64 bits (the scalar registers' width): give a value in [-2^63, 2^64)"
  absent int_arg_over zi2.npy
else
  echo "numpy not found: skipping the numpy comparisons"
fi

if [ "$fails" != 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "asc-sim CLI: all checks passed"
