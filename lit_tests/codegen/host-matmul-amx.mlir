// --matmul-precision=bf16 on a CPU with AMX: the bf16 matmuls run on AMX
// tiles (tdpbf16ps, HostBf16Matmul.h): A's rows and B's pairs of k in tiles
// of 16 rows x 64 bytes, K padded to 32 with zeros, row blocks of two A
// tiles (M <= 16: one block of M rows), strips of 128 columns, 2 x 2 grids
// of C tiles stored for the f32 epilogue. The shapes: M = 1 and 13 (one tile of M rows), 20 and
// 65 (blocks of 32, the last rows clamped), K = 27, 127 and 33 (padded),
// 512 (16 steps of k), N = 97 (7 vectors: three pairs and a single, the
// last with one column) and 300 (two strips of 128, then 3 vectors), a batch with its
// own weights, a batch sharing one weight read through transpose_b, a bias
// and relu epilogue; a matmul whose B is computed stays f32. --check
// compares with the f32 reference at the bf16 bound (Numerics.h), at 1, 2
// and 3 threads; --no-amx is another bundle (vdpbf16ps), not a cache hit.

// REQUIRES: amxbf16
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --check --print-plan --json | FileCheck %s
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --threads 1 --check | FileCheck %s --check-prefix=PASS
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --threads 3 --check | FileCheck %s --check-prefix=PASS
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --no-amx --check --json 2>&1 | FileCheck %s --check-prefix=NOAMX

func.func @amx(%x1: tensor<1x127xf32>, %x13: tensor<13x27xf32>, %w27: tensor<27x97xf32>,
               %x20: tensor<20x512xf32>, %w512: tensor<512x300xf32>,
               %x: tensor<65x127xf32>, %w: tensor<127x97xf32>, %b: tensor<97xf32>,
               %xb: tensor<3x13x40xf32>, %wb: tensor<3x40x20xf32>,
               %xs: tensor<2x10x33xf32>, %ws: tensor<50x33xf32>,
               %v: tensor<40x20xf32>)
    -> (tensor<1x97xf32>, tensor<13x97xf32>, tensor<20x300xf32>, tensor<65x97xf32>,
        tensor<3x13x20xf32>, tensor<2x10x50xf32>, tensor<3x13x20xf32>) {
  %y1 = fuse.matmul %x1, %w : tensor<1x127xf32>, tensor<127x97xf32> -> tensor<1x97xf32>
  %y13 = fuse.matmul %x13, %w27 : tensor<13x27xf32>, tensor<27x97xf32> -> tensor<13x97xf32>
  %y20 = fuse.matmul %x20, %w512 : tensor<20x512xf32>, tensor<512x300xf32> -> tensor<20x300xf32>
  %y = fuse.matmul %x, %w : tensor<65x127xf32>, tensor<127x97xf32> -> tensor<65x97xf32>
  %bb = fuse.broadcast %b, dims = [1] : tensor<97xf32> -> tensor<65x97xf32>
  %z = fuse.add %y, %bb : tensor<65x97xf32>
  %zero = fuse.constant dense<0.0> : tensor<65x97xf32>
  %r = fuse.max %z, %zero : tensor<65x97xf32>
  %yb = fuse.matmul %xb, %wb : tensor<3x13x40xf32>, tensor<3x40x20xf32> -> tensor<3x13x20xf32>
  %ys = fuse.matmul %xs, %ws transpose_b : tensor<2x10x33xf32>, tensor<50x33xf32> -> tensor<2x10x50xf32>
  %e = fuse.exp %v : tensor<40x20xf32>
  %yc = fuse.matmul %xb, %e : tensor<3x13x40xf32>, tensor<40x20xf32> -> tensor<3x13x20xf32>
  return %y1, %y13, %y20, %r, %yb, %ys, %yc
      : tensor<1x97xf32>, tensor<13x97xf32>, tensor<20x300xf32>, tensor<65x97xf32>,
        tensor<3x13x20xf32>, tensor<2x10x50xf32>, tensor<3x13x20xf32>
}

// CHECK: plan: {{.*}}, matmuls: 6 in bf16 (products of bf16, sums in f32; 6 kernels on AMX tiles), 1 in f32 (B not a weight)
// CHECK-DAG: {{.*}}_bf16pack: matmul, {{.*}}, once per binding of the inputs, rounds B to bf16 pairs
// CHECK-DAG: {{.*}}_bf16matmul: matmul, 5 ops, {{.*}}, bf16 products on AMX tiles (tdpbf16ps), f32 sums
// CHECK: check: comparing a run with bf16 matmuls with the f32 reference
// CHECK: check: passed, 7 outputs match the reference
// CHECK: "matmul_precision": "bf16", "bf16_kernels": 12, "amx_kernels": 6

// PASS: check: passed, 7 outputs match the reference

// NOAMX: compiling
// NOAMX: check: passed, 7 outputs match the reference
// NOAMX: "bf16_kernels": 12, "amx_kernels": 0
