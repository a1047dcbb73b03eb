// Issue 22: attention's output projection on symbolic (batch, sequence)
// tokens: the heads [b, h, s, d] merged back to [b, s, h*d] on the matmul's
// A (a transpose and a reshape, quotients by the runtime sequence, which the
// runtime-rows matmul takes once per row, as multiplies and shifts) plus the
// residual. One bundle at every length: the second and third lengths
// compile nothing; each run is checked against the reference.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(7); [(np.save('%t/a%%d.npy' %% s, rng.uniform(-2, 2, (2, 4, s, 16)).astype(np.float32)), np.save('%t/r%%d.npy' %% s, rng.uniform(-2, 2, (2, s, 64)).astype(np.float32))) for s in (1, 7, 77)]"
// RUN: fuse-run %s --input a=%t/a1.npy --input r=%t/r1.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --input a=%t/a7.npy --input r=%t/r7.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SEVEN
// RUN: fuse-run %s --input a=%t/a77.npy --input r=%t/r77.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG

// FIRST: symbolic dims bound for this run: batch=2, sequence=1
// FIRST: compiling {{[0-9]+}} ops for {{.*}} (once for every value of the dims)
// FIRST-NOT: note: not every fusion
// FIRST: check: passed, 1 outputs match the reference
// FIRST: "compiled": {{[1-9][0-9]*}}, "cache_hits": 0, {{.*}}"dims": {"batch": 2, "sequence": 1}, "symbolic_bundle": true

// SEVEN-NOT: compiling
// SEVEN: output out0: tensor<2x7x64xf32>
// SEVEN: check: passed, 1 outputs match the reference
// SEVEN: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 7}, "symbolic_bundle": true

// LONG-NOT: compiling
// LONG: check: passed, 1 outputs match the reference
// LONG: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 77}, "symbolic_bundle": true

func.func @merge(%a: tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>> {fuse.name = "a"}, %w: tensor<64x64xf32>,
                 %r: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "r"})
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  %t = fuse.transpose %a, permutation = [0, 2, 1, 3] : tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %m = fuse.reshape %t : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %c = fuse.matmul %m, %w : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %o = fuse.add %c, %r : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %o : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
