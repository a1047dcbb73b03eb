// Resize as the ONNX importer lowers it (issue 20), on the GPU: a bilinear
// x2 upsample of f16 (per axis two gathers with constant i32 indices, the
// casts to f32 after them, constant weights broadcast along the axis, a
// multiply-add; the second axis rounds to f16 once at the end) is two
// pointwise kernels, one per axis (a gather reads its data from memory, so
// the second axis's gathers read the first's result): the columns first, on
// the smaller tensor, lane by lane; then the rows, on the larger, each
// output row a whole input row read with vector loads; a nearest x2 upsample
// (reshape, broadcast, reshape) is one pointwise kernel with no gather.
// ptxas accepts the PTX for sm_90 and sm_80 without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_pointwise.ptx -o %t/a90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_pointwise.ptx -o %t/a80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k1_pointwise.ptx -o %t/b90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k1_pointwise.ptx -o %t/b80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k2_pointwise.ptx -o %t/c90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k2_pointwise.ptx -o %t/c80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// KERNELS-LABEL: gpu.func @fuse_k0_pointwise
// KERNELS: llvm.load {{.*}} -> vector<4xi32>
// KERNELS: arith.extf {{.*}} : vector<4xf16> to vector<4xf32>
// KERNELS-LABEL: gpu.func @fuse_k1_pointwise
// KERNELS: llvm.load {{.*}} -> i32
// KERNELS: llvm.load {{.*}} -> vector<4xf32>
// KERNELS: arith.truncf {{.*}} : vector<4xf32> to vector<4xf16>
// KERNELS-LABEL: gpu.func @fuse_k2_pointwise
// KERNELS-NOT: -> i32
// KERNELS: llvm.store

// SUMMARY: kernel 0 fuse_k0_pointwise schedule pointwise
// SUMMARY: kernel 1 fuse_k1_pointwise schedule pointwise
// SUMMARY: kernel 2 fuse_k2_pointwise schedule pointwise

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @main(%x: tensor<1x32x28x28xf16>,
                %iw0: tensor<56xi32>, %iw1: tensor<56xi32>,
                %ww0: tensor<56xf32>, %ww1: tensor<56xf32>,
                %ih0: tensor<56xi32>, %ih1: tensor<56xi32>,
                %wh0: tensor<56xf32>, %wh1: tensor<56xf32>,
                %n: tensor<1x32x28x28xf32>)
    -> (tensor<1x32x56x56xf16>, tensor<1x32x56x56xf32>) {
  %a = fuse.gather %x[%iw0] axis = 3 : tensor<1x32x28x28xf16>, tensor<56xi32> -> tensor<1x32x28x56xf16>
  %b = fuse.gather %x[%iw1] axis = 3 : tensor<1x32x28x28xf16>, tensor<56xi32> -> tensor<1x32x28x56xf16>
  %af = fuse.cast %a : tensor<1x32x28x56xf16> to tensor<1x32x28x56xf32>
  %bf = fuse.cast %b : tensor<1x32x28x56xf16> to tensor<1x32x28x56xf32>
  %ww0r = fuse.reshape %ww0 : tensor<56xf32> -> tensor<1x1x1x56xf32>
  %ww0b = fuse.broadcast %ww0r, dims = [0, 1, 2, 3] : tensor<1x1x1x56xf32> -> tensor<1x32x28x56xf32>
  %ww1r = fuse.reshape %ww1 : tensor<56xf32> -> tensor<1x1x1x56xf32>
  %ww1b = fuse.broadcast %ww1r, dims = [0, 1, 2, 3] : tensor<1x1x1x56xf32> -> tensor<1x32x28x56xf32>
  %am = fuse.mul %af, %ww0b : tensor<1x32x28x56xf32>
  %bm = fuse.mul %bf, %ww1b : tensor<1x32x28x56xf32>
  %w = fuse.add %am, %bm : tensor<1x32x28x56xf32>
  %c = fuse.gather %w[%ih0] axis = 2 : tensor<1x32x28x56xf32>, tensor<56xi32> -> tensor<1x32x56x56xf32>
  %d = fuse.gather %w[%ih1] axis = 2 : tensor<1x32x28x56xf32>, tensor<56xi32> -> tensor<1x32x56x56xf32>
  %wh0r = fuse.reshape %wh0 : tensor<56xf32> -> tensor<1x1x56x1xf32>
  %wh0b = fuse.broadcast %wh0r, dims = [0, 1, 2, 3] : tensor<1x1x56x1xf32> -> tensor<1x32x56x56xf32>
  %wh1r = fuse.reshape %wh1 : tensor<56xf32> -> tensor<1x1x56x1xf32>
  %wh1b = fuse.broadcast %wh1r, dims = [0, 1, 2, 3] : tensor<1x1x56x1xf32> -> tensor<1x32x56x56xf32>
  %cm = fuse.mul %c, %wh0b : tensor<1x32x56x56xf32>
  %dm = fuse.mul %d, %wh1b : tensor<1x32x56x56xf32>
  %h = fuse.add %cm, %dm : tensor<1x32x56x56xf32>
  %y = fuse.cast %h : tensor<1x32x56x56xf32> to tensor<1x32x56x56xf16>
  %n1 = fuse.reshape %n : tensor<1x32x28x28xf32> -> tensor<1x32x28x1x28x1xf32>
  %n2 = fuse.broadcast %n1, dims = [0, 1, 2, 3, 4, 5] : tensor<1x32x28x1x28x1xf32> -> tensor<1x32x28x2x28x2xf32>
  %z = fuse.reshape %n2 : tensor<1x32x28x2x28x2xf32> -> tensor<1x32x56x56xf32>
  return %y, %z : tensor<1x32x56x56xf16>, tensor<1x32x56x56xf32>
}
