// Kernel files of the bundle cache made by another version of Fuse (every
// one after an upgrade) are removed and compiled again: the first on a
// warning line of its own, the rest counted on one line when the cache
// closes (a line each was over a hundred lines for one model). The run
// itself succeeds, and the next run hits the cache.

// RUN: rm -rf %t && fuse-run %examples/mlp.mlir --cache-dir %t > /dev/null
// The bundle removed (a new version looks its kernels up by content), and
// the first byte of each kernel file's version id (after FUSEKRN1 and its
// 4-byte length) changed.
// RUN: %python -c "import glob, os; [os.remove(f) for f in glob.glob('%t/*.fbundle')]; print(len(glob.glob('%t/*.fkernel')))" | FileCheck %s --check-prefix=FILES
// RUN: %python -c "exec(\"import glob\nfor f in glob.glob('%t/*.fkernel'):\n  h = open(f, 'r+b'); h.seek(12); h.write(b'x'); h.close()\")"
// RUN: fuse-run %examples/mlp.mlir --cache-dir %t 2>&1 | FileCheck %s
// RUN: fuse-run %examples/mlp.mlir --cache-dir %t 2>&1 | FileCheck %s --check-prefix=AGAIN

// FILES: {{[2-9]|[1-9][0-9]+}}
// CHECK: fuse-run: warning: bundle cache: {{.*}}.fkernel: the kernel was made by another version of Fuse (version id x{{[0-9a-f]+}}; this build is {{[0-9a-f]+}}); removed it
// CHECK-NOT: made by another version
// CHECK: fuse-run: warning: bundle cache: removed {{[1-9][0-9]*}} more entries made by another version of Fuse
// AGAIN-NOT: warning
// AGAIN: cache hit
