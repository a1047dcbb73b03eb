// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s --check-prefix=COUNT

// What must fuse: each case comes out in the kernel count its name says. The
// COUNT prefix checks exact counts, the CHECK prefix the kernels' contents.

// GELU, tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
// COUNT-LABEL: func.func @gelu_tanh_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @gelu_tanh_one_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>)
// CHECK: %[[R:.*]] = fuse.fusion pointwise(%[[X]]) : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK: fuse.tanh
// CHECK: fuse.yield
// CHECK: return %[[R]]
func.func @gelu_tanh_one_kernel(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %c0 = fuse.constant dense<0.044715> : tensor<8x64xf32>
  %c1 = fuse.constant dense<0.797884583> : tensor<8x64xf32>
  %one = fuse.constant dense<1.0> : tensor<8x64xf32>
  %half = fuse.constant dense<0.5> : tensor<8x64xf32>
  %x2 = fuse.mul %x, %x : tensor<8x64xf32>
  %x3 = fuse.mul %x2, %x : tensor<8x64xf32>
  %t0 = fuse.mul %x3, %c0 : tensor<8x64xf32>
  %t1 = fuse.add %x, %t0 : tensor<8x64xf32>
  %t2 = fuse.mul %t1, %c1 : tensor<8x64xf32>
  %t3 = fuse.tanh %t2 : tensor<8x64xf32>
  %t4 = fuse.add %t3, %one : tensor<8x64xf32>
  %t5 = fuse.mul %x, %half : tensor<8x64xf32>
  %y = fuse.mul %t5, %t4 : tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// a * b + c with c a bias row broadcast over the rows: the kernel reads the
// 32-element bias, not a broadcast copy.
// COUNT-LABEL: func.func @mul_add_broadcast_bias_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @mul_add_broadcast_bias_one_kernel
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf32>, %[[B:.*]]: tensor<8x32xf32>, %[[C:.*]]: tensor<32xf32>)
// CHECK: fuse.fusion pointwise(%[[A]], %[[B]], %[[C]]) : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
// CHECK: fuse.mul
// CHECK: fuse.broadcast
// CHECK: fuse.add
func.func @mul_add_broadcast_bias_one_kernel(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>, %c: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = fuse.mul %a, %b : tensor<8x32xf32>
  %1 = fuse.broadcast %c, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %2 = fuse.add %0, %1 : tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

// -----

// COUNT-LABEL: func.func @sum_of_squares_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @sum_of_squares_one_kernel
// CHECK: fuse.fusion row_reduction
// CHECK: fuse.mul
// CHECK: fuse.reduce sum
func.func @sum_of_squares_one_kernel(%x: tensor<8x32xf32>) -> tensor<8xf32> {
  %0 = fuse.mul %x, %x : tensor<8x32xf32>
  %1 = fuse.reduce sum %0 dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// COUNT-LABEL: func.func @mean_of_exp_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @mean_of_exp_one_kernel
// CHECK: fuse.fusion full_reduction
// CHECK: fuse.exp
// CHECK: fuse.reduce mean
func.func @mean_of_exp_one_kernel(%x: tensor<16x32xf32>) -> tensor<f32> {
  %0 = fuse.exp %x : tensor<16x32xf32>
  %1 = fuse.reduce mean %0 dims = [0, 1] : tensor<16x32xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// The square root runs on the reduced value, in the same kernel.
// COUNT-LABEL: func.func @l2_norm_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @l2_norm_one_kernel
// CHECK: fuse.fusion full_reduction
// CHECK: fuse.mul
// CHECK: fuse.reduce sum
// CHECK: fuse.sqrt
func.func @l2_norm_one_kernel(%x: tensor<256xf32>) -> tensor<f32> {
  %0 = fuse.mul %x, %x : tensor<256xf32>
  %1 = fuse.reduce sum %0 dims = [0] : tensor<256xf32> -> tensor<f32>
  %2 = fuse.sqrt %1 : tensor<f32>
  return %2 : tensor<f32>
}

// -----

// COUNT-LABEL: func.func @softmax_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @softmax_one_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[R:.*]] = fuse.fusion row_reduction(%[[X]]) : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK: fuse.reduce max
// CHECK: fuse.exp
// CHECK: fuse.reduce sum
// CHECK: fuse.div
// CHECK: return %[[R]]
func.func @softmax_one_kernel(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %m = fuse.reduce max %x dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %mb = fuse.broadcast %m, dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %s = fuse.sub %x, %mb : tensor<8x16xf32>
  %e = fuse.exp %s : tensor<8x16xf32>
  %sum = fuse.reduce sum %e dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %sb = fuse.broadcast %sum, dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %p = fuse.div %e, %sb : tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

// COUNT-LABEL: func.func @log_softmax_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @log_softmax_one_kernel
// CHECK: fuse.fusion row_reduction
// CHECK: fuse.reduce max
// CHECK: fuse.reduce sum
// CHECK: fuse.log
func.func @log_softmax_one_kernel(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %m = fuse.reduce max %x dims = [1] keep_dims : tensor<8x16xf32> -> tensor<8x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
  %s = fuse.sub %x, %mb : tensor<8x16xf32>
  %e = fuse.exp %s : tensor<8x16xf32>
  %sum = fuse.reduce sum %e dims = [1] keep_dims : tensor<8x16xf32> -> tensor<8x1xf32>
  %l = fuse.log %sum : tensor<8x1xf32>
  %lb = fuse.broadcast %l, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
  %y = fuse.sub %s, %lb : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Mean, variance, normalize, scale, shift.
// COUNT-LABEL: func.func @layernorm_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @layernorm_one_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[G:.*]]: tensor<32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: fuse.fusion row_reduction(%[[X]], %[[G]], %[[B]])
// CHECK-COUNT-2: fuse.reduce mean
// CHECK: fuse.rsqrt
func.func @layernorm_one_kernel(%x: tensor<8x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %mean = fuse.reduce mean %x dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %meanb = fuse.broadcast %mean, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %d = fuse.sub %x, %meanb : tensor<8x32xf32>
  %d2 = fuse.mul %d, %d : tensor<8x32xf32>
  %var = fuse.reduce mean %d2 dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %eps = fuse.constant dense<1.0e-5> : tensor<8xf32>
  %ve = fuse.add %var, %eps : tensor<8xf32>
  %rstd = fuse.rsqrt %ve : tensor<8xf32>
  %rb = fuse.broadcast %rstd, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %n = fuse.mul %d, %rb : tensor<8x32xf32>
  %gb = fuse.broadcast %g, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %s = fuse.mul %n, %gb : tensor<8x32xf32>
  %bb = fuse.broadcast %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %y = fuse.add %s, %bb : tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// COUNT-LABEL: func.func @rmsnorm_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @rmsnorm_one_kernel
// CHECK: fuse.fusion row_reduction
// CHECK: fuse.reduce mean
// CHECK: fuse.rsqrt
func.func @rmsnorm_one_kernel(%x: tensor<8x32xf32>, %g: tensor<32xf32>) -> tensor<8x32xf32> {
  %x2 = fuse.mul %x, %x : tensor<8x32xf32>
  %ms = fuse.reduce mean %x2 dims = [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  %eps = fuse.constant dense<1.0e-6> : tensor<8x1xf32>
  %me = fuse.add %ms, %eps : tensor<8x1xf32>
  %r = fuse.rsqrt %me : tensor<8x1xf32>
  %rb = fuse.broadcast %r, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x32xf32>
  %n = fuse.mul %x, %rb : tensor<8x32xf32>
  %gb = fuse.broadcast %g, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %y = fuse.mul %n, %gb : tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// relu(x @ W + b)
// COUNT-LABEL: func.func @matmul_bias_relu_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @matmul_bias_relu_one_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK: fuse.fusion matmul(%[[X]], %[[W]], %[[B]])
// CHECK: fuse.matmul
// CHECK: fuse.add
// CHECK: fuse.max
func.func @matmul_bias_relu_one_kernel(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<8x64xf32> {
  %0 = fuse.matmul %x, %w : tensor<8x32xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
  %1 = fuse.broadcast %b, dims = [1] : tensor<64xf32> -> tensor<8x64xf32>
  %2 = fuse.add %0, %1 : tensor<8x64xf32>
  %zero = fuse.constant dense<0.0> : tensor<8x64xf32>
  %3 = fuse.max %2, %zero : tensor<8x64xf32>
  return %3 : tensor<8x64xf32>
}

// -----

// x @ W + b + residual
// COUNT-LABEL: func.func @matmul_bias_residual_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @matmul_bias_residual_one_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<32x32xf32>, %[[B:.*]]: tensor<32xf32>, %[[R:.*]]: tensor<8x32xf32>)
// CHECK: fuse.fusion matmul(%[[X]], %[[W]], %[[B]], %[[R]])
func.func @matmul_bias_residual_one_kernel(%x: tensor<8x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %r: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = fuse.matmul %x, %w : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %1 = fuse.broadcast %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %2 = fuse.add %0, %1 : tensor<8x32xf32>
  %3 = fuse.add %2, %r : tensor<8x32xf32>
  return %3 : tensor<8x32xf32>
}

// -----

// Attention's head split and merge cost no kernel: the reshapes and transposes
// of the operands and of the result are index maps of the one matmul kernel.
// COUNT-LABEL: func.func @matmul_head_split_and_merge_are_index_maps
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @matmul_head_split_and_merge_are_index_maps
// CHECK-SAME: (%[[Q:.*]]: tensor<8x32xf32>, %[[K:.*]]: tensor<8x32xf32>)
// CHECK: fuse.fusion matmul(%[[Q]], %[[K]]) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK-COUNT-2: fuse.transpose
// CHECK: fuse.matmul
// CHECK: fuse.transpose
// CHECK: fuse.reshape
func.func @matmul_head_split_and_merge_are_index_maps(%q: tensor<8x32xf32>, %k: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %q1 = fuse.reshape %q : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %q2 = fuse.transpose %q1, permutation = [1, 0, 2] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %k1 = fuse.reshape %k : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %k2 = fuse.transpose %k1, permutation = [1, 2, 0] : tensor<8x4x8xf32> -> tensor<4x8x8xf32>
  %s = fuse.matmul %q2, %k2 : tensor<4x8x8xf32>, tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  %o1 = fuse.transpose %s, permutation = [1, 0, 2] : tensor<4x8x8xf32> -> tensor<8x4x8xf32>
  %o2 = fuse.reshape %o1 : tensor<8x4x8xf32> -> tensor<8x32xf32>
  return %o2 : tensor<8x32xf32>
}

// -----

// A scale and a cast on matmul operands read no more than the operand itself:
// they become the kernel's prologue.
// COUNT-LABEL: func.func @matmul_scale_and_cast_prologue_one_kernel
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @matmul_scale_and_cast_prologue_one_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<32x64xf16>)
// CHECK: fuse.fusion matmul(%[[X]], %[[W]]) : (tensor<8x32xf32>, tensor<32x64xf16>) -> tensor<8x64xf32>
// CHECK: fuse.mul
// CHECK: fuse.cast
// CHECK: fuse.matmul
func.func @matmul_scale_and_cast_prologue_one_kernel(%x: tensor<8x32xf32>, %w: tensor<32x64xf16>) -> tensor<8x64xf32> {
  %scale = fuse.constant dense<0.125> : tensor<8x32xf32>
  %xs = fuse.mul %x, %scale : tensor<8x32xf32>
  %wf = fuse.cast %w : tensor<32x64xf16> to tensor<32x64xf32>
  %y = fuse.matmul %xs, %wf : tensor<8x32xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// %e is needed inside the kernel and after it: the kernel yields it (one
// read of %x, nothing computed twice).
// COUNT-LABEL: func.func @multi_output_yields_value_needed_after
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @multi_output_yields_value_needed_after
// CHECK: %[[R:.*]]:2 = fuse.fusion row_reduction({{.*}}) : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>)
// CHECK-COUNT-1: fuse.exp
// CHECK: fuse.yield
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @multi_output_yields_value_needed_after(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %e = fuse.exp %x : tensor<8x16xf32>
  %s = fuse.reduce sum %e dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  return %e, %s : tensor<8x16xf32>, tensor<8xf32>
}

// -----

// The bias broadcast feeds two kernels (two matmul epilogues): each gets its
// own copy and reads the 32-element bias; no broadcast is materialized.
// The two matmuls read one lhs, so fuse-horizontal-fusion runs them as one
// launch: a horizontal fusion of the two kernels.
// COUNT-LABEL: func.func @cheap_broadcast_duplicated_into_each_consumer
// COUNT-COUNT-3: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @cheap_broadcast_duplicated_into_each_consumer
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W1:.*]]: tensor<32x32xf32>, %[[W2:.*]]: tensor<32x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: fuse.fusion horizontal(%[[B]], %[[X]], %[[W1]], %[[W2]])
// CHECK-NEXT: ^bb0(%[[HB:.*]]: tensor<32xf32>, %[[HX:.*]]: tensor<8x32xf32>, %[[HW1:.*]]: tensor<32x32xf32>, %[[HW2:.*]]: tensor<32x32xf32>)
// CHECK: fuse.fusion matmul(%[[HB]], %[[HX]], %[[HW1]])
// CHECK: fuse.broadcast
// CHECK: fuse.fusion matmul(%[[HX]], %[[HW2]], %[[HB]])
// CHECK: fuse.broadcast
func.func @cheap_broadcast_duplicated_into_each_consumer(%x: tensor<8x32xf32>, %w1: tensor<32x32xf32>, %w2: tensor<32x32xf32>, %b: tensor<32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %bb = fuse.broadcast %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %0 = fuse.matmul %x, %w1 : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %1 = fuse.add %0, %bb : tensor<8x32xf32>
  %2 = fuse.matmul %x, %w2 : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
  %3 = fuse.add %2, %bb : tensor<8x32xf32>
  return %1, %3 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// A transpose and a reshape of inputs become index maps of the pointwise
// kernel that consumes them.
// COUNT-LABEL: func.func @transpose_and_reshape_absorbed_by_consumer
// COUNT-COUNT-1: fuse.fusion
// COUNT-NOT: fuse.fusion
// CHECK-LABEL: func.func @transpose_and_reshape_absorbed_by_consumer
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<128xf32>)
// CHECK: fuse.fusion pointwise(%[[A]], %[[B]])
// CHECK: fuse.transpose
// CHECK: fuse.reshape
// CHECK: fuse.add
func.func @transpose_and_reshape_absorbed_by_consumer(%a: tensor<16x8xf32>, %b: tensor<128xf32>) -> tensor<8x16xf32> {
  %at = fuse.transpose %a, permutation = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %br = fuse.reshape %b : tensor<128xf32> -> tensor<8x16xf32>
  %s = fuse.add %at, %br : tensor<8x16xf32>
  %t = fuse.tanh %s : tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}
