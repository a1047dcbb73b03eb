// A hand-written row_reduction fusion whose broadcast reads each row's sum at
// another position (dims = [1]: output (i, j) reads row j, a transpose) is
// not a row kernel either target can generate. Code generation no longer
// splits it into kernels of one op: fusion formation never forms such a
// kernel (fuse-form-fusions asks the target's schedules), so a fusion no
// schedule runs was written by hand, and compiling it is an error naming the
// op that prevents it, from fuse-compile (HOST, GPU) and fuse-run (TOOL, exit
// status 2).

// RUN: not fuse-compile %s -o %t.out 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not fuse-compile %s --target=sm_90 --emit=kernels 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: rm -rf %t.cache
// RUN: not fuse-run %s --check --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: fuse-run %s --check --cache-dir %t.cache > /dev/null 2>&1 ; test $? = 2

// HOST: fuse-compile: error: {{.*}}'fuse.broadcast' op cannot be generated for the host in a row_reduction kernel: it reads a row's reduction other than at its own row
// GPU: fuse-compile: error: {{.*}}'fuse.broadcast' op cannot be generated for the GPU in a row_reduction kernel: it reads a row's reduction other than at its own row
// TOOL: fuse-run: error: {{.*}}'fuse.broadcast' op cannot be generated for the host in a row_reduction kernel

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
