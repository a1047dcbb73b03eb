// fuse.pow on the GPU (f32): libdevice's __nv_powf, inlined (no call or
// .extern left), for the x^2 and x^3 of RMSNorm and the tanh GELU that
// GPT-2, Llama and T5 exports carry (before, 'no GPU lowering of f32 pow
// yet'); a run-time exponent too. ptxas accepts the PTX for sm_90 and sm_80
// without spills.

// REQUIRES: ptxas
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80
// RUN: %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_pointwise.ptx -o %t/sm_90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_pointwise.ptx -o %t/sm_80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

func.func @powers(%x: tensor<1024xf32>, %e: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = fuse.fusion pointwise (%x, %e) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32> {
  ^bb0(%a: tensor<1024xf32>, %b: tensor<1024xf32>):
    %three = fuse.constant dense<3.0> : tensor<1024xf32>
    %cube = fuse.pow %a, %three : tensor<1024xf32>
    %any = fuse.pow %a, %b : tensor<1024xf32>
    %s = fuse.add %cube, %any : tensor<1024xf32>
    fuse.yield %s : tensor<1024xf32>
  }
  return %r : tensor<1024xf32>
}

// KERNELS: gpu.func @fuse_k0_pointwise(
// KERNELS: math.powf
// KERNELS: math.powf

// PTX-LABEL: // kernel fuse_k0_pointwise
// PTX-NOT: .extern
// PTX-NOT: call
// PTX: .visible .entry fuse_k0_pointwise(
// PTX-NOT: call
// PTX: st.global

// PTXAS: Compiling entry function 'fuse_k0_pointwise'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
