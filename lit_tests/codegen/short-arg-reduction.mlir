// ArgMin and ArgMax over one row of 15 to 32 elements: the host emits them
// without vectors (an arg reduction over columns, one element per
// iteration), and after LLVM fully unrolled the short inner loop, LLVM 22's
// loop vectorizer walked the outer loop's compare-and-select chain without
// memoizing and never finished (the structured ONNX fuzzer, seed 5877:
// ArgMin over 16 elements then a Cast compiled for ever). Scalar kernels now
// keep their loops scalar; each result is checked against the reference.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s

// CHECK: check: passed, 5 outputs match the reference

func.func @short_rows(%a: tensor<1x15xf32>, %b: tensor<1x16xf32>, %c: tensor<1x17xf32>,
                      %d: tensor<1x32xf32>, %e: tensor<1x20xf32>)
    -> (tensor<1xi64>, tensor<1xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) {
  %0 = fuse.argmin %a axis = 1 : tensor<1x15xf32> -> tensor<1xi64>
  %1 = fuse.argmin %b axis = 1 : tensor<1x16xf32> -> tensor<1xi64>
  %2 = fuse.cast %1 : tensor<1xi64> to tensor<1xf32>
  %3 = fuse.argmax %c axis = 1 : tensor<1x17xf32> -> tensor<1xi64>
  %4 = fuse.argmax %d axis = 1 : tensor<1x32xf32> -> tensor<1xi64>
  %5 = fuse.argmin %e axis = 1 : tensor<1x20xf32> -> tensor<1xi64>
  return %0, %2, %3, %4, %5 : tensor<1xi64>, tensor<1xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
}
