// A linear layer with bias and relu through the fusion pipeline and the host
// matmul schedule: one kernel; column strips of two vectors, then of one,
// then the last columns in one vector of which only they are C's (33: two
// strips of 16, then one column: a masked load of B's row at each k, the
// epilogue's reads clamped to column 32 and only that lane stored), each
// with the row blocks of the iteration range inside; six rows per block (65
// rows: the last block's row indices are clamped to row 64) and an FMA per
// row and vector at each k; bias and relu applied to the accumulators
// before the store. B here is computed by a kernel before (a sum of two
// weights), so it is read in place; a weight that is a graph input is packed
// once per binding instead (host-matmul-packed-once.mlir).

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle.txt
// RUN: llvm-nm -u %t/kernels.so | FileCheck %s --allow-empty --check-prefix=UNDEFINED

func.func @linear_relu(%x: tensor<65x127xf32>, %w2: tensor<2x127x33xf32>, %b: tensor<33xf32>) -> tensor<65x33xf32> {
  %w = fuse.reduce sum %w2 dims = [0] : tensor<2x127x33xf32> -> tensor<127x33xf32>
  %y = fuse.matmul %x, %w : tensor<65x127xf32>, tensor<127x33xf32> -> tensor<65x33xf32>
  %bb = fuse.broadcast %b, dims = [1] : tensor<33xf32> -> tensor<65x33xf32>
  %z = fuse.add %y, %bb : tensor<65x33xf32>
  %zero = fuse.constant dense<0.0> : tensor<65x33xf32>
  %r = fuse.max %z, %zero : tensor<65x33xf32>
  return %r : tensor<65x33xf32>
}

// CHECK-LABEL: func.func @fuse_k1_matmul
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK: scf.for %[[BLOCK:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK: arith.minui %{{.*}} : i64
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK: scf.yield
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr
// CHECK-NOT: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK-NOT: scf.if

// LLVM: define void @fuse_k1_matmul(
// LLVM: call <8 x float> @llvm.fma.v8f32(

// SUMMARY: kernels 2
// SUMMARY: kernel 1 fuse_k1_matmul schedule matmul iterations 11 grain {{[0-9]+}}
// SUMMARY: ops 1:matmul 2:broadcast 3:add 4:constant 5:max
// SUMMARY: arena 16764 bytes

// UNDEFINED-NOT: {{.}}
