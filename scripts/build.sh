#!/usr/bin/env bash
# Configures and builds Fuse (Release, Ninja, ccache, lld) into ${FUSE_BUILD_DIR:-build},
# with the tests' Python from the venv scripts/install-deps.sh makes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUSE_BUILD_DIR:-$root/build}"

venv_python="${FUSE_VENV:-$root/.venv}/bin/python"
python_flag=()
if [ -x "$venv_python" ]; then python_flag=("-DPython3_EXECUTABLE=$venv_python"); fi

mkdir -p "$build"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${python_flag[@]}" \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "$@" > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
ninja -C "$build"
