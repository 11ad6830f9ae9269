#!/usr/bin/env bash
# Set-up command 2: installs what is missing, builds, and runs the whole test suite: the release build's
# ctest (every suite), then the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
# The exhaustive 2^32 conversion sweeps and the microbenchmark rate checks run in the release build only
# (under the sanitizers they take tens of minutes and check nothing the release run does not).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${NPUSIM_JOBS:-2}"
tools/install-deps.sh
tools/build.sh release
(cd build && ctest -j "$jobs" --output-on-failure --timeout 900)
tools/build.sh asan
(cd build-asan && ASAN_OPTIONS=detect_leaks=0 ctest -j "$jobs" --output-on-failure --timeout 900 -E 'AllFp32|^Micro\.|MaxUlpBound|Exhaustive')
