#!/usr/bin/env bash
# Set-up command 1: installs what is missing, builds, and runs the default demo on the default hardware
# config (ascend910b2): a softmax written in the vector ISA, run on one simulated vector core with a trace.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh release
echo "== npusim hw list"
build/tools/npusim hw list
echo "== npusim asm configs/programs/softmax_row.s --trace"
build/tools/npusim asm configs/programs/softmax_row.s --trace
echo "outputs (report.json, resolved.yaml, trace.json for https://ui.perfetto.dev, instructions.csv): npusim-out/softmax_row/"
