// Gathers on the GPU through the same common code as the host's
// (RegionEmitterBase::emitGather): an embedding lookup of token ids with the
// position add and a layer norm is one row-reduction kernel, each row's id
// loaded once and its row of the table read with 128-bit loads; a gather of
// f16 along a middle axis with i32 indices fuses with an exp in a pointwise
// kernel (indices and data loaded lane by lane). An index outside the axis
// reads position 0 instead (never out of bounds) and is reported in the
// kernel's error record, one parameter after the bindings: a relaxed store
// of the index, then of the flag, under a branch on any lane being outside.
// ptxas accepts the PTX for sm_90 and sm_80 without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/sm_90/fuse_k1_pointwise.ptx
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_rows.ptx -o %t/a90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_rows.ptx -o %t/a80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k1_pointwise.ptx -o %t/b90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k1_pointwise.ptx -o %t/b80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// KERNELS-LABEL: gpu.func @fuse_k0_rows
// KERNELS: llvm.load {{.*}} -> i64
// KERNELS: arith.cmpi ult
// KERNELS: llvm.load {{.*}} -> vector<4xf32>
// KERNELS-LABEL: gpu.func @fuse_k1_pointwise
// KERNELS-SAME: %arg3: !llvm.ptr<1> {llvm.noalias})
// KERNELS: %[[INSIDE:.*]] = arith.cmpi ult
// KERNELS: %[[OUTSIDE:.*]] = arith.xori %[[INSIDE]]
// KERNELS: scf.if %[[OUTSIDE]] {
// KERNELS: llvm.store %{{.*}} atomic monotonic {alignment = 8 : i64} : i64, !llvm.ptr<1>
// KERNELS: llvm.store %{{.*}} atomic monotonic {alignment = 8 : i64} : i64, !llvm.ptr<1>
// KERNELS: math.exp

// PTX: .entry fuse_k1_pointwise(
// PTX-COUNT-3: .param .u64 .ptr .global .align 1 fuse_k1_pointwise_param_{{[0-2]}},
// PTX-NEXT: .param .u64 .ptr .global .align 1 fuse_k1_pointwise_param_3
// PTX: ld.param.b64 [[RECORD:%rd[0-9]+]], [fuse_k1_pointwise_param_3];
// PTX: st.relaxed.{{.*}}global.b64 [[[RECORD]]+8],
// PTX-NEXT: st.relaxed.{{.*}}global.b64 [[[RECORD]]], 1;

// SUMMARY: kernel 0 fuse_k0_rows schedule row-reduction
// SUMMARY: error record 0:gather
// SUMMARY: kernel 1 fuse_k1_pointwise schedule pointwise
// SUMMARY: error record 17:gather

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @main(%table: tensor<30522x256xf32>, %ids: tensor<4x128xi64>,
                %pos: tensor<128x256xf32>, %gamma: tensor<256xf32>,
                %beta: tensor<256xf32>, %h: tensor<8x64x32xf16>,
                %hi: tensor<16xi32>)
    -> (tensor<4x128x256xf32>, tensor<8x16x32xf16>) {
  %e = fuse.gather %table[%ids] axis = 0 : tensor<30522x256xf32>, tensor<4x128xi64> -> tensor<4x128x256xf32>
  %pb = fuse.broadcast %pos, dims = [1, 2] : tensor<128x256xf32> -> tensor<4x128x256xf32>
  %s = fuse.add %e, %pb : tensor<4x128x256xf32>
  %mean = fuse.reduce mean %s dims = [2] keep_dims : tensor<4x128x256xf32> -> tensor<4x128x1xf32>
  %meanb = fuse.broadcast %mean, dims = [0, 1, 2] : tensor<4x128x1xf32> -> tensor<4x128x256xf32>
  %d = fuse.sub %s, %meanb : tensor<4x128x256xf32>
  %d2 = fuse.mul %d, %d : tensor<4x128x256xf32>
  %var = fuse.reduce mean %d2 dims = [2] keep_dims : tensor<4x128x256xf32> -> tensor<4x128x1xf32>
  %eps = fuse.constant dense<1.0e-05> : tensor<4x128x1xf32>
  %ve = fuse.add %var, %eps : tensor<4x128x1xf32>
  %rstd = fuse.rsqrt %ve : tensor<4x128x1xf32>
  %rstdb = fuse.broadcast %rstd, dims = [0, 1, 2] : tensor<4x128x1xf32> -> tensor<4x128x256xf32>
  %n = fuse.mul %d, %rstdb : tensor<4x128x256xf32>
  %g = fuse.broadcast %gamma, dims = [2] : tensor<256xf32> -> tensor<4x128x256xf32>
  %bb = fuse.broadcast %beta, dims = [2] : tensor<256xf32> -> tensor<4x128x256xf32>
  %sc = fuse.mul %n, %g : tensor<4x128x256xf32>
  %y = fuse.add %sc, %bb : tensor<4x128x256xf32>
  %m = fuse.gather %h[%hi] axis = 1 : tensor<8x64x32xf16>, tensor<16xi32> -> tensor<8x16x32xf16>
  %me = fuse.exp %m : tensor<8x16x32xf16>
  return %y, %me : tensor<4x128x256xf32>, tensor<8x16x32xf16>
}
