// Issue 22: attention with the sequence symbolic in its query rows and its
// keys, as a decoder has it (12 heads of 64, an additive causal mask given
// as an input), run by fuse-run from one --cache-dir at three lengths: the
// attention kernel reads the sequence from its dims array (KernelAbi.h,
// "Runtime dims"), so only the first length compiles. Each run is checked
// against the reference at the bound shapes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --dim sequence=1 --check --json --print-plan --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --dim sequence=77 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: fuse-run %s --dim sequence=128 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONGER

// FIRST: symbolic dims bound for this run: sequence=1
// FIRST: compiling {{.*}} (once for every value of the dims)
// FIRST: fuse_k{{[0-9]+}}_attention: attention
// FIRST: output out: tensor<1x12x1x64xf32>
// FIRST: check: passed, 1 outputs match the reference
// FIRST: "compiled": 1, "cache_hits": 0, {{.*}}"dims": {"sequence": 1}, "symbolic_bundle": true

// LONG-NOT: compiling
// LONG: output out: tensor<1x12x77x64xf32>
// LONG: check: passed, 1 outputs match the reference
// LONG: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"sequence": 77}, "symbolic_bundle": true

// LONGER-NOT: compiling
// LONGER: output out: tensor<1x12x128x64xf32>
// LONGER: check: passed, 1 outputs match the reference
// LONGER: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"sequence": 128}, "symbolic_bundle": true

func.func @attention(%q: tensor<1x12x?x64xf32, #fuse.dims<sequence>> {fuse.name = "q"},
                     %k: tensor<1x12x?x64xf32, #fuse.dims<sequence>> {fuse.name = "k"},
                     %v: tensor<1x12x?x64xf32, #fuse.dims<sequence>> {fuse.name = "v"},
                     %causal: tensor<?x?xf32, #fuse.dims<sequence, sequence>> {fuse.name = "causal"})
    -> (tensor<1x12x?x64xf32, #fuse.dims<sequence>> {fuse.name = "out"}) {
  %s = fuse.matmul %q, %k transpose_b : tensor<1x12x?x64xf32, #fuse.dims<sequence>>, tensor<1x12x?x64xf32, #fuse.dims<sequence>> -> tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %c = fuse.constant dense<0.125> : tensor<f32>
  %cb = fuse.broadcast %c, dims = [] : tensor<f32> -> tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %t = fuse.mul %s, %cb : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %cm = fuse.broadcast %causal, dims = [2, 3] : tensor<?x?xf32, #fuse.dims<sequence, sequence>> -> tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %u = fuse.add %t, %cm : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %mx = fuse.reduce max %u dims = [3] keep_dims : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>> -> tensor<1x12x?x1xf32, #fuse.dims<sequence>>
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2, 3] : tensor<1x12x?x1xf32, #fuse.dims<sequence>> -> tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %d = fuse.sub %u, %mxb : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %e = fuse.exp %d : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %sm = fuse.reduce sum %e dims = [3] keep_dims : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>> -> tensor<1x12x?x1xf32, #fuse.dims<sequence>>
  %smb = fuse.broadcast %sm, dims = [0, 1, 2, 3] : tensor<1x12x?x1xf32, #fuse.dims<sequence>> -> tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %p = fuse.div %e, %smb : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>
  %o = fuse.matmul %p, %v : tensor<1x12x?x?xf32, #fuse.dims<sequence, sequence>>, tensor<1x12x?x64xf32, #fuse.dims<sequence>> -> tensor<1x12x?x64xf32, #fuse.dims<sequence>>
  return %o : tensor<1x12x?x64xf32, #fuse.dims<sequence>>
}
