// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s
// RUN: fuse-opt %s -fuse-fusion-pipeline | FileCheck %s --check-prefix=COUNT
// RUN: fuse-opt %s -fuse-fusion-pipeline=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Softmax cross-entropy of a batch of 8 over 16 classes with one-hot labels:
// loss = mean over the batch of -sum(labels * log_softmax(logits)).
// Two kernels:
//   1  a row reduction: log-softmax (max, exp, sum, log) and the per-row
//      dot product with the labels, three reductions over the same rows;
//   2  a full reduction: the negated mean over the 8 rows.
// The batch mean reduces across the rows that kernel 1 spreads over thread
// blocks; one kernel would need a reduction across blocks, so the cost model
// refuses to put reductions over other dimensions in one kernel. Between the
// two, 8 floats (32 B) go through memory.

// COUNT-LABEL: func.func @softmax_cross_entropy
// COUNT-COUNT-2: fuse.fusion
// COUNT-NOT: fuse.fusion

// CHECK-LABEL: func.func @softmax_cross_entropy
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<8x16xf32>, %[[LABELS:.*]]: tensor<8x16xf32>)
// CHECK: %[[ROWS:.*]] = fuse.fusion row_reduction(%[[LOGITS]], %[[LABELS]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8xf32>
// CHECK-COUNT-3: fuse.reduce
// CHECK: %[[LOSS:.*]] = fuse.fusion full_reduction(%[[ROWS]]) : (tensor<8xf32>) -> tensor<f32>
// CHECK: fuse.neg
// CHECK: fuse.reduce mean
// CHECK: return %[[LOSS]]

// EXPLAIN: remark: not fused %{{[0-9]+}} (fuse.reduce) into %{{[0-9]+}} (fuse.neg): reductions over incompatible dimensions (row_reduction of 8x16 against full_reduction of 1x8)
func.func @softmax_cross_entropy(%logits: tensor<8x16xf32>, %labels: tensor<8x16xf32>) -> tensor<f32> {
  %m = fuse.reduce max %logits dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %mb = fuse.broadcast %m, dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %s = fuse.sub %logits, %mb : tensor<8x16xf32>
  %e = fuse.exp %s : tensor<8x16xf32>
  %sum = fuse.reduce sum %e dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %lse = fuse.log %sum : tensor<8xf32>
  %lseb = fuse.broadcast %lse, dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %logp = fuse.sub %s, %lseb : tensor<8x16xf32>
  %prod = fuse.mul %labels, %logp : tensor<8x16xf32>
  %nll = fuse.reduce sum %prod dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %neg = fuse.neg %nll : tensor<8xf32>
  %loss = fuse.reduce mean %neg dims = [0] : tensor<8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
