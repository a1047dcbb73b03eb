// fuse-run --check on the transformer examples, end to end on the host: the
// MLP block in 2 matmul kernels, the BERT encoder layer in 7 (Q, K, V
// projections with the head split on the store, as one horizontal launch
// because they read one input; attention in one kernel
// (Q K^T with the scale and mask, softmax, P V), output projection with the
// heads merged on its load + residual, layernorm, FFN up + GELU, FFN down +
// residual, layernorm); both match the reference runtime.

// RUN: rm -rf %t.cache
// RUN: fuse-run %examples/mlp.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=MLP
// RUN: fuse-run %examples/encoder_layer.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=ENCODER

// MLP: plan: 2 kernels for 13 ops, target host-x86-64-v{{[34]}}
// MLP-NEXT: kernel 0 fuse_k0_matmul: matmul, 7 ops
// MLP-NEXT: ops matmul constant mul broadcast add constant max
// MLP-NEXT: kernel 1 fuse_k1_matmul: matmul, 6 ops
// MLP-NEXT: ops matmul constant mul broadcast add add
// MLP: output out0: tensor<64x128xf32>
// MLP: check out0: {{.*}}: ok
// MLP: check: passed, 1 outputs match the reference

// ENCODER: plan: 7 kernels for {{[0-9]+}} ops, target host-x86-64-v{{[34]}}
// ENCODER-NEXT: kernel 0 fuse_k0_horizontal: horizontal, 15 ops
// ENCODER-NEXT: ops matmul broadcast add reshape transpose matmul broadcast add reshape transpose matmul broadcast add reshape transpose
// ENCODER-NEXT: kernel 1 fuse_k1_attention: attention, 13 ops
// ENCODER-NEXT: ops matmul constant mul broadcast add reduce broadcast sub exp reduce broadcast div matmul
// ENCODER-NEXT: kernel 2 fuse_k2_matmul: matmul, 6 ops
// ENCODER-NEXT: ops transpose reshape matmul broadcast add add
// ENCODER: kernel 3 fuse_k3_rows: row-reduction
// ENCODER: kernel 6 fuse_k6_rows: row-reduction
// ENCODER-NOT: kernel 7
// ENCODER: output out0: tensor<64x128xf32>
// ENCODER: check out0: {{.*}}: ok
// ENCODER: check: passed, 1 outputs match the reference
