#!/usr/bin/env bash
# Regenerate the checked-in generated files: docs/isa.md and
# python/pyasc/isa.json from the ISA table, python/pyasc/abi.json from the C
# headers.  Run after editing isa/*.def, target/*.def or a public struct.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b="$top/build-regen"
cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$b" --target asc-gen-isa asc-gen-abi -j2 > /dev/null
mkdir -p "$top/python/pyasc"
"$b/isa/asc-gen-isa" --md "$top/docs/isa.md" --json "$top/python/pyasc/isa.json"
"$b/tools/asc-gen-abi" --json "$top/python/pyasc/abi.json"
echo "regenerated docs/isa.md, python/pyasc/isa.json and python/pyasc/abi.json"
