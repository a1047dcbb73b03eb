// A bottleneck block's output (relu of a 1x1 convolution plus the residual)
// read by the next block twice: reshaped, as the input of its first 1x1
// convolution's matmul, and as it is, by its residual add. The kernel that
// computes it writes it once (FormFusions' reshapesKeptOutput): the reshape
// joins the next convolution's kernel, whose matmul reads its B, a fusion
// input, through it (rhsInput). Before, the reshape was a second output of
// the same elements: resnet50's layer-1 blocks wrote 3.2 MB twice. The maps
// are 14x14, 4 column groups of 64: read through the reshape as a computed
// B, the next convolution's B had a pack kernel of its own; read as the
// fusion input it is, its kernel packs B itself, as from a plain input
// (the first convolution reads %y, a graph input: its B is packed once per
// binding, kernel 0). fuse-run --check compares the output with the
// reference runtime's (random inputs). A kernel's "writes" counts its
// outputs and its scratch: kernel 1's block output (25088 B) and its
// scratch, 75264 B when the reshape was a second output.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 4 kernels
// CHECK: kernel 0 fuse_k0_pack:
// CHECK: kernel 1 fuse_k0_matmul: matmul, 9 ops, {{.*}} writes 50176 B
// CHECK-NEXT: ops constant reshape reshape matmul reshape broadcast add add max{{$}}
// CHECK-NOT: _pack
// CHECK: kernel 2 fuse_k2_matmul: matmul,
// CHECK-NEXT: ops constant reshape reshape matmul
// CHECK-NOT: _pack
// CHECK: check: passed, 1 outputs match the reference

func.func @bottleneck(%y: tensor<1x16x14x14xf32>, %r: tensor<1x32x14x14xf32>,
                      %w3: tensor<32x16x1x1xf32>, %b3: tensor<32xf32>,
                      %w1: tensor<16x32x1x1xf32>, %b1: tensor<16xf32>,
                      %w2: tensor<32x16x1x1xf32>, %b2: tensor<32xf32>)
    -> tensor<1x32x14x14xf32> {
  %z32 = fuse.constant dense<0.0> : tensor<1x32x14x14xf32>
  %z16 = fuse.constant dense<0.0> : tensor<1x16x14x14xf32>
  %c3 = fuse.conv %y, %w3, %b3 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>, tensor<32xf32> -> tensor<1x32x14x14xf32>
  %s = fuse.add %c3, %r : tensor<1x32x14x14xf32>
  %t = fuse.max %s, %z32 : tensor<1x32x14x14xf32>
  %c1 = fuse.conv %t, %w1, %b1 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x32x14x14xf32>, tensor<16x32x1x1xf32>, tensor<16xf32> -> tensor<1x16x14x14xf32>
  %u = fuse.max %c1, %z16 : tensor<1x16x14x14xf32>
  %c2 = fuse.conv %u, %w2, %b2 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x16x14x14xf32>, tensor<32x16x1x1xf32>, tensor<32xf32> -> tensor<1x32x14x14xf32>
  %s2 = fuse.add %c2, %t : tensor<1x32x14x14xf32>
  %o = fuse.max %s2, %z32 : tensor<1x32x14x14xf32>
  return %o : tensor<1x32x14x14xf32>
}
