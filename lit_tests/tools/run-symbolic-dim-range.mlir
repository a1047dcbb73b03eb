// Issue 22: --dim-range NAME=LO..HI declares the values a symbolic dim may
// take. A run inside runs as without it; one outside is refused before it
// runs, naming the dim, its value and the range; a malformed range, LO > HI,
// a negative end, a dim the model lacks and a dim given twice are errors.
// (The model is run-symbolic-dims.mlir's: dims batch and sequence.)

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/eps.npy', np.array(1e-5, np.float32))"
// RUN: fuse-run %S/run-symbolic-dims.mlir --dim batch=3 --dim sequence=5 --dim-range sequence=1..64 --dim-range batch=1..4 --input eps=%t/eps.npy --check --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=INSIDE
// RUN: sh -c 'fuse-run %S/run-symbolic-dims.mlir --dim batch=2 --dim sequence=77 --dim-range sequence=1..64 --input eps=%t/eps.npy --cache-dir %t/cache 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=OUTSIDE
// RUN: sh -c 'fuse-run %S/run-symbolic-dims.mlir --dim batch=2 --dim sequence=5 --dim-range sequence=1-64 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=MALFORMED
// RUN: sh -c 'fuse-run %S/run-symbolic-dims.mlir --dim batch=2 --dim sequence=5 --dim-range sequence=1.. 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=NO-HIGH
// RUN: sh -c 'fuse-run %S/run-symbolic-dims.mlir --dim batch=2 --dim sequence=5 --dim-range sequence=9..4 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=REVERSED
// RUN: sh -c 'fuse-run %S/run-symbolic-dims.mlir --dim batch=2 --dim sequence=5 --dim-range sequence=-1..4 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=NEGATIVE
// RUN: sh -c 'fuse-run %S/run-symbolic-dims.mlir --dim batch=2 --dim sequence=5 --dim-range length=1..4 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=UNKNOWN
// RUN: sh -c 'fuse-run %S/run-symbolic-dims.mlir --dim batch=2 --dim sequence=5 --dim-range sequence=1..4 --dim-range sequence=1..8 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=TWICE

// INSIDE: symbolic dims bound for this run: batch=3, sequence=5
// INSIDE: check: passed

// OUTSIDE: fuse-run: error: --dim-range: dim 'sequence' is 77, outside its declared range sequence=1..64 (bound for this run: batch=2, sequence=77)
// OUTSIDE-NOT: output
// OUTSIDE: exit=2

// MALFORMED: fuse-run: error: --dim-range 'sequence=1-64' is not NAME=LO..HI (LO and HI integers)
// MALFORMED: exit=2
// NO-HIGH: fuse-run: error: --dim-range 'sequence=1..' is not NAME=LO..HI
// NO-HIGH: exit=2
// REVERSED: fuse-run: error: --dim-range sequence=9..4: LO 9 is above HI 4
// REVERSED: exit=2
// NEGATIVE: fuse-run: error: --dim-range sequence=-1..4: a size is never negative
// NEGATIVE: exit=2
// UNKNOWN: fuse-run: error: --dim-range: '{{.*}}run-symbolic-dims.mlir': dim range length=1..4: the graph has no dim 'length'; its dims are: {{.*}}sequence
// UNKNOWN: exit=2
// TWICE: fuse-run: error: --dim-range gives dim 'sequence' twice; give each dim once
// TWICE: exit=2
