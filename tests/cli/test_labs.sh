#!/usr/bin/env bash
# The five labs of kernels/labs: each script runs (in under a minute) against this build and
# prints exactly the figures its README states.  Usage: test_labs.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
/usr/bin/python3 "$src/kernels/labs/figures.py" "$build"
