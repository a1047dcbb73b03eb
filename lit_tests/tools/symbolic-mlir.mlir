// A .mlir model with symbolic dims runs with the dims bound, never with a
// `?` taken for a size: without an --input that gives them or a --dim, it is
// refused with the dim named.

// RUN: not fuse-run %s 2>&1 | FileCheck %s
// RUN: not fuse-run %s --runtime reference 2>&1 | FileCheck %s
// RUN: fuse-run %s --runtime reference --dim sequence=3 --check 2>&1 | FileCheck %s --check-prefix=BOUND

func.func @symbolic(%x: tensor<?x8xf32, #fuse.dims<sequence>>) -> tensor<?x8xf32, #fuse.dims<sequence>> {
  %y = fuse.tanh %x : tensor<?x8xf32, #fuse.dims<sequence>>
  return %y : tensor<?x8xf32, #fuse.dims<sequence>>
}

// CHECK: fuse-run: error: dim 'sequence' of '{{.*}}symbolic-mlir.mlir' has no value: no --input shape gives it (an input drawn at random has no shape of its own); give --dim sequence=VALUE, or the inputs that have it with --input
// CHECK-NOT: cannot allocate

// BOUND: symbolic dims bound for this run: sequence=3
// BOUND: output out0: tensor<3x8xf32>
// BOUND: check: passed
