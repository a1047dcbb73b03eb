// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline="max-live-values=4" | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline="max-live-values=4 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// The live-value limit splits a kernel: six values of x stay live until they
// are summed; at most 4 may be live at once, so the chain is cut.
// CHECK-LABEL: func.func @live_values_split_a_kernel
// CHECK-COUNT-3: fuse.fusion pointwise
// CHECK-NOT: fuse.fusion
// EXPLAIN: not fused {{.*}}: the kernel would keep 5 values live, more than max-live-values=4
func.func @live_values_split_a_kernel(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = fuse.exp %x : tensor<64xf32>
  %1 = fuse.tanh %x : tensor<64xf32>
  %2 = fuse.sin %x : tensor<64xf32>
  %3 = fuse.cos %x : tensor<64xf32>
  %4 = fuse.sigmoid %x : tensor<64xf32>
  %5 = fuse.abs %x : tensor<64xf32>
  %6 = fuse.add %0, %1 : tensor<64xf32>
  %7 = fuse.add %2, %3 : tensor<64xf32>
  %8 = fuse.add %4, %5 : tensor<64xf32>
  %9 = fuse.add %6, %7 : tensor<64xf32>
  %10 = fuse.add %9, %8 : tensor<64xf32>
  return %10 : tensor<64xf32>
}
