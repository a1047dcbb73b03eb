#!/usr/bin/env bash
# Installs what Fuse needs, only what is missing: the Debian packages
# (Debian 12: LLVM/MLIR 22 come from bookworm-security's llvm-toolchain-22),
# then a Python venv at .venv/ (or $FUSE_VENV) with the pinned packages of
# scripts/requirements-test.txt, made from Debian's /usr/bin/python3, whatever
# `python3` on PATH is. scripts/build.sh hands that interpreter to CMake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${FUSE_VENV:-$root/.venv}"
requirements="$root/scripts/requirements-test.txt"

packages=(build-essential cmake ninja-build ccache python3 python3-venv
  clang-format llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld
  liblld-22-dev libgtest-dev libgmock-dev libcereal-dev libonnx-dev
  libprotobuf-dev protobuf-compiler libonnx-testdata clang-22 libclang-rt-22-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The venv is remade when the requirements change (their hash is kept in it).
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements-sha256" 2>/dev/null)" = "$want" ]; then
  echo "install-deps: Python venv $venv up to date"
  exit 0
fi
echo "install-deps: making the Python venv $venv (scripts/requirements-test.txt)"
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-input \
  -r "$requirements"
"$venv/bin/python" -c "import numpy, onnx; print('install-deps: numpy', numpy.__version__, 'onnx', onnx.__version__)"
echo "$want" > "$venv/.requirements-sha256"
