// Window reductions on the GPU: the same window_reduction schedule as the
// host's (one definition in RegionEmitterBase::emitPool), in the GPU's
// pointwise loop: one thread per 4 outputs, each window position a gathered
// load masked in the padding, the fused relu applied before the store.
// ptxas accepts the PTX for sm_90 and sm_80 without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_window.ptx -o %t/a90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_window.ptx -o %t/a80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k1_window.ptx -o %t/b90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k1_window.ptx -o %t/b80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// KERNELS-LABEL: gpu.func @fuse_k0_window
// KERNELS: arith.maximumf {{.*}} : vector<4xf32>
// KERNELS: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// KERNELS-LABEL: gpu.func @fuse_k1_window
// KERNELS: arith.divf {{.*}} : vector<4xf32>

// SUMMARY: kernel 0 fuse_k0_window schedule window-reduction
// SUMMARY: kernel 1 fuse_k1_window schedule window-reduction

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @main(%x: tensor<1x64x112x112xf32>, %h: tensor<1x16x15x15xf16>)
    -> (tensor<1x64x56x56xf32>, tensor<1x16x8x8xf16>) {
  %m = fuse.pool max %x window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x64x56x56xf32>
  %r = fuse.max %m, %zero : tensor<1x64x56x56xf32>
  %a = fuse.pool mean %h window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] count_include_pad : tensor<1x16x15x15xf16> -> tensor<1x16x8x8xf16>
  return %r, %a : tensor<1x64x56x56xf32>, tensor<1x16x8x8xf16>
}
