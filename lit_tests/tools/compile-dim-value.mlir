// Issue 22: a fuse.dim_value runs only in a kernel that reads the dim at run
// time (a host kernel's dims array, a GPU kernel's dims parameters), and
// only where an input's shape gives the dim. A
// module of static types whose fuse.dim_value names a dim (`seq`) that no
// input has is refused before code generation, naming the op, its location
// and the dim, with exit 1 and no output folder, for the host and a GPU
// (before, the host's pointwise emitter failed on it late: "not elementwise
// and not an index map"). A symbolic model whose dim_value sits in a fusion
// of static types compiles for the host, once for every value of the dim
// (fuse-run at two values from one cache, checked), and for a GPU, its
// pointwise kernel taking the dim as a parameter. fuse-run refuses the
// static module when no --dim gives the dim. A
// dead dim_value is gone after fusion and refuses nothing.

// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c 'fuse-compile %s --target=host -o %t/host 2>&1; echo "exit=$?"' | FileCheck %s
// RUN: sh -c 'fuse-compile %s --target=sm_90 -o %t/gpu 2>&1; echo "exit=$?"' | FileCheck %s
// RUN: fuse-compile %S/Inputs/dim-value-static-fusion.mlir --target=host -o %t/mixed
// RUN: fuse-compile %S/Inputs/dim-value-static-fusion.mlir --target=sm_90 -o %t/mixed-gpu
// RUN: FileCheck %s --check-prefix=MIXED-GPU < %t/mixed-gpu/bundle.txt
// RUN: not ls %t/host %t/gpu
// RUN: fuse-run %S/Inputs/dim-value-static-fusion.mlir --dim seq=3 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: fuse-run %S/Inputs/dim-value-static-fusion.mlir --dim seq=5 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=BOUND5
// RUN: sh -c 'fuse-run %s 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=UNBOUND
// RUN: sed -e 's/fuse.add %%x, %%n/fuse.add %%x, %%x/' %s > %t/dead.mlir
// RUN: fuse-compile %t/dead.mlir --target=host -o %t/dead
// RUN: FileCheck %s --check-prefix=DEAD < %t/dead/bundle.txt

func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {
  %n = fuse.dim_value {dim = #fuse.dims<seq>} : tensor<4xi64>
  %y = fuse.add %x, %n : tensor<4xi64>
  return %y : tensor<4xi64>
}

// CHECK: fuse-compile: error: {{.*}}compile-dim-value.mlir: the graph reads the value of dim 'seq' (a fuse.dim_value): bind the dims first (bindDims, fuse-run --dim): {{.*}}compile-dim-value.mlir:[[@LINE-5]]:8: 'fuse.dim_value' op reads the value of dim 'seq' as data, which
// CHECK-SAME: no input's shape gives
// CHECK-NOT: not elementwise
// CHECK: exit=1

// The exp over seq x 4 and the dim_value (a tensor<4xi64> of seq, once per
// binding of the dims: its grid is its 4 elements') take the dim.
// MIXED-GPU: kernels 3
// MIXED-GPU-NEXT: kernel 0 fuse_k0_pointwise schedule pointwise iterations seq*4 grid of 1024 per block, at most 4096 block 256 shared 0 dims seq
// MIXED-GPU: kernel 1 fuse_k1_pointwise schedule pointwise grid 1 block 256 shared 0 dims seq once per binding
// MIXED-GPU-NEXT: ops 1:dim_value
// MIXED-GPU: kernel 2 fuse_k2_pointwise schedule pointwise grid 1 block 256 shared 0{{$}}

// BOUND: symbolic dims bound for this run: seq=3
// BOUND-NOT: not every fusion
// BOUND: check: passed, 2 outputs match the reference
// BOUND: "compiled": {{[1-9][0-9]*}}, "cache_hits": 0, {{.*}}"dims": {"seq": 3}, "symbolic_bundle": true
// BOUND5: check: passed, 2 outputs match the reference
// BOUND5: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"seq": 5}, "symbolic_bundle": true

// UNBOUND: fuse-run: error: dim 'seq' of {{.*}} has no value
// UNBOUND: exit=2

// DEAD: kernels 1
// DEAD: ops 1:add
