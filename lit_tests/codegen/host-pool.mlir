// Window reductions (fuse.pool) through the fusion pipeline and the host's
// window_reduction schedule: the pool and its pointwise consumers are one
// kernel (`_window`) over the pool's output, each element reading its window
// from the operand (a kernel input) at gathered positions, masked where the
// window falls in the padding. Checked against the reference runtime on random
// inputs (fuse-run --check): ResNet's stem pooling with a fused bias add and
// relu, an average pool with count_include_pad and ceil_mode, an f16 average
// pool without counting the padding, a dilated 1-D max pool of i8 and a pool of
// a computed value (its producer stays a kernel of its own).

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s
// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --print-plan --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @fuse_k0_window
// CHECK: vector<16xf32>
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @fuse_k1_window
// CHECK: arith.divf
// CHECK-LABEL: func.func @fuse_k2_window
// CHECK-LABEL: func.func @fuse_k3_window
// CHECK: arith.maxsi
// CHECK-LABEL: func.func @fuse_k4_pointwise
// CHECK-LABEL: func.func @fuse_k5_window
// CHECK-NOT: func.func

// PLAN: plan: 6 kernels for 9 ops
// PLAN: check: passed

func.func @main(%x: tensor<2x8x17x17xf32>, %bias: tensor<2x8x9x9xf32>,
                %h: tensor<1x3x10x7xf16>, %i: tensor<2x3x20xi8>)
    -> (tensor<2x8x9x9xf32> {fuse.name = "stem"}, tensor<2x8x9x8xf32> {fuse.name = "avg"},
        tensor<1x3x4x4xf16> {fuse.name = "half"}, tensor<2x3x9xi8> {fuse.name = "dilated"},
        tensor<2x8x7x7xf32> {fuse.name = "of_exp"}) {
  %m = fuse.pool max %x window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<2x8x17x17xf32> -> tensor<2x8x9x9xf32>
  %s = fuse.add %m, %bias : tensor<2x8x9x9xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x8x9x9xf32>
  %r = fuse.max %s, %zero : tensor<2x8x9x9xf32>
  %a = fuse.pool mean %x window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 0, 1, 0] ceil_mode count_include_pad : tensor<2x8x17x17xf32> -> tensor<2x8x9x8xf32>
  %f = fuse.pool mean %h window = [3, 2] strides = [3, 2] dilations = [1, 1] pads = [1, 1, 1, 0] : tensor<1x3x10x7xf16> -> tensor<1x3x4x4xf16>
  %d = fuse.pool max %i window = [4] strides = [2] dilations = [2] pads = [2, 1] : tensor<2x3x20xi8> -> tensor<2x3x9xi8>
  %e = fuse.exp %x : tensor<2x8x17x17xf32>
  %p = fuse.pool max %e window = [4, 4] strides = [3, 3] dilations = [1, 1] pads = [2, 2, 2, 2] ceil_mode : tensor<2x8x17x17xf32> -> tensor<2x8x7x7xf32>
  return %r, %a, %f, %d, %p : tensor<2x8x9x9xf32>, tensor<2x8x9x8xf32>, tensor<1x3x4x4xf16>, tensor<2x3x9xi8>, tensor<2x8x7x7xf32>
}
