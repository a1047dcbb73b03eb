// Window reductions read by runs on the host (RegionEmitterBase::emitPoolRuns):
// a pool whose output rows are at least a vector, of a kernel input of 32-bit
// (or wider) elements, strided by 1 or 2 along its last window dim, runs by
// output rows, and each window offset is one masked vector load (stride 2:
// one of twice the lanes, whose even elements are the lanes) with the
// padding's lanes the reduction's identity, instead of a gather per offset.
// fuse-run --check compares every output with the reference runtime on random
// inputs (the policy's tolerances: max exact, mean a few ulps):
// - resnet18's stem pool, 3x3 stride 2 pad 1, onto rows of 20 (AVX-512: an
//   unrolled row of a vector and one overlapping it; AVX2: 2 vectors and one
//   overlapping) with a fused bias add and relu;
// - a 3x3 stride-1 "same" max pool onto rows of 33;
// - a 2x2 stride-2 mean with ceil_mode and pads, not counting the padding, and
//   a 3x3 stride-2 mean counting it (count_include_pad);
// - an i32 1-D max pool dilated by 2, strided by 2, onto rows of 325 (longer
//   than the unrolled rows: a loop of vectors at run-time columns) and a ui32
//   one onto rows of 64;
// - an f64 1-D mean over 5 with pads, counting them;
// - a 3-D max pool (two window dims before the last, each offset's rows
//   inside the input or not).
// The gathered form stays where a pool does not qualify (a max pool strided
// by 4 along its rows).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --check --threads 1 --seed 7 --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=V3
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=V4

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check out2: {{.*}}: ok
// CHECK: check out3: {{.*}}: ok
// CHECK: check out4: {{.*}}: ok
// CHECK: check out5: {{.*}}: ok
// CHECK: check out6: {{.*}}: ok
// CHECK: check out7: {{.*}}: ok
// CHECK: check out8: {{.*}}: ok
// CHECK: check: passed

// The stem pool: loads of 32 lanes and their even elements, no lane by
// lane reads (vector.extract); the others too, but for the last pool, whose
// stride 4 keeps the gathers.
// V4-LABEL: func.func @fuse_k0_window
// V4-NOT: vector.extract
// V4: llvm.intr.masked.load {{.*}} -> vector<32xf32>
// V4-NOT: vector.extract
// V4: llvm.shufflevector {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// V4-NOT: vector.extract
// V4-LABEL: func.func @fuse_k1_window
// V4-NOT: vector.extract
// V4: llvm.intr.masked.load {{.*}} -> vector<16xf32>
// V4-NOT: vector.extract
// V4-LABEL: func.func @fuse_k4_window
// V4-NOT: vector.extract
// V4: llvm.intr.masked.load {{.*}} -> vector<32xi32>
// V4-NOT: vector.extract
// V4-LABEL: func.func @fuse_k7_window
// V4-NOT: vector.extract
// V4: llvm.intr.masked.load {{.*}} -> vector<32xf32>
// V4-NOT: vector.extract
// V4-LABEL: func.func @fuse_k8_window
// V4: vector.extract
// V3-LABEL: func.func @fuse_k0_window
// V3-NOT: vector.extract
// V3: llvm.intr.masked.load {{.*}} -> vector<16xf32>
// V3-NOT: vector.extract
// V3-LABEL: func.func @fuse_k8_window
// V3: vector.extract

func.func @main(%x: tensor<2x4x40x40xf32>, %bias: tensor<2x4x20x20xf32>,
                %s: tensor<1x3x33x33xf32>, %a: tensor<1x2x38x38xf32>,
                %i: tensor<2x3x650xi32>, %u: tensor<1x2x128xui32>,
                %d: tensor<1x2x40xf64>, %v: tensor<1x2x6x7x36xf32>)
    -> (tensor<2x4x20x20xf32>, tensor<1x3x33x33xf32>, tensor<1x2x20x20xf32>,
        tensor<1x2x19x19xf32>, tensor<2x3x325xi32>, tensor<1x2x64xui32>,
        tensor<1x2x40xf64>, tensor<1x2x3x7x18xf32>, tensor<1x3x17x9xf32>) {
  %m = fuse.pool max %x window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<2x4x40x40xf32> -> tensor<2x4x20x20xf32>
  %sum = fuse.add %m, %bias : tensor<2x4x20x20xf32>
  %zero = fuse.constant dense<0.0> : tensor<2x4x20x20xf32>
  %r = fuse.max %sum, %zero : tensor<2x4x20x20xf32>
  %same = fuse.pool max %s window = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x3x33x33xf32> -> tensor<1x3x33x33xf32>
  %avg = fuse.pool mean %a window = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] ceil_mode : tensor<1x2x38x38xf32> -> tensor<1x2x20x20xf32>
  %avgpad = fuse.pool mean %a window = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] count_include_pad : tensor<1x2x38x38xf32> -> tensor<1x2x19x19xf32>
  %int = fuse.pool max %i window = [4] strides = [2] dilations = [2] pads = [3, 2] : tensor<2x3x650xi32> -> tensor<2x3x325xi32>
  %uns = fuse.pool max %u window = [3] strides = [2] dilations = [1] pads = [1, 0] : tensor<1x2x128xui32> -> tensor<1x2x64xui32>
  %dbl = fuse.pool mean %d window = [5] strides = [1] dilations = [1] pads = [2, 2] count_include_pad : tensor<1x2x40xf64> -> tensor<1x2x40xf64>
  %vol = fuse.pool max %v window = [2, 3, 3] strides = [2, 1, 2] dilations = [1, 1, 1] pads = [0, 1, 1, 0, 1, 0] : tensor<1x2x6x7x36xf32> -> tensor<1x2x3x7x18xf32>
  %small = fuse.pool max %s window = [3, 3] strides = [2, 4] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x3x33x33xf32> -> tensor<1x3x17x9xf32>
  return %r, %same, %avg, %avgpad, %int, %uns, %dbl, %vol, %small : tensor<2x4x20x20xf32>, tensor<1x3x33x33xf32>, tensor<1x2x20x20xf32>, tensor<1x2x19x19xf32>, tensor<2x3x325xi32>, tensor<1x2x64xui32>, tensor<1x2x40xf64>, tensor<1x2x3x7x18xf32>, tensor<1x3x17x9xf32>
}
