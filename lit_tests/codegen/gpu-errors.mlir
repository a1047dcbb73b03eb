// GPU code generation errors name the op and the schedule kind, and never
// leave a partial bundle behind.

// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s
// RUN: not fuse-compile %s --target=sm_80 --emit=ptx 2>&1 | FileCheck %s
// RUN: not fuse-compile %s --target=sm_90 --emit=llvm 2>&1 | FileCheck %s --check-prefix=EMIT

func.func @split_columns(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %r = fuse.fusion column_reduction (%x) : (tensor<4x8x16xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4x8x16xf32>):
    %s = fuse.reduce sum %a dims = [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
    fuse.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// CHECK: error: {{.*}}GPU code generation for sm_{{[89]}}0 failed: {{.*}}gpu-errors.mlir:11:10: 'fuse.reduce' op cannot be generated for the GPU in a column_reduction kernel: its reduced dims are not consecutive

// EMIT: error: unknown --emit=llvm for target sm_90; expected fused, kernels, nvvm or ptx
