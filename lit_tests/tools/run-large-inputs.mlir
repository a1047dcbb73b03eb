// fuse-run puts its own large inputs (random ones, and with --bench or
// --profile those given with --input) in memory laid out as the host
// runtime's blocks are (huge pages) and lends it to the runtime: the values
// are the same as from the C++ heap. A large --input read back and copied
// for timed runs gives the same bytes as the untimed run that reads it in
// place, and both match the reference.

// RUN: rm -rf %t.a %t.b %t.c %t.cache
// RUN: fuse-run %s --seed 5 --check --output-dir %t.a --cache-dir %t.cache | FileCheck %s --check-prefix=RANDOM
// RUN: fuse-run %s --input x=%t.a/y.npy --bench 3 --check --output-dir %t.b --cache-dir %t.cache | FileCheck %s --check-prefix=TIMED
// RUN: fuse-run %s --input x=%t.a/y.npy --check --output-dir %t.c --cache-dir %t.cache | FileCheck %s --check-prefix=UNTIMED
// RUN: cmp %t.b/s.npy %t.c/s.npy
// RUN: cmp %t.b/y.npy %t.c/y.npy
// RUN: not cmp -s %t.a/y.npy %t.b/y.npy

// 1024x1024 f32: 4 MiB, two huge pages.
func.func @main(%x: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32> {fuse.name = "y"}, tensor<1024xf32> {fuse.name = "s"}) {
  %y = fuse.tanh %x : tensor<1024x1024xf32>
  %s = fuse.reduce sum %y dims = [0] : tensor<1024x1024xf32> -> tensor<1024xf32>
  return %y, %s : tensor<1024x1024xf32>, tensor<1024xf32>
}

// RANDOM: output y: tensor<1024x1024xf32> [{{-?0\.[0-9]+}}, {{-?0\.[0-9]+}},
// RANDOM: check: passed, 2 outputs match the reference
// TIMED: bench: 3 runs
// TIMED: check: passed, 2 outputs match the reference
// UNTIMED: check: passed, 2 outputs match the reference
