// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// RUN: fuse-opt %s --mlir-print-op-generic | fuse-opt | FileCheck %s

// Round trip of fuse.scatter: rows of a cache at i64 positions (reduction
// none, the default, printed without it), elements at i32 indices added,
// 2-D indices with a multiply, max and min into integer data.

// CHECK-LABEL: func.func @scatter_forms
//  CHECK-SAME: (%[[C:.*]]: tensor<128x64xf32>, %[[P:.*]]: tensor<1xi64>, %[[R:.*]]: tensor<1x64xf32>, %[[X:.*]]: tensor<10xf32>, %[[I:.*]]: tensor<4xi32>, %[[U:.*]]: tensor<4xf32>, %[[J:.*]]: tensor<2x3xi64>, %[[V:.*]]: tensor<2x3x5xf16>, %[[D:.*]]: tensor<7x5xf16>, %[[N:.*]]: tensor<6xi8>, %[[W:.*]]: tensor<4xi8>)
//       CHECK:   fuse.scatter %[[C]][%[[P]]] = %[[R]] : tensor<128x64xf32>, tensor<1xi64>, tensor<1x64xf32> -> tensor<128x64xf32>
//       CHECK:   fuse.scatter %[[X]][%[[I]]] = %[[U]] reduction = add : tensor<10xf32>, tensor<4xi32>, tensor<4xf32> -> tensor<10xf32>
//       CHECK:   fuse.scatter %[[D]][%[[J]]] = %[[V]] reduction = mul : tensor<7x5xf16>, tensor<2x3xi64>, tensor<2x3x5xf16> -> tensor<7x5xf16>
//       CHECK:   fuse.scatter %[[N]][%[[I]]] = %[[W]] reduction = max : tensor<6xi8>, tensor<4xi32>, tensor<4xi8> -> tensor<6xi8>
//       CHECK:   fuse.scatter %[[N]][%[[I]]] = %[[W]] reduction = min : tensor<6xi8>, tensor<4xi32>, tensor<4xi8> -> tensor<6xi8>
func.func @scatter_forms(%c: tensor<128x64xf32>, %p: tensor<1xi64>,
                         %r: tensor<1x64xf32>, %x: tensor<10xf32>,
                         %i: tensor<4xi32>, %u: tensor<4xf32>,
                         %j: tensor<2x3xi64>, %v: tensor<2x3x5xf16>,
                         %d: tensor<7x5xf16>, %n: tensor<6xi8>,
                         %w: tensor<4xi8>)
    -> (tensor<128x64xf32>, tensor<10xf32>, tensor<7x5xf16>, tensor<6xi8>,
        tensor<6xi8>) {
  %0 = fuse.scatter %c[%p] = %r : tensor<128x64xf32>, tensor<1xi64>, tensor<1x64xf32> -> tensor<128x64xf32>
  %1 = fuse.scatter %x[%i] = %u reduction = add : tensor<10xf32>, tensor<4xi32>, tensor<4xf32> -> tensor<10xf32>
  %2 = fuse.scatter %d[%j] = %v reduction = mul : tensor<7x5xf16>, tensor<2x3xi64>, tensor<2x3x5xf16> -> tensor<7x5xf16>
  %3 = fuse.scatter %n[%i] = %w reduction = max : tensor<6xi8>, tensor<4xi32>, tensor<4xi8> -> tensor<6xi8>
  %4 = fuse.scatter %n[%i] = %w reduction = min : tensor<6xi8>, tensor<4xi32>, tensor<4xi8> -> tensor<6xi8>
  return %0, %1, %2, %3, %4 : tensor<128x64xf32>, tensor<10xf32>, tensor<7x5xf16>, tensor<6xi8>, tensor<6xi8>
}
