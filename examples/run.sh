#!/usr/bin/env bash
# The main job: installs what is missing, builds Fuse, and compiles the
# example graph through the fusion pipeline, printing the fused kernels.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh
export CCACHE_BASEDIR="$root"
bash scripts/build.sh
build="${FUSE_BUILD_DIR:-$root/build}"
model="${1:-$root/examples/gelu_bias.mlir}"
if "$build/bin/fuse-opt" --help | grep -q -- '--fuse-fusion-pipeline'; then
  passes=(--fuse-fusion-pipeline)
else
  passes=(--canonicalize --cse)
fi
echo "== fuse-opt ${passes[*]} $model"
"$build/bin/fuse-opt" "${passes[@]}" "$model"
