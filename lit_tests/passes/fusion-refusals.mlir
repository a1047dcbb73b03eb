// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// What must not fuse: each case has the kernel count its name implies, and
// the remark that explains the refusal.

// The call sits between %e and the add: one kernel for both would need the
// call's result before the kernel ends and give it its input only after.
// CHECK-LABEL: func.func @no_fusion_through_op_outside_region
// CHECK-COUNT-1: fuse.fusion pointwise
// CHECK: call @opaque
// CHECK-COUNT-1: fuse.fusion pointwise
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %0 (fuse.exp) into %2 (fuse.add): would create a cycle through %1 (func.call)
func.func private @opaque(tensor<8x32xf32>) -> tensor<8x32xf32>
func.func @no_fusion_through_op_outside_region(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %e = fuse.exp %x : tensor<8x32xf32>
  %c = func.call @opaque(%e) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = fuse.add %e, %c : tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// Row sums and column sums of one matrix: two kernels, the row sums feed the
// column reduction kernel, which also computes the final add.
// CHECK-LABEL: func.func @no_fusion_of_incompatible_reductions
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>)
// CHECK: %[[R:.*]] = fuse.fusion row_reduction(%[[X]]) : (tensor<8x32xf32>) -> tensor<8xf32>
// CHECK: fuse.fusion column_reduction(%[[X]], %[[R]])
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %0 (fuse.reduce) into %2 (fuse.broadcast): reductions over incompatible dimensions (row_reduction of 8x32 against column_reduction of 32x8)
func.func @no_fusion_of_incompatible_reductions(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %rs = fuse.reduce sum %x dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %cs = fuse.reduce sum %x dims = [0] : tensor<8x32xf32> -> tensor<32xf32>
  %rsb = fuse.broadcast %rs, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %csb = fuse.broadcast %cs, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %y = fuse.add %rsb, %csb : tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// 20 inputs summed in a chain: one kernel would have 21 operands, more than
// the default max-operands=16, so the chain is split in two.
// CHECK-LABEL: func.func @long_chain_split_by_operand_limit
// CHECK-COUNT-2: fuse.fusion pointwise
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused {{.*}} (fuse.add) into {{.*}} (fuse.add): the kernel would have 21 operands, more than max-operands=16
func.func @long_chain_split_by_operand_limit(
    %a0: tensor<64xf32>, %a1: tensor<64xf32>, %a2: tensor<64xf32>, %a3: tensor<64xf32>,
    %a4: tensor<64xf32>, %a5: tensor<64xf32>, %a6: tensor<64xf32>, %a7: tensor<64xf32>,
    %a8: tensor<64xf32>, %a9: tensor<64xf32>, %a10: tensor<64xf32>, %a11: tensor<64xf32>,
    %a12: tensor<64xf32>, %a13: tensor<64xf32>, %a14: tensor<64xf32>, %a15: tensor<64xf32>,
    %a16: tensor<64xf32>, %a17: tensor<64xf32>, %a18: tensor<64xf32>, %a19: tensor<64xf32>) -> tensor<64xf32> {
  %s1 = fuse.add %a0, %a1 : tensor<64xf32>
  %s2 = fuse.add %s1, %a2 : tensor<64xf32>
  %s3 = fuse.add %s2, %a3 : tensor<64xf32>
  %s4 = fuse.add %s3, %a4 : tensor<64xf32>
  %s5 = fuse.add %s4, %a5 : tensor<64xf32>
  %s6 = fuse.add %s5, %a6 : tensor<64xf32>
  %s7 = fuse.add %s6, %a7 : tensor<64xf32>
  %s8 = fuse.add %s7, %a8 : tensor<64xf32>
  %s9 = fuse.add %s8, %a9 : tensor<64xf32>
  %s10 = fuse.add %s9, %a10 : tensor<64xf32>
  %s11 = fuse.add %s10, %a11 : tensor<64xf32>
  %s12 = fuse.add %s11, %a12 : tensor<64xf32>
  %s13 = fuse.add %s12, %a13 : tensor<64xf32>
  %s14 = fuse.add %s13, %a14 : tensor<64xf32>
  %s15 = fuse.add %s14, %a15 : tensor<64xf32>
  %s16 = fuse.add %s15, %a16 : tensor<64xf32>
  %s17 = fuse.add %s16, %a17 : tensor<64xf32>
  %s18 = fuse.add %s17, %a18 : tensor<64xf32>
  %s19 = fuse.add %s18, %a19 : tensor<64xf32>
  return %s19 : tensor<64xf32>
}

// -----

// x + y as the prologue of x @ W: the matmul re-reads its left operand once
// per 64-column tile (4 times here), so the fused kernel would read both
// inputs 4 times: more than writing the sum once and re-reading it.
// CHECK-LABEL: func.func @matmul_prologue_that_multiplies_reads_left_out
// CHECK: %[[S:.*]] = fuse.fusion pointwise
// CHECK: fuse.fusion matmul(%[[S]],
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %0 (fuse.add) into %1 (fuse.matmul): the prologue would multiply the reads of matmul operand 0 (512 KiB fused against 464 KiB with the operand materialized)
func.func @matmul_prologue_that_multiplies_reads_left_out(%x: tensor<256x64xf32>, %y: tensor<256x64xf32>, %w: tensor<64x256xf32>) -> tensor<256x256xf32> {
  %s = fuse.add %x, %y : tensor<256x64xf32>
  %m = fuse.matmul %s, %w : tensor<256x64xf32>, tensor<64x256xf32> -> tensor<256x256xf32>
  return %m : tensor<256x256xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_prologue_exp_left_out
// CHECK: %[[E:.*]] = fuse.fusion pointwise
// CHECK: fuse.fusion matmul(%[[E]],
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %0 (fuse.exp) into %1 (fuse.matmul): would recompute fuse.exp for every tile of the matmul
func.func @matmul_prologue_exp_left_out(%x: tensor<8x32xf32>, %w: tensor<32x32xf32>) -> tensor<8x32xf32> {
  %e = fuse.exp %x : tensor<8x32xf32>
  %m = fuse.matmul %e, %w : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_not_fused_into_matmul_operand
// CHECK: %[[P:.*]] = fuse.fusion row_reduction
// CHECK: fuse.fusion matmul(%[[P]],
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %6 (fuse.div) into %7 (fuse.matmul): would recompute a reduction for every tile of the matmul
func.func @softmax_not_fused_into_matmul_operand(%x: tensor<8x16xf32>, %v: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %m = fuse.reduce max %x dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %mb = fuse.broadcast %m, dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %s = fuse.sub %x, %mb : tensor<8x16xf32>
  %e = fuse.exp %s : tensor<8x16xf32>
  %sum = fuse.reduce sum %e dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %sb = fuse.broadcast %sum, dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %p = fuse.div %e, %sb : tensor<8x16xf32>
  %o = fuse.matmul %p, %v : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %o : tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @reduction_not_fused_into_matmul_epilogue
// CHECK: %[[M:.*]] = fuse.fusion matmul
// CHECK: fuse.fusion row_reduction(%[[M]])
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %0 (fuse.matmul) into %1 (fuse.reduce): a matmul epilogue is elementwise, fuse.reduce is a reduction
func.func @reduction_not_fused_into_matmul_epilogue(%x: tensor<8x32xf32>, %w: tensor<32x32xf32>) -> tensor<8xf32> {
  %m = fuse.matmul %x, %w : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %s = fuse.reduce sum %m dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @two_matmuls_not_fused
// CHECK-COUNT-2: fuse.fusion matmul
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %0 (fuse.matmul) into %1 (fuse.matmul): a kernel holds at most one matmul
func.func @two_matmuls_not_fused(%x: tensor<8x32xf32>, %w1: tensor<32x32xf32>, %w2: tensor<32x32xf32>) -> tensor<8x32xf32> {
  %0 = fuse.matmul %x, %w1 : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %1 = fuse.matmul %0, %w2 : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// -----

// exp of the bias would run once per row in a kernel over the whole matrix:
// it stays a kernel of its own and the consumer reads its 32 results.
// CHECK-LABEL: func.func @small_producer_of_broadcast_not_recomputed
// CHECK: %[[E:.*]] = fuse.fusion pointwise({{.*}}) : (tensor<32xf32>) -> tensor<32xf32>
// CHECK: fuse.fusion pointwise({{.*}}%[[E]]{{.*}}) : {{.*}} -> tensor<8x32xf32>
// CHECK-NOT: fuse.fusion
// EXPLAIN: remark: not fused %0 (fuse.exp) into %1 (fuse.broadcast): fuse.exp iterates over 32 elements, the pointwise kernel over 256: it would be recomputed
func.func @small_producer_of_broadcast_not_recomputed(%x: tensor<8x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %e = fuse.exp %b : tensor<32xf32>
  %eb = fuse.broadcast %e, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %y = fuse.add %x, %eb : tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
