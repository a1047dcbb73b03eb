// --matmul-precision=bf16: matmuls whose B is a weight (a graph input) round
// A and B to bf16 and sum the products in f32 (vdpbf16ps, HostBf16Matmul.h);
// the weight's pack kernel, once per binding, rounds B into pairs of k. The
// shapes: K odd (127, 33: the last pair is padded with a zero), M and N
// remainders (65 rows: blocks of 6; 97 columns: a strip of 4 vectors, then
// 3 vectors of which the last holds one column), a batch with its own
// weights (3 x 13 x 40 by 3 x 40 x 20), a batch sharing one weight read
// through transpose_b, a bias and relu epilogue; a matmul whose B is computed
// stays f32. --check compares with the f32 reference at the bf16 bound
// (Numerics.h). The cache keeps f32 and bf16 bundles apart. --no-amx keeps
// vdpbf16ps where the CPU has AMX tiles (host-matmul-amx.mlir tests those).

// REQUIRES: avx512bf16
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --no-amx --bench 3 --check --print-plan --json 2>%t/first.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=COMPILED < %t/first.err
// RUN: fuse-run %s --cache-dir %t/cache --check 2>&1 | FileCheck %s --check-prefix=F32
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --no-amx --check 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --no-amx --threads 1 --check | FileCheck %s --check-prefix=ONE
// RUN: fuse-compile %s --target=host-x86-64-v4 --matmul-precision=bf16 -o %t/bundle
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle/bundle.txt

func.func @bf16(%x: tensor<65x127xf32>, %w: tensor<127x97xf32>, %b: tensor<97xf32>,
                %xb: tensor<3x13x40xf32>, %wb: tensor<3x40x20xf32>,
                %xs: tensor<2x10x33xf32>, %ws: tensor<50x33xf32>,
                %v: tensor<40x20xf32>)
    -> (tensor<65x97xf32>, tensor<3x13x20xf32>, tensor<2x10x50xf32>, tensor<3x13x20xf32>) {
  %y = fuse.matmul %x, %w : tensor<65x127xf32>, tensor<127x97xf32> -> tensor<65x97xf32>
  %bb = fuse.broadcast %b, dims = [1] : tensor<97xf32> -> tensor<65x97xf32>
  %z = fuse.add %y, %bb : tensor<65x97xf32>
  %zero = fuse.constant dense<0.0> : tensor<65x97xf32>
  %r = fuse.max %z, %zero : tensor<65x97xf32>
  %yb = fuse.matmul %xb, %wb : tensor<3x13x40xf32>, tensor<3x40x20xf32> -> tensor<3x13x20xf32>
  %ys = fuse.matmul %xs, %ws transpose_b : tensor<2x10x33xf32>, tensor<50x33xf32> -> tensor<2x10x50xf32>
  %e = fuse.exp %v : tensor<40x20xf32>
  %yc = fuse.matmul %xb, %e : tensor<3x13x40xf32>, tensor<40x20xf32> -> tensor<3x13x20xf32>
  return %r, %yb, %ys, %yc : tensor<65x97xf32>, tensor<3x13x20xf32>, tensor<2x10x50xf32>, tensor<3x13x20xf32>
}

// CHECK: plan: {{.*}}, matmuls: 3 in bf16 (products of bf16, sums in f32), 1 in f32 (B not a weight)
// CHECK-DAG: {{.*}}_bf16pack: matmul, {{.*}}, once per binding of the inputs, rounds B to bf16 pairs
// CHECK-DAG: {{.*}}_bf16matmul: matmul, 5 ops, {{.*}}, bf16 products (vdpbf16ps), f32 sums
// CHECK: check: comparing a run with bf16 matmuls with the f32 reference: each matmul whose B is a weight adds 0.0312 of the output's scale to rtol and atol
// CHECK: check: passed, 4 outputs match the reference
// CHECK: "matmul_precision": "bf16", "bf16_kernels": 6

// COMPILED: compiling

// F32: compiling
// F32: check: passed, 4 outputs match the reference

// HIT: cache hit
// HIT: check: comparing a run with bf16 matmuls
// HIT: check: passed, 4 outputs match the reference

// ONE: check: passed, 4 outputs match the reference

// SUMMARY: {{.*}}_bf16matmul schedule matmul
