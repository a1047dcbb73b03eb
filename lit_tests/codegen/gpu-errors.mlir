// GPU code generation errors name the op and the schedule kind, and never
// leave a partial bundle behind.

// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s
// RUN: not fuse-compile %s --target=sm_80 --emit=ptx 2>&1 | FileCheck %s
// RUN: not fuse-compile %s --target=sm_90 --emit=llvm 2>&1 | FileCheck %s --check-prefix=EMIT

func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %r = fuse.fusion matmul (%a, %b) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x3xf32>):
    %m = fuse.matmul %x, %y : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    fuse.yield %m : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// CHECK: error: {{.*}}GPU code generation for sm_{{[89]}}0 failed: {{.*}}'fuse.matmul' op cannot be generated for the GPU: the matmul schedule has no GPU code generator yet

// EMIT: error: unknown --emit=llvm for target sm_90; expected fused, kernels, nvvm or ptx
