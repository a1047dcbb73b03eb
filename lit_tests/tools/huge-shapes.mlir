// Shapes whose element count wraps an int64, or whose bytes pass 2^48: a
// clear error before anything runs (a reshape to 16 x (2^60 + 1) elements
// once verified as 16 elements, and its kernel died with SIGBUS). An
// argument no op reads is checked too: returned as it is, a 2^32 x (2^32 + 1)
// input was sized by its wrapped byte count (2^34).

// RUN: rm -rf %t && split-file %s %t
// RUN: not fuse-run %t/wrap.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not fuse-run %t/input.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not fuse-run %t/big.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not fuse-run %t/identity.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=IDENTITY
// RUN: not fuse-compile %t/identity.mlir --target=host -o %t/out 2>&1 | FileCheck %s --check-prefix=IDENTITY
// RUN: sh -c 'fuse-run %t/conv.mlir --cache-dir %t/cache 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=CONV
// RUN: fuse-run %t/empty.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: fuse-run %t/batches.mlir --check --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=BATCHES

// WRAP: 'fuse.reshape' op the result has more elements than an int64 counts
// INPUT: argument 0 is too large: tensor<4294967296x4294967296xf32> holds more than 2^48 bytes
// BIG: argument 0 is too large: tensor<65536x65536x16385xf32> holds more than 2^48 bytes
// IDENTITY: argument 0 is too large: tensor<4294967296x4294967297xf32> holds more than 2^48 bytes

// A conv whose dilated kernel passes 2^63 (the verifier's arithmetic wrapped;
// issue 19), and an empty tensor of dims whose product passes 2^63: it holds
// 0 elements, and reshapes to another empty shape (the verifier once counted
// [2^32, 2^32, 0] as more than an int64 holds).
// CONV: 'fuse.conv' op spatial dim 0: the padded input or the dilated kernel passes 2^63
// CONV: exit=2
// EMPTY: output out0: tensor<0x4294967296xf32> []
// An empty matmul of 2^62 batches, checked against the reference runtime,
// which counted the empty batches for ever.
// BATCHES: check: passed, 1 outputs match the reference

//--- wrap.mlir
func.func @wrap(%x: tensor<16xf32>) -> tensor<1152921504606846977x16xf32> {
  %y = fuse.reshape %x : tensor<16xf32> -> tensor<1152921504606846977x16xf32>
  return %y : tensor<1152921504606846977x16xf32>
}

//--- input.mlir
func.func @input(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %y = fuse.exp %x : tensor<4294967296x4294967296xf32>
  return %y : tensor<4294967296x4294967296xf32>
}

//--- big.mlir
func.func @big(%x: tensor<65536x65536x16385xf32>) -> tensor<65536x65536x16385xf32> {
  %y = fuse.neg %x : tensor<65536x65536x16385xf32>
  return %y : tensor<65536x65536x16385xf32>
}

//--- identity.mlir
func.func @identity(%x: tensor<4294967296x4294967297xf32>) -> tensor<4294967296x4294967297xf32> {
  return %x : tensor<4294967296x4294967297xf32>
}

//--- conv.mlir
func.func @conv(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  %0 = fuse.conv %x, %w strides = [1] dilations = [4611686018427387904] pads = [0, 0] group = 1 : tensor<1x2x8xf32>, tensor<4x2x3xf32> -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

//--- empty.mlir
func.func @empty(%x: tensor<4294967296x4294967296x0xf32>) -> tensor<0x4294967296xf32> {
  %y = fuse.reshape %x : tensor<4294967296x4294967296x0xf32> -> tensor<0x4294967296xf32>
  return %y : tensor<0x4294967296xf32>
}

//--- batches.mlir
func.func @batches(%a: tensor<4611686018427387904x0x4xf32>, %b: tensor<4x5xf32>) -> tensor<4611686018427387904x0x5xf32> {
  %y = fuse.matmul %a, %b : tensor<4611686018427387904x0x4xf32>, tensor<4x5xf32> -> tensor<4611686018427387904x0x5xf32>
  return %y : tensor<4611686018427387904x0x5xf32>
}
