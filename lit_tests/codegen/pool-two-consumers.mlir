// A max pool read by two 1x1 convolutions, as resnet50's stem feeds its
// first block's convolution and its downsample: each convolution's lowering
// reshapes the pooled map ([1, C, H, W] -> [1, C, H * W]), and both reshapes
// join the pool's kernel. They are the same op on the same operand, but the
// compiler tags each with the graph op it stands for (fuse.op_index), so
// CSE keeps both and the kernel wrote the map twice; the fusion yields it
// once now (FusionOp::canonicalize, sameComputation). fuse-run --check
// compares both outputs with the reference runtime's (random inputs).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 3 kernels
// CHECK: kernel 0 {{.*}}: window-reduction, 2 ops, {{.*}} writes 8192 B
// CHECK-NEXT: ops pool reshape{{$}}
// CHECK: check: passed, 2 outputs match the reference

func.func @pool_two_consumers(%x: tensor<1x8x32x32xf32>,
                              %w1: tensor<16x8x1x1xf32>, %b1: tensor<16xf32>,
                              %w2: tensor<32x8x1x1xf32>, %b2: tensor<32xf32>)
    -> (tensor<1x16x16x16xf32>, tensor<1x32x16x16xf32>) {
  %p = fuse.pool max %x window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1]
      : tensor<1x8x32x32xf32> -> tensor<1x8x16x16xf32>
  %0 = fuse.conv %p, %w1, %b1 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x8x16x16xf32>, tensor<16x8x1x1xf32>, tensor<16xf32> -> tensor<1x16x16x16xf32>
  %1 = fuse.conv %p, %w2, %b2 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x8x16x16xf32>, tensor<32x8x1x1xf32>, tensor<32xf32> -> tensor<1x32x16x16xf32>
  return %0, %1 : tensor<1x16x16x16xf32>, tensor<1x32x16x16xf32>
}
