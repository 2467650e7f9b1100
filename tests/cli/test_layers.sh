#!/usr/bin/env bash
# test_layers.sh BUILD SRC: scripts/check_layers.sh passes on the tree and
# fails, naming file, line and rule, on planted bad includes.
set -uo pipefail
src=$2
check=$src/scripts/check_layers.sh
fail() { echo "FAIL: $*"; exit 1; }

out=$(bash "$check" "$src") || fail "the tree breaks the layer rules:"$'\n'"$out"
echo "$out"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk() { mkdir -p "$(dirname "$tmp/$1")"; printf '%s\n' "${@:2}" > "$tmp/$1"; }
# a small legal tree: every include points down or sideways within a folder
mk include/asc/isa.h '/* isa */'
mk include/asc/config.h '#include "asc/isa.h"'
mk include/asc/sim.h '#include "asc/config.h"'
mk include/asc/run.h '#include "asc/sim.h"'
mk isa/asc_isa.def '/* table */'
mk target/asc_config.def '/* keys */'
mk isa/isa.c '#include "asc/isa.h"' '#include "asc_isa.def"'
mk target/config.c '#include "asc/config.h"' '#include "asc_config.def"'
mk sim/sim_internal.h '#include "asc/sim.h"'
mk sim/sim.c '#include "sim_internal.h"'
mk run/trace.c '#include "asc/run.h"'
mk tests/unit/t.c '#include "../../sim/sim_internal.h"' '#include "asc/run.h"'
out=$(bash "$check" "$tmp") || fail "a legal tree is rejected:"$'\n'"$out"

expect_bad() { # expect_bad FILE 'include line' 'part of the message'
  local f=$1 inc=$2 want=$3
  cp "$tmp/$f" "$tmp/$f.keep"
  printf '%s\n' "$inc" >> "$tmp/$f"
  local o rc
  o=$(bash "$check" "$tmp")
  rc=$?
  mv "$tmp/$f.keep" "$tmp/$f"
  [ $rc -ne 0 ] || fail "'$inc' in $f was not caught"
  grep -qF "$f:" <<<"$o" || fail "the message does not name $f: $o"
  grep -qF "$want" <<<"$o" || fail "expected '$want' for '$inc' in $f, got: $o"
  echo "caught: $(head -1 <<<"$o")"
}
expect_bad isa/isa.c '#include "asc/sim.h"' 'a file includes only its own layer and those below'
expect_bad target/config.c '#include "asc/run.h"' 'a file includes only its own layer and those below'
expect_bad include/asc/config.h '#include "asc/sim.h"' 'a file includes only its own layer and those below'
expect_bad run/trace.c '#include "../sim/sim_internal.h"' 'a private header of sim/'
expect_bad sim/sim.c '#include "asc/asm.h"' 'side by side'
expect_bad sim/sim.c '#include "nowhere.h"' 'not in the tree'
echo "ok: layer check"
