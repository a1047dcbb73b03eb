#!/usr/bin/env bash
# Installs the Debian packages Fuse needs, only those that are missing.
# Debian 12: LLVM/MLIR 22 come from bookworm-security's llvm-toolchain-22.
set -euo pipefail

packages=(build-essential cmake ninja-build ccache python3 clang-format
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld liblld-22-dev
  libgtest-dev libgmock-dev libcereal-dev libonnx-dev libprotobuf-dev
  protobuf-compiler libonnx-testdata)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
