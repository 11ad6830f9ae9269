#!/usr/bin/env bash
# The npusim command line end to end: every error path exits with the documented status and a message
# naming the parameter / file, and the happy paths write their outputs. Usage: test_cli.sh NPUSIM REPO_ROOT
set -uo pipefail
NPUSIM="$1"; ROOT="$2"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
pass=0; fail=0

# expect STATUS PATTERN -- COMMAND...: runs the command, checks its exit status and that stdout+stderr match.
expect() {
  local want="$1" pattern="$2"; shift 3
  local out; out="$("$@" 2>&1)"; local got=$?
  if [[ $got -eq $want ]] && grep -qE -- "$pattern" <<<"$out"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $* -> exit $got (want $want), output must match '$pattern':"; echo "$out" | head -5; fi
}

cat > "$T/mm.yaml" <<'Y'
op: matmul
inputs:
  a: {shape: [40, 33], dtype: float16, init: {dist: normal, seed: 1}}
  b: {shape: [33, 50], dtype: float16, init: {dist: normal, seed: 2}}
Y
printf 'op: matmul\ninputs: [unclosed\n' > "$T/syntax.yaml"
printf 'op: softmax\n' > "$T/badop.yaml"
printf 'op: matmul\nattrs: {num_heads: 8}\ninputs:\n  a: {shape: [4, 4], dtype: float16}\n  b: {shape: [4, 4], dtype: float16}\n' > "$T/badattr.yaml"
printf 'op: matmul\ninputs:\n  a: {shape: [64, 64], dtype: float16}\n  b: {shape: [64, 64], dtype: float16}\ntiling: {base_m: 256, base_n: 256}\n' > "$T/badtiling.yaml"
# a float64 .npy, which the reader must reject naming the file
printf '\x93NUMPY\x01\x00\x76\x00{'"'"'descr'"'"': '"'"'<f8'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }' > "$T/f64.npy"
printf '%*s\n' $((118 - 10 - 67)) '' >> "$T/f64.npy"; head -c 16 /dev/zero >> "$T/f64.npy"
printf 'op: matmul\ninputs:\n  a: {file: f64.npy, dtype: float16}\n  b: {shape: [2, 2], dtype: float16}\n' > "$T/npy.yaml"
printf 'copy dst=ub:0x0 src=gm:0x0 burst_bytes=1024\nvadds.f32 dst=ub:0x0 src=ub:0x0 scalar=1 repeat=4\n' > "$T/race.s"
printf 'wait_flag src=mte2 dst=v event=1\n' > "$T/deadlock.s"
printf 'vadd.f32 dst=ub:0x0 src0=ub:0x0 src1=ub:0x100 repeat=400\n' > "$T/parse.s"

expect 2 "usage" -- "$NPUSIM"
expect 2 "unknown command 'bogus'" -- "$NPUSIM" bogus
expect 2 "cannot read case file" -- "$NPUSIM" run "$T/missing.yaml"
expect 2 "syntax.yaml:[0-9]+: YAML syntax error" -- "$NPUSIM" run "$T/syntax.yaml"
expect 2 "op 'softmax' is not registered \(valid: flash_attention_var_len_score, fused_infer_attention_score, matmul, pto\)" -- "$NPUSIM" run "$T/badop.yaml"
expect 2 "attrs.num_heads is not a parameter of matmul \(valid attrs: .*transpose_a" -- "$NPUSIM" run "$T/badattr.yaml"
expect 2 "tiling.base_m x tiling.base_n .*core.l0c_bytes = 131072" -- "$NPUSIM" run "$T/badtiling.yaml"
expect 2 "tiling.base_k = 4096 must be in" -- "$NPUSIM" run "$T/mm.yaml" --set tiling.base_k=4096
expect 2 "f64.npy" -- "$NPUSIM" run "$T/npy.yaml"
expect 2 "KEY must start with attrs., tiling. or inputs." -- "$NPUSIM" run "$T/mm.yaml" --set foo=1
expect 2 "unknown hardware key 'core.ub_byte'" -- "$NPUSIM" run "$T/mm.yaml" --set hw.core.ub_byte=1
expect 2 "not a bundled config .*ascend910b2" -- "$NPUSIM" run "$T/mm.yaml" --hw nosuch
expect 2 "--mode 'fast' must be full, functional or timing" -- "$NPUSIM" run "$T/mm.yaml" --mode fast
expect 2 "parse.s:1:.*repeat" -- "$NPUSIM" asm "$T/parse.s" --out "$T/o1"
expect 3 "race.*mte2.*vadds" -- "$NPUSIM" asm "$T/race.s" --out "$T/o2"
expect 3 "blocked in wait_flag mte2->v event 1" -- "$NPUSIM" asm "$T/deadlock.s" --out "$T/o3"
# the shipped softmax program with its barrier between the row max and its broadcast removed: a same-pipe hazard
# naming both instructions (isa/README.md "Same-pipe ordering"); a barrier between independent steps is a note
expect 0 "softmax_row on ascend910b2" -- "$NPUSIM" asm "$ROOT/configs/programs/softmax_row.s" --out "$T/sm0"
awk '/^vcmax/ {print; getline; next} {print}' "$ROOT/configs/programs/softmax_row.s" > "$T/softmax_nobarrier.s"
expect 3 "fault \[hazard\]: RAW hazard on aiv0 ub .*vcmax\.f32.* writes; .*vbrcb\.f32.* reads with no pipe_barrier\(v\)" -- \
  "$NPUSIM" asm "$T/softmax_nobarrier.s" --out "$T/sm1"
printf 'vdup.f32 dst=ub:0x0 value=1\npipe_barrier pipe=v\nvdup.f32 dst=ub:0x100 value=2\n' > "$T/redundant.s"
expect 0 "note \[redundant-barrier\]: #1 aiv0 v .*pipe_barrier pipe=v. orders nothing.*vdup" -- "$NPUSIM" asm "$T/redundant.s" --out "$T/sm2"
# eleven redundant barriers: the terminal shows eight and the count, report.json all eleven
for i in $(seq 0 10); do printf 'vdup.f32 dst=ub:0x%x value=1\npipe_barrier pipe=v\n' $((i * 256)); done > "$T/redundant10.s"
expect 0 "note: 3 more notes \(all 11: report.json checks.notes\)" -- "$NPUSIM" asm "$T/redundant10.s" --out "$T/sm4"
expect 0 "11" -- python3 -c "import json; print(len(json.load(open('$T/sm4/report.json'))['checks']['notes']))"
expect 2 "key 'hazards.v' = 'raw,rw' must be a comma-separated list of raw, waw, war" -- \
  "$NPUSIM" asm "$ROOT/configs/programs/softmax_row.s" --set hw.hazards.v=raw,rw --out "$T/sm3"
printf '.gm_bytes 64\n.data gm:0xfffffffffffffff8 f32 1 2 3 4\n' > "$T/wrap.s"
expect 2 "runs past .gm_bytes" -- "$NPUSIM" asm "$T/wrap.s" --out "$T/o4"
expect 2 "--out .* is not a folder" -- "$NPUSIM" run "$T/mm.yaml" --out "$T/mm.yaml"
expect 2 "check runs in full mode" -- "$NPUSIM" check "$T/mm.yaml" --mode timing --out "$T/o5"
# fused_infer_attention_score: broken cases exit 2 naming the parameter, the value and the rule
fia() {  # fia FILE QUERY_SHAPE KV_SHAPE ATTRS [EXTRA INPUT LINES]
  printf 'op: fused_infer_attention_score\nattrs: {%s}\ninputs:\n  query: {shape: %s, dtype: float16}\n  key: {shape: %s, dtype: float16}\n  value: {shape: %s, dtype: float16}\n%b' \
    "$4" "$2" "$3" "$3" "${5:-}" > "$T/$1"
}
fia fia.yaml "[1, 64, 256]" "[1, 128, 256]" "num_heads: 4" "  atten_mask: {shape: [64, 128], dtype: bool}\n"
fia fia_g.yaml "[1, 64, 128, 64]" "[1, 128, 1, 64]" "num_heads: 128, num_key_value_heads: 1, input_layout: BSND"
fia fia_d24.yaml "[1, 64, 96]" "[1, 128, 96]" "num_heads: 4"
fia fia_pa.yaml "[1, 64, 256]" "[2, 128, 256]" "num_heads: 4, block_size: 100, actual_seq_lengths_kv: [200]" \
  "  block_table: {shape: [1, 2], dtype: int32, init: {dist: permutation}}\n"
fia fia_q.yaml "[1, 64, 256]" "[1, 128, 256]" "num_heads: 4" "  quant_scale2: {shape: [1], dtype: float32}\n"
fia fia_q3.yaml "[1, 64, 256]" "[1, 128, 256]" "num_heads: 4" "  quant_scale2: {shape: [3], dtype: float32}\n"
fia fia_s1.yaml "[2, 4, 1, 64]" "[2, 4, 128, 64]" "num_heads: 4, input_layout: BNSD"
fia fia_s1_mask.yaml "[2, 4, 1, 64]" "[2, 4, 128, 64]" "num_heads: 4, input_layout: BNSD" \
  "  atten_mask: {shape: [1, 128], dtype: bool}\n"
fia fia_s1_pa.yaml "[1, 1, 256]" "[2, 600, 256]" "num_heads: 4, block_size: 600, actual_seq_lengths_kv: [200]" \
  "  block_table: {shape: [1, 2], dtype: int32, init: {dist: permutation}}\n"
expect 2 "G = 128 exceeds 64" -- "$NPUSIM" run "$T/fia_g.yaml" --mode timing --out "$T/f1"
expect 2 "inputs.atten_mask has shape \[64, 128\] but sparse_mode 3 needs the compressed mask" -- "$NPUSIM" run "$T/fia.yaml" --set attrs.sparse_mode=3 --out "$T/f2"
expect 2 "inputs.query: head dim D = 24 must be a multiple of 16" -- "$NPUSIM" run "$T/fia_d24.yaml" --out "$T/f3"
expect 2 "attrs.block_size = 100 must be a multiple of 128 in \[128, 512\]" -- "$NPUSIM" run "$T/fia_pa.yaml" --out "$T/f4"
expect 2 "inputs.quant_scale2 has shape \[3\] \(3 elements\) but must have 1 \(per-tensor\) or N \* D = 4 \* 64 = 256" -- "$NPUSIM" run "$T/fia_q3.yaml" --out "$T/f5"
expect 0 "int8 rule: pass" -- "$NPUSIM" check "$T/fia_q.yaml" --out "$T/f5q"
# query S = 1 (the incremental branch): its own rules; sparse_mode / pre / next are ignored there
expect 2 "attrs.input_layout = 'BNSD_BSND' is not supported with query S = 1" -- "$NPUSIM" check "$T/fia_s1.yaml" --set attrs.input_layout=BNSD_BSND --out "$T/f6"
expect 2 "inputs.atten_mask has shape \[1, 128\] but its first dim must be the batch B .*B = 2" -- "$NPUSIM" run "$T/fia_s1_mask.yaml" --out "$T/f9"
expect 2 "attrs.block_size = 600 must be in \[1, 512\] .*query S = 1" -- "$NPUSIM" run "$T/fia_s1_pa.yaml" --out "$T/f10"
expect 2 "attrs.block_size = 0 must be in \[1, 512\]" -- "$NPUSIM" run "$T/fia_s1_pa.yaml" --set attrs.block_size=0 --out "$T/f11"
expect 0 "accuracy: PASS" -- "$NPUSIM" check "$T/fia_s1.yaml" --set attrs.sparse_mode=9 --set attrs.pre_tokens=-5 --set attrs.next_tokens=-5 --out "$T/f12"
expect 2 "attrs.sparse_mode = 6 is not supported by FIA V2" -- "$NPUSIM" run "$T/fia.yaml" --set attrs.sparse_mode=6 --out "$T/f7"
expect 2 "attrs.input_layout = 'TND' is not supported by FIA V2" -- "$NPUSIM" run "$T/fia.yaml" --set attrs.input_layout=TND --out "$T/f8"
expect 0 "matmul" -- "$NPUSIM" ops
expect 0 "ascend910b2 \(default\)" -- "$NPUSIM" hw list
expect 0 "ub_bytes: 131072" -- "$NPUSIM" hw show ascend910b4 --set hw.core.ub_bytes=131072
# hw show keeps each number's provenance (issue 39 item 7): the tag and comment of the line that set it, or the --set
expect 0 "ub_bytes: 131072 +# --set hw.core.ub_bytes=131072" -- "$NPUSIM" hw show ascend910b4 --set hw.core.ub_bytes=131072
expect 0 "clock_mhz: 1500 +# \[DOC\].*\(ascend910b4.yaml:[0-9]+\)" -- "$NPUSIM" hw show ascend910b4
expect 0 "l1_bytes: 524288 +# \[DOC\] 512 KiB \(ascend910b2.yaml:[0-9]+\)" -- "$NPUSIM" hw show ascend910b4
expect 0 "accuracy: PASS" -- "$NPUSIM" check "$T/mm.yaml" --out "$T/chk"
expect 0 "cycles" -- "$NPUSIM" run "$T/mm.yaml" --out "$T/run" --trace --hw ascend910b3 --set tiling.block_dim=1
expect 0 "timing mode" -- "$NPUSIM" run "$T/mm.yaml" --out "$T/tim" --mode timing
expect 0 "cycles" -- "$NPUSIM" run "$T/mm.yaml" --out "$T/cpl" --hw ascend310p3
for f in c.npy report.json resolved.yaml trace.json instructions.csv; do
  if [[ -s "$T/run/$f" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: run did not write $f"; fi
done
if head -c 60 "$T/run/c.npy" | grep -q "'<f2'"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: c.npy is not float16"; fi
if grep -q '"block_dim": 1' "$T/run/report.json" && grep -q '"roofline"' "$T/run/report.json"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: report.json lacks the tiling override or the roofline"; fi
if [[ ! -e "$T/tim/c.npy" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: timing mode wrote outputs"; fi
# resolved.yaml's case section reproduces the run bit for bit
sed -n '/^case:/,$p' "$T/run/resolved.yaml" | tail -n +2 | sed 's/^  //' > "$T/again.yaml"
expect 0 "cycles" -- "$NPUSIM" run "$T/again.yaml" --out "$T/again" --hw ascend910b3
if cmp -s "$T/run/c.npy" "$T/again/c.npy"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: resolved.yaml did not reproduce c.npy"; fi
# Numerics sign-off: inputs saved and replayed bit for bit, check --expect, diff, planted one-bit difference
expect 0 "inputs/, replay.yaml" -- "$NPUSIM" run "$T/mm.yaml" --save-inputs --out "$T/so1"
for f in inputs/a.npy inputs/b.npy replay.yaml; do
  if [[ -s "$T/so1/$f" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --save-inputs did not write $f"; fi
done
expect 0 "cycles" -- "$NPUSIM" run "$T/so1/replay.yaml" --out "$T/so2"
expect 0 "outputs: MATCH" -- "$NPUSIM" diff "$T/so1" "$T/so2"
expect 0 "expected outputs: MATCH" -- "$NPUSIM" check "$T/mm.yaml" --expect "$T/so1" --out "$T/so3"
cp -r "$T/so1" "$T/so1bad"
/usr/bin/python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[-2] ^= 1; open(p, "wb").write(b)' "$T/so1bad/c.npy"
expect 4 "worst  \[39, 49\]: got .* 1 ULP" -- "$NPUSIM" check "$T/mm.yaml" --expect "$T/so1bad" --out "$T/so4"
expect 4 "1999 of 2000 elements bit-exact" -- "$NPUSIM" diff "$T/so1" "$T/so1bad"
expect 4 '"match": false' -- "$NPUSIM" diff "$T/so1" "$T/so1bad" --json
expect 2 "does not exist" -- "$NPUSIM" check "$T/mm.yaml" --expect "$T/nowhere" --out "$T/so5"
# tolerances (issue 39 item 6): the one-ULP difference passes --ulp 1 and --atol, fails --ulp 0; they need a comparison
expect 0 "WITHIN TOLERANCE \(1 differ, all within --ulp 1\)" -- "$NPUSIM" check "$T/mm.yaml" --expect "$T/so1bad" --ulp 1 --out "$T/so4"
expect 0 "expected outputs: MATCH within --ulp 1" -- "$NPUSIM" check "$T/mm.yaml" --expect "$T/so1bad" --ulp 1 --out "$T/so4"
expect 4 "MISMATCH \(1 differ, 1 beyond --ulp 0\)" -- "$NPUSIM" check "$T/mm.yaml" --expect "$T/so1bad" --ulp 0 --out "$T/so4"
expect 0 "all within --atol 0.1" -- "$NPUSIM" diff "$T/so1" "$T/so1bad" --atol 0.1
expect 2 "--ulp / --atol judge a comparison: they need --expect DIR" -- "$NPUSIM" check "$T/mm.yaml" --ulp 2 --out "$T/so4"
expect 2 "--ulp -3 must be 0 or more" -- "$NPUSIM" diff "$T/so1" "$T/so1bad" --ulp -3
# FIA BSH outputs break mismatches down by (b, n): a wrong head is one group, not every (b, s) row
"$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --out "$T/bn1" > /dev/null
mkdir -p "$T/bn2" && /usr/bin/python3 -c 'import numpy as np, sys; a = np.load(sys.argv[1]); a[1, :, 128:192] += 1; np.save(sys.argv[2], a)' \
  "$T/bn1/attention_out.npy" "$T/bn2/attention_out.npy"
expect 4 "by \(b, n\) of BSH as \(B, S, N, D\): 1 of 8 differ; \[1, 2\] 8192;" -- "$NPUSIM" check "$ROOT/configs/cases/fia_bsh_f16.yaml" --expect "$T/bn2" --out "$T/bn3"
expect 4 "by \(b, n\) of BSH as \(B, S, N, D\): 1 of 8 differ; \[1, 2\] 8192;" -- "$NPUSIM" diff "$T/bn1" "$T/bn2"
# FIA antiquant: the combined parameters given beside the separated ones are not read (the separated win, spec §1.6):
# the paged case runs bit for bit as without them, whatever they hold
"$NPUSIM" run "$ROOT/configs/cases/fia_antiquant_paged.yaml" --out "$T/aq1" > /dev/null
sed 's/^inputs:$/inputs:\n  antiquant_scale:  {shape: [2, 256], dtype: float16, init: {dist: uniform, low: 5, high: 9, seed: 1}}\n  antiquant_offset: {shape: [2, 256], dtype: float16, init: {dist: uniform, low: -9, high: 9, seed: 2}}/' \
  "$ROOT/configs/cases/fia_antiquant_paged.yaml" > "$T/aq_both.yaml"
"$NPUSIM" run "$T/aq_both.yaml" --out "$T/aq2" > /dev/null
expect 0 "outputs: MATCH" -- "$NPUSIM" diff "$T/aq1" "$T/aq2"
# diff against a folder of .npy files without report.json (a board dump, torch_npu saved with numpy)
mkdir -p "$T/npydir" && cp "$T/so1bad/c.npy" "$T/npydir/"
expect 4 "1999 of 2000 elements bit-exact" -- "$NPUSIM" diff "$T/so1" "$T/npydir"
if "$NPUSIM" diff "$T/so1" "$T/npydir" --json 2>/dev/null | grep -q '"report"'; then fail=$((fail + 1)); echo "FAIL: diff printed report rows for a folder without report.json"; else pass=$((pass + 1)); fi
mkdir -p "$T/empty"
expect 2 "holds neither report.json nor .npy files" -- "$NPUSIM" diff "$T/so1" "$T/empty"
expect 0 '"ratio"' -- "$NPUSIM" check "$T/mm.yaml" --json --out "$T/so6"
if /usr/bin/python3 -c 'import numpy, yaml' 2>/dev/null; then
  expect 0 "c.npy: float32 \[40, 50\]" -- "$ROOT/tools/numpy_reference.py" "$T/so1"
  expect 4 "vs expected" -- "$NPUSIM" check "$T/mm.yaml" --expect "$T/so1/numpy_ref" --out "$T/so7"
  # FIA against the numpy reference (issue 39 item 6): masks (modes 0-4, per-batch planes, a decode (B, Skv) mask),
  # KV lengths, paged caches, the prefix, tensor lists, pse and softmax_lse agree within 0.01 of outputs up to ~2
  # (a wrong mask row, page or list order is 0.1 or more off: the decode mask read as one plane was 0.14)
  for c in fia_decode_mask fia_decode_actual_lengths_kv fia_decode_paged_bsh fia_paged_bnbsd fia_prefix fia_tensor_list \
           fia_pse fia_softmax_lse fia_band_sparse4 fia_mask_int8_batch fia_pre_next_mode0; do
    "$NPUSIM" run "$ROOT/configs/cases/$c.yaml" --save-inputs --out "$T/nr_$c" > /dev/null
    "$ROOT/tools/numpy_reference.py" "$T/nr_$c" > /dev/null
    expect 0 "expected outputs: MATCH within" -- "$NPUSIM" check "$ROOT/configs/cases/$c.yaml" --expect "$T/nr_$c/numpy_ref" --atol 0.01 --out "$T/nrc_$c"
  done
  # what it does not compute is refused by name (exit 2), never a reference that ignores an input
  "$NPUSIM" run "$ROOT/configs/cases/fia_left_padding.yaml" --save-inputs --out "$T/nr1" > /dev/null
  expect 2 "inputs.(query|kv)_padding_size is not covered" -- "$ROOT/tools/numpy_reference.py" "$T/nr1"
  "$NPUSIM" run "$ROOT/configs/cases/fia_antiquant_per_tensor.yaml" --save-inputs --out "$T/nr2" > /dev/null
  expect 2 "is not covered" -- "$ROOT/tools/numpy_reference.py" "$T/nr2"
  # FA V3 against an independent numpy implementation: the row statistics of every row agree within a few ULP
  # (a wrong band, segment order or [n][i][8] layout would put them thousands of ULP apart)
  "$NPUSIM" run "$ROOT/configs/cases/fa_varlen_sparse7.yaml" --save-inputs --out "$T/fa_np" > /dev/null
  "$ROOT/tools/numpy_reference.py" "$T/fa_np" > /dev/null
  "$NPUSIM" check "$ROOT/configs/cases/fa_varlen_sparse7.yaml" --expect "$T/fa_np/numpy_ref" --json --out "$T/fa_np2" > "$T/fa_np.json"
  if /usr/bin/python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
w = {e["output"]: e.get("worst", {}).get("ulp", 0) for e in j["expect"]}
sys.exit(0 if 0 <= w["softmax_max"] <= 64 and 0 <= w["softmax_sum"] <= 64 else 1)' "$T/fa_np.json"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: FA V3 statistics differ from the numpy reference by more than 64 ULP"; fi
fi
# Sweeps: points in parallel processes, invalid points recorded, numbers equal single runs, resume, tasks + collect
cat > "$T/sw.yaml" <<'Y'
case: mm.yaml
mode: timing
axes:
  tiling.base_m: [16, 32]
  tiling.base_n: [16, 4096]
Y
expect 0 "sweep: 4 points, 2 ok" -- "$NPUSIM" sweep "$T/sw.yaml" --jobs 2 --out "$T/sw"
lines() { wc -l < "$1" | tr -d ' '; }
if [[ $(lines "$T/sw/results.jsonl") == 4 ]] && grep -q '"status":"invalid"' "$T/sw/results.jsonl" &&
   grep -q 'tiling.base_n = 4096 must be in' "$T/sw/results.jsonl" && [[ -s "$T/sw/results.csv" ]] &&
   grep -q "## The default tiling" "$T/sw/summary.md"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: sweep results"; fi
single=$("$NPUSIM" run "$T/mm.yaml" --mode timing --set tiling.base_m=32 --set tiling.base_n=16 --out "$T/sw_one" | sed -nE 's/.*: ([0-9]+) cycles.*/\1/p')
if grep '"point":{"tiling.base_m":32,"tiling.base_n":16}' "$T/sw/results.jsonl" | grep -q "\"cycles\":$single,"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: the sweep point's cycles differ from npusim run's ($single)"; fi
expect 2 "already holds results.jsonl" -- "$NPUSIM" sweep "$T/sw.yaml" --out "$T/sw"
head -n 3 "$T/sw/results.jsonl" > "$T/sw/r3" && mv "$T/sw/r3" "$T/sw/results.jsonl"
expect 0 "3 already done" -- "$NPUSIM" sweep "$T/sw.yaml" --resume --out "$T/sw"
if [[ $(lines "$T/sw/results.jsonl") == 4 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --resume did not complete the sweep"; fi
expect 0 "commands in" -- "$NPUSIM" sweep "$T/sw.yaml" --emit-tasks "$T/tasks.txt" --out "$T/sw2"
if command -v parallel > /dev/null; then parallel --will-cite --jobs 2 < "$T/tasks.txt"; else bash "$T/tasks.txt"; fi
expect 0 "sweep: 4 points, 2 ok" -- "$NPUSIM" sweep --collect "$T/sw2"
printf 'case: mm.yaml\naxes: {tiling.base_m: [16]}\nbogus: 1\n' > "$T/sw_bad.yaml"
expect 2 "sw_bad.yaml:3: unknown key 'bogus'" -- "$NPUSIM" sweep "$T/sw_bad.yaml" --out "$T/sw3"
printf 'case: mm.yaml\naxes: {inputs.a.dtype: [int8]}\n' > "$T/sw_bad2.yaml"
expect 2 "axes.inputs.a.dtype: an axis key starts with tiling., attrs. or hw., or is inputs.NAME.shape" -- "$NPUSIM" sweep "$T/sw_bad2.yaml" --out "$T/sw4"
# axis keys are checked before any point runs (issue 39 item 3); a sweep with no successful point fails with the first error
printf 'case: mm.yaml\naxes: {tiling.base_nn: [16, 32]}\n' > "$T/sw_typo.yaml"
expect 2 "axes.tiling.base_nn: 'base_nn' is not a tiling key of op matmul \(valid: base_m, base_n" -- "$NPUSIM" sweep "$T/sw_typo.yaml" --out "$T/sw6"
[[ ! -e "$T/sw6/points" ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the typo sweep ran points"; }
printf 'case: mm.yaml\naxes: {hw.core.ub_byte: [131072]}\n' > "$T/sw_typo_hw.yaml"
expect 2 "axes.hw.core.ub_byte: 'core.ub_byte' is not a hardware key of the config \(valid: .*core.ub_bytes" -- "$NPUSIM" sweep "$T/sw_typo_hw.yaml" --out "$T/sw7"
printf 'case: mm.yaml\naxes: {inputs.c.shape: [[4, 4]]}\n' > "$T/sw_typo_in.yaml"
expect 2 "axes.inputs.c.shape: the case has no input 'c' \(inputs: a, b\)" -- "$NPUSIM" sweep "$T/sw_typo_in.yaml" --out "$T/sw8"
printf 'case: mm.yaml\naxes: {tiling.base_n: [4096, 8192]}\n' > "$T/sw_none.yaml"
expect 2 "no point succeeded; the first \(\{\"tiling.base_n\":4096\}\): tiling.base_n = 4096 must be in" -- "$NPUSIM" sweep "$T/sw_none.yaml" --out "$T/sw9"
# shape axes: A and B of the matmul together (zip), each point's shapes as npusim run --set gives them
printf 'case: mm.yaml\nsampling: zip\naxes:\n  inputs.a.shape: [[64, 32], [128, 32]]\n  inputs.b.shape: [[32, 48], [32, 96]]\n' > "$T/sw_shape.yaml"
expect 0 "sweep: 2 points, 2 ok" -- "$NPUSIM" sweep "$T/sw_shape.yaml" --out "$T/sw5"
one=$("$NPUSIM" run "$T/mm.yaml" --mode timing --set 'inputs.a.shape=[128, 32]' --set 'inputs.b.shape=[32, 96]' --out "$T/sw5_one" | sed -nE 's/.*: ([0-9]+) cycles.*/\1/p')
if grep '"inputs.a.shape":"\[128, 32\]"' "$T/sw5/results.jsonl" | grep -q "\"cycles\":$one,"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: the shape-axis point's cycles differ from npusim run's ($one)"; fi
expect 2 "inputs.c is not an input of the case \(inputs: a, b\)" -- "$NPUSIM" run "$T/mm.yaml" --set 'inputs.c.shape=[4]' --out "$T/sw6"
# Tune: coordinate descent from the default tiling; best.yaml reproduces the best point and is no worse
expect 0 "tune: [0-9]+ runs" -- "$NPUSIM" tune "$T/mm.yaml" --budget 12 --jobs 2 --out "$T/tu"
best=$(sed -nE 's/.*"cycles": *([0-9]+).*/\1/p' "$T/tu/default.json" | head -1)
tuned=$("$NPUSIM" run "$T/tu/best.yaml" --mode timing --out "$T/tu_best" | sed -nE 's/.*: ([0-9]+) cycles.*/\1/p')
if [[ -n "$tuned" && -n "$best" && $tuned -le $best ]] && grep -q "## The default tiling" "$T/tu/summary.md" &&
   [[ $(wc -l < "$T/tu/results.jsonl") -le 11 ]]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: tune: best.yaml $tuned cycles vs default $best, or summary / budget"; fi
expect 2 "budget 1 must be >= 2" -- "$NPUSIM" tune "$T/mm.yaml" --budget 1 --out "$T/tu2"
# Tuning an attention case (issue 39 item 1): candidates the op refuses are planned, never run (the old search held
# the L0 split while it doubled s1_block and ran 22 invalid points of 40 on the Llama prompt)
expect 0 "tune: 16 runs \([0-9]+ tilings planned, [1-9][0-9]* refused without a run\)" -- "$NPUSIM" tune "$ROOT/configs/cases/fia_bsh_f16.yaml" --budget 16 --jobs 2 --out "$T/tu3"
if ! grep -q '"status":"invalid"' "$T/tu3/results.jsonl" && grep -q "refused by the op's plan check" "$T/tu3/summary.md" &&
   [[ $(wc -l < "$T/tu3/results.jsonl") -eq 15 ]]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: tune ran an invalid point, or its summary has no search section"; fi
# --plan-only: the op's checks and tiling, nothing simulated, no files; keys left to the default rules adapt to the
# keys a case sets (s1_block 512 lowers the fp16 s2_block default until L1 fits; it exited 2 before)
expect 0 "plan OK \(nothing simulated\); tiling s1_block 512, s2_block 128," -- "$NPUSIM" run "$ROOT/configs/cases/fia_inner_precise_hp.yaml" --plan-only --set tiling.s1_block=512 --out "$T/plan1"
[[ ! -e "$T/plan1" ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: --plan-only wrote $T/plan1"; }
expect 2 "tiling: s1_block = 256, s2_block = 128 with D = 512: L1 .* needs 589824 bytes" -- "$NPUSIM" run "$ROOT/configs/cases/fia_d512.yaml" --plan-only --set tiling.s1_block=256
expect 0 "tiling .*preload 1, .*kv_buffers 2" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --plan-only --set tiling.preload=1
expect 0 "tiling .*preload 1, .*kv_buffers 1" -- "$NPUSIM" run "$ROOT/configs/cases/fa_varlen_rope_causal.yaml" --plan-only --set tiling.kv_buffers=1
# default tilings that fill the cores and even the blocks (issue 39 item 2): 8 units of 128 rows on 24 cores became 24
# of 48 (14,303 -> 8,784 cycles, the grid's best); 4,096 KV over 8 decode splits in 256-column blocks, two per split
expect 0 "tiling s1_block 48, s2_block 128, .*block_dim 24," -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --plan-only
expect 0 "tiling s1_block 16, s2_block 256, .*kv_splits 8," -- "$NPUSIM" run "$ROOT/configs/cases/fia_decode_flash_decoding.yaml" --plan-only
expect 0 "l0_k_step .*adapts to s1_block, l0_n_sub as the case sets them" -- "$NPUSIM" ops fused_infer_attention_score --tiling
# FlashAttentionVarLenScoreV3 from a case file: check passes, its rules and tiling limits exit 2 naming them
FA="$ROOT/configs/cases/fa_varlen_zero_length.yaml"
expect 0 "accuracy: PASS" -- "$NPUSIM" check "$FA" --out "$T/fa1"
grep -v key_rope "$ROOT/configs/cases/fa_varlen_rope_causal.yaml" > "$T/fa_norope_k.yaml"
expect 2 "inputs.key_rope is missing" -- "$NPUSIM" run "$T/fa_norope_k.yaml" --out "$T/fa2"
expect 2 "attrs.sparse_mode = 5 .*variable-length" -- "$NPUSIM" run "$FA" --set attrs.sparse_mode=5 --out "$T/fa3"
expect 2 "attrs.actual_seq_kvlen ends at 250 but inputs.key has T = 260" -- "$NPUSIM" run "$FA" --set "attrs.actual_seq_kvlen=[90,150,150,250]" --out "$T/fa4"
expect 2 "tiling: s1_block = 16, s2_block = 1024 .*L1" -- "$NPUSIM" run "$ROOT/configs/cases/fa_varlen_dv_lt_d.yaml" --set tiling.s2_block=1024 --mode timing --out "$T/fa5"
# The attention kernels' L0 split is a declared tiling key (issue 12: L0 what-ifs with a pinned tiling): its rules.
expect 2 "tiling.l0_k_step = 512: two L0A slices of 128 cube rows need 262144 bytes but hw.core.l0a_bytes = 65536" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --set tiling.s1_block=128 --set tiling.l0_k_step=512 --mode timing --out "$T/l0a"
expect 2 "tiling.l0_n_sub = 512: two L0C halves of 128 x 512 fp32 need 524288 bytes but hw.core.l0c_bytes = 131072" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --set tiling.s1_block=128 --set tiling.l0_k_step=16 --set tiling.l0_n_sub=512 --mode timing --out "$T/l0c"
expect 2 "tiling.l0_k_step = 48 must be a multiple of 32" -- "$NPUSIM" run "$ROOT/configs/cases/fia_decode_antiquant_per_channel.yaml" --set tiling.l0_k_step=48 --mode timing --out "$T/l0k"
expect 0 "cycles" -- "$NPUSIM" run "$ROOT/configs/cases/fa_varlen_rope_causal.yaml" --set tiling.l0_k_step=64 --set tiling.l0_n_sub=64 --mode timing --out "$T/l0ok"
expect 0 "flash_attention_var_len_score" -- "$NPUSIM" ops
for f in attention_out.npy softmax_max.npy softmax_sum.npy; do
  if [[ -s "$T/fa1/$f" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: FA check did not write $f"; fi
done
# What a new user hit (issue 17): each a regression
expect 2 "--trace-window '5:1' is empty: FROM \(5\) must be below TO \(1\)" -- "$NPUSIM" run "$T/mm.yaml" --trace --trace-window 5:1 --out "$T/u1"
expect 2 "--trace-window '-3:9' must be FROM:TO" -- "$NPUSIM" run "$T/mm.yaml" --trace --trace-window -3:9 --out "$T/u1"
printf 'op: matmul\nattrs: {out_dtype: float32, out_dtype: float16}\ninputs:\n  a: {shape: [4, 4], dtype: float16}\n  b: {shape: [4, 4], dtype: float16}\n' > "$T/dup.yaml"
expect 2 "dup.yaml:2: key 'attrs.out_dtype' appears twice \(first at line 2\)" -- "$NPUSIM" run "$T/dup.yaml" --out "$T/u2"
printf 'op: matmul\ninputs:\n  a: {shape: [4, 4], dtype: float16}\n  b: {shape: [4, 4], dtype: float16}\ninputs:\n  a: {shape: [8, 8], dtype: float16}\n' > "$T/dup2.yaml"
expect 2 "dup2.yaml:5: key 'inputs' appears twice \(first at line 2\)" -- "$NPUSIM" run "$T/dup2.yaml" --out "$T/u2"
printf 'base: ascend910b2\nchip:\n  ai_cores: 20\nchip:\n  ai_cores: 4\n' > "$T/dup_hw.yaml"
expect 2 "dup_hw.yaml:4: key 'chip' appears twice" -- "$NPUSIM" hw show "$T/dup_hw.yaml"
printf 'case: mm.yaml\naxes: {tiling.base_m: [16], tiling.base_m: [32]}\n' > "$T/dup_sw.yaml"
expect 2 "dup_sw.yaml:2: key 'axes.tiling.base_m' appears twice" -- "$NPUSIM" sweep "$T/dup_sw.yaml" --out "$T/u3"
expect 2 "^npusim run: --set 'attrs.transpose_a=maybe': attrs.transpose_a = 'maybe' must be true or false" -- "$NPUSIM" run "$T/mm.yaml" --set attrs.transpose_a=maybe --out "$T/u4"
printf 'op: matmul\ninputs:\n  a: {shape: [4, 4], dtype: float16, init: {dist: normal, std: 1.0e6}}\n  b: {shape: [4, 4], dtype: float16}\n' > "$T/big_std.yaml"
expect 2 "inputs.a.init: dist normal reaches .* beyond the largest float16 \(65504\)" -- "$NPUSIM" run "$T/big_std.yaml" --out "$T/u5"
sed 's/block_table: {shape: \[3, 8\], dtype: int32, init: {dist: permutation, seed: 1074}}/block_table: {shape: [3, 8], dtype: int32, init: {dist: uniform, low: 90, high: 99, seed: 1}}/' \
  "$ROOT/configs/cases/fia_decode_paged_bsh.yaml" > "$T/bad_table.yaml"
expect 3 "block_table\[0\]\[0\] = 9[0-9] is not a block of the paged cache \(block_num 24\)" -- "$NPUSIM" run "$T/bad_table.yaml" --out "$T/u6"
out="$("$NPUSIM" run "$T/bad_table.yaml" --out "$T/u6" 2>/dev/null)"
if grep -q "stopped by a fault" <<<"$out" && ! grep -qE "TFLOPS|^outputs" <<<"$out" && [[ ! -e "$T/u6/attention_out.npy" ]]; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: a faulted run printed a rate or outputs: $out"; fi
expect 2 "over the host-memory budget of 1024 \(--host-memory" -- "$NPUSIM" run "$T/mm.yaml" --host-memory 1K --out "$T/u7"
expect 2 "inputs hold 5940 bytes \(largest: b 3300, a 2640\)" -- "$NPUSIM" run "$T/mm.yaml" --host-memory 1K --out "$T/u7"
expect 0 "cycles" -- "$NPUSIM" run "$T/mm.yaml" --host-memory 1K --mode timing --out "$T/u7"
expect 2 "--host-memory '12X' must be a byte count" -- "$NPUSIM" run "$T/mm.yaml" --host-memory 12X --out "$T/u7"
printf 'op: matmul\ninputs:\n  a: {shape: [262144, 65536], dtype: float16}\n  b: {shape: [65536, 64], dtype: float16}\n' > "$T/huge.yaml"
expect 2 "inputs hold 34368126976 bytes \(largest: .*\); --mode full keeps them on the host and in GM" -- "$NPUSIM" run "$T/huge.yaml" --host-memory 16G --out "$T/u8"
# found by fuzz_hw: a non-scalar base: was an uncaught yaml-cpp conversion (exit 1)
printf 'base: [a, b]\nname: x\n' > "$T/bad_base.yaml"
expect 2 "bad_base.yaml:1: 'base' must be a bundled config name or a file path" -- "$NPUSIM" hw show "$T/bad_base.yaml"
printf 'case: mm.yaml\naxes: {tiling.base_m: {range: [16, 100000000000, 16]}}\n' > "$T/sw_huge.yaml"
expect 2 "range = \[16, 100000000000, 16\] has more than 1000000 values" -- "$NPUSIM" sweep "$T/sw_huge.yaml" --out "$T/u10"
printf 'case: mm.yaml\naxes: {tiling.base_m: [16, 32]}\nsampling: {random: {count: lots}}\n' > "$T/sw_rand.yaml"
expect 2 "sampling.random.count must be an integer" -- "$NPUSIM" sweep "$T/sw_rand.yaml" --out "$T/u11"
printf 'base: ascend910b2\n? [a]\n: 1\n' > "$T/bad_key_hw.yaml"
expect 2 "bad_key_hw.yaml:2: a hardware key must be a name" -- "$NPUSIM" hw show "$T/bad_key_hw.yaml"
# found by fuzz_hw: a base: name longer than the OS allows threw std::filesystem_error (exit 1)
printf 'base: %s\n' "$(head -c 5000 /dev/zero | tr '\0' a)" > "$T/long_base.yaml"
expect 2 "is not a bundled config" -- "$NPUSIM" hw show "$T/long_base.yaml"
# found by fuzz_hw: base: naming a directory threw an ios failure (exit 1)
printf 'base: /\n' > "$T/dir_base.yaml"
expect 2 "hardware config '/' is a directory" -- "$NPUSIM" hw show "$T/dir_base.yaml"
expect 2 "sweep file .* is a directory" -- "$NPUSIM" sweep "$T" --out "$T/u12"
# devices are not files: /dev/zero used to be read forever
printf 'base: /dev/zero\n' > "$T/dev_base.yaml"
expect 2 "hardware config '/dev/zero' is not a regular file" -- "$NPUSIM" hw show "$T/dev_base.yaml"
printf 'op: matmul\ninputs:\n  a: {file: /dev/zero, dtype: float16}\n  b: {shape: [2, 2], dtype: float16}\n' > "$T/dev_npy.yaml"
expect 2 "/dev/zero: is not a regular file" -- "$NPUSIM" run "$T/dev_npy.yaml" --out "$T/u13"
expect 2 "program file '/dev/zero' is not a regular file" -- "$NPUSIM" asm /dev/zero --out "$T/u14"
expect 2 "not a regular file" -- "$NPUSIM" run /dev/zero --out "$T/u15"
# a tiling value the kernel lowers is reported as such (report.json tiling_clamped)
"$NPUSIM" run "$ROOT/configs/cases/fia_decode_bsh_f16.yaml" --mode timing --set tiling.kv_splits=64 --out "$T/u16" > /dev/null 2>&1
if grep -q '"tiling_clamped"' "$T/u16/report.json" && grep -q 'requested 64, used per batch' "$T/u16/report.json"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: kv_splits=64 not reported as clamped"; fi
# the instruction count of the summary equals the rows of instructions.csv (scalar instructions that took no
# simulated time used to have no row: 61,680 counted against 61,488 rows on an FIA prompt case)
n_sum=$("$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --mode timing --trace --out "$T/u9" | sed -nE 's/.* ([0-9]+) instructions.*/\1/p')
n_csv=$(($(wc -l < "$T/u9/instructions.csv") - 1))
if [[ -n "$n_sum" && "$n_sum" -eq "$n_csv" ]]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: $n_sum instructions counted, $n_csv rows in instructions.csv"; fi
# npusim report: a run folder with a trace (u9) and a sweep folder (sw) as HTML with inline SVG
expect 0 "run report, timeline [0-9]+ cores, [0-9]+ lanes" -- "$NPUSIM" report "$T/u9"
if grep -q '<svg id="utilisation"' "$T/u9/report.html" && grep -q '<svg id="roofline"' "$T/u9/report.html" &&
   [[ $(sed -n '/<svg id="timeline"/,/<\/svg>/p' "$T/u9/report.html" | grep -c '<rect') -gt 50 ]]; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: the run report lacks a chart"; fi
expect 0 "sweep report, 4 points, heatmap 4 cells" -- "$NPUSIM" report "$T/sw" --out "$T/sw.html"
if [[ $(sed -n '/<svg id="heatmap"/,/<\/svg>/p' "$T/sw.html" | grep -c '<rect') -eq 4 ]] && grep -q '<svg id="ranked"' "$T/sw.html"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: the sweep report's heatmap is not 2 x 2"; fi
# issue 39 item 7: the sweep report names the default tiling and its rank, its heatmap shows the two axes that move
# the objective most (on the FIA prompt sweep: s1_block and s2_block, not preload), the roofline's ticks are distinct
expect 0 "sweep: 12 points, 12 ok" -- "$NPUSIM" sweep "$ROOT/configs/sweeps/fia_prompt_tiling.yaml" --jobs 2 --out "$T/swf"
expect 0 "sweep report, 12 points, heatmap 6 cells" -- "$NPUSIM" report "$T/swf"
if grep -q '<th>default tiling</th><td>rank [0-9]* of 13 (cycles [0-9]*, best / default' "$T/swf/report.html" &&
   grep -q 'tiling.s2_block (columns) x tiling.s1_block (rows)' "$T/swf/report.html"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: the sweep report lacks the default tiling's rank or its heatmap is not s2_block x s1_block"; fi
ticks=$(sed -n '/<svg id="roofline"/,/<\/svg>/p' "$T/u9/report.html" | grep -o 'font-size="10">[^<]*<' | grep -v 'roof\|%' | sort)
[[ -n "$ticks" && $(uniq -d <<<"$ticks" | wc -l) -eq 0 ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: repeated roofline ticks: $ticks"; }
# the stage spans, counter tracks and per-core summary; the gzip trace holds the same events and the report reads it
expect 0 "stages" -- "$NPUSIM" report "$T/u9"
if grep -q 'id=pipe-summary' "$T/u9/report.html" && grep -q '<table id=stages><tr>.*<td>C1</td>' "$T/u9/report.html" && grep -q '"pipe_summary"' "$T/u9/report.json" &&
   grep -q '"cat":"stage","ph":"b"' "$T/u9/trace.json" && grep -q '"name":"queue depth"' "$T/u9/trace.json" &&
   grep -q '"GM traffic (B/cycle)"' "$T/u9/trace.json" && grep -q ',C1 u0 b0$' "$T/u9/instructions.csv"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: the trace lacks stage spans / counters or the report its summary"; fi
# report.json finish_balance (issue 36 item 2): max / mean over the AI cores of each one's last end_cycle
expect 0 "finish balance ok" -- python3 -c "
import json
r = json.load(open('$T/u9/report.json')); f = {}
for n, c in r['pipe_summary']['per_core'].items():
    i = int(n[3:]); k = i // 2 if n.startswith('aiv') else i; f[k] = max(f.get(k, 0), c['end_cycle'])
b = r['finish_balance']; mean = sum(f.values()) / len(f)
ok = b['ai_cores'] == len(f) and b['max_finish_cycle'] == max(f.values()) and abs(b['ratio'] - max(f.values()) / mean) < 1e-9
print('finish balance', 'ok' if ok and b['ratio'] >= 1 else 'WRONG', b)"
expect 0 "trace.json.gz" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --mode timing --trace --trace-gzip --out "$T/u9"
if [[ ! -e "$T/u9/trace.json" && -s "$T/u9/trace.json.gz" ]] && zcat "$T/u9/instructions.csv.gz" | sed -n 1p | grep -q ',stage$' &&
   [[ $(zcat "$T/u9/trace.json.gz" | grep -c '"ph":"X"') -eq $n_sum ]]; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --trace-gzip did not replace trace.json by a complete trace.json.gz"; fi
expect 0 "timeline [0-9]+ cores, .* [1-9][0-9]* stages" -- "$NPUSIM" report "$T/u9"
# Measured chip-wide rates may be fractional (issue 39 item 7: 412.5 was refused as not an integer); a core's pipe
# rates stay integers
expect 0 "cycles" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --mode timing --set hw.hbm.bytes_per_cycle=412.5 --set hw.l2.fill_bytes_per_cycle=510.75 --out "$T/frac"
expect 2 "mte2.port_bytes_per_cycle.*is not an integer" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --mode timing --set hw.mte2.port_bytes_per_cycle=12.5 --out "$T/frac2"
# Traces at real sizes (issue 39 item 4): over --trace-max-bytes the run says how large the trace would be and what
# shrinks it, writes nothing past the limit and removes the partial files; the report's timeline spans the window
expect 2 "--trace: the trace would take about [0-9]+ MiB \(trace.json [0-9]+ MiB, instructions.csv [0-9]+ MiB\), over --trace-max-bytes 64K .*--trace-gzip .*--trace-cores .*--trace-window" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --mode timing --trace --trace-max-bytes 64K --out "$T/u10"
[[ -s "$T/u10/report.json" && ! -e "$T/u10/trace.json" && ! -e "$T/u10/instructions.csv" ]] && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: a trace over its limit left files behind or no report.json"; }
expect 2 "--trace-max-bytes '12X' must be a byte count" -- "$NPUSIM" run "$T/mm.yaml" --trace --trace-max-bytes 12X --out "$T/u11"
expect 0 "cycles" -- "$NPUSIM" run "$ROOT/configs/cases/fia_bsh_f16.yaml" --mode timing --trace --trace-window 2000:6000 --out "$T/u12"
"$NPUSIM" report "$T/u12" > /dev/null
if grep -q '>2000 cyc<' "$T/u12/report.html" && grep -q '>6000 cyc<' "$T/u12/report.html"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: the timeline of a --trace-window trace does not span the window 2000:6000"; fi
expect 2 "--trace-counters -1 must be 0 \(no counter tracks\) or a window of at least 1 cycle" -- "$NPUSIM" run "$T/mm.yaml" --trace --trace-counters -1 --out "$T/u1"
expect 2 "holds neither report.json .* nor results.jsonl" -- "$NPUSIM" report "$T"
expect 2 "--x tiling.bogus is not an axis of this sweep .*axes: tiling" -- "$NPUSIM" report "$T/sw" --x tiling.bogus
expect 2 "--objective speed is not one of cycles" -- "$NPUSIM" report "$T/sw" --objective speed
# Bring your own PTO kernel (issue 37): build, run, check; an instruction outside the subset fails to compile naming
# it; a misused instruction exits 2 naming it and its source line; libraries given as source are cached by content
export NPUSIM_CACHE_DIR="$T/cache"
expect 0 "$T/g.so" -- "$NPUSIM" pto build "$ROOT/kernels/pto/examples/gemm.cpp" --core cube --out "$T/g.so"
sed "s#library: gemm.cpp#library: $T/g.so#" "$ROOT/kernels/pto/examples/gemm_512.yaml" > "$T/pto_gemm.yaml"
expect 0 "accuracy: PASS" -- "$NPUSIM" check "$T/pto_gemm.yaml" --out "$T/pg"
expect 0 "accuracy: PASS" -- "$NPUSIM" check "$ROOT/kernels/pto/examples/gemm_512.yaml" --out "$T/pg2"
expect 0 "accuracy: PASS" -- "$NPUSIM" check "$ROOT/kernels/pto/examples/flash_attention.yaml" --out "$T/pfa"
expect 0 "sweep: 3 points, 3 ok" -- "$NPUSIM" sweep "$ROOT/kernels/pto/examples/gemm_sweep.yaml" --jobs 2 --out "$T/psw"
expect 2 "entry 'gemm' was built for the cube cores but runs on the vector cores" -- "$NPUSIM" run "$T/pto_gemm.yaml" --set attrs.cores=vector --out "$T/pg3"
expect 2 "attrs.args must list the 6 arguments of entry 'gemm' in order \(signature pppuuu" -- "$NPUSIM" run "$T/pto_gemm.yaml" --set 'attrs.args=[c, a, b]' --out "$T/pg4"
printf '#include <pto/pto-inst.hpp>\nusing namespace pto;\n__global__ AICORE void k(__gm__ float* x) {\n  Tile<TileType::Vec, float, 8, 8> t;\n  TGATHER(t, t);\n}\nNPUSIM_PTO_ENTRY(k, k);\n' > "$T/unsupported.cpp"
expect 2 "TGATHER. was not declared in this scope" -- "$NPUSIM" pto build "$T/unsupported.cpp" --out "$T/u.so"
printf '#include <pto/pto-inst.hpp>\nusing namespace pto;\n__global__ AICORE void k(__gm__ half* x) {\n  Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor> m;\n  TileLeft<half, 16, 16> l;\n  TASSIGN(m, 0), TASSIGN(l, 0);\n  TEXTRACT(l, m, 8, 0);\n}\nNPUSIM_PTO_ENTRY(k, k);\n' > "$T/misuse.cpp"
printf 'op: pto\nattrs: {library: misuse.cpp, entry: k, cores: cube, args: [x], outputs: {x: {dtype: float16, shape: [16]}}}\n' > "$T/misuse.yaml"
expect 2 "PTO TEXTRACT at misuse.cpp:7: the window must start and end on fractals" -- "$NPUSIM" run "$T/misuse.yaml" --out "$T/pm"
printf 'op: pto\nattrs: {library: misuse.cpp, entry: k, cores: cube, args: [[x]], outputs: {x: {dtype: float16, shape: [a, 2]}}}\n' > "$T/badpto.yaml"
expect 2 "attrs.outputs.x.shape: dimensions must be integers >= 1, got 'a'" -- "$NPUSIM" run "$T/badpto.yaml" --out "$T/pb"
sed 's/shape: \[a, 2\]/shape: [16]/' "$T/badpto.yaml" > "$T/badpto2.yaml"
expect 2 "attrs.args\[0\] must be a tensor name or a number, not a list or map" -- "$NPUSIM" run "$T/badpto2.yaml" --out "$T/pb"
expect 2 "check: the case gives no reference for its outputs \(op pto: attrs.reference" -- "$NPUSIM" check "$ROOT/kernels/pto/examples/softmax.yaml" --out "$T/psm"
expect 2 "expected 'pto build KERNEL.cpp --out KERNEL.so'" -- "$NPUSIM" pto make "$T/unsupported.cpp"
expect 0 "private_statics" -- "$NPUSIM" ops pto
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
