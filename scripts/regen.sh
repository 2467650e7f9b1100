#!/usr/bin/env bash
# Regenerate the checked-in outputs of the ISA table: docs/isa.md and
# python/pyasc/isa.json.  Run after editing isa/*.def.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b="$top/build-regen"
cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$b" --target asc-gen-isa -j2 > /dev/null
mkdir -p "$top/python/pyasc"
"$b/isa/asc-gen-isa" --md "$top/docs/isa.md" --json "$top/python/pyasc/isa.json"
echo "regenerated docs/isa.md and python/pyasc/isa.json"
