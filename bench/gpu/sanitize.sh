#!/usr/bin/env bash
# The GPU check under NVIDIA's compute-sanitizer, on the GPU machine, from
# the folder bench/gpu/prepare.sh made (beside run.sh):
#   bash sanitize.sh REPORT_FILE
# 1. memcheck (out-of-bounds and misaligned accesses, leaks of device
#    memory) over the CUDA runtime's tests;
# 2. memcheck over every check bundle (fuse-gpu-bench --check-only: the
#    workloads at small sizes, the lit tests' graphs, the exported models),
#    compared with the reference as run.sh does;
# 3. racecheck (shared-memory hazards) and synccheck (barriers) over the
#    same bundles, run without the reference (--no-reference).
# One report file; exit 1 when a tool reports an error or a step fails.
# About 4 minutes on an H200 (racecheck alone about 3), at most 8 (each
# step has its limit).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -ne 1 ]; then
  echo "usage: bash sanitize.sh REPORT_FILE" >&2
  exit 2
fi
report="$1"
sanitizer="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)"
if [ -z "$sanitizer" ]; then
  echo "sanitize.sh: no compute-sanitizer on this machine" | tee "$report"
  exit 1
fi
status=0
: >"$report"
step() { # LIMIT TITLE COMMAND...
  local limit="$1" title="$2"
  shift 2
  echo "== $title" | tee -a "$report"
  local start=$SECONDS
  timeout "$limit" "$@" >>"$report" 2>&1
  local rc=$?
  echo "-- exit $rc after $((SECONDS - start)) s" | tee -a "$report"
  [ "$rc" = 0 ] || status=1
}
common=(--error-exitcode 3 --print-limit 20)
# The tests' own failing driver calls (invalid PTX, a missing entry) are
# what they test: API errors are not reported there.
step 60 "memcheck: FuseCudaTests" "$sanitizer" --tool memcheck --leak-check full \
  --report-api-errors no "${common[@]}" "$here/bin/FuseCudaTests" --gtest_brief=1
step 100 "memcheck: the check bundles" "$sanitizer" --tool memcheck "${common[@]}" \
  "$here/bin/fuse-gpu-bench" "$here/bundles" --check-only
step 240 "racecheck: the check bundles" "$sanitizer" --tool racecheck --racecheck-report hazard \
  "${common[@]}" "$here/bin/fuse-gpu-bench" "$here/bundles" --check-only --no-reference
step 60 "synccheck: the check bundles" "$sanitizer" --tool synccheck "${common[@]}" \
  "$here/bin/fuse-gpu-bench" "$here/bundles" --check-only --no-reference
# The tools' summaries, and every check that did not pass.
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|-- exit|\[  (PASSED|FAILED|SKIPPED)" "$report"
grep '"record": "check"' "$report" | grep -v '"status": "\(ok\|ran\)' | head -20
exit "$status"
