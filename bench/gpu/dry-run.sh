#!/usr/bin/env bash
# Both halves of the GPU check on this machine, against the fake driver of
# the CUDA runtime's tests (no GPU needed): prepare.sh into a temporary
# folder, then its run.sh --dry-run. Every step runs; no figure means
# anything.
#   bash bench/gpu/dry-run.sh [RESULTS_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
results="${1:-$work/results}"
bash "$root/bench/gpu/prepare.sh" "$work/package"
bash "$work/package/run.sh" "$results" --dry-run
