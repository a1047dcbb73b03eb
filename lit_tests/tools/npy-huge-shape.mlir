// A .npy header whose shape overflows a 64-bit byte count is rejected with a
// message, not computed with an overflow.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/huge_npy.py > %t/huge.npy
// RUN: sh -c 'fuse-run %s --input x=%t/huge.npy; echo "exit=$?"' 2>&1 | FileCheck %s

// CHECK: the shape in the header is too large
// CHECK: {{^}}exit=2{{$}}

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
