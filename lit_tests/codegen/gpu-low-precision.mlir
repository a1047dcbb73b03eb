// GPU code generation of the f8 and f4 floats and the narrow integers: one
// byte per element in memory, decoded to f32 or i8 by the host's codec
// (LowPrecisionCodec.h), which is integer bit manipulation only. An f32 to
// f8E4M3FN cast takes the f32 bits' magnitude (and 0x7FFFFFFF), rounds the
// subnormals by adding 2^14 (0f46800000) and finds NaN above the infinity's
// bits (2139095040), four bytes stored as one word; an f8E5M2 byte decodes
// with its magnitude shifted into the f32 exponent (shl 21) and rebiased
// ((127 - 15) << 23 = 939524096); i4 addition wraps to 4 bits by a shift up
// and an arithmetic shift back (12 in the 16-bit registers PTX gives it). No
// call is left and ptxas accepts the kernel for sm_80 and sm_90. No GPU runs
// here: the numerics are the host's, checked against the reference
// interpreter by HostLowPrecisionCodegenTest.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --implicit-check-not=call --implicit-check-not=.extern
// RUN: rm -rf %t && fuse-compile %s --target=sm_80 -o %t/sm_80 && fuse-compile %s --target=sm_90 -o %t/sm_90
// RUN: %ptxas -arch=sm_80 %t/sm_80/fuse_k0_pointwise.ptx -o %t/k80.cubin
// RUN: %ptxas -arch=sm_90 %t/sm_90/fuse_k0_pointwise.ptx -o %t/k90.cubin

// CHECK-LABEL: .visible .entry fuse_k0_pointwise(
//       CHECK:   ld.global.nc.v4.b32
//       CHECK:   and.b32 {{.*}}, 2147483647;
//       CHECK:   add.rn.f32 {{.*}}, 0f46800000;
//       CHECK:   setp.gt.u32 {{.*}}, 2139095040;
//       CHECK:   st.global.b32
//       CHECK:   shl.b32 {{.*}}, 21;
//       CHECK:   add.s32 {{.*}}, 939524096;
//       CHECK:   st.global.v4.b32
//       CHECK:   add.s16
//       CHECK:   shl.b16 {{.*}}, 12;
//  CHECK-NEXT:   shr.s16 {{.*}}, 12;
//       CHECK:   st.global.b32

func.func @low_precision(%x: tensor<1024xf32>, %q: tensor<1024xf8E5M2>, %i: tensor<1024xi4>, %j: tensor<1024xi4>) -> (tensor<1024xf8E4M3FN>, tensor<1024xf32>, tensor<1024xi4>) {
  %r:3 = fuse.fusion pointwise (%x, %q, %i, %j) : (tensor<1024xf32>, tensor<1024xf8E5M2>, tensor<1024xi4>, tensor<1024xi4>) -> (tensor<1024xf8E4M3FN>, tensor<1024xf32>, tensor<1024xi4>) {
  ^bb0(%a: tensor<1024xf32>, %b: tensor<1024xf8E5M2>, %c: tensor<1024xi4>, %d: tensor<1024xi4>):
    %0 = fuse.cast %a {saturate} : tensor<1024xf32> to tensor<1024xf8E4M3FN>
    %1 = fuse.cast %b : tensor<1024xf8E5M2> to tensor<1024xf32>
    %2 = fuse.add %c, %d : tensor<1024xi4>
    fuse.yield %0, %1, %2 : tensor<1024xf8E4M3FN>, tensor<1024xf32>, tensor<1024xi4>
  }
  return %r#0, %r#1, %r#2 : tensor<1024xf8E4M3FN>, tensor<1024xf32>, tensor<1024xi4>
}
