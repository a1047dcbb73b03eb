// Horizontal fusions on the host (fuse-horizontal-fusion), run against the
// reference runtime: matmul kernels that read one lhs run as one launch,
// their work items laid end to end.
//   Three matmuls of one 40 x 32 input: two with a transposed weight
//   (each packs B into its own part of one scratch first: two pack kernels,
//   then two matmul kernels) and one whose B a kernel before computes (a
//   sum), read as it is (one kernel). The pack kernels and the plain matmul
//   form the first launch, the two packed matmuls the second: the first
//   launch runs on every run (the plain matmul must), so the packs in it do
//   too. The third member's scratch lies at an offset in the shared scratch.
//   Where every member packs a weight (Q, K and V), the first launch runs
//   once per binding of the inputs (tools/run-models.mlir).
// (The Q, K and V projections of a transformer layer, with biases and head
// splits, are checked the same way in tools/run-models.mlir and
// onnx/examples.test.)

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=MIXED
// RUN: fuse-compile %s --emit=kernels | FileCheck %s --check-prefix=IR
// The fused module runs as written (GraphTranslation reads the nested
// fusions); the GPU compiler refuses a horizontal fusion by name.
// RUN: fuse-opt %s -fuse-fusion-pipeline -o %t/fused.mlir
// RUN: fuse-run %t/fused.mlir --check | FileCheck %s --check-prefix=FUSED
// RUN: not fuse-compile %t/fused.mlir --target=sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=GPU

// FUSED: check: passed, 3 outputs match the reference
// GPU: 'fuse.fusion' op has no GPU horizontal code generator

// MIXED: plan: 3 kernels for 4 ops
// MIXED: kernel 1 fuse_k1_horizontal_0: horizontal, 3 ops, reads {{[0-9]+}} B, writes {{[0-9]+}} B{{$}}
// MIXED-NEXT: ops matmul matmul matmul
// MIXED-NEXT: kernel 2 fuse_k1_horizontal_1: horizontal, 3 ops
// MIXED: check: passed, 3 outputs match the reference

// The launch functions call the members' kernels, each on its own range
// with its own buffer list.
// IR-LABEL: func.func @fuse_k1_horizontal_0(
// IR-DAG: call @fuse_k1_h0_pack(
// IR-DAG: call @fuse_k1_h1_matmul(
// IR-DAG: call @fuse_k1_h2_pack(
// IR-LABEL: func.func @fuse_k1_horizontal_1(
// IR-DAG: call @fuse_k1_h0_matmul(
// IR-DAG: call @fuse_k1_h2_matmul(

func.func @mixed(%x: tensor<40x32xf32>, %wa: tensor<48x32xf32>,
                 %wb2: tensor<2x32x40xf32>, %wc: tensor<56x32xf32>)
    -> (tensor<40x48xf32>, tensor<40x40xf32>, tensor<40x56xf32>) {
  %wb = fuse.reduce sum %wb2 dims = [0] : tensor<2x32x40xf32> -> tensor<32x40xf32>
  %a = fuse.matmul %x, %wa transpose_b : tensor<40x32xf32>, tensor<48x32xf32> -> tensor<40x48xf32>
  %b = fuse.matmul %x, %wb : tensor<40x32xf32>, tensor<32x40xf32> -> tensor<40x40xf32>
  %c = fuse.matmul %x, %wc transpose_b : tensor<40x32xf32>, tensor<56x32xf32> -> tensor<40x56xf32>
  return %a, %b, %c : tensor<40x48xf32>, tensor<40x40xf32>, tensor<40x56xf32>
}
