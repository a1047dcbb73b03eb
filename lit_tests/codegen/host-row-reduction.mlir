// Softmax through the fusion pipeline and the host row schedule: one kernel,
// one row per iteration, a vectorized pass over the row for the max, one for
// the sum of exponentials (which it keeps in a row buffer on the stack), each
// with four independent accumulators and then a one-vector loop for the rest,
// and one that stores the result (from the kept exponentials, the division by
// the row's sum a multiply by its reciprocal).

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle.txt
// RUN: llvm-nm -u %t/kernels.so | FileCheck %s --allow-empty --check-prefix=UNDEFINED

func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %m = fuse.reduce max %x dims = [1] keep_dims : tensor<64x1000xf32> -> tensor<64x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x1000xf32>
  %d = fuse.sub %x, %mb : tensor<64x1000xf32>
  %e = fuse.exp %d : tensor<64x1000xf32>
  %s = fuse.reduce sum %e dims = [1] keep_dims : tensor<64x1000xf32> -> tensor<64x1xf32>
  %sb = fuse.broadcast %s, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x1000xf32>
  %y = fuse.div %e, %sb : tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

// CHECK-LABEL: func.func @fuse_k0_rows
// CHECK: llvm.alloca %{{.*}} x f32
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}}) -> (vector<8xf32>)
// CHECK: vector.reduction <maximumf>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}}) -> (vector<8xf32>)
// CHECK: vector.reduction <add>
// CHECK-NOT: math.exp
// CHECK: arith.divf %{{.*}} : f32
// CHECK: arith.mulf %{{.*}} : vector<8xf32>
// CHECK: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr

// SUMMARY: kernels 1
// SUMMARY: kernel 0 fuse_k0_rows schedule row-reduction iterations 64 grain 32
// SUMMARY: ops 0:reduce 1:broadcast 2:sub 3:exp 4:reduce 5:broadcast 6:div
// SUMMARY: arena 0 bytes

// UNDEFINED-NOT: {{.}}
