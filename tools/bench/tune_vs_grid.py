#!/usr/bin/python3
"""Benchmark (not a test): npusim tune (budget 40) against the exhaustive grid on shipped cases.

The grid is every legal value of the keys tuned (capped where a block exceeds the shape); the keys that follow them
(TilingKey::follows: the L0 split, vec_rows, ...) are left to the op's default rules, which adapt to the grid's
values, and the other keys are held at the op's default. tune gets the same held keys. Prints one table row per
case: the default, the grid best, the tune best, tune / grid, the runs and the invalid runs of each.
    tools/bench/tune_vs_grid.py [CASE...]      (runs in /tmp/tvg)"""
import json, os, subprocess, sys, yaml
HERE = os.path.dirname(os.path.abspath(__file__))
NP = os.path.join(HERE, "..", "..", "build", "tools", "npusim")
CASES = {  # case -> keys tuned
    "matmul_f16_512": ["base_m", "base_n"],
    "matmul_f16_1024": ["base_m", "base_n"],
    "fia_causal_sparse2": ["s1_block", "s2_block"],
    "fia_bsh_f16": ["s1_block", "s2_block"],
    "fia_decode_flash_decoding": ["s2_block", "kv_splits"],
    "fa_varlen_rope_causal": ["s1_block", "s2_block", "preload"],
    "fia_perf_llama_s4096": ["s1_block", "s2_block"],
    "fa_varlen_perf_mla_t8192": ["s1_block", "s2_block"],
}
GRID_CAP = {"base_m": 512, "base_n": 512, "s1_block": 512, "s2_block": 1024}


def followers(space, keys):
    """The keys whose default rules read a tuned key, directly or through another follower."""
    f, grew = set(), True
    while grew:
        grew = False
        for k in space["keys"]:
            if k["name"] not in f and k["name"] not in keys and any(n in keys or n in f for n in k.get("follows", [])):
                f.add(k["name"]); grew = True
    return f


def best(rows):
    ok = [r for r in rows if r["status"] == "ok"]
    return min(ok, key=lambda r: r["cycles"]) if ok else None


rows = []
for case in (sys.argv[1:] or CASES):
    keys = CASES[case]
    path = os.path.join(HERE, "..", "..", "configs", "cases", case + ".yaml")
    op = yaml.safe_load(open(path))["op"]
    space = json.loads(subprocess.run([NP, "ops", op, "--tiling", "--json"], capture_output=True, text=True).stdout)
    out = f"/tmp/tvg/{case}"
    subprocess.run(["rm", "-rf", out]); os.makedirs(out)
    subprocess.run([NP, "run", path, "--mode", "timing", "--checks", "off", "--out", out + "/def"], capture_output=True, text=True)
    d = json.load(open(out + "/def/report.json"))
    free = set(keys) | followers(space, set(keys))
    hold = [f"tiling.{k}={v}" for k, v in d["tiling"].items() if k not in free]
    axes = {f"tiling.{k['name']}": [v for v in k["values"] if v <= GRID_CAP.get(k["name"], 1 << 30)]
            for k in space["keys"] if k["name"] in keys}
    for h in hold:  # held keys go in as single-value axes so the grid runs with them
        k, v = h.split("=", 1); axes[k] = [int(v)]
    yaml.safe_dump({"case": path, "mode": "timing", "checks": "off", "axes": axes}, open(out + "/grid.yaml", "w"))
    subprocess.run([NP, "sweep", out + "/grid.yaml", "--jobs", "2", "--out", out + "/grid"], capture_output=True, text=True)
    grid = [json.loads(l) for l in open(out + "/grid/results.jsonl")]
    t = subprocess.run([NP, "tune", path, "--budget", "40", "--jobs", "2", "--out", out + "/tune"] + sum([["--set", h] for h in hold], []),
                       capture_output=True, text=True)
    if t.returncode:
        print(case, "tune failed:", t.stderr.strip()); continue
    tres = [json.loads(l) for l in open(out + "/tune/results.jsonl")]
    tbest = best(tres + [json.load(open(out + "/tune/default.json"))])
    gbest = best(grid)
    rows.append((case, len(grid), sum(r["status"] != "ok" for r in grid), len(tres) + 1, sum(r["status"] != "ok" for r in tres),
                 d["cycles"], gbest["cycles"], tbest["cycles"], gbest["tiling"], tbest["tiling"]))
    print(rows[-1], flush=True)
print("\n| case | keys tuned | grid runs (invalid) | tune runs (invalid) | default | grid best | tune best | tune / grid | default / grid |")
print("|---|---|---|---|---|---|---|---|---|")
for (case, g, gi, tn, ti, dc, gb, tb, _, _) in rows:
    print(f"| {case} | {', '.join(CASES[case])} | {g} ({gi}) | {tn} ({ti}) | {dc} | {gb} | {tb} | {tb / gb:.4f} | {dc / gb:.4f} |")
