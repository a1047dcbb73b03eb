// fuse-run --profile N: each launch timed alone (a batch and a fence of its
// own), the median of N runs, printed by time with its entry, schedule and
// op count, and listed in the JSON summary; the outputs are the run's as
// without it (the reference runtime too, whose launches are its ops). The
// packing of the weight %w runs once per binding of the inputs: it is listed
// apart, outside a run's sum.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --cache-dir %t/cache --profile 3 --json | FileCheck %s
// RUN: fuse-run %s --cache-dir %t/cache --runtime reference --profile 2 | FileCheck %s --check-prefix=REF
// RUN: fuse-run %s --cache-dir %t/cache --json | FileCheck %s --check-prefix=OFF

// CHECK: output out0: tensor<64xf32>
// CHECK: profile: 2 launches, each alone, median of 3 runs: sum {{[0-9.]+}} ms
// CHECK-DAG: {{[0-9.]+}}%{{ +}}{{[0-9.]+}} ms  launch {{[0-9]}} fuse_k{{[0-9]}}_rows (row-reduction, 3 ops)
// CHECK-DAG: {{[0-9.]+}}%{{ +}}{{[0-9.]+}} ms  launch {{[0-9]}} fuse_k{{[0-9]}}_matmul (matmul, 2 ops)
// CHECK: once per binding of the inputs (1 launches, not in a run's sum):
// CHECK-NEXT: once{{ +}}{{[0-9.]+}} ms  launch {{[0-9]}} fuse_k{{[0-9]}}_pack (matmul, 2 ops)
// CHECK: "profile": [{"launch": {{[0-9]}}, "name": "fuse_k{{[0-9]}}_{{[a-z]+}}", "entry": "fuse_{{[a-z]+}}_{{[0-9a-f]+}}", "schedule": "{{[a-z-]+}}", "per_binding": false, "ms": {{[0-9.e+-]+}}}, {"launch"
// CHECK-SAME: "per_binding": true
// REF: profile: {{[0-9]+}} launches, each alone, median of 2 runs
// OFF: "profile": null

func.func @f(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> (tensor<64xf32>, tensor<64x16xf32>) {
  %m = fuse.matmul %x, %w : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %e = fuse.exp %m : tensor<64x16xf32>
  %s = fuse.reduce sum %e dims = [1] : tensor<64x16xf32> -> tensor<64xf32>
  %r = fuse.reduce max %m dims = [1] : tensor<64x16xf32> -> tensor<64xf32>
  %y = fuse.add %s, %r : tensor<64xf32>
  return %y, %m : tensor<64xf32>, tensor<64x16xf32>
}
