"""The generic Python API: npusim.run / run_case / ops / op_params / tiling_space / hw_configs / options, numpy
tensors, errors (ValueError with the CLI's message, TypeError, KernelFault), Ctrl-C, and memory over many calls."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import npusim


def f16(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16)


def test_registry_queries():
    assert {"matmul", "fused_infer_attention_score", "flash_attention_var_len_score"} <= set(npusim.ops())
    params = {p["name"]: p for p in npusim.op_params("matmul")}
    assert params["a"]["kind"] == "tensor" and params["a"]["required"]
    assert params["transpose_b"]["kind"] == "bool" and params["transpose_b"]["default"] == "false"
    space = npusim.tiling_space("fused_infer_attention_score")
    assert any(k["name"] == "s2_block" for k in space["keys"])
    assert "ascend910b2" in npusim.hw_configs() and "ascend910b4" in npusim.hw_configs()


def test_matmul_from_numpy_matches_a_float32_reference():
    rng = np.random.default_rng(1)
    a, b = f16(rng, 64, 96), f16(rng, 96, 48)
    r = npusim.run("matmul", {"a": a, "b": b})
    c = r.outputs["c"]
    assert isinstance(c, np.ndarray) and c.dtype == np.float16 and c.shape == (64, 48)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.max(np.abs(c.astype(np.float64) - ref)) <= 1e-2 * np.max(np.abs(ref)) + 1e-2
    assert r.cycles > 0 and r.time_us > 0 and r.report["op"] == "matmul"
    assert r.report["out_dir"] is None  # nothing written without trace_dir
    assert npusim.last_report()["cycles"] == r.cycles


def test_matmul_shorthand_transpose_and_bf16_as_float32():
    rng = np.random.default_rng(2)
    a, b = f16(rng, 32, 64), f16(rng, 48, 64)
    c = npusim.matmul(a, b, transpose_b=True, out_dtype="float32")
    assert c.dtype == np.float32 and c.shape == (32, 48)
    bits = (rng.standard_normal((16, 32)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    b16 = (rng.standard_normal((32, 16)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    out = npusim.matmul(npusim.Tensor("bfloat16", bits), npusim.Tensor("bfloat16", b16))
    assert out.dtype == np.float32  # numpy has no bfloat16: exact widening
    assert np.array_equal(out.view(np.uint32) & 0xFFFF, np.zeros_like(out.view(np.uint32)))


def test_modes_options_and_tiling():
    rng = np.random.default_rng(3)
    a, b = f16(rng, 128, 128), f16(rng, 128, 128)
    full = npusim.run("matmul", {"a": a, "b": b})
    timing = npusim.run("matmul", {"a": a, "b": b}, mode="timing")
    assert timing.outputs == {} and timing.cycles == full.cycles
    with npusim.options(hw="ascend910b4", mode="timing"):
        b4 = npusim.run("matmul", {"a": a, "b": b})
        assert b4.report["hw"] == "ascend910b4"
        with npusim.options(tiling={"base_m": 64}):
            tiled = npusim.run("matmul", {"a": a, "b": b})
    assert tiled.report["tiling"]["base_m"] == 64 and tiled.report["hw"] == "ascend910b4"
    assert npusim.run("matmul", {"a": a, "b": b}, mode="timing").report["hw"] == "ascend910b2"  # block ended
    slow = npusim.run("matmul", {"a": a, "b": b}, mode="timing", set=["hw.hbm.bytes_per_cycle=64"])
    assert slow.cycles > full.cycles
    with pytest.raises(TypeError, match="unknown option 'tilings'"):
        with npusim.options(tilings={}):
            pass


def test_trace_dir_writes_the_cli_files(tmp_path):
    rng = np.random.default_rng(4)
    r = npusim.run("matmul", {"a": f16(rng, 32, 32), "b": f16(rng, 32, 32)}, trace_dir=tmp_path / "t")
    for f in ("report.json", "resolved.yaml", "trace.json", "instructions.csv", "c.npy"):
        assert (tmp_path / "t" / f).exists(), f
    assert r.report["out_dir"] == str(tmp_path / "t")
    assert np.array_equal(np.load(tmp_path / "t" / "c.npy"), r.outputs["c"])


def test_bad_attribute_is_a_value_error_naming_parameter_value_and_rule():
    rng = np.random.default_rng(5)
    q, k = f16(rng, 1, 4, 64), f16(rng, 1, 8, 64)
    with pytest.raises(ValueError, match=r"num_heads.*0"):
        npusim.run("fused_infer_attention_score", {"query": q, "key": k, "value": k},
                   attrs={"num_heads": 0, "input_layout": "BSH"})
    with pytest.raises(ValueError, match=r"attrs.transpose_a = 'maybe' must be true or false"):
        npusim.run("matmul", {"a": q[0], "b": k[0].T.copy()}, attrs={"transpose_a": "maybe"})
    with pytest.raises(ValueError, match="valid"):
        npusim.run("no_such_op", {})
    with pytest.raises(ValueError, match="ascend910b9"):
        npusim.run("matmul", {"a": q[0], "b": k[0].T.copy()}, hw="ascend910b9")
    with pytest.raises(ValueError, match="s2_block"):
        npusim.run("fused_infer_attention_score", {"query": q, "key": k, "value": k},
                   attrs={"num_heads": 1}, tiling={"s2_block": 7})


def test_bad_tensor_types_are_type_errors():
    with pytest.raises(TypeError, match="inputs.a: numpy dtype float64"):
        npusim.run("matmul", {"a": np.zeros((4, 4)), "b": np.zeros((4, 4), np.float16)})
    with pytest.raises(TypeError, match="inputs.a: expected a torch tensor, a numpy array"):
        npusim.run("matmul", {"a": 1.0, "b": np.zeros((4, 4), np.float16)})
    with pytest.raises(TypeError, match="bfloat16.*needs uint16"):
        npusim.run("matmul", {"a": npusim.Tensor("bfloat16", np.zeros((4, 4), np.float32)),
                              "b": np.zeros((4, 4), np.float16)})
    with pytest.raises(ValueError, match=r"int4 value 9 is outside \[-8, 7\]"):
        npusim.run("matmul", {"a": npusim.Tensor("int4", np.full((4, 4), 9, np.int8)),
                              "b": np.zeros((4, 4), np.float16)})


def paged_decode(rng, table):
    """FIA decode with a paged cache (configs/cases/fia_decode_paged_bsh.yaml's shapes) and block table `table`."""
    inputs = {"query": f16(rng, 3, 1, 512), "key": f16(rng, 24, 16, 256), "value": f16(rng, 24, 16, 256),
              "block_table": table}
    attrs = {"num_heads": 4, "num_key_value_heads": 2, "block_size": 16, "actual_seq_lengths_kv": [100, 37, 128],
             "scale": 0.08838834764831845}
    return npusim.run("fused_infer_attention_score", inputs, attrs=attrs)


def test_kernel_fault_names_the_fault_and_the_next_call_works():
    rng = np.random.default_rng(6)
    table = rng.permutation(24).astype(np.int32).reshape(3, 8)
    good = paged_decode(rng, table)
    with pytest.raises(npusim.KernelFault, match=r"block_table\[0\]\[0\] = 95 is not a block") as e:
        paged_decode(rng, np.full((3, 8), 95, np.int32))
    assert e.value.faults and all(len(f) == 2 for f in e.value.faults)
    assert npusim.last_report()["checks"]["fault_list"]  # the failed run's report
    again = paged_decode(rng, table)
    assert again.cycles == good.cycles


def test_run_case_overrides_and_errors(root):
    path = root / "configs/cases/matmul_f16_512.yaml"
    r = npusim.run_case(path, mode="timing", tiling={"base_m": 64})
    assert r.report["tiling"]["base_m"] == 64 and r.outputs == {}
    with pytest.raises(ValueError, match="cannot read case file"):
        npusim.run_case(root / "configs/cases/missing.yaml")


def test_run_case_refuses_inputs_over_the_host_memory_budget(root, monkeypatch):
    monkeypatch.setenv("NPUSIM_HOST_MEMORY", "1M")  # as the CLI: before generating the inputs, not an OOM kill
    with pytest.raises(ValueError, match="over the host-memory budget of 1048576"):
        npusim.run_case(root / "configs/cases/matmul_f16_4096.yaml")
    assert npusim.run_case(root / "configs/cases/matmul_f16_4096.yaml", mode="timing").cycles > 0


def test_ctrl_c_stops_a_long_simulation_and_the_next_call_works(root):
    main = threading.main_thread().ident
    timer = threading.Timer(0.5, lambda: signal.pthread_kill(main, signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        npusim.run_case(root / "configs/cases/fia_perf_s8192_mode0.yaml", mode="timing")
    stopped = time.monotonic() - t0
    timer.cancel()
    assert stopped < 10, f"took {stopped:.1f} s to stop"
    assert "interrupted" in npusim.last_report()["checks"]["faults"]
    assert npusim.run_case(root / "configs/cases/matmul_f16_512.yaml", mode="timing").cycles > 0


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_resident_memory_is_flat_over_1000_calls():
    rng = np.random.default_rng(7)
    a, b = f16(rng, 32, 32), f16(rng, 32, 32)
    for _ in range(100):  # warm-up: allocator pools, the first machine's one-off SystemC set-up
        npusim.run("matmul", {"a": a, "b": b})
    before = rss_kb()
    for _ in range(1000):
        npusim.run("matmul", {"a": a, "b": b})
    grown = rss_kb() - before
    assert grown < 8 * 1024, f"resident memory grew {grown} KiB over 1000 calls"


def test_calls_from_several_threads_give_the_single_thread_result():
    rng = np.random.default_rng(8)
    a = f16(rng, 128, 128)
    ref = npusim.run("matmul", {"a": a, "b": a})
    bad = []

    def work():
        for _ in range(10):
            r = npusim.run("matmul", {"a": a, "b": a})
            if r.cycles != ref.cycles or not np.array_equal(r.outputs["c"], ref.outputs["c"]):
                bad.append(r.cycles)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []


def test_int4_packed_words_unpack_low_nibble_first():
    from npusim._tensors import to_storage
    words = np.array([[0x87654321 - (1 << 32), 0x0000000F]], np.int32)  # nibbles 1..7, 8 (-8); 15 (-1), 0 x 7
    dtype, vals = to_storage("inputs.key", npusim.Tensor("int4_packed", words))
    assert dtype == "int4" and vals.dtype == np.int8 and vals.shape == (1, 16)
    assert vals.tolist() == [[1, 2, 3, 4, 5, 6, 7, -8, -1, 0, 0, 0, 0, 0, 0, 0]]


def test_a_pto_kernel_from_numpy_matches_the_native_matmul_bit_for_bit():
    """op pto with map-valued attrs (outputs) from Python: the project's PTO GEMM, built on first use."""
    rng = np.random.default_rng(7)
    a, b = f16(rng, 256, 256), f16(rng, 256, 256)  # b given as N x K
    gemm = os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "pto", "examples", "gemm.cpp")
    r = npusim.run("pto", {"a": a, "b": b},
                   attrs={"library": os.path.abspath(gemm), "entry": "gemm", "cores": "cube", "block_dim": 2,
                          "args": ["c", "a", "b", 256, 256, 256],
                          "outputs": {"c": {"dtype": "float32", "shape": [256, 256]}}})
    native = npusim.run("matmul", {"a": a, "b": b}, attrs={"transpose_b": True, "out_dtype": "float32"})
    assert r.outputs["c"].shape == (256, 256)
    assert np.array_equal(r.outputs["c"].view(np.uint32), native.outputs["c"].view(np.uint32))
    with pytest.raises(ValueError, match="attrs.entry = 'nosuch' is not an entry"):
        npusim.run("pto", {"a": a, "b": b}, attrs={"library": os.path.abspath(gemm), "entry": "nosuch", "args": [],
                                                   "outputs": {"c": {"dtype": "float32", "shape": [1]}}})
