// A .mlir model with symbolic dims does not run yet: refused with the dim
// named, not run with a `?` taken for a size.

// RUN: not fuse-run %s 2>&1 | FileCheck %s
// RUN: not fuse-run %s --runtime reference 2>&1 | FileCheck %s

func.func @symbolic(%x: tensor<?x8xf32, #fuse.dims<sequence>>) -> tensor<?x8xf32, #fuse.dims<sequence>> {
  %y = fuse.tanh %x : tensor<?x8xf32, #fuse.dims<sequence>>
  return %y : tensor<?x8xf32, #fuse.dims<sequence>>
}

// CHECK: fuse-run: error: '{{.*}}symbolic-mlir.mlir': dim 0 of input 'x' (tensor<?{sequence}x8xf32>) is the symbolic dim sequence; .mlir models with symbolic dims do not run yet (--dim binds the dims of .onnx models only)
// CHECK-NOT: cannot allocate
