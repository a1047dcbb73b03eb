// A fusion the passes form but code generation cannot schedule is split into
// one kernel per op instead of failing the compile. Here fuse-fusion-pipeline
// puts the row reduction of %m and the select over %s in one row_reduction
// fusion, and the broadcast of the rows' comparison into the leading size-1
// dims of %s is not a read "at its own row" that the row kernel accepts.
// The fused IR keeps one fusion (FUSED); host and GPU code generation split
// it (PLAN, GPU), and the split host code matches the reference (--check).

// RUN: fuse-compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --print-plan --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=GPU

// FUSED-COUNT-1: fuse.fusion row_reduction
// FUSED-NOT: fuse.fusion

// PLAN: fuse-run: note: a fusion of 4 ops was split into 4 kernels, which code generation can schedule: {{.*}}'fuse.broadcast' op cannot be generated for the host in a row_reduction kernel
// PLAN: plan: 4 kernels for 6 ops
// PLAN: row-reduction, 1 ops
// PLAN-NEXT: ops reduce
// PLAN: ops broadcast
// PLAN: check: passed

// GPU-COUNT-4: gpu.module @fuse_k

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
