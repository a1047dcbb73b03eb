// A host matmul tile's k loop takes kUnrollK (4) steps of k per iteration,
// then the last K % 4 one at a time from the main loop's sums (emitKLoop);
// in blocks of k (conv-kblocks.mlir) the split is computed from the block's
// bounds at run time. fuse-run --check compares every output with the
// reference runtime's matmul on random inputs, with 1, 2 and 3 threads
// (other chunk boundaries), so a step of k lost or taken twice in either
// loop fails:
// - relu(x@W+b) at 517 x 1023 x 1024: B packed into panels on AVX-512 (M >=
//   512, N a power of two), K % 4 = 3, the last row block clamped;
// - 13 x 7 x 50 with a residual add: B in place, the last strip's last
//   vector 2 lanes valid (a masked load), K % 4 = 3;
// - 9 x 2 x 40: K below 4, the one-step loop alone;
// - relu of 20 x 5 x 33 with transpose_b: B packed by the pack kernel, one
//   unrolled iteration and one step.
// The row-block kernels launch one chunk per worker thread
// (kMatmulChunksPerWorker), so 1, 2 and 3 threads also split the row blocks
// at other boundaries than the pool's default 4 chunks per worker.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=IR
// RUN: fuse-compile %s --target=host-x86-64-v4 -o %t/bundle
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle/bundle.txt
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 2 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 3 --cache-dir %t/cache | FileCheck %s

// The 517 x 1023 x 1024 tile: 4 steps (24 FMAs each) per iteration to k
// 1020, then one step per iteration from 1020 to 1023.
// IR-LABEL: func.func @fuse_k{{[0-9]+}}_matmul
// IR: %[[MAIN:.*]] = arith.constant 1020 : i64
// IR: %[[FOUR:.*]] = arith.constant 4 : i64
// IR: scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %[[FOUR]] iter_args
// IR-COUNT-96: math.fma
// IR: scf.yield
// IR: scf.for %{{.*}} = %[[MAIN]] to %{{.*}} step %{{.*}} iter_args
// IR-COUNT-24: math.fma
// IR: scf.yield

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check out3: {{.*}}: ok
// CHECK: check: passed, 4 outputs match the reference

func.func @f(%x: tensor<517x1023xf32>, %w: tensor<1023x1024xf32>, %b: tensor<1024xf32>,
             %x1: tensor<13x7xf32>, %w1: tensor<7x50xf32>, %res: tensor<13x50xf32>,
             %x2: tensor<9x2xf32>, %w2: tensor<2x40xf32>,
             %x3: tensor<20x5xf32>, %w3: tensor<33x5xf32>)
    -> (tensor<517x1024xf32>, tensor<13x50xf32>, tensor<9x40xf32>, tensor<20x33xf32>) {
  %y = fuse.matmul %x, %w : tensor<517x1023xf32>, tensor<1023x1024xf32> -> tensor<517x1024xf32>
  %bb = fuse.broadcast %b, dims = [1] : tensor<1024xf32> -> tensor<517x1024xf32>
  %z = fuse.add %y, %bb : tensor<517x1024xf32>
  %zero = fuse.constant dense<0.0> : tensor<517x1024xf32>
  %r = fuse.max %z, %zero : tensor<517x1024xf32>
  %y1 = fuse.matmul %x1, %w1 : tensor<13x7xf32>, tensor<7x50xf32> -> tensor<13x50xf32>
  %r1 = fuse.add %y1, %res : tensor<13x50xf32>
  %r2 = fuse.matmul %x2, %w2 : tensor<9x2xf32>, tensor<2x40xf32> -> tensor<9x40xf32>
  %y3 = fuse.matmul %x3, %w3 transpose_b : tensor<20x5xf32>, tensor<33x5xf32> -> tensor<20x33xf32>
  %zero3 = fuse.constant dense<0.0> : tensor<20x33xf32>
  %r3 = fuse.max %y3, %zero3 : tensor<20x33xf32>
  return %r, %r1, %r2, %r3 : tensor<517x1024xf32>, tensor<13x50xf32>, tensor<9x40xf32>, tensor<20x33xf32>
}

// SUMMARY: kernel 1 fuse_k0_matmul schedule matmul iterations 87 grain 1 chunks per worker 1
// SUMMARY: kernel 3 fuse_k2_matmul schedule matmul {{.*}} chunks per worker 1
// SUMMARY: kernel 5 fuse_k4_matmul schedule matmul {{.*}} chunks per worker 1
// SUMMARY: kernel 7 fuse_k6_matmul schedule matmul {{.*}} chunks per worker 1
