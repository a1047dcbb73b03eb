// The fusion passes refuse a tensor of more than 2^48 bytes, as fuse-run's
// verifier does, with the type in the message: their element counts wrapped
// an int64 before (a fuse.exp over 2^62 x 2 elements was said to iterate
// over -2^63 of them). An empty tensor of huge dims holds nothing and is
// fused as any other (no diagnostic: -verify-diagnostics fails on any).

// RUN: fuse-opt %s -split-input-file -verify-diagnostics --fuse-fusion-pipeline

func.func @wraps(%x: tensor<4611686018427387904x2xf32>) -> tensor<4611686018427387904x2xf32> {
  // expected-error @below {{'fuse.exp' op operand #0 is too large: 'tensor<4611686018427387904x2xf32>' holds more than 2^48 bytes}}
  %e = fuse.exp %x : tensor<4611686018427387904x2xf32>
  return %e : tensor<4611686018427387904x2xf32>
}

// -----

func.func @big(%x: tensor<16385xf32>) -> tensor<65536x65536x16385xf32> {
  // expected-error @below {{'fuse.broadcast' op result #0 is too large: 'tensor<65536x65536x16385xf32>' holds more than 2^48 bytes}}
  %b = fuse.broadcast %x, dims = [2] : tensor<16385xf32> -> tensor<65536x65536x16385xf32>
  return %b : tensor<65536x65536x16385xf32>
}

// -----

func.func @empty(%x: tensor<0x4294967296x4294967296xf32>) -> tensor<0x4294967296x4294967296xf32> {
  %e = fuse.exp %x : tensor<0x4294967296x4294967296xf32>
  return %e : tensor<0x4294967296x4294967296xf32>
}
