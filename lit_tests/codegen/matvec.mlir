// A classifier at batch 1 (1x1280 by a transposed 1000x1280 weight, plus
// bias) and a batch of two single rows: fuse-lower-matvecs makes each a row
// reduction with its epilogue (one row_reduction kernel each), and fuse-run
// --check compares them with the reference runtime's matmul on random
// inputs. For sm_80 ptxas assembles the kernels.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: %if ptxas %{ fuse-compile %s --target=sm_80 -o %t/sm_80 %}

// The plan names the ops of each kernel, the matmul's too (the reduce that
// replaces it keeps its fuse.op_index).
// CHECK: plan: 2 kernels
// CHECK: row-reduction, 3 ops
// CHECK-NEXT: ops matmul broadcast add
// CHECK: row-reduction, 1 ops
// CHECK-NEXT: ops matmul
// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check: passed, 2 outputs match the reference
// The classifier's weight rows are read by one pass each, which prefetches
// the next row (the weight, broadcast to the product's unit batch dim, is
// read at the row's positions); the 33 x 96 weight shared by two batches is
// not.
// KERNELS-LABEL: func.func @fuse_k0_rows
// KERNELS: llvm.intr.prefetch
// KERNELS-LABEL: func.func @fuse_k1_rows
// KERNELS-NOT: llvm.intr.prefetch
func.func @matvec(%x: tensor<1x1280xf32>, %w: tensor<1000x1280xf32>, %bias: tensor<1000xf32>,
                  %y: tensor<2x1x96xf32>, %v: tensor<33x96xf32>) -> (tensor<1x1000xf32>, tensor<2x1x33xf32>) {
  %0 = fuse.matmul %x, %w transpose_b : tensor<1x1280xf32>, tensor<1000x1280xf32> -> tensor<1x1000xf32>
  %bb = fuse.broadcast %bias, dims = [1] : tensor<1000xf32> -> tensor<1x1000xf32>
  %1 = fuse.add %0, %bb : tensor<1x1000xf32>
  %2 = fuse.matmul %y, %v transpose_b : tensor<2x1x96xf32>, tensor<33x96xf32> -> tensor<2x1x33xf32>
  return %1, %2 : tensor<1x1000xf32>, tensor<2x1x33xf32>
}
