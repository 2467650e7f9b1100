#!/usr/bin/env bash
# test_asc_as.sh -- asc-as flags, exit codes and output files (filled in next).
set -u
as=$1/asm/asc-as
"$as" --help > /dev/null || exit 1
"$as" --version > /dev/null || exit 1
