// fuse-compile --matmul-precision=bf16 --amx (any CPU: compiling only): the
// weight matmul's kernel is tiles of AMX (HostBf16Matmul.h). Its k loop
// loads two A tiles (rows of A in bf16, 2 * 96 bytes apart: K = 90 padded
// to 96) and two B tiles (pairs of k of a strip of 128 columns, 512 bytes
// apart, or of the last 64 columns, 256 bytes apart), and sums the 2 x 2 C
// tiles with tdpbf16ps; the kernel is tagged
// `+amxbf16` for the runtime (HostRuntimeTest) and compiled with AMX's
// target features.
// --amx without bf16, and bf16 on a target without AVX-512, are refused.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 --matmul-precision=bf16 --amx --emit=llvm | FileCheck %s
// RUN: not fuse-compile %s --target=host-x86-64-v4 --amx -o %t/f32 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not fuse-compile %s --target=host-x86-64-v3 --matmul-precision=bf16 --amx -o %t/v3 2>&1 | FileCheck %s --check-prefix=V3

func.func @linear(%x: tensor<40x90xf32>, %w: tensor<90x192xf32>) -> tensor<40x192xf32> {
  %y = fuse.matmul %x, %w : tensor<40x90xf32>, tensor<90x192xf32> -> tensor<40x192xf32>
  return %y : tensor<40x192xf32>
}

// CHECK-LABEL: define {{.*}}_bf16matmul(
// CHECK-SAME: #[[ATTRS:[0-9]+]]
// CHECK-DAG: call x86_amx @llvm.x86.tilezero.internal(i16 16, i16 64)
// CHECK-DAG: call x86_amx @llvm.x86.tileloadd64.internal(i16 16, i16 64, ptr {{.*}}, i64 192)
// CHECK-DAG: call x86_amx @llvm.x86.tileloadd64.internal(i16 16, i16 64, ptr {{.*}}, i64 512)
// CHECK-DAG: call x86_amx @llvm.x86.tileloadd64.internal(i16 16, i16 64, ptr {{.*}}, i64 256)
// CHECK-DAG: call x86_amx @llvm.x86.tdpbf16ps.internal(i16 16, i16 64, i16 64, x86_amx
// CHECK-DAG: call void @llvm.x86.tilestored64.internal(i16 16, i16 64, ptr {{.*}}, i64 128, x86_amx
// CHECK: attributes #[[ATTRS]] = {{.*}}"target-features"="+avx512bf16,+amx-tile,+amx-bf16"

// F32: AMX tiles (--amx) compute bf16 matmuls only: they need --matmul-precision=bf16
// V3: --matmul-precision=bf16 needs AVX-512 BF16 (vdpbf16ps), which target 'host-x86-64-v3' does not have
