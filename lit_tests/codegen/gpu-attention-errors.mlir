// A hand-written attention fusion larger than the GPU's attention kernel
// holds (9000 keys: a row of scores would not fit its shared memory; the
// fusion passes never form one) is an error naming the op, the target and
// the limit; the host (16384 keys) compiles it.

// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=HOST

func.func @long(%q: tensor<1x4x8xf32>, %k: tensor<1x9000x8xf32>, %v: tensor<1x9000x8xf32>) -> tensor<1x4x8xf32> {
  %r = fuse.fusion attention (%q, %k, %v) : (tensor<1x4x8xf32>, tensor<1x9000x8xf32>, tensor<1x9000x8xf32>) -> tensor<1x4x8xf32> {
  ^bb0(%a: tensor<1x4x8xf32>, %b: tensor<1x9000x8xf32>, %c: tensor<1x9000x8xf32>):
    %s = fuse.matmul %a, %b transpose_b : tensor<1x4x8xf32>, tensor<1x9000x8xf32> -> tensor<1x4x9000xf32>
    %m = fuse.reduce max %s dims = [2] keep_dims : tensor<1x4x9000xf32> -> tensor<1x4x1xf32>
    %mb = fuse.broadcast %m, dims = [0, 1, 2] : tensor<1x4x1xf32> -> tensor<1x4x9000xf32>
    %d = fuse.sub %s, %mb : tensor<1x4x9000xf32>
    %e = fuse.exp %d : tensor<1x4x9000xf32>
    %l = fuse.reduce sum %e dims = [2] keep_dims : tensor<1x4x9000xf32> -> tensor<1x4x1xf32>
    %lb = fuse.broadcast %l, dims = [0, 1, 2] : tensor<1x4x1xf32> -> tensor<1x4x9000xf32>
    %p = fuse.div %e, %lb : tensor<1x4x9000xf32>
    %o = fuse.matmul %p, %c : tensor<1x4x9000xf32>, tensor<1x9000x8xf32> -> tensor<1x4x8xf32>
    fuse.yield %o : tensor<1x4x8xf32>
  }
  return %r : tensor<1x4x8xf32>
}

// CHECK: error: {{.*}}GPU code generation for sm_90 failed: {{.*}}gpu-attention-errors.mlir:10:8: 'fuse.fusion' op cannot be generated for the GPU as an attention kernel: its rows of Q or V (8, 8) are over 512 elements or its keys (9000) over 8192
// HOST: func.func @fuse_k0_attention
