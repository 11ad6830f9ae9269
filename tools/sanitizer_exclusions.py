#!/usr/bin/python3
"""Prints the ctest -E regular expression of the tests the ASan + UBSan run leaves out: the patterns of
tests/README.md's table "What the sanitizer runs leave out" (between <!-- asan-exclusions: begin / end -->), each row
with its reason and its measured time, so the list tools/test.sh uses is the list the README shows.

    tools/sanitizer_exclusions.py asan

Exits 2 when the table is missing or empty (the run would otherwise exclude nothing, or everything)."""
import sys

from check_skips import readme_table


def main():
    if sys.argv[1:] != ["asan"]:
        print("usage: tools/sanitizer_exclusions.py asan", file=sys.stderr)
        sys.exit(2)
    rows = readme_table("asan-exclusions")
    if not rows:
        print("sanitizer_exclusions.py: tests/README.md has no table between <!-- asan-exclusions: begin / end -->",
              file=sys.stderr)
        sys.exit(2)
    print("|".join(f"({r[0].pattern})" for r in rows))


if __name__ == "__main__":
    main()
