// A chain of 20,000 ops fuses into 79 pointwise kernels (of at most
// max-ops=256 ops each) that compile, run on the host and match the
// reference runtime. Fused with max-ops=20000, it is one kernel of 20,000
// ops, which compiles too: code generation walks the kernel's region with
// its own stack (a recursive walk overflowed the native stack on this chain:
// SIGSEGV). Fusion formation plans merges incrementally; re-planning every
// merged group made it quadratic (compile time is measured by
// bench/compile_scaling.py, not here). The chain's ops are maxima, which LLVM
// folds, so that the test stays fast.

// RUN: %python %S/../../bench/chain_graph.py 20000 --ops max -o %t.mlir
// RUN: rm -rf %t.cache
// RUN: fuse-run %t.mlir --check --cache-dir %t.cache 2>&1 | FileCheck %s

// CHECK: compiling 20000 ops
// CHECK: compiled 79 kernel(s)
// CHECK: check: passed, 1 outputs match the reference

// RUN: fuse-opt %t.mlir -fuse-fusion-pipeline="max-ops=20000" -o %t-fused.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t-fused.mlir
// RUN: rm -rf %t.out
// RUN: fuse-compile --target=host %t-fused.mlir -o %t.out
// RUN: FileCheck %s --check-prefix=BUNDLE < %t.out/bundle.txt

// FUSED-COUNT-1: fuse.fusion pointwise
// FUSED-NOT: fuse.fusion

// BUNDLE: kernels 1
// BUNDLE: kernel 0 fuse_k0_pointwise schedule pointwise
