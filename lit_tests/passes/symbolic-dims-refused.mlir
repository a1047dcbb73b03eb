// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline -verify-diagnostics
// RUN: fuse-opt %s -split-input-file -fuse-form-fusions -verify-diagnostics
// RUN: fuse-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON

// Issue 22, step B (this part): the fusion passes count elements in their
// cost model and schedule legality, so on symbolic dims they refuse, naming
// the first symbolic dim, instead of counting a `?` as a number. The
// dialect's canonicalization runs (a splat broadcast to a `?` dim stays a
// broadcast: no constant of symbolic shape exists).

func.func @bert_like(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>>,
                     %w: tensor<64x64xf32>, %b: tensor<64xf32>)
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  // expected-error @+1 {{needs static dims, but dim 0 (batch) of tensor<?x?x64xf32, #fuse.dims<batch, sequence>> is symbolic; fusion on symbolic dims is not implemented yet (issue 22): bind the dims first}}
  %m = fuse.matmul %x, %w : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %b, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.add %m, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %s : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}

// -----

// CANON-LABEL: func.func @splat
// CANON: %[[C:.*]] = fuse.constant dense<1.000000e+00> : tensor<64xf32>
// CANON: fuse.broadcast %[[C]], dims = [1] : tensor<64xf32> -> tensor<?x64xf32, #fuse.dims<sequence>>
func.func @splat(%x: tensor<?x64xf32, #fuse.dims<sequence>>) -> tensor<?x64xf32, #fuse.dims<sequence>> {
  %c = fuse.constant dense<1.0> : tensor<64xf32>
  // expected-error @+1 {{needs static dims, but dim 0 (sequence) of tensor<?x64xf32, #fuse.dims<sequence>> is symbolic}}
  %b = fuse.broadcast %c, dims = [1] : tensor<64xf32> -> tensor<?x64xf32, #fuse.dims<sequence>>
  %s = fuse.add %x, %b : tensor<?x64xf32, #fuse.dims<sequence>>
  return %s : tensor<?x64xf32, #fuse.dims<sequence>>
}
