// Concats in GPU kernels (RegionEmitterBase::emitConcat, shared with the
// host; before it, "'fuse.concat' op cannot be generated for the GPU"): each operand is read at its own position clamped into its range
// along the axis, and the one whose range holds the element is selected.
// Along the last axis the lanes of a vector straddle operands and are read
// one by one; along the first axis (inner 12, a multiple of the GPU's
// 4-lane vectors) a vector stays inside one operand. The same module runs
// on the host against the reference runtime; ptxas accepts the GPU's PTX
// for sm_90 and sm_80 without spills.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: %if ptxas %{ fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS %}
// RUN: %if ptxas %{ fuse-compile %s --target=sm_90 -o %t/sm_90 && fuse-compile %s --target=sm_80 -o %t/sm_80 %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=SUMMARY < %t/sm_90/bundle.txt %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/sm_90/fuse_k0_pointwise.ptx -o %t/a90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 -v %t/sm_80/fuse_k0_pointwise.ptx -o %t/a80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/sm_90/fuse_k1_pointwise.ptx -o %t/b90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 -v %t/sm_80/fuse_k1_pointwise.ptx -o %t/b80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// HOST: check: passed, 1 outputs match the reference

// KERNELS-LABEL: gpu.func @fuse_k0_pointwise
// KERNELS: arith.cmpi sge
// KERNELS: arith.select
// KERNELS: arith.cmpi sge
// KERNELS: arith.select
// KERNELS-LABEL: gpu.func @fuse_k1_pointwise
// KERNELS: arith.cmpi sge
// KERNELS: arith.select
// KERNELS: math.exp

// SUMMARY: kernel 0 fuse_k0_pointwise schedule pointwise
// SUMMARY-NEXT: ops 0:concat
// SUMMARY: kernel 1 fuse_k1_pointwise schedule pointwise
// SUMMARY-NEXT: ops 1:concat 2:exp

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @concat(%a: tensor<5x3xf32>, %b: tensor<5x7xf32>, %c: tensor<5x2xf32>, %d: tensor<6x12xf32>) -> tensor<11x12xf32> {
  %x = fuse.concat %a, %b, %c axis = 1 : tensor<5x3xf32>, tensor<5x7xf32>, tensor<5x2xf32> -> tensor<5x12xf32>
  %y = fuse.concat %x, %d axis = 0 : tensor<5x12xf32>, tensor<6x12xf32> -> tensor<11x12xf32>
  %z = fuse.exp %y : tensor<11x12xf32>
  return %z : tensor<11x12xf32>
}
