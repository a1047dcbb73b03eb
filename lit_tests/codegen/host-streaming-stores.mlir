// A pointwise kernel whose output holds 32 MiB or more stores its vectors
// around the caches (llvm.store ... nontemporal, aligned to the vector) when
// the output's address is a multiple of 64 bytes, and with plain stores
// otherwise (the branch on the address); a smaller output always takes plain
// stores. So does a row kernel's store pass when its rows are a multiple of
// the vector width (host-streaming-stores-rows.mlir). Numbers:
// HostCodegen.StreamingStoresForLargeOutputsAlignedOrNot.

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm-dialect | FileCheck %s --check-prefix=V4
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=llvm-dialect | FileCheck %s --check-prefix=V3

// V4-LABEL: llvm.func @fuse_k0_pointwise
// V4: llvm.and %{{.*}}, %{{.*}} : i64
// V4: llvm.cond_br
// V4: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// V4-NOT: nontemporal
// V4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// V4-NOT: nontemporal
// V4-LABEL: llvm.func @fuse_k1_pointwise
// V4-NOT: nontemporal
// V4: llvm.return

// V3-LABEL: llvm.func @fuse_k0_pointwise
// V3: llvm.store %{{.*}}, %{{.*}} {alignment = 32 : i64, nontemporal} : vector<8xf32>, !llvm.ptr
// V3-LABEL: llvm.func @fuse_k1_pointwise
// V3-NOT: nontemporal
// V3: llvm.return

func.func @big(%x: tensor<4096x2048xf32>, %s: tensor<4096x2047xf32>) -> (tensor<4096x2048xf32>, tensor<4096x2047xf32>) {
  %0 = fuse.mul %x, %x : tensor<4096x2048xf32>
  %1 = fuse.exp %s : tensor<4096x2047xf32>
  return %0, %1 : tensor<4096x2048xf32>, tensor<4096x2047xf32>
}

