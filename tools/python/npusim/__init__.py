"""npusim from Python: operators run in-process on the simulated Ascend-like NPU, bit-exact outputs and the
timing report back. See tools/python/README.md.

    import npusim
    r = npusim.run("matmul", {"a": a, "b": b}, attrs={"transpose_b": True})
    r.outputs["c"], r.cycles, r.time_us, r.report["pipe_summary"]

    import npusim.torch_npu as torch_npu          # torch_npu's names, defaults and return tuples
    out, lse = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=32, input_layout="BSH")
"""
import json

from . import _npusim
from ._options import current_options, options, last_report, _set_last_report
from ._tensors import Tensor, from_storage, is_torch, to_storage

__all__ = ["run", "run_case", "ops", "op_params", "tiling_space", "hw_configs", "options", "last_report",
           "Result", "KernelFault", "Tensor", "matmul"]


class KernelFault(RuntimeError):
    """The kernel faulted in simulation (a race, a hazard, a deadlock, an ISA rule): the CLI's exit 3.
    `faults` lists (kind, message) pairs; each message names the instructions involved."""

    def __init__(self, faults, report):
        self.faults = faults
        self.report = report
        super().__init__("\n".join(f"fault [{k}]: {m}" for k, m in faults))


class Result:
    """One run: `outputs` (name -> tensor / array, the kind that went in), `report` (report.json as a dict),
    `cycles`, `time_us`, `notes` (findings that are not faults, e.g. redundant barriers)."""

    def __init__(self, outputs, report, notes):
        self.outputs = outputs
        self.report = report
        self.notes = notes

    @property
    def cycles(self):
        return self.report["cycles"]

    @property
    def time_us(self):
        return self.report["time_us"]

    def __repr__(self):
        return (f"npusim.Result(op={self.report.get('op')!r}, cycles={self.cycles}, time_us={self.time_us:.3f}, "
                f"outputs={list(self.outputs)})")


def _yaml_value(v):
    """A Python value as the YAML text a case file would hold (json is YAML's flow subset)."""
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_yaml_value(x) for x in v) + "]"
    if isinstance(v, dict):  # e.g. op pto's outputs / workspaces / reference maps
        return "{" + ",".join(f"{json.dumps(str(k))}: {_yaml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return json.dumps(v)
    if isinstance(v, float):
        return repr(v)
    raise TypeError(f"{v!r}: an attribute / tiling value must be a bool, int, float, str, or a list or dict of them")


def _sets(section, values):
    return [f"{section}.{k}={_yaml_value(v)}" for k, v in (values or {}).items() if v is not None]


def _run_options(hw, mode, checks, trace_dir, hw_sets):
    o = _npusim.RunOptions()
    o.hw = hw or ""
    o.mode = mode or "full"
    o.checks = checks or "all"
    o.trace_dir = str(trace_dir) if trace_dir else ""
    o.hw_sets = list(hw_sets)
    return o


def _split_sets(set_list):
    """`set=["hw.K=V", "tiling.K=V", ...]` -> (hw sets, case sets); a key without hw./attrs./tiling. is refused."""
    hw_sets, case_sets = [], []
    for s in set_list or []:
        if not isinstance(s, str) or "=" not in s:
            raise ValueError(f"set: {s!r} must be a string KEY=VALUE (hw.K=V, attrs.K=V or tiling.K=V)")
        (hw_sets if s.startswith("hw.") else case_sets).append(s)
    return hw_sets, case_sets


def _finish(raw, as_torch):
    report = json.loads(raw["report_json"])
    _set_last_report(report)
    if raw["interrupted"] is not None:  # Ctrl-C stopped the simulation: the handler's exception, after the report
        raise raw["interrupted"]
    if raw["status"] == 2:  # an input fault (a tiling that does not fit): the CLI's exit 2
        raise ValueError("\n".join(m for _, m in raw["faults"]))
    if raw["status"] != 0:
        raise KernelFault([tuple(f) for f in raw["faults"]], report)
    outputs = {n: from_storage(dt, a, as_torch) for n, (dt, a) in raw["outputs"].items()}
    return Result(outputs, report, [tuple(n) for n in raw["notes"]])


def _merged(attrs, tiling, hw, mode, set, checks, trace_dir):
    """Arguments over the innermost `npusim.options(...)` block over the defaults."""
    o = current_options()
    tiling = {**o.get("tiling", {}), **(tiling or {})}
    hw_sets, case_sets = _split_sets(list(o.get("set", [])) + list(set or []))
    return dict(
        sets=_sets("attrs", attrs) + _sets("tiling", tiling) + case_sets,
        options=_run_options(hw or o.get("hw"), mode or o.get("mode"), checks or o.get("checks"),
                             trace_dir or o.get("trace_dir"), hw_sets))


def run(op, inputs, attrs=None, tiling=None, hw=None, mode=None, set=None, checks=None, trace_dir=None):
    """Runs operator `op` on `inputs` (name -> tensor, or a list of tensors for a tensor-list parameter).

    attrs / tiling: dicts as in a case file; hw: a bundled config name or a YAML file (default ascend910b2);
    mode: full | functional | timing; set: ["hw.K=V", "tiling.K=V", ...] as the CLI's --set; checks: all | local
    | off; trace_dir: write trace.json, report.json and the outputs there (as `npusim run --out DIR --trace`).
    Returns a Result; raises ValueError for bad input (the CLI's exit-2 message), KernelFault for a kernel fault,
    KeyboardInterrupt on Ctrl-C (the simulation stops within about 50 ms).
    """
    if not isinstance(inputs, dict):
        raise TypeError(f"inputs: expected a dict of name -> tensor, got {type(inputs).__name__}")
    packed, lists, as_torch = {}, [], False
    for name, x in inputs.items():
        if x is None:
            continue
        items = list(x) if isinstance(x, (list, tuple)) else [x]
        if isinstance(x, (list, tuple)):
            lists.append(name)
        as_torch = as_torch or any(is_torch(t) or (isinstance(t, Tensor) and is_torch(t.data)) for t in items)
        packed[name] = [to_storage(f"inputs.{name}" + (f"[{i}]" if name in lists else ""), t)
                        for i, t in enumerate(items)]
    m = _merged(attrs, tiling, hw, mode, set, checks, trace_dir)
    return _finish(_npusim.run(op, packed, lists, m["sets"], m["options"]), as_torch)


def run_case(path, attrs=None, tiling=None, hw=None, mode=None, set=None, checks=None, trace_dir=None, as_torch=False):
    """Runs a case file as `npusim run PATH` does (same inputs, same bits); keyword overrides as in run()."""
    m = _merged(attrs, tiling, hw, mode, set, checks, trace_dir)
    return _finish(_npusim.run_case(str(path), m["sets"], m["options"]), as_torch)


def ops():
    """The registered operator names."""
    return list(_npusim.ops())


def op_params(op):
    """The parameters of `op`: dicts with name, kind (tensor, tensor_list, int, float, bool, string, int_list),
    required, default (text) and doc."""
    return list(_npusim.op_params(op))


def tiling_space(op, hw=None):
    """The declared tiling keys of `op` and their legal values on `hw` (as `npusim ops OP --tiling --json`)."""
    return json.loads(_npusim.tiling_space_json(op, hw or _npusim.default_hw()))


def hw_configs():
    """The bundled hardware config names (the first-listed default is ascend910b2)."""
    return list(_npusim.hw_configs())


def matmul(a, b, bias=None, transpose_a=False, transpose_b=False, out_dtype=None, dequant_scale=None, **kw):
    """C = A.B on the simulated cube (the `matmul` op): a (M, K) or (K, M) with transpose_a, b (K, N) or (N, K)
    with transpose_b; float16 / bfloat16 / int8. Returns C as the kind that went in. Keywords of run() apply."""
    attrs = {"transpose_a": transpose_a, "transpose_b": transpose_b, "out_dtype": out_dtype,
             "dequant_scale": dequant_scale}
    return run("matmul", {"a": a, "b": b, "bias": bias}, attrs=attrs, **kw).outputs.get("c")  # None in timing mode
