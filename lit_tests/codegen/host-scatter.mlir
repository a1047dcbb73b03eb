// Scatters on the host (HostScatterEmitter.cpp): each a kernel of its own
// (the scatter schedule), whose iterations are the columns of the data
// viewed as [N, inner]: a chunk copies its columns of the data row by row,
// then applies the updates in index order, each index wrapped and checked
// (outside the rows: reported in the error record at buffers[-1], nothing
// written), its row segment stored, or combined with the update (here an
// integer add). Checked against the reference runtime on random inputs
// (fuse-run --check).

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s
// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --print-plan --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @fuse_k0_scatter
// CHECK: llvm.getelementptr %arg0[-1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: scf.for
// CHECK: llvm.load {{.*}} -> vector<16xf32>
// CHECK: llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult
// CHECK: %[[OUTSIDE:.*]] = arith.xori %[[INSIDE]]
// CHECK: scf.if %[[OUTSIDE]] {
// CHECK: llvm.store {{.*}} atomic monotonic
// CHECK: scf.if %[[INSIDE]] {
// CHECK-LABEL: func.func @fuse_k1_scatter
// CHECK: scf.if
// CHECK: arith.addi {{.*}} : vector<16xi32>
// CHECK-NOT: func.func

// PLAN: plan: 2 kernels for 2 ops
// PLAN: kernel 0 fuse_k0_scatter: scatter
// PLAN: kernel 1 fuse_k1_scatter: scatter
// PLAN: check: passed, 2 outputs match the reference

func.func @main(%cache: tensor<64x40xf32>, %pos: tensor<3xi64>, %rows: tensor<3x40xf32>,
                %x: tensor<10x33xi32>, %i: tensor<6xi32>, %u: tensor<6x33xi32>)
    -> (tensor<64x40xf32> {fuse.name = "cache"}, tensor<10x33xi32> {fuse.name = "added"}) {
  %c = fuse.scatter %cache[%pos] = %rows : tensor<64x40xf32>, tensor<3xi64>, tensor<3x40xf32> -> tensor<64x40xf32>
  %a = fuse.scatter %x[%i] = %u reduction = add : tensor<10x33xi32>, tensor<6xi32>, tensor<6x33xi32> -> tensor<10x33xi32>
  return %c, %a : tensor<64x40xf32>, tensor<10x33xi32>
}
