// RUN: fuse-opt %s -fuse-fusion-pipeline="max-ops=4" | FileCheck %s
// RUN: fuse-opt %s -fuse-form-fusions="max-ops=4 verify-incremental=true" | FileCheck %s --check-prefix=GROUPS
// RUN: fuse-opt %s -fuse-fusion-pipeline="max-ops=4 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// A chain longer than max-ops is cut into kernels of at most max-ops ops,
// from its end: LLVM's register allocation and instruction selection take
// more than linear time in a kernel's length (bench/compile_scaling.py).
// CHECK-LABEL: func.func @chain_cut_by_op_limit
// CHECK-COUNT-3: fuse.fusion pointwise
// CHECK-NOT: fuse.fusion
// GROUPS-COUNT-2: {fuse.group = 0 : i64}
// GROUPS-COUNT-4: {fuse.group = 1 : i64}
// GROUPS-COUNT-4: {fuse.group = 2 : i64}
// EXPLAIN: remark: not fused {{.*}} (fuse.tanh) into {{.*}} (fuse.exp): the kernel would hold {{[0-9]+}} ops, more than max-ops=4
func.func @chain_cut_by_op_limit(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = fuse.exp %x : tensor<64xf32>
  %1 = fuse.tanh %0 : tensor<64xf32>
  %2 = fuse.exp %1 : tensor<64xf32>
  %3 = fuse.tanh %2 : tensor<64xf32>
  %4 = fuse.exp %3 : tensor<64xf32>
  %5 = fuse.tanh %4 : tensor<64xf32>
  %6 = fuse.exp %5 : tensor<64xf32>
  %7 = fuse.tanh %6 : tensor<64xf32>
  %8 = fuse.exp %7 : tensor<64xf32>
  %9 = fuse.tanh %8 : tensor<64xf32>
  return %9 : tensor<64xf32>
}
