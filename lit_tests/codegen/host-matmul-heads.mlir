// Attention's head split and merge as index maps of host matmul kernels
// (sequence 16, 4 heads of 32): the Q projection stores through the head
// split (reshape + transpose) with whole vectors, since a head's 32 columns
// hold whole 8-lane vectors; Q K^T (transpose_b) reads K from panels that a
// pack kernel of its own wrote first; P V stores through the head merge.
// Every B here is a graph input, so each matmul reads it from panels that a
// pack kernel wrote (once per binding of the inputs).

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s

func.func @heads(%x: tensor<16x128xf32>, %wq: tensor<128x128xf32>, %k: tensor<4x16x32xf32>,
                 %v: tensor<4x16x32xf32>) -> tensor<16x128xf32> {
  %q0 = fuse.matmul %x, %wq : tensor<16x128xf32>, tensor<128x128xf32> -> tensor<16x128xf32>
  %q1 = fuse.reshape %q0 : tensor<16x128xf32> -> tensor<16x4x32xf32>
  %q = fuse.transpose %q1, permutation = [1, 0, 2] : tensor<16x4x32xf32> -> tensor<4x16x32xf32>
  %s = fuse.matmul %q, %k transpose_b : tensor<4x16x32xf32>, tensor<4x16x32xf32> -> tensor<4x16x16xf32>
  %o0 = fuse.matmul %s, %v : tensor<4x16x16xf32>, tensor<4x16x32xf32> -> tensor<4x16x32xf32>
  %o1 = fuse.transpose %o0, permutation = [1, 0, 2] : tensor<4x16x32xf32> -> tensor<16x4x32xf32>
  %o = fuse.reshape %o1 : tensor<16x4x32xf32> -> tensor<16x128xf32>
  return %o : tensor<16x128xf32>
}

// The head split: the store position goes through the transpose's map
// (divisions by the head size), the store is one vector.
// CHECK-LABEL: func.func @fuse_k0_pack
// CHECK-LABEL: func.func @fuse_k0_matmul
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK: arith.divui %{{.*}} : i64
// CHECK: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK-NOT: vector.extract

// Q K^T: the pack kernel reads each row of K (a column of K^T) along k and
// stores it into the panels one lane at a time; the matmul kernel then loads
// vectors from the panels, never from K.
// CHECK-LABEL: func.func @fuse_k2_pack
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr
// CHECK-LABEL: func.func @fuse_k2_matmul
// CHECK-NOT: llvm.alloca
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK: math.fma %{{.*}} : vector<8xf32>

// P V: the head merge on the store, whole vectors again (its kernels are
// numbered after the pack kernels).
// CHECK-LABEL: func.func @fuse_k4_matmul
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
