// Issue 22: the fusion passes run on symbolic dims, code generation does not
// yet. fuse-compile refuses a module with a `?` dim at the kernel compiler's
// entry, naming the dim, before any pass runs: for the host and the GPU, for
// a module fused already too.

// RUN: not fuse-compile %s --target=host -o %t.host 2>&1 | FileCheck %s
// RUN: not fuse-compile %s --target=sm_90 -o %t.gpu 2>&1 | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline -o %t.fused.mlir
// RUN: not fuse-compile %t.fused.mlir --target=host -o %t.fused 2>&1 | FileCheck %s
// RUN: not ls %t.host %t.gpu %t.fused

// CHECK: the kernel compiler needs static dims, but dim 0 (batch) of tensor 0 (x), tensor<?{batch}x?{sequence}x64xf32>, is symbolic; code generation on symbolic dims is not implemented yet (issue 22): bind the dims (bindDims) first

func.func @layer(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
                 %w: tensor<64x64xf32>, %b: tensor<64xf32>)
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  %m = fuse.matmul %x, %w : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %b, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.add %m, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %s : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
