// Two attention layers reading one boolean mask, built once from a padding
// mask and a causal one as exporters build it (And of broadcasts, then a
// broadcast over the heads). fuse-duplicate-cheap-producers gives each
// attention its own copy of the mask's logic, so each attention kernel
// computes the mask where it reads it from the [2,1,1,24] and [40,24]
// inputs: no kernel stores the [2,1,40,24] mask, and the two layers are two
// kernels. Checked against the reference runtime.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 2 kernels
// CHECK-NEXT: fuse_k0_attention: attention
// CHECK-NEXT: ops {{.*}}and {{.*}}matmul
// CHECK-NEXT: fuse_k1_attention: attention
// CHECK-NEXT: ops {{.*}}and {{.*}}matmul
// CHECK: check: passed, 1 outputs match the reference

func.func @two_layers(%q: tensor<2x4x40x32xf32>, %k: tensor<2x4x24x32xf32>,
                      %v: tensor<2x4x24x32xf32>, %pad: tensor<2x1x1x24xi1>,
                      %causal: tensor<40x24xi1>) -> tensor<2x4x40x32xf32> {
  %pb = fuse.broadcast %pad, dims = [0, 1, 2, 3] : tensor<2x1x1x24xi1> -> tensor<2x1x40x24xi1>
  %cb = fuse.broadcast %causal, dims = [2, 3] : tensor<40x24xi1> -> tensor<2x1x40x24xi1>
  %m = fuse.and %pb, %cb : tensor<2x1x40x24xi1>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<2x1x40x24xi1> -> tensor<2x4x40x24xi1>
  %low = fuse.constant dense<-30.0> : tensor<2x4x40x24xf32>

  %s1 = fuse.matmul %q, %k transpose_b : tensor<2x4x40x32xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x24xf32>
  %t1 = fuse.select %mb, %s1, %low : tensor<2x4x40x24xi1>, tensor<2x4x40x24xf32>
  %x1 = fuse.reduce max %t1 dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %x1b = fuse.broadcast %x1, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %d1 = fuse.sub %t1, %x1b : tensor<2x4x40x24xf32>
  %e1 = fuse.exp %d1 : tensor<2x4x40x24xf32>
  %l1 = fuse.reduce sum %e1 dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %l1b = fuse.broadcast %l1, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %p1 = fuse.div %e1, %l1b : tensor<2x4x40x24xf32>
  %o1 = fuse.matmul %p1, %v : tensor<2x4x40x24xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x32xf32>

  %s2 = fuse.matmul %o1, %k transpose_b : tensor<2x4x40x32xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x24xf32>
  %t2 = fuse.select %mb, %s2, %low : tensor<2x4x40x24xi1>, tensor<2x4x40x24xf32>
  %x2 = fuse.reduce max %t2 dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %x2b = fuse.broadcast %x2, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %d2 = fuse.sub %t2, %x2b : tensor<2x4x40x24xf32>
  %e2 = fuse.exp %d2 : tensor<2x4x40x24xf32>
  %l2 = fuse.reduce sum %e2 dims = [3] keep_dims : tensor<2x4x40x24xf32> -> tensor<2x4x40x1xf32>
  %l2b = fuse.broadcast %l2, dims = [0, 1, 2, 3] : tensor<2x4x40x1xf32> -> tensor<2x4x40x24xf32>
  %p2 = fuse.div %e2, %l2b : tensor<2x4x40x24xf32>
  %o2 = fuse.matmul %p2, %v : tensor<2x4x40x24xf32>, tensor<2x4x24x32xf32> -> tensor<2x4x40x32xf32>
  return %o2 : tensor<2x4x40x32xf32>
}
