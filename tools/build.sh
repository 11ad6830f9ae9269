#!/usr/bin/env bash
# Configures and builds one build tree. Usage: tools/build.sh [release|asan] (default release).
#   release: build/       the tools, benchmarks and the full test suite
#   asan:    build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer, tests only
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-release}"
jobs="${NPUSIM_JOBS:-2}"
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUSIM_SANITIZE=ON -DNPUSIM_BENCH=OFF) ;;
  *) echo "usage: tools/build.sh [release|asan]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$jobs"
