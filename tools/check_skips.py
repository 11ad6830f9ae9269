#!/usr/bin/python3
"""Fails when ctest skipped a test that tests/README.md's allow-list ("Skips allowed in CI") does not name.

    tools/check_skips.py CTEST_OUTPUT.txt

Reads the "The following tests did not run:" block of a ctest run's output and matches each skipped or disabled test
against the allow-list's patterns (Python regular expressions). Prints the skips by pattern; exits 1 naming every skip
no pattern allows (a green CI then means what the README says: nothing skipped silently), 2 on unreadable input."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(.+?)\s*\|\s*$")
SKIP = re.compile(r"^\s*\d+ - (.+?)(?:\s+#.*)?\s+\((Skipped|Disabled)\)\s*$")


def readme_table(name):
    """The rows of tests/README.md's table between <!-- NAME: begin --> and <!-- NAME: end -->: (regex, rest of the row),
    the regex from the first column's `code`."""
    text = open(os.path.join(ROOT, "tests", "README.md"), encoding="utf-8").read()
    block = text.split(f"<!-- {name}: begin -->", 1)[-1].split(f"<!-- {name}: end -->", 1)[0]
    return [(re.compile(m.group(1)), m.group(2)) for m in map(ROW.match, block.splitlines()) if m]


def allow_list():
    return readme_table("skips")


def skipped(log):
    names, inside = [], False
    for line in open(log, encoding="utf-8", errors="replace"):
        if line.startswith("The following tests did not run:"):
            inside = True
        elif inside:
            m = SKIP.match(line)
            if m:
                names.append(m.group(1))
            elif line.strip() and not line.startswith("\t") and not line.startswith(" "):
                inside = False
    return names


def main():
    if len(sys.argv) != 2 or not os.path.exists(sys.argv[1]):
        print("usage: tools/check_skips.py CTEST_OUTPUT.txt (an existing file)", file=sys.stderr)
        sys.exit(2)
    rules = allow_list()
    if not rules:
        print("check_skips.py: tests/README.md has no allow-list between <!-- skips: begin / end -->", file=sys.stderr)
        sys.exit(2)
    counts, unlisted = {}, []
    for name in skipped(sys.argv[1]):
        rule = next((r for r in rules if r[0].search(name)), None)
        if rule:
            counts[rule[0].pattern] = counts.get(rule[0].pattern, 0) + 1
        else:
            unlisted.append(name)
    for pattern, n in counts.items():
        print(f"skipped (allowed): {n} x {pattern}")
    if unlisted:
        for name in unlisted:
            print(f"check_skips.py: {name} was skipped and tests/README.md's allow-list does not name it", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
