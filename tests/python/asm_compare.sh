#!/usr/bin/env bash
# Compare the pyasc compiler's output (assembly, IR, lowered IR of every kernel in kernels/pyasc
# and every kernel the pytest suite compiles) between two commits, byte for byte.
# Usage (repo root, after building build/libasc.so): bash tests/python/asm_compare.sh REV_A REV_B
# Each commit's python/, tests/, kernels/ are extracted to the same directory in turn (the .loc
# lines name source paths) and run with tests/python/asm_capture.py from the work tree.
set -euo pipefail
top=$(git rev-parse --show-toplevel)
lib=${ASC_LIB:-$top/build/libasc.so}
dir=/tmp/pyasc_asm_compare
for rev in "$1" "$2"; do
  rm -rf "$dir" && mkdir -p "$dir"
  git -C "$top" archive "$rev" python tests kernels | tar -x -C "$dir"
  cp "$top/tests/python/asm_capture.py" "$dir/tests/python/"
  (cd "$dir" && ASC_LIB=$lib PYTHONPATH=$dir/python /usr/bin/python3 tests/python/asm_capture.py \
      "/tmp/pyasc_asm_$(git -C "$top" rev-parse --short "$rev").txt" > "/tmp/pyasc_asm_$rev.log" 2>&1) || true
  tail -1 "/tmp/pyasc_asm_$rev.log"
done
a=/tmp/pyasc_asm_$(git -C "$top" rev-parse --short "$1").txt
b=/tmp/pyasc_asm_$(git -C "$top" rev-parse --short "$2").txt
cmp "$a" "$b" && echo "identical: $a $b ($(wc -c < "$a") bytes)"
