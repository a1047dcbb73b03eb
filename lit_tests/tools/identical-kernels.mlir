// Identical layers make identical kernels, which the compiler generates
// once: the plan counts the distinct ones and says whose code a kernel
// runs. Both layers still compute their own results (--check against the
// reference), from the compile and from the cache, and --profile names
// each launch.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --profile 2 --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=CACHED

// CHECK: plan: 5 kernels for {{[0-9]+}} ops, target host-x86-64-v{{[34]}}, 3 distinct, 2 once per binding of the inputs
// CHECK: kernel 0 fuse_k0_pack: matmul
// CHECK: kernel 1 fuse_k0_matmul: matmul
// CHECK: kernel 2 fuse_k2_pack: matmul, {{.*}}, the code of fuse_k0_pack, once per binding of the inputs
// CHECK: kernel 3 fuse_k2_matmul: matmul, {{.*}}, the code of fuse_k0_matmul
// CHECK: kernel 4 fuse_k4_matmul: matmul
// CHECK-NOT: the code of
// CHECK: check: passed, 1 outputs match the reference

// CACHED: cache hit
// CACHED: fuse_k2_matmul (matmul, 5 ops, code of fuse_k0_matmul)
// CACHED: check: passed, 1 outputs match the reference

func.func @layers(%x: tensor<16x32xf32>, %w1: tensor<32x32xf32>, %b1: tensor<32xf32>,
                  %w2: tensor<32x32xf32>, %b2: tensor<32xf32>, %w3: tensor<32x8xf32>)
    -> tensor<16x8xf32> {
  %z = fuse.constant dense<0.0> : tensor<16x32xf32>
  %m1 = fuse.matmul %x, %w1 : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  %c1 = fuse.broadcast %b1, dims = [1] : tensor<32xf32> -> tensor<16x32xf32>
  %a1 = fuse.add %m1, %c1 : tensor<16x32xf32>
  %h1 = fuse.max %a1, %z : tensor<16x32xf32>
  %m2 = fuse.matmul %h1, %w2 : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  %c2 = fuse.broadcast %b2, dims = [1] : tensor<32xf32> -> tensor<16x32xf32>
  %a2 = fuse.add %m2, %c2 : tensor<16x32xf32>
  %h2 = fuse.max %a2, %z : tensor<16x32xf32>
  %y = fuse.matmul %h2, %w3 : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}
