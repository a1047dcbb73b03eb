// Issue 22, step C in fuse-run: a .mlir model with symbolic dims compiles
// once (its bundle cached under the symbolic graph), reads the dims from
// the --input shapes (or --dim for inputs drawn at random) and runs bound to
// them: the second and third lengths compile nothing. Each run is checked
// against the reference at the bound shapes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(3); [np.save('%t/%%s%%d.npy' %% (n, s), rng.uniform(-2, 2, (2, s, 64)).astype(np.float32)) for s in (1, 7, 77) for n in ('x', 'r')]; np.save('%t/eps.npy', np.array(1e-5, np.float32)); np.save('%t/x3.npy', rng.uniform(-2, 2, (3, 7, 64)).astype(np.float32)); np.save('%t/rank2.npy', rng.uniform(-2, 2, (7, 64)).astype(np.float32))"
// RUN: fuse-run %s --input x=%t/x1.npy --input r=%t/r1.npy --input eps=%t/eps.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --input x=%t/x7.npy --input r=%t/r7.npy --input eps=%t/eps.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SEVEN
// RUN: fuse-run %s --input x=%t/x77.npy --input r=%t/r77.npy --input eps=%t/eps.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG
// The reference runtime binds the same way.
// RUN: fuse-run %s --runtime reference --input x=%t/x7.npy --input r=%t/r7.npy --input eps=%t/eps.npy --json 2>&1 | FileCheck %s --check-prefix=REFERENCE

// Random inputs take the dims from --dim; --dim and a given input agree.
// RUN: fuse-run %s --dim batch=3 --dim sequence=5 --input eps=%t/eps.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=RANDOM
// RUN: fuse-run %s --dim sequence=7 --input x=%t/x7.npy --input eps=%t/eps.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=PARTIAL

// A matmul whose columns are symbolic (attention's scores) needs static
// dims: the bound graph is compiled instead, said in one line, and checked.
// (A matmul on symbolic rows alone takes them at run time:
// run-symbolic-mlp.mlir.)
// RUN: fuse-run %S/Inputs/symbolic-matmul.mlir --dim batch=2 --dim sequence=5 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FALLBACK
// RUN: fuse-run %S/Inputs/symbolic-matmul.mlir --dim batch=2 --dim sequence=5 --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FALLBACK-HIT

// Errors name the dim and exit with 2.
// RUN: sh -c 'fuse-run %s --input x=%t/x7.npy --input r=%t/r1.npy 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=DISAGREE
// RUN: sh -c 'fuse-run %s --dim sequence=5 --input x=%t/x7.npy 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=DISAGREE-DIM
// RUN: sh -c 'fuse-run %s --input x=%t/x3.npy --input r=%t/r7.npy 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=DISAGREE-BATCH
// RUN: sh -c 'fuse-run %s 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=UNBOUND
// RUN: sh -c 'fuse-run %s --dim batch=2 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=UNBOUND-SEQ
// RUN: sh -c 'fuse-run %s --dim batch=2 --dim sequence=-1 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=NEGATIVE
// RUN: sh -c 'fuse-run %s --dim batch=2 --dim sequence=4611686018427387904 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=HUGE
// RUN: sh -c 'fuse-run %s --dim batch=2 --dim length=3 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=UNKNOWN
// RUN: sh -c 'fuse-run %s --input x=%t/rank2.npy 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=RANK

// FIRST: symbolic dims bound for this run: batch=2, sequence=1
// FIRST: compiling 22 ops for {{.*}} (once for every value of the dims)
// FIRST: output ln: tensor<2x1x64xf32>
// FIRST: check: passed, 2 outputs match the reference
// FIRST: "kernels": 1, {{.*}}"compiled": 1, "cache_hits": 0, {{.*}}"dims": {"batch": 2, "sequence": 1}, "symbolic_bundle": true

// SEVEN: symbolic dims bound for this run: batch=2, sequence=7
// SEVEN-NOT: compiling
// SEVEN: output p: tensor<2x7x64xf32>
// SEVEN: check: passed, 2 outputs match the reference
// SEVEN: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 7}, "symbolic_bundle": true

// LONG-NOT: compiling
// LONG: output p: tensor<2x77x64xf32>
// LONG: check: passed, 2 outputs match the reference
// LONG: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 77}, "symbolic_bundle": true

// REFERENCE: output ln: tensor<2x7x64xf32>
// REFERENCE: "dims": {"batch": 2, "sequence": 7}

// RANDOM: output ln: tensor<3x5x64xf32>
// RANDOM: check: passed
// RANDOM: "compiled": 0, {{.*}}"dims": {"batch": 3, "sequence": 5}, "symbolic_bundle": true
// PARTIAL: output ln: tensor<2x7x64xf32>
// PARTIAL: check: passed
// PARTIAL: "compiled": 0, {{.*}}"dims": {"batch": 2, "sequence": 7}

// FALLBACK: fuse-run: note: not every fusion takes the dims at run time, so the model is compiled for batch=2, sequence=5 (every other value compiles again): {{.*}}the matmul fusion {{.*}} needs a static value of dims {{.*}}'sequence'
// FALLBACK: compiled 1 kernel(s)
// FALLBACK: output out0: tensor<2x5x5xf32>
// FALLBACK: check: passed
// FALLBACK: "compiled": 1, {{.*}}"dims": {"batch": 2, "sequence": 5}, "symbolic_bundle": false
// FALLBACK-HIT: fuse-run: note: not every fusion takes the dims at run time
// FALLBACK-HIT: cache hit
// FALLBACK-HIT: "compiled": 0, "cache_hits": 1, {{.*}}"symbolic_bundle": false

// DISAGREE: fuse-run: error: the inputs disagree about dim 'sequence': dim 1 of --input x gives 7, dim 1 of --input r (tensor<?{batch}x?{sequence}x64xf32>) is 1
// DISAGREE-NEXT: {{^}}exit=2{{$}}
// DISAGREE-DIM: fuse-run: error: the inputs disagree about dim 'sequence': --dim sequence=5 gives 5, dim 1 of --input x (tensor<?{batch}x?{sequence}x64xf32>) is 7
// DISAGREE-DIM-NEXT: {{^}}exit=2{{$}}
// DISAGREE-BATCH: fuse-run: error: the inputs disagree about dim 'batch': dim 0 of --input x gives 3, dim 0 of --input r (tensor<?{batch}x?{sequence}x64xf32>) is 2
// DISAGREE-BATCH-NEXT: {{^}}exit=2{{$}}
// UNBOUND: fuse-run: error: dim 'batch' of '{{.*}}run-symbolic-dims.mlir' has no value: no --input shape gives it (an input drawn at random has no shape of its own); give --dim batch=VALUE, or the inputs that have it with --input
// UNBOUND-NEXT: {{^}}exit=2{{$}}
// UNBOUND-SEQ: fuse-run: error: dim 'sequence' of '{{.*}}' has no value
// UNBOUND-SEQ-NEXT: {{^}}exit=2{{$}}
// NEGATIVE: fuse-run: error: --dim sequence=-1: -1 is not a possible size of dim 'sequence'
// NEGATIVE-NEXT: {{^}}exit=2{{$}}
// HUGE: fuse-run: error: '{{.*}}run-symbolic-dims.mlir': binding batch=2, sequence=4611686018427387904: {{.*}} holds more than 2^48 bytes
// HUGE-NEXT: {{^}}exit=2{{$}}
// UNKNOWN: fuse-run: error: --dim length=3: '{{.*}}' has no dim 'length'; its dims are: batch, sequence
// UNKNOWN-NEXT: {{^}}exit=2{{$}}
// RANK: fuse-run: error: --input x has rank 2, but the model's 'x' is a tensor<?{batch}x?{sequence}x64xf32>
// RANK-NEXT: {{^}}exit=2{{$}}

func.func @rows(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
                %r: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "r"},
                %g: tensor<64xf32> {fuse.name = "g"}, %be: tensor<64xf32> {fuse.name = "be"},
                %eps: tensor<f32> {fuse.name = "eps"})
    -> (tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "ln"},
        tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "p"}) {
  %h = fuse.add %x, %r : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %mu = fuse.reduce mean %h dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %mub = fuse.broadcast %mu, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %d = fuse.sub %h, %mub : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %d2 = fuse.mul %d, %d : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %var = fuse.reduce mean %d2 dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %eb = fuse.broadcast %eps, dims = [] : tensor<f32> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %ve = fuse.add %var, %eb : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %rs = fuse.rsqrt %ve : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %rsb = fuse.broadcast %rs, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %n = fuse.mul %d, %rsb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %gb = fuse.broadcast %g, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %be, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.mul %n, %gb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %ln = fuse.add %s, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %mx = fuse.reduce max %ln dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %sh = fuse.sub %ln, %mxb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %e = fuse.exp %sh : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %sm = fuse.reduce sum %e dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %smb = fuse.broadcast %sm, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %p = fuse.div %e, %smb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %ln, %p : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
