// Issue 22, step C: a layer norm, a pointwise tail and a softmax over rows of
// 64 on symbolic (batch, sequence) compile once for the host into one row
// kernel whose iteration count is a formula over the dims, bound when a run
// starts (its arena too, planned per binding of the dims).

// RUN: rm -rf %t && fuse-compile %S/Inputs/symbolic-rows.mlir --target=host -o %t
// RUN: FileCheck %s < %t/bundle.txt

// CHECK: kernels 1
// CHECK: kernel 0 {{.*}} schedule row-reduction iterations batch*sequence grain
// CHECK: arena planned per binding of the dims
