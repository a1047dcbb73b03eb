// Issue 22: an attention with runtime dims whose causal mask is built as
// GPT-2's dynamic-axes export builds it: two iotas over the symbolic
// sequence compared, And-ed with a `true` broadcast to the symbolic shape
// (folded away: x & true = x also where the `true` is a splat broadcast to
// `?` dims, so the kernel has one `and`, the padding mask's), then with
// the padding mask; select 0 / -inf, added to the scores; a softmax with
// PyTorch's NaN guard. One bundle serves every length; each run is checked
// against the reference runtime on random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %s -canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: fuse-run %s --dim batch=1 --dim sequence=1 --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --dim batch=2 --dim sequence=37 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim batch=1 --dim sequence=128 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim batch=1 --dim sequence=200 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED

// FOLD-COUNT-1: fuse.and
// FOLD-NOT: fuse.and
// FOLD-NOT: dense<true>

// The attention kernel's ops: one `and`, then none.
// CHECK: attention
// CHECK-NEXT: {{^  ops ((cast|reshape|broadcast|compare|constant) )*and( (matmul|constant|broadcast|select|add|reduce|sub|exp|div|isnan))*$}}
// CHECK: check: passed
// CHECKED: check: passed

func.func @main(%q: tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>,
                %k: tensor<?x4x64x?xf32, #fuse.dims<batch, sequence>>,
                %v: tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>,
                %pad: tensor<?x?xi64, #fuse.dims<batch, sequence>>)
    -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>> {
  %padb = fuse.cast %pad : tensor<?x?xi64, #fuse.dims<batch, sequence>> to tensor<?x?xi1, #fuse.dims<batch, sequence>>
  %i0 = fuse.iota axis = 0 : tensor<?xi64, #fuse.dims<sequence>>
  %i1 = fuse.iota axis = 0 : tensor<?xi64, #fuse.dims<sequence>>
  %rows = fuse.reshape %i0 : tensor<?xi64, #fuse.dims<sequence>> -> tensor<1x1x?x1xi64, #fuse.dims<sequence>>
  %cols = fuse.reshape %i1 : tensor<?xi64, #fuse.dims<sequence>> -> tensor<1x1x1x?xi64, #fuse.dims<sequence>>
  %colsb = fuse.broadcast %cols, dims = [0, 1, 2, 3] : tensor<1x1x1x?xi64, #fuse.dims<sequence>> -> tensor<1x1x?x?xi64, #fuse.dims<sequence, sequence>>
  %rowsb = fuse.broadcast %rows, dims = [0, 1, 2, 3] : tensor<1x1x?x1xi64, #fuse.dims<sequence>> -> tensor<1x1x?x?xi64, #fuse.dims<sequence, sequence>>
  %causal = fuse.compare le, %colsb, %rowsb : tensor<1x1x?x?xi64, #fuse.dims<sequence, sequence>>
  %true = fuse.constant dense<true> : tensor<i1>
  %trueb = fuse.broadcast %true, dims = [] : tensor<i1> -> tensor<1x1x?x?xi1, #fuse.dims<sequence, sequence>>
  %c2 = fuse.and %trueb, %causal : tensor<1x1x?x?xi1, #fuse.dims<sequence, sequence>>
  %pad4 = fuse.reshape %padb : tensor<?x?xi1, #fuse.dims<batch, sequence>> -> tensor<?x1x1x?xi1, #fuse.dims<batch, sequence>>
  %cb = fuse.broadcast %c2, dims = [0, 1, 2, 3] : tensor<1x1x?x?xi1, #fuse.dims<sequence, sequence>> -> tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %pb = fuse.broadcast %pad4, dims = [0, 1, 2, 3] : tensor<?x1x1x?xi1, #fuse.dims<batch, sequence>> -> tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %mask = fuse.and %cb, %pb : tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %s = fuse.matmul %q, %k : tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x4x64x?xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %ninf = fuse.constant dense<0xFF800000> : tensor<f32>
  %ninfb = fuse.broadcast %ninf, dims = [] : tensor<f32> -> tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %zero = fuse.constant dense<0.0> : tensor<f32>
  %zerob = fuse.broadcast %zero, dims = [] : tensor<f32> -> tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %bias = fuse.select %mask, %zerob, %ninfb : tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>, tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %biasb = fuse.broadcast %bias, dims = [0, 1, 2, 3] : tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %x = fuse.add %s, %biasb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %m = fuse.reduce max %x dims = [3] keep_dims : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %d = fuse.sub %x, %mb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %e = fuse.exp %d : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %sum = fuse.reduce sum %e dims = [3] keep_dims : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>>
  %sumb = fuse.broadcast %sum, dims = [0, 1, 2, 3] : tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %p = fuse.div %e, %sumb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %nan = fuse.isnan %p : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %z4 = fuse.constant dense<0.0> : tensor<f32>
  %z4b = fuse.broadcast %z4, dims = [] : tensor<f32> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %pg = fuse.select %nan, %z4b, %p : tensor<?x4x?x?xi1, #fuse.dims<batch, sequence, sequence>>, tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %o = fuse.matmul %pg, %v : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>, tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  return %o : tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
}
