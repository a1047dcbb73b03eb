// Issue 22: the host compiles pointwise and row kernels over symbolic dims
// (symbolic-rows.mlir); a matmul on a symbolic M is refused by the host,
// naming the dim, and the GPU refuses every symbolic module at the kernel
// compiler's entry, before any pass runs. A module fused already too.

// RUN: not fuse-compile %s --target=host -o %t.host 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not fuse-compile %s --target=sm_90 -o %t.gpu 2>&1 | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline -o %t.fused.mlir
// RUN: not fuse-compile %t.fused.mlir --target=host -o %t.fused 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not ls %t.host %t.gpu %t.fused

// HOST: the matmul fusion fuse_k0 (first op fuse.matmul) needs a static value of dim 'sequence': its kernel's code depends on the dim's value; only pointwise and row-reduction kernels over outer symbolic dims take the dims at run time yet (issue 22): bind the dims first (bindDims, fuse-run --dim)
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
