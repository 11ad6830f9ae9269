"""msprof-shaped output (issue 39 item 5): every `npusim run` writes op_summary.csv with msprof's 46 op_summary
columns (Atlas A2, PipeUtilization) and msprof's formulas, re-derived here from report.json; `npusim
compare-profile` lines a device row (op_summary or the torch_npu profiler's kernel_details.csv) up with a run.
Registered in ctest as cli.OpSummaryAndCompareProfile (NPUSIM_CLI = the npusim binary)."""
import csv
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("NPUSIM_CLI", str(ROOT / "build" / "tools" / "npusim"))
# msprof's header (Ascend/msprof op_summary_assembler.cpp BASE_HEADER + the A2 PipeUtilization metrics), in order.
MSPROF = ("Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
          "Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
          "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,"
          "aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,"
          "aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),"
          "aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),"
          "aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)").split(",")


def npusim(*args, check=True):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=check)


def run_case(name, out):
    npusim("run", ROOT / "configs" / "cases" / f"{name}.yaml", "--mode", "timing", "--out", out)
    with open(out / "op_summary.csv", newline="") as f:
        rows = list(csv.reader(f))
    return rows, json.load(open(out / "report.json"))


def kind_totals(report, kind):
    cores = {n: c for n, c in report["pipe_summary"]["per_core"].items() if n.startswith(kind)}
    total = sum(c["end_cycle"] - c["start_cycle"] for c in cores.values())
    busy = lambda pipe: sum(c.get(pipe, {}).get("busy_cycles", 0) for c in cores.values())
    return len(cores), total, busy


def test_mix_op_row_follows_msprof(tmp_path):
    rows, report = run_case("fia_bsh_f16", tmp_path)
    assert rows[0] == MSPROF and len(rows) == 2
    row = dict(zip(rows[0], rows[1]))
    n_aic, aic_total, aic_busy = kind_totals(report, "aic")
    n_aiv, aiv_total, aiv_busy = kind_totals(report, "aiv")
    assert row["OP Type"] == "FusedInferAttentionScore" and row["Task Type"] == "MIX_AIC"
    assert int(row["Block Dim"]) == n_aic and int(row["Mix Block Dim"]) == n_aiv and row["Context ID"] == "0"
    assert int(row["aic_total_cycles"]) == aic_total and int(row["aiv_total_cycles"]) == aiv_total
    mhz = 1800.0  # ascend910b2's chip.clock_mhz
    aicore_time = aic_total / (mhz * n_aic)
    assert float(row["aicore_time(us)"]) == pytest.approx(aicore_time, abs=1e-3)
    assert float(row["aiv_time(us)"]) == pytest.approx(aiv_total / (mhz * n_aiv), abs=1e-3)
    for col, pipe in (("mac", "m"), ("mte2", "mte2"), ("fixpipe", "fix"), ("scalar", "s")):
        assert float(row[f"aic_{col}_ratio"]) == pytest.approx(aic_busy(pipe) / aic_total, abs=1e-3)
        assert float(row[f"aic_{col}_time(us)"]) == pytest.approx(aicore_time * aic_busy(pipe) / aic_total, abs=2e-3)
    assert float(row["aiv_vec_ratio"]) == pytest.approx(aiv_busy("v") / aiv_total, abs=1e-3)
    assert float(row["Task Duration(us)"]) == pytest.approx(report["time_us"], abs=1e-3)
    cube = aic_total / (mhz * 24 * report["time_us"]) * 100  # 24: the chip's AI Cores
    assert float(row["cube_utilization(%)"]) == pytest.approx(cube, abs=1e-2)
    # Shapes as msprof writes them: literal quotes, ';' between tensors (absent optional inputs after the last
    # given one are not listed).
    assert row["Input Shapes"] == '"2,128,256;2,256,256;2,256,256"' and row["Output Shapes"] == '"2,128,256"'
    assert row["Input Data Types"] == "FLOAT16;FLOAT16;FLOAT16" and row["Input Formats"] == "ND;ND;ND"
    assert '"""2,128,256;' in (tmp_path / "op_summary.csv").read_text()  # the raw CSV doubles the quotes


def test_absent_optional_input_between_given_ones_is_an_empty_item(tmp_path):
    rows, _ = run_case("fia_decode_paged_bsh", tmp_path)  # block_table given, the inputs between it and value not
    row = dict(zip(rows[0], rows[1]))
    tensors = [p["name"] for p in json.loads(npusim("ops", "fused_infer_attention_score", "--json").stdout)["params"]
               if p["kind"] in ("tensor", "tensor_list")]
    items = row["Input Shapes"].strip('"').split(";")
    assert len(items) == tensors.index("block_table") + 1 and items[-1] == "3,8" and items[3] == ""
    assert row["Input Data Types"].split(";")[-1] == "INT32"


def test_cube_only_op_is_an_ai_core_task(tmp_path):
    rows, report = run_case("matmul_f16_512", tmp_path)
    row = dict(zip(rows[0], rows[1]))
    assert row["OP Type"] == "MatMulV2" and row["Task Type"] == "AI_CORE"
    assert row["Mix Block Dim"] == "0" and row["Context ID"] == "N/A" and row["aiv_total_cycles"] == "0"
    assert row["Input Data Types"] == "FLOAT16;FLOAT16" and row["Output Data Types"] == "FLOAT16"


def write_kernel_details(path, sim_row, durations):
    """A torch_npu kernel_details.csv (renamed columns, Block Num) holding the run's row at other durations."""
    renames = {"Op Name": "Name", "OP Type": "Type", "Task Type": "Accelerator Core",
               "Task Duration(us)": "Duration(us)",
               "Task Start Time(us)": "Start Time(us)", "Task Wait Time(us)": "Wait Time(us)", "Block Dim": "Block Num"}
    head = ["Step Id"] + [renames.get(c, c) for c in MSPROF]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        for i, d in enumerate(durations):
            row = dict(sim_row, **{"Task Duration(us)": str(d)})
            w.writerow([str(i)] + [row[c] for c in MSPROF])
        w.writerow(["9"] + [dict(sim_row, **{"OP Type": "Add"})[c] for c in MSPROF])


def test_compare_profile_against_kernel_details(tmp_path):
    rows, report = run_case("fia_bsh_f16", tmp_path / "run")
    sim_row = dict(zip(rows[0], rows[1]))
    sim_us = float(sim_row["Task Duration(us)"])
    write_kernel_details(tmp_path / "kd.csv", sim_row, [sim_us * 3, sim_us * 2, sim_us * 1.5])  # median: 2x
    out = json.loads(npusim("compare-profile", tmp_path / "kd.csv", tmp_path / "run", "--json").stdout)
    assert "median Task Duration of 3 rows" in out["device_row"] and out["input_shapes"]["same"]
    metrics = {m["metric"]: m for m in out["metrics"]}
    assert metrics["Task Duration(us)"]["sim_over_device"] == pytest.approx(0.5, rel=1e-3)
    assert metrics["aic_total_cycles"]["sim_over_device"] == pytest.approx(1.0)
    first = json.loads(npusim("compare-profile", tmp_path / "kd.csv", tmp_path / "run", "--row", "1", "--json").stdout)
    ratio = {m["metric"]: m for m in first["metrics"]}["Task Duration(us)"]["sim_over_device"]
    assert ratio == pytest.approx(1 / 3, rel=1e-3)
    text = npusim("compare-profile", tmp_path / "kd.csv", tmp_path / "run").stdout
    assert "Task Duration(us)" in text and "0.500" in text


def test_compare_profile_errors(tmp_path):
    rows, _ = run_case("matmul_f16_512", tmp_path / "run")
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    r = npusim("compare-profile", tmp_path / "bad.csv", tmp_path / "run", check=False)
    assert r.returncode == 2 and "no 'OP Type' / 'Type' and 'Task Duration(us)'" in r.stderr
    own = tmp_path / "run" / "op_summary.csv"
    r = npusim("compare-profile", own, tmp_path / "run", "--name", "Softmax", check=False)
    assert r.returncode == 2 and "no row whose Op Name or OP Type contains 'Softmax'" in r.stderr
    r = npusim("compare-profile", tmp_path / "run" / "op_summary.csv", tmp_path / "run", "--row", "5", check=False)
    assert r.returncode == 2 and "--row 5: the profile has 1 data rows" in r.stderr
    r = npusim("compare-profile", tmp_path / "run" / "op_summary.csv", tmp_path, check=False)
    assert r.returncode == 2 and "op_summary.csv does not exist" in r.stderr
    same = json.loads(npusim("compare-profile", tmp_path / "run" / "op_summary.csv", tmp_path / "run", "--json").stdout)
    assert all(m.get("sim_over_device", 1.0) == 1.0 for m in same["metrics"])
