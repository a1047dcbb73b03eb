// Convolutions for the GPU, through fuse-lower-convolutions. A 1x1
// convolution (one patch: a reshape and a matmul) is a matmul kernel that
// ptxas assembles for sm_80 and sm_90 (fuse-compile runs it: a cubin per
// kernel). A larger kernel or padding needs fuse.concat, which the GPU's
// pointwise schedule does not generate yet: refused with that reason until
// the implicit-GEMM schedule of issue 20 replaces the lowering.

// REQUIRES: ptxas
// RUN: rm -rf %t && fuse-compile %s --target=sm_80 -o %t/sm_80 && fuse-compile %s --target=sm_90 -o %t/sm_90
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/sm_80/bundle.txt
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/sm_90/bundle.txt
// RUN: ls %t/sm_80 | FileCheck %s --check-prefix=FILES
// RUN: fuse-compile %s --target=sm_80 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: not fuse-compile %S/conv.mlir --target=sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=CONCAT

// BUNDLE: schedule matmul
// FILES: fuse_k{{[0-9]+}}_matmul.cubin
// PTX: .entry fuse_k{{[0-9]+}}_matmul
// CONCAT: 'fuse.concat' op cannot be generated for the GPU in a pointwise kernel: it is not elementwise and not an index map

func.func @pointwise_conv_relu(%x: tensor<1x32x8x8xf32>, %w: tensor<64x32x1x1xf32>, %b: tensor<64xf32>)
    -> tensor<1x64x8x8xf32> {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x32x8x8xf32>, tensor<64x32x1x1xf32>, tensor<64xf32> -> tensor<1x64x8x8xf32>
  %z = fuse.constant dense<0.0> : tensor<1x64x8x8xf32>
  %y = fuse.max %c, %z : tensor<1x64x8x8xf32>
  return %y : tensor<1x64x8x8xf32>
}
