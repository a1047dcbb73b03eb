// An f64 matmul has no tiled kernel (its tiles are f32): every thread pulls
// 4 adjacent outputs through the epilogue to 4 dot products over K, the lhs
// element one load shared by the lanes, the rhs row one vector per k.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: rm -rf %t && fuse-compile %s --target=sm_80 -o %t
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle.txt
// RUN: %ptxas -arch=sm_80 -v %t/fuse_k0_matmul.ptx -o %t/m80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @f64_matmul(%x: tensor<16x24xf64>, %w: tensor<24x40xf64>) -> tensor<16x40xf64> {
  %r = fuse.fusion matmul (%x, %w) : (tensor<16x24xf64>, tensor<24x40xf64>) -> tensor<16x40xf64> {
  ^bb0(%a: tensor<16x24xf64>, %b: tensor<24x40xf64>):
    %m = fuse.matmul %a, %b : tensor<16x24xf64>, tensor<24x40xf64> -> tensor<16x40xf64>
    %e = fuse.exp %m : tensor<16x40xf64>
    fuse.yield %e : tensor<16x40xf64>
  }
  return %r : tensor<16x40xf64>
}

// KERNELS-LABEL: gpu.func @fuse_k0_matmul
// KERNELS-NOT: workgroup
// KERNELS: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<4xf64>)
// KERNELS: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> f64
// KERNELS: vector.broadcast %{{.*}} : f64 to vector<4xf64>
// KERNELS: llvm.load %{{.*}} {alignment = 32 : i64} : !llvm.ptr<1> -> vector<4xf64>
// KERNELS: math.fma %{{.*}}, %{{.*}}, %[[ACC]] : vector<4xf64>
// KERNELS: math.exp %{{.*}} : vector<4xf64>

// SUMMARY: kernel 0 fuse_k0_matmul schedule matmul grid 1 block 256 shared 0

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
