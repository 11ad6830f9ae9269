#!/usr/bin/env python3
"""Re-measures the cycle counts of traces/reference/cycles.yaml and, with --reason, records the ones that moved.

Usage: tools/record_cycles.py [--npusim build/tools/npusim] [--long] [--only NAME ...] [-j N] [--args '...']
                              [--reason TEXT]

Without --reason it only prints what moved (case, recorded, measured, change in %). With --reason it rewrites
those lines in place, keeping the previous count in the reason ("was N"; a new case is entered with cycles: 0
and gets no "was"). Long cases (long: true) are measured
only with --long. Timing mode, checks off: the cycle count does not depend on the checks.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CYCLES = os.path.join(ROOT, "traces", "reference", "cycles.yaml")
LINE = re.compile(r"^(?P<name>[A-Za-z0-9_]+):(?P<pad>\s*)\{(?P<body>.*)\}\s*$")


def parse(lines):
    cases = {}
    for i, line in enumerate(lines):
        m = LINE.match(line)
        if not m:
            continue
        body = m.group("body")
        cycles = int(re.search(r"cycles:\s*(\d+)", body).group(1))
        hw = re.search(r"hw:\s*([A-Za-z0-9_]+)", body).group(1)
        cases[m.group("name")] = {"line": i, "cycles": cycles, "hw": hw, "long": "long: true" in body}
    return cases


def measure(npusim, name, hw, extra):
    with tempfile.TemporaryDirectory(prefix="npusim_cycles_") as out:
        case = os.path.join(ROOT, "configs", "cases", name + ".yaml")
        cmd = [npusim, "run", case, "--mode", "timing", "--checks", "off", "--hw", hw, "--out", out] + extra
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{name}: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
        with open(os.path.join(out, "report.json")) as f:
            return int(json.load(f)["cycles"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--npusim", default=os.path.join(ROOT, "build", "tools", "npusim"))
    ap.add_argument("--long", action="store_true", help="also the long: true cases")
    ap.add_argument("--only", nargs="*", default=None, help="these cases only")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--reason", help="record the moved counts with this reason")
    ap.add_argument("--args", default="", help="extra npusim run arguments, e.g. '--tie-order reversed'")
    a = ap.parse_args()
    with open(CYCLES) as f:
        lines = f.read().split("\n")
    cases = parse(lines)
    names = [n for n, c in cases.items() if (a.long or not c["long"]) and (a.only is None or n in a.only)]
    if a.only:
        unknown = sorted(set(a.only) - set(cases))
        if unknown:
            sys.exit(f"record_cycles: --only names cases not in {CYCLES}: {', '.join(unknown)}")
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as pool:
        got = dict(zip(names, pool.map(lambda n: measure(a.npusim, n, cases[n]["hw"], a.args.split()), names)))
    moved = 0
    for n in names:
        old, new = cases[n]["cycles"], got[n]
        if old == new:
            continue
        moved += 1
        # A new case is entered with cycles: 0 and recorded without a "was".
        change = f"({100.0 * (new - old) / old:+.3f}%)" if old else "(new)"
        print(f"{n:34s} {old:>10d} -> {new:>10d}  {change}")
        if a.reason:
            i = cases[n]["line"]
            m = LINE.match(lines[i])
            body = re.sub(r"cycles:\s*\d+", f"cycles: {new}", m.group("body"))
            was = f" (was {old})" if old else ""
            body = re.sub(r'reason:\s*"[^"]*"', f'reason: "{a.reason}{was}"', body)
            lines[i] = f"{n}:{m.group('pad')}{{{body}}}"
    print(f"{moved} of {len(names)} cases moved" + (", recorded" if a.reason and moved else ""))
    if a.reason and moved:
        with open(CYCLES, "w") as f:
            f.write("\n".join(lines))


if __name__ == "__main__":
    main()
