// Convolutions for the GPU, through fuse-lower-convolutions. A 1x1
// convolution (the input is the column matrix: a reshape and a matmul) is a
// matmul kernel that ptxas assembles for sm_80 and sm_90 (fuse-compile runs
// it: a cubin per kernel). A larger kernel, strides or padding add the
// column matrix (fuse.im2col) as a window kernel before the matmul:
// lit_tests/codegen/conv.mlir's convolutions, each a window kernel and a
// matmul kernel for the GPU.

// REQUIRES: ptxas
// RUN: rm -rf %t && fuse-compile %s --target=sm_80 -o %t/sm_80 && fuse-compile %s --target=sm_90 -o %t/sm_90
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/sm_80/bundle.txt
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/sm_90/bundle.txt
// RUN: ls %t/sm_80 | FileCheck %s --check-prefix=FILES
// RUN: fuse-compile %s --target=sm_80 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t/conv && fuse-compile %S/conv.mlir --target=sm_80 -o %t/conv
// RUN: FileCheck %s --check-prefix=IM2COL < %t/conv/bundle.txt

// BUNDLE: schedule matmul
// FILES: fuse_k{{[0-9]+}}_matmul.cubin
// PTX: .entry fuse_k{{[0-9]+}}_matmul
// IM2COL: schedule window-reduction
// IM2COL: schedule matmul

func.func @pointwise_conv_relu(%x: tensor<1x32x8x8xf32>, %w: tensor<64x32x1x1xf32>, %b: tensor<64xf32>)
    -> tensor<1x64x8x8xf32> {
  %c = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] group = 1
      : tensor<1x32x8x8xf32>, tensor<64x32x1x1xf32>, tensor<64xf32> -> tensor<1x64x8x8xf32>
  %z = fuse.constant dense<0.0> : tensor<1x64x8x8xf32>
  %y = fuse.max %c, %z : tensor<1x64x8x8xf32>
  return %y : tensor<1x64x8x8xf32>
}
