// Full reductions on the host: a partials kernel (one fixed chunk per
// iteration, vector accumulators, a horizontal reduction per chunk) and a
// finishing kernel that combines the partials in order, so the result does
// not depend on the number of threads.

// RUN: fuse-compile %s --target=host-x86-64-v3 --emit=kernels | FileCheck %s
// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle.txt
// RUN: llvm-nm -u %t/kernels.so | FileCheck %s --allow-empty --check-prefix=UNDEFINED

func.func @mean_of_exp(%x: tensor<100000xf32>) -> tensor<f32> {
  %r = fuse.fusion full_reduction (%x) : (tensor<100000xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<100000xf32>):
    %e = fuse.exp %a : tensor<100000xf32>
    %m = fuse.reduce mean %e dims = [0] : tensor<100000xf32> -> tensor<f32>
    fuse.yield %m : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @fuse_k0_partials
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8xf32>)
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: arith.addf %[[ACC]]
// CHECK: vector.reduction <add>
// CHECK-LABEL: func.func @fuse_k0_finish
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.divf

// SUMMARY: kernel 0 fuse_k0_partials schedule full-reduction iterations 7 grain 1
// SUMMARY: bindings input#0(%0) arena#0(%2)
// SUMMARY: kernel 1 fuse_k0_finish schedule full-reduction iterations 1 grain 1
// SUMMARY: bindings input#0(%0) output#0(%2) arena#0(%2)
// SUMMARY: arena 56 bytes

// UNDEFINED-NOT: {{.}}
