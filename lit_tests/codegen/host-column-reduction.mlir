// A column RMS through the fusion pipeline and the host column schedule: one
// kernel, a chunk of columns per iteration; for each vector of columns one
// pass down the 256 rows with a vector accumulator (no horizontal
// reduction), then the mean and the square root on the vector and one vector
// store; the 100 % 8 = 4 last columns one at a time.

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle.txt

func.func @column_rms(%x: tensor<256x100xf32>) -> tensor<100xf32> {
  %sq = fuse.mul %x, %x : tensor<256x100xf32>
  %m = fuse.reduce mean %sq dims = [0] : tensor<256x100xf32> -> tensor<100xf32>
  %r = fuse.sqrt %m : tensor<100xf32>
  return %r : tensor<100xf32>
}

// CHECK-LABEL: func.func @fuse_k0_columns
// CHECK: scf.for %[[CHUNK:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK: scf.for {{.*}} iter_args(%{{.*}}) -> (vector<8xf32>)
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK: arith.mulf %{{.*}} : vector<8xf32>
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK-NOT: vector.reduction
// CHECK: arith.divf %{{.*}} : vector<8xf32>
// CHECK: math.sqrt %{{.*}} : vector<8xf32>
// CHECK: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK: scf.for {{.*}} iter_args(%{{.*}}) -> (f32)
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr

// SUMMARY: kernels 1
// SUMMARY: kernel 0 fuse_k0_columns schedule column-reduction iterations 4 grain {{[0-9]+}}
// SUMMARY: ops 0:mul 1:reduce 2:sqrt
