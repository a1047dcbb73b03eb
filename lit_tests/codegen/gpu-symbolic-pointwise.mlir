// Issue 22 on the GPU: a pointwise fusion (a bias add and a tanh) on
// symbolic outer dims (batch, sequence) compiles once. Its kernel takes the
// dims by value after its bindings (two .u64 parameters without .ptr,
// KernelAbi.h "Runtime dims") and computes its extent, batch*sequence*64
// elements, from them; the rows of 64 stay 128-bit loads and stores with no
// scalar tail (the extent is a multiple of 4 at every value of the dims).
// The bundle records the iterations as a formula and the grid as 1024
// elements a block, at most 4096 blocks, bound with the dims. ptxas accepts
// the PTX for sm_90 and sm_80 without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/sm_90/fuse_k0_pointwise.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t/sm_80/fuse_k0_pointwise.ptx
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_pointwise.ptx -o %t/a90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_pointwise.ptx -o %t/a80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @bias_tanh(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
                     %b: tensor<64xf32> {fuse.name = "b"})
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  %bb = fuse.broadcast %b, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.add %x, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %s : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}

// KERNELS-LABEL: gpu.func @fuse_k0_pointwise
// KERNELS-SAME: %[[BATCH:arg3]]: i64, %[[SEQUENCE:arg4]]: i64)
// KERNELS-SAME: fuse.dims_parameter = 3
// KERNELS: %[[ROWS:.*]] = arith.muli %[[BATCH]], %[[SEQUENCE]] : i64
// KERNELS: %[[ELEMENTS:.*]] = arith.muli %[[ROWS]], %c64_i64 : i64
// KERNELS: %[[END:.*]] = arith.addi %c0_i64, %[[ELEMENTS]] : i64
// KERNELS: scf.for %{{.*}} = %{{.*}} to %[[END]] step
// KERNELS: llvm.load {{.*}} -> vector<4xf32>
// KERNELS: math.tanh {{.*}} : vector<4xf32>
// KERNELS: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// KERNELS-NOT: scf.for
// KERNELS: gpu.return

// SUMMARY: kernels 1
// SUMMARY: kernel 0 fuse_k0_pointwise schedule pointwise iterations batch*sequence*64 grid of 1024 per block, at most 4096 block 256 shared 0 dims batch,sequence

// PTX-NOT: .extern
// PTX: .entry fuse_k0_pointwise(
// PTX-NEXT: .param .u64 .ptr .global .align 1 fuse_k0_pointwise_param_0,
// PTX-NEXT: .param .u64 .ptr .global .align 1 fuse_k0_pointwise_param_1,
// PTX-NEXT: .param .u64 .ptr .global .align 1 fuse_k0_pointwise_param_2,
// PTX-NEXT: .param .u64 fuse_k0_pointwise_param_3,
// PTX-NEXT: .param .u64 fuse_k0_pointwise_param_4
// PTX-NEXT: )
// PTX-DAG: ld.param.b64 %[[B:rd[0-9]+]], [fuse_k0_pointwise_param_3];
// PTX-DAG: ld.param.b64 %[[S:rd[0-9]+]], [fuse_k0_pointwise_param_4];
// PTX: mul.lo.s64 %{{rd[0-9]+}}, {{%}}[[B]], {{%}}[[S]];
// PTX: ld.global.nc.v4.b32
// PTX: st.global.v4.b32

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
