// A row kernel of two reductions and a store pass prefetches the next row in
// its second pass where that pass computes a transcendental (softmax's exp),
// else half in its second pass and half in the store pass, where the streaming
// stores go out (layernorm's variance pass is two instructions a vector: a
// burst of prefetches there alone left the memory idle through the store
// pass, 4096 x 4096 on 2 AMD EPYC Zen 4 cores, 6 alternating passes: 4.27 ->
// 3.79 ms with the store pass prefetching; sharing them took 0.83-0.84 of that
// kernel's time). Both match the reference.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm | FileCheck %s --check-prefix=IR
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s

// CHECK: check: passed, 2 outputs match the reference

// Layernorm: no prefetch through the mean pass; the variance pass and the
// store pass (after the rsqrt of the variance) each prefetch at the row's
// position halved.
// IR-LABEL: define void @fuse_k0_rows
// IR-NOT: @llvm.prefetch
// IR: call reassoc float @llvm.vector.reduce.fadd
// IR: lshr {{(exact )?}}i64 %{{[0-9]+}}, 1
// IR: call void @llvm.prefetch
// IR: call reassoc float @llvm.vector.reduce.fadd
// IR-NOT: @llvm.prefetch
// IR: call <16 x float> @llvm.sqrt
// IR: lshr {{(exact )?}}i64 %{{[0-9]+}}, 1
// IR: call void @llvm.prefetch
// Softmax: the exp pass (vscalefps) prefetches, before the sum is reduced.
// IR-LABEL: define void @fuse_k1_rows
// IR: call void @llvm.prefetch
// IR: @llvm.x86.avx512.mask.scalef.ps.512
// IR: call reassoc float @llvm.vector.reduce.fadd
// IR-NOT: @llvm.prefetch
// IR: ret void

func.func @rows(%x: tensor<64x256xf32>, %gamma: tensor<256xf32>, %beta: tensor<256xf32>, %s: tensor<48x512xf32>) -> (tensor<64x256xf32>, tensor<48x512xf32>) {
  %mean = fuse.reduce mean %x dims = [1] keep_dims : tensor<64x256xf32> -> tensor<64x1xf32>
  %meanb = fuse.broadcast %mean, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
  %d = fuse.sub %x, %meanb : tensor<64x256xf32>
  %d2 = fuse.mul %d, %d : tensor<64x256xf32>
  %var = fuse.reduce mean %d2 dims = [1] keep_dims : tensor<64x256xf32> -> tensor<64x1xf32>
  %eps = fuse.constant dense<1.0e-05> : tensor<64x1xf32>
  %ve = fuse.add %var, %eps : tensor<64x1xf32>
  %rstd = fuse.rsqrt %ve : tensor<64x1xf32>
  %rstdb = fuse.broadcast %rstd, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
  %n = fuse.mul %d, %rstdb : tensor<64x256xf32>
  %g = fuse.broadcast %gamma, dims = [1] : tensor<256xf32> -> tensor<64x256xf32>
  %b = fuse.broadcast %beta, dims = [1] : tensor<256xf32> -> tensor<64x256xf32>
  %sc = fuse.mul %n, %g : tensor<64x256xf32>
  %y = fuse.add %sc, %b : tensor<64x256xf32>
  %m = fuse.reduce max %s dims = [1] keep_dims : tensor<48x512xf32> -> tensor<48x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<48x1xf32> -> tensor<48x512xf32>
  %sd = fuse.sub %s, %mb : tensor<48x512xf32>
  %e = fuse.exp %sd : tensor<48x512xf32>
  %sum = fuse.reduce sum %e dims = [1] keep_dims : tensor<48x512xf32> -> tensor<48x1xf32>
  %sumb = fuse.broadcast %sum, dims = [0, 1] : tensor<48x1xf32> -> tensor<48x512xf32>
  %p = fuse.div %e, %sumb : tensor<48x512xf32>
  return %y, %p : tensor<64x256xf32>, tensor<48x512xf32>
}
