// --matmul-precision=bf16 with a horizontal launch (fuse-horizontal-fusion)
// of two matmuls that read one x: y's B is a weight (bf16), z's is computed
// (exp(v), f32). The launch's kernels take the bf16 target, since one part
// needs AVX-512 BF16, but --print-plan counts each matmul once, by its own
// precision: 1 in bf16 and 1 in f32 (before, each matmul of each of the two
// launches counted as bf16: "4 in bf16, 0 in f32"). --check compares with
// the f32 reference at the bf16 bound for y and the f32 bound for z.

// Where the CPU has AMX the bf16 part runs on AMX tiles; --no-amx runs it
// with vdpbf16ps. Both are checked.

// REQUIRES: avx512bf16
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --check --print-plan --json | FileCheck %s
// RUN: fuse-run %s --cache-dir %t/cache --matmul-precision=bf16 --no-amx --check --print-plan --json | FileCheck %s

func.func @shared_x(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %v: tensor<64x32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e = fuse.exp %v : tensor<64x32xf32>
  %y = fuse.matmul %x, %w : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  %z = fuse.matmul %x, %e : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  return %y, %z : tensor<8x32xf32>, tensor<8x32xf32>
}

// CHECK: plan: 3 kernels for 3 ops, {{.*}}, matmuls: 1 in bf16 (products of bf16, sums in f32{{.*}}), 1 in f32 (B not a weight)
// CHECK: kernel 1 {{.*}}_horizontal_0: horizontal, 2 ops
// CHECK: kernel 2 {{.*}}_horizontal_1: horizontal, 2 ops
// CHECK: check: passed, 2 outputs match the reference
// CHECK: "matmul_precision": "bf16", "bf16_kernels": 2
