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

// WRAP: 'fuse.reshape' op the result has more elements than an int64 counts
// INPUT: argument 0 is too large: tensor<4294967296x4294967296xf32> holds more than 2^48 bytes
// BIG: argument 0 is too large: tensor<65536x65536x16385xf32> holds more than 2^48 bytes
// IDENTITY: argument 0 is too large: tensor<4294967296x4294967297xf32> holds more than 2^48 bytes

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
