#!/usr/bin/env bash
# Fuzz every input parser of libasc with libFuzzer (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#       configure build-fuzz (CC=clang -DASC_FUZZ=ON -DASC_SANITIZE=ON), build
#       the harnesses, run each for SECONDS (default 60) on a copy of its seed
#       corpus (tests/fuzz/corpus/NAME -> build-fuzz/fuzz-work/NAME/corpus).
#       One line per target: executions, corpus size, result.  A crash, leak,
#       UB report, timeout or out-of-memory prints the reproducer's path and
#       makes the exit status non-zero.  FUZZ_JOBS=N runs N targets at once;
#       FUZZ_KEEP_GOING=1 goes on after a finding (libFuzzer -fork=1
#       -ignore_crashes=1), to look past a known open one, and counts them.
#   scripts/fuzz.sh regression [BUILD_DIR]
#       run each harness once over its seed corpus and over the saved
#       reproducers tests/fuzz/crashes/NAME-*; non-zero when any of them
#       fails.  Given BUILD_DIR (CTest's fuzz_regression does), it builds
#       nothing; else it configures and builds build-fuzz first.
#
# Targets: asm image config npy viz sim json (default: all).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
all_targets=(asm image config npy viz sim json)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

build_fuzz() { # build_fuzz DIR: configure and build the harnesses
  local dir=$1
  mkdir -p "$dir"
  if ! CC=clang cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
       -DASC_FUZZ=ON -DASC_SANITIZE=ON > "$dir/configure.log" 2>&1; then
    cat "$dir/configure.log"
    echo "fuzz.sh: configuring $dir failed" >&2
    return 1
  fi
  # only the harnesses (and the libraries they link): the rest of the tree
  # is built by scripts/test.sh with the default compiler
  if ! cmake --build "$dir" --target fuzz -j"$(nproc)" > "$dir/build-fuzz.log" 2>&1; then
    grep -E 'error|Error' "$dir/build-fuzz.log" | head -20
    echo "fuzz.sh: building the harnesses failed (log: $dir/build-fuzz.log)" >&2
    return 1
  fi
}

harness() { # harness DIR NAME: path of the built harness
  echo "$1/tests/fuzz_$2"
}

if [ "${1:-}" = regression ]; then
  dir=${2:-$top/build-fuzz}
  if [ -z "${2:-}" ]; then build_fuzz "$dir" || exit 1; fi
  status=0
  for t in "${all_targets[@]}"; do
    h=$(harness "$dir" "$t")
    if [ ! -x "$h" ]; then
      echo "FAIL  $t: no harness $h (build with -DASC_FUZZ=ON)"
      status=1
      continue
    fi
    log=$(mktemp)
    art=$(mktemp -d)
    # -runs=0 over a directory: every file once, no mutation
    if ! "$h" -runs=0 -timeout=60 -artifact_prefix="$art/" "$top/tests/fuzz/corpus/$t" > "$log" 2>&1; then
      echo "FAIL  $t: corpus tests/fuzz/corpus/$t"
      tail -40 "$log"
      status=1
      rm -rf "$log" "$art"
      continue
    fi
    ncorpus=$(find "$top/tests/fuzz/corpus/$t" -type f | wc -l)
    bad=0 ncrash=0
    for f in "$top"/tests/fuzz/crashes/"$t"-*; do
      [ -f "$f" ] || continue
      ncrash=$((ncrash + 1))
      if ! "$h" -timeout=60 -artifact_prefix="$art/" "$f" > "$log" 2>&1; then
        echo "FAIL  $t: reproducer ${f#"$top"/} still fails"
        grep -E 'ERROR|SUMMARY|runtime error|invariant|#[0-9]+ ' "$log" | head -25
        bad=1
      fi
    done
    rm -rf "$log" "$art"
    if [ $bad = 0 ]; then
      echo "PASS  $t: $ncorpus corpus files, $ncrash reproducers"
    else
      status=1
    fi
  done
  exit $status
fi

secs=${1:-60}
if ! [[ $secs =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...] | scripts/fuzz.sh regression [BUILD_DIR]" >&2
  exit 2
fi
shift $(( $# > 0 ? 1 : 0 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  case " ${all_targets[*]} " in *" $t "*) ;; *) echo "fuzz.sh: unknown target '$t' (${all_targets[*]})" >&2; exit 2 ;; esac
done

dir=$top/build-fuzz
build_fuzz "$dir" || exit 1
work=$dir/fuzz-work

run_target() { # run_target NAME: fuzz one target, write its summary line to $work/NAME/result
  local t=$1 w=$work/$1
  rm -rf "$w"
  mkdir -p "$w/corpus" "$w/artifacts"
  cp -r "$top/tests/fuzz/corpus/$t/." "$w/corpus/"
  local rc=0 more=()
  if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then more=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); fi
  (cd "$w" && "$(harness "$dir" "$t")" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$w/artifacts/" "${more[@]}" corpus > "$w/log" 2>&1) || rc=$?
  local execs ncorp
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$w/log" | grep -o '[0-9]*$' | tail -1)
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$w/log" | tail -1 | tr -d '#')
  ncorp=$(find "$w/corpus" -type f | wc -l)
  local art nart
  # slow-unit-* files are libFuzzer's notes of inputs slower than -report_slow_units (10 s), not findings
  art=$(find "$w/artifacts" -type f ! -name 'slow-unit-*' | head -1)
  nart=$(find "$w/artifacts" -type f ! -name 'slow-unit-*' | wc -l)
  if [ "$nart" -gt 1 ]; then art="$art and $((nart - 1)) more in $w/artifacts"; fi
  if [ $rc = 0 ] && [ -z "$art" ]; then
    printf 'ok     %-7s %10s execs in %ss, corpus %s files\n' "$t" "${execs:-?}" "$secs" "$ncorp" > "$w/result"
  else
    printf 'CRASH  %-7s %10s execs, reproducer %s (log %s)\n' "$t" "${execs:-?}" "${art:-none}" "$w/log" \
      > "$w/result"
  fi
}

jobs_max=${FUZZ_JOBS:-1}
echo "fuzzing ${targets[*]} for ${secs}s each (FUZZ_JOBS=$jobs_max); logs under $work/"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  run_target "$t" &
done
wait

status=0
for t in "${targets[@]}"; do
  cat "$work/$t/result"
  grep -q '^CRASH' "$work/$t/result" && status=1
done
if [ $status != 0 ]; then
  echo "a target failed: keep the reproducer as tests/fuzz/crashes/<target>-<short>.bin (docs/fuzzing.md)"
fi
exit $status
