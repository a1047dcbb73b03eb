// Inputs and outputs that each fit, and together once, but not as many
// times as a run holds them (three: fuse-run's copies and the runtime's
// buffers; four under --check): a
// clear error naming the bytes and the largest tensor, before anything is
// allocated. Each allocation was granted and the run aborted ("LLVM ERROR:
// out of memory" under a limit; without one, Linux overcommits and the OOM
// killer ended the process).

// REQUIRES: address-space-limit
// RUN: rm -rf %t.cache
// RUN: sh -c 'ulimit -v 3000000; fuse-run %s --runtime reference --cache-dir %t.cache; echo "exit=$?"' 2>&1 | FileCheck %s

// CHECK: fuse-run: error: running '{{.*}}huge-run.mlir' (its inputs and outputs, 2147483648 bytes, held 3 times; the largest is input 'x', 1073741824 bytes) needs 6442450944 bytes, more than the address space limit (ulimit -v) (3072000000 bytes)
// CHECK: {{^}}exit=2{{$}}

func.func @main(%x: tensor<268435456xf32>) -> tensor<268435456xf32> {
  %y = fuse.exp %x : tensor<268435456xf32>
  return %y : tensor<268435456xf32>
}
