// Issue 22: a transformer's MLP block on symbolic (batch, sequence) tokens,
// x + W2 gelu(W1 x + b1) + b2, runs from one bundle at every length: its two
// matmuls take their rows (batch*sequence) at run time, the weights packed
// once per binding, bias, GELU and the residual in their epilogues. The
// second and third lengths compile nothing; each run is checked against
// the reference at the bound shapes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(5); [np.save('%t/x%%d.npy' %% s, rng.uniform(-2, 2, (2, s, 64)).astype(np.float32)) for s in (1, 7, 77)]"
// RUN: fuse-run %s --input x=%t/x1.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --input x=%t/x7.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SEVEN
// RUN: fuse-run %s --input x=%t/x77.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: fuse-compile %s --target=host -o %t/bundle
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/bundle/bundle.txt

// FIRST: symbolic dims bound for this run: batch=2, sequence=1
// FIRST: compiling {{[0-9]+}} ops for {{.*}} (once for every value of the dims)
// FIRST-NOT: note: not every fusion
// FIRST: output y: tensor<2x1x64xf32>
// FIRST: check: passed, 1 outputs match the reference
// FIRST: "compiled": {{[1-9][0-9]*}}, "cache_hits": 0, {{.*}}"dims": {"batch": 2, "sequence": 1}, "symbolic_bundle": true

// SEVEN: symbolic dims bound for this run: batch=2, sequence=7
// SEVEN-NOT: compiling
// SEVEN: output y: tensor<2x7x64xf32>
// SEVEN: check: passed, 1 outputs match the reference
// SEVEN: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 7}, "symbolic_bundle": true

// LONG-NOT: compiling
// LONG: output y: tensor<2x77x64xf32>
// LONG: check: passed, 1 outputs match the reference
// LONG: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 77}, "symbolic_bundle": true

// Two fusions, each a pack kernel once per binding and a matmul over rows.
// BUNDLE: kernels 4
// BUNDLE: fuse_k0_pack schedule matmul iterations 64 grain {{[0-9]+}} once per binding
// BUNDLE: fuse_k0_matmul schedule matmul iterations batch*sequence{{(\*[0-9]+)?}} grain
// BUNDLE: fuse_k2_pack schedule matmul iterations 256 grain {{[0-9]+}} once per binding
// BUNDLE: fuse_k2_matmul schedule matmul iterations batch*sequence{{(\*[0-9]+)?}} grain

func.func @mlp(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
               %w1: tensor<64x256xf32> {fuse.name = "w1"}, %b1: tensor<256xf32> {fuse.name = "b1"},
               %w2: tensor<256x64xf32> {fuse.name = "w2"}, %b2: tensor<64xf32> {fuse.name = "b2"})
    -> (tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "y"}) {
  %m1 = fuse.matmul %x, %w1 : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x256xf32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %b1b = fuse.broadcast %b1, dims = [2] : tensor<256xf32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %h = fuse.add %m1, %b1b : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %half = fuse.constant dense<0.5> : tensor<f32>
  %hb = fuse.broadcast %half, dims = [] : tensor<f32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %r = fuse.constant dense<0.707106769> : tensor<f32>
  %rb = fuse.broadcast %r, dims = [] : tensor<f32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %one = fuse.constant dense<1.0> : tensor<f32>
  %ob = fuse.broadcast %one, dims = [] : tensor<f32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %s = fuse.mul %h, %rb : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %e = fuse.erf %s : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %e1 = fuse.add %e, %ob : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %hh = fuse.mul %h, %hb : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %g = fuse.mul %hh, %e1 : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %m2 = fuse.matmul %g, %w2 : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>, tensor<256x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %b2b = fuse.broadcast %b2, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %o = fuse.add %m2, %b2b : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %y = fuse.add %o, %x : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %y : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
