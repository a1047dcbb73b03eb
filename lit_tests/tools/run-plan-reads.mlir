// --print-plan counts the bytes a kernel reads: of an input it reads only
// through slices (an embedding lookup's table), the slices' bytes, not the
// whole tensor. Here one row (256 B) of a 1024x64 f32 table (262144 B).

// RUN: rm -rf %t.cache
// RUN: fuse-run %s --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=FUSED
// RUN: fuse-run %s --print-plan --no-fusion --cache-dir %t.cache | FileCheck %s --check-prefix=UNFUSED

// FUSED: plan: 1 kernel for 2 ops
// FUSED-NEXT: kernel 0 {{.*}}: pointwise, 2 ops, reads 512 B, writes 256 B
// FUSED-NEXT: ops slice add
// FUSED-NEXT: total: reads 512 B, writes 256 B

// UNFUSED: plan: 2 kernels for 2 ops
// UNFUSED-NEXT: kernel 0 {{.*}}: pointwise, 1 ops, reads 256 B, writes 256 B
// UNFUSED-NEXT: ops slice
// UNFUSED-NEXT: kernel 1 {{.*}}: pointwise, 1 ops, reads 512 B, writes 256 B
// UNFUSED-NEXT: ops add
// UNFUSED-NEXT: total: reads 768 B, writes 512 B

func.func @lookup(%table: tensor<1024x64xf32>, %x: tensor<1x64xf32>) -> (tensor<1x64xf32> {fuse.name = "y"}) {
  %row = fuse.slice %table offsets = [5, 0] sizes = [1, 64] strides = [1, 1] : tensor<1024x64xf32> -> tensor<1x64xf32>
  %y = fuse.add %row, %x : tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}
