// RUN: fuse-opt %s -split-input-file -fuse-form-fusions | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-form-fusions=explain=true -verify-diagnostics -o /dev/null

// fuse-form-fusions only marks groups. With explain, each decision is a
// remark on the producer, and the function gets a summary: kernels and
// estimated bytes before and after (the pass statistics count the same, where
// LLVM was built with statistics enabled).

// CHECK-LABEL: func.func @softmax_groups
// CHECK: fuse.reduce max {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.broadcast {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.sub {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.exp {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.reduce sum {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.broadcast {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.div {{.*}} {fuse.group = 0 : i64}
// expected-remark @below {{fusion: 7 kernels, 1.6 KiB of traffic -> 1 kernels, 256 B}}
func.func @softmax_groups(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @below {{fused %0 (fuse.reduce) into %1 (fuse.broadcast) (row_reduction): saves 160 B of traffic}}
  %m = fuse.reduce max %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  // expected-remark @below {{fused %1 (fuse.broadcast) into %2 (fuse.sub) (row_reduction): saves 256 B of traffic}}
  %mb = fuse.broadcast %m, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  // expected-remark @below {{fused %2 (fuse.sub) into %3 (fuse.exp) (row_reduction): saves 256 B of traffic}}
  %s = fuse.sub %x, %mb : tensor<4x8xf32>
  // expected-remark @below {{fused %3 (fuse.exp) into %4 (fuse.reduce) (row_reduction): saves 256 B of traffic}}
  %e = fuse.exp %s : tensor<4x8xf32>
  // expected-remark @below {{fused %4 (fuse.reduce) into %5 (fuse.broadcast) (row_reduction): saves 160 B of traffic}}
  %sum = fuse.reduce sum %e dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  // expected-remark @below {{fused %5 (fuse.broadcast) into %6 (fuse.div) (pointwise): saves 256 B of traffic}}
  %sb = fuse.broadcast %sum, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %p = fuse.div %e, %sb : tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// The matmul takes its epilogue first; the reduction starts a new group.
// CHECK-LABEL: func.func @matmul_epilogue_then_reduction
// CHECK: fuse.matmul {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.broadcast {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.add {{.*}} {fuse.group = 0 : i64}
// CHECK: fuse.reduce sum {{.*}} {fuse.group = 1 : i64}
// expected-remark @below {{fusion: 4 kernels, 21.3 KiB of traffic -> 2 kernels, 13.3 KiB}}
func.func @matmul_epilogue_then_reduction(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<8xf32> {
  // expected-remark @below {{fused %0 (fuse.matmul) into %2 (fuse.add) (matmul): saves 4 KiB of traffic}}
  %m = fuse.matmul %x, %w : tensor<8x32xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
  // expected-remark @below {{fused %1 (fuse.broadcast) into %2 (fuse.add) (matmul): saves 4 KiB of traffic}}
  %bb = fuse.broadcast %b, dims = [1] : tensor<64xf32> -> tensor<8x64xf32>
  // expected-remark @below {{not fused %2 (fuse.add) into %3 (fuse.reduce): a matmul epilogue is elementwise, fuse.reduce is a reduction}}
  %a = fuse.add %m, %bb : tensor<8x64xf32>
  %s = fuse.reduce sum %a dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// An op of another dialect is never part of a group; the fuse ops on either
// side of it cannot share one.
// CHECK-LABEL: func.func @cycle_through_call
// CHECK: fuse.exp {{.*}} {fuse.group = 0 : i64}
// CHECK: call @opaque
// CHECK-NOT: fuse.group
// CHECK: fuse.add {{.*}} {fuse.group = 1 : i64}
func.func private @opaque(tensor<8xf32>) -> tensor<8xf32>
// expected-remark @below {{fusion: 2 kernels, 160 B of traffic -> 2 kernels, 160 B}}
func.func @cycle_through_call(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @below {{not fused %0 (fuse.exp) into %2 (fuse.add): would create a cycle through %1 (func.call)}}
  %e = fuse.exp %x : tensor<8xf32>
  %c = func.call @opaque(%e) : (tensor<8xf32>) -> tensor<8xf32>
  %y = fuse.add %e, %c : tensor<8xf32>
  return %y : tensor<8xf32>
}
