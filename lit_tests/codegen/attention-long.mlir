// Attention over more keys than a row of scores and of P fits on the
// kernel's stack (40000 keys with 16 elements per Q row; up to about 32000
// keys they are on the stack): still one host kernel, whose rows of scores
// and P live in the kernel's scratch, one pair of rows per part of the
// work, at most 64 parts (12 here: 2 heads x 6 one-row blocks; the arena
// is the scratch, 12 x 2 x 40000 x 4 bytes), so the plan's memory grows
// with the keys, never with the queries times the keys. Before, past
// 16384 keys such a graph kept a matmul, a row kernel and a matmul, and
// stored all of the scores. Checked against the reference runtime; the GPU (8192 keys at
// most in shared memory) keeps three kernels.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=IR
// RUN: %if ptxas %{ fuse-compile %s --target=sm_90 -o %t/sm_90 && FileCheck %s --check-prefix=GPU < %t/sm_90/bundle.txt %}

// GPU: kernels 3
// GPU-NEXT: kernel 0 fuse_k0_matmul schedule matmul
// GPU-NEXT: ops
// GPU-NEXT: bindings
// GPU-NEXT: kernel 1 fuse_k1_rows schedule row-reduction

// CHECK: plan: 1 kernel for
// CHECK: kernel 0 fuse_k0_attention: attention
// CHECK: total: {{.*}} arena 3840000 B
// CHECK: check: passed, 1 outputs match the reference

// The stack holds no row of 40000 keys; the kernel loops over its parts,
// then over each part's blocks.
// IR-LABEL: func.func @fuse_k0_attention
// IR-NOT: llvm.alloca %c400{{[0-9]+}}_i64
// IR: scf.for
// IR: arith.divsi
// IR: scf.for

func.func @long(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x40000x16xf32>, %v: tensor<1x2x40000x8xf32>) -> tensor<1x2x6x8xf32> {
  %s = fuse.matmul %q, %k transpose_b : tensor<1x2x6x16xf32>, tensor<1x2x40000x16xf32> -> tensor<1x2x6x40000xf32>
  %scale = fuse.constant dense<0.25> : tensor<1x2x6x40000xf32>
  %s1 = fuse.mul %s, %scale : tensor<1x2x6x40000xf32>
  %m = fuse.reduce max %s1 dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %d = fuse.sub %s1, %mb : tensor<1x2x6x40000xf32>
  %e = fuse.exp %d : tensor<1x2x6x40000xf32>
  %l = fuse.reduce sum %e dims = [3] keep_dims : tensor<1x2x6x40000xf32> -> tensor<1x2x6x1xf32>
  %lb = fuse.broadcast %l, dims = [0, 1, 2, 3] : tensor<1x2x6x1xf32> -> tensor<1x2x6x40000xf32>
  %p = fuse.div %e, %lb : tensor<1x2x6x40000xf32>
  %o = fuse.matmul %p, %v : tensor<1x2x6x40000xf32>, tensor<1x2x40000x8xf32> -> tensor<1x2x6x8xf32>
  return %o : tensor<1x2x6x8xf32>
}
