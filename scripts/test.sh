#!/usr/bin/env bash
# Build and run every test: the release build's CTest suites (Check unit
# tests, CLI scripts, the layer check and the pytest suite of the Python
# frontend), then the same under AddressSanitizer +
# UndefinedBehaviorSanitizer (without pytest: an ASan libasc.so cannot be
# loaded into an uninstrumented python).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/deps.sh || exit 1
. scripts/pyenv.sh
asc_find_python || exit 1

status=0
results=()
run() { # run NAME CMD...: run a suite, remember its result
  local name=$1
  shift
  echo "==> $name"
  if "$@"; then
    results+=("PASS  $name")
  else
    results+=("FAIL  $name")
    status=1
  fi
}

run "build (release)" bash scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
run "ctest (release)" ctest --test-dir build --output-on-failure -j2
run "build (asan+ubsan)" bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DASC_SANITIZE=ON
run "ctest (asan+ubsan)" env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 CK_TIMEOUT_MULTIPLIER=3 \
    ctest --test-dir build-asan --output-on-failure -j2

echo
echo "==== summary ===="
printf '%s\n' "${results[@]}"
pass=$(printf '%s\n' "${results[@]}" | grep -c '^PASS')
fail=$(printf '%s\n' "${results[@]}" | grep -c '^FAIL')
echo "suites: $pass passed, $fail failed"
exit $status
