#!/usr/bin/env bash
# npusim sweep --slurm against a real one-node Slurm cluster that this script starts and stops itself (Debian
# slurm-wlm + munge, no systemd): munged, slurmctld and slurmd on loopback under one temp directory. The array
# job's collected results must equal a local sweep point for point. Usage: test_slurm.sh NPUSIM REPO_ROOT
# (registered under -DNPUSIM_SLURM_TESTS=ON, which tools/test.sh sets; exit 77, skipped, without the daemons).
set -uo pipefail
NPUSIM="$(realpath "$1")"; ROOT="$(realpath "$2")"
for b in munged slurmctld slurmd sbatch squeue; do
  if ! command -v "$b" > /dev/null && [[ ! -x /usr/sbin/$b ]]; then
    echo "SKIPPED: $b not installed (tools/install-deps.sh --slurm)"; exit 77  # ctest: skipped, which CI refuses
  fi
done
export PATH="$PATH:/usr/sbin"
T="$(mktemp -d /tmp/npusim-slurm-XXXXXX)"; chmod 0755 "$T"
HOST="$(hostname -s)"
pids=()
cleanup() {
  [[ -n "${JOB:-}" ]] && scancel "$JOB" > /dev/null 2>&1
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$T"/*.log "$T"/sw/slurm/*.log; do [[ -f $f ]] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }

# munge: its own key (0400), socket directory 0755
mkdir -p "$T/munge" "$T/state" "$T/spool"; chmod 0755 "$T/munge"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 status=none; chmod 0400 "$T/munge.key"
munged --force --socket="$T/munge/socket" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munged.seed" || fail "munged did not start"
pids+=("$(cat "$T/munged.pid")")
cat > "$T/slurm.conf" <<CONF
ClusterName=npusim-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=$(id -un)
SlurmctldPort=16917
SlurmdPort=16918
AuthType=auth/munge
AuthInfo=socket=$T/munge/socket
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
ReturnToService=2
MpiDefault=none
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
t0=$(date +%s.%N)
slurmctld -D -f "$SLURM_CONF" > "$T/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D -N "$HOST" -f "$SLURM_CONF" > "$T/slurmd.out" 2>&1 & pids+=($!)
for i in $(seq 60); do sinfo -h -o %T 2> /dev/null | grep -qE "idle|mix" && break; sleep 0.5; done
sinfo -h -o %T 2> /dev/null | grep -qE "idle|mix" || fail "the Slurm node did not come up"

# a 6-point GEMM sweep in chunks of 2: 3 array tasks
cat > "$T/mm.yaml" <<'Y'
op: matmul
inputs:
  a: {shape: [256, 256], dtype: float16, init: {dist: normal, seed: 1}}
  b: {shape: [256, 256], dtype: float16, init: {dist: normal, seed: 2}}
Y
printf 'case: mm.yaml\nmode: timing\naxes:\n  tiling.base_m: [64, 128]\n  tiling.base_n: [64, 128, 256]\n' > "$T/sw.yaml"
out="$("$NPUSIM" sweep "$T/sw.yaml" --slurm "$T/job.sh" --chunk 2 --out "$T/sw")" || fail "sweep --slurm: $out"
grep -q "in 4 array tasks" <<< "$out" || fail "expected 4 array tasks (6 points + the default, chunks of 2): $out"
JOB="$(sbatch --parsable "$T/job.sh")" || fail "sbatch failed"
for i in $(seq 240); do [[ -z "$(squeue -h -j "$JOB" 2> /dev/null)" ]] && break; sleep 0.5; done
[[ -z "$(squeue -h -j "$JOB" 2> /dev/null)" ]] || fail "array job $JOB did not finish in 120 s"
t1=$(date +%s.%N)
[[ -f "$T/sw/results.jsonl" ]] || fail "the last array task did not collect results.jsonl"
[[ $(wc -l < "$T/sw/results.jsonl") -eq 6 ]] || fail "results.jsonl has $(wc -l < "$T/sw/results.jsonl") points, want 6"
[[ $(ls "$T/sw/slurm"/task-*.log | wc -l) -eq 4 ]] || fail "expected one log per array task"
"$NPUSIM" sweep "$T/sw.yaml" --jobs 2 --out "$T/local" > /dev/null || fail "local sweep"
key() { sed -nE 's/.*"cycles": *([0-9]+).*"point": *(\{[^}]*\}).*/\2 \1/p; s/.*"point": *(\{[^}]*\}).*"cycles": *([0-9]+).*/\1 \2/p' "$1" | sort; }
diff <(key "$T/sw/results.jsonl") <(key "$T/local/results.jsonl") > /dev/null || fail "Slurm and local results differ"
[[ $(key "$T/sw/results.jsonl" | wc -l) -eq 6 ]] || fail "could not read the points' cycles"
printf 'PASS: 6 points in 4 array tasks on a one-node Slurm, equal to the local sweep; daemons up to results collected %.1f s\n' \
  "$(echo "$t1 - $t0" | bc)"
