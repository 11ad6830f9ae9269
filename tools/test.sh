#!/usr/bin/env bash
# Set-up command 2: installs what is missing, checks the house style (tools/check_format.sh: clang-format 14, 120
# columns), builds, and runs every check the README claims, in three trees:
#   1. release (build/): every suite, with Chromium rendering the report and a one-node Slurm cluster on loopback;
#   2. asan (build-asan/, clang): the unit tests again under AddressSanitizer (stack checks on) +
#      UndefinedBehaviorSanitizer, and a 10 s libFuzzer smoke of every fuzz target seeded from the corpus;
#   3. tsan (build-tsan/): the tests of the threads npusim starts (race checker, trace files) under ThreadSanitizer.
# The sanitizer runs leave out what tests/README.md ("What the sanitizer runs leave out") lists, with reasons and
# times. After each ctest run, tools/check_skips.py fails the command on a skipped test that tests/README.md's
# allow-list does not name.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${NPUSIM_JOBS:-2}"
run_ctest() {  # run_ctest TREE [CTEST ARGS...]: runs, keeps the output, fails on a skip not on the allow-list
  local tree="$1"; shift
  (cd "$tree" && ctest -j "$jobs" --output-on-failure --timeout 900 "$@" | tee ctest-output.txt)
  tools/check_skips.py "$tree/ctest-output.txt"
}
tools/install-deps.sh --fuzz --slurm --report --format
tools/check_format.sh
tools/build.sh release -DNPUSIM_SLURM_TESTS=ON
run_ctest build
tools/build.sh asan
ASAN_OPTIONS=detect_leaks=0 run_ctest build-asan -E "$(tools/sanitizer_exclusions.py asan)"
tools/build.sh tsan
TSAN_OPTIONS=atexit_sleep_ms=0 run_ctest build-tsan -L '^(test_machine|test_trace_thread)$'
