// Math without an MLIR approximation, lowered for the host: fmod through
// frem, which becomes libm's fmodf (the only undefined symbol, bound at
// dlopen); f64 exp and log as our own vector polynomials (no libm call);
// atan as Cephes' polynomial and tan as sin / cos; integer division with
// its divisor made safe (x86's idiv traps on 0 and INT_MIN / -1); integer
// max reductions.

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=llvm | FileCheck %s --check-prefix=LLVMIR
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: llvm-nm -u %t/kernels.so | FileCheck %s --check-prefix=UNDEFINED
// RUN: llvm-nm -u %t/kernels.so | count 1

func.func @math(%a: tensor<1000xf32>, %b: tensor<1000xf32>, %x: tensor<1000xf64>, %i: tensor<1000xi32>, %j: tensor<1000xi32>, %m: tensor<4x1000xi32>) -> (tensor<1000xf32>, tensor<1000xf64>, tensor<1000xf32>, tensor<1000xi32>, tensor<4xi32>) {
  %fmod = fuse.fusion pointwise (%a, %b) : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32> {
  ^bb0(%p: tensor<1000xf32>, %q: tensor<1000xf32>):
    %r = fuse.rem %p, %q {fmod} : tensor<1000xf32>
    fuse.yield %r : tensor<1000xf32>
  }
  %explog = fuse.fusion pointwise (%x) : (tensor<1000xf64>) -> tensor<1000xf64> {
  ^bb0(%p: tensor<1000xf64>):
    %e = fuse.exp %p : tensor<1000xf64>
    %l = fuse.log %e : tensor<1000xf64>
    fuse.yield %l : tensor<1000xf64>
  }
  %trig = fuse.fusion pointwise (%a) : (tensor<1000xf32>) -> tensor<1000xf32> {
  ^bb0(%p: tensor<1000xf32>):
    %t = fuse.tan %p : tensor<1000xf32>
    %u = fuse.atan %t : tensor<1000xf32>
    fuse.yield %u : tensor<1000xf32>
  }
  %div = fuse.fusion pointwise (%i, %j) : (tensor<1000xi32>, tensor<1000xi32>) -> tensor<1000xi32> {
  ^bb0(%p: tensor<1000xi32>, %q: tensor<1000xi32>):
    %d = fuse.div %p, %q : tensor<1000xi32>
    fuse.yield %d : tensor<1000xi32>
  }
  %max = fuse.fusion row_reduction (%m) : (tensor<4x1000xi32>) -> tensor<4xi32> {
  ^bb0(%p: tensor<4x1000xi32>):
    %r = fuse.reduce max %p dims = [1] : tensor<4x1000xi32> -> tensor<4xi32>
    fuse.yield %r : tensor<4xi32>
  }
  return %fmod, %explog, %trig, %div, %max : tensor<1000xf32>, tensor<1000xf64>, tensor<1000xf32>, tensor<1000xi32>, tensor<4xi32>
}

// KERNELS-LABEL: func.func @fuse_k0_pointwise
// KERNELS: arith.remf %{{.*}}, %{{.*}} : vector<8xf32>
// KERNELS: arith.remf %{{.*}}, %{{.*}} : f32

// f64 exp: x clamped to [-746, 710], rounded through 1.5 * 2^52, scaled by
// two powers of two built from their bits; log splits x by its bits.
// KERNELS-LABEL: func.func @fuse_k1_pointwise
// KERNELS-NOT: math.
// KERNELS: arith.constant dense<7.100000e+02> : vector<8xf64>
// KERNELS: arith.constant dense<0x4338000000000000> : vector<8xf64>
// KERNELS: arith.fptosi %{{.*}} : vector<8xf64> to vector<8xi64>
// KERNELS: arith.bitcast %{{.*}} : vector<8xi64> to vector<8xf64>
// KERNELS: arith.bitcast %{{.*}} : vector<8xf64> to vector<8xi64>
// KERNELS-LABEL: func.func @fuse_k2_pointwise

// tan stays math.tan until the approximations expand it; atan is ours.
// KERNELS: math.tan %{{.*}} : vector<8xf32>
// KERNELS-NOT: math.atan
// KERNELS: math.copysign

// Integer division: the divisor replaced by 1 where it is 0 or -1.
// KERNELS-LABEL: func.func @fuse_k3_pointwise
// KERNELS: %[[ZERO:.*]] = arith.cmpi eq, %[[D:.*]], %{{.*}} : vector<8xi32>
// KERNELS: %[[MINUS1:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : vector<8xi32>
// KERNELS: %[[BAD:.*]] = arith.ori %[[ZERO]], %[[MINUS1]]
// KERNELS: %[[SAFE:.*]] = arith.select %[[BAD]], %{{.*}}, %[[D]]
// KERNELS: arith.divsi %{{.*}}, %[[SAFE]] : vector<8xi32>

// KERNELS-LABEL: func.func @fuse_k4_rows
// KERNELS: arith.constant dense<-2147483648> : vector<8xi32>
// KERNELS: arith.maxsi %{{.*}} : vector<8xi32>
// KERNELS: vector.reduction <maxsi>, %{{.*}} : vector<8xi32> into i32

// LLVMIR-LABEL: define void @fuse_k0_pointwise
// LLVMIR: frem <8 x float>
// LLVMIR-LABEL: define void @fuse_k1_pointwise
// LLVMIR-NOT: call
// LLVMIR: fptosi <{{[48]}} x double> %{{.*}} to <{{[48]}} x i64>
// LLVMIR-LABEL: define void @fuse_k2_pointwise
// LLVMIR-NOT: @tan
// LLVMIR-NOT: @atan
// LLVMIR-LABEL: define void @fuse_k3_pointwise

// UNDEFINED: U fmodf
