#!/usr/bin/env bash
# Builds the runtime and the ONNX importer (no MLIR) with AddressSanitizer
# and UndefinedBehaviorSanitizer in its own build folder and runs their tests
# there (the importer's unit tests, and the conformance runner on the
# reference runtime); any report fails the run. CI calls it; so can anyone:
#   test/runtime/sanitizers.sh [build-dir]
set -euo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${1:-${source_dir}/build-sanitizers}"

cmake -G Ninja -S "${source_dir}" -B "${build_dir}" \
  -DFUSE_ENABLE_COMPILER=OFF \
  -DFUSE_ENABLE_ONNX=ON \
  -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
ninja -C "${build_dir}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The install test builds an out-of-tree consumer without sanitizer flags,
# which cannot load an ASan library; the regular build runs it.
cd "${build_dir}" && ctest --output-on-failure --output-junit ctest-results.xml -E '^engine_install_out_of_tree$'
