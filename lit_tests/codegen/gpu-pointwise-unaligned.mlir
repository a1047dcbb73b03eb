// Rows of 1001 elements: the flattened input and output stay 128-bit
// accesses, but the bias broadcast over rows is not 16-byte aligned at every
// step, so it is read element by element (never a misaligned vector load);
// 3003 elements leave a scalar tail of 3.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_80 -o %t
// RUN: %ptxas -arch=sm_80 -v %t/fuse_k0_pointwise.ptx -o %t/k.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @bias_add(%x: tensor<3x1001xf32>, %bias: tensor<1001xf32>) -> tensor<3x1001xf32> {
  %r = fuse.fusion pointwise (%x, %bias) : (tensor<3x1001xf32>, tensor<1001xf32>) -> tensor<3x1001xf32> {
  ^bb0(%a: tensor<3x1001xf32>, %b: tensor<1001xf32>):
    %bb = fuse.broadcast %b, dims = [1] : tensor<1001xf32> -> tensor<3x1001xf32>
    %y = fuse.add %a, %bb : tensor<3x1001xf32>
    fuse.yield %y : tensor<3x1001xf32>
  }
  return %r : tensor<3x1001xf32>
}

// KERNELS: gpu.func @fuse_k0_pointwise
// KERNELS: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// KERNELS: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// The scalar tail.
// KERNELS: scf.for
// KERNELS: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// KERNELS: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>

// PTX: .entry fuse_k0_pointwise(
// PTX: ld.global.nc.v4.b32
// PTX: ld.global.nc.b32
// PTX: st.global.v4.b32
// PTX: st.global.b32

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
