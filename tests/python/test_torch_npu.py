"""npusim.torch_npu: torch_npu's names, defaults and return tuples on torch tensors; outputs bit-identical to
`npusim run` on the same inputs; a GQA decode step with a paged bf16 KV cache against a torch fp32 reference
(the README's worked example)."""
import json
import math
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="Debian's python3-torch is not installed (tools/install-deps.sh installs it)")

import npusim  # noqa: E402
import npusim.torch_npu as torch_npu  # noqa: E402


def as_npy(t):
    """A torch tensor as the .npy a case file reads (bf16 as its uint16 bits)."""
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return t.contiguous().numpy()


def cli_outputs(cli, tmp, op, attrs, inputs):
    """Runs `npusim run` on a case whose inputs are `inputs` written as .npy files; returns its outputs."""
    entries = {}
    for name, t in inputs.items():
        np.save(tmp / f"{name}.npy", as_npy(t))
        dtype = str(t.dtype).replace("torch.", "")
        entries[name] = {"file": f"{name}.npy", "dtype": dtype}
    (tmp / "case.yaml").write_text(json.dumps({"op": op, "attrs": attrs, "inputs": entries}))  # JSON is YAML
    subprocess.run([cli, "run", str(tmp / "case.yaml"), "--out", str(tmp / "out")], check=True, capture_output=True)
    return tmp / "out"


def same_bits(torch_out, npy_path):
    """The CLI writes bf16 outputs as float32 (exact): compare the widened bits."""
    cli = np.load(npy_path)
    mine = torch_out.float().numpy() if torch_out.dtype == torch.bfloat16 else torch_out.numpy()
    return mine.dtype == cli.dtype and mine.shape == cli.shape and mine.tobytes() == cli.tobytes()


def test_fia_prompt_is_bit_identical_to_the_cli(cli, tmp_path):
    g = torch.Generator().manual_seed(11)
    q = torch.randn(2, 128, 256, generator=g).half()
    k = torch.randn(2, 192, 256, generator=g).half()
    v = torch.randn(2, 192, 256, generator=g).half()
    out, lse = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=4, scale=0.125, input_layout="BSH",
                                                         softmax_lse_flag=True)
    assert out.dtype == torch.float16 and out.shape == (2, 128, 256)
    assert lse.dtype == torch.float32 and lse.shape == (2, 4, 128, 1)
    attrs = {"num_heads": 4, "scale": 0.125, "input_layout": "BSH", "softmax_lse_flag": True}
    d = cli_outputs(cli, tmp_path, "fused_infer_attention_score", attrs, {"query": q, "key": k, "value": v})
    assert same_bits(out, d / "attention_out.npy") and same_bits(lse, d / "softmax_lse.npy")
    # Without the flag torch_npu (7.2+) returns an empty [0] placeholder.
    out2, lse2 = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=4, scale=0.125)
    assert torch.equal(out2, out) and lse2.shape == (0,) and lse2.dtype == torch.float32


def test_fa_v3_with_rope_is_bit_identical_to_the_cli(cli, tmp_path):
    g = torch.Generator().manual_seed(12)
    qlen, kvlen = [100, 164], [100, 228]
    q, k, v = (torch.randn(164, 4, 64, generator=g).bfloat16(), torch.randn(228, 2, 64, generator=g).bfloat16(),
               torch.randn(228, 2, 64, generator=g).bfloat16())
    qr, kr = torch.randn(164, 4, 32, generator=g).bfloat16(), torch.randn(228, 2, 32, generator=g).bfloat16()
    mask = torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1)
    res = torch_npu.npu_fusion_attention_v2(q, k, v, 4, "TND", query_rope=qr, key_rope=kr, atten_mask=mask,
                                            scale=0.102, sparse_mode=3, actual_seq_qlen=qlen, actual_seq_kvlen=kvlen)
    out, smax, ssum, sout, seed, offset, numels = res
    assert out.dtype == torch.bfloat16 and out.shape == (164, 4, 64)
    assert smax.shape == (164, 4, 8) and ssum.shape == (164, 4, 8) and smax.dtype == torch.float32
    assert sout.shape == (0,) and sout.dtype == torch.bfloat16 and (seed, offset) == (0, 0)
    assert numels == 4 * (100 * 100 + 64 * 128)
    attrs = {"head_num": 4, "input_layout": "TND", "scale": 0.102, "sparse_mode": 3, "actual_seq_qlen": qlen,
             "actual_seq_kvlen": kvlen}
    d = cli_outputs(cli, tmp_path, "flash_attention_var_len_score", attrs,
                    {"query": q, "key": k, "value": v, "query_rope": qr, "key_rope": kr, "atten_mask": mask})
    for name, t in (("attention_out", out), ("softmax_max", smax), ("softmax_sum", ssum)):
        assert same_bits(t, d / f"{name}.npy"), name


def block_table(lengths, block_size, g):
    """Shuffled block ids per batch: (B, max blocks) int32, and the number of blocks."""
    per = [math.ceil(n / block_size) for n in lengths]
    ids = torch.randperm(sum(per), generator=g).to(torch.int32)
    table = torch.zeros(len(lengths), max(per), dtype=torch.int32)
    for b, start in enumerate(np.cumsum([0] + per[:-1])):
        table[b, :per[b]] = ids[start:start + per[b]]
    return table, sum(per)


def paged(dense, table, lengths, block_size, block_num):
    """A dense (B, S, KV_N * D) cache scattered into (block_num, block_size, KV_N * D) blocks by `table`."""
    blocks = torch.zeros(block_num, block_size, dense.shape[2], dtype=dense.dtype)
    for b, n in enumerate(lengths):
        for j in range(math.ceil(n / block_size)):
            rows = dense[b, j * block_size:(j + 1) * block_size]
            blocks[int(table[b, j]), :rows.shape[0]] = rows
    return blocks


def gqa_decode_reference(q, k, v, lengths, n, kv_n, scale):
    """fp32 attention of one query token per batch over each batch's first `lengths[b]` K / V rows (BSH)."""
    B, d = q.shape[0], q.shape[2] // n
    out = torch.zeros(B, 1, n * d)
    for b in range(B):
        qb = q[b, 0].float().view(n, d)
        kb = k[b, :lengths[b]].float().view(-1, kv_n, d).repeat_interleave(n // kv_n, dim=1)
        vb = v[b, :lengths[b]].float().view(-1, kv_n, d).repeat_interleave(n // kv_n, dim=1)
        p = torch.softmax(torch.einsum("nd,snd->ns", qb, kb) * scale, dim=-1)
        out[b, 0] = torch.einsum("ns,snd->nd", p, vb).reshape(-1)
    return out


def test_gqa_decode_with_a_paged_bf16_cache_against_fp32():
    g = torch.Generator().manual_seed(13)
    B, N, KV_N, D, block_size, lengths = 2, 8, 2, 128, 128, [300, 517]
    q = torch.randn(B, 1, N * D, generator=g).bfloat16()
    k = torch.randn(B, 640, KV_N * D, generator=g).bfloat16()
    v = torch.randn(B, 640, KV_N * D, generator=g).bfloat16()
    table, block_num = block_table(lengths, block_size, g)
    k_cache, v_cache = (paged(x, table, lengths, block_size, block_num) for x in (k, v))
    scale = 1 / math.sqrt(D)
    out, _ = torch_npu.npu_fused_infer_attention_score(
        q, k_cache, v_cache, block_table=table, actual_seq_lengths_kv=lengths, num_heads=N,
        num_key_value_heads=KV_N, input_layout="BSH", scale=scale, block_size=block_size)
    assert out.dtype == torch.bfloat16 and out.shape == (B, 1, N * D)
    ref = gqa_decode_reference(q, k, v, lengths, N, KV_N, scale)
    torch.testing.assert_close(out.float(), ref, atol=2e-2, rtol=2e-2)
    assert npusim.last_report()["cycles"] > 0


def test_int4_kv_as_int32_words_and_options():
    g = torch.Generator().manual_seed(14)
    q = torch.randn(1, 4, 1, 64, generator=g).bfloat16()
    k = torch.randint(-2**31, 2**31 - 1, (1, 2, 256, 8), generator=g, dtype=torch.int32)  # 8 int4 per word: D 64
    v = torch.randint(-2**31, 2**31 - 1, (1, 2, 256, 8), generator=g, dtype=torch.int32)
    ks, vs = torch.rand(1, 1, 256, generator=g) * 0.2 + 0.1, torch.rand(1, 1, 256, generator=g) * 0.2 + 0.1  # (1, B, S)
    with npusim.options(mode="timing", hw="ascend910b4"):
        out, _ = torch_npu.npu_fused_infer_attention_score(
            q, k, v, key_antiquant_scale=ks, value_antiquant_scale=vs, key_antiquant_mode=1, value_antiquant_mode=1,
            num_heads=4, num_key_value_heads=2, input_layout="BNSD", scale=0.125)
    assert out is None  # timing mode computes nothing
    assert npusim.last_report()["hw"] == "ascend910b4" and npusim.last_report()["cycles"] > 0
    out, _ = torch_npu.npu_fused_infer_attention_score(
        q, k, v, key_antiquant_scale=ks, value_antiquant_scale=vs, key_antiquant_mode=1, value_antiquant_mode=1,
        num_heads=4, num_key_value_heads=2, input_layout="BNSD", scale=0.125)
    assert out.dtype == torch.bfloat16 and out.shape == (1, 4, 1, 64) and torch.isfinite(out.float()).all()


def test_torch_npu_errors():
    q = torch.randn(1, 16, 64).half()
    with pytest.raises(ValueError, match="query_rope: npusim models FusedInferAttentionScore V2"):
        torch_npu.npu_fused_infer_attention_score(q, q, q, query_rope=q)
    with pytest.raises(ValueError, match="num_heads"):
        torch_npu.npu_fused_infer_attention_score(q, q, q, num_heads=0)
    with pytest.raises(TypeError, match="actual_seq_lengths: expected a list of ints"):
        torch_npu.npu_fused_infer_attention_score(q, q, q, actual_seq_lengths=[1.5])
    with pytest.raises(TypeError, match="torch dtype torch.float64"):
        torch_npu.npu_fused_infer_attention_score(q.double(), q, q)
    with pytest.raises(ValueError, match="sink"):
        torch_npu.npu_fusion_attention_v2(q, q, q, 1, "TND", sink=q)
    with pytest.raises(TypeError):
        torch_npu.npu_fused_infer_attention_score(q, q, q, 1)  # num_heads is keyword-only, as in torch_npu


def test_matmul_torch_in_torch_out():
    g = torch.Generator().manual_seed(15)
    a, b = torch.randn(64, 128, generator=g).bfloat16(), torch.randn(128, 32, generator=g).bfloat16()
    c = npusim.matmul(a, b)
    assert c.dtype == torch.bfloat16 and c.shape == (64, 32)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=5e-2, rtol=2e-2)
