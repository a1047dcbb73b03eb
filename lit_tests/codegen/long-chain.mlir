// A chain of 20,000 ops fuses into one pointwise kernel that compiles, runs
// on the host and matches the reference runtime. Code generation walks the
// kernel's region with its own stack: a recursive walk overflowed the native
// stack on this chain (SIGSEGV). Fusion formation plans merges
// incrementally; re-planning every merged group made it quadratic (compile
// time is measured by bench/compile_scaling.py, not here). The chain's ops
// are maxima, which LLVM folds, so that the test stays fast.

// RUN: %python %S/../../bench/chain_graph.py 20000 --ops max -o %t.mlir
// RUN: rm -rf %t.cache
// RUN: fuse-run %t.mlir --check --cache-dir %t.cache 2>&1 | FileCheck %s

// CHECK: compiling 20000 ops
// CHECK: compiled 1 kernel(s)
// CHECK: check: passed, 1 outputs match the reference
