// GPU code generation of the unsigned ui types and i16: every
// signedness-sensitive op on ui32 lowers to the unsigned PTX instruction
// (div.u32, min.u32, setp.lt.u32 for `lt`, cvt.rn.f32.u32, a float to ui32
// cast that saturates at 2^32 = 0f4F800000 and truncates with
// cvt.rzi.u32.f32), i16 to the signed 16-bit ones, a ui64 max against a
// constant above INT64_MAX compares unsigned (its bits print as -616), no
// signed 32- or 64-bit division, minimum or comparison is left anywhere,
// and ptxas accepts all three kernels.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --implicit-check-not=div.s32 --implicit-check-not=rem.s32 --implicit-check-not=min.s32 --implicit-check-not=setp.lt.s32 --implicit-check-not=max.s64 --implicit-check-not=cvt.rn.f32.s32 --implicit-check-not=cvt.rzi.s32.f32
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t
// RUN: %ptxas -arch=sm_90 %t/fuse_k0_pointwise.ptx -o %t/k0.cubin
// RUN: %ptxas -arch=sm_90 %t/fuse_k1_pointwise.ptx -o %t/k1.cubin
// RUN: %ptxas -arch=sm_90 %t/fuse_k2_pointwise.ptx -o %t/k2.cubin

// CHECK-LABEL: .visible .entry fuse_k0_pointwise(
//       CHECK:   div.u32
//       CHECK:   min.u32
//       CHECK:   setp.lt.u32
//       CHECK:   cvt.rn.f32.u32
//       CHECK:   0f4F800000
//       CHECK:   cvt.rzi.u32.f32
// CHECK-LABEL: .visible .entry fuse_k1_pointwise(
//       CHECK:   div.s16
//       CHECK:   max.s16
//       CHECK:   setp.lt.s16
// CHECK-LABEL: .visible .entry fuse_k2_pointwise(
//       CHECK:   max.u64 {{.*}}, -616;

func.func @unsigned(%x: tensor<1024xui32>, %y: tensor<1024xui32>, %f: tensor<1024xf32>, %s: tensor<1024xi16>, %t: tensor<1024xi16>, %w: tensor<1024xui64>) -> (tensor<1024xui32>, tensor<1024xui32>, tensor<1024xui32>, tensor<1024xi1>, tensor<1024xf32>, tensor<1024xui32>, tensor<1024xi16>, tensor<1024xi16>, tensor<1024xi1>, tensor<1024xui64>) {
  %r:6 = fuse.fusion pointwise (%x, %y, %f) : (tensor<1024xui32>, tensor<1024xui32>, tensor<1024xf32>) -> (tensor<1024xui32>, tensor<1024xui32>, tensor<1024xui32>, tensor<1024xi1>, tensor<1024xf32>, tensor<1024xui32>) {
  ^bb0(%a: tensor<1024xui32>, %b: tensor<1024xui32>, %c: tensor<1024xf32>):
    %0 = fuse.div %a, %b : tensor<1024xui32>
    %1 = fuse.min %a, %b : tensor<1024xui32>
    %2 = fuse.rem %a, %b : tensor<1024xui32>
    %3 = fuse.compare lt, %a, %b : tensor<1024xui32>
    %4 = fuse.cast %a : tensor<1024xui32> to tensor<1024xf32>
    %5 = fuse.cast %c : tensor<1024xf32> to tensor<1024xui32>
    fuse.yield %0, %1, %2, %3, %4, %5 : tensor<1024xui32>, tensor<1024xui32>, tensor<1024xui32>, tensor<1024xi1>, tensor<1024xf32>, tensor<1024xui32>
  }
  %q:3 = fuse.fusion pointwise (%s, %t) : (tensor<1024xi16>, tensor<1024xi16>) -> (tensor<1024xi16>, tensor<1024xi16>, tensor<1024xi1>) {
  ^bb0(%a: tensor<1024xi16>, %b: tensor<1024xi16>):
    %0 = fuse.div %a, %b : tensor<1024xi16>
    %1 = fuse.max %a, %b : tensor<1024xi16>
    %2 = fuse.compare lt, %a, %b : tensor<1024xi16>
    fuse.yield %0, %1, %2 : tensor<1024xi16>, tensor<1024xi16>, tensor<1024xi1>
  }
  %p = fuse.fusion pointwise (%w) : (tensor<1024xui64>) -> tensor<1024xui64> {
  ^bb0(%a: tensor<1024xui64>):
    %big = fuse.constant dense<18446744073709551000> : tensor<1024xui64>
    %0 = fuse.max %a, %big : tensor<1024xui64>
    fuse.yield %0 : tensor<1024xui64>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %q#0, %q#1, %q#2, %p : tensor<1024xui32>, tensor<1024xui32>, tensor<1024xui32>, tensor<1024xi1>, tensor<1024xf32>, tensor<1024xui32>, tensor<1024xi16>, tensor<1024xi16>, tensor<1024xi1>, tensor<1024xui64>
}
