#!/usr/bin/env bash
# test_errors_doc.sh -- docs/errors.md is the test: every row of its table
# (between <!-- errors:begin --> and <!-- errors:end -->) is run in a scratch
# directory with the fixtures the document lists; the exit code must match
# and stderr must contain the message.
# Usage: test_errors_doc.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
mkdir "$tmp/bin"
ln -s "$build/asm/asc-as" "$build/loader/asc-objdump" "$build/sim/asc-sim" "$tmp/bin/"
[ -x "$build/viz/asc-viz" ] && ln -s "$build/viz/asc-viz" "$tmp/bin/"
export PATH="$tmp/bin:$PATH"
cd "$tmp" || exit 1
printf '.kernel k, aiv\n        end\n' > k.s
asc-as k.s || exit 1
asc-as -o vadd.bin "$src/kernels/asm/vadd_single.s" || exit 1
$py -c "
import numpy as np
np.save('x.npy', np.ones(4096, dtype=np.float16)); np.save('xf.npy', np.ones(4096, dtype=np.float32))
open('long.json', 'w').write('{\"version\": 1, \"name\": \"' + 'x' * 10000 + '\"}')
open('badutf.json', 'wb').write(b'{\"version\": 1, \"name\": \"a\xffb\"}')" || exit 1
echo 'not numpy' > bad.npy
mkfifo fifo.s
head -c $((17 << 20)) /dev/zero | tr '\0' '\n' > big.s
echo file > notadir
printf '.include "/dev/urandom"\n' > inc_urandom.s
printf '.kernel k, bogus\n        addi x1, x0, 99999\n        end\n' > bad_kind.s
printf '; nothing\n' > empty.s
printf '.kernel k, aiv\n' > noend.s
# assembler operand and directive errors
printf '.kernel k, aiv\n        addi x99, x0, 1\n        end\n' > bad_reg.s
printf '.kernel k, aiv\n        frob x1, x0, 1\n        end\n' > bad_mnem.s
printf '.kernel k, aiv\n        addi x1, x0\n        end\n' > bad_nops.s
printf '.frob 1\n.kernel k, aiv\n        end\n' > bad_dir.s
printf '.kernel k, aiv\n.arg x, gm, f99\n        end\n' > bad_arg.s
printf '.kernel k, aiv\n.arg x, gm, f16\n.arg x, gm, f16\n        end\n' > dup_arg.s
printf '.kernel k, aiv\n        bne x1, x0, nowhere\n        end\n' > bad_label.s
printf '.kernel k, aiv\nL:\nL:\n        end\n' > dup_label.s
printf '.kernel k, aiv\n        mov_out_to_ub x1, x0, len=99999\n        end\n' > bad_field.s
printf '.kernel k, aiv\n        mov_out_to_ub x1, x0, frob=1\n        end\n' > bad_key.s
# the assembler's own error files (each line annotated with its diagnostic, tests/asm/err_*.s)
cp "$src"/tests/asm/err_*.s . && cp -r "$src/tests/asm/inc" . || exit 1
{ echo '.kernel k, aiv'; for _ in $(seq 60); do echo '        frob'; done; echo '        end'; } > many.s
# profiles: an unknown key, a future version, a non-power-of-two and an out-of-range value
echo '{"version": 1, "frob": 1}' > cfg_key.json
printf '{"version": 1}\n  trailing\n' > cfg_trail.json
echo '{"total_cycles": 1} {}' > run_trail.json
echo '{"format": "asc-bundle"} x' > trail.om
echo '{"version": 99}' > cfg_ver.json
echo '{"version": 1, "ub_bank_groups": 3}' > cfg_pow.json
echo '{"version": 1, "ub_bank_groups": 128}' > cfg_rng.json
# custom profiles by name ($ASC_CONFIG_DIR, asc_config_named): a bad key, a misnamed file, a built-in's name
mkdir cdir
echo '{"version": 1, "name": "cd_key", "ub_bank_groupz": 32}' > cdir/cd_key.json
echo '{"version": 1, "name": "other"}' > cdir/cd_name.json
echo '{"version": 1, "name": "teach"}' > cdir/teach.json
# asc-viz trace-format errors
echo 'not json' > tr_text.json
echo '{"x": 1}' > tr_noev.json
echo '{"traceEvents": 5}' > tr_evnum.json
echo '[1, 2]' > tr_evint.json
echo '{"traceEvents": [{"ph": 5}]}' > tr_ph.json
# asc-sim run-time faults: one kernel each
fault() { printf "$2" > "$1.s" && asc-as "$1.s" -o "$1.bin"; }
fault f_ub '.kernel k, aiv\n        li x1, 0x7fffffff\n        vadd.f32 x1, x1, x1, repeat=1\n        end\n' || exit 1
fault f_gm '.kernel k, aiv\n.arg x, gm, f16\n        li x1, 0\n        li x2, 0x400000\n        add x2, x0, x2\n        mov_ub_to_out x2, x1, len=1\n        end\n' || exit 1
fault f_flag '.kernel k, aiv\n        wait_flag v, mte3, 0\n        end\n' || exit 1
fault f_xflag '.kernel k, aiv\n        wait_flag_dev 3\n        end\n' || exit 1
fault f_trap '.kernel k, aiv\n        nop\n        trap\n        end\n' || exit 1
fault f_gmask '.kernel k, aiv\n        set_mask_count\n        mtspr mask0, x0\n        vreducev2.b16 x0, x0, x0, pattern=7\n        end\n' || exit 1
fault f_5hd '.kernel k, aiv\n        vnchwconv.b16 repeat=1, dsthigh=1\n        end\n' || exit 1
fault f_cmat '.kernel k, aic\n        create_cbuf_matrix x0, x0, l0b=1\n        end\n' || exit 1
fault f_fbuf '.kernel k, aic\n        li x1, 7040\n        mov_l1_to_fb x1, x0, len=2\n        end\n' || exit 1
fault f_fpc '.kernel k, aic\n        fix_l0c_to_out.q x0, x0, m=16, n=16, quant=2\n        end\n' || exit 1
fault f_vdeq '.kernel k, aiv\n        li x3, 0x3fff\n        mtspr deqscale, x3\n        li x1, 0\n        li x2, 0x0100000808000101\n        vconv.x x1, x1, x2, s16.vb8l, none\n        end\n' || exit 1
fault f_loop '.kernel k, aiv\nL:\n        beq x0, x0, L\n        end\n' || exit 1
fault f_farg '.kernel k, aiv\n.arg alpha, float\n        end\n' || exit 1
# sanitizer findings (docs/timing.md, Sanitizers)
$py -c "
import numpy as np
np.save('x100.npy', np.ones(100, dtype=np.float16)); np.save('w.npy', np.zeros(64, dtype=np.float32))
np.save('a256.npy', np.ones(256, dtype=np.float16))" || exit 1
fault f_bar '.kernel k, aiv\n        bar mte2\n        end\n' || exit 1
fault f_cube '.target ascend910b\n.kernel k, aic\n.arg a, gm, f16\n.arg c, gm, f32\n        li x10, 0\n        mov_out_to_l1 x10, x0, nburst=9, len=1\n        set_flag mte2, mte1, 0\n        wait_flag mte2, mte1, 0\n        load_l1_to_l0a_2d x10, x10, start=0, repeat=1, srcstride=1\n        load_l1_to_l0b_2d x10, x10, start=0, repeat=1, srcstride=1, transpose=1\n        set_flag mte1, m, 0\n        wait_flag mte1, m, 0\n        mmad.f16f32 x10, x10, x10, m=16, n=16, k=16, init=1\n        set_flag m, fix, 0\n        wait_flag m, fix, 0\n        fix_l0c_to_out.f32 x1, x10, m=16, n=16\n        end\n' || exit 1
fault f_race '.kernel mx, mix\n.arg ws, gm, f32\n.aic\n        li x2, 7\n        st.w x2, 0(x0)\n        end\n.aiv\n        ld.w x3, 0(x0)\n        end\n' || exit 1
VADD='vadd.bin --arg x=x.npy --arg y=x.npy --arg n=4096'
fails=0 rows=0
while IFS= read -r line; do
  [[ $line == '| asc-'* ]] || continue
  cmd=$(sed -E 's/^\| [^|]+ \| `([^`]*)` \|.*/\1/' <<<"$line")
  want=$(sed -E 's/^\| [^|]+ \| `[^`]*` \| ([0-9]+) \|.*/\1/' <<<"$line")
  msg=$(sed -E 's/.*\| `(.*)` \|$/\1/' <<<"$line")
  cmd=${cmd//\$VADD/$VADD}
  rows=$((rows + 1))
  rm -rf z.npy xo.npy rep
  # shellcheck disable=SC2086 # the command is split into words as written
  timeout 20 $cmd > out 2> err < /dev/null
  rc=$?
  if [ "$rc" != "$want" ] || ! grep -qF -- "$msg" err; then
    echo "FAIL \`$cmd\`: exit $rc (want $want)"
    echo "  want: $msg"
    echo "  got:  $(head -3 err)"
    fails=$((fails + 1))
  fi
done < <(sed -n '/<!-- errors:begin -->/,/<!-- errors:end -->/p' "$src/docs/errors.md")
echo "$rows rows, $fails failure(s)"
# pyasc's messages: every message site of python/pyasc is in a `| pyasc |` row of docs/errors.md
# (those rows are run by tests/python/test_errors_doc.py and test_errors_api.py) or in the
# shrinking list tests/python/errors_uncatalogued.txt
pyok=0
$py "$src/scripts/pyasc_messages.py" --check || pyok=1
[ "$rows" -gt 0 ] && [ $fails = 0 ] && [ $pyok = 0 ]
