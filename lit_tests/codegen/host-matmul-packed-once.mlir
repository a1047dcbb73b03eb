// A weight (B a graph input, read as it is) is packed by a kernel of its own
// that runs once per binding of the inputs: its panels live in the arena's
// bound part, after the slices a run reuses, and a prepared bundle's later
// runs launch the matmul alone. The --bench runs after the first read the
// panels the first run packed, and --check compares the last run's output
// with the reference. (host-matmul.mlir: a B computed by a kernel before,
// read in place.)

// RUN: rm -rf %t && fuse-compile %s --target=host-x86-64-v3 -o %t
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/bundle.txt
// RUN: fuse-run %s --cache-dir %t/cache --bench 3 --check --print-plan | FileCheck %s --check-prefix=PLAN

func.func @linear_relu(%x: tensor<65x127xf32>, %w: tensor<127x33xf32>, %b: tensor<33xf32>) -> tensor<65x33xf32> {
  %y = fuse.matmul %x, %w : tensor<65x127xf32>, tensor<127x33xf32> -> tensor<65x33xf32>
  %bb = fuse.broadcast %b, dims = [1] : tensor<33xf32> -> tensor<65x33xf32>
  %z = fuse.add %y, %bb : tensor<65x33xf32>
  %zero = fuse.constant dense<0.0> : tensor<65x33xf32>
  %r = fuse.max %z, %zero : tensor<65x33xf32>
  return %r : tensor<65x33xf32>
}

// SUMMARY: kernels 2
// SUMMARY: kernel 0 fuse_k0_pack schedule matmul iterations {{[0-9]+}} grain {{[0-9]+}} once per binding
// SUMMARY-NEXT: ops 0:matmul 1:broadcast 2:add 3:constant 4:max
// SUMMARY-NEXT: bindings input#0(%0) input#1(%1) input#2(%2) arena#0(%{{[0-9]+}})
// SUMMARY: kernel 1 fuse_k0_matmul schedule matmul iterations 11 grain {{[0-9]+}} chunks per worker 1{{$}}
// SUMMARY: bindings input#0(%0) input#1(%1) input#2(%2) output#0(%{{[0-9]+}}) arena#0(%{{[0-9]+}})
// SUMMARY: arena [[ARENA:[0-9]+]] bytes, of it [[ARENA]] kept per binding of the inputs
// SUMMARY-NEXT: arena#0 tensor %{{[0-9]+}} offset 0 bytes {{[0-9]+}}

// PLAN: kernel 0 fuse_k0_pack: matmul, 5 ops, {{.*}}, once per binding of the inputs
// PLAN: kernel 1 fuse_k0_matmul: matmul, 5 ops, reads {{[0-9]+}} B, writes {{[0-9]+}} B{{$}}
// PLAN: total: {{.*}}, arena [[ARENA:[0-9]+]] B (of it [[ARENA]] B kept per binding of the inputs)
// PLAN: check: passed, 1 outputs match the reference
