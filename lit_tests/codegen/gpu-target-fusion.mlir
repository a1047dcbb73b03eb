// Fusion formation asks the target's schedules (fuse-form-fusions target=,
// set by fuse-compile from the backend): x - mean(x) over the whole tensor
// is one kernel on the host (a full reduction whose result is used over the
// domain runs as a row kernel of one row) but not on the GPU, whose full
// reduction returns one value: there the mean is one fusion and the
// subtraction another, instead of a fusion the GPU refuses (which code
// generation used to split into one kernel per op, the broadcast alone a
// kernel; lit_tests/passes/form-fusions-target.mlir has the pass alone).
// Through the whole pipeline: 3 GPU kernels (partials, finish, the
// subtraction) and no note, and one host kernel that matches the reference.

// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/gpu 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/gpu/bundle.txt
// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --print-plan --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=PLAN

// QUIET-NOT: note
// BUNDLE: kernels 3
// BUNDLE: schedule full-reduction
// BUNDLE: schedule full-reduction
// BUNDLE: schedule pointwise
// PLAN: plan: 1 kernel for 3 ops
// PLAN: row-reduction
// PLAN: check: passed

func.func @center(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %s = fuse.reduce mean %x dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  %b = fuse.broadcast %s, dims = [] : tensor<f32> -> tensor<64x64xf32>
  %d = fuse.sub %x, %b : tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
