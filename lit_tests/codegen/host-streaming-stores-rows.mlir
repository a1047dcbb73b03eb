// A row kernel's store pass (softmax's divide) writes an output of 32 MiB
// or more around the caches when its rows are a multiple of the vector width
// and the output's address is aligned (the branch), as pointwise kernels do
// (host-streaming-stores.mlir); the reductions' passes store nothing.
//
// With the output aligned, softmax's rows are stored during the next row's
// exp pass (emitPipelinedRows): the row loop carries the row before's max
// and sum, the stash holds two rows (the row's and the row before's, 2 x
// 2048 f32), each unrolled iteration of the exp pass (4 vectors) ends with
// the row before's 4 streaming stores, and the call's last row is stored
// after the loop. Misaligned, the other branch's rows store after their own
// passes, with cached stores. Numerics: HostCodegen tests
// SoftmaxRowsStoredDuringTheNextRowOverAnyCall and
// StreamingStoresForLargeOutputsAlignedOrNot.

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm-dialect | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=KERNELS

// CHECK-LABEL: llvm.func @fuse_k0_rows
// CHECK: llvm.cond_br
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// CHECK: llvm.return

// KERNELS-LABEL: func.func @fuse_k0_rows
// KERNELS: llvm.alloca %c4096_i64 x f32
// KERNELS: scf.if
// KERNELS: scf.for %{{.*}} = %arg1 to %arg2 step %c1_i64 iter_args(%{{.*}}, %{{.*}}) -> (f32, f32)
// KERNELS: scf.for {{.*}} step %c64_i64{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// KERNELS-COUNT-4: math.exp
// KERNELS-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// KERNELS-NEXT: scf.yield
// KERNELS: scf.yield %{{.*}}, %{{.*}} : f32, f32
// KERNELS: scf.if
// KERNELS: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// KERNELS: } else {
// KERNELS: scf.for %{{.*}} = %arg1 to %arg2 step %c1_i64 : i64 {
// KERNELS-NOT: nontemporal
// KERNELS: return

func.func @softmax(%x: tensor<4096x2048xf32>) -> tensor<4096x2048xf32> {
  %m = fuse.reduce max %x dims = [1] keep_dims : tensor<4096x2048xf32> -> tensor<4096x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<4096x1xf32> -> tensor<4096x2048xf32>
  %d = fuse.sub %x, %mb : tensor<4096x2048xf32>
  %e = fuse.exp %d : tensor<4096x2048xf32>
  %s = fuse.reduce sum %e dims = [1] keep_dims : tensor<4096x2048xf32> -> tensor<4096x1xf32>
  %sb = fuse.broadcast %s, dims = [0, 1] : tensor<4096x1xf32> -> tensor<4096x2048xf32>
  %y = fuse.div %e, %sb : tensor<4096x2048xf32>
  return %y : tensor<4096x2048xf32>
}
