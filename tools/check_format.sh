#!/usr/bin/env bash
# The house style, checked (tools/test.sh runs this first): every C++ file git tracks is as clang-format 14 formats
# it with the repository's .clang-format, and no source line is wider than 120 columns (clang-format cannot break a
# long comment word or a region under "clang-format off"). Fix with:
#   git ls-files '*.cpp' '*.h' '*.hpp' | xargs clang-format-14 -i
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp')
clang-format-14 --dry-run --Werror "${files[@]}"
python3 - "${files[@]}" <<'PY'
import sys
wide = [f"{path}:{n}: {len(line)} columns" for path in sys.argv[1:]
        for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1) if len(line) > 120]
if wide:
    sys.exit("lines over 120 columns:\n" + "\n".join(wide))
PY
echo "check_format: ${#files[@]} files formatted, none over 120 columns"
