#!/usr/bin/env bash
# Builds the CudaRuntime test suite (FuseCudaTests) for a machine that has an
# NVIDIA GPU and its driver but no LLVM, MLIR, GoogleTest or cereal: a
# runtime-only build (-DFUSE_ENABLE_COMPILER=OFF) with FuseRuntime, GoogleTest,
# libstdc++ and libgcc linked statically, so the binary needs only glibc. It
# never links libcuda: at run time the runtime loads the system's
# libcuda.so.1, because FUSE_CUDA_DRIVER is unset (CTest sets it to the fake
# driver instead). The tests that steer the fake driver skip; the rest run on
# the device, the shared DeviceRuntimeTest suite among them, and the kernels'
# results are compared with the reference runtime.
#
# The one command (build, check the binary's dependencies, run it):
#   bench/gpu/build-runtime-tests.sh --run [build-dir]
# Without --run it only builds and prints the binary's path, e.g. to copy the
# binary to the GPU machine and run it there as is.
set -euo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
run=0
if [[ "${1:-}" == "--run" ]]; then
  run=1
  shift
fi
build_dir="${1:-${source_dir}/build-gpu-tests}"

cmake -G Ninja -S "${source_dir}" -B "${build_dir}" \
  -DFUSE_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release \
  -DFUSE_RUNTIME_LIBRARY_TYPE=STATIC \
  -DGTEST_USE_STATIC_LIBS=ON \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
ninja -C "${build_dir}" FuseCudaTests

binary="${build_dir}/bin/FuseCudaTests"
# Only glibc may be left to load (libcuda comes with dlopen at run time).
needed="$(readelf -d "${binary}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
for library in ${needed}; do
  case "${library}" in
  libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | ld-linux*) ;;
  *)
    echo "error: ${binary} needs ${library}" >&2
    exit 1
    ;;
  esac
done
echo "${binary} (needs: ${needed//$'\n'/ })"

if [[ "${run}" == 1 ]]; then
  unset FUSE_CUDA_DRIVER
  "${binary}"
fi
