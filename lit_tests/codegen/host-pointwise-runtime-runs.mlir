// Issue 22: a pointwise kernel with runtime dims that reads an operand
// through a broadcast whose run of unit stride is a runtime dim (T5's
// attention mask, [batch, 1, 1, sequence] read over [batch, heads,
// sequence, sequence]) has two versions: where `sequence` is a multiple of
// the vector width the mask's lanes are one vector load, elsewhere one
// lane at a time, as before. The static kernel at 128 reads it as one
// vector too. Checked against the reference at lengths of each version
// (16 and 128 take the first, 77 and 5 the other), one compile.

// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=kernels | FileCheck %s --check-prefix=KERNEL
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --dim batch=1 --dim sequence=128 --check --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim batch=2 --dim sequence=16 --check --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim batch=2 --dim sequence=77 --check --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=CHECKED
// RUN: fuse-run %s --dim batch=3 --dim sequence=5 --check --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=CHECKED

func.func @main(%mask: tensor<?x?xi64, #fuse.dims<batch, sequence>>, %g: tensor<?x?x4xf32, #fuse.dims<sequence, sequence>>) -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> {
  %m1 = fuse.cast %mask : tensor<?x?xi64, #fuse.dims<batch, sequence>> to tensor<?x?xi1, #fuse.dims<batch, sequence>>
  %m2 = fuse.reshape %m1 : tensor<?x?xi1, #fuse.dims<batch, sequence>> -> tensor<?x1x1x?xi1, #fuse.dims<batch, sequence>>
  %m3 = fuse.broadcast %m2, dims = [0, 1, 2, 3] : tensor<?x1x1x?xi1, #fuse.dims<batch, sequence>> -> tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %ninf = fuse.constant dense<-3.40282347E+38> : tensor<f32>
  %t = fuse.transpose %g, permutation = [2, 0, 1] : tensor<?x?x4xf32, #fuse.dims<sequence, sequence>> -> tensor<4x?x?xf32, #fuse.dims<sequence, sequence>>
  %r = fuse.reshape %t : tensor<4x?x?xf32, #fuse.dims<sequence, sequence>> -> tensor<1x4x?x?xf32, #fuse.dims<sequence, sequence>>
  %nb = fuse.broadcast %ninf, dims = [] : tensor<f32> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %rb = fuse.broadcast %r, dims = [0, 1, 2, 3] : tensor<1x4x?x?xf32, #fuse.dims<sequence, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %mb = fuse.broadcast %m3, dims = [0, 1, 2, 3] : tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %y = fuse.select %mb, %rb, %nb : tensor<?x4x?x?xi1, #fuse.dims<batch, sequence, sequence>>, tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  return %y : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
}

// The select's kernel: `sequence` (entry 1 of its dims array) modulo 16
// picks the version; the first reads the mask's 16 lanes at once.
// KERNEL-LABEL: func.func @fuse_k1_pointwise
// KERNEL: %[[SEQ:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 8 : i64} : !llvm.ptr -> i64
// KERNEL: %[[REST:[0-9]+]] = arith.remui %[[SEQ]], %c16_i64 : i64
// KERNEL: %[[WHOLE:[0-9]+]] = arith.cmpi eq, %[[REST]], %c0_i64 : i64
// KERNEL: %[[ALL:[0-9]+]] = arith.andi %true, %[[WHOLE]] : i1
// KERNEL-NEXT: scf.if %[[ALL]] {
// KERNEL: llvm.load %{{[0-9]+}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// KERNEL: } else {
// KERNEL-NOT: -> vector<16xi8>
// KERNEL: vector.from_elements {{.*}} : vector<16xi8>

// CHECKED: symbolic dims bound for this run
// CHECKED: check: passed, 1 outputs match the reference
