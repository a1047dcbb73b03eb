// --matmul-precision=bf16 needs AVX-512 BF16: a target without it is refused,
// naming the target; an unknown precision is refused too.

// RUN: not fuse-compile %s --target=host-x86-64-v3 --matmul-precision=bf16 -o %t 2>&1 | FileCheck %s
// RUN: not fuse-compile %s --target=host-x86-64-v4 --matmul-precision=f16 -o %t 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not fuse-run %s --matmul-precision=bf8 2>&1 | FileCheck %s --check-prefix=UNKNOWNTOOL
// RUN: not fuse-run %s --runtime reference --matmul-precision=bf16 2>&1 | FileCheck %s --check-prefix=REFERENCE

func.func @linear(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %y = fuse.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// CHECK: --matmul-precision=bf16 needs AVX-512 BF16 (vdpbf16ps), which target 'host-x86-64-v3' does not have; compile for host-x86-64-v4 on a CPU with avx512_bf16, or use --matmul-precision=f32
// UNKNOWN: unknown --matmul-precision=f16; expected f32 or bf16
// UNKNOWNTOOL: fuse-run: error: unknown --matmul-precision=bf8; expected f32 or bf16
// REFERENCE: fuse-run: error: --matmul-precision=bf16 applies to --runtime host only
