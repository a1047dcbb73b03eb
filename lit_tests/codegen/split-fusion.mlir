// fuse-fusion-pipeline puts the row reduction of %m and the select over %s
// in one row_reduction fusion (FUSED). The broadcast of the rows' comparison
// into %s's leading size-1 dims reads each row's value at its own row: the
// host generates the fusion as one row kernel, and it matches the reference
// (PLAN). The GPU builds its row kernel from the same legality rule
// (passes/ScheduleLegality), so it too generates one row kernel, with no split
// (GPU); before that rule was shared, the GPU split this fusion into 4.

// RUN: fuse-compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --print-plan --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: fuse-compile %s --target=sm_90 --emit=kernels 2>&1 | FileCheck %s --check-prefix=GPU

// FUSED-COUNT-1: fuse.fusion row_reduction
// FUSED-NOT: fuse.fusion

// PLAN-NOT: note
// PLAN: plan: 1 kernel for 6 ops
// PLAN-NEXT: row-reduction, 6 ops
// PLAN: check: passed

// GPU-NOT: note
// GPU-COUNT-1: gpu.module @fuse_k
// GPU-NOT: gpu.module
// GPU-NOT: note

func.func @main(%m: tensor<4x6xf32>, %s: tensor<1x1x4x6xf32>)
    -> (tensor<1x1x4x6xf32> {fuse.name = "y"}) {
  %r = fuse.reduce max %m dims = [1] : tensor<4x6xf32> -> tensor<4xf32>
  %zero = fuse.constant dense<0.0> : tensor<4xf32>
  %c = fuse.compare gt, %r, %zero : tensor<4xf32>
  %b = fuse.broadcast %c, dims = [2] : tensor<4xi1> -> tensor<1x1x4x6xi1>
  %k = fuse.constant dense<-1.0> : tensor<1x1x4x6xf32>
  %y = fuse.select %b, %s, %k : tensor<1x1x4x6xi1>, tensor<1x1x4x6xf32>
  return %y : tensor<1x1x4x6xf32>
}
