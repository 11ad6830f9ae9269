#!/usr/bin/python3
"""A numpy reference for a run saved with `npusim run --save-inputs` (tools/cli/README.md "Numerics sign-off").

    tools/numpy_reference.py RUN_DIR [--out DIR]

Reads RUN_DIR/replay.yaml and RUN_DIR/inputs/, computes the op's outputs the way a torch user would (fp32
matmuls, fp32 softmax, one rounding to the output dtype at the end) and writes DIR/OUTPUT.npy (float32 values;
`npusim check --expect DIR` rounds them to the output dtype with RNE). Covers `matmul` (transposes, bias,
out_dtype), `fused_infer_attention_score` prompt / decode (BSH / BSND / BNSD, GQA; sparse modes 0-4 with pre / next
tokens, full or compressed masks, one or per-batch mask planes; actual lengths (right padding); pse_shift; page
attention (BnBsH / BnNBsD); the system prefix; tensor-list K / V; softmax_lse; invalid-row correction), and
`flash_attention_var_len_score` (TND, rope, GQA, sparse modes 0-4 / 7 / 8, local or global masks; fully masked rows
are left to npusim's rules). Not covered, refused: quantisation, antiquantisation, left padding. Anything else in the case (an input, an attribute or a
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
        {"query", "key", "value", "atten_mask", "pse_shift", "block_table", "key_shared_prefix", "value_shared_prefix"},
        {"num_heads": ANY, "num_key_value_heads": ANY, "scale": ANY,
         "input_layout": lambda v: v in ("BSH", "BSND", "BNSD", "BNSD_BSND"), "sparse_mode": lambda v: v in (0, 1, 2, 3, 4),
         "inner_precise": lambda v: v in (0, 1, 2, 3), "softmax_lse_flag": ANY, "pre_tokens": ANY, "next_tokens": ANY,
         "block_size": ANY, "actual_seq_lengths": ANY, "actual_seq_lengths_kv": ANY, "actual_shared_prefix_len": ANY,
         "antiquant_mode": lambda v: v == 0, "key_antiquant_mode": lambda v: v == 0,
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
        lists_ok = case["op"] == "fused_infer_attention_score" and name in ("key", "value")
        if isinstance(entry, list) and not lists_ok:
            refuse(f"inputs.{name} as a tensor list")
        for e in entry if isinstance(entry, list) else [entry]:
            if e.get("dtype") in ("int8", "int4", "int32", "int4_packed") and case["op"] != "matmul" and \
                    name not in ("atten_mask", "block_table"):
                refuse(f"inputs.{name} of dtype {e['dtype']} (quantised attention)")
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
    """FusedInferAttentionScore (spec fused_infer_attention_score.md §1.3-1.8): per (b, n) the scores over
    [prefix || the batch's KV] (dense, tensor list or paged), scale then pse, the sparse mode's band and the mask
    tensor (modes 0 / 1), fp64 softmax; rows past actual_seq_lengths give 0 (lse +inf), an empty KV at query S = 1
    gives 0 (lse -3.4e38). A fully masked row is refused unless inner_precise 2 / 3 defines it (0, lse +inf)."""
    attrs, inp = case.get("attrs") or {}, case["inputs"]
    n = attrs["num_heads"]
    kvn = attrs.get("num_key_value_heads", 0) or n
    layout = attrs.get("input_layout", "BSH")
    q = load(run, inp["query"])

    def to_bnsd(t, heads, lay=layout):  # one tensor of the query's layout -> (B, N, S, D)
        if lay == "BSH":
            b, s, h = t.shape
            return t.reshape(b, s, heads, h // heads).transpose(0, 2, 1, 3)
        return t.transpose(0, 2, 1, 3) if lay in ("BSND", "BNSD_BSND") else t

    q = to_bnsd(q, n)
    B, _, sq, _ = q.shape
    g = n // kvn
    block_size = attrs.get("block_size", 0)
    if "block_table" in inp:  # page attention: token t of batch b in block table[b][t // bs], offset t % bs
        table = np.load(os.path.join(run, inp["block_table"]["file"])).astype(np.int64)
        kp, vp = load(run, inp["key"]), load(run, inp["value"])
        if kp.ndim == 3:  # BnBsH -> (blocks, KV_N, bs, D)
            kp = kp.reshape(kp.shape[0], kp.shape[1], kvn, -1).transpose(0, 2, 1, 3)
            vp = vp.reshape(vp.shape[0], vp.shape[1], kvn, -1).transpose(0, 2, 1, 3)
        ks = [np.concatenate([kp[table[b, j]] for j in range(table.shape[1])], axis=1) for b in range(B)]
        vs = [np.concatenate([vp[table[b, j]] for j in range(table.shape[1])], axis=1) for b in range(B)]
    else:
        kl = inp["key"] if isinstance(inp["key"], list) else [inp["key"]]
        vl = inp["value"] if isinstance(inp["value"], list) else [inp["value"]]
        kt = [to_bnsd(load(run, e), kvn) for e in kl]
        vt = [to_bnsd(load(run, e), kvn) for e in vl]
        ks = [kt[b][0] if len(kt) > 1 else kt[0][b] for b in range(B)]  # (KV_N, S, D) per batch
        vs = [vt[b][0] if len(vt) > 1 else vt[0][b] for b in range(B)]

    def per_batch(key, default):
        v = attrs.get(key)
        if v is None:
            return [default(b) for b in range(B)]
        return [v[0] if len(v) == 1 else v[b] for b in range(B)]

    act_q = per_batch("actual_seq_lengths", lambda b: sq)
    act_kv = per_batch("actual_seq_lengths_kv", lambda b: ks[b].shape[1])
    pk = pv = None
    plen = 0
    if "key_shared_prefix" in inp:
        pk = to_bnsd(load(run, inp["key_shared_prefix"]), kvn)[0]
        pv = to_bnsd(load(run, inp["value_shared_prefix"]), kvn)[0]
        plen = (attrs.get("actual_shared_prefix_len") or [pk.shape[1]])[0]
    mode = attrs.get("sparse_mode", 0)
    pre, nxt = attrs.get("pre_tokens", 2147483647), attrs.get("next_tokens", 2147483647)
    mask = np.load(os.path.join(run, inp["atten_mask"]["file"])) != 0 if "atten_mask" in inp else None
    pse = load(run, inp["pse_shift"]) if "pse_shift" in inp else None
    fix = attrs.get("inner_precise", 0) in (2, 3)
    scale = np.float32(attrs.get("scale", 1.0))
    out = np.zeros((B, n, sq, vs[0].shape[2]), np.float32)
    lse = np.full((B, n, sq, 1), np.inf, np.float32)
    for b in range(B):
        skv = plen + act_kv[b]
        kb = ks[b][:, :act_kv[b]]
        vb = vs[b][:, :act_kv[b]]
        if pk is not None:
            kb = np.concatenate([pk[:, :plen], kb], axis=1)
            vb = np.concatenate([pv[:, :plen], vb], axis=1)
        if sq == 1 and skv == 0:
            lse[b] = np.float32(-3.4e38)
            continue
        rows = act_q[b]
        i = np.arange(rows)[:, None]
        j = np.arange(skv)[None, :]
        d = skv - rows
        vis = np.ones((rows, skv), bool)
        if sq > 1:  # query S = 1: sparse_mode, pre_tokens and next_tokens are ignored
            if mode == 0 and mask is not None:
                vis = (j - i >= -pre) & (j - i <= nxt)
            elif mode == 2:
                vis = j <= i
            elif mode == 3:
                vis = j <= i + d
            elif mode == 4:
                vis = (j - i >= -(pre - d)) & (j - i <= nxt + d)
        if mask is not None and (mode in (0, 1) or sq == 1):
            # planes of the last two dims; at query S = 1 a (B, Skv) mask holds one row per batch
            m = mask.reshape(mask.shape[0], 1, -1) if sq == 1 and mask.ndim == 2 else mask.reshape((-1,) + mask.shape[-2:])
            plane = m[b] if m.shape[0] == B and B > 1 else m[0]
            vis &= ~plane[:rows, :skv]
        for h in range(n):
            s = scale * (q[b, h, :rows].astype(np.float64) @ kb[h // g].T.astype(np.float64))
            if pse is not None:
                s = s + pse[b if pse.shape[0] == B else 0, h, :rows, :skv]
            s = np.where(vis, s, -np.inf)
            empty = ~vis.any(axis=1)
            if empty.any() and not fix:
                refuse(f"batch {b} head {h}: {int(empty.sum())} fully masked rows without invalid-row correction "
                       "(their output is unspecified; set attrs.inner_precise to 2 or 3)")
            mx = np.where(empty, 0.0, s.max(axis=1))[:, None]
            p = np.where(vis, np.exp(s - mx), 0.0)
            l = p.sum(axis=1, keepdims=True)
            o = (p @ vb[h // g].astype(np.float64)) / np.where(l == 0, 1.0, l)
            out[b, h, :rows] = np.where(empty[:, None], 0.0, o)
            lse[b, h, :rows, 0] = np.where(empty, np.inf, (mx + np.log(np.where(l == 0, 1.0, l)))[:, 0])
    if layout == "BSH":
        out = out.transpose(0, 2, 1, 3).reshape(B, sq, -1)
    elif layout in ("BSND", "BNSD_BSND"):
        out = out.transpose(0, 2, 1, 3)
    res = {"attention_out": out.astype(np.float32)}
    if attrs.get("softmax_lse_flag"):
        res["softmax_lse"] = lse
    return res


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
