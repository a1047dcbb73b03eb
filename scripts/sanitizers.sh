#!/usr/bin/env bash
# Builds the whole tool path (the runtime, the ONNX importer, the compiler,
# fuse-opt, fuse-compile, fuse-run, fuse-cache) with clang 22's
# AddressSanitizer and UndefinedBehaviorSanitizer in its own build folder and
# runs there: the GoogleTest suites, the fuzz corpus replays (every committed
# crash reproducer), the structured ONNX graph fuzzer's fixed seeds, the
# conformance runner and the lit suites named below. Any report fails the
# run. CI calls it; so can anyone:
#   scripts/sanitizers.sh [--build|--test] [build-dir]
# --build only configures and builds, --test only runs the tests of a build
# made before (.ci/run times the two apart); neither: both.
#
# Only Fuse's code is instrumented: libMLIR.so and libLLVM.so are Debian's
# uninstrumented builds, and the kernels the tools generate and dlopen are
# not instrumented either. ASan needs nothing from them: it intercepts
# malloc and free process-wide, and reports only bad accesses made by
# instrumented code. -O1 with line tables (not -O0 -g) keeps the build and
# the tests fast; the reports still name file and line.
set -euo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
steps=both
case "${1:-}" in
  --build) steps=build; shift ;;
  --test) steps=test; shift ;;
esac
build_dir="${1:-${source_dir}/build-sanitizers}"
venv_python="${FUSE_VENV:-${source_dir}/.venv}/bin/python"
python_flag=()
if [ -x "$venv_python" ]; then python_flag=("-DPython3_EXECUTABLE=$venv_python"); fi

# clang 22 (Debian's clang-22 and libclang-rt-22-dev, from the same LLVM as
# the MLIR we link) rather than gcc: one toolchain for this build and the
# libFuzzer targets (scripts/fuzz.sh).
cxx=/usr/bin/clang++-22
cc=/usr/bin/clang-22
for tool in "$cxx" "$cc"; do
  [ -x "$tool" ] || { echo "sanitizers.sh: $tool is missing (scripts/install-deps.sh installs clang-22)" >&2; exit 1; }
done

# The lit suites that run here: the tools' front doors on hostile input
# (tools: special files, huge shapes, output names, bad options, the cache),
# the ONNX importer through fuse-run (onnx), malformed dialect input (dialect),
# the passes' refusals and limits (passes), code generation (codegen) and the
# fusion pipeline over the three model graphs (models: fuse-opt only, about a
# second; tools/ runs the same models end to end with --check).
lit_suites="tools;onnx;dialect;passes;codegen;models"

if [ "$steps" != test ]; then
  mkdir -p "${build_dir}"
  flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  cmake -G Ninja -S "${source_dir}" -B "${build_dir}" \
    -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS_DEBUG="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DFUSE_ENABLE_COMPILER=ON -DFUSE_ENABLE_ONNX=ON -DFUSE_ENABLE_BENCH=OFF \
    -DFUSE_LIT_SUITES="$lit_suites" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${python_flag[@]}" \
    > "${build_dir}/configure.log" 2>&1 ||
    { cat "${build_dir}/configure.log"; exit 1; }
  # FUSE_NINJA_JOBS: ninja's -j (its default: the number of cores + 2).
  ninja -C "${build_dir}" ${FUSE_NINJA_JOBS:+-j "$FUSE_NINJA_JOBS"}
fi
[ "$steps" = build ] && exit 0

# abort_on_error: every report (ASan, UBSan, a leak) ends in SIGABRT, never in
# an exit status a test could take for a clean error (`not fuse-run ...`
# passes on any non-zero status, but fails on a signal).
# allocator_may_return_null: an allocation ASan cannot serve fails as it does
# without ASan (std::bad_alloc, a null malloc), so that the tests of huge
# inputs see Fuse's own "cannot allocate" errors, not ASan's abort.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when its
# header is compiled with ASan, and lld's Debian libraries are not: in the
# compiler library that fuse-run loads on a cache miss, the linker then took
# the instrumented copy of the allocator's inline code and lld's own reads of
# an allocator inside a slab were reported as use-after-poison (every host
# link, 81 lit tests). ASan's own checks of our code are unchanged.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1:allow_user_poisoning=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
# Not here: the install test builds an out-of-tree consumer without sanitizer
# flags, which cannot load an ASan library; clang_format and long_functions
# read only the sources; the benchmarks and the GPU check's dry run are not
# built here (FUSE_ENABLE_BENCH=OFF). The regular build runs them all.
cd "${build_dir}" && ctest --output-on-failure -j2 --output-junit ctest-results.xml \
  -E '^(engine_install_out_of_tree|clang_format|long_functions)$'
