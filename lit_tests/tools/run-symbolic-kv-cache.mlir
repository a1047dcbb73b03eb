// A decoder step's key/value cache as GPT-2's export has it: the step's K
// and V (sliced from one projection, heads split) concatenated to the past
// ones, the concats returned as the present cache, and the scores' Kᵀ made
// by a transpose (0, 1, 3, 2) of the present keys, scaled by a splat. The
// transpose moves the keys' innermost dim: in the concat's kernel it would
// be a second output of the same elements stored a lane at a time, at a
// stride of the past length (FormFusions' transposesKeptOutputForMatmulB
// keeps it out; GPT-2's step spent a quarter of its kernels' time there).
// It joins the attention, which reads the present keys through transpose_b.
// Run by fuse-run from one --cache-dir at three past lengths (the dims
// bound at run time, so only the first compiles), each checked against the
// reference at the bound shapes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --dim past=7 --dim sequence=1 --check --json --print-plan --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --dim past=40 --dim sequence=1 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LATER
// RUN: fuse-run %s --dim past=0 --dim sequence=5 --check --json --threads 3 --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=PROMPT

// FIRST: compiling {{.*}} (once for every value of the dims)
// The keys' concat is stored once, as it is (4096 B; with Kᵀ as a second
// output, 8192 B): no transpose after the concat in either kernel.
// FIRST: _pointwise: pointwise, 4 ops, reads 4096 B, writes 4096 B
// FIRST-NEXT: ops slice reshape transpose concat{{$}}
// FIRST: _pointwise: pointwise, 4 ops, reads 4096 B, writes 4096 B
// FIRST-NEXT: ops slice reshape transpose concat{{$}}
// The attention takes Kᵀ's scale as its prologue (the transpose folded into
// the scores' transpose_b): Q's split and scale, then K's scale.
// FIRST: _attention: attention
// FIRST-NEXT: ops slice reshape transpose constant broadcast mul broadcast mul matmul reduce
// FIRST: check: passed, 3 outputs match the reference
// FIRST: "cache_hits": 0, {{.*}}"symbolic_bundle": true

// LATER-NOT: compiling
// LATER: output present_k: tensor<1x4x41x32xf32>
// LATER: check: passed, 3 outputs match the reference
// LATER: "compiled": 0, "cache_hits": 1, {{.*}}"symbolic_bundle": true

// PROMPT-NOT: compiling
// PROMPT: output present_k: tensor<1x4x5x32xf32>
// PROMPT: check: passed, 3 outputs match the reference
// PROMPT: "compiled": 0, "cache_hits": 1, {{.*}}"symbolic_bundle": true

func.func @step(%x: tensor<1x?x128xf32, #fuse.dims<sequence>> {fuse.name = "x"},
                %w: tensor<128x384xf32> {fuse.name = "w"},
                %pk: tensor<1x4x?x32xf32, #fuse.dims<past>> {fuse.name = "past_k"},
                %pv: tensor<1x4x?x32xf32, #fuse.dims<past>> {fuse.name = "past_v"})
    -> (tensor<1x4x?x32xf32, #fuse.dims<sequence>> {fuse.name = "out"},
        tensor<1x4x?x32xf32, #fuse.dims<past + sequence>> {fuse.name = "present_k"},
        tensor<1x4x?x32xf32, #fuse.dims<past + sequence>> {fuse.name = "present_v"}) {
  %qkv = fuse.matmul %x, %w : tensor<1x?x128xf32, #fuse.dims<sequence>>, tensor<128x384xf32> -> tensor<1x?x384xf32, #fuse.dims<sequence>>
  %q0 = fuse.slice %qkv offsets = [0, 0, 0] sizes = [1, -1, 128] strides = [1, 1, 1] : tensor<1x?x384xf32, #fuse.dims<sequence>> -> tensor<1x?x128xf32, #fuse.dims<sequence>>
  %q1 = fuse.reshape %q0 : tensor<1x?x128xf32, #fuse.dims<sequence>> -> tensor<1x?x4x32xf32, #fuse.dims<sequence>>
  %q2 = fuse.transpose %q1, permutation = [0, 2, 1, 3] : tensor<1x?x4x32xf32, #fuse.dims<sequence>> -> tensor<1x4x?x32xf32, #fuse.dims<sequence>>
  %k0 = fuse.slice %qkv offsets = [0, 0, 128] sizes = [1, -1, 128] strides = [1, 1, 1] : tensor<1x?x384xf32, #fuse.dims<sequence>> -> tensor<1x?x128xf32, #fuse.dims<sequence>>
  %k1 = fuse.reshape %k0 : tensor<1x?x128xf32, #fuse.dims<sequence>> -> tensor<1x?x4x32xf32, #fuse.dims<sequence>>
  %k2 = fuse.transpose %k1, permutation = [0, 2, 1, 3] : tensor<1x?x4x32xf32, #fuse.dims<sequence>> -> tensor<1x4x?x32xf32, #fuse.dims<sequence>>
  %k = fuse.concat %pk, %k2 axis = 2 : tensor<1x4x?x32xf32, #fuse.dims<past>>, tensor<1x4x?x32xf32, #fuse.dims<sequence>> -> tensor<1x4x?x32xf32, #fuse.dims<past + sequence>>
  %v0 = fuse.slice %qkv offsets = [0, 0, 256] sizes = [1, -1, 128] strides = [1, 1, 1] : tensor<1x?x384xf32, #fuse.dims<sequence>> -> tensor<1x?x128xf32, #fuse.dims<sequence>>
  %v1 = fuse.reshape %v0 : tensor<1x?x128xf32, #fuse.dims<sequence>> -> tensor<1x?x4x32xf32, #fuse.dims<sequence>>
  %v2 = fuse.transpose %v1, permutation = [0, 2, 1, 3] : tensor<1x?x4x32xf32, #fuse.dims<sequence>> -> tensor<1x4x?x32xf32, #fuse.dims<sequence>>
  %v = fuse.concat %pv, %v2 axis = 2 : tensor<1x4x?x32xf32, #fuse.dims<past>>, tensor<1x4x?x32xf32, #fuse.dims<sequence>> -> tensor<1x4x?x32xf32, #fuse.dims<past + sequence>>
  %c = fuse.constant dense<0.42> : tensor<f32>
  %cq = fuse.broadcast %c, dims = [] : tensor<f32> -> tensor<1x4x?x32xf32, #fuse.dims<sequence>>
  %q = fuse.mul %q2, %cq : tensor<1x4x?x32xf32, #fuse.dims<sequence>>
  %kt = fuse.transpose %k, permutation = [0, 1, 3, 2] : tensor<1x4x?x32xf32, #fuse.dims<past + sequence>> -> tensor<1x4x32x?xf32, #fuse.dims<past + sequence>>
  %ck = fuse.broadcast %c, dims = [] : tensor<f32> -> tensor<1x4x32x?xf32, #fuse.dims<past + sequence>>
  %ks = fuse.mul %kt, %ck : tensor<1x4x32x?xf32, #fuse.dims<past + sequence>>
  %s = fuse.matmul %q, %ks : tensor<1x4x?x32xf32, #fuse.dims<sequence>>, tensor<1x4x32x?xf32, #fuse.dims<past + sequence>> -> tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>>
  %m = fuse.reduce max %s dims = [3] keep_dims : tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>> -> tensor<1x4x?x1xf32, #fuse.dims<sequence>>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<1x4x?x1xf32, #fuse.dims<sequence>> -> tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>>
  %d = fuse.sub %s, %mb : tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>>
  %e = fuse.exp %d : tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>>
  %l = fuse.reduce sum %e dims = [3] keep_dims : tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>> -> tensor<1x4x?x1xf32, #fuse.dims<sequence>>
  %lb = fuse.broadcast %l, dims = [0, 1, 2, 3] : tensor<1x4x?x1xf32, #fuse.dims<sequence>> -> tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>>
  %p = fuse.div %e, %lb : tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>>
  %o = fuse.matmul %p, %v : tensor<1x4x?x?xf32, #fuse.dims<sequence, past + sequence>>, tensor<1x4x?x32xf32, #fuse.dims<past + sequence>> -> tensor<1x4x?x32xf32, #fuse.dims<sequence>>
  return %o, %k, %v : tensor<1x4x?x32xf32, #fuse.dims<sequence>>, tensor<1x4x?x32xf32, #fuse.dims<past + sequence>>, tensor<1x4x?x32xf32, #fuse.dims<past + sequence>>
}
