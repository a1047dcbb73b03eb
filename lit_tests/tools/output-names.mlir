// Output names are the model's, and a model may name an output anything:
// --output-dir writes each as a plain file inside the folder (bytes other
// than letters, digits, '_', '-' and '.' as %XX, a leading '.' too), says so
// when a name changed, and never writes one file twice. A name of
// "../../x" once wrote outside the folder; a trailing NUL cut the suffix.

// RUN: rm -rf %t && mkdir -p %t/a/b
// RUN: fuse-run %s --output-dir %t/a/b/out --cache-dir %t/cache 2>&1 | FileCheck %s
// RUN: ls -A %t/a/b/out | FileCheck %s --check-prefix=FILES
// RUN: ls -A %t %t/a %t/a/b | FileCheck %s --check-prefix=OUTSIDE

// CHECK: output 0 ('../../x') is written as %2E.%2F..%2Fx.npy
// CHECK: output 1 ('a/b') is written as a%2Fb.npy
// CHECK: output 2 ('..') is written as %2E..npy
// CHECK: output 3 ('.hidden') is written as %2Ehidden.npy
// CHECK: output 4 ('x\00y') is written as x%00y.npy
// CHECK: output 6 ('same') is written as same~6.npy
// CHECK: output 7 ('50%') is written as 50%25.npy

// FILES-DAG: %2E.%2F..%2Fx.npy
// FILES-DAG: a%2Fb.npy
// FILES-DAG: %2E..npy
// FILES-DAG: %2Ehidden.npy
// FILES-DAG: x%00y.npy
// FILES-DAG: same.npy
// FILES-DAG: same~6.npy
// FILES-DAG: 50%25.npy

// Nothing but the folders made by the RUN lines (and the cache).
// OUTSIDE-NOT: .npy
// OUTSIDE-NOT: {{^x}}

func.func @names(%x: tensor<4xf32>) -> (tensor<4xf32> {fuse.name = "../../x"},
    tensor<4xf32> {fuse.name = "a/b"}, tensor<4xf32> {fuse.name = ".."},
    tensor<4xf32> {fuse.name = ".hidden"}, tensor<4xf32> {fuse.name = "x\00y"},
    tensor<4xf32> {fuse.name = "same"}, tensor<4xf32> {fuse.name = "same"},
    tensor<4xf32> {fuse.name = "50%"}) {
  %a = fuse.exp %x : tensor<4xf32>
  %b = fuse.neg %x : tensor<4xf32>
  %c = fuse.abs %x : tensor<4xf32>
  %d = fuse.tanh %x : tensor<4xf32>
  %e = fuse.sin %x : tensor<4xf32>
  %f = fuse.cos %x : tensor<4xf32>
  %g = fuse.sqrt %c : tensor<4xf32>
  %h = fuse.floor %x : tensor<4xf32>
  return %a, %b, %c, %d, %e, %f, %g, %h : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
