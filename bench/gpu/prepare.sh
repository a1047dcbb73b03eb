#!/usr/bin/env bash
# The GPU check, first half, on a CPU machine with the compiler (LLVM/MLIR,
# and ptxas for cubins): builds the runtime-only binaries (FuseCudaTests and
# fuse-gpu-bench, static apart from glibc; the driver is loaded at run time),
# compiles the benchmark graphs to sm_90 bundles (fuse-gpu-prepare), with the
# lit tests' attention graphs and the exported Hugging Face models of
# $FUSE_GPU_CHECK_MODELS (default /tmp/hf, where it exists) as bundles that
# are only checked, and puts
# everything the GPU machine needs into one folder:
#   bash bench/gpu/prepare.sh [PACKAGE_DIR]     (default build-gpu-check/package)
# Then, on the GPU machine: bash PACKAGE_DIR/run.sh RESULTS_DIR [--quick]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
package="${1:-$root/build-gpu-check/package}"
build="${FUSE_BUILD_DIR:-$root/build}"
gpu_build="${FUSE_GPU_BUILD_DIR:-$root/build-gpu-check}"

if [ ! -f "$build/build.ninja" ]; then
  bash scripts/install-deps.sh
  bash scripts/build.sh
fi
ninja -C "$build" fuse-gpu-prepare
bash bench/gpu/build-runtime-tests.sh "$gpu_build" >/dev/null
ninja -C "$gpu_build" fuse-gpu-bench fuse_fake_cuda >/dev/null
# Both builds carry the version id of the tree they were built from; a bundle
# loads only where the ids match, so both are brought up to date together.
ninja -C "$build" fuse-gpu-prepare >/dev/null
ninja -C "$gpu_build" FuseCudaTests fuse-gpu-bench >/dev/null
for binary in FuseCudaTests fuse-gpu-bench; do
  for library in $(readelf -d "$gpu_build/bin/$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$library" in
    libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | ld-linux*) ;;
    *) echo "bench/gpu/prepare.sh: $binary needs $library" >&2; exit 1 ;;
    esac
  done
done

rm -rf "$package"
mkdir -p "$package/bin"
# Beside the workloads, graphs checked against the reference only: the
# attention spellings of the lit tests (one GPU attention kernel each).
check_graphs=()
for graph in lit_tests/codegen/attention.mlir \
  lit_tests/codegen/attention-shared-mask.mlir \
  lit_tests/codegen/gpu-attention.mlir; do
  check_graphs+=(--check-mlir "$graph")
done
# And the exported Hugging Face models (bench/models/export_hf.py --out DIR,
# default /tmp/hf) with their inputs, where that folder exists; one the GPU
# cannot compile yet is said and left out.
models="${FUSE_GPU_CHECK_MODELS:-/tmp/hf}"
if [ -d "$models" ]; then
  for model in "$models"/*.onnx; do
    [ -f "$model" ] && check_graphs+=(--check-onnx "$model")
  done
fi
"$build/bin/fuse-gpu-prepare" "$package/bundles" "${check_graphs[@]}"
cp "$gpu_build/bin/FuseCudaTests" "$gpu_build/bin/fuse-gpu-bench" "$package/bin/"
# The fake driver, for the dry run here; the GPU machine uses its own.
cp -r "$gpu_build/test/runtime/device/fake-driver" "$package/fake-driver"
cp bench/peers.py bench/gpu/report.py bench/gpu/run.sh "$package/"
echo "bench/gpu/prepare.sh: $package is ready; on the GPU machine:"
echo "  bash $(basename "$package")/run.sh RESULTS_DIR [--quick]"
