// The host compiler keeps the machine code of each kernel it compiles, by
// content, in memory and beside the bundles in the cache directory: another
// process compiling another graph with some of the same kernels (here the
// same matmul, with the packing of its weight, and softmax rows of another
// length) compiles only the others.
// Each run is checked against the reference. A damaged kernel file is
// reported, removed and compiled again.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --json --cache-dir %t/cache | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %S/Inputs/kernel-reuse-37.mlir --check --json --cache-dir %t/cache 2>%t/other.err | FileCheck %s --check-prefix=OTHER
// RUN: FileCheck %s --check-prefix=OTHER-ERR < %t/other.err
// RUN: ls %t/cache | FileCheck %s --check-prefix=FILES
// RUN: fuse-cache clear --cache-dir %t/cache
// RUN: fuse-run %s --json --cache-dir %t/cache | FileCheck %s --check-prefix=FIRST
// RUN: fuse-cache list --cache-dir %t/cache > %t/listed
// RUN: for f in %t/cache/*.fkernel; do printf 'x' >> $f; done
// RUN: rm %t/cache/*.fbundle
// RUN: fuse-run %s --check --json --cache-dir %t/cache 2>%t/damaged.err | FileCheck %s --check-prefix=FIRST
// RUN: FileCheck %s --check-prefix=DAMAGED < %t/damaged.err

// FIRST: "compiled": 3, "cache_hits": 0, "kernels_compiled": 3, "kernels_reused": 0,
// OTHER: check: passed, 2 outputs match the reference
// OTHER: "compiled": 3, "cache_hits": 0, "kernels_compiled": 1, "kernels_reused": 2,
// OTHER-ERR: fuse-run: compiled 3 kernel(s) in {{[0-9.]+}} ms (2 distinct kernel(s) taken from the cache, 1 compiled to machine code)
// FILES-COUNT-4: {{^[0-9a-f]{64}\.fkernel$}}
// DAMAGED: warning: bundle cache: {{.*}}.fkernel: the kernel file is truncated or has bytes after its end; removed it; the kernel will be recompiled
func.func @f(%x: tensor<32x96xf32>, %w: tensor<96x80xf32>, %s: tensor<4x100xf32>)
    -> (tensor<32x80xf32>, tensor<4x100xf32>) {
  %m = fuse.matmul %x, %w : tensor<32x96xf32>, tensor<96x80xf32> -> tensor<32x80xf32>
  %z = fuse.constant dense<0.0> : tensor<32x80xf32>
  %r = fuse.max %m, %z : tensor<32x80xf32>
  %mx = fuse.reduce max %s dims = [1] keep_dims : tensor<4x100xf32> -> tensor<4x1xf32>
  %mb = fuse.broadcast %mx, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x100xf32>
  %d = fuse.sub %s, %mb : tensor<4x100xf32>
  %e = fuse.exp %d : tensor<4x100xf32>
  %sum = fuse.reduce sum %e dims = [1] keep_dims : tensor<4x100xf32> -> tensor<4x1xf32>
  %sb = fuse.broadcast %sum, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x100xf32>
  %p = fuse.div %e, %sb : tensor<4x100xf32>
  return %r, %p : tensor<32x80xf32>, tensor<4x100xf32>
}
