"""Same bits as the CLI: every shipped case under configs/cases runs through npusim.run_case and through
`npusim run`. Cases whose inputs fit FULL_MODE_BYTES run in full mode both ways: every output bit for bit and
the same cycles. The rest (the bandwidth and perf cases, up to 8 GiB of KV) run in timing mode in Python and
must give the cycles `npusim run --mode timing` recorded in traces/reference/cycles.yaml (tools/record_cycles.py
runs the CLI; tests/op/test_cycles.cpp keeps the file current); `long: true` ones only with NPUSIM_LONG_TESTS=1."""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest
import yaml

import npusim

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "configs" / "cases").glob("*.yaml"))
RECORDED = yaml.safe_load(open(ROOT / "traces" / "reference" / "cycles.yaml"))
FULL_MODE_BYTES = 16 << 20
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1, "uint8": 1, "int32": 4, "int64": 8, "bool": 1,
               "int4": 1, "uint16": 2, "uint64": 8}


def input_bytes(case):
    total = 0
    for entry in (case.get("inputs") or {}).values():
        for t in entry if isinstance(entry, list) else [entry]:
            if "file" in t:
                total += os.path.getsize(t["file"]) if os.path.isabs(t["file"]) else 0
            else:
                total += int(np.prod(t["shape"], dtype=np.int64)) * DTYPE_BYTES[t["dtype"]]
    return total


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_gives_the_cli_result(path, cli, tmp_path):
    case = yaml.safe_load(open(path))
    if input_bytes(case) > FULL_MODE_BYTES:
        rec = RECORDED[path.stem]
        if rec.get("long") and os.environ.get("NPUSIM_LONG_TESTS") != "1":
            pytest.skip("a long case (cycles.yaml long: true): NPUSIM_LONG_TESTS=1 runs it")
        r = npusim.run_case(path, mode="timing", hw=rec["hw"])
        assert r.cycles == rec["cycles"]
        return
    mine = npusim.run_case(path)
    subprocess.run([cli, "run", str(path), "--out", str(tmp_path)], check=True, capture_output=True)
    report = json.load(open(tmp_path / "report.json"))
    assert mine.cycles == report["cycles"]
    assert sorted(mine.outputs) == sorted(report["outputs"])
    for name, arr in mine.outputs.items():
        theirs = np.load(tmp_path / f"{name}.npy")
        assert arr.dtype == theirs.dtype and arr.shape == theirs.shape, name
        assert arr.tobytes() == theirs.tobytes(), f"{name}: bits differ from npusim run's"
