// A runtime-rows matmul splits each row of C into parts of 128 columns, its
// iterations rows * parts, so that the threads share a decoder step's one
// row: N = 520 is 5 parts (4 whole, the last 8 columns past the strips in a
// masked tail), K = 300 makes a part worth a grain. The chunks of 2, 3 and 4
// threads start and end inside rows (a chunk within one row; a row's last
// parts, whole rows, then a row's first parts), each checked against the
// reference with --check's guards, from one compile.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/v4 && FileCheck %s --check-prefix=PLAN < %t/v4/bundle.txt
// RUN: fuse-run %s --dim rows=1 --threads 2 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim rows=1 --threads 3 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim rows=2 --threads 3 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim rows=7 --threads 4 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim rows=13 --threads 3 --check --cache-dir %t/cache | FileCheck %s --check-prefix=CHECKED

// PLAN: fuse_k0_matmul schedule matmul iterations rows*5 grain 1

// CHECKED: check y: {{.*}}: ok
// CHECKED: check: passed, 1 outputs match the reference
// CHECKED-NEXT: check guards: {{[0-9]+}} guards around the buffers of {{[0-9]+}} kernel launch(es) intact

func.func @layer(%x: tensor<?x300xf32, #fuse.dims<rows>> {fuse.name = "x"},
                 %w: tensor<300x520xf32> {fuse.name = "w"},
                 %b: tensor<520xf32> {fuse.name = "b"})
    -> (tensor<?x520xf32, #fuse.dims<rows>> {fuse.name = "y"}) {
  %m = fuse.matmul %x, %w : tensor<?x300xf32, #fuse.dims<rows>>, tensor<300x520xf32> -> tensor<?x520xf32, #fuse.dims<rows>>
  %bb = fuse.broadcast %b, dims = [1] : tensor<520xf32> -> tensor<?x520xf32, #fuse.dims<rows>>
  %s = fuse.add %m, %bb : tensor<?x520xf32, #fuse.dims<rows>>
  %z = fuse.constant dense<0.0> : tensor<f32>
  %zb = fuse.broadcast %z, dims = [] : tensor<f32> -> tensor<?x520xf32, #fuse.dims<rows>>
  %y = fuse.max %s, %zb : tensor<?x520xf32, #fuse.dims<rows>>
  return %y : tensor<?x520xf32, #fuse.dims<rows>>
}
