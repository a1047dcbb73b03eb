// A full reduction over far more than the caches (issue 18): each of the
// partials kernel's vector loads prefetches its input 1024 elements (4 KiB)
// ahead into L2 (prefetcht1), as a pointwise kernel with streaming stores
// does; one over less than 8 MiB of f32 does not. fuse-bench's sum of 2^26
// on 2 AMD EPYC (Zen 4) cores, 4 alternating passes: 5.98-6.30 -> 5.08-5.17
// ms. Both run and match the reference runtime (a sum of 2^21 + 3 elements:
// the whole chunks streamed, the short last one peeled).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=IR
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s

// CHECK: check: passed, 2 outputs match the reference

func.func @sums(%big: tensor<2097155xf32>, %small: tensor<2097149xf32>) -> (tensor<f32>, tensor<f32>) {
  %a = fuse.reduce sum %big dims = [0] : tensor<2097155xf32> -> tensor<f32>
  %b = fuse.reduce sum %small dims = [0] : tensor<2097149xf32> -> tensor<f32>
  return %a, %b : tensor<f32>, tensor<f32>
}

// IR-LABEL: func.func @fuse_k0_partials
// IR: scf.for %{{.*}} = %c0_i64{{.*}} to %c16384_i64{{.*}} step %c64_i64
// IR-COUNT-4: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// IR-LABEL: func.func @fuse_k2_partials
// IR-NOT: llvm.intr.prefetch
// IR-LABEL: func.func @fuse_k2_finish
