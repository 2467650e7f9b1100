#!/usr/bin/env bash
# test_abi_json.sh BUILD SRC: the checked-in python/pyasc/abi.json is what
# asc-gen-abi writes from the C headers of this build (regenerate with
# scripts/regen.sh), it parses as JSON, and the comparison catches a stale
# copy.
set -uo pipefail
build=$1 src=$2
gen=$build/tools/asc-gen-abi
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" --json "$tmp/abi.json" || fail "asc-gen-abi failed"
cmp -s "$tmp/abi.json" "$src/python/pyasc/abi.json" ||
  fail "python/pyasc/abi.json is stale: it differs from asc-gen-abi's output; run scripts/regen.sh"$'\n'"$(diff "$src/python/pyasc/abi.json" "$tmp/abi.json" | head -20)"
# a stale copy (one value changed) is told apart
sed 's/"ASC_NAME_MAX": [0-9]*/"ASC_NAME_MAX": 1/' "$tmp/abi.json" > "$tmp/stale.json"
! cmp -s "$tmp/abi.json" "$tmp/stale.json" || fail "the stale copy compares equal"
# the schema's top-level keys (docs/internals.md §abi.json)
for k in '"version": 1' '"constants"' '"config"' '"buffers"' '"lanes"' '"registers"' '"enums"' '"structs"'; do
  grep -qF "$k" "$tmp/abi.json" || fail "abi.json has no $k"
done
echo "ok: python/pyasc/abi.json is current"
