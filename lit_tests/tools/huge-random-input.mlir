// An input the model's shape asks for but memory cannot hold (2^30 f32, 4
// GiB, under a 4 GB address space limit) is a clear error naming the
// tensor and the bytes asked for, before anything is allocated: not an
// out-of-memory abort.

// REQUIRES: address-space-limit
// RUN: rm -rf %t.cache
// RUN: sh -c 'ulimit -v 4000000; fuse-run %s --cache-dir %t.cache; echo "exit=$?"' 2>&1 | FileCheck %s

// CHECK: fuse-run: error: cannot allocate 4294967296 bytes for input 'x' (tensor<1073741824xf32>)
// CHECK: {{^}}exit=2{{$}}

func.func @main(%x: tensor<1073741824xf32>) -> tensor<1073741824xf32> {
  %y = fuse.exp %x : tensor<1073741824xf32>
  return %y : tensor<1073741824xf32>
}
