// Scatters on the GPU (GpuScatterEmitter.cpp): each thread owns columns of
// the data viewed as [N, inner] (a grid-stride loop), copies its column down
// the rows, then applies the updates in index order; an index outside the
// rows is reported in the error record, the parameter after the bindings,
// and writes nothing. A float max (NaN-propagating maximumf) and a row write
// of f16. ptxas accepts the PTX for sm_90 and sm_80 without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/sm_90/fuse_k0_scatter.ptx
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_scatter.ptx -o %t/a90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_scatter.ptx -o %t/a80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k1_scatter.ptx -o %t/b90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k1_scatter.ptx -o %t/b80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// KERNELS-LABEL: gpu.func @fuse_k0_scatter
// KERNELS-SAME: %arg3: !llvm.ptr<1> {llvm.noalias}, %arg4: !llvm.ptr<1> {llvm.noalias})
// KERNELS: scf.for
// KERNELS: %[[INSIDE:.*]] = arith.cmpi ult
// KERNELS: scf.if
// KERNELS: llvm.store {{.*}} atomic monotonic
// KERNELS: scf.if %[[INSIDE]] {
// KERNELS: arith.maximumf
// KERNELS-LABEL: gpu.func @fuse_k1_scatter

// SUMMARY: kernel 0 fuse_k0_scatter schedule scatter grid 1 block 256
// SUMMARY-NEXT: ops 0:scatter
// SUMMARY-NEXT: bindings input#0(%0) input#1(%1) input#2(%2) output#0(%6)
// SUMMARY-NEXT: error record 0:scatter
// SUMMARY: kernel 1 fuse_k1_scatter schedule scatter grid 2 block 256

// PTX: .entry fuse_k0_scatter(
// PTX-COUNT-4: .param .u64 .ptr .global .align 1 fuse_k0_scatter_param_{{[0-3]}},
// PTX-NEXT: .param .u64 .ptr .global .align 1 fuse_k0_scatter_param_4
// PTX: st.relaxed.{{.*}}global.b64

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @main(%x: tensor<10x7xf32>, %i: tensor<4xi32>, %u: tensor<4x7xf32>,
                %cache: tensor<32x300xf16>, %pos: tensor<2xi64>,
                %rows: tensor<2x300xf16>)
    -> (tensor<10x7xf32>, tensor<32x300xf16>) {
  %m = fuse.scatter %x[%i] = %u reduction = max : tensor<10x7xf32>, tensor<4xi32>, tensor<4x7xf32> -> tensor<10x7xf32>
  %c = fuse.scatter %cache[%pos] = %rows : tensor<32x300xf16>, tensor<2xi64>, tensor<2x300xf16> -> tensor<32x300xf16>
  return %m, %c : tensor<10x7xf32>, tensor<32x300xf16>
}
