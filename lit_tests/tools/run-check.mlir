// fuse-run --check on the example models: each runs on the host runtime,
// matches the reference runtime under the numerics policy, and has the
// kernel count of the fusion pipeline (softmax, layernorm and gelu: one
// kernel each; sum of squares: the two stages of a full reduction).

// RUN: rm -rf %t.cache
// RUN: fuse-run %examples/softmax.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=SOFTMAX
// RUN: fuse-run %examples/layernorm.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=LAYERNORM
// RUN: fuse-run %examples/gelu.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=GELU
// RUN: fuse-run %examples/sum_squares.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=SUMSQ
// RUN: fuse-run %examples/softmax.mlir --check --runtime reference --print-plan | FileCheck %s --check-prefix=REFERENCE

// SOFTMAX: plan: 1 kernel for 7 ops, target host-x86-64-v{{[34]}}
// SOFTMAX-NEXT: kernel 0 fuse_k0_rows: row-reduction, 7 ops, reads 32768 B, writes 32768 B
// SOFTMAX-NEXT: ops reduce broadcast sub exp reduce broadcast div
// SOFTMAX: output out0: tensor<32x256xf32>
// SOFTMAX: check out0: max abs error {{.*}}, max rel error {{.*}}: ok
// SOFTMAX: check: passed, 1 outputs match the reference

// LAYERNORM: plan: 1 kernel for 14 ops
// LAYERNORM-NEXT: kernel 0 fuse_k0_rows: row-reduction, 14 ops, reads 34816 B, writes 32768 B
// LAYERNORM-NEXT: ops reduce broadcast sub mul reduce constant add rsqrt broadcast mul broadcast broadcast mul add
// LAYERNORM: check out0: {{.*}}: ok
// LAYERNORM: check: passed

// GELU: plan: 1 kernel for 13 ops
// GELU-NEXT: kernel 0 fuse_k0_pointwise: pointwise, 13 ops
// GELU-NEXT: ops constant constant constant constant mul mul mul add mul tanh add mul mul
// GELU: check out0: {{.*}}: ok
// GELU: check: passed

// SUMSQ: plan: 2 kernels for 2 ops
// SUMSQ-NEXT: kernel 0 fuse_k0_partials: full-reduction
// SUMSQ: kernel 1 fuse_k0_finish: full-reduction
// SUMSQ: output out0: tensor<f32>
// SUMSQ: check out0: {{.*}}: ok
// SUMSQ: check: passed

// REFERENCE: plan: 1 kernel for 7 ops, target reference
// REFERENCE-NEXT: kernel 0 {{.*}}: reference-only, 7 ops
// REFERENCE: check: passed
