#!/usr/bin/env bash
# The CPU benchmark: builds Fuse (scripts/build.sh), installs the Python
# peers it can (numpy, PyTorch, onnxruntime, OpenVINO, IREE, JAX,
# matplotlib; one that cannot be installed is reported as "not installed"
# in the table), then runs
# bench/bench.py: the triad, fuse-bench (fused and unfused), the peers, and
# bench/results/results.md, results.json and chart.png.
#   bash bench/run.sh [--quick] [--runs N] [--passes N] [--peers numpy,torch,...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "${FUSE_BENCH_SKIP_BUILD:-0}" != 1 ]; then
  bash scripts/install-deps.sh
  export CCACHE_BASEDIR="$root"
  bash scripts/build.sh
fi
build="${FUSE_BUILD_DIR:-$root/build}"

python="$(command -v python3 || true)"
if [ -z "$python" ]; then
  echo "bench/run.sh: python3 not found; installing it" >&2
  apt-get install -y -qq python3 python3-pip >/dev/null
  python=python3
fi
if ! "$python" -m pip --version >/dev/null 2>&1; then
  apt-get install -y -qq python3-pip >/dev/null || true
fi
# module:package pairs; only what is missing is installed.
missing=()
for pair in numpy:numpy torch:torch onnxruntime:onnxruntime onnx:onnx \
            openvino:openvino iree.compiler:iree-base-compiler \
            iree.runtime:iree-base-runtime "jax:jax[cpu]" \
            matplotlib:matplotlib threadpoolctl:threadpoolctl; do
  module="${pair%%:*}"
  "$python" -c "import $module" 2>/dev/null || missing+=("${pair#*:}")
done
for package in "${missing[@]}"; do
  echo "bench/run.sh: pip install $package" >&2
  # Debian's own Python refuses installs outside a venv unless told.
  "$python" -m pip install -q --disable-pip-version-check "$package" 2>/dev/null ||
    "$python" -m pip install -q --disable-pip-version-check \
      --break-system-packages "$package" 2>/dev/null ||
    echo "bench/run.sh: $package could not be installed; reported as not installed" >&2
done

exec "$python" "$root/bench/bench.py" --fuse-bench "$build/bin/fuse-bench" "$@"
