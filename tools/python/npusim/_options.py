"""`npusim.options(...)`: what torch_npu has no argument for (hw config, tiling, mode, checks, trace folder,
--set overrides), for the calls inside a `with` block; and the last run's report."""
import contextlib
import contextvars

_STACK = contextvars.ContextVar("npusim_options", default={})
_LAST = {"report": None}
_KEYS = ("hw", "tiling", "mode", "checks", "trace_dir", "set")


@contextlib.contextmanager
def options(**kw):
    """with npusim.options(hw="ascend910b4", tiling={"s2_block": 384}, mode="timing"): ...
    Keys: hw, tiling (merged over an outer block's), mode, checks, trace_dir, set (appended)."""
    for k in kw:
        if k not in _KEYS:
            raise TypeError(f"npusim.options: unknown option {k!r} (valid: {', '.join(_KEYS)})")
    outer = _STACK.get()
    merged = {**outer, **{k: v for k, v in kw.items() if v is not None}}
    if "tiling" in kw:
        merged["tiling"] = {**outer.get("tiling", {}), **(kw["tiling"] or {})}
    if "set" in kw:
        merged["set"] = list(outer.get("set", [])) + list(kw["set"] or [])
    token = _STACK.set(merged)
    try:
        yield merged
    finally:
        _STACK.reset(token)


def current_options():
    return _STACK.get()


def last_report():
    """report.json (as a dict) of the last run in this process, also when it raised KernelFault / ValueError."""
    return _LAST["report"]


def _set_last_report(r):
    _LAST["report"] = r
