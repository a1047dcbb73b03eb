// An attention with a symbolic batch and a static sequence of several
// blocks of query rows per head (150 rows: blocks of 32) compiles once for
// every batch: its kernels' plans do not depend on the batch, so there is
// no `_keys` kernel (whose scratch would grow with the batch; the static
// attention-keys-once.mlir has one). Run from one --cache-dir at batch 2,
// then 3, each checked against the reference at the bound shapes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --dim batch=2 --check --json --print-plan --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --dim batch=3 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SECOND
// FIRST: symbolic dims bound for this run: batch=2
// FIRST: compiling {{.*}} (once for every value of the dims)
// FIRST-NOT: needs a static value
// FIRST-NOT: _keys
// FIRST: fuse_k{{[0-9]+}}_attention: attention
// FIRST: check: passed, 1 outputs match the reference
// FIRST: "compiled": 1, "cache_hits": 0, {{.*}}"dims": {"batch": 2}, "symbolic_bundle": true
// SECOND-NOT: compiling
// SECOND: output out: tensor<3x4x150x32xf32>
// SECOND: check: passed, 1 outputs match the reference
// SECOND: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 3}, "symbolic_bundle": true

func.func @attention(%q: tensor<?x4x150x32xf32, #fuse.dims<batch>> {fuse.name = "q"},
                     %k: tensor<?x4x150x32xf32, #fuse.dims<batch>> {fuse.name = "k"},
                     %v: tensor<?x4x150x32xf32, #fuse.dims<batch>> {fuse.name = "v"})
    -> (tensor<?x4x150x32xf32, #fuse.dims<batch>> {fuse.name = "out"}) {
  %s = fuse.matmul %q, %k transpose_b : tensor<?x4x150x32xf32, #fuse.dims<batch>>, tensor<?x4x150x32xf32, #fuse.dims<batch>> -> tensor<?x4x150x150xf32, #fuse.dims<batch>>
  %mx = fuse.reduce max %s dims = [3] keep_dims : tensor<?x4x150x150xf32, #fuse.dims<batch>> -> tensor<?x4x150x1xf32, #fuse.dims<batch>>
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2, 3] : tensor<?x4x150x1xf32, #fuse.dims<batch>> -> tensor<?x4x150x150xf32, #fuse.dims<batch>>
  %d = fuse.sub %s, %mxb : tensor<?x4x150x150xf32, #fuse.dims<batch>>
  %e = fuse.exp %d : tensor<?x4x150x150xf32, #fuse.dims<batch>>
  %sm = fuse.reduce sum %e dims = [3] keep_dims : tensor<?x4x150x150xf32, #fuse.dims<batch>> -> tensor<?x4x150x1xf32, #fuse.dims<batch>>
  %smb = fuse.broadcast %sm, dims = [0, 1, 2, 3] : tensor<?x4x150x1xf32, #fuse.dims<batch>> -> tensor<?x4x150x150xf32, #fuse.dims<batch>>
  %p = fuse.div %e, %smb : tensor<?x4x150x150xf32, #fuse.dims<batch>>
  %o = fuse.matmul %p, %v : tensor<?x4x150x150xf32, #fuse.dims<batch>>, tensor<?x4x150x32xf32, #fuse.dims<batch>> -> tensor<?x4x150x32xf32, #fuse.dims<batch>>
  return %o : tensor<?x4x150x32xf32, #fuse.dims<batch>>
}
