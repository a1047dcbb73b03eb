#!/usr/bin/env bash
# Open-ended fuzzing with libFuzzer, by hand (CI only replays the committed
# corpus, deterministically: fuzz/CMakeLists.txt):
#   scripts/fuzz.sh TARGET [SECONDS]      TARGET: npy, bundle or onnx
# Builds the runtime and the ONNX importer with clang, libFuzzer, ASan and
# UBSan into build-fuzz/, then fuzzes TARGET from its seed corpus for SECONDS
# (default 300) on every core. New inputs that grow coverage go to
# build-fuzz/corpus-TARGET; a crash is written as build-fuzz/crash-* with
# libFuzzer's report. Copy a crash into fuzz/corpus/TARGET/ when it is
# fixed: the replay then keeps it fixed. (The .mlir target needs the MLIR
# build; it is replayed by CTest only.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: scripts/fuzz.sh npy|bundle|onnx [seconds]}"
seconds="${2:-300}"
case "$target" in
  npy|bundle) seeds=("$root/fuzz/corpus/$target") ;;
  onnx) seeds=("$root/fuzz/corpus/onnx" "$root/lit_tests/onnx/Inputs" "$root/examples/onnx") ;;
  *) echo "fuzz.sh: unknown target '$target' (npy, bundle or onnx)" >&2; exit 2 ;;
esac
command -v clang++ > /dev/null || { echo "fuzz.sh: clang++ is needed (apt install clang)" >&2; exit 2; }
build="$root/build-fuzz"
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DFUSE_ENABLE_COMPILER=OFF -DFUSE_ENABLE_ONNX=ON -DFUSE_LIBFUZZER=ON \
  -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > "$build.log" 2>&1 ||
  { cat "$build.log"; exit 1; }
ninja -C "$build" "fuzz-$target"
mkdir -p "$build/corpus-$target"
cd "$build"
exec "./bin/fuzz-$target" "corpus-$target" "${seeds[@]}" \
  -max_total_time="$seconds" -jobs="$(nproc)" -workers="$(nproc)" \
  -print_final_stats=1
