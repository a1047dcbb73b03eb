// Issue 22: the host compiles pointwise and row kernels over symbolic dims
// (symbolic-rows.mlir), and a matmul on symbolic rows (M = batch*sequence)
// with its epilogue: the weight's pack kernel once per binding, the matmul
// an iteration per row, its scratch a constant beside its result's bytes. A
// matmul whose columns are symbolic (attention's scores) is refused by the
// host, naming the dims, and the GPU refuses the matmul fusion, naming its
// schedule (its pointwise and row kernels take the dims at run time:
// codegen/gpu-symbolic-*.mlir). A module fused already too.

// RUN: rm -rf %t.host %t.fused && fuse-compile %s --target=host -o %t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host/bundle.txt
// RUN: not fuse-compile %s --target=sm_90 -o %t.gpu 2>&1 | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline -o %t.fused.mlir
// RUN: fuse-compile %t.fused.mlir --target=host -o %t.fused
// RUN: FileCheck %s --check-prefix=HOST < %t.fused/bundle.txt
// RUN: not fuse-compile %S/Inputs/symbolic-matmul.mlir --target=host -o %t.scores 2>&1 | FileCheck %s --check-prefix=SCORES
// RUN: not ls %t.gpu %t.scores

// HOST: kernels 2
// HOST-NEXT: kernel 0 fuse_k0_pack schedule matmul iterations 64 grain {{[0-9]+}} once per binding
// HOST: kernel 1 fuse_k0_matmul schedule matmul iterations batch*sequence grain {{[0-9]+}}{{$}}
// HOST: arena planned per binding of the dims
// HOST-NEXT: arena#0 tensor %{{[0-9]+}} bytes batch*sequence*256+16384
// SCORES: the matmul fusion fuse_k0 (first op fuse.matmul) needs a static value of dims 'batch', 'sequence': its kernel's code depends on the dim's value; only pointwise, gather and row-reduction kernels, matmuls whose rows (M) alone are symbolic, and attention over a runtime length take the dims at run time yet (issue 22): bind the dims first (bindDims, fuse-run --dim)
// CHECK: the matmul fusion fuse_k0 needs a static value of dims 'batch', 'sequence': the GPU compiler has no matmul kernel that takes the dims at run time; only pointwise kernels (gathers and concats among them) and row-reduction kernels whose rows alone are symbolic take them yet (issue 22): bind the dims first (bindDims, fuse-run --dim)

func.func @layer(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
                 %w: tensor<64x64xf32>, %b: tensor<64xf32>)
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  %m = fuse.matmul %x, %w : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %b, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.add %m, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %s : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
