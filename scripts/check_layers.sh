#!/usr/bin/env bash
# check_layers.sh [ROOT]: fail when a C file includes from a higher layer.
#
# Layers, bottom up (docs/internals.md §Layers):
#   1 isa     isa/, include/asc/{alloc,diag,isa,json,outfile}.h, isa/*.def
#   2 target  target/, include/asc/{config,target}.h, target/*.def
#   3 loader  loader/, include/asc/image.h
#   4 asm sim asm/ (include/asc/asm.h) and sim/ (include/asc/sim.h), side by
#             side: neither includes the other
#   5 run     run/, include/asc/run.h
#   6 viz, tools   viz/ (include/asc/viz.h), tools/ (generators, CLIs)
#   7 tests, bench, fuzzers: may include anything
# A file includes only headers of its own layer and those below, and a
# folder's private headers (anything outside include/asc/ and the .def
# tables) only from that folder (tests and benchmarks excepted).
# Each violation is printed as FILE:LINE: message; exit 1 if any.
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# layer of a folder, and the folder (owner) a public header belongs to
folder_rank() {
  case $1 in
    isa) echo 1 ;; target) echo 2 ;; loader) echo 3 ;; asm | sim) echo 4 ;; run) echo 5 ;;
    viz | tools) echo 6 ;; tests | bench) echo 7 ;; *) echo 0 ;;
  esac
}
header_owner() {
  case $1 in
    alloc | diag | isa | json | outfile) echo isa ;; config | target) echo target ;; image) echo loader ;;
    asm) echo asm ;; sim) echo sim ;; run) echo run ;; viz) echo viz ;; *) echo "" ;;
  esac
}

bad=0
report() { # report FILE LINE MESSAGE
  echo "$1:$2: $3 (layers: docs/internals.md §Layers)"
  bad=1
}

files=$(find isa target loader asm sim run viz tools include tests bench -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \) 2>/dev/null | sort)
for f in $files; do
  top=${f%%/*}
  if [ "$top" = include ]; then
    base=$(basename "$f" .h)
    owner=$(header_owner "$base")
    if [ -z "$owner" ]; then
      report "$f" 1 "public header with no layer: add it to header_owner in scripts/check_layers.sh"
      continue
    fi
  else
    owner=$top
  fi
  rank=$(folder_rank "$owner")
  dir=$(dirname "$f")
  while IFS=: read -r line inc; do
    [ -n "$line" ] || continue
    # where the include resolves: asc/NAME.h, a .def table, or a path relative to the file
    if [[ $inc == asc/*.h ]]; then
      iowner=$(header_owner "$(basename "$inc" .h)")
      if [ -z "$iowner" ]; then
        report "$f" "$line" "includes \"$inc\", a public header with no layer"
        continue
      fi
      private=0
    elif [ -e "$dir/$inc" ]; then
      rel=$(realpath -m --relative-to="$root" "$dir/$inc")
      iowner=${rel%%/*}
      [ "$iowner" = include ] && iowner=$(header_owner "$(basename "$rel" .h)")
      private=1
      [[ $rel == *.def ]] && private=0
    elif [ -e "isa/$inc" ]; then
      iowner=isa private=0
    elif [ -e "target/$inc" ]; then
      iowner=target private=0
    else
      report "$f" "$line" "includes \"$inc\", which is not in the tree"
      continue
    fi
    irank=$(folder_rank "$iowner")
    if [ "$rank" -lt 7 ]; then
      if [ "$irank" -gt "$rank" ]; then
        report "$f" "$line" "includes \"$inc\" of $iowner/ (layer $irank) from $owner/ (layer $rank): a file includes only its own layer and those below"
      elif [ "$irank" -eq "$rank" ] && [ "$iowner" != "$owner" ]; then
        report "$f" "$line" "includes \"$inc\" of $iowner/ from $owner/: they are side by side, neither includes the other"
      elif [ "$private" = 1 ] && [ "$iowner" != "$owner" ]; then
        report "$f" "$line" "includes \"$inc\", a private header of $iowner/: use its public header include/asc/*.h"
      fi
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:\2/')
done
if [ $bad = 0 ]; then
  echo "layers ok: $(echo "$files" | wc -l) files"
fi
exit $bad
