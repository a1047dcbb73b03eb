// Every example graph goes through fusion and GPU code generation for sm_90
// and sm_80: the encoder layer's 9 kernels (6 matmuls with prologues and
// epilogues, head splits and merges included, the attention kernel with
// the scores in shared memory, and 2 row kernels), the MLP's
// 2, softmax, layernorm, GELU and the sum of squares. fuse-compile runs
// ptxas -v on every kernel (--timings prints its report): none spills.

// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: fuse-compile %S/../../examples/encoder_layer.mlir --target=sm_90 -o %t/enc90 --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=ENCODER < %t/enc90/bundle.txt
// RUN: fuse-compile %S/../../examples/encoder_layer.mlir --target=sm_80 -o %t/enc80 --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=ENCODER < %t/enc80/bundle.txt
// RUN: fuse-compile %S/../../examples/mlp.mlir --target=sm_90 -o %t/mlp --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=MLP < %t/mlp/bundle.txt
// RUN: fuse-compile %S/../../examples/softmax.mlir --target=sm_80 -o %t/softmax --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuse-compile %S/../../examples/layernorm.mlir --target=sm_90 -o %t/layernorm --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuse-compile %S/../../examples/gelu_bias.mlir --target=sm_90 -o %t/gelu_bias --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuse-compile %S/../../examples/sum_squares.mlir --target=sm_80 -o %t/sum_squares --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: ls %t/enc90 | FileCheck %s --check-prefix=FILES

// NOSPILL: total
// NOSPILL: Compiling entry function
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}

// ENCODER: kernels 9
// ENCODER-COUNT-3: schedule matmul
// ENCODER: kernel 3 fuse_k3_attention schedule attention
// ENCODER-COUNT-3: schedule matmul
// ENCODER-NOT: schedule pointwise

// MLP: kernels 2
// MLP: kernel 0 fuse_k0_matmul schedule matmul
// MLP: kernel 1 fuse_k1_matmul schedule matmul

// FILES: bundle.txt
// FILES: fuse_k0_matmul.cubin
// FILES: fuse_k0_matmul.ptx
