#!/usr/bin/python3
"""A numpy reference for a run saved with `npusim run --save-inputs` (README "Numerics sign-off").

    tools/numpy_reference.py RUN_DIR [--out DIR]

Reads RUN_DIR/replay.yaml and RUN_DIR/inputs/, computes the op's outputs the way a torch user would (fp32
matmuls, fp32 softmax, one rounding to the output dtype at the end) and writes DIR/OUTPUT.npy (float32 values;
`npusim check --expect DIR` rounds them to the output dtype with RNE). Covers `matmul` (transposes, bias,
out_dtype), `fused_infer_attention_score` prompt / decode without masks, pse, paging, prefix, lists, actual lengths,
quantisation or antiquantisation (BSH / BSND / BNSD, GQA), and `flash_attention_var_len_score` (TND, rope, GQA, sparse modes 0-4 / 7 / 8, local or
global masks; fully masked rows are left to npusim's rules). Anything else in the case (an input, an attribute or a
value it does not compute) exits 2 naming it (COVERED below). Its bits are not npusim's: it shows what an independent reference looks like next to
the simulated kernel (a few ULP, from the accumulation order), not a bit-exact golden.
"""
import argparse
import os
import sys

import numpy as np
import yaml


def refuse(what):
    """What the script does not compute: exit 2 naming it, never a reference that silently ignores an input."""
    print(f"numpy_reference.py: {what} is not covered by this script (its bits would not be this case's reference)",
          file=sys.stderr)
    sys.exit(2)


ANY = lambda v: True
# Per op: the inputs it reads and the attrs it honours (with the values it honours). Anything else in the case,
# even an attr it would only have to ignore, is refused by name.
COVERED = {
    "matmul": ({"a", "b", "bias"}, {"transpose_a": ANY, "transpose_b": ANY, "out_dtype": ANY}),
    "fused_infer_attention_score": (
        {"query", "key", "value"},
        {"num_heads": ANY, "num_key_value_heads": ANY, "scale": ANY,
         "input_layout": lambda v: v in ("BSH", "BSND", "BNSD", "BNSD_BSND"), "sparse_mode": lambda v: v == 0,
         "inner_precise": lambda v: v in (0, 1), "softmax_lse_flag": lambda v: not v,
         "pre_tokens": lambda v: v == 2147483647, "next_tokens": lambda v: v == 2147483647,
         "block_size": lambda v: v == 0, "antiquant_mode": lambda v: v == 0, "key_antiquant_mode": lambda v: v == 0,
         "value_antiquant_mode": lambda v: v == 0}),
    "flash_attention_var_len_score": (
        {"query", "key", "value", "query_rope", "key_rope", "atten_mask"},
        {"head_num": ANY, "input_layout": lambda v: v == "TND", "scale": ANY, "keep_prob": lambda v: v == 1,
         "pre_tokens": ANY, "next_tokens": ANY, "inner_precise": ANY, "sparse_mode": lambda v: v in (0, 1, 2, 3, 4, 7, 8),
         "pse_type": ANY, "actual_seq_qlen": ANY, "actual_seq_kvlen": ANY, "prefix": ANY, "q_start_idx": ANY,
         "kv_start_idx": ANY}),
}


def check_covered(case):
    inputs, attrs = COVERED[case["op"]]
    for name, entry in (case.get("inputs") or {}).items():
        if name not in inputs:
            refuse(f"inputs.{name}")
        if isinstance(entry, list):
            refuse(f"inputs.{name} as a tensor list")
        if entry.get("dtype") in ("int8", "int4", "int32") and case["op"] != "matmul" and name != "atten_mask":
            refuse(f"inputs.{name} of dtype {entry['dtype']} (quantised attention)")
    for name, value in (case.get("attrs") or {}).items():
        if name not in attrs or not attrs[name](value):
            refuse(f"attrs.{name} = {value!r}")


def load(run, entry):
    a = np.load(os.path.join(run, entry["file"]))
    if entry["dtype"] == "bfloat16":  # saved as uint16 bit patterns
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


def matmul(run, case):
    attrs, inp = case.get("attrs") or {}, case["inputs"]
    a, b = load(run, inp["a"]), load(run, inp["b"])
    if attrs.get("transpose_a"):
        a = a.T
    if attrs.get("transpose_b"):
        b = b.T
    c = a.astype(np.float64) @ b.astype(np.float64)
    if "bias" in inp:
        c = c + load(run, inp["bias"])
    return {"c": c.astype(np.float32)}


def fia(run, case):
    attrs, inp = case.get("attrs") or {}, case["inputs"]
    n = attrs["num_heads"]
    kvn = attrs.get("num_key_value_heads", 0) or n
    layout = attrs.get("input_layout", "BSH")
    q, k, v = (load(run, inp[x]) for x in ("query", "key", "value"))

    def to_bnsd(t, heads):
        if layout == "BSH":
            b, s, h = t.shape
            return t.reshape(b, s, heads, h // heads).transpose(0, 2, 1, 3)
        return t.transpose(0, 2, 1, 3) if layout == "BSND" else t

    q, k, v = to_bnsd(q, n), to_bnsd(k, kvn), to_bnsd(v, kvn)
    g = n // kvn
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = np.float32(attrs.get("scale", 1.0)) * (q @ k.transpose(0, 1, 3, 2))
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    o = (p @ v) / p.sum(axis=-1, keepdims=True)
    if layout == "BSH":
        o = o.transpose(0, 2, 1, 3).reshape(o.shape[0], o.shape[2], -1)
    elif layout in ("BSND", "BNSD_BSND"):
        o = o.transpose(0, 2, 1, 3)
    return {"attention_out": o.astype(np.float32)}


def fa_varlen(run, case):
    """FlashAttentionVarLenScoreV3 (TND): per batch segment, scores over D + Dr, the sparse mode's band, the mask
    tensor of modes 0 / 1 (local or global), softmax in fp32; softmax_max / softmax_sum in the vendor's order."""
    attrs, inp = case.get("attrs") or {}, case["inputs"]
    q, k, v = (load(run, inp[x]) for x in ("query", "key", "value"))
    if "query_rope" in inp:
        q = np.concatenate([q, load(run, inp["query_rope"])], axis=-1)
        k = np.concatenate([k, load(run, inp["key_rope"])], axis=-1)
    n1, n2 = q.shape[1], k.shape[1]
    mode = attrs.get("sparse_mode", 0)
    pre, nxt = attrs.get("pre_tokens", 2147483647), attrs.get("next_tokens", 2147483647)
    cq, ck = [0] + list(attrs["actual_seq_qlen"]), [0] + list(attrs["actual_seq_kvlen"])
    lq = [cq[b + 1] - cq[b] for b in range(len(cq) - 1)]
    mask = np.load(os.path.join(run, inp["atten_mask"]["file"])) != 0 if "atten_mask" in inp else None
    live = [b for b in range(len(lq)) if lq[b]]
    band_b = (live[-1] if mode == 7 else live[0]) if live and mode in (7, 8) else -1
    out = np.zeros((q.shape[0], n1, v.shape[2]), np.float32)
    mx = np.zeros((q.shape[0] * n1 * 8,), np.float32)
    sm = np.zeros_like(mx)
    for b in range(len(lq)):
        sq, skv = cq[b + 1] - cq[b], ck[b + 1] - ck[b]
        if sq == 0 or skv == 0:
            continue
        i = np.arange(sq)[:, None]
        j = np.arange(skv)[None, :]
        d = skv - sq
        vis = np.ones((sq, skv), bool)
        if mode == 0 and mask is not None:
            vis = (j - i >= -pre) & (j - i <= nxt)
        elif mode == 2 or (mode == 8 and b != band_b):
            vis = j <= i
        elif mode == 3 or (mode == 7 and b != band_b):
            vis = j <= i + d
        elif mode == 4 or b == band_b:
            vis = (j - i >= -pre + d) & (j - i <= nxt + d)
        if mode in (0, 1) and mask is not None:
            m = mask[cq[b]:cq[b + 1], ck[b]:ck[b + 1]] if mask.shape == (q.shape[0], k.shape[0]) and \
                mask.shape != (max(lq), max(ck[x + 1] - ck[x] for x in range(len(lq)))) else mask[:sq, :skv]
            vis &= ~m
        for n in range(n1):
            qs = q[cq[b]:cq[b + 1], n].astype(np.float64)
            ks, vs = k[ck[b]:ck[b + 1], n // (n1 // n2)], v[ck[b]:ck[b + 1], n // (n1 // n2)]
            s = np.float32(attrs.get("scale", 1.0)) * (qs @ ks.T.astype(np.float64))
            s = np.where(vis, s, -np.inf)
            m = s.max(axis=1, keepdims=True)
            p = np.where(vis, np.exp(s - m), 0.0)
            l = p.sum(axis=1, keepdims=True)
            out[cq[b]:cq[b + 1], n] = (p @ vs) / l
            at = (cq[b] * n1 + n * sq + np.arange(sq)) * 8
            for r in range(8):
                mx[at + r], sm[at + r] = m[:, 0], l[:, 0]
    shape = (q.shape[0], n1, 8)
    return {"attention_out": out, "softmax_max": mx.reshape(shape), "softmax_sum": sm.reshape(shape)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="a folder written by npusim run --save-inputs")
    ap.add_argument("--out", help="where to write OUTPUT.npy (default RUN/numpy_ref)")
    args = ap.parse_args()
    replay = os.path.join(args.run, "replay.yaml")
    if not os.path.exists(replay):
        print(f"numpy_reference.py: {replay} does not exist (run npusim with --save-inputs)", file=sys.stderr)
        sys.exit(2)
    case = yaml.safe_load(open(replay))
    ops = {"matmul": matmul, "fused_infer_attention_score": fia, "flash_attention_var_len_score": fa_varlen}
    if case["op"] not in ops:
        refuse(f"op {case['op']} (covered: {', '.join(ops)})")
    check_covered(case)
    out = args.out or os.path.join(args.run, "numpy_ref")
    os.makedirs(out, exist_ok=True)
    for name, arr in ops[case["op"]](args.run, case).items():
        np.save(os.path.join(out, name + ".npy"), arr)
        print(f"{os.path.join(out, name + '.npy')}: {arr.dtype} {list(arr.shape)}")


if __name__ == "__main__":
    main()
