#!/usr/bin/env bash
# The GPU check, first half, on a CPU machine with the compiler (LLVM/MLIR,
# and ptxas for cubins): builds the runtime-only binaries (FuseCudaTests and
# fuse-gpu-bench, static apart from glibc; the driver is loaded at run time),
# compiles the benchmark graphs to sm_90 bundles (fuse-gpu-prepare), with the
# lit tests' attention, convolution, pooling and resize graphs and the
# exported models of $FUSE_GPU_CHECK_MODELS (below) as bundles that are only
# checked, and puts everything the GPU machine needs into one folder:
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
# attention spellings of the lit tests (one GPU attention kernel each), and
# two graphs with symbolic dims (issue 22), each one bundle that
# fuse-gpu-bench binds to two sets of values of its dims.
check_graphs=()
for graph in lit_tests/codegen/attention.mlir \
  lit_tests/codegen/attention-shared-mask.mlir \
  lit_tests/codegen/gpu-attention.mlir \
  lit_tests/codegen/conv.mlir lit_tests/codegen/conv-narrow.mlir \
  lit_tests/codegen/gpu-conv.mlir lit_tests/codegen/implicit-gemm.mlir \
  lit_tests/codegen/depthwise.mlir lit_tests/codegen/depthwise-rows.mlir \
  lit_tests/codegen/depthwise-narrow.mlir lit_tests/codegen/depthwise-se.mlir \
  lit_tests/codegen/gpu-pool.mlir lit_tests/codegen/gpu-resize.mlir \
  lit_tests/codegen/gpu-column-reduction.mlir \
  lit_tests/codegen/gpu-column-split.mlir \
  lit_tests/codegen/gpu-symbolic-pointwise.mlir \
  lit_tests/codegen/gpu-symbolic-softmax.mlir; do
  check_graphs+=(--check-mlir "$graph")
done
# And exported models with their inputs: FUSE_GPU_CHECK_MODELS, a list of
# .onnx files and folders of them, by default the Hugging Face models of
# bench/models/export_hf.py (/tmp/hf) and the four vision models of
# bench/models/export_vision.py (/tmp/vision), where they exist; one the GPU
# cannot compile yet is said and left out.
default_models="/tmp/hf"
for model in resnet18 mobilenet_v2 vit whisper_enc; do
  default_models+=" /tmp/vision/$model.onnx"
done
for entry in ${FUSE_GPU_CHECK_MODELS:-$default_models}; do
  if [ -d "$entry" ]; then
    for model in "$entry"/*.onnx; do
      [ -f "$model" ] && check_graphs+=(--check-onnx "$model")
    done
  elif [ -f "$entry" ]; then
    check_graphs+=(--check-onnx "$entry")
  fi
done
"$build/bin/fuse-gpu-prepare" "$package/bundles" "${check_graphs[@]}"
cp "$gpu_build/bin/FuseCudaTests" "$gpu_build/bin/fuse-gpu-bench" "$package/bin/"
# The fake driver, for the dry run here; the GPU machine uses its own.
cp -r "$gpu_build/test/runtime/device/fake-driver" "$package/fake-driver"
cp bench/peers.py bench/gpu/report.py bench/gpu/run.sh bench/gpu/sanitize.sh \
  bench/gpu/torch_models.py "$package/"
mkdir -p "$package/models"
cp bench/models/export_vision.py bench/models/peers.py "$package/models/"
# One archive of it, for a transfer with a size limit (the weights are
# random: xz takes a third off their bf16 bytes).
tar -C "$(dirname "$package")" -cf - "$(basename "$package")" | xz -6 -T2 >"$package.tar.xz"
echo "bench/gpu/prepare.sh: $package is ready ($(du -sh "$package" | cut -f1);" \
  "$(du -sh "$package.tar.xz" | cut -f1) as $package.tar.xz); on the GPU machine:"
echo "  bash $(basename "$package")/run.sh RESULTS_DIR [--quick]"
