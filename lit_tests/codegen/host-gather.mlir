// Gathers with run-time indices (fuse.gather) through the fusion pipeline and
// the host's kernels: a gather is an indirect load of its data (a kernel
// input) inside whatever kernel its consumers make. An embedding lookup of
// token ids, the position add and a layer norm are one row-reduction kernel;
// a gather along a middle axis with i32 indices of f16 data fuses with an
// exp; a scalar index along the last axis of i8 data; indices cast from i32
// in the same kernel; the gather of a computed value reads it from memory (its
// producer stays a kernel of its own). An index outside the axis loads
// position 0 and is reported in the kernel's error record (KernelAbi.h, at
// buffers[-1]) under a branch: on a uniform index, its compare; on a vector
// of indices, an and-reduction of the lanes inside, the reported value one of
// the lanes outside. Checked against the reference runtime on random inputs (fuse-run
// --check; the indices are drawn in [-dim, dim), negative ones included).

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s
// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --print-plan --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=PLAN

// The embedding: one index per row of 32, loaded once for the row's vectors.
// CHECK-LABEL: func.func @fuse_k0_rows
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %arg0[-1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[RECORD:.*]] = llvm.load %[[SLOT]]
// CHECK: %[[FLAG:.*]] = llvm.getelementptr %[[RECORD]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: llvm.load {{.*}} -> i64
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult
// CHECK: %[[OUTSIDE:.*]] = arith.xori %[[INSIDE]]
// CHECK: scf.if %[[OUTSIDE]] {
// CHECK: llvm.store %{{.*}} atomic monotonic {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[FLAG]] atomic monotonic {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK: llvm.load {{.*}} -> vector<16xf32>
// CHECK-LABEL: func.func @fuse_k1_pointwise
// CHECK: %[[LANES:.*]] = arith.cmpi ult, %{{.*}} : vector<16xi64>
// CHECK: %[[ALL:.*]] = vector.reduction <and>, %[[LANES]]
// CHECK: %[[SOME_OUTSIDE:.*]] = arith.xori %[[ALL]]
// CHECK: scf.if %[[SOME_OUTSIDE]] {
// CHECK: arith.select %[[LANES]]
// CHECK: vector.reduction <maxsi>
// CHECK: math.exp
// CHECK-LABEL: func.func @fuse_k2_pointwise
// CHECK-LABEL: func.func @fuse_k3_pointwise
// CHECK-LABEL: func.func @fuse_k4_pointwise
// CHECK-LABEL: func.func @fuse_k5_pointwise
// CHECK-NOT: func.func

// PLAN: plan: 6 kernels for 24 ops
// PLAN: kernel 0 fuse_k0_rows: row-reduction
// PLAN-NEXT: ops gather broadcast add reduce
// PLAN: check: passed

func.func @main(%table: tensor<64x32xf32>, %ids: tensor<2x8xi64>,
                %pos: tensor<8x32xf32>, %gamma: tensor<32xf32>,
                %beta: tensor<32xf32>, %h: tensor<4x6x5xf16>,
                %hi: tensor<3xi32>, %b: tensor<5x7xi8>, %k: tensor<i32>,
                %v: tensor<10xf32>, %vi: tensor<6xi32>, %x: tensor<9x4xf32>,
                %xi: tensor<3x2xi64>)
    -> (tensor<2x8x32xf32> {fuse.name = "embedded"},
        tensor<4x3x5xf16> {fuse.name = "middle"},
        tensor<5xi8> {fuse.name = "scalar"},
        tensor<6xf32> {fuse.name = "cast_indices"},
        tensor<3x2x4xf32> {fuse.name = "of_exp"}) {
  %e = fuse.gather %table[%ids] axis = 0 : tensor<64x32xf32>, tensor<2x8xi64> -> tensor<2x8x32xf32>
  %pb = fuse.broadcast %pos, dims = [1, 2] : tensor<8x32xf32> -> tensor<2x8x32xf32>
  %s = fuse.add %e, %pb : tensor<2x8x32xf32>
  %mean = fuse.reduce mean %s dims = [2] keep_dims : tensor<2x8x32xf32> -> tensor<2x8x1xf32>
  %meanb = fuse.broadcast %mean, dims = [0, 1, 2] : tensor<2x8x1xf32> -> tensor<2x8x32xf32>
  %d = fuse.sub %s, %meanb : tensor<2x8x32xf32>
  %d2 = fuse.mul %d, %d : tensor<2x8x32xf32>
  %var = fuse.reduce mean %d2 dims = [2] keep_dims : tensor<2x8x32xf32> -> tensor<2x8x1xf32>
  %eps = fuse.constant dense<1.0e-05> : tensor<2x8x1xf32>
  %ve = fuse.add %var, %eps : tensor<2x8x1xf32>
  %rstd = fuse.rsqrt %ve : tensor<2x8x1xf32>
  %rstdb = fuse.broadcast %rstd, dims = [0, 1, 2] : tensor<2x8x1xf32> -> tensor<2x8x32xf32>
  %n = fuse.mul %d, %rstdb : tensor<2x8x32xf32>
  %g = fuse.broadcast %gamma, dims = [2] : tensor<32xf32> -> tensor<2x8x32xf32>
  %bb = fuse.broadcast %beta, dims = [2] : tensor<32xf32> -> tensor<2x8x32xf32>
  %sc = fuse.mul %n, %g : tensor<2x8x32xf32>
  %y = fuse.add %sc, %bb : tensor<2x8x32xf32>
  %m = fuse.gather %h[%hi] axis = 1 : tensor<4x6x5xf16>, tensor<3xi32> -> tensor<4x3x5xf16>
  %me = fuse.exp %m : tensor<4x3x5xf16>
  %c = fuse.gather %b[%k] axis = 1 : tensor<5x7xi8>, tensor<i32> -> tensor<5xi8>
  %vi64 = fuse.cast %vi : tensor<6xi32> to tensor<6xi64>
  %vg = fuse.gather %v[%vi64] axis = 0 : tensor<10xf32>, tensor<6xi64> -> tensor<6xf32>
  %ex = fuse.exp %x : tensor<9x4xf32>
  %xg = fuse.gather %ex[%xi] axis = 0 : tensor<9x4xf32>, tensor<3x2xi64> -> tensor<3x2x4xf32>
  return %y, %me, %c, %vg, %xg : tensor<2x8x32xf32>, tensor<4x3x5xf16>, tensor<5xi8>, tensor<6xf32>, tensor<3x2x4xf32>
}
