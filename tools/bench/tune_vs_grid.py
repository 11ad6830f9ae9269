#!/usr/bin/python3
"""Benchmark (not a test): npusim tune (budget 40) against the exhaustive grid on shipped cases. The grid is every
legal value of the keys tuned (capped where a block exceeds the shape); the other keys are held at the op's default.
Runs in /tmp/tvg; prints one table row per case.   tools/bench/tune_vs_grid.py"""
import json, os, subprocess, yaml
NP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "tools", "npusim")
CASES = {  # case -> keys tuned (others held at the op's default)
    "matmul_f16_512": ["base_m", "base_n"],
    "matmul_f16_1024": ["base_m", "base_n"],
    "fia_causal_sparse2": ["s1_block", "s2_block"],
    "fia_bsh_f16": ["s1_block", "s2_block"],
    "fia_decode_flash_decoding": ["s2_block", "kv_splits"],
    "fa_varlen_rope_causal": ["s1_block", "s2_block", "preload"],
}
GRID_CAP = {"base_m": 512, "base_n": 512, "s1_block": 512, "s2_block": 1024}
def spaced(vals, n=12):
    if len(vals) <= n: return vals
    return sorted(set(vals[i * (len(vals) - 1) // (n - 1)] for i in range(n)))
rows = []
for case, keys in CASES.items():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs", "cases", case + ".yaml")
    op = yaml.safe_load(open(path))["op"]
    space = json.loads(subprocess.run([NP, "ops", op, "--tiling", "--json"], capture_output=True, text=True).stdout)
    out = f"/tmp/tvg/{case}"
    subprocess.run(["rm", "-rf", out]); os.makedirs(out)
    d = subprocess.run([NP, "run", path, "--mode", "timing", "--checks", "off", "--out", out + "/def"], capture_output=True, text=True)
    dt = json.load(open(out + "/def/report.json"))["tiling"]
    hold = [f"tiling.{k}={v}" for k, v in dt.items() if k not in keys]
    # the exhaustive grid: every legal value of each tuned key, up to GRID_CAP (above it the blocks exceed the shape)
    axes = {f"tiling.{k['name']}": [v for v in k["values"] if v <= GRID_CAP.get(k["name"], 1 << 30)]
            for k in space["keys"] if k["name"] in keys}
    sweep = {"case": path, "mode": "timing", "checks": "off", "axes": axes}
    # held keys go in as single-value axes so the grid runs with them
    for h in hold:
        k, v = h.split("=", 1); sweep["axes"][k] = [int(v)]
    yaml.safe_dump(sweep, open(out + "/grid.yaml", "w"))
    subprocess.run([NP, "sweep", out + "/grid.yaml", "--jobs", "2", "--out", out + "/grid"], capture_output=True, text=True)
    res = [json.loads(l) for l in open(out + "/grid/results.jsonl")]
    ok = [r for r in res if r["status"] == "ok"]
    gbest = min(ok, key=lambda r: r["cycles"])
    t = subprocess.run([NP, "tune", path, "--budget", "40", "--jobs", "2", "--out", out + "/tune"] + sum([["--set", h] for h in hold], []),
                       capture_output=True, text=True)
    tres = [json.loads(l) for l in open(out + "/tune/results.jsonl")]
    tok = [r for r in tres if r["status"] == "ok"] + [json.load(open(out + "/tune/default.json"))]
    tbest = min(tok, key=lambda r: r["cycles"])
    rows.append((case, len(res), len(tres) + 1, dt, gbest["cycles"], tbest["cycles"], d.stdout.split(": ")[1].split(" cycles")[0]))
    print(rows[-1], flush=True)
print("\n| case | keys tuned | grid points | tune runs | default cycles | grid best | tune best | tune = grid best |")
print("|---|---|---|---|---|---|---|---|")
for (case, g, tn, dt, gb, tb, dc) in rows:
    print(f"| {case} | {', '.join(CASES[case])} | {g} | {tn} | {dc} | {gb} | {tb} | {'yes' if tb == gb else ('better' if tb < gb else 'no')} |")
