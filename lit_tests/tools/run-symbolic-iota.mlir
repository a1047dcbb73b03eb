// Issue 22: a dim's value as data in host pointwise kernels with runtime
// dims. A causal mask as GPT-2's and Llama's dynamic exports build it (the
// query positions, an iota over the symbolic sequence, compared with the
// key positions; the masked scores' softmax over 64 keys) and a dim_value
// (x + position * sequence) compile once: the iota and the dim_value read
// the dims array, so the second and third lengths compile nothing. Each run
// is checked against the reference at the bound shapes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --dim batch=1 --dim sequence=1 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --dim batch=1 --dim sequence=77 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: fuse-run %s --dim batch=2 --dim sequence=128 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONGER

func.func @main(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>>)
    -> (tensor<?x?x64xf32, #fuse.dims<batch, sequence>>,
        tensor<?x?x64xf32, #fuse.dims<batch, sequence>>) {
  %r = fuse.iota axis = 1 : tensor<?x?x64xi64, #fuse.dims<batch, sequence>>
  %c = fuse.iota axis = 2 : tensor<?x?x64xi64, #fuse.dims<batch, sequence>>
  %keep = fuse.compare ge, %r, %c : tensor<?x?x64xi64, #fuse.dims<batch, sequence>>
  %neg = fuse.constant dense<-1.0e9> : tensor<1xf32>
  %negb = fuse.broadcast %neg, dims = [2] : tensor<1xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %m = fuse.select %keep, %x, %negb : tensor<?x?x64xi1, #fuse.dims<batch, sequence>>, tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %mx = fuse.reduce max %m dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %sh = fuse.sub %m, %mxb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %e = fuse.exp %sh : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %sm = fuse.reduce sum %e dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %smb = fuse.broadcast %sm, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %p = fuse.div %e, %smb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %rf = fuse.iota axis = 1 : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %n = fuse.dim_value {dim = #fuse.dims<sequence>} : tensor<1xf32>
  %nb = fuse.broadcast %n, dims = [2] : tensor<1xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %q = fuse.mul %rf, %nb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %y = fuse.add %x, %q : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %p, %y : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}

// FIRST: symbolic dims bound for this run: batch=1, sequence=1
// FIRST-NOT: note: not every fusion
// FIRST: (once for every value of the dims)
// FIRST: check: passed, 2 outputs match the reference
// FIRST: "compiled": {{[1-9][0-9]*}}, "cache_hits": 0, {{.*}}"dims": {"batch": 1, "sequence": 1}, "symbolic_bundle": true

// LONG: symbolic dims bound for this run: batch=1, sequence=77
// LONG-NOT: note: not every fusion
// LONG: check: passed, 2 outputs match the reference
// LONG: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 1, "sequence": 77}, "symbolic_bundle": true

// LONGER: symbolic dims bound for this run: batch=2, sequence=128
// LONGER: check: passed, 2 outputs match the reference
// LONGER: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 128}, "symbolic_bundle": true
