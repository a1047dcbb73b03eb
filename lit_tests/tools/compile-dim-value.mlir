// Issue 22: no kernel reads a dim's value at run time yet. A module of
// static types whose fuse.dim_value names a dim (`seq`) is refused before
// code generation, naming the op, its location and the dim, with exit 1 and
// no output folder, for the host and a GPU; before, the host's pointwise
// emitter failed on it late ("not elementwise and not an index map"). The
// same for a symbolic model whose dim_value sits in a static fusion; fuse-run
// then compiles the bound graph instead and checks it. fuse-run refuses the
// static module when no --dim gives the dim. A dead dim_value is gone after
// fusion and refuses nothing.

// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c 'fuse-compile %s --target=host -o %t/host 2>&1; echo "exit=$?"' | FileCheck %s
// RUN: sh -c 'fuse-compile %s --target=sm_90 -o %t/gpu 2>&1; echo "exit=$?"' | FileCheck %s
// RUN: sh -c 'fuse-compile %S/Inputs/dim-value-static-fusion.mlir --target=host -o %t/mixed 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=MIXED
// RUN: not ls %t/host %t/gpu %t/mixed
// RUN: fuse-run %S/Inputs/dim-value-static-fusion.mlir --dim seq=3 --check --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: sh -c 'fuse-run %s 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=UNBOUND
// RUN: sed -e 's/fuse.add %%x, %%n/fuse.add %%x, %%x/' %s > %t/dead.mlir
// RUN: fuse-compile %t/dead.mlir --target=host -o %t/dead
// RUN: FileCheck %s --check-prefix=DEAD < %t/dead/bundle.txt

func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {
  %n = fuse.dim_value {dim = #fuse.dims<seq>} : tensor<4xi64>
  %y = fuse.add %x, %n : tensor<4xi64>
  return %y : tensor<4xi64>
}

// CHECK: fuse-compile: error: {{.*}}compile-dim-value.mlir: the graph reads the value of dim 'seq' (a fuse.dim_value): bind the dims first (bindDims, fuse-run --dim): {{.*}}compile-dim-value.mlir:[[@LINE-5]]:8: 'fuse.dim_value' op reads the value of dim 'seq' as data, which no kernel takes at run time yet (issue 22)
// CHECK-NOT: not elementwise
// CHECK: exit=1

// MIXED: error: {{.*}}dim-value-static-fusion.mlir: the graph reads the value of dim 'seq' (a fuse.dim_value): bind the dims first (bindDims, fuse-run --dim): {{.*}}dim-value-static-fusion.mlir:6:8: 'fuse.dim_value' op reads the value of dim 'seq' as data
// MIXED: exit=1

// BOUND: fuse-run: note: not every fusion takes the dims at run time, so the model is compiled for seq=3
// BOUND: check: passed, 2 outputs match the reference

// UNBOUND: fuse-run: error: dim 'seq' of {{.*}} has no value
// UNBOUND: exit=2

// DEAD: kernels 1
// DEAD: ops 1:add
