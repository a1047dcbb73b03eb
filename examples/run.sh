#!/usr/bin/env bash
# The main job: installs what is missing, builds Fuse, then imports a small
# transformer encoder layer from ONNX (examples/make_models.py wrote it),
# fuses it into host kernels, runs it on the host runtime and checks every
# output against the reference runtime (`--check`), printing the fused plan
# (`--print-plan`).
#   bash examples/run.sh [MODEL.onnx|MODEL.mlir] [more fuse-run flags]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh
export CCACHE_BASEDIR="$root"
bash scripts/build.sh
build="${FUSE_BUILD_DIR:-$root/build}"
model="${1:-$root/examples/onnx/encoder.onnx}"
shift || true
echo "== fuse-run $model --check --print-plan --bench 10 $*"
"$build/bin/fuse-run" "$model" --check --print-plan --bench 10 "$@"
