#!/usr/bin/env bash
# tools/check_skips.py (issue 41): an allowed skip passes, an unlisted one fails naming it, a missing file exits 2.
# Usage: test_check_skips.sh REPO_ROOT
set -uo pipefail
ROOT="$1"; T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail=0
printf 'The following tests did not run:\n\t1034 - Cases/RecordedCycles.CaseTakesTheRecordedCycleCount/fia_perf_s2048_mode0  # GetParam() = "x" (Skipped)\n\t1177 - Seeds/FiaPromptProperty.Draw/3 (Skipped)\n' > "$T/ok.txt"
"$ROOT/tools/check_skips.py" "$T/ok.txt" > /dev/null || { echo "FAIL: allowed skips were refused"; fail=1; }
printf 'The following tests did not run:\n\t  12 - Foo.Bar (Skipped)\n\t  13 - Seeds/FiaPromptProperty.Draw/4 (Skipped)\n\t  14 - cli.ReportRendersInChromium (Skipped)\n' > "$T/bad.txt"
out=$("$ROOT/tools/check_skips.py" "$T/bad.txt" 2>&1); rc=$?
[[ $rc -eq 1 && "$out" == *"Foo.Bar was skipped"* && "$out" == *"ReportRendersInChromium was skipped"* && "$out" != *"Draw/4 was"* ]] || { echo "FAIL: unlisted skip: rc $rc, $out"; fail=1; }
"$ROOT/tools/check_skips.py" "$T/missing.txt" 2> /dev/null; [[ $? -eq 2 ]] || { echo "FAIL: a missing file must exit 2"; fail=1; }
exit $fail
