// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// RUN: fuse-opt %s --mlir-print-op-generic | fuse-opt | FileCheck %s

// Round trip of fuse.gather: an embedding lookup (i64 ids), a middle axis
// with i32 indices, a scalar index that removes the axis, integer data.

// CHECK-LABEL: func.func @gather_forms
//  CHECK-SAME: (%[[T:.*]]: tensor<100x16xf32>, %[[IDS:.*]]: tensor<2x5xi64>, %[[H:.*]]: tensor<3x4x5xf16>, %[[I:.*]]: tensor<7xi32>, %[[K:.*]]: tensor<i32>, %[[B:.*]]: tensor<6xi8>)
//       CHECK:   fuse.gather %[[T]][%[[IDS]]] axis = 0 : tensor<100x16xf32>, tensor<2x5xi64> -> tensor<2x5x16xf32>
//       CHECK:   fuse.gather %[[H]][%[[I]]] axis = 1 : tensor<3x4x5xf16>, tensor<7xi32> -> tensor<3x7x5xf16>
//       CHECK:   fuse.gather %[[H]][%[[K]]] axis = 2 : tensor<3x4x5xf16>, tensor<i32> -> tensor<3x4xf16>
//       CHECK:   fuse.gather %[[B]][%[[IDS]]] axis = 0 : tensor<6xi8>, tensor<2x5xi64> -> tensor<2x5xi8>
func.func @gather_forms(%t: tensor<100x16xf32>, %ids: tensor<2x5xi64>,
                        %h: tensor<3x4x5xf16>, %i: tensor<7xi32>,
                        %k: tensor<i32>, %b: tensor<6xi8>)
    -> (tensor<2x5x16xf32>, tensor<3x7x5xf16>, tensor<3x4xf16>, tensor<2x5xi8>) {
  %0 = fuse.gather %t[%ids] axis = 0 : tensor<100x16xf32>, tensor<2x5xi64> -> tensor<2x5x16xf32>
  %1 = fuse.gather %h[%i] axis = 1 : tensor<3x4x5xf16>, tensor<7xi32> -> tensor<3x7x5xf16>
  %2 = fuse.gather %h[%k] axis = 2 : tensor<3x4x5xf16>, tensor<i32> -> tensor<3x4xf16>
  %3 = fuse.gather %b[%ids] axis = 0 : tensor<6xi8>, tensor<2x5xi64> -> tensor<2x5xi8>
  return %0, %1, %2, %3 : tensor<2x5x16xf32>, tensor<3x7x5xf16>, tensor<3x4xf16>, tensor<2x5xi8>
}
