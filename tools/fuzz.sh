#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, GELU_FUZZ=ON) in build-fuzz and
# runs each one for SECONDS (default 60) on a temporary copy of its committed corpus, two at a time. Exits 1
# naming every target that crashed, hung (one input over 10 s), leaked or went over 2 GB; 0 when all ran clean.
#   tools/fuzz.sh [SECONDS]
# Environment: BUILD_DIR (default build-fuzz), JOBS (build jobs, default: number of cores), FUZZ_PARALLEL
# (targets run at once, default 2), FUZZ_TARGETS (default: all six), FUZZ_LOG_DIR (logs and findings;
# default a new temporary directory, printed at the end).
# A finding is reproduced with `build-fuzz/tests/fuzz/TARGET FILE` (from the repository root: session inputs
# name lesson files relative to it). To grow the committed corpus after a long run:
#   build-fuzz/tests/fuzz/TARGET -merge=1 tests/fuzz/corpus/TARGET NEW_CORPUS_DIR
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
BUILD_DIR=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-$(nproc)}
FUZZ_PARALLEL=${FUZZ_PARALLEL:-2}
read -r -a targets <<< "${FUZZ_TARGETS:-fuzz_numio fuzz_model_file fuzz_lesson fuzz_session fuzz_session_roundtrip fuzz_cli}"
# Without clang's libFuzzer there is nothing to build: one status line, and the stage is skipped (exit 0).
if ! command -v clang++ >/dev/null 2>&1 || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
  clang++ -x c++ -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
  echo "fuzz.sh: skipped: no clang++ with libFuzzer (-fsanitize=fuzzer) on this machine; ${targets[*]} not run"
  exit 0
fi
log_dir=${FUZZ_LOG_DIR:-$(mktemp -d /tmp/gelulab-fuzz.XXXXXX)}
mkdir -p "$log_dir"

# No GPU backend: the targets check input handling, and an EGL context under ASan is slow and reports
# the driver's own allocations as leaks. The GUI sources are built (lessons, sessions and gui/shot options).
# -O1: it builds faster than -O3 (CI's time) and fuzzes as fast (the targets spend their time in the parsers).
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_C_FLAGS_RELEASE=-O1 \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DGELU_FUZZ=ON -DGELU_BUILD_TESTS=OFF -DGELU_BUILD_BENCH=OFF -DGELU_BUILD_GPU=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}"

run_target() {
  local t=$1 dir="$log_dir/$1"
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  cp -r "tests/fuzz/corpus/$t/." "$dir/corpus/"
  local dict=()
  [ -f "tests/fuzz/dict/$t.dict" ] && dict=("-dict=tests/fuzz/dict/$t.dict")
  # ASan's leak check runs at exit and after inputs that allocate more than they free (libFuzzer's default).
  local rc=0
  "$BUILD_DIR/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$dir/" "${dict[@]}" "$dir/corpus" </dev/null >"$dir.log" 2>&1 || rc=$?
  echo "$rc" >"$dir.rc"
}

status=0
ran=()
for t in "${targets[@]}"; do
  if [ ! -x "$BUILD_DIR/tests/fuzz/$t" ]; then
    echo "fuzz.sh: $t was not built (GUI packages missing?)" >&2
    status=1
    continue
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$FUZZ_PARALLEL" ]; do wait -n || true; done
  echo "fuzz.sh: $t for ${seconds}s" >&2
  run_target "$t" &
  ran+=("$t")
done
wait

for t in "${ran[@]}"; do
  rc=$(cat "$log_dir/$t.rc" 2>/dev/null || echo "no status")
  findings=$(find "$log_dir/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' -o -name 'slow-unit-*' \) | sort)
  summary=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log_dir/$t.log" | tail -1 || true)
  if [ "$rc" != 0 ] || [ -n "$(grep -v slow-unit <<< "$findings")" ]; then
    status=1
    echo "FAIL $t (exit $rc): $(grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error' "$log_dir/$t.log" || echo 'see the log')"
    echo "     log $log_dir/$t.log"
    for f in $findings; do echo "     input $f"; done
  else
    echo "ok   $t  ${summary:-}"
  fi
done
echo "fuzz.sh: logs in $log_dir"
exit $status
