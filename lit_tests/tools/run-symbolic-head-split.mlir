// Issue 22: a transformer's Q, K and V projections on symbolic (batch,
// sequence) tokens with the head split in their epilogues, C[b, s, h*d]
// stored to [b, h, s, d] (K to [b, h, d, s]): the store strides over s hold
// S, which the matmuls read from the dims array, so one horizontal fusion
// of three runtime-rows matmuls runs from one bundle at every length. The
// second and third lengths compile nothing; each run is checked against the
// reference at the bound shapes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(7); [np.save('%t/x%%d.npy' %% s, rng.uniform(-2, 2, (2, s, 64)).astype(np.float32)) for s in (1, 7, 77)]"
// RUN: fuse-run %s --input x=%t/x1.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --input x=%t/x7.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SEVEN
// RUN: fuse-run %s --input x=%t/x77.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG

// FIRST: symbolic dims bound for this run: batch=2, sequence=1
// FIRST: compiling {{[0-9]+}} ops for {{.*}} (once for every value of the dims)
// FIRST-NOT: note: not every fusion
// FIRST: check: passed, 3 outputs match the reference
// FIRST: "compiled": {{[1-9][0-9]*}}, "cache_hits": 0, {{.*}}"dims": {"batch": 2, "sequence": 1}, "symbolic_bundle": true

// SEVEN-NOT: compiling
// SEVEN: output out0: tensor<2x4x7x16xf32>
// SEVEN: output out1: tensor<2x4x16x7xf32>
// SEVEN: output out2: tensor<2x3x7x12xf32>
// SEVEN: check: passed, 3 outputs match the reference
// SEVEN: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 7}, "symbolic_bundle": true

// LONG-NOT: compiling
// LONG: check: passed, 3 outputs match the reference
// LONG: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 77}, "symbolic_bundle": true

func.func @qkv(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"}, %wq: tensor<64x64xf32>, %bq: tensor<64xf32>,
               %wk: tensor<64x64xf32>, %bk: tensor<64xf32>,
               %wv: tensor<64x36xf32>)
    -> (tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>,
        tensor<?x4x16x?xf32, #fuse.dims<batch, sequence>>,
        tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>>) {
  %q = fuse.matmul %x, %wq : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bqb = fuse.broadcast %bq, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %qa = fuse.add %q, %bqb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %qr = fuse.reshape %qa : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %qt = fuse.transpose %qr, permutation = [0, 2, 1, 3] : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>
  %k = fuse.matmul %x, %wk : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bkb = fuse.broadcast %bk, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %ka = fuse.add %k, %bkb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %kr = fuse.reshape %ka : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %kt = fuse.transpose %kr, permutation = [0, 2, 3, 1] : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x16x?xf32, #fuse.dims<batch, sequence>>
  %v = fuse.matmul %x, %wv : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x36xf32> -> tensor<?x?x36xf32, #fuse.dims<batch, sequence>>
  %vr = fuse.reshape %v : tensor<?x?x36xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x3x12xf32, #fuse.dims<batch, sequence>>
  %vt = fuse.transpose %vr, permutation = [0, 2, 1, 3] : tensor<?x?x3x12xf32, #fuse.dims<batch, sequence>> -> tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>>
  return %qt, %kt, %vt : tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>,
                         tensor<?x4x16x?xf32, #fuse.dims<batch, sequence>>,
                         tensor<?x3x?x12xf32, #fuse.dims<batch, sequence>>
}
