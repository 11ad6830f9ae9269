#!/usr/bin/env bash
# run_fuzz.sh TARGET_BINARY NAME REPO_ROOT SECONDS WORKDIR: seeds a corpus for NAME from the repository, then runs
# the target for SECONDS with a 2 GB RSS limit (a hostile shape must be refused, not allocated) and a 10 s
# per-input timeout (a hang is a finding). Exit status is libFuzzer's: 0 when nothing was found.
set -euo pipefail
BIN="$(realpath "$1")"; NAME="$2"; ROOT="$(realpath "$3")"; SECS="$4"; WORK="$5"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
seed() { for f in "$@"; do [[ -f "$f" ]] && cp -n "$f" "$WORK/corpus/" 2>/dev/null || true; done; }
case "$NAME" in
  case)  seed "$ROOT"/configs/cases/*.yaml ;;
  npy)   for f in $(find "$ROOT/tests" "$ROOT/configs" -name '*.npy' 2>/dev/null | head -50); do seed "$f"; done
         printf '\x93NUMPY\x01\x00\x76\x00{'"'"'descr'"'"': '"'"'<f2'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }' > "$WORK/corpus/seed_f2.npy"
         printf '%*s\n' 41 '' >> "$WORK/corpus/seed_f2.npy"; head -c 4 /dev/zero >> "$WORK/corpus/seed_f2.npy" ;;
  hw)    seed "$ROOT"/configs/hw/*.yaml "$ROOT"/configs/calibration/uncalibrated.yaml
         printf 'core.ub_bytes=131072\nhw.chip.ai_cores=20\n---\nbase: ascend910b2\nname: x\n' > "$WORK/corpus/seed_sets.yaml" ;;
  sweep) seed "$ROOT"/configs/sweeps/*.yaml ;;
  asm)   seed "$ROOT"/configs/programs/*.s ;;
esac
cd "$WORK"  # relative paths in seeds (base:, case:) resolve against the scratch files in /tmp anyway
dict=(); [[ -f "$ROOT/tests/fuzz/$NAME.dict" ]] && dict=(-dict="$ROOT/tests/fuzz/$NAME.dict")
exec "$BIN" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}" \
  -artifact_prefix="$WORK/artifacts/" "$WORK/corpus"
