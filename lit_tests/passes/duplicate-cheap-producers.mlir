// RUN: fuse-opt %s -split-input-file -fuse-duplicate-cheap-producers | FileCheck %s
// RUN: fuse-opt %s -split-input-file -fuse-duplicate-cheap-producers=explain=true -verify-diagnostics -o /dev/null

// A bias broadcast read by two consumers: two copies read 2 x 128 B, one
// materialized result would move 128 B + 1 KiB + 2 x 1 KiB.
// CHECK-LABEL: func.func @broadcast_duplicated
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: %[[B0:.*]] = fuse.broadcast %[[B]]
// CHECK: fuse.add %[[A]], %[[B0]]
// CHECK: %[[B1:.*]] = fuse.broadcast %[[B]]
// CHECK: fuse.mul %[[A]], %[[B1]]
func.func @broadcast_duplicated(%a: tensor<8x32xf32>, %b: tensor<32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  // expected-remark @below {{duplicated %0 (fuse.broadcast) into 2 consumers: saves 2.9 KiB of traffic}}
  %bb = fuse.broadcast %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %0 = fuse.add %a, %bb : tensor<8x32xf32>
  %1 = fuse.mul %a, %bb : tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// A chain of cheap producers: the broadcast is copied first, which gives the
// cast two consumers, and it is copied too.
// CHECK-LABEL: func.func @cast_then_broadcast_duplicated
// CHECK-COUNT-2: fuse.cast
// CHECK-NOT: fuse.cast
func.func @cast_then_broadcast_duplicated(%a: tensor<8x32xf32>, %b: tensor<32xf16>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  // expected-remark @below {{duplicated %0 (fuse.cast) into 2 consumers: saves 320 B of traffic}}
  %c = fuse.cast %b : tensor<32xf16> to tensor<32xf32>
  // expected-remark @below {{duplicated %1 (fuse.broadcast) into 2 consumers: saves 2.9 KiB of traffic}}
  %bb = fuse.broadcast %c, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %0 = fuse.add %a, %bb : tensor<8x32xf32>
  %1 = fuse.mul %a, %bb : tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// A narrowing cast read by three consumers: copies would read the f64
// operand three times (3 x 256 B), one i8 result moves 256 + 32 + 3 x 32 B.
// CHECK-LABEL: func.func @narrowing_cast_kept
// CHECK-COUNT-1: fuse.cast
// CHECK-NOT: fuse.cast
func.func @narrowing_cast_kept(%a: tensor<32xf64>, %b: tensor<32xi8>) -> (tensor<32xi8>, tensor<32xi8>, tensor<32xi8>) {
  // expected-remark @below {{kept %0 (fuse.cast) for its 3 consumers: copies would move 768 B, one result 384 B}}
  %c = fuse.cast %a : tensor<32xf64> to tensor<32xi8>
  %0 = fuse.add %c, %b : tensor<32xi8>
  %1 = fuse.mul %c, %b : tensor<32xi8>
  %2 = fuse.sub %c, %b : tensor<32xi8>
  return %0, %1, %2 : tensor<32xi8>, tensor<32xi8>, tensor<32xi8>
}

// -----

// func.return keeps the original; the fuse consumer gets a copy.
// CHECK-LABEL: func.func @returned_value_keeps_original
// CHECK: %[[B0:.*]] = fuse.broadcast
// CHECK: %[[B1:.*]] = fuse.broadcast
// CHECK: %[[S:.*]] = fuse.add {{.*}}, %[[B1]]
// CHECK: return %[[B0]], %[[S]]
func.func @returned_value_keeps_original(%a: tensor<8x32xf32>, %b: tensor<32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  // expected-remark @below {{duplicated %0 (fuse.broadcast) into 2 consumers}}
  %bb = fuse.broadcast %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %0 = fuse.add %a, %bb : tensor<8x32xf32>
  return %bb, %0 : tensor<8x32xf32>, tensor<8x32xf32>
}
