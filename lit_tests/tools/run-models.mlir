// fuse-run --check on the transformer examples, end to end on the host: the
// MLP block in 2 matmul kernels, the BERT encoder layer in 7 (Q, K, V
// projections with the head split on the store, as one horizontal launch
// because they read one input; attention in one kernel
// (Q K^T with the scale and mask, softmax, P V), output projection with the
// heads merged on its load + residual, layernorm, FFN up + GELU, FFN down +
// residual, layernorm); both match the reference runtime. Each weight (a
// graph input) is packed by a kernel before its matmul that runs once per
// binding of the inputs, not on every run: for Q, K and V, one horizontal
// launch of the three packs.

// RUN: rm -rf %t.cache
// RUN: fuse-run %examples/mlp.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=MLP
// RUN: fuse-run %examples/encoder_layer.mlir --check --print-plan --cache-dir %t.cache | FileCheck %s --check-prefix=ENCODER

// MLP: plan: 4 kernels for 13 ops, target host-x86-64-v{{[34]}}, 2 once per binding of the inputs
// MLP-NEXT: kernel 0 fuse_k0_pack: matmul, 7 ops, {{.*}}, once per binding of the inputs
// MLP-NEXT: ops matmul constant mul broadcast add constant max
// MLP-NEXT: kernel 1 fuse_k0_matmul: matmul, 7 ops, reads {{[0-9]+}} B, writes {{[0-9]+}} B{{$}}
// MLP-NEXT: ops matmul constant mul broadcast add constant max
// MLP-NEXT: kernel 2 fuse_k2_pack: matmul, 6 ops, {{.*}}, once per binding of the inputs
// MLP-NEXT: ops matmul constant mul broadcast add add
// MLP-NEXT: kernel 3 fuse_k2_matmul: matmul, 6 ops, reads {{[0-9]+}} B, writes {{[0-9]+}} B{{$}}
// MLP-NEXT: ops matmul constant mul broadcast add add
// MLP: output out0: tensor<64x128xf32>
// MLP: check out0: {{.*}}: ok
// MLP: check: passed, 1 outputs match the reference

// ENCODER: plan: 11 kernels for {{[0-9]+}} ops, target host-x86-64-v{{[34]}}, {{[0-9]+}} distinct, 4 once per binding of the inputs
// ENCODER-NEXT: kernel 0 fuse_k0_horizontal_0: horizontal, 15 ops, {{.*}}, once per binding of the inputs
// ENCODER-NEXT: ops matmul broadcast add reshape transpose matmul broadcast add reshape transpose matmul broadcast add reshape transpose
// ENCODER-NEXT: kernel 1 fuse_k0_horizontal_1: horizontal, 15 ops, reads {{[0-9]+}} B, writes {{[0-9]+}} B{{$}}
// ENCODER-NEXT: ops matmul broadcast add reshape transpose matmul broadcast add reshape transpose matmul broadcast add reshape transpose
// ENCODER-NEXT: kernel 2 fuse_k2_attention: attention, 13 ops
// ENCODER-NEXT: ops matmul constant mul broadcast add reduce broadcast sub exp reduce broadcast div matmul
// ENCODER-NEXT: kernel 3 fuse_k3_pack: matmul, 6 ops, {{.*}}, once per binding of the inputs
// ENCODER-NEXT: ops transpose reshape matmul broadcast add add
// ENCODER-NEXT: kernel 4 fuse_k3_matmul: matmul, 6 ops
// ENCODER: kernel 5 fuse_k5_rows: row-reduction
// ENCODER: kernel 10 fuse_k10_rows: row-reduction
// ENCODER-NOT: kernel 11
// ENCODER: output out0: tensor<64x128xf32>
// ENCODER: check out0: {{.*}}: ok
// ENCODER: check: passed, 1 outputs match the reference
