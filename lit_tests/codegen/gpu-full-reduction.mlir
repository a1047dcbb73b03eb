// Full reductions on the GPU: a partials kernel (a fixed number of blocks,
// each thread accumulating 128-bit loads over a grid-stride loop, the block
// combined by warp shuffles and shared memory into one slot of scratch) and
// a one-block finishing kernel that combines the slots and divides for the
// mean, so the result never depends on the device.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: fuse-compile %s --target=sm_80 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_partials.ptx -o %t/p90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_finish.ptx -o %t/f90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_partials.ptx -o %t/p80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_finish.ptx -o %t/f80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @mean_of_exp(%x: tensor<100000xf32>) -> tensor<f32> {
  %r = fuse.fusion full_reduction (%x) : (tensor<100000xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<100000xf32>):
    %e = fuse.exp %a : tensor<100000xf32>
    %m = fuse.reduce mean %e dims = [0] : tensor<100000xf32> -> tensor<f32>
    fuse.yield %m : tensor<f32>
  }
  return %r : tensor<f32>
}

// KERNELS-LABEL: gpu.func @fuse_k0_partials
// KERNELS: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<4xf32>)
// KERNELS: math.exp %{{.*}} : vector<4xf32>
// KERNELS: arith.addf %[[ACC]]
// KERNELS: vector.reduction <add>
// KERNELS: gpu.all_reduce add %{{.*}} uniform
// KERNELS: scf.if
// KERNELS: llvm.store
// KERNELS-LABEL: gpu.func @fuse_k0_finish
// KERNELS: scf.for {{.*}} -> (f32)
// KERNELS: gpu.all_reduce add
// KERNELS: arith.divf

// PTX-LABEL: // kernel fuse_k0_partials
// PTX-NOT: .extern
// PTX: .entry fuse_k0_partials(
// PTX: ld.global.nc.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX-LABEL: // kernel fuse_k0_finish
// PTX-NOT: .extern
// PTX: .entry fuse_k0_finish(
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: st.global.b32

// SUMMARY: kernel 0 fuse_k0_partials schedule full-reduction grid 25 block 256 shared 0
// SUMMARY: bindings input#0(%0) arena#0(%2)
// SUMMARY: kernel 1 fuse_k0_finish schedule full-reduction grid 1 block 256 shared 0
// SUMMARY: bindings input#0(%0) output#0(%2) arena#0(%2)
// SUMMARY: arena 200 bytes

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
