// Host code generation of the unsigned ui types: ui8 computes in signless i8
// vectors and every signedness-sensitive op takes its unsigned form (divui,
// remui, maxui, cmpi ult for `lt`, uitofp, extui, and fptoui behind the
// saturating selects of a float to ui8 cast, whose upper limit is 256, not
// 128); nothing signed is left.

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --implicit-check-not=arith.divsi --implicit-check-not=arith.remsi --implicit-check-not=arith.maxsi --implicit-check-not=arith.sitofp --implicit-check-not=arith.extsi --implicit-check-not=arith.fptosi --implicit-check-not=slt --implicit-check-not=ui8
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: test -s %t/kernels.so

// CHECK-LABEL: func.func @fuse_k0_pointwise
//       CHECK:   arith.divui {{.*}} : vector<8xi8>
//       CHECK:   arith.maxui {{.*}} : vector<8xi8>
//       CHECK:   arith.cmpi ult, {{.*}} : vector<8xi8>
//       CHECK:   arith.uitofp {{.*}} : vector<8xi8> to vector<8xf32>
//       CHECK:   arith.constant dense<2.560000e+02> : vector<8xf32>
//       CHECK:   arith.fptoui {{.*}} : vector<8xf32> to vector<8xi8>
//       CHECK:   arith.remui {{.*}} : vector<8xi8>
//       CHECK:   arith.extui {{.*}} : vector<8xi8> to vector<8xi64>

func.func @k(%x: tensor<1001xui8>, %y: tensor<1001xui8>, %f: tensor<1001xf32>) -> (tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi1>, tensor<1001xf32>, tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi64>) {
  %r:7 = fuse.fusion pointwise (%x, %y, %f) : (tensor<1001xui8>, tensor<1001xui8>, tensor<1001xf32>) -> (tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi1>, tensor<1001xf32>, tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi64>) {
  ^bb0(%a: tensor<1001xui8>, %b: tensor<1001xui8>, %c: tensor<1001xf32>):
    %0 = fuse.div %a, %b : tensor<1001xui8>
    %1 = fuse.max %a, %b : tensor<1001xui8>
    %2 = fuse.compare lt, %a, %b : tensor<1001xui8>
    %3 = fuse.cast %a : tensor<1001xui8> to tensor<1001xf32>
    %4 = fuse.cast %c : tensor<1001xf32> to tensor<1001xui8>
    %5 = fuse.rem %a, %b : tensor<1001xui8>
    %6 = fuse.cast %a : tensor<1001xui8> to tensor<1001xi64>
    fuse.yield %0, %1, %2, %3, %4, %5, %6 : tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi1>, tensor<1001xf32>, tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi64>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6 : tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi1>, tensor<1001xf32>, tensor<1001xui8>, tensor<1001xui8>, tensor<1001xi64>
}
