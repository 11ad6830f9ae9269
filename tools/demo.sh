#!/usr/bin/env bash
# Set-up command 1: installs what is missing, builds, and runs the default demo on the default hardware
# config (ascend910b2): a GEMM case and a FlashAttention case checked against their fp64 reference, with traces,
# the attention run as an HTML report, then a softmax written in the vector ISA on one simulated vector core.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh release
echo "== npusim hw list"
build/tools/npusim hw list
echo "== npusim check configs/cases/matmul_f16_512.yaml --trace"
build/tools/npusim check configs/cases/matmul_f16_512.yaml --trace
echo "trace: npusim-out/matmul_f16_512/trace.json (open at https://ui.perfetto.dev); outputs and report.json beside it"
echo "== npusim check configs/cases/fa_varlen_rope_causal.yaml --trace   (FlashAttention V3, TND + rope, causal)"
build/tools/npusim check configs/cases/fa_varlen_rope_causal.yaml --trace
echo "trace: npusim-out/fa_varlen_rope_causal/trace.json: 24 AI cores, each an AIC (QK, PV) and two AIVs (softmax)"
echo "== npusim report npusim-out/fa_varlen_rope_causal   (utilisation, roofline, pipe timeline as one HTML page)"
build/tools/npusim report npusim-out/fa_varlen_rope_causal
echo "== npusim asm configs/programs/softmax_row.s"
build/tools/npusim asm configs/programs/softmax_row.s
