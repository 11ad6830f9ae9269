"""torch_npu's operator functions on npusim: same positional and keyword names, defaults and return tuples, so a
test written against torch_npu runs after `import npusim.torch_npu as torch_npu`.

Signatures from Ascend/op-plugin op_plugin/config/op_plugin_functions.yaml (master 517f2e7d, 2026-08): the
schema torch.ops.npu.* is generated from, and torch_npu exports every op of torch.ops.npu. What torch_npu has no
argument for (hw config, tiling, mode, trace folder) goes through `npusim.options(...)`; the last run's report is
`npusim.last_report()`. In timing mode (`npusim.options(mode="timing")`) nothing is computed: the computed
outputs are None and the cycles are in the report. tools/python/README.md lists what differs from the device.
"""
import numpy as np

from . import run
from ._tensors import is_torch, torch

_INT_MAX = 2147483647


def _empty(like, dtype_name):
    """torch_npu's placeholder outputs (an empty [0] tensor), as the kind of `like`."""
    if is_torch(like):
        return torch.empty(0, dtype=getattr(torch, dtype_name))
    return np.empty(0, dtype=np.float32 if dtype_name == "bfloat16" else dtype_name)


def _refuse(name, value, why):
    if value is not None:
        raise ValueError(f"{name}: {why}")


def _int_list(name, v):
    if v is None:
        return None
    if is_torch(v) or isinstance(v, np.ndarray):
        v = v.tolist()
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, (int, np.integer)) for x in v):
        raise TypeError(f"{name}: expected a list of ints (host values, as torch_npu's SymInt[]), got {v!r}")
    return [int(x) for x in v]


def npu_fused_infer_attention_score(query, key, value, *, pse_shift=None, atten_mask=None, actual_seq_lengths=None,
                                    actual_seq_lengths_kv=None, dequant_scale1=None, quant_scale1=None,
                                    dequant_scale2=None, quant_scale2=None, quant_offset2=None, antiquant_scale=None,
                                    antiquant_offset=None, key_antiquant_scale=None, key_antiquant_offset=None,
                                    value_antiquant_scale=None, value_antiquant_offset=None, block_table=None,
                                    query_padding_size=None, kv_padding_size=None, key_shared_prefix=None,
                                    value_shared_prefix=None, actual_shared_prefix_len=None, query_rope=None,
                                    key_rope=None, key_rope_antiquant_scale=None, num_heads=1, scale=1.0,
                                    pre_tokens=_INT_MAX, next_tokens=_INT_MAX, input_layout="BSH",
                                    num_key_value_heads=0, sparse_mode=0, inner_precise=0, block_size=0,
                                    antiquant_mode=0, key_antiquant_mode=0, value_antiquant_mode=0,
                                    softmax_lse_flag=False):
    """FusedInferAttentionScore (prompt: query S > 1; incremental: S = 1). Returns (attention_out, softmax_lse);
    softmax_lse is an empty [0] float32 tensor unless softmax_lse_flag (torch_npu 7.2+; 7.1 and older give [1]).

    key / value: one tensor as in torch_npu, or (npusim only) a list of tensors, the aclnn tensor-list form that
    torch_npu cannot reach. int4 K / V: int32 tensors of eight int4 values each (last dim / 8), as torch_npu.
    query_rope / key_rope / key_rope_antiquant_scale (aclnn V3's MLA inputs) are not modelled: ValueError.
    """
    rope = (("query_rope", query_rope), ("key_rope", key_rope), ("key_rope_antiquant_scale", key_rope_antiquant_scale))
    for n, v in rope:
        _refuse(n, v, "npusim models FusedInferAttentionScore V2, without the V3 rope (MLA) inputs; "
                      "rope attention runs as npu_fusion_attention_v2 (FlashAttentionVarLenScoreV3)")
    inputs = dict(query=query, key=key, value=value, pse_shift=pse_shift, atten_mask=atten_mask,
                  dequant_scale1=dequant_scale1, quant_scale1=quant_scale1, dequant_scale2=dequant_scale2,
                  quant_scale2=quant_scale2, quant_offset2=quant_offset2, antiquant_scale=antiquant_scale,
                  antiquant_offset=antiquant_offset, key_antiquant_scale=key_antiquant_scale,
                  key_antiquant_offset=key_antiquant_offset, value_antiquant_scale=value_antiquant_scale,
                  value_antiquant_offset=value_antiquant_offset, block_table=block_table,
                  query_padding_size=query_padding_size, kv_padding_size=kv_padding_size,
                  key_shared_prefix=key_shared_prefix, value_shared_prefix=value_shared_prefix)
    attrs = dict(actual_seq_lengths=_int_list("actual_seq_lengths", actual_seq_lengths),
                 actual_seq_lengths_kv=_int_list("actual_seq_lengths_kv", actual_seq_lengths_kv),
                 actual_shared_prefix_len=_int_list("actual_shared_prefix_len", actual_shared_prefix_len),
                 num_heads=num_heads, scale=float(scale), pre_tokens=pre_tokens, next_tokens=next_tokens,
                 input_layout=input_layout, num_key_value_heads=num_key_value_heads, sparse_mode=sparse_mode,
                 inner_precise=inner_precise, block_size=block_size, antiquant_mode=antiquant_mode,
                 key_antiquant_mode=key_antiquant_mode, value_antiquant_mode=value_antiquant_mode,
                 softmax_lse_flag=bool(softmax_lse_flag))
    out = run("fused_infer_attention_score", inputs, attrs=attrs).outputs
    lse = out.get("softmax_lse") if softmax_lse_flag else _empty(query, "float32")
    return out.get("attention_out"), lse


def _numels(head_num, actual_seq_qlen, actual_seq_kvlen):
    """torch_npu's TND `numels`: N1 x sum over batches of Sq_b x Skv_b, from the cumulative ends."""
    q = np.diff([0] + list(actual_seq_qlen))
    kv = np.diff([0] + list(actual_seq_kvlen))
    return int(head_num * int(np.sum(q * kv)))


def npu_fusion_attention_v2(query, key, value, head_num, input_layout, *, pse=None, padding_mask=None,
                            atten_mask=None, query_rope=None, key_rope=None, scale=1.0, keep_prob=1.0,
                            pre_tokens=_INT_MAX, next_tokens=_INT_MAX, inner_precise=0, prefix=None,
                            actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0, gen_mask_parallel=True,
                            sync=False, pse_type=1, q_start_idx=None, kv_start_idx=None, softmax_layout="",
                            sink=None, dropout_mask=None, seed=0, offset=0):
    """FlashAttentionVarLenScoreV3 (TND, with query_rope / key_rope): torch_npu dispatches here when both rope
    tensors and both cumulative length lists are given. Returns (attention_out, softmax_max, softmax_sum,
    softmax_out, seed, offset, numels): softmax_max / softmax_sum float32 (T1, N1, 8), softmax_out an empty [0]
    tensor of the query's dtype, seed / offset as given (no dropout: keep_prob must be 1), numels
    N1 x sum(Sq_b x Skv_b). gen_mask_parallel, sync and softmax_layout have no effect on this path (the device
    ignores softmax_layout on V3 too); sink selects another operator (V5): ValueError.
    """
    _refuse("sink", sink, "selects FlashAttentionVarLenScoreV5 on the device, which npusim does not model")
    _refuse("dropout_mask", dropout_mask, "npusim's FlashAttentionVarLenScoreV3 has no dropout (keep_prob must be 1)")
    if softmax_layout not in ("", "TND"):
        raise ValueError(f"softmax_layout: '{softmax_layout}' must be '' or 'TND' (torch_npu's rule)")
    qlen = _int_list("actual_seq_qlen", actual_seq_qlen)
    kvlen = _int_list("actual_seq_kvlen", actual_seq_kvlen)
    inputs = dict(query=query, key=key, value=value, query_rope=query_rope, key_rope=key_rope,
                  atten_mask=atten_mask, pse=pse, padding_mask=padding_mask)
    attrs = dict(head_num=head_num, input_layout=input_layout, scale=float(scale), keep_prob=float(keep_prob),
                 pre_tokens=pre_tokens, next_tokens=next_tokens, inner_precise=inner_precise,
                 sparse_mode=sparse_mode, pse_type=pse_type, actual_seq_qlen=qlen, actual_seq_kvlen=kvlen,
                 prefix=_int_list("prefix", prefix), q_start_idx=_int_list("q_start_idx", q_start_idx),
                 kv_start_idx=_int_list("kv_start_idx", kv_start_idx))
    out = run("flash_attention_var_len_score", inputs, attrs=attrs).outputs
    q_dtype = "bfloat16" if is_torch(query) and query.dtype == torch.bfloat16 else str(
        query.dtype).replace("torch.", "")
    numels = _numels(head_num, qlen, kvlen) if qlen and kvlen else 0
    return (out.get("attention_out"), out.get("softmax_max"), out.get("softmax_sum"), _empty(query, q_dtype), seed,
            offset, numels)
