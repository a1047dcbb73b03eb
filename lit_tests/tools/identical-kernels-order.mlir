// Two layers that differ only in the block order of their independent ops
// (the bias broadcast before or after the matmul, as a layer's mask ops come
// before or after its Q K^T) and so in the order of their fusion's inputs:
// the fusions are put in data-flow order with their inputs in the order of
// first use, so the second layer runs the first one's code, and both still
// compute their own results.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s

// CHECK: plan: 4 kernels for 6 ops, target host-x86-64-v{{[34]}}, 2 distinct, 2 once per binding of the inputs
// CHECK: kernel 0 fuse_k0_pack: matmul
// CHECK: kernel 1 fuse_k0_matmul: matmul
// CHECK: kernel 2 fuse_k2_pack: matmul, {{.*}}, the code of fuse_k0_pack, once per binding of the inputs
// CHECK: kernel 3 fuse_k2_matmul: matmul, {{.*}}, the code of fuse_k0_matmul
// CHECK: check: passed, 1 outputs match the reference

func.func @layers(%x: tensor<16x32xf32>, %w1: tensor<32x32xf32>, %b1: tensor<32xf32>,
                  %w2: tensor<32x32xf32>, %b2: tensor<32xf32>)
    -> tensor<16x32xf32> {
  %c1 = fuse.broadcast %b1, dims = [1] : tensor<32xf32> -> tensor<16x32xf32>
  %m1 = fuse.matmul %x, %w1 : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  %a1 = fuse.add %m1, %c1 : tensor<16x32xf32>
  %m2 = fuse.matmul %a1, %w2 : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  %c2 = fuse.broadcast %b2, dims = [1] : tensor<32xf32> -> tensor<16x32xf32>
  %a2 = fuse.add %m2, %c2 : tensor<16x32xf32>
  return %a2 : tensor<16x32xf32>
}
