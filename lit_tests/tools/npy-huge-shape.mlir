// A .npy header whose shape overflows a 64-bit byte count is rejected with a
// message, not computed with an overflow; a dimension of more than 15 digits
// is said to be too long (it was 'not a tuple of integers'). An empty array
// of dims whose product passes 2^63 holds no bytes and is read (the bound,
// once a division per dim, called it too large; now CheckedInt's count).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/huge_npy.py > %t/huge.npy
// RUN: %python %S/Inputs/huge_npy.py long > %t/long.npy
// RUN: sh -c 'fuse-run %s --input x=%t/huge.npy; echo "exit=$?"' 2>&1 | FileCheck %s
// RUN: sh -c 'fuse-run %s --input x=%t/long.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: %python %S/Inputs/huge_npy.py empty > %t/empty.npy
// RUN: fuse-run %S/Inputs/empty-reshape.mlir --input x=%t/empty.npy --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=EMPTY

// CHECK: the shape in the header is too large
// CHECK: {{^}}exit=2{{$}}
// LONG: malformed .npy header (a dimension of 'shape' has more than 15 digits, more than any tensor holds)
// LONG: {{^}}exit=2{{$}}
// EMPTY: output out0: tensor<0x4294967296xf32> []

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

