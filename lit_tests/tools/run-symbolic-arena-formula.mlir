// Issue 22: a symbolic bundle's arena as formulas over the dims. Two
// matmul chains, one over batch*sequence rows, one over sequence rows: the
// weights' packs are the bound part (exact: every size a multiple of the
// alignment), and the per-run intermediates (tanh of each first matmul)
// live at different launches, so the per-run live set is the max of two
// sums neither of which dominates the other. fuse-compile prints the
// formulas; fuse-run --print-plan and --json print the same ones at two
// bindings, with the bytes planned (different) and the formulas' values
// (the bound part is planned exactly as its formula says; the per-run part
// holds at least the live set).

// RUN: rm -rf %t && fuse-compile %s --target=host -o %t/bundle
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/bundle/bundle.txt
// RUN: fuse-run %s --dim batch=1 --dim sequence=7 --print-plan --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: fuse-run %s --dim batch=3 --dim sequence=50 --print-plan --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG

// BUNDLE: arena planned per binding of the dims: bound part batch*sequence*1280+sequence*2304+393216 B + per run at least max(batch*sequence*1024, sequence*2048) B{{$}}

// max(1*7*1024, 7*2048) = 14336; 7*1280 + 7*2304 + 393216 = 418304.
// SHORT: arena: bound part batch*sequence*1280+sequence*2304+393216 B + per run at least max(batch*sequence*1024, sequence*2048) B (planned [[PLANNED:[0-9]+]] B at batch=1, sequence=7: bound part 418304 B, per run {{[0-9]+}} B, live set 14336 B)
// SHORT: check: passed, 2 outputs match the reference
// SHORT: "arena": {"planned": [[PLANNED]], "bound": 418304, "bound_formula": "batch*sequence*1280+sequence*2304+393216", "bound_formula_exact": true, "per_run_formula": "max(batch*sequence*1024, sequence*2048)"}

// max(3*50*1024, 50*2048) = 153600; 150*1280 + 50*2304 + 393216 = 700416.
// LONG: arena: bound part batch*sequence*1280+sequence*2304+393216 B + per run at least max(batch*sequence*1024, sequence*2048) B (planned [[PLANNED:[0-9]+]] B at batch=3, sequence=50: bound part 700416 B, per run {{[0-9]+}} B, live set 153600 B)
// LONG: check: passed, 2 outputs match the reference
// LONG: "cache_hits": 1
// LONG-SAME: "arena": {"planned": [[PLANNED]], "bound": 700416, "bound_formula": "batch*sequence*1280+sequence*2304+393216", "bound_formula_exact": true, "per_run_formula": "max(batch*sequence*1024, sequence*2048)"}

func.func @two(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
               %z: tensor<?x64xf32, #fuse.dims<sequence>> {fuse.name = "z"},
               %w1: tensor<64x256xf32> {fuse.name = "w1"}, %w2: tensor<256x64xf32> {fuse.name = "w2"},
               %w3: tensor<64x512xf32> {fuse.name = "w3"}, %w4: tensor<512x64xf32> {fuse.name = "w4"})
    -> (tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "y"}, tensor<?x64xf32, #fuse.dims<sequence>> {fuse.name = "v"}) {
  %m1 = fuse.matmul %x, %w1 : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x256xf32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %t1 = fuse.tanh %m1 : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %y = fuse.matmul %t1, %w2 : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>, tensor<256x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %m3 = fuse.matmul %z, %w3 : tensor<?x64xf32, #fuse.dims<sequence>>, tensor<64x512xf32> -> tensor<?x512xf32, #fuse.dims<sequence>>
  %t3 = fuse.tanh %m3 : tensor<?x512xf32, #fuse.dims<sequence>>
  %v = fuse.matmul %t3, %w4 : tensor<?x512xf32, #fuse.dims<sequence>>, tensor<512x64xf32> -> tensor<?x64xf32, #fuse.dims<sequence>>
  return %y, %v : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x64xf32, #fuse.dims<sequence>>
}
