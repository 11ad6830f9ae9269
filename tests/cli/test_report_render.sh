#!/usr/bin/env bash
# npusim report renders in a browser: the run and sweep pages load in headless Chromium (Debian `chromium`), the
# screenshots are of non-trivial size and the DOM Chromium builds holds the SVG elements the file has (so every
# chart parsed). Exit 77 (ctest: skipped) when Chromium is absent: `tools/install-deps.sh --report` installs it.
# Usage: test_report_render.sh NPUSIM REPO_ROOT
set -uo pipefail
NPUSIM="$1"; ROOT="$(cd "$2" && pwd)"
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$CHROMIUM" ]]; then echo "SKIPPED: no chromium (tools/install-deps.sh --report installs it)"; exit 77; fi
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail=0
headless() { timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$T/profile" "$@" 2>/dev/null; }
check_page() {  # check_page HTML MIN_PNG_BYTES
  local html="$1" min="$2"
  headless --window-size=1200,2000 --screenshot="$T/shot.png" "file://$html" > /dev/null
  local size; size=$(stat -c %s "$T/shot.png" 2>/dev/null || echo 0)
  local want got
  want=$(grep -o '<rect\|<circle\|<line\|<text\|<polyline' "$html" | wc -l)
  got=$(headless --dump-dom "file://$html" | grep -o '<rect\|<circle\|<line\|<text\|<polyline' | wc -l)
  if [[ $size -ge $min && $want -gt 0 && $got -eq $want ]]; then echo "ok: $html: screenshot $size bytes, $got SVG elements";
  else echo "FAIL: $html: screenshot $size bytes (want >= $min), SVG elements in the DOM $got (file $want)"; fail=1; fi
  rm -f "$T/shot.png"
}
"$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --mode timing --trace --out "$T/run" > /dev/null || exit 1
"$NPUSIM" report "$T/run" > /dev/null || exit 1
check_page "$T/run/report.html" 50000
cat > "$T/sw.yaml" <<Y
case: $ROOT/configs/cases/fia_bsh_f16.yaml
mode: timing
axes:
  tiling.s2_block: [128, 256, 384]
  tiling.preload: [1, 2]
objective: cycles
Y
"$NPUSIM" sweep "$T/sw.yaml" --jobs 2 --out "$T/sw" > /dev/null 2>&1 || exit 1
"$NPUSIM" report "$T/sw" --objective2 roofline_ratio > /dev/null || exit 1
check_page "$T/sw/report.html" 20000
exit $fail
