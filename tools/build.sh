#!/usr/bin/env bash
# Configures and builds one build tree. Usage: tools/build.sh [release|asan|tsan] [-DOPTION=VALUE ...]
#   release: build/       the tools, benchmarks and the full test suite
#   asan:    build-asan/  clang, AddressSanitizer (stack checks on) + UndefinedBehaviorSanitizer: the test suite and
#                         the libFuzzer targets of tests/fuzz with their 10 s smoke tests (tests/fuzz/README.md)
#   tsan:    build-tsan/  ThreadSanitizer: only the tests of the threads the program starts (tests/README.md)
# (fuzz: the old name of the asan tree's fuzz targets; it builds build-asan.) Further arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-release}"
[[ $# -gt 0 ]] && shift
jobs="${NPUSIM_JOBS:-2}"
# -O1 -g1 (line tables) for the sanitizer trees: what the sanitizer documentation recommends, and 1.5-1.9x faster
# to compile than RelWithDebInfo's -O2 -g while reports still name file and line.
sanitizer_tree=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DNPUSIM_BENCH=OFF
                -DNPUSIM_PYTHON=OFF)
targets=()
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan|fuzz) dir=build-asan; flags=("${sanitizer_tree[@]}" -DCMAKE_CXX_COMPILER=clang++ -DNPUSIM_SANITIZE=ON
                                    -DNPUSIM_FUZZ=ON -DNPUSIM_FUZZ_TESTS=ON) ;;
  # The threads npusim starts: the race checker's (sim/check/check_runner.h), exercised by test_machine, and each
  # trace file's writer (sim/trace/trace_file.h), by test_trace_thread; the sweep and tune runners fork processes
  # (tools/cli/sweep_runner.cpp), no threads.
  tsan) dir=build-tsan; flags=("${sanitizer_tree[@]}" -DNPUSIM_TSAN=ON); targets=(--target test_machine test_trace_thread) ;;
  *) echo "usage: tools/build.sh [release|asan|tsan] [-DOPTION=VALUE ...]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${flags[@]}" "$@" >/dev/null
cmake --build "$dir" -j "$jobs" "${targets[@]}"
