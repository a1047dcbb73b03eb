// A row kernel's store pass (softmax's divide) writes an output of 32 MiB
// or more around the caches when its rows are a multiple of the vector width
// and the output's address is aligned (the branch), as pointwise kernels do
// (host-streaming-stores.mlir); the reductions' passes store nothing.

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm-dialect | FileCheck %s

// CHECK-LABEL: llvm.func @fuse_k0_rows
// CHECK: llvm.cond_br
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// CHECK: llvm.return

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
