// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s

// A cheap op whose result only a small concat reads (rotate_half's negated
// half) joins the concat's kernel: each of its elements is read once, by
// the concat, although it has half the elements of the kernel's domain.
// Rotary embeddings of one head are then one kernel.
// CHECK-LABEL: func.func @rotary
// CHECK-COUNT-1: fuse.fusion pointwise
// CHECK-NOT: fuse.fusion
// CHECK: return
func.func @rotary(%q: tensor<2x4x8x16xf32>, %cos: tensor<8x16xf32>, %sin: tensor<8x16xf32>) -> tensor<2x4x8x16xf32> {
  %x2 = fuse.slice %q offsets = [0, 0, 0, 8] sizes = [2, 4, 8, 8] strides = [1, 1, 1, 1] : tensor<2x4x8x16xf32> -> tensor<2x4x8x8xf32>
  %n = fuse.neg %x2 : tensor<2x4x8x8xf32>
  %x1 = fuse.slice %q offsets = [0, 0, 0, 0] sizes = [2, 4, 8, 8] strides = [1, 1, 1, 1] : tensor<2x4x8x16xf32> -> tensor<2x4x8x8xf32>
  %r = fuse.concat %n, %x1 axis = 3 : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x16xf32>
  %cb = fuse.broadcast %cos, dims = [2, 3] : tensor<8x16xf32> -> tensor<2x4x8x16xf32>
  %sb = fuse.broadcast %sin, dims = [2, 3] : tensor<8x16xf32> -> tensor<2x4x8x16xf32>
  %a = fuse.mul %q, %cb : tensor<2x4x8x16xf32>
  %b = fuse.mul %r, %sb : tensor<2x4x8x16xf32>
  %o = fuse.add %a, %b : tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
