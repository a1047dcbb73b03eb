// A matmul whose rows are a runtime dim (the runtime-rows form) at one row,
// as a decoder's step has it: a chunk of one row takes a tile of one row,
// not a block of six clamped to it (which computed the row six times, as
// long as six rows take). An MLP of two weights with a bias, a relu and a
// residual, N = 200 for a tail of 8 lanes, checked against the reference at
// 1 row (the one-row tile), 7 rows (one chunk: a block of six, then a block
// clamped to the last row) and 13 rows at 3 threads (chunks of 12 rows and
// of one row, which takes the one-row tile), from one compile. --check's
// guarded run must find every guard intact: the one-row tile without its
// tail mask (32 bytes past y's end) passed the comparison and failed this.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --dim rows=1 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: fuse-run %s --dim rows=7 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SEVEN
// RUN: fuse-run %s --dim rows=13 --threads 3 --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=THIRTEEN

// ONE: output y: tensor<1x200xf32>
// ONE: check: passed, 1 outputs match the reference
// ONE-NEXT: check guards: {{[0-9]+}} guards around the buffers of {{[0-9]+}} kernel launch(es) intact
// ONE: "cache_hits": 0, {{.*}}"symbolic_bundle": true
// SEVEN: output y: tensor<7x200xf32>
// SEVEN: check: passed, 1 outputs match the reference
// SEVEN-NEXT: check guards: {{[0-9]+}} guards around the buffers of {{[0-9]+}} kernel launch(es) intact
// SEVEN: "compiled": 0, "cache_hits": 1, {{.*}}"symbolic_bundle": true
// THIRTEEN: output y: tensor<13x200xf32>
// THIRTEEN: check: passed, 1 outputs match the reference
// THIRTEEN-NEXT: check guards: {{[0-9]+}} guards around the buffers of {{[0-9]+}} kernel launch(es) intact
// THIRTEEN: "compiled": 0, "cache_hits": 1, {{.*}}"symbolic_bundle": true

func.func @mlp(%x: tensor<?x256xf32, #fuse.dims<rows>> {fuse.name = "x"},
               %w1: tensor<256x320xf32> {fuse.name = "w1"},
               %b1: tensor<320xf32> {fuse.name = "b1"},
               %w2: tensor<320x200xf32> {fuse.name = "w2"},
               %r: tensor<?x200xf32, #fuse.dims<rows>> {fuse.name = "r"})
    -> (tensor<?x200xf32, #fuse.dims<rows>> {fuse.name = "y"}) {
  %h = fuse.matmul %x, %w1 : tensor<?x256xf32, #fuse.dims<rows>>, tensor<256x320xf32> -> tensor<?x320xf32, #fuse.dims<rows>>
  %bb = fuse.broadcast %b1, dims = [1] : tensor<320xf32> -> tensor<?x320xf32, #fuse.dims<rows>>
  %hb = fuse.add %h, %bb : tensor<?x320xf32, #fuse.dims<rows>>
  %z = fuse.constant dense<0.0> : tensor<f32>
  %zb = fuse.broadcast %z, dims = [] : tensor<f32> -> tensor<?x320xf32, #fuse.dims<rows>>
  %a = fuse.max %hb, %zb : tensor<?x320xf32, #fuse.dims<rows>>
  %o = fuse.matmul %a, %w2 : tensor<?x320xf32, #fuse.dims<rows>>, tensor<320x200xf32> -> tensor<?x200xf32, #fuse.dims<rows>>
  %y = fuse.add %o, %r : tensor<?x200xf32, #fuse.dims<rows>>
  return %y : tensor<?x200xf32, #fuse.dims<rows>>
}
