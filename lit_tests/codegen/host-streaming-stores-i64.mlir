// Streaming stores of a 16 x i64 vector (128 bytes) declare 64-byte
// alignment, what the kernel's address check proves: the vector is stored
// as 64-byte parts.

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm-dialect | FileCheck %s

// CHECK-LABEL: llvm.func @fuse_k0_pointwise
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xi64>, !llvm.ptr

func.func @wide(%x: tensor<4096x1024xi64>) -> tensor<4096x1024xi64> {
  %0 = fuse.mul %x, %x : tensor<4096x1024xi64>
  return %0 : tensor<4096x1024xi64>
}
