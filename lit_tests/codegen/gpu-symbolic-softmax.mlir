// Issue 22 on the GPU: a softmax over rows of 1000 on symbolic (batch,
// sequence) rows compiles once into one row kernel (a block per row, 256
// threads, 128-bit loads) whose row loop runs to batch*sequence, read from
// the dims it takes by value after its bindings (KernelAbi.h, "Runtime
// dims"): the row length stays static, so the code is the same at every
// value of the dims. A softmax whose rows are the symbolic dim (their
// length, the sequence) needs the dim's value (its block and vector width
// depend on it) and is refused naming the fusion, its schedule and the dim,
// as is a matmul (no GPU matmul takes runtime dims yet). ptxas accepts the
// PTX for sm_90 and sm_80 without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/sm_90/fuse_k0_rows.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t/sm_80/fuse_k0_rows.ptx
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_rows.ptx -o %t/r90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_rows.ptx -o %t/r80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: not fuse-compile %S/../tools/Inputs/gpu-symbolic-row-length.mlir --target=sm_90 -o %t/length 2>&1 | FileCheck %s --check-prefix=LENGTH
// RUN: not fuse-compile %S/../tools/Inputs/symbolic-matmul.mlir --target=sm_90 -o %t/matmul 2>&1 | FileCheck %s --check-prefix=MATMUL
// RUN: not ls %t/length %t/matmul

func.func @softmax(%x: tensor<?x?x1000xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"})
    -> tensor<?x?x1000xf32, #fuse.dims<batch, sequence>> {
  %m = fuse.reduce max %x dims = [2] keep_dims : tensor<?x?x1000xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %mb = fuse.broadcast %m, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1000xf32, #fuse.dims<batch, sequence>>
  %d = fuse.sub %x, %mb : tensor<?x?x1000xf32, #fuse.dims<batch, sequence>>
  %e = fuse.exp %d : tensor<?x?x1000xf32, #fuse.dims<batch, sequence>>
  %s = fuse.reduce sum %e dims = [2] keep_dims : tensor<?x?x1000xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %sb = fuse.broadcast %s, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1000xf32, #fuse.dims<batch, sequence>>
  %y = fuse.div %e, %sb : tensor<?x?x1000xf32, #fuse.dims<batch, sequence>>
  return %y : tensor<?x?x1000xf32, #fuse.dims<batch, sequence>>
}

// KERNELS-LABEL: gpu.func @fuse_k0_rows
// KERNELS-SAME: %[[BATCH:arg2]]: i64, %[[SEQUENCE:arg3]]: i64)
// KERNELS-SAME: fuse.dims_parameter = 2
// KERNELS-SAME: known_block_size = array<i32: 256, 1, 1>
// KERNELS: %[[ROWS:.*]] = arith.muli %[[BATCH]], %[[SEQUENCE]] : i64
// KERNELS: scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} : i64 {
// KERNELS: arith.muli %[[ROW]], %c1000_i64
// KERNELS: gpu.all_reduce maximumf
// KERNELS: math.exp %{{.*}} : vector<4xf32>
// KERNELS: gpu.all_reduce add
// KERNELS: arith.divf %{{.*}} : vector<4xf32>
// KERNELS: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// KERNELS: gpu.barrier

// SUMMARY: kernel 0 fuse_k0_rows schedule row-reduction iterations batch*sequence grid of 1 per block, at most 65535 block 256 shared 0 dims batch,sequence

// PTX-NOT: .extern
// PTX: .entry fuse_k0_rows(
// PTX-NEXT: .param .u64 .ptr .global .align 1 fuse_k0_rows_param_0,
// PTX-NEXT: .param .u64 .ptr .global .align 1 fuse_k0_rows_param_1,
// PTX-NEXT: .param .u64 fuse_k0_rows_param_2,
// PTX-NEXT: .param .u64 fuse_k0_rows_param_3
// PTX-NEXT: )
// PTX: ld.global.nc.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: st.global.v4.b32

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// LENGTH: error: {{.*}}the row_reduction fusion fuse_k0 (first op fuse.reduce) needs a static value of dim 'sequence': its kernel's code depends on the dim's value; only pointwise kernels (gathers and concats among them) and row-reduction kernels whose rows alone are symbolic take the dims at run time yet (issue 22): bind the dims first (bindDims, fuse-run --dim)
// MATMUL: error: {{.*}}the matmul fusion fuse_k0 needs a static value of dims 'batch', 'sequence': the GPU compiler has no matmul kernel that takes the dims at run time; only pointwise kernels (gathers and concats among them) and row-reduction kernels whose rows alone are symbolic take them yet (issue 22): bind the dims first (bindDims, fuse-run --dim)
