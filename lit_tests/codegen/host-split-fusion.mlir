// A hand-written row_reduction fusion whose broadcast reads each row's sum at
// another position (dims = [1]: output (i, j) reads row j, a transpose) is
// not a row kernel the host can generate. The compiler splits the fusion
// into one kernel per op and says why in a note (NOTE), instead of failing;
// the split kernels match the reference (PLAN), and fuse-run's JSON counts
// the split fusion as a fallback (JSON).

// RUN: rm -rf %t.out && fuse-compile %s -o %t.out 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --print-plan --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: fuse-run %s --json --cache-dir %t.cache | FileCheck %s --check-prefix=JSON

// NOTE: fuse-compile: note: a fusion of 3 ops was split into 3 kernels, which code generation can schedule: {{.*}}'fuse.broadcast' op cannot be generated for the host in a row_reduction kernel: it reads a row's reduction other than at its own row

// PLAN: plan: 3 kernels for 3 ops
// PLAN: check: passed

// JSON: "kernels": 3, "launches": 3, "compiled": 3, "cache_hits": 0, "fallbacks": 1,

func.func @main(%x: tensor<6x6xf32>, %y: tensor<6x6xf32>) -> (tensor<6x6xf32> {fuse.name = "z"}) {
  %z = fuse.fusion row_reduction (%x, %y) : (tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32> {
  ^bb0(%a: tensor<6x6xf32>, %b: tensor<6x6xf32>):
    %s = fuse.reduce sum %a dims = [1] : tensor<6x6xf32> -> tensor<6xf32>
    %t = fuse.broadcast %s, dims = [1] : tensor<6xf32> -> tensor<6x6xf32>
    %m = fuse.mul %t, %b : tensor<6x6xf32>
    fuse.yield %m : tensor<6x6xf32>
  }
  return %z : tensor<6x6xf32>
}
