// A kernel of hundreds of ops keeps its loops as the kernel emitter wrote
// them: its main loop is vectorized already, and LLVM's loop vectorizer
// copied the whole chain twice more into the scalar tail loop (a vector body
// and a vector epilogue for at most 15 elements), which tripled instruction
// selection's and register allocation's work. No kernel runs LLVM's loop
// vectorizer any more (HostObjectEmitter's kKernelPipeline): a small
// kernel's scalar tail loop stays scalar too, but only the huge one is
// marked. Compile time is measured by bench/compile_scaling.py --ops mixed,
// not here.
//
// The kernel emitter marks the kernel of a huge fusion (128 ops or more)
// "fuse-huge-kernel" (HostObjectEmitter then emits its object code with
// LLVM's quick code generator), and where its domain is whole scheduling
// grains (64x64 = 4096 elements, one grain) it has no scalar tail loop: each
// chunk the runtime runs is whole grains, so the tail never ran. With 65x63
// elements the tail stays. Both run and match the reference.

// RUN: %python %S/../../bench/chain_graph.py 256 -o %t-huge.mlir
// RUN: fuse-compile --emit=llvm --target=host-x86-64-v3 %t-huge.mlir | FileCheck %s --check-prefix=HUGE
// RUN: %python %S/../../bench/chain_graph.py 16 -o %t-small.mlir
// RUN: fuse-compile --emit=llvm --target=host-x86-64-v3 %t-small.mlir | FileCheck %s --check-prefix=SMALL
// RUN: fuse-compile --emit=kernels --target=host-x86-64-v3 %t-huge.mlir | FileCheck %s --check-prefix=WHOLE
// RUN: sed 's/64x64/65x63/g' %t-huge.mlir > %t-odd.mlir
// RUN: fuse-compile --emit=kernels --target=host-x86-64-v3 %t-odd.mlir | FileCheck %s --check-prefix=ODD
// RUN: fuse-compile --emit=kernels --target=host-x86-64-v3 %t-small.mlir | FileCheck %s --check-prefix=SMALL-KERNEL
// RUN: rm -rf %t.cache
// RUN: fuse-run %t-huge.mlir --check --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %t-odd.mlir --check --cache-dir %t.cache 2>&1 | FileCheck %s --check-prefix=EXEC

// HUGE: define void @fuse_k0_pointwise
// HUGE-NOT: vector.body
// HUGE-NOT: define
// HUGE: attributes #{{[0-9]+}} = { {{.*}}"fuse-huge-kernel"
// HUGE: !{!"llvm.loop.vectorize.width", i32 1}
// HUGE: !{!"llvm.loop.interleave.count", i32 1}

// SMALL: define void @fuse_k0_pointwise
// SMALL-NOT: vector.body
// SMALL-NOT: llvm.loop.vectorize.width
// SMALL-NOT: fuse-huge-kernel

// WHOLE: func.func @fuse_k0_pointwise{{.*}}passthrough = ["fuse-huge-kernel"]
// WHOLE: scf.for {{.*}} step %c8_
// WHOLE-NOT: scf.for

// ODD: func.func @fuse_k0_pointwise{{.*}}passthrough = ["fuse-huge-kernel"]
// ODD: scf.for {{.*}} step %c8_
// ODD: scf.for {{.*}} step %c1_

// SMALL-KERNEL: func.func @fuse_k0_pointwise
// SMALL-KERNEL-NOT: passthrough
// SMALL-KERNEL: scf.for {{.*}} step %c8_
// SMALL-KERNEL: scf.for {{.*}} step %c1_

// EXEC: check: passed, 1 outputs match the reference
