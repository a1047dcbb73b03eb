#!/usr/bin/env bash
# The GPU check, second half, on the GPU machine (CUDA driver, PyTorch; no
# compiler, no network), from the folder bench/gpu/prepare.sh made:
#   bash run.sh RESULTS_DIR [--quick] [--dry-run]
# 1. the CUDA runtime's test suite (FuseCudaTests);
# 2. every small bundle run and checked against the reference runtime (the
#    workloads at small sizes, and the lit tests' attention graphs:
#    attention.mlir, attention-shared-mask.mlir, gpu-attention.mlir; the
#    exported Hugging Face models prepare.sh found, on their own inputs);
# 3. every bundle at the issue's size timed with CUDA events (inputs rotated
#    so L2 does not flatter them), GB/s against a device-to-device copy;
# 4. PyTorch eager and torch.compile on the same workloads (CUDA events),
#    and PyTorch eager on the exported vision models (torch_models.py);
# 5. the table (RESULTS_DIR/table.md), printed last.
# At most 7 files in RESULTS_DIR. About 5 minutes (the reference runtime checks
# the exported models on the CPU: whisper_enc alone takes half a minute);
# --quick about 2 (fewer
# runs, no torch.compile). --dry-run: against the fake driver (prepare.sh
# copies it here), for a machine without a GPU: every step runs, no figure
# means anything.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  echo "usage: bash run.sh RESULTS_DIR [--quick] [--dry-run]" >&2
  exit 2
fi
results="$1"
shift
quick=0
dry=0
for arg in "$@"; do
  case "$arg" in
  --quick) quick=1 ;;
  --dry-run) dry=1 ;;
  *) echo "run.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"
runs=100 warmup=10 copy_mib=1024 peer_runs=50 peer_warmup=5
if [ "$quick" = 1 ]; then
  runs=20 warmup=3 copy_mib=256 peer_runs=10 peer_warmup=2
fi
bench_flags=()
if [ "$dry" = 1 ]; then
  export FUSE_CUDA_DRIVER="${FUSE_CUDA_DRIVER:-$here/fake-driver/libcuda.so.1}"
  runs=3 warmup=1 copy_mib=64
  bench_flags+=(--dry-run)
fi
status=0

# One log (the tests' output, then fuse-gpu-bench's messages): the device
# tool brings back at most 8 files, and sanitize.sh writes one more.
log="$results/run.log"
echo "== 1/5 CUDA runtime tests"
timeout 120 "$here/bin/FuseCudaTests" --gtest_brief=1 >"$log" 2>&1 || status=1
tail -n 3 "$log"

echo "== 2/5 and 3/5 Fuse bundles: checked against the reference, timed"
cp "$here/bundles/workloads.jsonl" "$results/workloads.jsonl"
timeout 330 "$here/bin/fuse-gpu-bench" "$here/bundles" --runs "$runs" \
  --warmup "$warmup" --copy-mib "$copy_mib" --time-models "${bench_flags[@]}" \
  >"$results/fuse-gpu.jsonl" 2>>"$log" || status=1
grep -c '"status": "ok"' "$results/fuse-gpu.jsonl" | sed 's/$/ bundles ok/'

echo "== 4/5 PyTorch eager and torch.compile"
spec="$(mktemp)"
python3 - "$results/workloads.jsonl" "$spec" "$peer_warmup" "$peer_runs" <<'PY'
import json, sys
workloads = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
spec = {"warmup": int(sys.argv[3]), "runs": int(sys.argv[4]),
        "workloads": [{k: w[k] for k in ("name", "input_shapes", "params")} for w in workloads]}
json.dump(spec, open(sys.argv[2], "w"))
PY
peers=(torch-cuda)
[ "$quick" = 1 ] || peers+=(torch.compile-cuda)
for peer in "${peers[@]}"; do
  limit=60
  [ "$peer" = torch-cuda ] || limit=150 # Triton compiles each graph first
  timeout "$limit" python3 "$here/peers.py" "$peer" "$spec" >"$results/$peer.json" 2>&1 ||
    echo "$peer: failed or unavailable (see $results/$peer.json)"
done
rm -f "$spec"
# The exported vision models that were checked, in PyTorch eager.
models=()
for input in "$here"/bundles/check/*.in0.*; do
  [ -e "$input" ] && models+=("$(basename "${input%%.in0.*}")")
done
if [ "${#models[@]}" -gt 0 ] && [ "$dry" = 0 ]; then
  timeout 120 python3 "$here/torch_models.py" "$here/models" "$peer_runs" "${models[@]}" \
    >"$results/torch-models.json" 2>&1 || echo "torch models: failed (see $results/torch-models.json)"
fi

echo "== 5/5 table"
python3 "$here/report.py" "$results" || status=1
exit "$status"
