// A hand-written pointwise fusion (GELU, tanh form, with a bias broadcast
// over rows) for sm_90 and sm_80: a grid-stride loop of vector<4xf32> steps
// over bare global pointers, the bias read through its index map (never
// materialized), 128-bit loads through the read-only path and 128-bit
// stores, tanh from libdevice (no call left), and ptxas accepting the PTX
// for both architectures without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefixes=PTX,SM90
// RUN: fuse-compile %s --target=sm_80 --emit=ptx | FileCheck %s --check-prefixes=PTX,SM80
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_pointwise.ptx -o %t/sm_90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_pointwise.ptx -o %t/sm_80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: test -s %t/sm_90/fuse_k0_pointwise.cubin

func.func @gelu(%x: tensor<4x1000xf32>, %bias: tensor<1000xf32>) -> tensor<4x1000xf32> {
  %r = fuse.fusion pointwise (%x, %bias) : (tensor<4x1000xf32>, tensor<1000xf32>) -> tensor<4x1000xf32> {
  ^bb0(%a: tensor<4x1000xf32>, %b: tensor<1000xf32>):
    %bb = fuse.broadcast %b, dims = [1] : tensor<1000xf32> -> tensor<4x1000xf32>
    %y = fuse.add %a, %bb : tensor<4x1000xf32>
    %half = fuse.constant dense<0.5> : tensor<4x1000xf32>
    %one = fuse.constant dense<1.0> : tensor<4x1000xf32>
    %k = fuse.constant dense<0.7978846> : tensor<4x1000xf32>
    %c = fuse.constant dense<0.044715> : tensor<4x1000xf32>
    %y2 = fuse.mul %y, %y : tensor<4x1000xf32>
    %y3 = fuse.mul %y2, %y : tensor<4x1000xf32>
    %cy3 = fuse.mul %c, %y3 : tensor<4x1000xf32>
    %in = fuse.add %y, %cy3 : tensor<4x1000xf32>
    %kin = fuse.mul %k, %in : tensor<4x1000xf32>
    %t = fuse.tanh %kin : tensor<4x1000xf32>
    %t1 = fuse.add %one, %t : tensor<4x1000xf32>
    %hy = fuse.mul %half, %y : tensor<4x1000xf32>
    %g = fuse.mul %hy, %t1 : tensor<4x1000xf32>
    fuse.yield %g : tensor<4x1000xf32>
  }
  return %r : tensor<4x1000xf32>
}

// KERNELS: module attributes {gpu.container_module}
// KERNELS: gpu.module @fuse_k0_pointwise_module
// KERNELS: gpu.func @fuse_k0_pointwise(%{{.*}}: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %{{.*}}: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %{{.*}}: !llvm.ptr<1> {llvm.noalias}) kernel
// KERNELS-SAME: known_block_size = array<i32: 256, 1, 1>
// KERNELS: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// KERNELS: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// KERNELS: %[[COL:.*]] = arith.remui %[[I]]
// KERNELS: llvm.getelementptr %{{.*}}[%[[COL]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// KERNELS: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// KERNELS: math.tanh %{{.*}} : vector<4xf32>
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>

// PTX-LABEL: // kernel fuse_k0_pointwise
// SM90: .target sm_90
// SM80: .target sm_80
// PTX-NOT: .extern
// PTX: .visible .entry fuse_k0_pointwise(
// PTX: ld.global.nc.v4.b32
// PTX: ld.global.nc.v4.b32
// PTX: ex2.approx
// PTX: st.global.v4.b32
// PTX-NOT: .extern

// SUMMARY: target sm_90
// SUMMARY: kernel 0 fuse_k0_pointwise schedule pointwise grid 4 block 256 shared 0
// SUMMARY: bindings input#0(%0) input#1(%1) output#0(%{{[0-9]+}})
// SUMMARY: arena 0 bytes

// PTXAS: Compiling entry function 'fuse_k0_pointwise'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
