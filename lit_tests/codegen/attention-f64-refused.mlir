// A hand-written attention fusion over f64 (the fusion passes never form
// one: the attention schedule computes in f32, for f32, f16 and bf16
// tensors) is an error naming the op, the target and the element types, on
// the host and the GPU alike.

// RUN: not fuse-compile %s --target=host-x86-64-v3 -o %t 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not fuse-compile %s --target=sm_90 -o %t 2>&1 | FileCheck %s --check-prefix=GPU

func.func @wide(%q: tensor<1x4x8xf64>, %k: tensor<1x16x8xf64>, %v: tensor<1x16x8xf64>) -> tensor<1x4x8xf64> {
  %r = fuse.fusion attention (%q, %k, %v) : (tensor<1x4x8xf64>, tensor<1x16x8xf64>, tensor<1x16x8xf64>) -> tensor<1x4x8xf64> {
  ^bb0(%a: tensor<1x4x8xf64>, %b: tensor<1x16x8xf64>, %c: tensor<1x16x8xf64>):
    %s = fuse.matmul %a, %b transpose_b : tensor<1x4x8xf64>, tensor<1x16x8xf64> -> tensor<1x4x16xf64>
    %m = fuse.reduce max %s dims = [2] keep_dims : tensor<1x4x16xf64> -> tensor<1x4x1xf64>
    %mb = fuse.broadcast %m, dims = [0, 1, 2] : tensor<1x4x1xf64> -> tensor<1x4x16xf64>
    %d = fuse.sub %s, %mb : tensor<1x4x16xf64>
    %e = fuse.exp %d : tensor<1x4x16xf64>
    %l = fuse.reduce sum %e dims = [2] keep_dims : tensor<1x4x16xf64> -> tensor<1x4x1xf64>
    %lb = fuse.broadcast %l, dims = [0, 1, 2] : tensor<1x4x1xf64> -> tensor<1x4x16xf64>
    %p = fuse.div %e, %lb : tensor<1x4x16xf64>
    %o = fuse.matmul %p, %c : tensor<1x4x16xf64>, tensor<1x16x8xf64> -> tensor<1x4x8xf64>
    fuse.yield %o : tensor<1x4x8xf64>
  }
  return %r : tensor<1x4x8xf64>
}

// HOST: 'fuse.fusion' op cannot be generated for the host as an attention kernel: its matmuls are not all f32, f16 or bf16
// GPU: 'fuse.fusion' op cannot be generated for the GPU as an attention kernel: its matmuls are not all f32, f16 or bf16
