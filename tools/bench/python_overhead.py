#!/usr/bin/python3
"""Benchmark (not a test): what a call through the Python module costs beyond the simulation itself, and the same
case through the CLI, in the same run. Per call: wall time of npusim.run, the C++ side's own time (report.json
sim.total_s: machine, GM staging, launch, outputs) and their difference (argument conversion, result arrays, the
report's JSON); then `npusim run` on the same case (process start, case file, .npy files) for comparison.

    PYTHONPATH=build/python tools/bench/python_overhead.py [--calls 300] [--size 64]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

import npusim

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--size", type=int, default=64, help="M = N = K of the fp16 GEMM")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((args.size, args.size)).astype(np.float16)
    b = rng.standard_normal((args.size, args.size)).astype(np.float16)
    for _ in range(20):
        npusim.run("matmul", {"a": a, "b": b})
    wall, inner = [], []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        r = npusim.run("matmul", {"a": a, "b": b})
        wall.append(time.perf_counter() - t0)
        inner.append(r.report["sim"]["total_s"])
    over = [w - i for w, i in zip(wall, inner)]
    ms = lambda xs: f"{1e3 * min(xs):.3f} / {1e3 * statistics.median(xs):.3f} / {1e3 * max(xs):.3f}"
    print(f"fp16 GEMM {args.size}^3, {args.calls} calls (min / median / max, ms)")
    print(f"  npusim.run wall            {ms(wall)}")
    print(f"  C++ side (sim.total_s)     {ms(inner)}")
    print(f"  overhead beyond it         {ms(over)}")
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "a.npy"), a)
        np.save(os.path.join(d, "b.npy"), b)
        with open(os.path.join(d, "case.yaml"), "w") as f:
            json.dump({"op": "matmul", "inputs": {"a": {"file": "a.npy", "dtype": "float16"},
                                                  "b": {"file": "b.npy", "dtype": "float16"}}}, f)
        cli = os.path.join(ROOT, "build", "tools", "npusim")
        runs = []
        for _ in range(20):
            t0 = time.perf_counter()
            subprocess.run([cli, "run", os.path.join(d, "case.yaml"), "--out", os.path.join(d, "o")], check=True,
                           capture_output=True)
            runs.append(time.perf_counter() - t0)
    print(f"  npusim run (CLI) wall      {ms(runs)}")
    print(f"  ratio CLI / Python (median) {statistics.median(runs) / statistics.median(wall):.1f}x")


if __name__ == "__main__":
    main()
