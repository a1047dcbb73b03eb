// RUN: fuse-opt %s | FileCheck %s
// RUN: fuse-opt %s | fuse-opt | FileCheck %s

// Symbolic dims (issue 22): a `?` is named by the type's #fuse.dims
// encoding, and the verifiers compare and rearrange named dims as static
// ones (reshape and concat as polynomials).

// CHECK-LABEL: func.func @layer
// CHECK-SAME: tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
func.func @layer(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>>,
                 %w: tensor<64x64xf32>, %b: tensor<64xf32>)
    -> tensor<?x64xf32, #fuse.dims<batch*sequence>> {
  // CHECK: fuse.matmul {{.*}} -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %m = fuse.matmul %x, %w : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %bb = fuse.broadcast %b, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.add %m, %bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %s : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  // CHECK: fuse.reduce max %{{.*}} dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %r = fuse.reduce max %t dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  // CHECK: fuse.reshape {{.*}} -> tensor<?x64xf32, #fuse.dims<batch*sequence>>
  %f = fuse.reshape %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x64xf32, #fuse.dims<batch*sequence>>
  return %f : tensor<?x64xf32, #fuse.dims<batch*sequence>>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<?x8xf32, #fuse.dims<sequence>>)
    -> tensor<?x8xf32, #fuse.dims<sequence*2 + 1>> {
  // CHECK: fuse.transpose {{.*}} -> tensor<8x?xf32, #fuse.dims<sequence>>
  %t = fuse.transpose %x, permutation = [1, 0] : tensor<?x8xf32, #fuse.dims<sequence>> -> tensor<8x?xf32, #fuse.dims<sequence>>
  // A part of a symbolic dim that fits for every value: sequence - 1 rows
  // from offset 1.
  // CHECK: fuse.slice {{.*}} sizes = [-1, 8] {{.*}} -> tensor<?x8xf32, #fuse.dims<sequence - 1>>
  %s = fuse.slice %x offsets = [1, 0] sizes = [-1, 8] strides = [1, 1] : tensor<?x8xf32, #fuse.dims<sequence>> -> tensor<?x8xf32, #fuse.dims<sequence - 1>>
  %one = fuse.constant dense<1.0> : tensor<2x8xf32>
  // CHECK: fuse.concat {{.*}} -> tensor<?x8xf32, #fuse.dims<sequence*2 + 1>>
  %c = fuse.concat %x, %s, %one axis = 0 : tensor<?x8xf32, #fuse.dims<sequence>>, tensor<?x8xf32, #fuse.dims<sequence - 1>>, tensor<2x8xf32> -> tensor<?x8xf32, #fuse.dims<sequence*2 + 1>>
  return %c : tensor<?x8xf32, #fuse.dims<sequence*2 + 1>>
}

// CHECK-LABEL: func.func @indices
func.func @indices() -> (tensor<?xi64, #fuse.dims<"sequence length">>, tensor<i64>, tensor<i64>) {
  // CHECK: fuse.iota axis = 0 : tensor<?xi64, #fuse.dims<"sequence length">>
  %i = fuse.iota axis = 0 : tensor<?xi64, #fuse.dims<"sequence length">>
  // CHECK: fuse.dim_value {dim = #fuse.dims<batch*"sequence length"*3 - 1>} : tensor<i64>
  %n = fuse.dim_value {dim = #fuse.dims<3 * "sequence length" * batch - 1>} : tensor<i64>
  // CHECK: fuse.dim_value {dim = #fuse.dims<7>} : tensor<i64>
  %k = fuse.dim_value {dim = #fuse.dims<7>} : tensor<i64>
  return %i, %n, %k : tensor<?xi64, #fuse.dims<"sequence length">>, tensor<i64>, tensor<i64>
}

// Predicates keep the operand's named dims: i1 of its shape.
// CHECK-LABEL: func.func @predicates
func.func @predicates(%x: tensor<?x8xf32, #fuse.dims<sequence>>, %y: tensor<?x8xf32, #fuse.dims<sequence>>)
    -> tensor<?x8xi32, #fuse.dims<sequence>> {
  // CHECK: fuse.compare lt, {{.*}} : tensor<?x8xf32, #fuse.dims<sequence>>
  %lt = fuse.compare lt, %x, %y : tensor<?x8xf32, #fuse.dims<sequence>>
  // CHECK: fuse.isnan {{.*}} : tensor<?x8xf32, #fuse.dims<sequence>>
  %nan = fuse.isnan %x : tensor<?x8xf32, #fuse.dims<sequence>>
  // CHECK: fuse.isinf {{.*}} : tensor<?x8xf32, #fuse.dims<sequence>>
  %inf = fuse.isinf %x : tensor<?x8xf32, #fuse.dims<sequence>>
  %m = fuse.or %lt, %nan : tensor<?x8xi1, #fuse.dims<sequence>>
  %n = fuse.or %m, %inf : tensor<?x8xi1, #fuse.dims<sequence>>
  // CHECK: fuse.select {{.*}} : tensor<?x8xi1, #fuse.dims<sequence>>, tensor<?x8xf32, #fuse.dims<sequence>>
  %s = fuse.select %n, %x, %y : tensor<?x8xi1, #fuse.dims<sequence>>, tensor<?x8xf32, #fuse.dims<sequence>>
  // CHECK: fuse.cast {{.*}} : tensor<?x8xf32, #fuse.dims<sequence>> to tensor<?x8xi32, #fuse.dims<sequence>>
  %c = fuse.cast %s : tensor<?x8xf32, #fuse.dims<sequence>> to tensor<?x8xi32, #fuse.dims<sequence>>
  return %c : tensor<?x8xi32, #fuse.dims<sequence>>
}
