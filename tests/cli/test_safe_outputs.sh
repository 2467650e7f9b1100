#!/usr/bin/env bash
# test_safe_outputs.sh -- outputs are safe (asc/outfile.h),
# asc-as refuses what would grow memory for ever (item 2) and keeps checking
# a kernel body after a broken .kernel line (item 5):
#   - a planted symlink (PATH.tmp or any temporary-like name) is never
#     written through; its target is unchanged;
#   - an output equal to an input (same path, hard link, symlink) is an error;
#   - a failed --report-dir writes none of the run's outputs;
#   - stale temporaries of a dead process are removed by the next run;
#   - asc-sim killed with SIGINT, SIGTERM or SIGKILL at random points leaves
#     nothing but complete outputs of earlier runs (SIGKILL: a uniquely
#     named temporary, gone after the next run);
#   - asc-as /dev/zero, a FIFO, .include "/dev/urandom", a 17 MiB source.
# Usage: test_safe_outputs.sh BUILD_DIR SOURCE_DIR [KILLS]
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
kills=${3:-24}
sim=$build/sim/asc-sim
as=$build/asm/asc-as
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
cd "$tmp"

# ---- asc-as ------------------------------------------------------------------
printf '.kernel k, aiv\n        end\n' > same.s
cp same.s same.orig
"$as" same.s -o same.s 2> err; rc=$?
[ $rc = 1 ] && grep -q "is the same file as the input" err && cmp -s same.s same.orig && ok "asc-as same.s -o same.s" ||
  fail "asc-as same.s -o same.s: rc $rc, $(head -1 err)"
ln same.s hard.s
"$as" same.s -o hard.s 2> err; rc=$?
[ $rc = 1 ] && cmp -s same.s same.orig && ok "asc-as -o a hard link of the input" || fail "hard link: rc $rc"
ln -s same.s soft.s
"$as" same.s -o soft.s 2> err; rc=$?
[ $rc = 1 ] && [ -L soft.s ] && cmp -s same.s same.orig && ok "asc-as -o a symlink to the input" || fail "symlink: rc $rc"
printf '.include "inc.s"\n' > main.s
printf '.kernel k, aiv\n        end\n' > inc.s
cp inc.s inc.orig
"$as" main.s -o inc.s 2> err; rc=$?
[ $rc = 1 ] && cmp -s inc.s inc.orig && ok "asc-as -o an included file" || fail "-o included file: rc $rc"

# planted symlinks next to an asc-as output
echo victim > victim
ln -s victim k.bin.tmp
"$as" same.s -o k.bin && [ "$(cat victim)" = victim ] && [ -s k.bin ] && ok "asc-as: planted k.bin.tmp untouched" ||
  fail "asc-as: planted symlink"

# non-regular and huge inputs: an error at once, no memory growth
timeout 10 "$as" /dev/zero -o z.bin 2> err; rc=$?
[ $rc = 1 ] && grep -q "not a regular file" err && ok "asc-as /dev/zero" || fail "asc-as /dev/zero: rc $rc"
mkfifo fifo.s
timeout 10 "$as" fifo.s -o z.bin 2> err; rc=$?
[ $rc = 1 ] && grep -q "not a regular file" err && ok "asc-as FIFO" || fail "asc-as FIFO: rc $rc"
printf '.include "/dev/urandom"\n.kernel k, aiv\n        end\n' > urand.s
timeout 10 "$as" urand.s -o z.bin 2> err; rc=$?
[ $rc = 1 ] && grep -q "urand.s:1:.*not a regular file" err && ok ".include \"/dev/urandom\"" || fail ".include urandom: rc $rc"
head -c $((17 << 20)) /dev/zero | tr '\0' '\n' > big.s
timeout 20 "$as" big.s -o z.bin 2> err; rc=$?
[ $rc = 1 ] && grep -q "at most 16 MiB" err && ok "asc-as 17 MiB source" || fail "17 MiB: rc $rc $(head -1 err)"
[ ! -e z.bin ] || fail "asc-as wrote z.bin for a refused input"

# error recovery: the body of a broken .kernel line is still checked
for line in '.kernel k, bogus' '.kernel 9k, aiv' '.kernel k, aiv extra' '.kernel k'; do
  printf '%s\n        addi x1, x0, 99999\n        vfoo x1\n        end\n' "$line" > rec.s
  "$as" rec.s -o rec.bin 2> err; rc=$?
  n=$(grep -c ': error:' err)
  [ $rc = 1 ] && [ "$n" = 3 ] && grep -q "rec.s:2:.*range" err && grep -q "rec.s:3:.*unknown instruction" err &&
    ok "recovery after '$line'" || fail "recovery after '$line': rc $rc, $n errors: $(cat err)"
done
printf '.kernel a, aiv\n        end\n.kernel a, aiv\n        addi x1, x0, 99999\n        end\n' > dup.s
"$as" dup.s -o dup.bin 2> err
grep -q "already defined" err && grep -q "dup.s:4:.*range" err && ok "recovery after a duplicate kernel" ||
  fail "duplicate kernel recovery: $(cat err)"

# ---- asc-sim -----------------------------------------------------------------
"$as" -o vadd.bin "$src/kernels/asm/vadd_single.s" || { echo "FAIL: cannot assemble vadd_single.s"; exit 1; }
n=$((1 << 20))
$py -c "
import numpy as np
np.save('x.npy', (np.arange($n) % 7).astype(np.float16)); np.save('y.npy', np.ones($n, dtype=np.float16))"
runargs=(run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:$n:f16 --arg n=$n --trace t.json --report-dir rep)
run() { "$sim" "${runargs[@]}" "$@"; }
run > ref.out || fail "reference run"
# a 2 MiB output gets its blocks allocated before it is written (run/npy.c npy_prealloc): the
# right bytes, and no allocated block left past its end
$py -c "
import numpy as np
z = np.load('z.npy'); assert z.dtype == np.float16 and np.array_equal(z, np.load('x.npy') + np.load('y.npy'))" &&
  [ $(($(stat -c '%b * %B' z.npy))) -le $(($(stat -c %s z.npy) + 65536)) ] &&
  ok "asc-sim 2 MiB output: x + y, no blocks past its end" || fail "2 MiB output: $(stat -c '%s %b %B' z.npy)"
mkdir ref && mv z.npy t.json rep ref/
# the same output into a FIFO: written through (no temporary, nothing preallocated), the same bytes
mkfifo zout.fifo
cat zout.fifo > zfifo.got &
reader=$!
"$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@zout.fifo:$n:f16 --arg n=$n > /dev/null 2> err; rc=$?
wait $reader
[ $rc = 0 ] && [ -p zout.fifo ] && cmp -s zfifo.got ref/z.npy && ok "asc-sim 2 MiB output into a FIFO" ||
  fail "asc-sim output into a FIFO: rc $rc, $(head -1 err)"
rm -f zout.fifo zfifo.got
# planted symlinks: the old fixed name, and guesses at the new ones
ln -s victim z.npy.tmp
ln -s victim t.json.tmp
ln -s victim ".z.npy.asc-tmp.$$.aaaaaaaaaaaa"
run > /dev/null && [ "$(cat victim)" = victim ] && cmp -s z.npy ref/z.npy && cmp -s t.json ref/t.json &&
  ok "asc-sim: planted symlinks untouched" || fail "asc-sim: planted symlinks"
rm -rf z.npy t.json rep z.npy.tmp t.json.tmp ".z.npy.asc-tmp.$$.aaaaaaaaaaaa"

# output = input
"$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@x.npy:$n:f16 --arg n=$n 2> err; rc=$?
[ $rc = 1 ] && grep -q "is the same file as the input 'x.npy'" err && ok "asc-sim output = input" ||
  fail "asc-sim output = input: rc $rc $(cat err)"
ln -s y.npy ylink.npy
"$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@ylink.npy:$n:f16 --arg n=$n 2> err; rc=$?
[ $rc = 1 ] && [ -L ylink.npy ] && ok "asc-sim output = symlink to an input" || fail "asc-sim symlink output: rc $rc"
"$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:$n:f16 --arg n=$n --trace z.npy 2> err; rc=$?
[ $rc = 1 ] && [ ! -e z.npy ] && ok "asc-sim trace = output" || fail "asc-sim trace = output: rc $rc"

# a failed --report-dir (a file is in the way) writes none of the outputs
echo file > notadir
"$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:$n:f16 --arg n=$n --trace t.json \
  --report-dir notadir > /dev/null 2> err; rc=$?
[ $rc = 1 ] && [ ! -e z.npy ] && [ ! -e t.json ] && [ "$(cat notadir)" = file ] && ok "failed --report-dir: no outputs" ||
  fail "failed --report-dir: rc $rc, $(ls)"
"$sim" run vadd.bin --arg x=x.npy --arg y=y.npy --arg z=@z.npy:$n:f16 --arg n=$n --report-dir no/such/dir \
  > /dev/null 2> err; rc=$?
[ $rc = 1 ] && [ ! -e z.npy ] && ok "--report-dir in a missing directory: no outputs" || fail "missing report parent: rc $rc"

# stale temporaries of a dead process go with the next run; a live one stays
sleep 0 & dead=$!
wait $dead
touch ".z.npy.asc-tmp.$dead.oldoldoldold" ".z.npy.asc-tmp.$$.liveliveliv"
mkdir ".rep.asc-tmp.$dead.XYZabc" && touch ".rep.asc-tmp.$dead.XYZabc/summary.json"
run > /dev/null
[ ! -e ".z.npy.asc-tmp.$dead.oldoldoldold" ] && [ ! -e ".rep.asc-tmp.$dead.XYZabc" ] &&
  [ -e ".z.npy.asc-tmp.$$.liveliveliv" ] && ok "stale temporaries removed, a live one kept" || fail "stale: $(ls -a)"
rm -rf z.npy t.json rep ".z.npy.asc-tmp.$$.liveliveliv"

# killed at random points: only complete outputs, SIGKILL leftovers removed by the next run
leftovers() { ls -A | grep -vxE 'vadd.bin|x.npy|y.npy|ref|ref.out|victim|same.*|hard.s|soft.s|main.s|inc.*|k.bin.tmp|k.bin|fifo.s|urand.s|big.s|err|rec.*|dup.*|ylink.npy|notadir|z.npy|t.json|rep'; }
complete() { # every output present is byte-identical to the reference run's
  local f
  for f in z.npy t.json; do [ ! -e $f ] || cmp -s $f ref/$f || return 1; done
  [ ! -e rep ] || diff -r rep ref/rep > /dev/null
}
start=$(date +%s%N)
run > /dev/null
dur=$((($(date +%s%N) - start) / 1000)) # microseconds
sigs=(INT TERM KILL)
bad=0
killed="" # pids ended by SIGKILL: only their temporaries may be left (until the next run opens the same output)
RANDOM=42
for i in $(seq 1 "$kills"); do
  sig=${sigs[$((i % 3))]}
  delay=$((RANDOM * RANDOM % (dur + 1)))
  "$sim" "${runargs[@]}" > /dev/null 2>&1 & # not through run(): $! must be asc-sim itself
  pid=$!
  sleep "$(printf '0.%06d' "$delay")"
  kill -s "$sig" $pid 2> /dev/null
  wait $pid 2> /dev/null
  [ $sig = KILL ] && killed="$killed $pid"
  complete || { fail "kill $i ($sig after ${delay}us): an incomplete output"; bad=1; }
  extra=$(leftovers)
  stray=$(for f in $extra; do
    p=$(sed -nE 's/^\..*\.asc-tmp\.([0-9]+)\..*/\1/p' <<<"$f")
    [[ -n $p && " $killed " == *" $p "* ]] || echo "$f"
  done)
  if [ -n "$stray" ]; then
    fail "kill $i ($sig after ${delay}us) left: $stray"
    bad=1
  fi
done
run > /dev/null
[ -z "$(leftovers)" ] && complete || { fail "after the kills: $(leftovers)"; bad=1; }
[ $bad = 0 ] && ok "$kills runs killed (INT, TERM, KILL) at random points within ${dur}us"


# ---- an output that is a FIFO or a character device is written, not replaced --------------
# (a regular file renamed over /dev/null, as root, would replace it for the whole machine)
printf '.kernel k, aiv\n        end\n' > dev.s
"$as" dev.s -o dev.ref 2> err || fail "asc-as dev.s: $(head -1 err)"
mkfifo out.fifo
cat out.fifo > fifo.got &
reader=$!
"$as" dev.s -o out.fifo 2> err; rc=$?
wait $reader
[ $rc = 0 ] && [ -p out.fifo ] && cmp -s fifo.got dev.ref && ok "asc-as -o a FIFO writes through it" ||
  fail "asc-as -o FIFO: rc $rc, fifo still a FIFO: $([ -p out.fifo ] && echo yes || echo no), $(head -1 err)"
if mknod null.dev c 1 3 2> /dev/null; then # root only: a private copy of /dev/null
  "$as" dev.s -o null.dev 2> err; rc=$?
  [ $rc = 0 ] && [ -c null.dev ] && ok "asc-as -o a character device keeps the device" ||
    fail "asc-as -o a character device: rc $rc, still a device: $([ -c null.dev ] && echo yes || echo no)"
  "$sim" "${runargs[@]}" --trace null.dev > /dev/null 2> err; rc=$?
  [ $rc = 0 ] && [ -c null.dev ] && ok "asc-sim --trace a character device keeps the device" ||
    fail "asc-sim --trace a character device: rc $rc, $(head -1 err)"
else
  echo "skip asc-as -o a character device (mknod needs root)"
fi
rm -f dev.s dev.ref out.fifo fifo.got null.dev
echo "$fails failure(s)"
[ $fails = 0 ]
