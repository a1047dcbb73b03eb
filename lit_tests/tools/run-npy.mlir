// --output-dir writes each output as NAME.npy, named by its fuse.name or
// out<i>; later runs read them back with --input (the inputs not given are
// drawn from --seed). --dot writes the plan
// with each kernel a cluster.

// RUN: rm -rf %t.out %t.out2 %t.cache
// RUN: fuse-run %s --seed 7 --output-dir %t.out --dot %t.dot --cache-dir %t.cache | FileCheck %s --check-prefix=FIRST
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// RUN: fuse-run %s --input x=%t.out/scaled.npy --input bias=%t.out/out1.npy --output-dir %t.out2 --check --cache-dir %t.cache | FileCheck %s --check-prefix=SECOND
// RUN: fuse-run %examples/gelu.mlir --input x=%t.out/scaled.npy --seed 1 --check --cache-dir %t.cache > %t.gelu1
// RUN: fuse-run %examples/gelu.mlir --input x=%t.out/scaled.npy --seed 2 --cache-dir %t.cache > %t.gelu2
// RUN: cat %t.gelu1 %t.gelu2 | FileCheck %s --check-prefix=GELU

func.func @scale_and_sum(%x: tensor<32x256xf32>, %bias: tensor<256xf32>) -> (tensor<32x256xf32> {fuse.name = "scaled"}, tensor<256xf32>) {
  %b = fuse.broadcast %bias, dims = [1] : tensor<256xf32> -> tensor<32x256xf32>
  %y = fuse.add %x, %b : tensor<32x256xf32>
  %two = fuse.constant dense<2.0> : tensor<256xf32>
  %z = fuse.mul %bias, %two : tensor<256xf32>
  return %y, %z : tensor<32x256xf32>, tensor<256xf32>
}

// FIRST: output scaled: tensor<32x256xf32>
// FIRST: output out1: tensor<256xf32>

// DOT: digraph "run-npy.mlir" {
// DOT: in0 [shape=ellipse, label="x\ntensor<32x256xf32>"];
// DOT: subgraph cluster_k0 {
// DOT: out0 [shape=ellipse, label="scaled"];

// SECOND: output scaled: tensor<32x256xf32>
// SECOND: output out1: tensor<256xf32>
// SECOND: check: passed, 2 outputs match the reference

// The input read back, not the seed, makes the output.
// GELU: output out0: tensor<32x256xf32> [[[G:.*]]]
// GELU: check: passed
// GELU: output out0: tensor<32x256xf32> [[[G]]]
