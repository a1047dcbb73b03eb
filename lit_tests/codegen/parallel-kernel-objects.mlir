// A module of many huge kernels (a chain of 1,400 real ops, cut into kernels
// of at most max-ops=256 ops) is split into parts (llvm::SplitModule) that
// are optimized and emitted in threads of their own, at least two; lld links
// their objects into the one shared object, which runs and matches the
// reference runtime. Each part prints as a module of its own. The kernels of
// huge fusions (k1 to k5, 256 ops each) go to parts of their own, apart
// from the rest (k0, under 128 ops). Compile time is measured by
// bench/compile_scaling.py --ops mixed, not here.

// RUN: %python %S/../../bench/chain_graph.py 1400 -o %t.mlir
// RUN: fuse-compile --emit=llvm --target=host-x86-64-v3 %t.mlir | FileCheck %s --check-prefix=PARTS
// RUN: rm -rf %t.cache
// RUN: fuse-run %t.mlir --check --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=EXEC

// PARTS: ; ModuleID
// PARTS: define void @fuse_k0_pointwise
// PARTS-NOT: define
// PARTS: ; ModuleID
// PARTS: define void @fuse_k{{[1-5]}}_pointwise
// PARTS: ; ModuleID
// PARTS: define void @fuse_k{{[1-5]}}_pointwise

// EXEC: compiled 6 kernel(s)
// EXEC: check: passed, 1 outputs match the reference
