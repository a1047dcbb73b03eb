// RUN: fuse-opt %s -fuse-fusion-pipeline | sed -e 's/tensor<[^>]*>>*/T/g' | FileCheck %s --check-prefix=CHECK
// RUN: fuse-opt %S/Inputs/bert-layer-static.mlir.in -fuse-fusion-pipeline | sed -e 's/tensor<[^>]*>>*/T/g' | FileCheck %s --check-prefix=CHECK
// RUN: fuse-opt %s -fuse-fusion-pipeline=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Issue 22, step B: fusion on symbolic dims. A BERT-like layer on
// ?{batch}x?{sequence}x64 fuses as its static twin at batch 1, sequence 128
// (Inputs/bert-layer-static.mlir.in): the same kernels, kinds and contents
// (types are compared as T). The cost model counts a symbolic dim at a
// representative size (passes/RepresentativeDims.h), and legality compares
// element counts exactly. On the host an attention kernel holds a tile of
// keys at a time and reads their count at run time (HostAttentionEmitter),
// so a symbolic sequence keeps the attention kernel.

// Q, K and V projections: one horizontal kernel of three matmul kernels,
// bias, head split and transpose in their epilogues.
// CHECK: fuse.fusion horizontal
// CHECK-COUNT-3: fuse.matmul %{{[a-z0-9]+}}, %{{[a-z0-9]+}} : T, T -> T
// CHECK: fuse.yield

// CHECK: fuse.fusion attention
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul {{.*}} transpose_b
// CHECK: fuse.reduce max
// CHECK: fuse.reduce sum
// CHECK: fuse.matmul
// CHECK-NEXT: fuse.yield

// Output projection, bias and residual; the heads merge (transpose and
// reshape) in its prologue after the attention kernel.
// CHECK: fuse.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.transpose
// CHECK-NEXT: fuse.reshape
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.yield
// Layer norm: one row kernel.
// CHECK: fuse.fusion row_reduction
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.reduce mean {{.*}} dims = [2]
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.sub
// CHECK-NEXT: fuse.mul
// CHECK-NEXT: fuse.reduce mean {{.*}} dims = [2]
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.rsqrt
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.mul
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.mul
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.yield
// FFN: the activation in the first matmul's epilogue, the residual in the
// second's.
// CHECK: fuse.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.mul
// CHECK-NEXT: fuse.sigmoid
// CHECK-NEXT: fuse.mul
// CHECK-NEXT: fuse.yield
// CHECK: fuse.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.broadcast
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.yield
// CHECK: fuse.fusion row_reduction
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.reduce mean {{.*}} dims = [2]
// CHECK: fuse.rsqrt
// CHECK: fuse.yield
// CHECK-NOT: fuse.fusion
// CHECK: return

// EXPLAIN: remark: attention kernel: {{.*}} (fuse.matmul) and {{.*}} (fuse.matmul) with 8 ops between them

func.func @bert_layer(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, %wq: tensor<64x64xf32>, %bq: tensor<64xf32>, %wk: tensor<64x64xf32>, %bk: tensor<64xf32>, %wv: tensor<64x64xf32>, %bv: tensor<64xf32>, %wo: tensor<64x64xf32>, %bo: tensor<64xf32>, %g1: tensor<64xf32>, %be1: tensor<64xf32>, %w1: tensor<64x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x64xf32>, %b2: tensor<64xf32>, %g2: tensor<64xf32>, %be2: tensor<64xf32>, %scale: tensor<f32>, %eps: tensor<f32>, %alpha: tensor<f32>) -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  %qm = fuse.matmul %x, %wq : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %qbb = fuse.broadcast %bq, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %qa = fuse.add %qm, %qbb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %qr = fuse.reshape %qa : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %qt = fuse.transpose %qr, permutation = [0, 2, 1, 3] : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>
  %km = fuse.matmul %x, %wk : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %kbb = fuse.broadcast %bk, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %ka = fuse.add %km, %kbb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %kr = fuse.reshape %ka : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %kt = fuse.transpose %kr, permutation = [0, 2, 1, 3] : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>
  %vm = fuse.matmul %x, %wv : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %vbb = fuse.broadcast %bv, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %va = fuse.add %vm, %vbb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %vr = fuse.reshape %va : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %vt = fuse.transpose %vr, permutation = [0, 2, 1, 3] : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>
  %s = fuse.matmul %qt, %kt transpose_b : tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>, tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %sb = fuse.broadcast %scale, dims = [] : tensor<f32> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %ss = fuse.mul %s, %sb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %mx = fuse.reduce max %ss dims = [3] keep_dims : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>>
  %mxb = fuse.broadcast %mx, dims = [0, 1, 2, 3] : tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %sh = fuse.sub %ss, %mxb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %e = fuse.exp %sh : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %sm = fuse.reduce sum %e dims = [3] keep_dims : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>>
  %smb = fuse.broadcast %sm, dims = [0, 1, 2, 3] : tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %p = fuse.div %e, %smb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %c = fuse.matmul %p, %vt : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>, tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>>
  %ct = fuse.transpose %c, permutation = [0, 2, 1, 3] : tensor<?x4x?x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>>
  %cr = fuse.reshape %ct : tensor<?x?x4x16xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %om = fuse.matmul %cr, %wo : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %obb = fuse.broadcast %bo, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %oa = fuse.add %om, %obb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %res1 = fuse.add %oa, %x : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1mu = fuse.reduce mean %res1 dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l1mub = fuse.broadcast %l1mu, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1d = fuse.sub %res1, %l1mub : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1d2 = fuse.mul %l1d, %l1d : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1var = fuse.reduce mean %l1d2 dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l1eb = fuse.broadcast %eps, dims = [] : tensor<f32> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l1ve = fuse.add %l1var, %l1eb : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l1rs = fuse.rsqrt %l1ve : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l1rsb = fuse.broadcast %l1rs, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1nrm = fuse.mul %l1d, %l1rsb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1gb = fuse.broadcast %g1, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1bb = fuse.broadcast %be1, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1sc = fuse.mul %l1nrm, %l1gb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l1out = fuse.add %l1sc, %l1bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %f1 = fuse.matmul %l1out, %w1 : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x256xf32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %f1bb = fuse.broadcast %b1, dims = [2] : tensor<256xf32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %f1a = fuse.add %f1, %f1bb : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %ab = fuse.broadcast %alpha, dims = [] : tensor<f32> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %ax = fuse.mul %f1a, %ab : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %sg = fuse.sigmoid %ax : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %gl = fuse.mul %f1a, %sg : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %f2 = fuse.matmul %gl, %w2 : tensor<?x?x256xf32, #fuse.dims<batch, sequence>>, tensor<256x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %f2bb = fuse.broadcast %b2, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %f2a = fuse.add %f2, %f2bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %res2 = fuse.add %f2a, %l1out : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2mu = fuse.reduce mean %res2 dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l2mub = fuse.broadcast %l2mu, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2d = fuse.sub %res2, %l2mub : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2d2 = fuse.mul %l2d, %l2d : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2var = fuse.reduce mean %l2d2 dims = [2] keep_dims : tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l2eb = fuse.broadcast %eps, dims = [] : tensor<f32> -> tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l2ve = fuse.add %l2var, %l2eb : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l2rs = fuse.rsqrt %l2ve : tensor<?x?x1xf32, #fuse.dims<batch, sequence>>
  %l2rsb = fuse.broadcast %l2rs, dims = [0, 1, 2] : tensor<?x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2nrm = fuse.mul %l2d, %l2rsb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2gb = fuse.broadcast %g2, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2bb = fuse.broadcast %be2, dims = [2] : tensor<64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2sc = fuse.mul %l2nrm, %l2gb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %l2out = fuse.add %l2sc, %l2bb : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %l2out : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
