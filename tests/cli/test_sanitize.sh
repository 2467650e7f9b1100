#!/usr/bin/env bash
# test_sanitize.sh -- asc-sim run --sanitize=... (docs/timing.md "Sanitizers"): the four GM
# examples (a write far past its argument, a short input, a short output, a short slice) are
# reported with the argument's name and the assembly line (writes by default, as a fault; reads
# with memcheck); initcheck and synccheck findings; a bad check name; and every
# repository kernel (kernels/asm, the lab kernels that are not broken on purpose) runs clean under
# every check (exit 0, no finding on stderr).
# Usage: test_sanitize.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sim=$build/sim/asc-sim
as=$build/asm/asc-as
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
py=/usr/bin/python3
$py -c 'import numpy' 2>/dev/null || { echo "numpy not found: skipping"; exit 0; }

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
    echo "$out" | grep -E "error|warning" | head -5
    fails=$((fails + 1))
  fi
}
clean() { # clean NAME: no sanitizer finding in the last output
  if grep -qE "memcheck|initcheck|synccheck|racecheck|race \(" <<<"$out"; then
    echo "FAIL $1: findings in a clean kernel"
    echo "$out" | grep -E "memcheck|initcheck|synccheck|race" | head -5
    fails=$((fails + 1))
  fi
}
absent() { if [ -e "$2" ]; then echo "FAIL $1: $2 was written"; fails=$((fails + 1)); fi; }

$py -c "
import numpy as np
r = np.random.default_rng(7)
np.save('a.npy', np.zeros(16, np.float16))
np.save('x100.npy', np.ones(100, np.float16))
for n in ('x', 'y'): np.save(n + '.npy', r.standard_normal(65536).astype(np.float16))
np.save('ma.npy', r.standard_normal((64, 64)).astype(np.float16))
np.save('mb.npy', r.standard_normal((64, 64)).astype(np.float16))
np.save('ta.npy', r.standard_normal((1024, 1024)).astype(np.float16))
np.save('tb.npy', r.standard_normal((1024, 1024)).astype(np.float16))
np.save('lx.npy', r.standard_normal((64, 256)).astype(np.float16))"
for k in vadd_single vadd_double vadd_bank_conflict matmul_64 matmul_tiled; do
  "$as" "$src/kernels/asm/$k.s" -o $k.bin || { echo "FAIL: cannot assemble $k.s"; exit 1; }
done
for k in lab4_conflict lab4_padded; do "$as" "$src/kernels/labs/$k.s" -o $k.bin || exit 1; done

# (a) 8 KB written at a + 2 MiB, a is 32 B: a fault in every run, naming a and the line
printf '.kernel wa, aiv\n.arg a, gm, f16\n  li x1, 0x200000\n  add x2, x0, x1\n  li x3, 0\n  mov_ub_to_out x2, x3, nburst=1, len=256\n  end\n' > wa.s
"$as" wa.s -o wa.bin
check a_default 1 "$sim" run wa.bin --arg a=a.npy
expect a_default "pipe mte3 pc 0x0014 \`mov_ub_to_out x2, x3, x31\` (wa.s:6) at cycle"
expect a_default "memcheck: GM write of 8192 B [0x40200000, 0x40202000): it lies outside every allocation: 2097088 B past the end of argument 'a' (32 B at 0x40000000, 64 B allocated)"
check a_memcheck 1 "$sim" run wa.bin --arg a=a.npy --sanitize=memcheck
expect a_memcheck "error: memcheck: 1 errors (1 distinct listed below)"
expect a_memcheck "invalid GM write of 8192 B [0x40200000, 0x40202000) by MTE3 \`mov_ub_to_out x2, x3, x31\` at wa.s:6 (core0.veccore0, pipe mte3, pc 0x0014"
# (b) a 100-element x for n = 32768: reads past x (memcheck), and the output is not written
check b 1 "$sim" run vadd_single.bin --sanitize=memcheck --arg x=x100.npy --arg y=y.npy --arg z=@zb.npy:32768:f16 --arg n=32768
expect b "error: memcheck: 8 errors (1 distinct listed below)"
expect b "invalid GM read of 8192 B [0x40000000, 0x40002000) by MTE2 \`mov_out_to_ub x10, x0, x31\` at $src/kernels/asm/vadd_single.s:44"
expect b "it starts in argument 'x' (200 B at 0x40000000, 256 B allocated) and runs 7936 B past its end (8 times)"
absent b zb.npy
check b_default 0 "$sim" run vadd_single.bin --arg x=x100.npy --arg y=y.npy --arg z=@zb.npy:32768:f16 --arg n=32768
# ... and says so without --sanitize: the read past x is a warning at its line (it was silent)
expect b_default "asc-sim: warning: $src/kernels/asm/vadd_single.s:44 (first on core 0, 8 times): GM read of 8192 bytes at 0x40000000 runs outside the argument it starts in"
# (c) z=@z.npy:16:f16 while the kernel writes 64 KB: a fault by default
check c 1 "$sim" run vadd_single.bin --arg x=x.npy --arg y=y.npy --arg z=@zc.npy:16:f16 --arg n=32768
expect c "(/"
expect c "vadd_single.s:51) at cycle"
expect c "memcheck: GM write of 8192 B [0x40400000, 0x40402000): it starts in argument 'z' (32 B at 0x40400000, 64 B allocated) and runs 8128 B past its end"
absent c zc.npy
# (d) a 64-byte read of a 32-byte argument: the second block is the extent's padding, no data
# (review s5: it was clean, the extent being 64 B); a 40-byte one is read in whole blocks: clean
printf '.kernel rp, aiv\n.arg a, gm, f16\n  li x3, 0\n  mov_out_to_ub x3, x0, nburst=1, len=2\n  end\n' > rp.s
"$as" rp.s -o rp.bin
$py -c "import numpy as np; np.save('a20.npy', np.zeros(20, np.float16))"
check pad_memcheck 1 "$sim" run rp.bin --sanitize=memcheck --arg a=a.npy
expect pad_memcheck "invalid GM read of 64 B [0x40000000, 0x40000040) by MTE2 \`mov_out_to_ub x3, x0, x31\` at rp.s:4"
expect pad_memcheck "it starts in argument 'a' (32 B at 0x40000000, 64 B allocated) and reads 32 B of its padding past the data's last 32-byte block (bytes that are not data)"
check pad_default 0 "$sim" run rp.bin --arg a=a.npy
expect pad_default "asc-sim: warning: rp.s:4 (first on core 0): GM read of 64 bytes at 0x40000000 runs outside the argument it starts in"
check pad_whole 0 "$sim" run rp.bin --sanitize=memcheck --arg a=a20.npy
clean pad_whole
if grep -q "warning" <<<"$out"; then echo "FAIL pad_whole: a warning"; fails=$((fails + 1)); fi
# initcheck: an output read before the kernel wrote it (x passed as an output)
check init 1 "$sim" run vadd_single.bin --sanitize=initcheck --arg x=@xo.npy:8192:f16 --arg y=y.npy --arg z=@zi.npy:8192:f16 --arg n=8192
expect init "error: initcheck: 2 errors (1 distinct listed below)"
expect init "initcheck: MTE2 \`mov_out_to_ub x10, x0, x31\` at $src/kernels/asm/vadd_single.s:44 (core0.veccore0, pipe mte2, pc 0x004c"
expect init "reads GM [0x40000000, 0x40002000) (argument 'x'), never written in this run"
# synccheck: warnings, exit 0
printf '.kernel sc, aiv\n.arg a, gm, f16\n  bar mte2\n  set_flag mte2, v, 1\n  end\n' > sc.s
"$as" sc.s -o sc.bin
check sync 0 "$sim" run sc.bin --sanitize=synccheck --arg a=a.npy
expect sync "warning: synccheck: 2 warnings (2 distinct listed below)"
expect sync "synccheck: MTE2 \`bar mte2\` at sc.s:3 (core0.veccore0, pipe mte2, pc 0x0000, cycle 500) waits for nothing: pipe mte2 was given no instruction since the start"
expect sync "synccheck: flag mte2 -> v id 1 set by MTE2 \`set_flag mte2, v, 1\` at sc.s:4"
expect sync "is still set at \`end\`: no wait_flag consumed it"
printf '.kernel sw, aiv\n.arg a, gm, f16\n  wait_flag mte2, v, 2\n  end\n' > sw.s
"$as" sw.s -o sw.bin
check sync_wait 1 "$sim" run sw.bin --sanitize=synccheck --arg a=a.npy
expect sync_wait "waits for flag mte2 -> v id 2, which no set_flag of the program sets"
check bad_name 1 "$sim" run sc.bin --sanitize=memcheck,bogus --arg a=a.npy
expect bad_name "asc-sim: --sanitize: unknown check 'bogus' (the checks are memcheck, initcheck, racecheck, synccheck, all)"

# racecheck on GM and across cores (sim/race_gm.c)
$py -c "import numpy as np; np.save('w.npy', np.zeros(64, np.float32))"
printf '.kernel mx, mix\n.arg ws, gm, f32\n.aic\n  li x2, 7\n  st.w x2, 0(x0)\n  set_cross_core s, 2, 1\n  end\n.aiv\n  wait_flag_dev 1\n  ld.w x3, 0(x0)\n  end\n' > mxf.s
printf '.kernel mx, mix\n.arg ws, gm, f32\n.aic\n  li x2, 7\n  st.w x2, 0(x0)\n  end\n.aiv\n  ld.w x3, 0(x0)\n  end\n' > mxn.s
printf '.kernel ov, aiv\n.arg z, gm, f32\n  li x3, 0\n  mov_ub_to_out x0, x3, nburst=1, len=1\n  end\n' > ov.s
printf '.kernel dj, aiv\n.arg z, gm, f32\n  mfspr x5, block_idx\n  shli x5, x5, 5\n  add x6, x0, x5\n  li x3, 0\n  mov_ub_to_out x6, x3, nburst=1, len=1\n  end\n' > dj.s
printf '.kernel at, aiv\n.arg z, gm, f32\n  li x4, 1\n  mtspr st_atomic, x4\n  li x3, 0\n  mov_ub_to_out x0, x3, nburst=1, len=1\n  end\n' > at.s
for k in mxf mxn ov dj at; do "$as" $k.s -o $k.bin || { echo "FAIL: cannot assemble $k.s"; exit 1; }; done
check gm_flag 0 "$sim" run mxf.bin --sanitize=racecheck --arg ws=w.npy
clean gm_flag
check gm_noflag 1 "$sim" run mxn.bin --sanitize=racecheck --arg ws=w.npy
expect gm_noflag "racecheck (WAR) on GM: SCALAR \`st.w x2, 0(x0)\` at mxn.s:5 (core0.cubecore0, pipe s, pc 0x0004, cycle 501) writes argument 'ws' [0x40000000, 0x40000004) read by SCALAR \`ld.w x3, 0(x0)\` at mxn.s:8 (core0.veccore0, pipe s, pc 0x000c): no cross-core flag or sync_all orders them"
check gm_overlap 1 "$sim" run ov.bin --blocks 2 --sanitize=racecheck --arg z=w.npy
expect gm_overlap "racecheck (WAW) on GM: MTE3 \`mov_ub_to_out x0, x3, x31\` at ov.s:4 (core0.veccore1, pipe mte3"
expect gm_overlap "writes argument 'z' [0x40000000, 0x40000020) written by MTE3 \`mov_ub_to_out x0, x3, x31\` at ov.s:4 (core0.veccore0, pipe mte3, pc 0x000c)"
check gm_disjoint 0 "$sim" run dj.bin --blocks 2 --sanitize=racecheck --arg z=w.npy
clean gm_disjoint
check gm_atomic 0 "$sim" run at.bin --blocks 4 --sanitize=racecheck --arg z=w.npy
clean gm_atomic

# initcheck through the cube path: A's L1 tile gets rows 0..8 only (one 32 B granule each); the
# loads and mmad carry "not defined" to C's rows 9..15, and only a fixpipe reading them reports
mk_cube() { # mk_cube NAME FIXPIPE_M
  printf '.target ascend910b\n.kernel %s, aic\n.arg a, gm, f16\n.arg b, gm, f16\n.arg c, gm, f32\n  li x10, 0\n  li x11, 0x2000\n  mov_out_to_l1 x10, x0, nburst=9, len=1\n  mov_out_to_l1 x11, x1, nburst=16, len=1\n  set_flag mte2, mte1, 0\n  wait_flag mte2, mte1, 0\n  li x15, 0\n  load_l1_to_l0a_2d x15, x10, start=0, repeat=1, srcstride=1\n  load_l1_to_l0b_2d x15, x11, start=0, repeat=1, srcstride=1, transpose=1\n  set_flag mte1, m, 0\n  wait_flag mte1, m, 0\n  mmad.f16f32 x15, x15, x15, m=16, n=16, k=16, init=1\n  set_flag m, fix, 0\n  wait_flag m, fix, 0\n  fix_l0c_to_out.f32 x2, x15, m=%s, n=16\n  end\n' "$1" "$2" > "$1.s"
  "$as" "$1.s" -o "$1.bin" || { echo "FAIL: cannot assemble $1.s"; exit 1; }
}
mk_cube cube_out 16
mk_cube cube_pad 9
$py -c "import numpy as np; np.save('ca.npy', np.ones((16, 16), np.float16))"
check cube_out 1 "$sim" run cube_out.bin --sanitize=initcheck --arg a=ca.npy --arg b=ca.npy --arg c=@cc.npy:16,16:f32
expect cube_out "error: initcheck: 1 errors (1 distinct listed below)"
expect cube_out "initcheck: FIXP \`fix_l0c_to_out.f32 x2, x15, x31\` at cube_out.s:20 (core0.cubecore0, pipe fix, pc 0x0068"
expect cube_out "reads L0C [0x240, 0x280), computed from data never written in this run (initcheck follows it through the L1 -> L0A / L0B loads and mmad)"
if grep 'initcheck: ' <<<"$out" | grep -q '`load_l1_to_l0\|`mmad'; then
  echo "FAIL cube_out: reported at a load or the mmad"; fails=$((fails + 1))
fi
check cube_pad 0 "$sim" run cube_pad.bin --sanitize=all --arg a=ca.npy --arg b=ca.npy --arg c=@cp.npy:16,16:f32
clean cube_pad

# the repository's kernels run clean under every check
for b in 1 4; do
  for k in vadd_single vadd_double vadd_bank_conflict; do
    check "clean_${k}_$b" 0 "$sim" run $k.bin --blocks $b --sanitize=all --arg x=x.npy --arg y=y.npy --arg z=@z.npy:65536:f16 --arg n=65536
    clean "clean_${k}_$b"
  done
done
check clean_mm 0 "$sim" run matmul_64.bin --sanitize=all --arg a=ma.npy --arg b=mb.npy --arg c=@c.npy:64,64:f32
clean clean_mm
check clean_mt 0 "$sim" run matmul_tiled.bin --blocks 8 --sanitize=all --arg a=ta.npy --arg b=tb.npy --arg c=@c.npy:1024,1024:f32
clean clean_mt
for k in lab4_conflict lab4_padded; do
  check "clean_$k" 0 "$sim" run $k.bin --sanitize=all --arg x=lx.npy --arg y=lx.npy --arg z=@lz.npy:64,256:f16
  clean "clean_$k"
done

if [ "$fails" != 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "asc-sim --sanitize: all checks passed"
