// Rotary embeddings (rotate_half: the negated second half of each head
// concatenated with the first) as a prologue of Q and K in the attention
// kernel, checked against the reference runtime. The concat (2 operands)
// and the cheap arithmetic around it are recomputed where attention reads
// Q and K (FusionCostModel's small concats), so no rotated Q or K is stored.
// The GPU's attention kernel takes the same prologue (the shared region
// emitter's concat); ptxas accepts it for sm_90 and sm_80 without spills.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: %if ptxas %{ fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80 %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=GPU < %t/sm_90/bundle.txt %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/sm_90/fuse_k3_attention.ptx -o %t/a90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 -v %t/sm_80/fuse_k3_attention.ptx -o %t/a80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK: kernel {{[0-9]+}} fuse_k{{[0-9]+}}_attention: attention
// CHECK-NEXT: ops {{.*}}concat {{.*}}concat {{.*}}matmul {{.*}}exp {{.*}}matmul
// CHECK: check: passed, 1 outputs match the reference

// GPU: kernel 3 fuse_k3_attention schedule attention
// GPU-NEXT: ops {{.*}}concat {{.*}}concat {{.*}}matmul {{.*}}exp {{.*}}matmul
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @rot(%x: tensor<8x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %cos: tensor<8x8xf32>, %sin: tensor<8x8xf32>) -> tensor<4x8x8xf32> {
  %q0 = fuse.matmul %x, %wq : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %q1 = fuse.reshape %q0 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %q = fuse.transpose %q1, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %k0 = fuse.matmul %x, %wk : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %k1 = fuse.reshape %k0 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %k = fuse.transpose %k1, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %v0 = fuse.matmul %x, %wv : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %v1 = fuse.reshape %v0 : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %v = fuse.transpose %v1, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %cb = fuse.broadcast %cos, dims = [1, 2] : tensor<8x8xf32> -> tensor<4x8x8xf32>
  %sb = fuse.broadcast %sin, dims = [1, 2] : tensor<8x8xf32> -> tensor<4x8x8xf32>
  %q2 = fuse.slice %q offsets = [0, 0, 4] sizes = [4, 8, 4] strides = [1, 1, 1] : tensor<4x8x8xf32> -> tensor<4x8x4xf32>
  %qn = fuse.neg %q2 : tensor<4x8x4xf32>
  %qa = fuse.slice %q offsets = [0, 0, 0] sizes = [4, 8, 4] strides = [1, 1, 1] : tensor<4x8x8xf32> -> tensor<4x8x4xf32>
  %qr = fuse.concat %qn, %qa axis = 2 : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %qc = fuse.mul %q, %cb : tensor<4x8x8xf32>
  %qs = fuse.mul %qr, %sb : tensor<4x8x8xf32>
  %qe = fuse.add %qc, %qs : tensor<4x8x8xf32>
  %k2 = fuse.slice %k offsets = [0, 0, 4] sizes = [4, 8, 4] strides = [1, 1, 1] : tensor<4x8x8xf32> -> tensor<4x8x4xf32>
  %kn = fuse.neg %k2 : tensor<4x8x4xf32>
  %ka = fuse.slice %k offsets = [0, 0, 0] sizes = [4, 8, 4] strides = [1, 1, 1] : tensor<4x8x8xf32> -> tensor<4x8x4xf32>
  %kr = fuse.concat %kn, %ka axis = 2 : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %kc = fuse.mul %k, %cb : tensor<4x8x8xf32>
  %ks = fuse.mul %kr, %sb : tensor<4x8x8xf32>
  %ke = fuse.add %kc, %ks : tensor<4x8x8xf32>
  %s = fuse.matmul %qe, %ke transpose_b : tensor<4x8x8xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  %mx = fuse.reduce max %s dims = [2] : tensor<4x8x8xf32> -> tensor<4x8xf32>
  %mb = fuse.broadcast %mx, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x8xf32>
  %d = fuse.sub %s, %mb : tensor<4x8x8xf32>
  %e = fuse.exp %d : tensor<4x8x8xf32>
  %z = fuse.reduce sum %e dims = [2] : tensor<4x8x8xf32> -> tensor<4x8xf32>
  %zb = fuse.broadcast %z, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x8xf32>
  %p = fuse.div %e, %zb : tensor<4x8x8xf32>
  %o = fuse.matmul %p, %v : tensor<4x8x8xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  return %o : tensor<4x8x8xf32>
}
