// A kernel of hundreds of ops keeps its loops as the kernel emitter wrote
// them: its main loop is vectorized already, and LLVM's loop vectorizer
// copied the whole chain twice more into the scalar tail loop (a vector body
// and a vector epilogue for at most 15 elements), which tripled instruction
// selection's and register allocation's work. A small kernel is compiled as
// before (its tail loop vectorized). Compile time is measured by
// bench/compile_scaling.py --ops mixed, not here.

// RUN: %python %S/../../bench/chain_graph.py 256 -o %t-huge.mlir
// RUN: fuse-compile --emit=llvm --target=host-x86-64-v3 %t-huge.mlir | FileCheck %s --check-prefix=HUGE
// RUN: %python %S/../../bench/chain_graph.py 16 -o %t-small.mlir
// RUN: fuse-compile --emit=llvm --target=host-x86-64-v3 %t-small.mlir | FileCheck %s --check-prefix=SMALL

// HUGE: define void @fuse_k0_pointwise
// HUGE-NOT: vector.body
// HUGE-NOT: define
// HUGE: !{!"llvm.loop.vectorize.width", i32 1}
// HUGE: !{!"llvm.loop.interleave.count", i32 1}

// SMALL: define void @fuse_k0_pointwise
// SMALL: vector.body
// SMALL-NOT: llvm.loop.vectorize.width
